"""The certification test: which confidence thresholds keep the error rate of automated items at most
the target, with probability at least 1 - delta over the calibration draw.

**What is controlled.** For a threshold ``lambda`` a system *decides alone* on an item when its
confidence ``c = max_o p(o)`` is at least ``lambda``. The risk of the threshold is the error rate among
those items,

    R(lambda) = E[wrong decisions with c >= lambda] / E[decisions with c >= lambda],

for items drawn as the release is drawn (same generators, levels and plan, another seed): the share
of wrong answers among the automated ones, over many release-like draws. The guarantee is

    P( R(lambda) <= alpha for every certified lambda ) >= 1 - delta,

probability over the calibration draws; the reported threshold is the certified one with the largest
coverage. It holds for each entry (a family, or all families pooled) on its own; for all 13 families
at once, use delta / 13.

**The test** is Learn then Test (Angelopoulos, Bates, Candes, Jordan and Lei 2021, "Learn then Test:
Calibrating predictive algorithms to achieve risk control", arXiv:2110.01052), in the form its
selective-classification example uses: for each threshold of a fixed grid, the null hypothesis
``R(lambda) > alpha`` is tested with the binomial tail p-value

    p(lambda) = P( Binomial(n(lambda), alpha) <= e(lambda) ),

``n`` the calibration items automated at ``lambda`` and ``e`` the wrong ones among them (exact for
independent, identically distributed items: given ``n``, ``e`` is Binomial(n, R(lambda)); p = 1 when
``n = 0``). The grid is scanned from the highest threshold down with the **fallback procedure**
(Wiens 2003, "A fixed sequence Bonferroni procedure for testing multiple endpoints", Pharmaceutical
Statistics 2:211-215), a fixed-sequence test that gives each threshold its share ``delta / G`` of the
error budget and passes the level of every rejected threshold on to the next one. It controls the
family-wise error rate at ``delta`` for any dependence between the p-values. Plain fixed-sequence
testing (all of ``delta`` on the first threshold) stops at the first threshold it cannot certify, and
at the highest thresholds too few items are automated for any certificate (``0.95^n > 0.10`` for
``n < 45``): a model whose confidences rarely reach 1.0 would never get past the first step.

**Contrast groups are dependent** (members share their case), so the test sees one member per group:
each group is kept with probability ``size / largest group size`` of the entry and then one member is
chosen uniformly, both by a SHA-256 hash of the seed and group (never by an answer), so every item is
equally likely to be tested and the tested items are independent. Groups of one draw come from their
own seeded random streams but differ in distribution by plan slot (level, variation): a stratified
sample, which only narrows the binomial tail (a sum over strata varies less than an i.i.d. sum with the
same mean); ``tests/gate/test_simulation.py`` checks the bound by simulation with such strata, within-
group dependence and over-, under- and perfectly calibrated systems.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

METHOD = (
    "Learn then Test: binomial tail p-values P(Bin(n, alpha) <= e) per threshold of a fixed grid, "
    "fallback procedure from the highest threshold down, one member per contrast group"
)
"""The method, as gate.json and the reports name it."""
REFERENCE = (
    "Angelopoulos, Bates, Candes, Jordan, Lei (2021). Learn then Test: Calibrating predictive algorithms "
    "to achieve risk control. arXiv:2110.01052; fallback procedure: Wiens (2003), Pharmaceutical "
    "Statistics 2:211-215"
)
"""Where the method comes from."""
THRESHOLD_GRID: tuple[float, ...] = (
    1.0, 0.9999, 0.999, 0.998, 0.995, 0.99, 0.985, 0.98, 0.97, 0.96, 0.95, 0.94, 0.93, 0.92, 0.91,
    0.9, 0.875, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.0,
)
"""Confidence thresholds tested, highest first (fixed before any answer is seen; 0.0 automates all)."""


def guarantee_text(target_risk: float, delta: float) -> str:
    """The guarantee of a certified threshold in words (gate.md and the per-system JSON)."""
    return (
        f"With probability at least {1 - delta:.0%} over the calibration draws, the error rate among the "
        f"items a system decides alone (confidence >= threshold) is at most {target_risk:.0%} on items "
        "drawn as the release is drawn: expected wrong automated decisions divided by expected automated "
        "decisions, per family (or over all families for the pooled threshold)."
    )


def _hash_integers(key: str) -> tuple[int, int]:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:16], "big")


def sampled_members(group_index: np.ndarray, group_keys: Sequence[str], largest: int) -> np.ndarray:
    """Positions of the items the test sees: at most one member per contrast group.

    Group ``g`` (``group_keys[g]`` names it, e.g. ``"seed 101 access_request:g0007"``) with ``m_g``
    members is kept when ``h1 mod largest < m_g`` (probability ``m_g / largest``), and then its member
    ``h2 mod m_g`` in file order is tested, ``h1, h2`` from SHA-256 of the key: every item has the same
    chance ``1 / largest`` and the choice never depends on an answer. ``largest`` is the largest group
    size of the entry (all families' for the pooled one).
    """
    group_index = np.asarray(group_index)
    order = np.argsort(group_index, kind="stable")
    sorted_groups = group_index[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sizes = np.diff(np.r_[starts, group_index.size])
    chosen = []
    for start, size, group in zip(starts.tolist(), sizes.tolist(), sorted_groups[starts].tolist(), strict=True):
        keep, member = _hash_integers(group_keys[group])
        if keep % largest < size:
            chosen.append(int(order[start + member % size]))
    return np.sort(np.array(chosen, dtype=np.int64))


def binomial_p_values(accepted: np.ndarray, errors: np.ndarray, risk: float) -> np.ndarray:
    """``P(Binomial(n, risk) <= e)`` per threshold: the p-value of ``R > risk`` (1 where ``n = 0``)."""
    accepted = np.asarray(accepted)
    p = stats.binom.cdf(np.asarray(errors), np.maximum(accepted, 1), risk)
    return np.where(accepted > 0, p, 1.0)


def fallback_levels(p_values: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The fallback procedure (Wiens 2003) with equal weights: (rejected, level tested at) per hypothesis.

    Hypothesis ``j`` (in the given order) is tested at ``delta / G`` plus the level of hypothesis
    ``j - 1`` when that one was rejected; it is rejected when its p-value is at most its level.
    """
    share = delta / len(p_values)
    rejected = np.zeros(len(p_values), dtype=bool)
    levels = np.zeros(len(p_values))
    carried = 0.0
    for j, p in enumerate(p_values):
        levels[j] = share + carried
        rejected[j] = p <= levels[j]
        carried = levels[j] if rejected[j] else 0.0
    return rejected, levels


def clopper_pearson_upper(errors: int, n: int, level: float) -> float:
    """One-sided Clopper-Pearson upper bound on a binomial rate at confidence ``1 - level``."""
    if n == 0:
        return 1.0
    if errors >= n:
        return 1.0
    return float(stats.beta.ppf(1 - level, errors + 1, n - errors))


@dataclass(frozen=True)
class Certificate:
    """The outcome of the test for one entry (a family or the pooled families) of one system."""

    threshold: float | None
    """The certified threshold with the largest coverage; None when none is certified."""
    risk_bound: float | None
    """Clopper-Pearson upper bound on R at the threshold, at the level it was tested at (<= target)."""
    p_value: float | None
    """Binomial p-value of the threshold."""
    level: float | None
    """Level the threshold was tested at by the fallback procedure."""
    tested_items: int
    """Items the test saw (one member per kept group)."""
    accepted: int
    """Tested items automated at the threshold (0 without one)."""
    errors: int
    """Wrong ones among them."""
    certified: tuple[float, ...]
    """Every certified threshold of the grid, highest first."""


def certify(
    confidence: np.ndarray, correct: np.ndarray, risk: float, delta: float,
    grid: Sequence[float] = THRESHOLD_GRID,
) -> Certificate:
    """Test every grid threshold on the tested items (confidence, correct) and pick the certified one
    with the largest coverage (the lowest threshold); see the module docstring."""
    confidence = np.asarray(confidence, dtype=np.float64)
    wrong = ~np.asarray(correct, dtype=bool)
    thresholds = np.asarray(grid, dtype=np.float64)
    automated = confidence[None, :] >= thresholds[:, None]
    accepted = automated.sum(axis=1)
    errors = (automated & wrong[None, :]).sum(axis=1)
    p_values = binomial_p_values(accepted, errors, risk)
    rejected, levels = fallback_levels(p_values, delta)
    certified = tuple(float(t) for t in thresholds[rejected])
    if not rejected.any():
        return Certificate(None, None, None, None, int(confidence.size), 0, 0, ())
    j = int(np.flatnonzero(rejected)[-1])
    bound = clopper_pearson_upper(int(errors[j]), int(accepted[j]), float(levels[j]))
    return Certificate(float(thresholds[j]), bound, float(p_values[j]), float(levels[j]), int(confidence.size),
                       int(accepted[j]), int(errors[j]), certified)
