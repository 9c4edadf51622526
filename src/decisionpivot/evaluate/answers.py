"""Answer files: ``runs/<system>/<task>.jsonl`` plus ``<task>.meta.json``, safe against crashes.

Each record is one JSON line, written with a single ``write`` and flushed, so after ``kill -9`` the
file holds complete lines and at most one torn last line. Opening the file again drops a torn last
line, refuses a file made for a different items file (both hashes shown), and tells which ids are
already answered, so a re-run answers only what is missing and never writes an id twice.

Shards (``--shard i/n``) write ``runs/<system>/shards/<task>.shard-<i>-of-<n>.jsonl``;
:func:`merge_shards` folds them into the task file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot import __version__
from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes


class AnswerFileError(DecisionPivotError):
    """An answer file that cannot be resumed or merged as it stands."""


@dataclass(frozen=True)
class Shard:
    """Which part of a task's items a process answers: items whose index % count == index."""

    index: int
    """0-based shard number."""
    count: int
    """Number of shards."""

    @classmethod
    def parse(cls, text: str | None) -> Shard | None:
        if text in (None, ""):
            return None
        try:
            i, n = (int(part) for part in str(text).split("/"))
        except ValueError:
            raise AnswerFileError(f"--shard must look like i/n (e.g. 0/4), got {text!r}") from None
        if not 0 <= i < n:
            raise AnswerFileError(f"--shard {text}: need 0 <= i < n")
        return cls(i, n)

    def suffix(self) -> str:
        return f"shard-{self.index}-of-{self.count}"


def now() -> str:
    """The current UTC time in ISO 8601, or SOURCE_DATE_EPOCH's time when that variable is set.

    SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/) makes the .meta.json
    files byte-reproducible; the DVC pipeline sets it so a fresh clone reproduces the locked hashes.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            return dt.datetime.fromtimestamp(int(epoch), dt.UTC).isoformat()
        except (ValueError, OverflowError, OSError):
            raise AnswerFileError(f"SOURCE_DATE_EPOCH={epoch!r} is not a whole number of seconds") from None
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def answer_paths(runs: Path, system: str, task: str, shard: Shard | None = None) -> tuple[Path, Path]:
    """(answers path, meta path) of one system's task, or of one shard of it."""
    folder = runs / system
    stem = folder / "shards" / f"{task}.{shard.suffix()}" if shard is not None else folder / task
    return stem.with_name(stem.name + ".jsonl"), stem.with_name(stem.name + ".meta.json")


def read_answer_lines(path: Path, *, repair: bool) -> list[dict[str, Any]]:
    """Records of an answer file. A torn last line (no newline) is dropped, and cut off when ``repair``."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        if repair:
            with path.open("r+b") as handle:
                handle.truncate(cut)
        data = data[:cut]
    records: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerFileError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise AnswerFileError(f"{path}:{number}: expected an object with a string 'id'")
        if record["id"] in seen:
            first = seen[record["id"]]
            raise AnswerFileError(f"{path}:{number}: duplicate id {record['id']!r} (first on line {first})")
        seen[record["id"]] = number
        records.append(record)
    return records


class AnswerWriter:
    """Append-only writer of one answer file with its metadata."""

    def __init__(self, path: Path, meta_path: Path, meta: dict[str, Any]) -> None:
        self.path = path
        self.meta_path = meta_path
        self.meta = meta
        self._handle = path.open("ab")

    @classmethod
    def open(cls, path: Path, meta_path: Path, *, task: str, items_file: Path, items_sha256: str,
             system: dict[str, Any], shard: Shard | None) -> tuple[AnswerWriter, set[str]]:
        """Open (creating or resuming) and return the writer and the ids already answered."""
        path.parent.mkdir(parents=True, exist_ok=True)
        old_meta: dict[str, Any] = {}
        if meta_path.exists():
            try:
                old_meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                raise AnswerFileError(
                    f"{meta_path}: not valid JSON; delete it with its answers to start over"
                ) from None
            if old_meta.get("items_sha256") != items_sha256:
                raise AnswerFileError(
                    f"{path}: answers were made for items with SHA-256 {old_meta.get('items_sha256')}, but "
                    f"{items_file} now has SHA-256 {items_sha256}. Move the old answers away or use another "
                    "system name to evaluate the changed items."
                )
        elif path.exists() and path.stat().st_size:
            raise AnswerFileError(f"{path}: answers without {meta_path.name}; cannot tell which items they answer")
        records = read_answer_lines(path, repair=True)
        done = {r["id"] for r in records}
        meta = {
            "task": task,
            "system": system,
            "items_file": str(items_file),
            "items_sha256": items_sha256,
            "package_version": __version__,
            "shard": None if shard is None else {"index": shard.index, "count": shard.count},
            "started": old_meta.get("started") or now(),
            "finished": None,
            "items": None,
            "answers": sum(1 for r in records if "p" in r),
            "errors": sum(1 for r in records if "error" in r),
            "retries": int(old_meta.get("retries") or 0),
            "runs": int(old_meta.get("runs") or 0) + 1,
        }
        writer = cls(path, meta_path, meta)
        writer.save_meta()
        return writer, done

    def write(self, record: dict[str, Any]) -> None:
        """Append one whole record line and flush it to the operating system."""
        line = json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"
        self._handle.write(line.encode("utf-8"))
        self._handle.flush()
        self.meta["answers" if "p" in record else "errors"] += 1

    def save_meta(self) -> None:
        atomic_write_bytes(self.meta_path, (json.dumps(self.meta, indent=2, ensure_ascii=False) + "\n").encode())

    def close(self, *, items: int, retries: int, finished: bool) -> None:
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
        self.meta["items"] = items
        self.meta["retries"] += retries
        if finished:
            self.meta["finished"] = now()
        self.save_meta()


def merge_shards(runs: Path, system: str, task_order: dict[str, list[str]]) -> list[tuple[str, int, list[str]]]:
    """Fold every shard file of ``system`` into its task file; ids must appear exactly once.

    ``task_order`` maps task -> item ids in file order (records are written in that order).
    Returns (task, records written, missing ids) per task merged.
    """
    shard_dir = runs / system / "shards"
    if not shard_dir.is_dir():
        raise AnswerFileError(f"{shard_dir}: no shard files to merge")
    by_task: dict[str, list[Path]] = {}
    for path in sorted(shard_dir.glob("*.shard-*-of-*.jsonl")):
        task = path.name.split(".shard-")[0]
        by_task.setdefault(task, []).append(path)
    results = []
    for task, paths in by_task.items():
        if task not in task_order:
            raise AnswerFileError(f"{paths[0]}: task {task!r} is not in the items folder")
        metas = [json.loads(p.with_name(p.name.removesuffix(".jsonl") + ".meta.json").read_text()) for p in paths]
        hashes = {m["items_sha256"] for m in metas}
        if len(hashes) != 1:
            raise AnswerFileError(f"{shard_dir}: shards of {task!r} answered different items files: {sorted(hashes)}")
        counts = {m["shard"]["count"] for m in metas}
        main_path, meta_path = answer_paths(runs, system, task)
        merged: dict[str, dict[str, Any]] = {r["id"]: r for r in read_answer_lines(main_path, repair=False)}
        if main_path.exists() and meta_path.exists():
            main_meta = json.loads(meta_path.read_text())
            if main_meta["items_sha256"] not in hashes:
                raise AnswerFileError(f"{main_path}: answers a different items file than its shards")
        for path in paths:
            for record in read_answer_lines(path, repair=False):
                if record["id"] in merged and merged[record["id"]] != record:
                    raise AnswerFileError(f"{path}: id {record['id']!r} answered twice with different records")
                merged[record["id"]] = record
        unknown = sorted(set(merged) - set(task_order[task]))
        if unknown:
            raise AnswerFileError(f"{shard_dir}: ids not in the items file of {task!r}: {unknown[:5]}")
        ordered = [merged[i] for i in task_order[task] if i in merged]
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered).encode("utf-8")
        atomic_write_bytes(main_path, data)
        meta = {**metas[0], "shard": None, "merged_from": [p.name for p in paths], "shard_count": sorted(counts),
                "answers": sum(1 for r in ordered if "p" in r), "errors": sum(1 for r in ordered if "error" in r),
                "retries": sum(int(m.get("retries") or 0) for m in metas), "items": len(task_order[task]),
                "started": min(m["started"] for m in metas),
                "finished": max((m["finished"] or "") for m in metas) or None}
        atomic_write_bytes(meta_path, (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode())
        missing = [i for i in task_order[task] if i not in merged]
        results.append((task, len(ordered), missing))
    return results

