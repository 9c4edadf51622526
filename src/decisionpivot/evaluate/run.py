"""`dp evaluate`: one system over the tasks of an items folder, writing resumable answer files."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import AnswerWriter, Shard, answer_paths
from decisionpivot.evaluate.systems import SystemConfig
from decisionpivot.items import Item, read_items, sha256_file


@dataclass(frozen=True)
class TaskRun:
    """What one evaluation did for one task."""

    task: str
    """Task (family) name."""
    items: int
    """Items in this task's share (all items, or the shard's)."""
    already: int
    """Items answered by an earlier run and skipped."""
    answered: int
    """Records with probabilities now in the answer file."""
    errors: int
    """Error records now in the answer file."""
    retries: int
    """Retries spent."""
    path: Path
    """Answer file written."""


def task_files(items_dir: Path) -> dict[str, Path]:
    """Task name -> items file for every ``*.jsonl`` in the folder (MANIFEST order when present)."""
    if not items_dir.is_dir():
        raise DecisionPivotError(f"{items_dir}: no items folder (run `dp generate` first)")
    files = {p.stem: p for p in sorted(items_dir.glob("*.jsonl"))}
    if not files:
        raise DecisionPivotError(f"{items_dir}: no items files (*.jsonl)")
    return files


def select(items: Sequence[Item], shard: Shard | None, limit: int | None) -> list[Item]:
    chosen = [item for i, item in enumerate(items) if shard is None or i % shard.count == shard.index]
    return chosen[:limit] if limit is not None else chosen


def _answer(system: SystemConfig, todo: list[Item], writer: AnswerWriter, raw_path: Path, bar: Any) -> int:
    """Answer ``todo`` with the system's runner, writing each record as it comes; returns retries."""
    from decisionpivot.evaluate.chat import RunCounters

    counters = RunCounters()

    def emit(record: dict[str, Any]) -> None:
        writer.write(record)
        if "p" in record:
            counters.answered += 1
        else:
            counters.errors += 1
        bar.update(1)
        bar.set_postfix(answered=counters.answered, errors=counters.errors, retries=counters.retries, refresh=False)

    if system.kind == "chat":
        from decisionpivot.evaluate.chat import ChatRunner

        budget = system.settings.get("retry_budget")
        budget = int(budget) if budget is not None else 50 + len(todo) // 10
        asyncio.run(ChatRunner(system).run(todo, emit, counters, raw_path, budget))
    elif system.kind == "hf":
        runner = _hf_runner(system)
        for start in range(0, len(todo), runner.batch_size):
            for record in runner.answer(todo[start:start + runner.batch_size]):
                emit(record)
    else:
        from decisionpivot.evaluate.local import answer_batch, local_decider

        decide, batch = local_decider(system)
        for start in range(0, len(todo), batch):
            for record in answer_batch(decide, todo[start:start + batch]):
                emit(record)
    return counters.retries


_HF_CACHE: dict[str, Any] = {}


def _hf_runner(system: SystemConfig) -> Any:
    from decisionpivot.evaluate.hf import HFRunner

    key = json.dumps(system.public(), sort_keys=True, default=str)
    if key not in _HF_CACHE:  # load a model once per process, not once per task
        _HF_CACHE.clear()
        _HF_CACHE[key] = HFRunner(system)
    return _HF_CACHE[key]


def evaluate_system(
    system: SystemConfig,
    items_dir: Path,
    runs_dir: Path,
    tasks: Sequence[str] | None = None,
    limit: int | None = None,
    shard: Shard | None = None,
    progress: bool | None = None,
) -> list[TaskRun]:
    """Run ``system`` over each task (its family only, for heuristic baselines)."""
    files = task_files(items_dir)
    names = list(tasks) if tasks else list(files)
    unknown = [t for t in names if t not in files]
    if unknown:
        raise DecisionPivotError(f"{items_dir}: no items file for task(s) {unknown}; available: {sorted(files)}")
    if system.families is not None:
        names = [t for t in names if t in system.families]
        if not names:
            raise DecisionPivotError(f"system {system.name!r} answers only {list(system.families)}")
    results = []
    for task in names:
        path = files[task]
        items = read_items(path)
        chosen = select(items, shard, limit)
        answers_path, meta_path = answer_paths(runs_dir, system.name, task, shard)
        writer, done = AnswerWriter.open(answers_path, meta_path, task=task, items_file=path,
                                         items_sha256=sha256_file(path), system=system.public(), shard=shard)
        todo = [item for item in chosen if item.id not in done]
        raw_path = answers_path.with_name(answers_path.name.removesuffix(".jsonl") + ".raw.jsonl")
        retries = 0
        finished = False
        quiet = True if progress is False else None  # None: tqdm shows the bar only on a terminal
        with tqdm(total=len(todo), desc=f"{system.name} {task}", unit="item", disable=quiet, leave=False) as bar:
            try:
                retries = _answer(system, todo, writer, raw_path, bar)
                finished = True
            finally:
                writer.close(items=len(chosen), retries=retries, finished=finished)
        results.append(TaskRun(task, len(chosen), len(chosen) - len(todo), writer.meta["answers"],
                               writer.meta["errors"], retries, answers_path))
    return results
