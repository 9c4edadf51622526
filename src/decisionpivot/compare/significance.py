"""The two tests of ``dp compare``: the exact McNemar test of one family and Holm's step-down correction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats


def mcnemar_exact_p(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value of ``fixed`` against ``broken`` discordant units.

    Under the null hypothesis that baseline and candidate are equally good, each discordant unit (solved
    by exactly one of them) is fixed or broken with probability 1/2, so ``broken ~ Binomial(fixed +
    broken, 1/2)``; the p-value is ``min(1, 2 * P(Binomial(d, 1/2) <= min(fixed, broken)))`` with
    ``d = fixed + broken``, and 1 when there is no discordant unit.
    """
    discordant = fixed + broken
    if discordant == 0:
        return 1.0
    return float(min(1.0, 2.0 * stats.binom.cdf(min(fixed, broken), discordant, 0.5)))


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error control across the families).

    Sort the m p-values increasingly, ``p_(1) <= ... <= p_(m)``; the adjusted value of the k-th is
    ``max_{j <= k} min(1, (m - j + 1) p_(j))``. Rejecting where the adjusted value is at most alpha is
    Holm's procedure at level alpha. Ties keep their input order; the output is in input order.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return [float(v) for v in adjusted]
