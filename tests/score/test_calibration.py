"""The ECE noise floor against a readable simulation loop, and what it says about calibrated systems.

(The ECE's bootstrap interval is checked against the materialised-resample loop in test_bootstrap.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from decisionpivot.score.calibration import (
    _scope_seed,
    calibration_noise_floor,
    resampled_calibration_error,
)
from decisionpivot.score.metrics import expected_calibration_error


def noise_floor_loop(confidence: np.ndarray, scope: str, simulations: int) -> float:
    """Draw outcomes y_i = 1 with probability c_i, one simulation at a time, and average their ECE."""
    rng = np.random.default_rng(_scope_seed(scope, 20261007))
    draws = []
    for _ in range(simulations):
        draws.append(rng.random(confidence.size))
    values = [float(expected_calibration_error(confidence, u < confidence)) for u in draws]
    return float(np.mean(values))


def test_noise_floor_matches_the_loop() -> None:
    rng = np.random.default_rng(3)
    confidence = np.round(rng.uniform(0.5, 1.0, size=(2, 37)), 3)
    floor = calibration_noise_floor(confidence, "family x", simulations=600)
    assert floor.shape == (2,)
    for s in range(2):
        assert floor[s] == pytest.approx(noise_floor_loop(confidence[s], "family x", 600), rel=1e-12)


def test_noise_floor_shrinks_with_the_sample_and_is_deterministic() -> None:
    small = np.full(50, 0.8)
    large = np.full(5000, 0.8)
    floor_small = float(calibration_noise_floor(small, "a"))
    floor_large = float(calibration_noise_floor(large, "a"))
    # one bin at 0.8: E|mean(y) - 0.8| = sqrt(0.8*0.2/n) * sqrt(2/pi) approximately
    assert floor_small == pytest.approx(np.sqrt(0.16 / 50) * np.sqrt(2 / np.pi), rel=0.1)
    assert floor_large == pytest.approx(np.sqrt(0.16 / 5000) * np.sqrt(2 / np.pi), rel=0.1)
    assert float(calibration_noise_floor(small, "a")) == floor_small
    assert float(calibration_noise_floor(small, "b")) != floor_small  # the scope seeds the draws
    assert float(calibration_noise_floor(np.ones(10), "a")) == 0.0  # certain and right: no noise


def test_a_calibrated_system_lies_near_its_floor_a_miscalibrated_one_far_above() -> None:
    rng = np.random.default_rng(11)
    confidence = rng.uniform(0.5, 1.0, 200)
    calibrated = rng.random(200) < confidence
    overconfident = rng.random(200) < confidence - 0.3
    floor = float(calibration_noise_floor(confidence, "x"))
    assert float(expected_calibration_error(confidence, calibrated)) < 2.5 * floor
    assert float(expected_calibration_error(confidence, overconfident)) > 4 * floor


def test_resampled_ece_with_unit_weights_is_the_point_estimate() -> None:
    rng = np.random.default_rng(5)
    confidence = rng.uniform(0.3, 1.0, (3, 40))
    correct = rng.random((3, 40)) < 0.7
    ones = np.ones((4, 40))
    values = resampled_calibration_error(confidence, correct, ones)
    assert values.shape == (3, 4)
    np.testing.assert_allclose(values, np.repeat(expected_calibration_error(confidence, correct)[:, None], 4, 1))


def test_reading_needs_the_whole_interval_above_the_floor() -> None:
    from decisionpivot.score.calibration_table import MISCALIBRATED, WITHIN_NOISE, calibration_reading
    from decisionpivot.score.results import CORE, Estimate

    def ece(value: float, low: float, high: float) -> Estimate:
        return Estimate("s", CORE, "f", None, "ece", value, 100, np.array([low, high] * 50))

    floor = Estimate("s", CORE, "f", None, "ece_noise_floor", 5.0, 100)
    assert calibration_reading(ece(9.0, 6.0, 12.0), floor) == MISCALIBRATED
    assert calibration_reading(ece(9.0, 4.0, 12.0), floor) == WITHIN_NOISE
    assert calibration_reading(Estimate("s", CORE, "f", None, "ece", 9.0, 100), floor) == WITHIN_NOISE  # no interval


def test_no_items_no_floor() -> None:
    assert np.isnan(calibration_noise_floor(np.zeros((2, 0)), "empty")).all()
