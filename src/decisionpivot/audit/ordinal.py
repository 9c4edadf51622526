"""Checks of score questions (the scale suite) beyond the content-blind probes: the middle is no shortcut, every
level is used.

On an ordered scale, answering the middle level is the cheapest guess: it is never far from the gold. If the gold
leaned to the middle, a system that always answers it would look good on exact and, more so, on ordinal metrics
(within-one accuracy, mean absolute error) without reading anything. For each item of ``n`` levels the two
"always middle" guesses are the lower middle ``(n - 1) // 2`` and the upper middle ``n // 2`` (the same level
when ``n`` is odd). Each is held to what it would score if the gold were spread uniformly over the levels:

* its exact accuracy must not exceed the uniform expectation (the mean of 1/n) by more than the probe margin;
* its mean absolute error in levels must not fall below the uniform expectation (the mean over items of
  (1/n) sum_i |i - middle|) by more than :data:`MAE_MARGIN`.

The majority level's share (the most frequent gold index) is reported beside them. And every level of every
scale must be gold somewhere: a level no item has as gold is a level no figure can measure.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from decisionpivot.items import Item
from decisionpivot.score_questions import gold_level, is_score_item

MAE_MARGIN = 0.05
"""How far (in levels) always answering the middle level may come closer to the gold on average than it would were
the gold spread uniformly. A constant rather than a params.yaml limit, so that the core's audit.json (which lists
every limit) keeps its bytes."""

GUESSES = {"lower_middle": lambda n: (n - 1) // 2, "upper_middle": lambda n: n // 2}
"""The always-middle guesses: level index from the number of levels."""


def middle_guess(items: Sequence[Item], guess: str) -> dict[str, float]:
    """Exact accuracy and mean absolute error (levels) of one always-middle guess, with their uniform-gold
    expectations and the majority level's share."""
    pick = GUESSES[guess]
    exact = mae = uniform_exact = uniform_mae = 0.0
    for item in items:
        n, gold, middle = len(item.options), gold_level(item), pick(len(item.options))
        exact += gold == middle
        mae += abs(gold - middle)
        uniform_exact += 1 / n
        uniform_mae += sum(abs(i - middle) for i in range(n)) / n
    count = len(items)
    majority = max(Counter(gold_level(i) for i in items).values()) / count
    return {"exact": exact / count, "uniform_exact": uniform_exact / count, "majority_exact": majority,
            "mae": mae / count, "uniform_mae": uniform_mae / count}


def levels_unused(items: Sequence[Item]) -> dict[str, list[int]]:
    """Per scale size (as a string), the level indexes no item has as gold (empty lists are left out)."""
    gold: dict[int, set[int]] = defaultdict(set)
    for item in items:
        gold[len(item.options)].add(gold_level(item))
    return {str(n): missing for n, seen in sorted(gold.items()) if (missing := sorted(set(range(n)) - seen))}


def ordinal_report(items: Sequence[Item], share_margin: float, mae_margin: float = MAE_MARGIN) -> dict[str, Any] | None:
    """The middle-level checks overall and per difficulty level, the unused levels and the gate's findings; None
    when the items are not score questions."""
    if not items or not all(is_score_item(i) for i in items):
        return None
    scopes: dict[str, Sequence[Item]] = {"all": items}
    for level in sorted({i.level for i in items if i.level is not None}):
        scopes[str(level)] = [i for i in items if i.level == level]
    report: dict[str, Any] = {"middle": {}, "levels_unused": levels_unused(items), "failures": []}
    for scope, subset in scopes.items():
        report["middle"][scope] = {guess: middle_guess(subset, guess) for guess in GUESSES}
        for guess, s in report["middle"][scope].items():
            if s["exact"] > s["uniform_exact"] + share_margin + 1e-9:
                report["failures"].append(f"middle level ({scope}): always {guess} is exact on {s['exact']:.3f}, "
                                          f"more than the uniform {s['uniform_exact']:.3f} + {share_margin:.3f}")
            if s["mae"] < s["uniform_mae"] - mae_margin - 1e-9:
                report["failures"].append(f"middle level ({scope}): always {guess} is off by {s['mae']:.3f} levels "
                                          f"on average, less than the uniform {s['uniform_mae']:.3f} - "
                                          f"{mae_margin:.3f}")
    for n, missing in report["levels_unused"].items():
        report["failures"].append(f"scale of {n} levels: level(s) {missing} never gold")
    return report
