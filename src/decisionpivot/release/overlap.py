"""`dp overlap`: find reference items that share long n-grams with training files, and filter them out.

The paper removed reference items found in its models' training files together with their groups.
Here every reference item's text (state, question and option meanings) is cut into word n-grams
(13 tokens by default; lower-cased ``\\w+`` tokens); training files are streamed (plain text, JSON
Lines, gzip) and their n-grams looked up. An item sharing at least one n-gram is flagged, and its
whole contrast group (or reranking query) goes with it.

n-grams are hashed as a fixed-seed dot product of token ids with random 64-bit weights (numpy,
wrapping arithmetic), so the result does not depend on PYTHONHASHSEED; token ids are shared by the
reference and the training side within one run.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, atomic_write_bytes, items_bytes, read_items, render_state, string_values

TOKEN = re.compile(r"\w+")
DEFAULT_N = 13
CHUNK_BYTES = 1 << 20


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


class NgramIndex:
    """Hashed n-grams of the reference items, and the lookup of training text against them."""

    def __init__(self, n: int = DEFAULT_N) -> None:
        if n < 1:
            raise DecisionPivotError(f"--n must be positive, got {n}")
        self.n = n
        self.vocab: dict[str, int] = {}
        self.weights = np.random.default_rng(20261007).integers(1, 2**63, size=n, dtype=np.uint64) | np.uint64(1)
        self.hashes = np.zeros(0, dtype=np.uint64)
        """Sorted n-gram hashes of the reference items (with repeats, one per owner)."""
        self.owners = np.zeros(0, dtype=np.int64)
        """Index into ``item_ids`` of the item owning each entry of ``hashes``."""
        self.item_ids: list[str] = []

    def ids(self, text: str) -> np.ndarray:
        """Token ids of a text; each distinct token is looked up once per call."""
        tokens = TOKEN.findall(text.lower())
        if not tokens:
            return np.zeros(0, dtype=np.uint64)
        distinct, inverse = np.unique(np.array(tokens), return_inverse=True)
        vocab = self.vocab
        table = np.fromiter((vocab.setdefault(t, len(vocab) + 1) for t in distinct.tolist()), dtype=np.uint64,
                            count=len(distinct))
        return table[inverse]

    def ngram_hashes(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) < self.n:
            return np.zeros(0, dtype=np.uint64)
        windows = sliding_window_view(ids, self.n)
        with np.errstate(over="ignore"):
            return (windows * self.weights).sum(axis=1, dtype=np.uint64)

    def add_items(self, items: Iterable[Item]) -> None:
        hashes, owners = [self.hashes], [self.owners]
        for item in items:
            text = " ".join([render_state(item.state), item.question, *(o.meaning for o in item.options)])
            item_hashes = self.ngram_hashes(self.ids(text))
            hashes.append(item_hashes)
            owners.append(np.full(len(item_hashes), len(self.item_ids), dtype=np.int64))
            self.item_ids.append(item.id)
        all_hashes, all_owners = np.concatenate(hashes), np.concatenate(owners)
        order = np.argsort(all_hashes, kind="stable")
        self.hashes, self.owners = all_hashes[order], all_owners[order]

    def matches(self, text_ids: np.ndarray) -> set[str]:
        hashes = self.ngram_hashes(text_ids)
        if not len(hashes) or not len(self.hashes):
            return set()
        at = np.minimum(np.searchsorted(self.hashes, hashes), len(self.hashes) - 1)
        hits = np.unique(hashes[self.hashes[at] == hashes])
        found: set[str] = set()
        for h in hits:
            lo, hi = np.searchsorted(self.hashes, h, side="left"), np.searchsorted(self.hashes, h, side="right")
            found.update(self.item_ids[i] for i in self.owners[lo:hi].tolist())
        return found


def _open_text(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:  # type: ignore[operator]
            yield from handle
    except OSError as exc:
        raise DecisionPivotError(f"{path}: cannot read training file ({exc})") from None


def training_documents(path: Path) -> Iterator[str]:
    """Text of a training file in chunks: JSON Lines records' string values, or plain-text blocks."""
    is_jsonl = ".jsonl" in path.suffixes or ".json" in path.suffixes
    buffer: list[str] = []
    size = 0
    for number, line in enumerate(_open_text(path), start=1):
        if is_jsonl:
            if not line.strip():
                continue
            try:
                yield " ".join(string_values(json.loads(line)))
            except json.JSONDecodeError:
                raise DecisionPivotError(f"{path}:{number}: not valid JSON") from None
            continue
        buffer.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield "".join(buffer)
            # keep the tail so n-grams spanning the chunk boundary are still seen
            tail = buffer[-1][-2000:]
            buffer, size = [tail], len(tail)
    if buffer:
        yield "".join(buffer)


def flag_overlap(items_by_task: dict[str, Sequence[Item]], training: Sequence[Path], n: int = DEFAULT_N) -> set[str]:
    """Ids of reference items sharing at least one n-gram with the training files."""
    index = NgramIndex(n)
    for items in items_by_task.values():
        index.add_items(items)
    flagged: set[str] = set()
    for path in training:
        if not path.is_file():
            raise DecisionPivotError(f"{path}: no such training file")
        for document in training_documents(path):
            flagged |= index.matches(index.ids(document))
    return flagged


def filter_folder(items_dir: Path, training: Sequence[Path], out_dir: Path, n: int = DEFAULT_N) -> list[OverlapReport]:
    """Write a filtered copy of every items file in ``items_dir`` to ``out_dir``; return counts per task."""
    files = sorted(items_dir.glob("*.jsonl"))
    if not files:
        raise DecisionPivotError(f"{items_dir}: no items files to filter")
    items_by_task = {p.stem: read_items(p) for p in files}
    flagged = flag_overlap(items_by_task, training, n)
    reports = []
    for task, items in items_by_task.items():
        bad_groups = {i.group or i.id for i in items if i.id in flagged}
        kept = [i for i in items if (i.group or i.id) not in bad_groups]
        atomic_write_bytes(out_dir / f"{task}.jsonl", items_bytes(kept))
        reports.append(OverlapReport(task, len(items), sum(i.id in flagged for i in items), len(items) - len(kept)))
    summary = [r.__dict__ for r in reports]
    atomic_write_bytes(out_dir / "overlap.json", (json.dumps({"n": n, "training": [str(p) for p in training],
                                                              "tasks": summary}, indent=2) + "\n").encode())
    return reports
