"""Exact binomial figures of a monitoring check, each a small pure function."""

from __future__ import annotations

from scipy import stats


def clopper_pearson(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Two-sided exact (Clopper-Pearson) interval of a binomial rate at confidence ``level``:
    ``[Beta((1-level)/2; k, n-k+1), Beta(1-(1-level)/2; k+1, n-k)]``, with 0 and 1 at the ends
    (``k = 0`` or ``k = n``); ``(0, 1)`` when ``n = 0``."""
    if n == 0:
        return 0.0, 1.0
    tail = (1.0 - level) / 2
    low = 0.0 if successes == 0 else float(stats.beta.ppf(tail, successes, n - successes + 1))
    high = 1.0 if successes == n else float(stats.beta.ppf(1 - tail, successes + 1, n - successes))
    return low, high


def exceedance_p_value(errors: int, automated: int, target: float) -> float:
    """One-sided exact p-value of "the risk exceeds ``target``": ``P(Binomial(automated, target) >= errors)``,
    the chance of at least this many errors if the risk were exactly the target (1 when nothing is automated).
    """
    if automated == 0 or errors == 0:
        return 1.0
    return float(stats.binom.sf(errors - 1, automated, target))
