"""Every metric of the paper as a small pure numpy function, with its definition in the docstring.

Conventions shared by all functions here:

* Arrays hold one entry per unit (item, group, pair or query) on the **last axis**; leading axes
  (typically one row per system) broadcast, so one call scores many systems.
* ``weights`` is ``None`` for the point estimate, or an ``(R, n)`` integer array of **resample
  multiplicities**: row ``r`` says how many times each unit was drawn in bootstrap resample ``r``.
  The metric is then evaluated on each resampled multiset without building it, and the result gains
  a trailing axis of length ``R``. Weights of all ones give the point estimate; this equivalence is
  what the loop-versus-vectorised bootstrap test checks. The scorer passes the same information as
  :class:`~decisionpivot.score.bootstrap.Multiplicities` (stored per group, summed per group first).
* Values are fractions in [0, 1] (risk, coverage, ECE, AURC included); reports multiply by 100.
* A ratio whose denominator is zero (no item above the confidence threshold, an empty class) is NaN.

Confidences are compared exactly. The answer-file reader rounds confidences to 12 decimals, so that
float noise from normalisation neither splits a tie nor moves an item across 0.90 or a bin edge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from decisionpivot.score.bootstrap import Multiplicities, exact_product

if TYPE_CHECKING:
    from decisionpivot.items import Item

ArrayLike = np.ndarray
Weights = np.ndarray | Multiplicities | None
"""Resample multiplicities: None (point estimate), an ``(R, n)`` array, or :class:`Multiplicities`."""
CONFIDENCE_THRESHOLD = 0.90
"""The paper's high-confidence cut: accuracy and share of items with confidence >= 0.90."""
RISK_TARGET = 0.05
"""The paper's automation error target: C(0.05)."""
CALIBRATION_BINS = 15
"""Equal-width confidence bins of the calibration error."""
NDCG_DEPTH = 10
"""Ranking depth of nDCG@10 for reranking tasks."""


# --------------------------------------------------------------------------- shared arithmetic


def item_columns(weights: Weights, items: np.ndarray) -> np.ndarray:
    """``(R, k)`` multiplicities of the given item positions."""
    if isinstance(weights, Multiplicities):
        return weights.columns(items)
    return np.asarray(weights)[:, items]


def _totals(weights: Weights) -> np.ndarray:
    if isinstance(weights, Multiplicities):
        return weights.totals().astype(np.float64)
    return np.asarray(weights).sum(axis=1, dtype=np.float64)


def weighted_sum(values: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Sum over the last axis; with resample multiplicities, one sum per resample (trailing axis)."""
    if weights is None:
        return np.asarray(values, dtype=np.float64).sum(axis=-1)
    if isinstance(weights, Multiplicities):
        return weights.sum_over_items(values).astype(np.float64)
    w = np.asarray(weights)
    if np.issubdtype(w.dtype, np.floating) and not np.array_equal(w, np.round(w)):
        return np.asarray(values, dtype=np.float64) @ w.T.astype(np.float64)  # fractional weights
    values = np.asarray(values)
    if not (values.dtype == bool or np.issubdtype(values.dtype, np.integer)):
        values = values.astype(np.float64)
    return exact_product(values, w.T).astype(np.float64)


def weighted_mean(values: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Mean over the last axis; with resample multiplicities, one mean per resample (trailing axis)."""
    if weights is None:
        return np.asarray(values, dtype=np.float64).mean(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return weighted_sum(values, weights) / _totals(weights)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(numerator, dtype=np.float64) / denominator


def _group_order(group_index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Item order sorted by group (stable), the start of each group in it, and each group's first item."""
    group_index = np.asarray(group_index)
    order = np.argsort(group_index, kind="stable")
    sorted_groups = group_index[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    return order, starts, order[starts]


# --------------------------------------------------------------------------- group-level correctness


def item_accuracy(correct: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Item accuracy: the share of items whose predicted option is the gold option.

    A failed or missing prediction is incorrect and stays in the denominator (the paper: "Failed or
    missing predictions count as incorrect rather than being excluded from the accuracy denominator").
    """
    return weighted_mean(correct, weights)


def pair_accuracy(correct: ArrayLike, group_index: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Pair (group) accuracy: the share of contrast groups whose every member is answered correctly.

    ``|G_f|^-1 sum_g prod_{i in g} 1[yhat_i = y_i]``, groups of any size: a yes/yes answer to a
    yes/no pair is 50% item accuracy and 0 pair accuracy. ``group_index`` numbers the groups of the
    items. Resample weights are per item and must be equal within a group (groups are resampled whole);
    a group's weight is read from its first member.
    """
    correct = np.asarray(correct, dtype=bool)
    order, starts, first = _group_order(np.asarray(group_index))
    every_member_correct = np.minimum.reduceat(correct[..., order], starts, axis=-1)
    group_weights = None if weights is None else item_columns(weights, first)
    return weighted_mean(every_member_correct, group_weights)


def uniform_pair_accuracy(
    option_count: ArrayLike, group_index: ArrayLike, weights: Weights = None
) -> np.ndarray:
    """Chance pair accuracy: mean over groups of ``prod_{i in g} 1/|O_i|``.

    The pair accuracy of independent uniform guessing, which depends on group size and option count
    (a yes/no pair: 1/4; three 3-option members: 1/27). Weights as in :func:`pair_accuracy`.
    """
    inverse = 1.0 / np.asarray(option_count, dtype=np.float64)
    order, starts, first = _group_order(np.asarray(group_index))
    per_group = np.multiply.reduceat(inverse[order], starts)
    group_weights = None if weights is None else item_columns(weights, first)
    return weighted_mean(per_group, group_weights)


def chance_pair_accuracy(items: Iterable[Item]) -> float:
    """:func:`uniform_pair_accuracy` of an items list; an item without a group is its own group."""
    group_numbers: dict[str, int] = defaultdict(lambda: len(group_numbers))
    counts, groups = [], []
    for item in items:
        groups.append(group_numbers[item.group if item.group is not None else item.id])
        counts.append(len(item.options))
    if not counts:
        return 0.0
    return float(uniform_pair_accuracy(np.array(counts), np.array(groups)))


def pair_direction(p_plus: ArrayLike, p_minus: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Pair direction: the share of binary pairs with ``p+ > p-``.

    ``p+ = p(yes | s+)`` on the member whose gold answer is yes, ``p- = p(yes | s-)`` on the member
    whose gold answer is no. Ties are not a correct direction. 0.86 / 0.84 is a correct direction
    although both members are predicted yes; failed members count as uniform (0.5). Weights are per pair.
    """
    return weighted_mean(np.asarray(p_plus) > np.asarray(p_minus), weights)


# --------------------------------------------------------------------------- confidence-based evaluation


def _risk_fraction(risk: float) -> tuple[int, int]:
    """``risk`` as an exact fraction num/den, so ``E/N <= risk`` is tested as ``den*E <= num*N``."""
    fraction = Fraction(risk).limit_denominator(1_000_000)
    return fraction.numerator, fraction.denominator


def _tie_boundaries(sorted_confidence: np.ndarray) -> np.ndarray:
    """True at the last position of each run of equal confidences (the eligible prefix ends)."""
    boundary = np.ones(sorted_confidence.shape, dtype=bool)
    boundary[..., :-1] = sorted_confidence[..., :-1] != sorted_confidence[..., 1:]
    return boundary


@dataclass(frozen=True)
class _SortedItems:
    """Systems' items in decreasing confidence, read row by row by the selective scans."""

    by_item: np.ndarray
    """``(n, R)`` multiplicity of each item, integers as small as the counts allow (int16 for the core)."""
    order: np.ndarray
    """``(n, S)``: row k holds each system's k-th most confident item."""
    step: np.ndarray
    """``(n, S, 1)``: excess per unit of multiplicity of that item: ``den - num`` if wrong, else ``-num``."""
    boundary: np.ndarray
    """``(n, S)``: True where a run of equal confidences ends (a prefix may end there)."""
    total: np.ndarray
    """``(R,)`` summed multiplicity of all items."""
    fraction: tuple[int, int]
    """The risk target as (num, den)."""

    def row(self, k: int) -> np.ndarray:
        """``(S, R)`` multiplicities of each system's k-th most confident item."""
        return self.by_item[self.order[k]]


def _sorted_items(confidence: np.ndarray, correct: np.ndarray, weights: Weights, risk: float) -> _SortedItems:
    num, den = _risk_fraction(risk)
    total = _totals(weights)
    bound = (num + den) * int(total.max(initial=0)) + 1
    dtype = np.int16 if bound < np.iinfo(np.int16).max else np.int32 if bound < 2**31 - 1 else np.int64
    if isinstance(weights, Multiplicities):
        by_item = weights.item_rows(dtype)
    else:
        by_item = np.ascontiguousarray(np.asarray(weights).T, dtype=dtype)
    order = np.argsort(-confidence, axis=-1, kind="stable")  # (S, n)
    boundary = _tie_boundaries(np.take_along_axis(confidence, order, axis=-1))
    wrong = np.take_along_axis(~correct, order, axis=-1)
    step = np.where(wrong, den - num, -num).astype(dtype).T[:, :, None]
    return _SortedItems(by_item, np.ascontiguousarray(order.T), step, boundary.T, total, (num, den))


def _scan_streaming(items: _SortedItems) -> tuple[np.ndarray, np.ndarray]:
    """C and AURC in one pass over the items, one row (all systems x resamples) at a time.

    Keeps N (covered multiplicity), the excess ``den*errors - num*N`` (<= 0 exactly when risk <=
    num/den), the largest N with excess <= 0 at a tie boundary, and the running ``sum x_b * risk_b``
    over runs of equal confidence (a run's multiplicity is pending until its end).
    """
    num, den = items.fraction
    ties = not items.boundary.all()
    ends = items.boundary[:, :, None]
    shape = (items.order.shape[1], items.by_item.shape[1])
    dtype = items.by_item.dtype
    covered, excess, best, pending, increment, divisor = (np.zeros(shape, dtype) for _ in range(6))
    eligible = np.empty(shape, bool)
    ratio = np.empty(shape, np.float32)
    area = np.zeros(shape, np.float32)
    for k in range(items.order.shape[0]):
        row = items.row(k)
        np.add(covered, row, out=covered)
        np.multiply(row, items.step[k], out=increment)
        np.add(excess, increment, out=excess)
        np.less_equal(excess, 0, out=eligible)
        if ties:
            np.logical_and(eligible, ends[k], out=eligible)
        np.copyto(best, covered, where=eligible)  # N only grows: the last eligible prefix is largest
        np.maximum(covered, 1, out=divisor)  # a prefix of multiplicity 0 has excess 0: 0/1
        np.divide(excess, divisor, out=ratio, dtype=np.float32)  # den * risk_k - num
        if ties:
            np.add(pending, row, out=pending)
            np.multiply(ratio, pending, out=ratio)
            np.add(area, ratio, out=area, where=ends[k])
            np.copyto(pending, 0, where=ends[k])
        else:
            np.multiply(ratio, row, out=ratio)
            np.add(area, ratio, out=area)
    with np.errstate(invalid="ignore", divide="ignore"):
        return best / items.total, (area / items.total + num) / den


def _scan_runs(items: _SortedItems) -> tuple[np.ndarray, np.ndarray]:
    """C and AURC for systems whose confidences repeat a lot: the same pass, but N and the excess
    are only stored at the ends of each system's runs of equal confidence (few rows), and the
    metrics are read from those afterwards."""
    num, den = items.fraction
    systems, resamples = items.order.shape[1], items.by_item.shape[1]
    runs = items.boundary.sum(axis=0)
    first = np.r_[0, np.cumsum(runs)[:-1]]  # each system's first row in the stored arrays
    slot = first + np.cumsum(items.boundary, axis=0) - 1  # (n, S): stored row of the run ending at k
    dtype = items.by_item.dtype
    stored_covered = np.empty((int(runs.sum()), resamples), dtype)
    stored_excess = np.empty_like(stored_covered)
    covered, excess, increment = (np.zeros((systems, resamples), dtype) for _ in range(3))
    endings = [np.flatnonzero(ends) for ends in items.boundary]
    for k, ending in enumerate(endings):
        row = items.row(k)
        np.add(covered, row, out=covered)
        np.multiply(row, items.step[k], out=increment)
        np.add(excess, increment, out=excess)
        if ending.size:
            stored_covered[slot[k, ending]] = covered[ending]
            stored_excess[slot[k, ending]] = excess[ending]
    best = np.empty((systems, resamples))
    area = np.empty((systems, resamples))
    nothing = np.zeros((1, resamples), dtype)
    for s, (start, count) in enumerate(zip(first, runs, strict=True)):
        run_covered = stored_covered[start : start + count]  # this system's runs, in order
        run_excess = stored_excess[start : start + count]
        best[s] = np.where(run_excess <= 0, run_covered, 0).max(axis=0)  # N only grows: the last eligible
        per_run = np.diff(run_covered, axis=0, prepend=nothing)  # x_b
        ratio = np.divide(run_excess, np.maximum(run_covered, 1), dtype=np.float32)  # den * risk_b - num
        area[s] = np.multiply(per_run, ratio, dtype=np.float32).sum(axis=0, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return best / items.total, (area / items.total + num) / den


def selective_metrics(
    confidence: ArrayLike, correct: ArrayLike, weights: Weights, risk: float = RISK_TARGET
) -> tuple[np.ndarray, np.ndarray]:
    """C(risk) and AURC for every resample, ``(..., R)`` each (the bootstrap path of
    :func:`selective_coverage` and :func:`aurc`, sharing one scan).

    Systems with many repeated confidences (rounded probabilities) and the others are scanned
    separately, as a different scan is fastest for each.
    """
    first = np.asarray(confidence, dtype=np.float64)
    lead, n = first.shape[:-1], first.shape[-1]
    conf2 = first.reshape(-1, n)
    corr2 = np.asarray(correct, dtype=bool).reshape(-1, n)
    resamples = weights.resamples if isinstance(weights, Multiplicities) else np.asarray(weights).shape[0]
    coverage = np.empty((conf2.shape[0], resamples))
    area = np.empty((conf2.shape[0], resamples))
    runs = np.count_nonzero(np.diff(np.sort(conf2, axis=1), axis=1), axis=1) + 1
    few_runs = 2 * runs <= n
    for chosen, scan in (
        (np.flatnonzero(~few_runs), _scan_streaming),
        (np.flatnonzero(few_runs), _scan_runs),
    ):
        if chosen.size:
            coverage[chosen], area[chosen] = scan(_sorted_items(conf2[chosen], corr2[chosen], weights, risk))
    shape = (*lead, resamples)
    return coverage.reshape(shape), area.reshape(shape)


def _prefix_counts(confidence: ArrayLike, correct: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unweighted prefixes (point estimate): N_k, errors_k and tie boundaries, shape (..., n)."""
    confidence = np.asarray(confidence, dtype=np.float64)
    order = np.argsort(-confidence, axis=-1, kind="stable")
    sorted_confidence = np.take_along_axis(confidence, order, axis=-1)
    wrong = ~np.take_along_axis(np.asarray(correct, dtype=bool), order, axis=-1)
    covered = np.broadcast_to(np.arange(1, confidence.shape[-1] + 1), confidence.shape)
    return covered, np.cumsum(wrong, axis=-1), _tie_boundaries(sorted_confidence)


def selective_coverage(
    confidence: ArrayLike, correct: ArrayLike, risk: float = RISK_TARGET, weights: Weights = None
) -> np.ndarray:
    """C(risk): the largest coverage whose empirical risk is at most ``risk`` (the paper's C(0.05)).

    Order the n items by decreasing confidence ``c_i = max_o p(o)``. A prefix of length k has coverage
    ``k/n`` and risk ``(errors among the k)/k``. Eligible prefixes end at confidence-tie boundaries,
    so equal-confidence items enter together; the empty prefix (coverage 0) is always eligible.
    ``risk <= target`` is tested exactly (an error share of exactly 5% qualifies). Computed per family;
    the core headline averages it over families.
    """
    if weights is not None:
        return selective_metrics(confidence, correct, weights, risk)[0]
    num, den = _risk_fraction(risk)
    covered, errors, boundary = _prefix_counts(confidence, correct)
    eligible = boundary & (den * errors <= num * covered)
    return np.where(eligible, covered, 0).max(axis=-1) / covered.shape[-1]


def aurc(confidence: ArrayLike, correct: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Area under the risk-coverage curve (lower is better).

    With items ordered by decreasing confidence and prefixes ending at tie boundaries, AURC is
    ``sum over tie runs b of (coverage added by b) * risk(prefix ending at b)``; without ties this is
    the usual mean over k = 1..n of the risk of the first k items. Computed per family.
    """
    if weights is not None:
        return selective_metrics(confidence, correct, weights)[1]
    covered, errors, boundary = _prefix_counts(confidence, correct)
    risk = errors / covered
    n = covered.shape[-1]
    positions = np.where(boundary, np.arange(n), n)
    block_end = np.flip(np.minimum.accumulate(np.flip(positions, -1), axis=-1), -1)
    return np.take_along_axis(risk, block_end, axis=-1).mean(axis=-1)


def risk_coverage_curve(confidence: ArrayLike, correct: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Coverage and risk of every eligible prefix (tie boundaries), for one system: for plots."""
    covered, errors, boundary = _prefix_counts(confidence, correct)
    return covered[boundary] / covered.shape[-1], errors[boundary] / covered[boundary]


def share_at_confidence(
    confidence: ArrayLike, threshold: float = CONFIDENCE_THRESHOLD, weights: Weights = None
) -> np.ndarray:
    """Share of items whose confidence ``c_i = max_o p(o)`` is at least ``threshold`` (0.90).

    Worked example: 5 of 10 items at 0.90 -> share 0.50. Pooled over items in the core headline.
    """
    return weighted_mean(np.asarray(confidence) >= threshold, weights)


def accuracy_at_confidence(
    confidence: ArrayLike,
    correct: ArrayLike,
    threshold: float = CONFIDENCE_THRESHOLD,
    weights: Weights = None,
) -> np.ndarray:
    """Accuracy among items whose confidence is at least ``threshold`` (0.90); NaN if there are none.

    Worked example: 5 of 10 items at 0.90 with 4 of them correct -> 0.80. Pooled over items.
    """
    confident = np.asarray(confidence) >= threshold
    hits = confident & np.asarray(correct, dtype=bool)
    return _ratio(weighted_sum(hits, weights), weighted_sum(confident, weights))


def calibration_bin(confidence: ArrayLike, bins: int = CALIBRATION_BINS) -> np.ndarray:
    """Index of the equal-width bin ``((b)/bins, (b+1)/bins]`` holding each confidence (0 -> bin 0)."""
    scaled = np.round(np.asarray(confidence, dtype=np.float64) * bins, 9)
    return np.clip(np.ceil(scaled).astype(np.int64) - 1, 0, bins - 1)


def expected_calibration_error(
    confidence: ArrayLike, correct: ArrayLike, bins: int = CALIBRATION_BINS
) -> np.ndarray:
    """ECE over ``bins`` (15) equal-width confidence bins: ``sum_b (n_b/n) |acc_b - conf_b|``.

    ``acc_b`` is the accuracy and ``conf_b`` the mean confidence of the items in bin b. Worked example:
    every item at 0.90 with 70% correct -> 0.20 (20.0 in the tables). Pooled over items; reported as a
    point estimate, as in the paper (its sampling uncertainty is not quantified).
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    gap = np.asarray(correct, dtype=np.float64) - confidence
    which = calibration_bin(confidence, bins)
    total = np.zeros(confidence.shape[:-1])
    for b in range(bins):
        total = total + np.abs(np.where(which == b, gap, 0.0).sum(axis=-1))
    return total / confidence.shape[-1]


def reliability_bins(
    confidence: ArrayLike, correct: ArrayLike, bins: int = CALIBRATION_BINS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bin: item count, mean confidence and accuracy (NaN for empty bins), for reliability diagrams."""
    confidence = np.asarray(confidence, dtype=np.float64).ravel()
    correct = np.asarray(correct, dtype=np.float64).ravel()
    which = calibration_bin(confidence, bins)
    count = np.bincount(which, minlength=bins)
    mean_confidence = _ratio(np.bincount(which, confidence, minlength=bins), count)
    accuracy = _ratio(np.bincount(which, correct, minlength=bins), count)
    return count, mean_confidence, accuracy


def brier_score(probabilities: ArrayLike, gold_index: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Multi-class Brier score (Brier 1950): mean over items of ``sum_o (p(o) - 1[o = y])^2``.

    ``probabilities`` is ``(..., n, K)`` with zeros in the columns beyond an item's options; range
    [0, 2], lower is better. Failed predictions enter as uniform distributions.
    """
    probabilities = np.asarray(probabilities, dtype=np.float64)
    gold = np.asarray(gold_index)
    onehot = np.arange(probabilities.shape[-1]) == gold[..., None]
    return weighted_mean(((probabilities - onehot) ** 2).sum(axis=-1), weights)


# --------------------------------------------------------------------------- reference-track metrics


def accuracy(gold: ArrayLike, predicted: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Accuracy: share of items with predicted label = gold label (failed predictions are label -1)."""
    return weighted_mean(np.asarray(gold) == np.asarray(predicted), weights)


def balanced_accuracy(gold: ArrayLike, predicted: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Balanced accuracy: mean over the gold classes present of each class's recall."""
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    recalls, present = [], []
    for label in np.unique(gold):
        members = gold == label
        size = weighted_sum(members, weights)
        recalls.append(_ratio(weighted_sum(members & (predicted == label), weights), size))
        present.append(size > 0)
    recall = np.where(np.array(present), np.array(recalls), 0.0)
    return recall.sum(axis=0) / np.array(present).sum(axis=0)


def _class_counts(
    gold: np.ndarray, predicted: np.ndarray, label: int, weights: Weights
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    is_gold, is_predicted = gold == label, predicted == label
    return (
        weighted_sum(is_gold & is_predicted, weights),
        weighted_sum(~is_gold & is_predicted, weights),
        weighted_sum(is_gold & ~is_predicted, weights),
    )


def _f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    denominator = 2 * tp + fp + fn
    return np.where(denominator > 0, _ratio(2 * tp, np.where(denominator > 0, denominator, 1)), 0.0)


def f1_of_class(gold: ArrayLike, predicted: ArrayLike, positive: int, weights: Weights = None) -> np.ndarray:
    """F1 of one class: ``2 TP / (2 TP + FP + FN)`` with that class as positive; 0 when undefined."""
    return _f1(*_class_counts(np.asarray(gold), np.asarray(predicted), positive, weights))


def precision_of_class(
    gold: ArrayLike, predicted: ArrayLike, positive: int, weights: Weights = None
) -> np.ndarray:
    """Precision of one class: ``TP / (TP + FP)``; 0 when nothing is predicted positive."""
    tp, fp, _ = _class_counts(np.asarray(gold), np.asarray(predicted), positive, weights)
    return np.where(tp + fp > 0, _ratio(tp, np.where(tp + fp > 0, tp + fp, 1)), 0.0)


def _labels(gold: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    labels = np.union1d(gold, predicted)
    return labels[labels >= 0]  # -1 marks a failed prediction, not a class


def macro_f1(gold: ArrayLike, predicted: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Macro F1: unweighted mean of per-class F1 over the classes that occur as gold or prediction."""
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    scores, present = [], []
    for label in _labels(gold, predicted):
        tp, fp, fn = _class_counts(gold, predicted, label, weights)
        scores.append(_f1(tp, fp, fn))
        present.append(tp + fp + fn > 0)
    present_array = np.array(present)
    return np.where(present_array, np.array(scores), 0.0).sum(axis=0) / present_array.sum(axis=0)


def micro_f1(gold: ArrayLike, predicted: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Micro F1: F1 of the counts summed over classes, ``2 sum TP / (2 sum TP + sum FP + sum FN)``.

    For single-label predictions it equals accuracy, except that a failed prediction adds a false
    negative without a false positive.
    """
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    tp = fp = fn = 0.0
    for label in _labels(gold, predicted):
        t, p, n = _class_counts(gold, predicted, label, weights)
        tp, fp, fn = tp + t, fp + p, fn + n
    return _f1(np.asarray(tp), np.asarray(fp), np.asarray(fn))


def _score_blocks(
    scores: ArrayLike, positive: ArrayLike, weights: Weights, descending: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Summed positive and negative weight per run of equal scores, in score order: ``(R, B)`` each."""
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    order = np.argsort(-scores if descending else scores, kind="stable")
    sorted_scores = scores[order]
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    w_sorted = np.ones((1, scores.size)) if weights is None else item_columns(weights, order).astype(np.float64)
    pos = np.add.reduceat(w_sorted * positive[order], starts, axis=1)
    neg = np.add.reduceat(w_sorted * ~positive[order], starts, axis=1)
    return pos, neg


def _squeeze(values: np.ndarray, weights: Weights) -> np.ndarray:
    return values[0] if weights is None else values


def auroc(scores: ArrayLike, positive: ArrayLike, weights: Weights = None) -> np.ndarray:
    """Area under the ROC curve: P(score of a positive > score of a negative), ties counting one half."""
    pos, neg = _score_blocks(scores, positive, weights, descending=False)
    negatives_below = np.cumsum(neg, axis=1) - neg
    area = (pos * (negatives_below + 0.5 * neg)).sum(axis=1)
    return _squeeze(_ratio(area, pos.sum(axis=1) * neg.sum(axis=1)), weights)


def average_precision(scores: ArrayLike, positive: ArrayLike, weights: Weights = None) -> np.ndarray:
    """AUPRC as average precision: ``sum_k (R_k - R_{k-1}) P_k`` over score thresholds, high to low.

    Equal scores form one threshold (scikit-learn's ``average_precision_score``).
    """
    pos, neg = _score_blocks(scores, positive, weights, descending=True)
    true_positives = np.cumsum(pos, axis=1)
    precision = _ratio(true_positives, true_positives + np.cumsum(neg, axis=1))
    contribution = np.where(pos > 0, pos * np.nan_to_num(precision), 0.0).sum(axis=1)
    return _squeeze(_ratio(contribution, pos.sum(axis=1)), weights)


def _tie_averaged_dcg(gains: np.ndarray, scores: np.ndarray, discount_cumsum: np.ndarray) -> float:
    _, inverse, counts = np.unique(-scores, return_inverse=True, return_counts=True)
    mean_gain = np.bincount(inverse, gains, minlength=counts.size) / counts
    ends = np.cumsum(counts) - 1
    discount_per_run = np.diff(discount_cumsum[ends], prepend=0.0)
    return float((mean_gain * discount_per_run).sum())


def ndcg_per_query(
    gains: ArrayLike, scores: ArrayLike, query_index: ArrayLike, depth: int = NDCG_DEPTH
) -> np.ndarray:
    """nDCG@depth of each query: candidates ranked by score (P(relevant)), linear gains.

    ``DCG = sum_{rank r <= depth} gain_r / log2(r + 1)``, divided by the DCG of the ideal order. Tied
    scores share their positions' discounts (the expected DCG over tie orders, as scikit-learn's
    ``ndcg_score``). A query without any relevant candidate scores 0. Returns one value per query in
    the order of ``np.unique(query_index)``.
    """
    gains = np.asarray(gains, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    query_index = np.asarray(query_index)
    values = []
    for query in np.unique(query_index):
        members = query_index == query
        g, s = gains[members], scores[members]
        discount = 1.0 / np.log2(np.arange(g.size) + 2.0)
        discount[depth:] = 0.0
        ideal = float((np.sort(g)[::-1] * discount).sum())
        values.append(_tie_averaged_dcg(g, s, np.cumsum(discount)) / ideal if ideal > 0 else 0.0)
    return np.array(values)


def one_minus_brier(predicted: ArrayLike, outcome: ArrayLike, weights: Weights = None) -> np.ndarray:
    """``1 - mean (p_i - s_i)^2``: one minus the binary Brier score of a predicted probability ``p``
    against an outcome or success rate ``s`` in [0, 1] (capability-boundary tasks)."""
    error = (np.asarray(predicted, dtype=np.float64) - np.asarray(outcome, dtype=np.float64)) ** 2
    return 1.0 - weighted_mean(error, weights)
