"""Core-track scoring: every metric per family, per level and aggregated, with group bootstrap.

Each family gets one group-resample index matrix (seed, family name); all systems are scored on it at
once (systems are a leading array axis), per level and over all levels. Aggregates are formed per
resample, so their intervals come from the same matched resamples. How each metric is aggregated is
stated once, in :data:`CORE_METRICS`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from decisionpivot.score import metrics
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, Multiplicities, unit_weights
from decisionpivot.score.calibration import calibration_noise_floor, resampled_calibration_error
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.results import CORE, MACRO, UNIFORM_GUESS, Estimate

FAMILY_MACRO = "family-macro"
POOLED = "pooled items"
CORE_METRICS: dict[str, tuple[str, str]] = {
    "pair_accuracy": (FAMILY_MACRO, "share of contrast groups with every member correct"),
    "item_accuracy": (FAMILY_MACRO, "share of items answered correctly"),
    "pair_direction": (FAMILY_MACRO, "share of binary pairs with p+ > p- (binary families only)"),
    "coverage_at_5": (FAMILY_MACRO, "C(0.05): largest coverage with risk <= 5%, computed per family"),
    "accuracy_at_90": (POOLED, "accuracy among items with confidence >= 0.90"),
    "share_at_90": (POOLED, "share of items with confidence >= 0.90"),
    "ece": (POOLED, "calibration error, 15 equal-width bins (interval over group resamples)"),
    "ece_noise_floor": (POOLED, "expected ECE of a perfectly calibrated system with the same confidences"),
    "brier": (FAMILY_MACRO, "multi-class Brier score x100 (lower is better)"),
    "aurc": (FAMILY_MACRO, "area under the risk-coverage curve x100 (lower is better)"),
}
"""Core metric -> (aggregation over families for the ``macro`` task, meaning). Headline scores are
family-macro (mean over the families), as the paper's "macro-averaged over 13 families"; C(0.05) is
computed per family, then averaged. Accuracy and share at confidence >= 0.90 and the calibration
error are computed on the pooled items of all families, as the paper's Table D1 does."""
CHANCE_METRIC = "chance_pair_accuracy"
"""Metric of the :data:`UNIFORM_GUESS` pseudo-system: mean over groups of prod 1/|O_i|."""

_Key = tuple[str, int | None]
"""(system, level)."""


def _percent(values: np.ndarray) -> np.ndarray:
    return 100.0 * np.asarray(values, dtype=np.float64)


def _levels(layout: TaskLayout) -> list[int | None]:
    present = sorted(int(v) for v in np.unique(layout.level) if v > 0)
    return [None, *present] if present else [None]


class _FamilyScores:
    """The estimates of one family plus what the aggregates need from it."""

    def __init__(self, family: str) -> None:
        self.family = family
        self.estimates: list[Estimate] = []
        self.pooled: dict[_Key, tuple[np.ndarray, np.ndarray]] = {}
        """(system, level) -> (confidence, correct) of this family's items, for pooled metrics."""
        self.level_weights: dict[int | None, Multiplicities] = {}
        """level -> resample multiplicities of this family's items at that level (None: all levels)."""


def _score_family(
    layout: TaskLayout, answers: Sequence[TaskAnswers], resamples: int, seed: int
) -> _FamilyScores:
    family = layout.task
    out = _FamilyScores(family)
    weights = unit_weights(family, layout.group_index, resamples, seed)
    systems = [a.system for a in answers]
    correct = np.stack([a.correct for a in answers]) if answers else np.zeros((0, layout.size), bool)
    confidence = np.stack([a.confidence for a in answers]) if answers else np.zeros((0, layout.size))
    probabilities = np.stack([a.probabilities for a in answers]) if answers else None
    for level in _levels(layout):
        mask = np.ones(layout.size, bool) if level is None else layout.level == level
        w = weights if level is None else weights.restrict(mask)
        groups = layout.group_index[mask]
        n_items, n_groups = int(mask.sum()), int(np.unique(groups).size)
        chance = metrics.uniform_pair_accuracy(layout.option_count[mask], groups)
        out.estimates.append(
            Estimate(UNIFORM_GUESS, CORE, family, level, CHANCE_METRIC, float(_percent(chance)), n_groups)
        )
        if not answers:
            continue
        c, k = correct[:, mask], confidence[:, mask]
        p, gold = probabilities[:, mask], layout.gold_index[mask]
        coverage, area = metrics.selective_metrics(k, c, w)
        per_metric: dict[str, tuple[np.ndarray, np.ndarray | None, int]] = {
            "item_accuracy": (metrics.item_accuracy(c), metrics.item_accuracy(c, w), n_items),
            "pair_accuracy": (
                metrics.pair_accuracy(c, groups),
                metrics.pair_accuracy(c, groups, w),
                n_groups,
            ),
            "coverage_at_5": (metrics.selective_coverage(k, c), coverage, n_items),
            "aurc": (metrics.aurc(k, c), area, n_items),
            "brier": (metrics.brier_score(p, gold), metrics.brier_score(p, gold, w), n_items),
            "accuracy_at_90": (
                metrics.accuracy_at_confidence(k, c),
                metrics.accuracy_at_confidence(k, c, weights=w),
                n_items,
            ),
            "share_at_90": (
                metrics.share_at_confidence(k),
                metrics.share_at_confidence(k, weights=w),
                n_items,
            ),
            "ece": (metrics.expected_calibration_error(k, c), resampled_calibration_error(k, c, w), n_items),
            "ece_noise_floor": (calibration_noise_floor(k, f"{family} level {level}"), None, n_items),
        }
        in_level = mask[layout.pairs[:, 0]] if layout.pairs.size else np.zeros(0, bool)
        if in_level.any():
            plus, minus = layout.pairs[in_level, 0], layout.pairs[in_level, 1]
            column = layout.pair_positive_column[in_level]
            p_plus = probabilities[:, plus, column]
            p_minus = probabilities[:, minus, column]
            pair_w = weights.columns(plus)
            per_metric["pair_direction"] = (
                metrics.pair_direction(p_plus, p_minus),
                metrics.pair_direction(p_plus, p_minus, pair_w),
                int(in_level.sum()),
            )
        for name, (value, samples, n) in per_metric.items():
            value, samples = _percent(value), None if samples is None else _percent(samples)
            for s, system in enumerate(systems):
                out.estimates.append(
                    Estimate(
                        system,
                        CORE,
                        family,
                        level,
                        name,
                        float(value[s]),
                        n,
                        None if samples is None else samples[s],
                    )
                )
        out.level_weights[level] = w
        for s, system in enumerate(systems):
            out.pooled[(system, level)] = (k[s], c[s])
    return out


def _family_macro(parts: Sequence[Estimate], system: str, level: int | None, metric: str) -> Estimate:
    value = float(np.mean([e.value for e in parts]))
    samples = None
    if all(e.samples is not None for e in parts):
        samples = np.mean(np.stack([e.samples for e in parts]), axis=0)
    return Estimate(system, CORE, MACRO, level, metric, value, len(parts), samples)


def _pooled(
    systems: Sequence[str],
    level: int | None,
    confidence: np.ndarray,
    correct: np.ndarray,
    weights: Multiplicities,
    families: Sequence[str] = (),
) -> list[Estimate]:
    """Pooled-item metrics for systems sharing one set of families: arrays ``(S, N)``, weights ``(R, N)``."""
    scope = f"pooled {','.join(families)} level {level}"
    n = int(confidence.shape[1])
    values = {
        "accuracy_at_90": (
            metrics.accuracy_at_confidence(confidence, correct),
            metrics.accuracy_at_confidence(confidence, correct, weights=weights),
        ),
        "share_at_90": (
            metrics.share_at_confidence(confidence),
            metrics.share_at_confidence(confidence, weights=weights),
        ),
        "ece": (metrics.expected_calibration_error(confidence, correct),
                resampled_calibration_error(confidence, correct, weights)),
        "ece_noise_floor": (calibration_noise_floor(confidence, scope), None),
    }
    return [
        Estimate(
            system,
            CORE,
            MACRO,
            level,
            name,
            float(_percent(value[s])),
            n,
            None if samples is None else _percent(samples[s]),
        )
        for name, (value, samples) in values.items()
        for s, system in enumerate(systems)
    ]


def _aggregates(families: Sequence[_FamilyScores], systems: Sequence[str]) -> list[Estimate]:
    """The ``macro`` estimates: family means per resample, and pooled-item metrics."""
    by_scope: dict[tuple[str, int | None, str], list[Estimate]] = defaultdict(list)
    for f in families:
        for e in f.estimates:
            by_scope[(e.system, e.level, e.metric)].append(e)
    levels = sorted({level for (_, level, _) in by_scope}, key=lambda v: -1 if v is None else v)
    out = []
    for level in levels:
        if by_scope.get((UNIFORM_GUESS, level, CHANCE_METRIC)):
            out.append(
                _family_macro(
                    by_scope[(UNIFORM_GUESS, level, CHANCE_METRIC)], UNIFORM_GUESS, level, CHANCE_METRIC
                )
            )
        for system in systems:
            for metric, (aggregation, _) in CORE_METRICS.items():
                if aggregation == FAMILY_MACRO and by_scope.get((system, level, metric)):
                    out.append(_family_macro(by_scope[(system, level, metric)], system, level, metric))
        same_families: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for system in systems:
            present = tuple(f.family for f in families if (system, level) in f.pooled)
            if present:
                same_families[present].append(system)
        for names, group in same_families.items():
            chosen = [f for f in families if f.family in names]
            confidence = np.stack([np.concatenate([f.pooled[(s, level)][0] for f in chosen]) for s in group])
            correct = np.stack([np.concatenate([f.pooled[(s, level)][1] for f in chosen]) for s in group])
            weights = Multiplicities.concatenate([f.level_weights[level] for f in chosen])
            out.extend(_pooled(group, level, confidence, correct, weights, names))
    return out


def score_core(
    layouts: Sequence[TaskLayout],
    answers: Mapping[tuple[str, str], TaskAnswers],
    systems: Sequence[str],
    resamples: int,
    seed: int = BOOTSTRAP_SEED,
    jobs: int = 1,
) -> list[Estimate]:
    """Score the core track: per family and level, then the ``macro`` aggregates per system.

    ``answers`` maps (system, family) to the included answers (excluded tasks are simply absent); a
    system's aggregates run over the families it has. Families are scored on ``jobs`` threads (numpy
    releases the interpreter lock in the heavy loops) with single-threaded BLAS: many small matrix
    products gain nothing from BLAS threads, which spin and slow everything on a busy machine.
    """

    def one(layout: TaskLayout) -> _FamilyScores:
        included = [answers[(s, layout.task)] for s in systems if (s, layout.task) in answers]
        return _score_family(layout, included, resamples, seed)

    with threadpool_limits(limits=1, user_api="blas"):
        if jobs > 1:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                families = list(pool.map(one, layouts))
        else:
            families = [one(layout) for layout in layouts]
        return [e for f in families for e in f.estimates] + _aggregates(families, systems)
