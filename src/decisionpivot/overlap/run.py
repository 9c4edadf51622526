"""`dp overlap`: flag reference items that share an n-gram with training files, and filter them out.

The items' n-grams are indexed once (:class:`~decisionpivot.overlap.index.ItemIndex`), the training
inputs expanded and cut into parts (:mod:`~decisionpivot.overlap.sources`), the parts scanned here
or on a Dask cluster (:mod:`~decisionpivot.overlap.engines`) with a resume state, and the hits of
all parts merged: an item is flagged when any part found one of its n-grams, with the first place
in input order as evidence. The result does not depend on the engine, the number of workers, the
part size or the order in which parts finish. A flagged item is removed with its whole contrast
group (or reranking query), as the paper removed its 3,016 reference items.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes, items_bytes, read_items
from decisionpivot.overlap.engines import DASK, ENGINES, LOCAL, scan_here, scan_on_dask
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.normalise import DEFAULT_N, NORMALISATION
from decisionpivot.overlap.scan import Evidence, PartResult
from decisionpivot.overlap.sources import Part, TrainingFile, expand_inputs, plan_parts, shown
from decisionpivot.overlap.state import ScanState

DEFAULT_PART_BYTES = 256_000_000
"""Uncompressed text and JSON Lines files larger than this are scanned in byte ranges of this size."""
STATE_NAME = "overlap.state"
"""The resume journal in the output folder (JSON Lines; not *.jsonl, which would read as a task's items)."""


@dataclass(frozen=True)
class OverlapReport:
    """What the overlap filter found for one reference task."""

    task: str
    """Task id."""
    items: int
    """Items before filtering."""
    flagged: int
    """Items sharing an n-gram with the training files."""
    removed: int
    """Items removed (flagged items and the rest of their groups)."""


@dataclass(frozen=True)
class OverlapScan:
    """The merged result of scanning every training file."""

    flagged: dict[str, Evidence]
    """Flagged item id -> where its first shared n-gram is (first file, first part, first position)."""
    files: tuple[TrainingFile, ...]
    """The training files, in input order."""
    flagged_per_file: dict[str, int]
    """Training file -> items it shares an n-gram with."""
    tokens: int
    """Tokens of training text read."""
    text_bytes: int
    """Bytes of (decompressed) training text read."""
    scanned_bytes: int
    """Bytes of training files read in this run (resumed parts not counted)."""
    seconds: float
    """Wall time of the scan in this run."""
    cpu_seconds: float
    """CPU time the parts scanned in this run took, added over all workers."""
    scanned_text_bytes: int
    """Bytes of (decompressed) training text scanned in this run."""


def scan_training(index: ItemIndex, training: Sequence[str], *, engine: str = LOCAL, workers: int = 1,
                  address: str | None = None, text_column: str = "text", part_bytes: int = DEFAULT_PART_BYTES,
                  state: Path | None = None, progress: bool = False) -> OverlapScan:
    """Scan the training inputs against the index (resuming from ``state`` if it holds finished parts)."""
    if engine not in ENGINES:
        raise DecisionPivotError(f"--engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == LOCAL and (address or workers != 1):
        raise DecisionPivotError("--workers and --address need --engine dask (the local engine is one process)")
    if workers < 1:
        raise DecisionPivotError(f"--workers must be at least 1, got {workers}")
    files = expand_inputs(training)
    parts = plan_parts(files, part_bytes)
    journal = ScanState(state, index, text_column)
    if journal.note:
        print(f"note: {journal.note}", file=sys.stderr)
    results: dict[Part, PartResult] = {}
    todo: list[Part] = []
    for part in parts:
        recorded = journal.result_for(part)
        if recorded is None:
            todo.append(part)
        else:
            results[part] = recorded

    def done(result: PartResult) -> None:
        journal.record(result)
        results[result.part] = result

    started = time.perf_counter()
    scanned = sum(p.weight for p in todo)
    with tqdm(total=scanned, unit="B", unit_scale=True, unit_divisor=1000, desc="dp overlap", smoothing=0.1,
              disable=None if progress else True) as bar:
        if engine == DASK:
            scan_on_dask(index, todo, text_column, done, bar.update, address, workers)
        else:
            scan_here(index, todo, text_column, done, bar.update)
    seconds = time.perf_counter() - started
    flagged: dict[str, Evidence] = {}
    per_file: dict[str, set[str]] = {f.url: set() for f in files}
    for part in parts:
        for item, evidence in results[part].hits.items():
            flagged.setdefault(item, evidence)
            per_file[part.file.url].add(item)
    fresh = [results[part] for part in todo]
    return OverlapScan(flagged, tuple(files), {url: len(ids) for url, ids in per_file.items()},
                       sum(r.tokens for r in results.values()), sum(r.text_bytes for r in results.values()),
                       scanned, seconds, sum(r.cpu_seconds for r in fresh), sum(r.text_bytes for r in fresh))


def _evidence_record(evidence: Evidence) -> dict[str, object]:
    return {"file": evidence.file, evidence.unit: evidence.position, "ngram": evidence.ngram}


def filter_folder(items_dir: Path, training: Sequence[str | Path], out_dir: Path, n: int = DEFAULT_N, *,
                  engine: str = LOCAL, workers: int = 1, address: str | None = None, text_column: str = "text",
                  part_bytes: int = DEFAULT_PART_BYTES, resume: bool = True, state: Path | None = None,
                  progress: bool = False) -> tuple[list[OverlapReport], OverlapScan]:
    """Write a filtered copy of every items file in ``items_dir`` to ``out_dir`` and ``overlap.json``;
    return the counts per task and the scan. The resume journal is ``state`` (default
    ``out_dir/overlap.state``; none when ``resume`` is false)."""
    items_dir, out_dir = Path(items_dir), Path(out_dir)
    files = sorted(items_dir.glob("*.jsonl"))
    if not files:
        raise DecisionPivotError(f"{items_dir}: no items files to filter")
    items_by_task = {p.stem: read_items(p) for p in files}
    index = ItemIndex((item for items in items_by_task.values() for item in items), n)
    journal = (state or out_dir / STATE_NAME) if resume else None
    scan = scan_training(index, [str(t) for t in training], engine=engine, workers=workers, address=address,
                         text_column=text_column, part_bytes=part_bytes, state=journal, progress=progress)
    reports = []
    for task, items in items_by_task.items():
        bad_groups = {i.group or i.id for i in items if i.id in scan.flagged}
        kept = [i for i in items if (i.group or i.id) not in bad_groups]
        atomic_write_bytes(out_dir / f"{task}.jsonl", items_bytes(kept))
        flagged = sum(i.id in scan.flagged for i in items)
        reports.append(OverlapReport(task, len(items), flagged, len(items) - len(kept)))
    summary = {
        "n": n,
        "normalisation": NORMALISATION,
        "training": [shown(str(t)) for t in training],
        "files": [{"file": f.url, "bytes": f.size, "flagged": scan.flagged_per_file[f.url]} for f in scan.files],
        "tokens": scan.tokens,
        "tasks": [r.__dict__ for r in reports],
        "flagged": {item: _evidence_record(scan.flagged[item]) for item in sorted(scan.flagged)},
    }
    atomic_write_bytes(out_dir / "overlap.json", (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode())
    return reports, scan


def overlap_command(train: Sequence[str], items: str, out: str, n: int, engine: str, workers: int,
                    address: str | None, text_column: str, part_mb: int, state: str | None, progress: bool) -> None:
    """`dp overlap`: filter, then print the counts per task and what was read."""
    if not train:
        raise DecisionPivotError("name at least one training file: dp overlap FILE [FILE ...]")
    reports, scan = filter_folder(Path(items), list(train), Path(out), int(n), engine=engine, workers=int(workers),
                                  address=address, text_column=text_column, part_bytes=int(part_mb) * 1_000_000,
                                  resume=state != "", state=Path(state) if state else None, progress=bool(progress))
    print(f"{'task':<22} {'items':>6} {'flagged':>8} {'removed':>8}")
    for r in reports:
        print(f"{r.task:<22} {r.items:>6} {r.flagged:>8} {r.removed:>8}")
    rate = ""
    if scan.scanned_text_bytes and scan.seconds > 0 and scan.cpu_seconds > 0:
        rate = (f": {scan.scanned_text_bytes / 1e6 / scan.seconds:.1f} MB/s of text, "
                f"{scan.scanned_text_bytes / 1e6 / scan.cpu_seconds:.1f} MB/s per core")
    print(f"read {len(scan.files)} training file(s): {scan.text_bytes / 1e6:.1f} MB of text, {scan.tokens} tokens; "
          f"scanned {scan.scanned_bytes / 1e6:.1f} MB of files now in {scan.seconds:.1f} s{rate}", file=sys.stderr)
    print(f"wrote {out}/ ({sum(r.removed for r in reports)} items removed)")
