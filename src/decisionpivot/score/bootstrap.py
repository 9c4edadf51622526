"""Bootstrap resampling, percentile intervals, paired differences and rank correlation.

One index matrix per task: ``R`` rows of ``U`` units drawn with replacement, where the unit is the
contrast group for grouped tasks, the query for reranking tasks and the item otherwise. The matrix
depends only on the seed, the task name and the unit count, never on which systems are scored, so
every system of every run is resampled identically (matched resamples): the difference of two
systems' resampled values is the bootstrap distribution of their difference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

BOOTSTRAP_SEED = 20261007
"""The paper's bootstrap seed."""
DEFAULT_RESAMPLES = 1000
"""Resamples per interval unless a caller asks otherwise (recorded in every report)."""
CONFIDENCE_LEVEL = 0.95
"""Central percentile interval."""
FIXED_POINT_BITS = 32
"""Non-count values are summed over resamples as integer multiples of ``2**-32`` (about 2.3e-10)."""


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


def exact_product(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``values @ counts`` for ``(..., n)`` values and ``(n, R)`` whole-number counts, summed exactly.

    Exact sums are the same in any order, so the result is the same on any BLAS kernel and thread count (a
    float64 matrix product is not: its last bits follow the kernel's blocking, and a value rounded for a
    report can then land on either side of a rounding boundary, as ECE intervals did under another
    OpenBLAS kernel). Whole-number values (booleans, integers) are multiplied in float32 when every sum stays below
    2**24 and in float64 otherwise, exactly; other values are first rounded to multiples of ``2**-FIXED_POINT_BITS`` and
    summed as 64-bit integers (numpy's integer product, which is not the BLAS). Values that are not finite,
    or whose sums could overflow 64 bits, fall back to a float64 product.
    """
    values, counts = np.asarray(values), np.asarray(counts)
    heaviest = float(np.abs(counts).sum(axis=0, dtype=np.float64).max(initial=0.0))
    if values.dtype == bool or np.issubdtype(values.dtype, np.integer):
        largest = float(np.abs(values).max(initial=0))
        whole = np.float32 if largest * heaviest < 2.0**24 else np.float64  # exact either way
        return values.astype(whole, copy=False) @ counts.astype(whole, copy=False)
    values = values.astype(np.float64, copy=False)
    finite = values.size > 0 and bool(np.isfinite(values).all())
    largest = float(np.abs(values).max()) if finite else np.inf
    if np.ldexp(largest, FIXED_POINT_BITS) * heaviest >= 2.0**62:
        return values @ counts.astype(np.float64, copy=False)
    scaled = np.rint(np.ldexp(values, FIXED_POINT_BITS)).astype(np.int64)
    return np.ldexp((scaled @ counts.astype(np.int64)).astype(np.float64), -FIXED_POINT_BITS)


@dataclass(frozen=True)
class Multiplicities:
    """Resample multiplicities of units (groups, queries or items), read per item.

    Equivalent to the ``(R, n)`` array ``by_unit[:, unit_index]`` that metric functions accept as
    ``weights``, but sums over items run on unit totals first (a group of three items costs one column
    of the matrix product instead of three).
    """

    by_unit: np.ndarray
    """``(R, U)`` float32: how often each unit was drawn in each resample."""
    unit_index: np.ndarray
    """``(n,)`` unit of each item; every unit 0..U-1 has at least one item."""
    _order: np.ndarray = field(init=False, repr=False, compare=False)
    _starts: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        order = np.argsort(self.unit_index, kind="stable")
        sorted_units = self.unit_index[order]
        starts = np.flatnonzero(np.r_[True, sorted_units[1:] != sorted_units[:-1]])
        if starts.size != self.by_unit.shape[1]:
            raise ValueError(f"{self.by_unit.shape[1]} units but {starts.size} have items")
        object.__setattr__(self, "_order", order)
        object.__setattr__(self, "_starts", starts)

    @property
    def resamples(self) -> int:
        return int(self.by_unit.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(R, n)``, the shape of the equivalent per-item array."""
        return self.resamples, int(self.unit_index.size)

    def per_item(self) -> np.ndarray:
        """The ``(R, n)`` per-item multiplicities."""
        return self.by_unit[:, self.unit_index]

    def columns(self, items: np.ndarray) -> np.ndarray:
        """``(R, k)`` multiplicities of the given item positions."""
        return self.by_unit[:, self.unit_index[items]]

    def item_rows(self, dtype: type) -> np.ndarray:
        """``(n, R)`` per-item multiplicities as contiguous rows of ``dtype`` (for prefix scans)."""
        return np.ascontiguousarray(self.by_unit.T, dtype=dtype)[self.unit_index]

    def sum_over_items(self, values: np.ndarray) -> np.ndarray:
        """``sum_i m_ri v_i`` for every resample r: ``(..., n)`` -> ``(..., R)``, exactly (:func:`exact_product`)."""
        values = np.asarray(values)
        if not (values.dtype == bool or np.issubdtype(values.dtype, np.integer)):
            values = values.astype(np.float64, copy=False)
        return exact_product(self._sum_per_unit(values), self.by_unit.T)

    def _sum_per_unit(self, values: np.ndarray) -> np.ndarray:
        """``(..., n)`` -> ``(..., U)``: the values of each unit's items added up."""
        if self._starts.size == self.unit_index.size:  # one item per unit
            return np.take(values, self._order, axis=-1)
        return np.add.reduceat(np.take(values, self._order, axis=-1), self._starts, axis=-1)

    def totals(self) -> np.ndarray:
        """``(R,)`` summed multiplicity of all items in each resample."""
        sizes = np.diff(np.r_[self._starts, self.unit_index.size]).astype(self.by_unit.dtype)
        return self.by_unit @ sizes

    def restrict(self, mask: np.ndarray) -> Multiplicities:
        """The multiplicities of the items where ``mask`` is True (their units keep their draws)."""
        units, index = np.unique(self.unit_index[mask], return_inverse=True)
        return Multiplicities(self.by_unit[:, units], index.reshape(-1))

    @staticmethod
    def concatenate(parts: Sequence[Multiplicities]) -> Multiplicities:
        """Items of several tasks side by side (pooled metrics), each with its own draws."""
        offsets = np.cumsum([0] + [p.by_unit.shape[1] for p in parts[:-1]])
        return Multiplicities(
            np.concatenate([p.by_unit for p in parts], axis=1),
            np.concatenate([p.unit_index + o for p, o in zip(parts, offsets, strict=True)]),
        )


def unit_weights(
    task: str, unit_index: np.ndarray, resamples: int, seed: int = BOOTSTRAP_SEED
) -> Multiplicities:
    """Multiplicities of each item under resampling of its unit (group, query or itself)."""
    units = int(unit_index.max()) + 1
    drawn = multiplicities(resample_indices(task, units, resamples, seed), units).astype(np.float32)
    return Multiplicities(drawn, np.asarray(unit_index))


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
    from scipy import stats

    result = stats.spearmanr([scoring_a[s] for s in systems], [scoring_b[s] for s in systems])
    return RankCorrelation(float(result.statistic), float(result.pvalue), systems)
