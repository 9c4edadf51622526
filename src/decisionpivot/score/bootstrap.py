"""Bootstrap resampling, percentile intervals, paired differences and rank correlation.

One index matrix per task: ``R`` rows of ``U`` units drawn with replacement, where the unit is the
contrast group for grouped tasks, the query for reranking tasks and the item otherwise. The matrix
depends only on the seed, the task name and the unit count, never on which systems are scored, so
every system of every run is resampled identically (matched resamples): the difference of two
systems' resampled values is the bootstrap distribution of their difference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

BOOTSTRAP_SEED = 20261007
"""The paper's bootstrap seed."""
DEFAULT_RESAMPLES = 1000
"""Resamples per interval unless a caller asks otherwise (recorded in every report)."""
CONFIDENCE_LEVEL = 0.95
"""Central percentile interval."""


def resample_indices(task: str, units: int, resamples: int, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``(resamples, units)`` unit indices drawn with replacement, seeded by (seed, task name)."""
    task_key = int.from_bytes(hashlib.sha256(task.encode("utf-8")).digest()[:8], "big")
    rng = np.random.default_rng(np.random.SeedSequence([seed, task_key]))
    return rng.integers(0, units, size=(resamples, units))


def multiplicities(indices: np.ndarray, units: int) -> np.ndarray:
    """``(R, units)`` how often each unit was drawn in each resample (a row-wise bincount)."""
    resamples = indices.shape[0]
    offsets = indices + units * np.arange(resamples)[:, None]
    return (
        np.bincount(offsets.ravel(), minlength=resamples * units).reshape(resamples, units).astype(np.int32)
    )


def unit_weights(task: str, unit_index: np.ndarray, resamples: int, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``(R, n)`` multiplicity of each item: the multiplicity of its unit (group, query or itself)."""
    units = int(unit_index.max()) + 1
    return multiplicities(resample_indices(task, units, resamples, seed), units)[:, unit_index]


def percentile_interval(samples: np.ndarray | None, level: float = CONFIDENCE_LEVEL) -> tuple[float, float]:
    """Central percentile interval of bootstrap values (NaN values, undefined resamples, are dropped)."""
    if samples is None:
        return (float("nan"), float("nan"))
    finite = np.asarray(samples, dtype=np.float64)
    finite = finite[~np.isnan(finite)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class Difference:
    """A paired difference A - B with its matched-resample interval."""

    value: float
    """Point difference."""
    ci_low: float
    """Lower end of the 95% percentile interval of the resampled differences."""
    ci_high: float
    """Upper end."""
    share_positive: float
    """Share of resamples where A - B > 0 (a quick one-sided read)."""


def paired_difference(
    value_a: float, samples_a: np.ndarray | None, value_b: float, samples_b: np.ndarray | None
) -> Difference:
    """A - B from matched resamples (the same index matrix for both systems)."""
    if samples_a is None or samples_b is None:
        return Difference(value_a - value_b, float("nan"), float("nan"), float("nan"))
    diff = np.asarray(samples_a) - np.asarray(samples_b)
    low, high = percentile_interval(diff)
    finite = diff[~np.isnan(diff)]
    share = float((finite > 0).mean()) if finite.size else float("nan")
    return Difference(value_a - value_b, low, high, share)


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman rank correlation between two scorings of the same systems."""

    rho: float
    """Spearman's rho."""
    pvalue: float
    """Two-sided p-value from scipy."""
    systems: tuple[str, ...]
    """The systems both scorings have (the ones correlated)."""


def spearman(scoring_a: Mapping[str, float], scoring_b: Mapping[str, float]) -> RankCorrelation:
    """Spearman's rho over the systems present in both mappings (system -> score), ties averaged."""
    systems = tuple(sorted(set(scoring_a) & set(scoring_b)))
    if len(systems) < 2:
        return RankCorrelation(float("nan"), float("nan"), systems)
    result = stats.spearmanr([scoring_a[s] for s in systems], [scoring_b[s] for s in systems])
    return RankCorrelation(float(result.statistic), float(result.pvalue), systems)
