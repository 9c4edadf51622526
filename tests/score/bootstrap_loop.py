"""The obvious bootstrap: for every resample, build the resampled items and score them from scratch.

Kept only as the reference the vectorised scorer is tested against (and timed against in
``benchmarks/score_speed.py``). It reuses the same index matrices and the point-estimate path of the
metric functions, so agreement shows that scoring with resample multiplicities equals scoring the
materialised resample.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from decisionpivot.score import metrics
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.bootstrap import resample_indices
from decisionpivot.score.layout import TaskLayout

CORE_LOOP_METRICS = (
    "item_accuracy",
    "pair_accuracy",
    "coverage_at_5",
    "aurc",
    "brier",
    "accuracy_at_90",
    "share_at_90",
    "ece",
)
Samples = dict[tuple[str, str, int | None, str], list[float]]
"""(system, task or "macro", level, metric) -> one value per resample (0-1 scale)."""


def _family_resample(
    members: list[np.ndarray], pair_of_group: dict[int, int], drawn: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items of the drawn groups (with repeats), a fresh group label per draw, and the drawn pairs."""
    items = np.concatenate([members[g] for g in drawn])
    labels = np.concatenate([np.full(members[g].size, j) for j, g in enumerate(drawn)])
    pairs = np.array([pair_of_group[g] for g in drawn if g in pair_of_group], dtype=np.int64)
    return items, labels, pairs


def loop_core_samples(
    layouts: Sequence[TaskLayout],
    answers: Mapping[tuple[str, str], TaskAnswers],
    systems: Sequence[str],
    resamples: int,
    seed: int,
) -> Samples:
    """Every core metric per family, level and aggregate, resample by resample."""
    out: Samples = defaultdict(list)
    indices = {
        layout.task: resample_indices(layout.task, layout.groups, resamples, seed) for layout in layouts
    }
    members = {
        layout.task: [np.flatnonzero(layout.group_index == g) for g in range(layout.groups)]
        for layout in layouts
    }
    pair_of_group = {
        layout.task: {int(layout.group_index[plus]): row for row, plus in enumerate(layout.pairs[:, 0])}
        for layout in layouts
    }
    for r in range(resamples):
        pooled: dict[tuple[str, int | None], list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
        per_family: dict[tuple[str, int | None, str], list[float]] = defaultdict(list)
        for layout in layouts:
            drawn = indices[layout.task][r]
            items, labels, pairs = _family_resample(members[layout.task], pair_of_group[layout.task], drawn)
            for level in [None, *sorted({int(v) for v in layout.level if v > 0})]:
                keep = np.ones(items.size, bool) if level is None else layout.level[items] == level
                chosen, groups = items[keep], labels[keep]
                level_pairs = pairs if level is None else pairs[layout.level[layout.pairs[pairs, 0]] == level]
                has_pairs = bool(layout.pairs.size) and (
                    level is None or bool((layout.level[layout.pairs[:, 0]] == level).any())
                )
                for system in systems:
                    a = answers.get((system, layout.task))
                    if a is None:
                        continue
                    correct, confidence = a.correct[chosen], a.confidence[chosen]
                    if chosen.size == 0:  # no group of this level drawn: every metric is undefined
                        names = [*CORE_LOOP_METRICS, *(["pair_direction"] if has_pairs else [])]
                        values = dict.fromkeys(names, float("nan"))
                    else:
                        values = {
                            "item_accuracy": metrics.item_accuracy(correct),
                            "pair_accuracy": metrics.pair_accuracy(correct, groups),
                            "coverage_at_5": metrics.selective_coverage(confidence, correct),
                            "aurc": metrics.aurc(confidence, correct),
                            "brier": metrics.brier_score(a.probabilities[chosen], layout.gold_index[chosen]),
                            "accuracy_at_90": metrics.accuracy_at_confidence(confidence, correct),
                            "share_at_90": metrics.share_at_confidence(confidence),
                            "ece": metrics.expected_calibration_error(confidence, correct),
                        }
                    if has_pairs and chosen.size:
                        column = layout.pair_positive_column[level_pairs]
                        p_plus = a.probabilities[layout.pairs[level_pairs, 0], column]
                        p_minus = a.probabilities[layout.pairs[level_pairs, 1], column]
                        values["pair_direction"] = (
                            metrics.pair_direction(p_plus, p_minus) if level_pairs.size else float("nan")
                        )
                    for metric, value in values.items():
                        out[(system, layout.task, level, metric)].append(float(value))
                        if metric not in ("accuracy_at_90", "share_at_90", "ece"):
                            per_family[(system, level, metric)].append(float(value))
                    pooled[(system, level)].append((confidence, correct))
        for (system, level, metric), values in per_family.items():
            out[(system, "macro", level, metric)].append(float(np.mean(values)))
        for (system, level), parts in pooled.items():
            confidence = np.concatenate([p[0] for p in parts])
            correct = np.concatenate([p[1] for p in parts])
            empty = confidence.size == 0
            out[(system, "macro", level, "accuracy_at_90")].append(
                float("nan") if empty else float(metrics.accuracy_at_confidence(confidence, correct))
            )
            out[(system, "macro", level, "share_at_90")].append(
                float("nan") if empty else float(metrics.share_at_confidence(confidence))
            )
            out[(system, "macro", level, "ece")].append(
                float("nan") if empty else float(metrics.expected_calibration_error(confidence, correct))
            )
    return out
