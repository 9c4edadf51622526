"""`dp evaluate`: one system over the tasks of an items folder, writing resumable answer files.

Before anything is asked, each items file is accepted by :mod:`decisionpivot.item_origin`, the rule of every
verb that reads items: a core draw or an invariance suite this package re-derives byte for byte (or whose
hashes it ships), a reference task its verified card records. Anything else is never evaluated silently
(``allow_modified_items`` lets it through, and the meta file and the leaderboard then say so). The system's
runner - whatever its kind, through the :class:`~decisionpivot.evaluate.kinds.Runner` protocol - answers what
the answer file does not hold yet; afterwards each task reports whether its records reach the 99% the scorer needs.

``permute_options=K`` asks every item again under K seeded re-orderings of its options (written to
``runs/<system>/permuted/<task>.perm-<k>.jsonl``; the release order stays the official one), for the
option-order robustness figures of ``dp score``. Yes/no families asked as ``noul`` have no option
order (the request is the same whatever the order) and are not asked again.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import AnswerWriter, Shard, answer_paths
from decisionpivot.evaluate.kinds import Record, RunCounters, Runner, SystemConfig
from decisionpivot.evaluate.progress import DEFAULT_INTERVAL_S, progress_bar
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import Item, read_items, sha256_file

COVERAGE = (99, 100)
"""A task's records must cover this share of its items for the scorer to include it."""


@dataclass(frozen=True)
class TaskRun:
    """What one evaluation did for one task."""

    task: str
    """Task (family) name; ``<task>.perm-<k>`` for an option-order run."""
    items: int
    """Items in this task's share (all items, or the shard's)."""
    already: int
    """Items answered by an earlier run and skipped."""
    answered: int
    """Of these items, those the answer file holds an answer for."""
    errors: int
    """Of these items, those the answer file holds an error record for (final and transient)."""
    transient: int
    """Of those, transient errors (server down, retries spent): asked again by the next run."""
    retries: int
    """Retries spent."""
    path: Path
    """Answer file written."""
    causes: tuple[tuple[str, str, int, str], ...] = ()
    """What the error records this run wrote have in common (their status, or their reason), most frequent first:
    (``transient`` or ``error``, cause, records, one whole reason)."""
    item_check: tuple[str, str] = ("", "")
    """(task, how its items file was accepted: :func:`decisionpivot.item_origin.accept_items_file`), as the meta's
    ``items_check`` records it (the same for every option order of the task)."""

    @property
    def covered(self) -> bool:
        """Records other than transient errors cover >= 99% of the items (what the scorer needs)."""
        kept = self.answered + self.errors - self.transient
        return COVERAGE[1] * kept >= COVERAGE[0] * self.items


def task_files(items_dir: Path) -> dict[str, Path]:
    """Task name -> items file for every ``*.jsonl`` in the folder (MANIFEST order when present)."""
    if not items_dir.is_dir():
        raise DecisionPivotError(f"{items_dir}: no items folder (run `dp generate` first)")
    files = {p.stem: p for p in sorted(items_dir.glob("*.jsonl"))}
    if not files:
        raise DecisionPivotError(f"{items_dir}: no items files (*.jsonl)")
    return files


def select(items: Sequence[Item], shard: Shard | None, limit: int | None) -> list[Item]:
    if limit is not None and limit < 0:
        raise DecisionPivotError(f"--limit must be 0 or more, got {limit}")
    chosen = [item for i, item in enumerate(items) if shard is None or i % shard.count == shard.index]
    return chosen[:limit] if limit is not None else chosen


def asked_without_order(system: SystemConfig, items: Sequence[Item]) -> bool:
    """Whether the system gets these items with no option order at all: yes/no items asked as ``noul``
    (one question, P(true)), so a permuted order would send the very same request again."""
    from decisionpivot.evaluate.questions import without_order

    return without_order(str(system.settings.get("yes_no")), [item.option_keys for item in items])


def permuted(item: Item, k: int) -> Item:
    """The item with its options in the k-th seeded order (never the listed order when it has 2+ options)."""
    seed = int.from_bytes(hashlib.sha256(f"{item.id}\x00permutation\x00{k}".encode()).digest()[:8], "big")
    rng = random.Random(seed)
    options = list(item.options)
    if len(options) < 2:
        return item
    order = list(options)
    while order == options:
        rng.shuffle(order)
    return replace(item, options=tuple(order))


class _LazyRunner:
    """The system's runner, built on the first task that has something to ask and kept for the others
    (a local model is loaded once per evaluation; a fully resumed evaluation loads nothing)."""

    def __init__(self, system: SystemConfig) -> None:
        self.system = system
        self._runner: Runner | None = None

    def get(self) -> Runner:
        if self._runner is None:
            self._runner = self.system.spec.make_runner(self.system)
        return self._runner

    def close(self) -> None:
        """End the runner (stop a server it started); nothing when none was built."""
        close = getattr(self._runner, "close", None)
        if close is not None:
            close()


def _answer(system: SystemConfig, runner: _LazyRunner, todo: list[Item], writer: AnswerWriter, raw_path: Path,
            bar: Any, counters: RunCounters) -> None:
    """Answer ``todo`` with the system's runner, writing each record as it comes."""
    expected = {item.id for item in todo}

    def emit(record: Record) -> None:
        if record.get("id") not in expected:
            raise DecisionPivotError(f"system {system.name!r}: runner answered {record.get('id')!r}, not asked")
        expected.discard(record["id"])
        writer.write(record)
        if "p" in record:
            counters.answered += 1
        else:
            counters.errors += 1
        bar.set_postfix(answered=counters.answered, errors=counters.errors, retries=counters.retries, refresh=False)
        bar.update(1)  # drawn with the counts just set: the ones the summary prints

    handles: list[Any] = []  # the raw log is opened on its first entry: most runs never write one

    def raw_log(entry: Record) -> None:
        try:
            if not handles:
                handles.append(raw_path.open("a", encoding="utf-8"))
            handles[0].write(json.dumps(entry, ensure_ascii=False) + "\n")
            handles[0].flush()
        except OSError as exc:
            raise DecisionPivotError(f"cannot write {raw_path}: {exc.strerror or exc}") from None

    try:
        if todo:
            runner.get().run(todo, emit, counters, raw_log)
    finally:
        for handle in handles:
            handle.close()


def evaluate_system(
    system: SystemConfig,
    items_dir: Path,
    runs_dir: Path,
    tasks: Sequence[str] | None = None,
    limit: int | None = None,
    shard: Shard | None = None,
    progress: bool | None = None,
    *,
    restart: bool = False,
    retry_errors: bool = False,
    allow_modified_items: bool = False,
    permute_options: int = 0,
    progress_interval_s: float = DEFAULT_INTERVAL_S,
) -> list[TaskRun]:
    """Run ``system`` over each task (its family only, for heuristic baselines).

    ``progress``: None shows a bar on a terminal and a line every ``progress_interval_s`` seconds off one
    (:mod:`decisionpivot.evaluate.progress`); False shows nothing.
    """
    if permute_options < 0:
        raise DecisionPivotError(f"--permute-options must be 0 or more, got {permute_options}")
    files = task_files(items_dir)
    names = list(tasks) if tasks else list(files)
    unknown = [t for t in names if t not in files]
    if unknown:
        raise DecisionPivotError(f"{items_dir}: no items file for task(s) {', '.join(unknown)}; available: "
                                 f"{', '.join(sorted(files))}")
    if system.families is not None:
        names = [t for t in names if t in system.families]
        if not names:
            raise DecisionPivotError(f"system {system.name!r} answers only {list(system.families)}")
    checked: dict[str, tuple[Path, str, str]] = {}
    for task in names:  # every items file is checked before anything is asked
        path = files[task]
        sha256 = sha256_file(path)
        checked[task] = (path, sha256, accept_items_file(path, sha256, allow_modified_items, task))
    results = []
    runner = _LazyRunner(system)
    try:
        for task in names:
            path, sha256, how = checked[task]
            every = read_items(path)
            chosen = select(every, shard, limit)
            orders = 0 if asked_without_order(system, chosen) else permute_options
            for k in range(orders + 1):
                items = chosen if k == 0 else [permuted(item, k) for item in chosen]
                extra = {"items_check": how, "allow_modified_items": allow_modified_items,
                         "permutation": None if k == 0 else {"k": k, "of": permute_options}}
                if any(item.extra.get("companions") for item in chosen):  # an invariance suite's together items
                    extra["questions_per_request"] = system.spec.questions_per_request
                results.append(_run_task(system, runner, task, path, sha256, items, runs_dir, shard, progress,
                                         restart, retry_errors, extra, None if k == 0 else k, progress_interval_s,
                                         frozenset(item.id for item in every)))
    finally:
        runner.close()
    return results


def _run_task(system: SystemConfig, runner: _LazyRunner, task: str, path: Path, sha256: str, chosen: list[Item],
              runs_dir: Path, shard: Shard | None, progress: bool | None, restart: bool, retry_errors: bool,
              extra: dict[str, Any], permutation: int | None,
              progress_interval_s: float = DEFAULT_INTERVAL_S, item_ids: frozenset[str] | None = None) -> TaskRun:
    answers_path, meta_path = answer_paths(runs_dir, system.name, task, shard, permutation)
    writer, done = AnswerWriter.open(answers_path, meta_path, task=task, items_file=path, items_sha256=sha256,
                                     system=system, shard=shard, restart=restart, retry_errors=retry_errors,
                                     extra_meta=extra, item_ids=item_ids)
    todo = [item for item in chosen if item.id not in done]
    raw_path = answers_path.with_name(answers_path.name.removesuffix(".jsonl") + ".raw.jsonl")
    counters = RunCounters(answered_before=sum(writer.outcomes.get(item.id) in ("answer", "error") for item in chosen))
    finished = False
    label = task if permutation is None else f"{task} (option order {permutation})"
    try:
        with progress_bar(f"{system.name} {label}", len(todo), progress, progress_interval_s) as bar:
            _answer(system, runner, todo, writer, raw_path, bar, counters)
        finished = True
    finally:
        writer.close(items=len(chosen), retries=counters.retries, finished=finished,
                     in_flight_limit=counters.in_flight_limit, server=counters.server,
                     order=[item.id for item in chosen])
    name = task if permutation is None else f"{task}.perm-{permutation}"
    held = Counter(writer.outcomes.get(item.id) for item in chosen)  # counts of these items, never of other lines
    causes = tuple((kind, cause, count, writer.examples[kind, cause])
                   for (kind, cause), count in writer.causes.most_common() if count > 0)
    return TaskRun(name, len(chosen), len(chosen) - len(todo), held["answer"], held["error"] + held["transient"],
                   held["transient"], counters.retries, answers_path, causes, (task, str(extra["items_check"])))
