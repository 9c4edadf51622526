"""The calibration error with its uncertainty: a bootstrap interval over groups and the noise floor.

An ECE of 8 points on a family of 300 items may be sampling noise: a perfectly calibrated system (every
item right with probability equal to its confidence) shows an ECE well above zero on a small sample,
because each bin's accuracy scatters around its confidence. Two figures guard against reading it as
miscalibration:

* the **interval**: :func:`resampled_calibration_error` evaluates the ECE on every group resample of the
  scorer (the same multiplicities as every other interval, seed 20261007);
* the **noise floor**: :func:`calibration_noise_floor`, the expected ECE of a perfectly calibrated system
  with the same confidences and the same number of items, by seeded simulation.

An ECE inside the noise floor's range is not evidence of miscalibration.
"""

from __future__ import annotations

import hashlib

import numpy as np

from decisionpivot.score.bootstrap import BOOTSTRAP_SEED
from decisionpivot.score.metrics import CALIBRATION_BINS, ArrayLike, Weights, calibration_bin, weighted_sum

NOISE_SIMULATIONS = 1000
"""Simulated perfectly calibrated outcome sets per noise floor."""
_CHUNK = 250
"""Simulations drawn at a time (bounds the memory of a pooled 13-family floor)."""


def resampled_calibration_error(
    confidence: ArrayLike, correct: ArrayLike, weights: Weights, bins: int = CALIBRATION_BINS
) -> np.ndarray:
    """ECE of every resample: ``sum_b |sum_i m_ri (y_i - c_i) 1[i in b]| / sum_i m_ri``, shape ``(..., R)``.

    ``m_ri`` is item i's multiplicity in resample r (its group's draw count), ``y_i`` its correctness,
    ``c_i`` its confidence and b runs over the equal-width bins of
    :func:`~decisionpivot.score.metrics.expected_calibration_error`; with all multiplicities 1 it is that
    function's value (``sum_b (n_b/n) |acc_b - conf_b|``).
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    gap = np.asarray(correct, dtype=np.float64) - confidence
    which = calibration_bin(confidence, bins)
    total = 0.0
    for b in range(bins):
        total = total + np.abs(weighted_sum(np.where(which == b, gap, 0.0), weights))
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / weighted_sum(np.ones(confidence.shape[-1]), weights)


def _scope_seed(scope: str, seed: int) -> np.random.SeedSequence:
    key = int.from_bytes(hashlib.sha256(scope.encode("utf-8")).digest()[:8], "big")
    return np.random.SeedSequence([seed, key])


def calibration_noise_floor(
    confidence: ArrayLike, scope: str, bins: int = CALIBRATION_BINS,
    simulations: int = NOISE_SIMULATIONS, seed: int = BOOTSTRAP_SEED,
) -> np.ndarray:
    """Expected ECE of a perfectly calibrated system with these confidences: ``E[ECE(c, y*)]``, ``y*_i ~
    Bernoulli(c_i)`` independently, estimated as the mean over ``simulations`` seeded draws of ``y*``.

    ``confidence`` is ``(..., n)`` (one row per system); the draws depend only on (seed, ``scope``) and n,
    so every system of a scope sees the same uniform numbers ``u`` (``y* = u < c``) and the value depends
    on nothing else (not the process, platform or order of systems). Returns ``(...)``.
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    lead, n = confidence.shape[:-1], confidence.shape[-1]
    if n == 0:
        return np.full(lead, np.nan)
    flat = confidence.reshape(-1, n)
    which = calibration_bin(flat, bins)
    rng = np.random.default_rng(_scope_seed(scope, seed))
    totals = np.zeros(flat.shape[0])
    orders = [np.argsort(which[s], kind="stable") for s in range(flat.shape[0])]
    starts = [np.flatnonzero(np.r_[True, np.diff(which[s][order]) != 0]) for s, order in enumerate(orders)]
    done = 0
    while done < simulations:
        size = min(_CHUNK, simulations - done)
        uniform = rng.random((size, n))
        for s, order in enumerate(orders):  # items sorted by bin: one sum per (simulation, occupied bin)
            gap = (uniform[:, order] < flat[s, order]).astype(np.float64) - flat[s, order]
            totals[s] += np.abs(np.add.reduceat(gap, starts[s], axis=1)).sum()
        done += size
    return (totals / (simulations * n)).reshape(lead)
