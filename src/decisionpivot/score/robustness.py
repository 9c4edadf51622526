"""Option-order robustness: the same items asked with their options in other orders.

``dp evaluate --permute-options K`` writes ``runs/<system>/permuted/<task>.perm-<k>.jsonl``: every item
asked again under the k-th seeded re-ordering of its options (the release order stays the official
one; answers are keyed by option name, so they read against the official layout). Per system and
family, with K the number of complete permuted runs:

* item and pair accuracy in the official order and their means over the K orders;
* the **changed share**: among items with a usable prediction in both, the share whose predicted
  option differs from the official order's, averaged over the K orders (0 for a model that reads
  options by meaning only; a model that follows positions changes often).

A permuted run counts only when its records cover 99% of the items, like any task. ``macro`` rows
average the families that have one. Ties between equal probabilities break by the official listed
order in every run, so a tie never counts as a change.

A yes/no family asked as ``noul`` (readout ``<api>/noul``: one question, P(true)) has no option order:
every "permuted" request is the very request of the official order, and its "changed 0.0" would only
dilute the macro. Such families are left out (``dp evaluate`` does not ask them; runs made before it
knew are skipped here), and :func:`order_free_families` names them for the report's note.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decisionpivot.score.answers import TaskAnswers, coverage_shortfall, read_task_answers
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.metrics import item_accuracy, pair_accuracy

PERMUTED_FOLDER = "permuted"
_PERMUTED = re.compile(r"^(?P<task>.+)\.perm-(?P<k>[1-9][0-9]*)\.jsonl$")


def changed_share(official: TaskAnswers, permuted: TaskAnswers) -> float:
    """Share of items, usable in both runs, whose predicted option differs between the two orders."""
    both = ~official.failed & ~permuted.failed
    if not both.any():
        return math.nan
    return float((official.predicted[both] != permuted.predicted[both]).mean())


@dataclass(frozen=True)
class OrderRobustness:
    """One system's figures for one family (or ``macro``) under option permutation, on a 0-100 scale."""

    system: str
    """System name."""
    task: str
    """Family, or ``macro`` over the families with permuted runs."""
    permutations: int
    """Complete permuted runs used (K); for ``macro`` the smallest K of the families."""
    item_accuracy: float
    """Item accuracy in the official order."""
    item_accuracy_permuted: float
    """Mean item accuracy over the K orders."""
    pair_accuracy: float
    """Pair accuracy in the official order."""
    pair_accuracy_permuted: float
    """Mean pair accuracy over the K orders."""
    changed_share: float
    """Mean share of items whose predicted option changes (see :func:`changed_share`)."""


def _figures(layout: TaskLayout, answers: TaskAnswers) -> tuple[float, float]:
    return (100 * float(item_accuracy(answers.correct)),
            100 * float(pair_accuracy(answers.correct, layout.group_index)))


def permuted_runs(runs: Path, system: str, task: str) -> list[Path]:
    folder = runs / system / PERMUTED_FOLDER
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"{task}.perm-*.jsonl"):
        match = _PERMUTED.match(path.name)
        if match and match["task"] == task:
            found.append((int(match["k"]), path))
    return [path for _, path in sorted(found)]


def asks_without_order(layout: TaskLayout, answers: TaskAnswers) -> bool:
    """Whether this task's items reach the system with no option order at all: yes/no items read as noul."""
    from decisionpivot.evaluate.questions import without_order

    readout = str(answers.meta.get("readout") or "")
    return without_order("noul" if readout.endswith("/noul") else readout, layout.option_keys)


def order_free_families(runs: Path, layouts: Sequence[TaskLayout], answers: dict[tuple[str, str], TaskAnswers],
                        systems: Sequence[str]) -> dict[str, list[str]]:
    """System (with option-order runs) -> its families left out of the permutation figures: asked without order."""
    found: dict[str, list[str]] = {}
    for system in systems:
        if not (runs / system / PERMUTED_FOLDER).is_dir():
            continue
        names = [layout.task for layout in layouts
                 if (system, layout.task) in answers and asks_without_order(layout, answers[(system, layout.task)])]
        if names:
            found[system] = names
    return found


def order_robustness(runs: Path, layouts: Sequence[TaskLayout],
                     answers: dict[tuple[str, str], TaskAnswers], systems: Sequence[str]) -> list[OrderRobustness]:
    """Figures per system and family with complete permuted runs, plus a ``macro`` row per system."""
    rows: list[OrderRobustness] = []
    for system in systems:
        per_family: list[OrderRobustness] = []
        for layout in layouts:
            official = answers.get((system, layout.task))
            if official is None or asks_without_order(layout, official):
                continue
            permuted = [read_task_answers(path, layout, system) for path in permuted_runs(runs, system, layout.task)]
            permuted = [p for p in permuted if coverage_shortfall(p) is None]
            if not permuted:
                continue
            item, pair = _figures(layout, official)
            figures = np.array([_figures(layout, p) for p in permuted])
            changes = [changed_share(official, p) for p in permuted]
            per_family.append(OrderRobustness(system, layout.task, len(permuted), item, float(figures[:, 0].mean()),
                                              pair, float(figures[:, 1].mean()), 100 * float(np.nanmean(changes))))
        if per_family:
            columns = np.array([[r.item_accuracy, r.item_accuracy_permuted, r.pair_accuracy,
                                 r.pair_accuracy_permuted, r.changed_share] for r in per_family])
            means = columns.mean(axis=0)
            rows += per_family
            rows.append(OrderRobustness(system, "macro", min(r.permutations for r in per_family), *map(float, means)))
    return rows
