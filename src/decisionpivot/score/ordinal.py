"""The metrics of score questions (an ordered scale, lowest level first): one small pure numpy function each.

The conventions of :mod:`decisionpivot.score.metrics` hold: one entry per item (or group) on the last axis, leading
axes (systems) broadcast; ``weights`` is None for the point estimate or resample multiplicities (``(R, n)`` or
:class:`~decisionpivot.score.bootstrap.Multiplicities`), which add a trailing axis of length R; values are fractions
or levels, the scorer multiplies fractions by 100.

What a score item gives them: ``probabilities`` ``(..., n, K)`` over the item's levels in **level order** (column i
is level i, lowest first; zeros beyond an item's ``levels``), the ``gold`` level ``(n,)`` and the number of
``levels`` ``(n,)`` of each item's scale (3 to 7 in the suite; scales of different sizes mix within a family).
A **failed** item (an error record, unusable probabilities, no record) is scored as the core scores it: wrong, and
the uniform distribution wherever a distribution is read (:mod:`decisionpivot.score.answers`). Where a predicted
level is read, a failed item's is the level **farthest from gold** (:func:`predicted_levels`): as wrong as a
prediction can be, never within one of gold.

* exact accuracy, within-one accuracy, mean absolute error in levels - of the predicted level (the argmax, ties to
  the lower level);
* expected-level error and bias - of the expected level ``E[level] = sum_i i p_i``, absolute and signed;
* quadratic-weighted kappa - agreement of predicted and gold levels beyond chance, per scale size;
* ranked probability score - the ordinal Brier score of the whole distribution;
* score confidence - the confidence System One and transformers' decision pipeline return for a score answer;
* ordinal pair direction - whether the expected level moves across a contrast group's boundary as the gold does
  (pair accuracy is :func:`decisionpivot.score.metrics.pair_accuracy` of exact correctness).
"""

from __future__ import annotations

import numpy as np

from decisionpivot.score.metrics import ArrayLike, Weights, item_columns, weighted_mean, weighted_sum


def level_values(width: int) -> np.ndarray:
    """``(K,)`` the level index of each column: 0, 1, ..., K-1."""
    return np.arange(width, dtype=np.float64)


def expected_levels(probabilities: ArrayLike) -> np.ndarray:
    """``E[level] = sum_i i p_i`` of each item: ``(..., n)``."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    return probabilities @ level_values(probabilities.shape[-1])


def farthest_levels(gold: ArrayLike, levels: ArrayLike) -> np.ndarray:
    """The level farthest from gold on each item's scale: the top level when gold is in the lower half (the middle of
    an odd scale included), else level 0."""
    gold, levels = np.asarray(gold), np.asarray(levels)
    return np.where(2 * gold <= levels - 1, levels - 1, 0)


def predicted_levels(probabilities: ArrayLike, gold: ArrayLike, levels: ArrayLike, failed: ArrayLike) -> np.ndarray:
    """The predicted level of each item: the most probable level (ties to the lower), or for a failed item the level
    farthest from gold (:func:`farthest_levels`)."""
    argmax = np.argmax(np.asarray(probabilities), axis=-1)
    return np.where(np.asarray(failed, dtype=bool), farthest_levels(gold, levels), argmax)


def exact_accuracy(predicted: ArrayLike, gold: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Exact accuracy: the share of items whose predicted level is the gold level, ``mean 1[yhat_i = y_i]``."""
    return weighted_mean(np.asarray(predicted) == np.asarray(gold), weights)


def within_one_accuracy(predicted: ArrayLike, gold: ArrayLike, failed: ArrayLike,
                        weights: Weights = None) -> np.ndarray:
    """Within-one accuracy: the share of items whose predicted level is at most one level from gold,
    ``mean 1[|yhat_i - y_i| <= 1]``; a failed item never counts (on a three-level scale every level is within one of
    the middle)."""
    near = np.abs(np.asarray(predicted) - np.asarray(gold)) <= 1
    return weighted_mean(near & ~np.asarray(failed, dtype=bool), weights)


def mean_absolute_error(predicted: ArrayLike, gold: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Mean absolute error in levels: ``mean |yhat_i - y_i|`` (lower is better; 0 when every level is right)."""
    return weighted_mean(np.abs(np.asarray(predicted) - np.asarray(gold)), weights)


def expected_level_error(expected: ArrayLike, gold: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Error of the expected level: ``mean |E_i - y_i|`` with ``E_i = sum_l l p_i(l)``, in levels (lower is better).
    It reads the whole distribution: 0.6 on the gold level and 0.4 one above is 0.4 off, however the argmax falls."""
    return weighted_mean(np.abs(np.asarray(expected, dtype=np.float64) - np.asarray(gold)), weights)


def expected_level_bias(expected: ArrayLike, gold: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Bias of the expected level: ``mean (E_i - y_i)``, in levels; positive when the system rates too high, negative
    when too low, near 0 when its errors go both ways (on gold spread evenly over the levels, always answering the
    middle and reversing the scale are both near 0)."""
    return weighted_mean(np.asarray(expected, dtype=np.float64) - np.asarray(gold), weights)


def quadratic_weighted_kappa(predicted: ArrayLike, gold: ArrayLike, levels: ArrayLike,
                             weights: Weights = None) -> np.ndarray:
    """Quadratic-weighted kappa (Cohen 1968), pooled over scale sizes:
    ``kappa = 1 - sum_N sum_ij w^N_ij O^N_ij / sum_N sum_ij w^N_ij E^N_ij``.

    For the items on scales of N levels, ``O^N_ij`` counts those of gold level i predicted as j, ``E^N_ij = r_i c_j /
    t_N`` is what independent guessing with the same marginals would count (``r`` gold totals, ``c`` predicted
    totals, ``t_N`` items) and ``w^N_ij = (i - j)^2 / (N - 1)^2``. With one scale size this is the usual quadratic
    kappa (scikit-learn's ``cohen_kappa_score(weights="quadratic")``). 1: perfect agreement; 0: no better than chance
    (a constant answer); below 0: systematically opposed (a reversed scale). NaN when chance disagreement is 0.
    """
    predicted, gold, levels = np.asarray(predicted), np.asarray(gold), np.asarray(levels)
    observed = expected = 0.0
    for size in np.unique(levels).tolist():
        on_scale = levels == size
        total = weighted_sum(np.broadcast_to(on_scale, predicted.shape), weights)
        rows = [weighted_sum(np.broadcast_to(on_scale & (gold == i), predicted.shape), weights) for i in range(size)]
        columns = [weighted_sum(on_scale & (predicted == j), weights) for j in range(size)]
        for i in range(size):
            for j in range(size):
                if i == j:
                    continue
                w = (i - j) ** 2 / (size - 1) ** 2
                observed = observed + w * weighted_sum(on_scale & (gold == i) & (predicted == j), weights)
                with np.errstate(invalid="ignore", divide="ignore"):
                    expected = expected + w * np.where(total > 0, rows[i] * columns[j] / np.where(total > 0, total, 1),
                                                       0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - np.asarray(observed, dtype=np.float64) / expected


def ranked_probability_score(probabilities: ArrayLike, gold: ArrayLike, levels: ArrayLike,
                             weights: Weights = None) -> np.ndarray:
    """Ranked probability score (Epstein 1969), the ordinal Brier score: per item
    ``RPS_i = (1 / (N - 1)) sum_{k=0}^{N-2} (P_i(level <= k) - 1[y_i <= k])^2``, averaged over items (lower is
    better; 0 for all mass on gold, 1 for all mass on the level farthest across the scale). Mass one level off costs
    less than mass three levels off, which the multi-class Brier score cannot tell apart: ordinal calibration."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    gold, levels = np.asarray(gold), np.asarray(levels)
    width = probabilities.shape[-1]
    cumulative = np.cumsum(probabilities, axis=-1)
    steps = np.arange(width)
    observed = (gold[:, None] <= steps).astype(np.float64)
    counted = steps < (levels[:, None] - 1)
    per_item = np.where(counted, (cumulative - observed) ** 2, 0.0).sum(axis=-1) / (levels - 1)
    return weighted_mean(per_item, weights)


def uniform_distance(levels: ArrayLike) -> np.ndarray:
    """``E_unif |i - (N - 1)/2|``: the mean distance of the levels from the middle of a scale of N levels."""
    levels = np.asarray(levels, dtype=np.float64)
    # sum_{i<N} |i - (N-1)/2| = floor(N^2 / 4) / 2 ... written as the sum itself for clarity
    return np.array([np.abs(np.arange(n) - (n - 1) / 2).mean() for n in levels.astype(np.int64).tolist()])


def score_confidences(probabilities: ArrayLike, levels: ArrayLike) -> np.ndarray:
    """The confidence of a score answer as System One and transformers' decision pipeline compute it
    (DECISION-APIS.md section 6): ``c_i = max(0, 1 - E_p |l - a_i| / E_unif |l - (N - 1)/2|)``, ``a_i`` the most
    probable level (ties to the lower). 1 when all mass is on one level; 0 for the uniform distribution and anything
    as spread. Per item, ``(..., n)``."""
    probabilities = np.asarray(probabilities, dtype=np.float64)
    argmax = np.argmax(probabilities, axis=-1)
    distance = np.abs(level_values(probabilities.shape[-1]) - argmax[..., None])
    spread = (probabilities * distance).sum(axis=-1)
    return np.maximum(0.0, 1.0 - spread / uniform_distance(levels))


def score_confidence(probabilities: ArrayLike, levels: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Mean score confidence (:func:`score_confidences`) over the items: how sure the interface's own figure says the
    system is. Read beside exact accuracy, a confidence far above it is overconfidence."""
    return weighted_mean(score_confidences(probabilities, levels), weights)


def _cross_boundary_pairs(gold: np.ndarray, group_index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of members of one group whose gold differs, as (lower-gold member, higher-gold member, group), in
    group order."""
    lower, higher, groups = [], [], []
    members: dict[int, list[int]] = {}
    for position, group in enumerate(group_index.tolist()):
        members.setdefault(group, []).append(position)
    for group in sorted(members):
        positions = members[group]
        for a in positions:
            for b in positions:
                if gold[a] < gold[b]:
                    lower.append(a)
                    higher.append(b)
                    groups.append(group)
    return np.array(lower, dtype=np.int64), np.array(higher, dtype=np.int64), np.array(groups, dtype=np.int64)


def ordinal_pair_direction(expected: ArrayLike, gold: ArrayLike, group_index: ArrayLike,
                           weights: Weights = None) -> np.ndarray:
    """Ordinal pair direction: the share of contrast groups in which the expected level moves the way the gold moves
    across the group's boundary - for every two members with gold ``y_a < y_b``, ``E_a < E_b``.

    Groups whose members share one gold level are left out. Ties are not a direction (a system that answers the same
    whatever the decisive fact says moves nothing), so both always answering the middle and reversing the scale
    score 0, and a system one level off in the same direction everywhere keeps every direction. Weights are per item
    and equal within a group (a group's weight is read from the member with the lower gold of its first pair).
    """
    expected = np.asarray(expected, dtype=np.float64)
    lower, higher, groups = _cross_boundary_pairs(np.asarray(gold), np.asarray(group_index))
    if lower.size == 0:
        return np.full(expected.shape[:-1] if weights is None else (*expected.shape[:-1], _resamples(weights)), np.nan)
    moves = expected[..., lower] < expected[..., higher]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    every_pair = np.minimum.reduceat(moves, starts, axis=-1)
    group_weights = None if weights is None else item_columns(weights, lower[starts])
    return weighted_mean(every_pair, group_weights)


def _resamples(weights: Weights) -> int:
    return int(weights.resamples if hasattr(weights, "resamples") else np.asarray(weights).shape[0])
