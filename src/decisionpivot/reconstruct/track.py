"""The reference track in the DVC pipeline: the ``reconstruct`` stage rebuilds every task card.

``params.yaml`` names the folder of official files (``reconstruct.source``, empty by default) and, for
the capability-boundary tasks, a sampled-answers file (``reconstruct.sampled_answers``). The stage runs
:func:`build_all`, which runs :func:`build_stage` for every task card into ``<out>/<task>/``; each
always writes ``<task>/status.json`` and, when the task was rebuilt, ``<task>/<task>.jsonl`` - so the
stage's output exists whatever the source holds:

* source empty: status ``off``, nothing else (the pipeline's other outputs stay byte for byte as
  without the track);
* no ``<task>/`` folder in the source, or a capability-boundary task without sampled answers: status
  ``absent`` / ``skipped`` with the reason;
* otherwise ``dp reconstruct``'s checks (official files' SHA-256, item count, items SHA-256 against the
  card): status ``rebuilt`` with count and hash, or the stage fails naming what differs and writes
  nothing.

The stages downstream read the rebuilt tasks through :func:`gather` (one flat folder of
``<task>.jsonl``, as ``dp score --reference`` and ``dp datasheet --reference`` take it, printed by
``folder``; an empty line when no task was rebuilt, i.e. ``--reference ""``) and
:func:`evaluate_reference` (answers of the system for every rebuilt task, beside its core answers;
family heuristics answer only their family and are skipped).

Command line (used by ``dvc.yaml``)::

    python -m decisionpivot.reconstruct.track build-all --source DIR --sampled-answers FILE --out datasets/reconstructed
    python -m decisionpivot.reconstruct.track build TASK --source DIR --sampled-answers FILE --out DIR
    python -m decisionpivot.reconstruct.track folder --build datasets/reconstructed --out datasets/reference-track
    python -m decisionpivot.reconstruct.track evaluate --systems A,B,... --build datasets/reconstructed --runs runs

One stage for all cards (not one per card): with the track off each card's stage did nothing but write
its status, and the DVC overhead of 35 stages was most of the main job's time spent on the track.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes
from decisionpivot.reconstruct.card import get_card
from decisionpivot.reconstruct.run import MissingInputError, reconstruct_task

STATUS_FILE = "status.json"
STATUSES = ("off", "absent", "skipped", "rebuilt")


@dataclass(frozen=True)
class StageStatus:
    """What one ``reconstruct@<task>`` stage did (``status.json``)."""

    task: str
    """Task id."""
    status: str
    """off, absent, skipped or rebuilt."""
    reason: str = ""
    """Why the task was not rebuilt (empty when rebuilt)."""
    items: int | None = None
    """Items written (rebuilt only)."""
    sha256: str | None = None
    """SHA-256 of the items file (rebuilt only)."""
    verified: bool = False
    """Whether count and hash were checked against a verified card."""

    def to_bytes(self) -> bytes:
        """Deterministic JSON (fixed key order, no paths, no times)."""
        record = {"task": self.task, "status": self.status, "reason": self.reason, "items": self.items,
                  "sha256": self.sha256, "verified": self.verified}
        return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _clear(out: Path) -> None:
    """Remove what an earlier run of the stage left (DVC usually has already)."""
    if out.is_dir():
        for child in sorted(out.iterdir()):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    out.mkdir(parents=True, exist_ok=True)


def build_stage(task: str, source: str | Path | None, out: str | Path,
                sampled_answers: str | Path | None = None) -> StageStatus:
    """Rebuild ``task`` into ``out`` (``<task>.jsonl`` + ``status.json``), or record why not (module docstring).

    A mismatch against the card raises :class:`ReconstructionError` after clearing ``out``: the stage
    fails and leaves no items behind.
    """
    get_card(task)  # an unknown task is an error naming the known ones
    out = Path(out)
    _clear(out)
    inputs: dict[str, Any] = {"sampled_answers": str(sampled_answers)} if sampled_answers else {}
    if source is None or not str(source).strip():
        status = StageStatus(task, "off", "reconstruct.source in params.yaml is empty: the reference track is off")
    elif not (Path(source) / task).is_dir():
        status = StageStatus(task, "absent", f"the source folder has no {task}/ folder of official files")
    else:
        try:
            result = reconstruct_task(task, source, out, **inputs)
        except MissingInputError:
            status = StageStatus(task, "skipped", "needs a sampled-answers file: set reconstruct.sampled_answers")
        else:
            status = StageStatus(task, "rebuilt", items=result.items, sha256=result.sha256,
                                 verified=result.verified)
    atomic_write_bytes(out / STATUS_FILE, status.to_bytes())
    return status


def build_all(source: str | Path | None, out: str | Path,
              sampled_answers: str | Path | None = None) -> list[StageStatus]:
    """:func:`build_stage` for every task card into ``out/<task>/``; a folder there of no task card is removed
    (it would be read as a stale rebuilt task). Stops at the first mismatch against a card."""
    from decisionpivot.reconstruct.card import all_cards

    out = Path(out)
    tasks = sorted(all_cards())
    if out.is_dir():
        for stale in sorted(p for p in out.iterdir() if p.name not in tasks):
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
    return [build_stage(task, source, out / task, sampled_answers) for task in tasks]


def read_status(folder: Path) -> StageStatus:
    """The ``status.json`` of one stage folder; an error naming the file when it is missing or malformed."""
    path = folder / STATUS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        status = StageStatus(str(data["task"]), str(data["status"]), str(data.get("reason", "")),
                             data.get("items"), data.get("sha256"), bool(data.get("verified", False)))
    except FileNotFoundError:
        raise DecisionPivotError(f"{path}: missing (run the reconstruct stage)") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise DecisionPivotError(f"{path}: not a reconstruct stage status ({exc})") from None
    if status.status not in STATUSES or status.task != folder.name:
        raise DecisionPivotError(f"{path}: status {status.status!r} for task {status.task!r}, expected one of "
                                 f"{list(STATUSES)} for {folder.name!r}")
    return status


def rebuilt_tasks(build: str | Path) -> dict[str, Path]:
    """Task -> items file of every stage folder under ``build`` whose status is rebuilt, in task order."""
    root = Path(build)
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        status = read_status(folder)
        if status.status != "rebuilt":
            continue
        items = folder / f"{status.task}.jsonl"
        if not items.is_file():
            raise DecisionPivotError(f"{folder / STATUS_FILE}: says rebuilt, but {items} is missing")
        found[status.task] = items
    return found


def gather(build: str | Path, out: str | Path) -> list[str]:
    """Make ``out`` hold exactly the rebuilt tasks' ``<task>.jsonl`` (copies); returns the task ids."""
    tasks = rebuilt_tasks(build)
    out = Path(out)
    if out.is_dir():
        for stale in sorted(out.glob("*.jsonl")):
            if stale.stem not in tasks:
                stale.unlink()
    for task, path in tasks.items():
        target = out / f"{task}.jsonl"
        data = path.read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            atomic_write_bytes(target, data)
    return list(tasks)


def evaluate_reference(system_name: str, build: str | Path, runs: str | Path) -> list[str]:
    """Answer every rebuilt task with ``system_name`` into ``runs/<system>/``; returns the tasks answered.

    Family heuristics answer only their own family, so they are skipped here.
    """
    from decisionpivot.evaluate.run import evaluate_system
    from decisionpivot.evaluate.systems import get_system

    system = get_system(system_name)
    tasks = rebuilt_tasks(build)
    if system.families is not None or not tasks:
        return []
    answered = []
    for task, path in tasks.items():
        evaluate_system(system, path.parent, Path(runs), [task], progress=False)
        answered.append(task)
    return answered


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m decisionpivot.reconstruct.track",
                                     description="The reference track's DVC stages (see the module docstring).")
    verbs = parser.add_subparsers(dest="verb", required=True)
    build_every = verbs.add_parser("build-all", help="rebuild every task card's task into <out>/<task>/")
    build_every.add_argument("--source", default="", help='folder of <task>/ official files ("" = track off)')
    build_every.add_argument("--sampled-answers", default="", help="sampled-answers file for capb_* tasks")
    build_every.add_argument("--out", required=True, help="the folder of the task folders")
    build = verbs.add_parser("build", help="rebuild one task into its stage folder, or record why not")
    build.add_argument("task")
    build.add_argument("--source", default="", help='folder of <task>/ official files ("" = track off)')
    build.add_argument("--sampled-answers", default="", help="sampled-answers file for capb_* tasks")
    build.add_argument("--out", required=True, help="the stage folder (status.json, <task>.jsonl)")
    folder = verbs.add_parser("folder", help="gather the rebuilt tasks into one folder and print it (or '')")
    folder.add_argument("--build", required=True, help="folder of the stage folders")
    folder.add_argument("--out", required=True, help="flat folder of <task>.jsonl")
    evaluate = verbs.add_parser("evaluate", help="answer the rebuilt tasks with a system")
    evaluate.add_argument("--systems", "--system", required=True,
                          help="comma-separated systems or patterns (heuristic.*), as `dp evaluate --systems`")
    evaluate.add_argument("--build", required=True)
    evaluate.add_argument("--runs", default="runs")
    args = parser.parse_args(argv)
    try:
        if args.verb == "build-all":
            statuses = build_all(args.source, args.out, args.sampled_answers or None)
            counts: dict[str, int] = {}
            for status in statuses:
                counts[status.status] = counts.get(status.status, 0) + 1
            print(f"reconstruct: {len(statuses)} task cards: "
                  + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())), file=sys.stderr)
        elif args.verb == "build":
            status = build_stage(args.task, args.source, args.out, args.sampled_answers or None)
            detail = f"{status.items} items, sha256 {status.sha256}" if status.status == "rebuilt" else status.reason
            print(f"reconstruct {args.task}: {status.status} ({detail})", file=sys.stderr)
        elif args.verb == "folder":
            tasks = gather(args.build, args.out)
            print(args.out if tasks else "")
        else:
            from decisionpivot.evaluate.systems import expand_systems

            for system in expand_systems([s.strip() for s in args.systems.split(",") if s.strip()]):
                answered = evaluate_reference(system, args.build, args.runs)
                print(f"{system}: reference tasks answered: {', '.join(answered) or 'none'}", file=sys.stderr)
    except DecisionPivotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
