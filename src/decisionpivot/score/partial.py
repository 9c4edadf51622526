"""Partial scores for quick tries (``dp score --partial``): labelled, and never on the leaderboard.

A task whose records cover fewer than 99% of its items is excluded from every result (the paper's
rule, kept). A ``dp evaluate --limit 20`` try would then show nothing at all; ``--partial`` scores
such tasks on the answered items only - item accuracy over the items with a record, pair accuracy
over the contrast groups whose every member has one - in ``partial.md`` / ``partial.csv``, marked
"partial, not comparable": a subset of items is neither the benchmark nor the same subset as
another system's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.metrics import item_accuracy, pair_accuracy

LABEL = "partial, not comparable"


@dataclass(frozen=True)
class PartialScore:
    """One system's figures on the answered part of one task (0-100 scale)."""

    system: str
    """System name."""
    task: str
    """Task name."""
    answered: int
    """Items with a record (answer or final error)."""
    items: int
    """Items of the task."""
    complete_groups: int
    """Contrast groups whose every member has a record."""
    item_accuracy: float
    """Item accuracy over the answered items."""
    pair_accuracy: float | None
    """Pair accuracy over the complete groups (None when no group is complete)."""


def partial_score(layout: TaskLayout, answers: TaskAnswers) -> PartialScore:
    answered = answers.answered
    item = 100 * float(item_accuracy(answers.correct[answered])) if answered.any() else float("nan")
    groups = layout.group_index
    members = np.bincount(groups, minlength=layout.groups)
    present = np.bincount(groups[answered], minlength=layout.groups)
    complete = members == present
    in_complete = complete[groups] & answered
    pair = None
    if in_complete.any():
        pair = 100 * float(pair_accuracy(answers.correct[in_complete], groups[in_complete]))
    return PartialScore(answers.system, layout.task, int(answered.sum()), layout.size, int(complete.sum()), item, pair)


def partial_markdown(scores: list[PartialScore]) -> str:
    lines = [f"# Partial scores ({LABEL})", "",
             "Tasks below the 99% of items a result needs, scored on the answered items only (pair accuracy "
             "over complete contrast groups). A quick check that a system works, not a result.", "",
             "| System | Task | Answered | Complete groups | Item acc. | Pair acc. |", "|---|---|---|---|---|---|"]
    for s in scores:
        pair = "-" if s.pair_accuracy is None else f"{s.pair_accuracy:.1f}"
        lines.append(f"| {s.system} | {s.task} | {s.answered} of {s.items} | {s.complete_groups} | "
                     f"{s.item_accuracy:.1f} | {pair} |")
    return "\n".join(lines) + "\n"
