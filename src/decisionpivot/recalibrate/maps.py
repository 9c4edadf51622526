"""The two recalibration maps, each a small pure fit and a small pure apply.

* **Temperature scaling** (Guo et al. 2017) divides the log-probabilities of an item's options by one
  temperature T > 0 and renormalises: ``p_T(o) = p(o)^(1/T) / sum_o' p(o')^(1/T)``. T is fitted by
  minimising the negative log-likelihood of the gold options. T > 1 softens over-confident answers; the
  chosen option never changes.
* **Isotonic recalibration** (Zadrozny and Elkan 2002) maps the confidence ``c = max_o p(o)`` through the
  non-decreasing function g that is closest in squared error to the correctness of the fitting items
  (``scipy.optimize.isotonic_regression``); between fitted confidences g is interpolated linearly, beyond
  them it is constant (as scikit-learn's IsotonicRegression). The chosen option is kept; only its
  confidence changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize

PROBABILITY_FLOOR = 1e-12
"""Probabilities are clipped at this before logarithms (a gold option given 0 would be -inf)."""
TEMPERATURE_RANGE = (0.02, 50.0)
"""Bounds of the temperature search."""


def _masked(probabilities: np.ndarray, option_count: np.ndarray) -> np.ndarray:
    """``(n, K)`` True on an item's listed options (the answers are zero-padded beyond them)."""
    return np.arange(probabilities.shape[1])[None, :] < np.asarray(option_count)[:, None]


def temperature_scaled(probabilities: np.ndarray, option_count: np.ndarray, temperature: float) -> np.ndarray:
    """``p_T(o) = p(o)^(1/T) / sum_o' p(o')^(1/T)`` over each item's listed options (padding stays 0)."""
    p = np.asarray(probabilities, dtype=np.float64)
    listed = _masked(p, option_count)
    logits = np.where(listed, np.log(np.clip(p, PROBABILITY_FLOOR, 1.0)) / temperature, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return weights / weights.sum(axis=1, keepdims=True)


def temperature_nll(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], temperature: float) -> float:
    """Mean negative log-likelihood of the gold options at ``temperature``, over the items of every part
    ``(probabilities (n, K), option_count (n,), gold_index (n,))``; items without gold (-1) are skipped."""
    total, count = 0.0, 0
    for probabilities, option_count, gold in parts:
        keep = np.asarray(gold) >= 0
        scaled = temperature_scaled(probabilities[keep], option_count[keep], temperature)
        total -= float(np.log(np.clip(scaled[np.arange(int(keep.sum())), gold[keep]], PROBABILITY_FLOOR, 1.0)).sum())
        count += int(keep.sum())
    return total / count if count else float("nan")


def fit_temperature(parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> float:
    """The temperature minimising :func:`temperature_nll` (bounded search over log T), rounded to 6 decimals."""
    low, high = np.log(TEMPERATURE_RANGE[0]), np.log(TEMPERATURE_RANGE[1])
    result = optimize.minimize_scalar(lambda log_t: temperature_nll(parts, float(np.exp(log_t))),
                                      bounds=(low, high), method="bounded", options={"xatol": 1e-7})
    return round(float(np.exp(result.x)), 6)


@dataclass(frozen=True)
class IsotonicMap:
    """A fitted non-decreasing map of confidences, as knots interpolated linearly."""

    confidence: tuple[float, ...]
    """Increasing distinct confidences of the fitting items."""
    calibrated: tuple[float, ...]
    """The fitted accuracy at each (non-decreasing, in [0, 1])."""


def fit_isotonic(confidence: np.ndarray, correct: np.ndarray) -> IsotonicMap:
    """Least-squares non-decreasing fit of correctness (0/1) on confidence.

    Items with equal confidence are merged first (their mean correctness, weighted by their count), so
    the fit is a function of the confidence; ``scipy.optimize.isotonic_regression`` then pools adjacent
    violators.
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    values, inverse, counts = np.unique(confidence, return_inverse=True, return_counts=True)
    means = np.bincount(inverse, weights=np.asarray(correct, dtype=np.float64)) / counts
    fitted = optimize.isotonic_regression(means, weights=counts.astype(np.float64), increasing=True).x
    return IsotonicMap(tuple(float(v) for v in values), tuple(float(min(1.0, max(0.0, v))) for v in fitted))


def isotonic_applied(mapping: IsotonicMap, confidence: np.ndarray) -> np.ndarray:
    """``g(c)``: linear interpolation between the knots, constant beyond the first and last."""
    return np.interp(np.asarray(confidence, dtype=np.float64), mapping.confidence, mapping.calibrated)
