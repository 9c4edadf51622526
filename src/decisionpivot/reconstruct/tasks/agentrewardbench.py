"""agentrewardbench (layer D): did this web agent trajectory succeed at its goal? (AgentRewardBench, test split).

Inputs, in the layout of the release: ``data/annotations.csv`` (expert annotations: annotator_name,
benchmark, task_id, model_name, trajectory_success, trajectory_side_effect, trajectory_optimality,
trajectory_looping), ``data/splits.csv`` (task_id, split) and the cleaned trajectories
``cleaned/<benchmark>/<model_name>/.../<task_id>.json``. As in the official scorer, the first
annotation of a (benchmark, model_name, task_id) is the primary one and the only one used, tasks
are assigned to splits after removing ``.resized``/``.improved`` from the task id, only the test
split is kept, and ``Unsure`` success labels are dropped. Label: Successful -> success,
Unsuccessful -> failure. The state is the goal and, per step, the agent's reasoning, action, URL
and last action error (accessibility trees and screenshots are not included). The domain is the
benchmark (workarena++ for WorkArena L2 task ids, as the scorer splits them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

ANNOTATIONS = "data/annotations.csv"
SPLITS = "data/splits.csv"
LABELS = {"Successful": "success", "Unsuccessful": "failure"}
STEP_KEYS = ("num", "reasoning", "action", "url", "last_action_error")


def normalize_task_id(task_id: str) -> str:
    for suffix in (".resized", ".improved"):
        task_id = task_id.replace(suffix, "")
    return task_id


def trajectory_path(source: SourceFolder, benchmark: str, model: str, task_id: str) -> str:
    folder = source.path(f"cleaned/{benchmark}/{model}")
    root = source.root.resolve()
    hits = sorted(p.relative_to(root).as_posix() for p in folder.rglob(f"{task_id}.json") if p.is_file())
    if len(hits) != 1:
        found = "none" if not hits else ", ".join(hits)
        raise SourceError(f"{folder}: expected one trajectory {task_id}.json, found {found}")
    return hits[0]


@dataclass(frozen=True)
class JudgedTrajectory:
    """The primary expert judgment of one test-split trajectory (from annotations.csv and splits.csv)."""

    benchmark: str
    """Benchmark as in the annotations (webarena, visualwebarena, workarena, assistantbench)."""
    model_name: str
    """Agent that produced the trajectory (the trajectories' folder name)."""
    task_id: str
    """Task id as annotated (may carry .resized/.improved)."""
    answer: str
    """success or failure."""


def judged_trajectories(source: SourceFolder) -> list[JudgedTrajectory]:
    """Primary, test-split, non-Unsure judgments in annotation order (the labels without the trajectories)."""
    splits: dict[str, str] = {}
    for number, row in enumerate(source.csv(SPLITS), start=2):
        if not row.get("task_id") or row.get("split") not in ("dev", "test"):
            raise SourceError(f"{source.path(SPLITS)}:{number}: expected task_id and split dev/test")
        splits[row["task_id"]] = row["split"]
    seen: set[tuple[str, str, str]] = set()
    judged = []
    for number, row in enumerate(source.csv(ANNOTATIONS), start=2):
        for column in ("benchmark", "task_id", "model_name", "trajectory_success"):
            if not row.get(column):
                raise SourceError(f"{source.path(ANNOTATIONS)}:{number}: missing {column}")
        key = (row["benchmark"], row["model_name"], row["task_id"])
        if key in seen:
            continue  # a secondary annotation: the scorer uses the primary (first) one
        seen.add(key)
        task = normalize_task_id(row["task_id"])
        if task not in splits:
            raise SourceError(f"{source.path(ANNOTATIONS)}:{number}: task {task!r} not in {SPLITS}")
        if splits[task] != "test" or row["trajectory_success"] == "Unsure":
            continue
        if row["trajectory_success"] not in LABELS:
            raise SourceError(f"{source.path(ANNOTATIONS)}:{number}: trajectory_success "
                              f"{row['trajectory_success']!r}, expected Successful, Unsuccessful or Unsure")
        judged.append(JudgedTrajectory(row["benchmark"], row["model_name"], row["task_id"],
                                       LABELS[row["trajectory_success"]]))
    return judged


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for judged in judged_trajectories(source):
        path = trajectory_path(source, judged.benchmark, judged.model_name, judged.task_id)
        record = source.json(path)
        if not isinstance(record, dict) or "goal" not in record or not isinstance(record.get("steps"), list):
            raise SourceError(f"{source.path(path)}: expected an object with goal and steps")
        steps = [{k: step.get(k) for k in STEP_KEYS} for step in record["steps"]]
        benchmark = judged.benchmark
        if benchmark == "workarena" and "l2" in judged.task_id.lower():
            benchmark = "workarena++"
        items.append(reference_item(card, {"goal": record["goal"], "steps": steps}, judged.answer, domain=benchmark,
                                    extra={"task_id": judged.task_id, "agent": judged.model_name}))
    return items
