"""The one probability check (decisionpivot/probability.py), against its readable definition, on generated values."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from decisionpivot.probability import (
    LOG_SLACK,
    VALUE_SLACK,
    ProbabilityError,
    distribution,
    from_log_likelihoods,
    log_probability,
    probability,
    sum_allowance,
)

CHECKED = settings(max_examples=300, deadline=None, derandomize=True)
numbers = (st.floats(allow_nan=True, allow_infinity=True) | st.floats(-0.5, 1.5) | st.integers(-3, 3)
           | st.integers(min_value=10**300, max_value=10**400) | st.booleans() | st.none() | st.text(max_size=3))


def is_real(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(float(value)) \
        if not (isinstance(value, int) and abs(value) > 10**300) else False


@CHECKED
@given(value=numbers)
def test_a_probability_is_a_finite_real_in_0_1(value: Any) -> None:
    good = is_real(value) and 0 <= value <= 1 + VALUE_SLACK
    if good:
        assert probability(value) == min(float(value), 1.0)
    else:
        with pytest.raises(ProbabilityError):
            probability(value)


@CHECKED
@given(value=numbers | st.floats(-1e-3, 1e-3))
def test_a_log_probability_is_a_finite_real_at_most_0(value: Any) -> None:
    good = is_real(value) and value <= LOG_SLACK
    if good:
        assert log_probability(value) == min(float(value), 0.0)
    else:
        with pytest.raises(ProbabilityError):
            log_probability(value)


@CHECKED
@given(values=st.lists(numbers | st.floats(0, 1), min_size=1, max_size=6), tolerance=st.sampled_from([0.0, 0.02, 0.1]))
def test_a_distribution_is_accepted_exactly_when_each_value_and_the_sum_are_good(values: list[Any],
                                                                                tolerance: float) -> None:
    keys = [f"k{i}" for i in range(len(values))]
    answer = dict(zip(keys, values, strict=True))
    each = all(is_real(v) and 0 <= v <= 1 + VALUE_SLACK for v in values)
    total = math.fsum(min(float(v), 1.0) for v in values) if each else math.nan
    good = each and abs(total - 1) <= max(tolerance, 0.005 * len(keys))
    if not good:
        with pytest.raises(ProbabilityError):
            distribution(answer, keys, tolerance)
        return
    checked = distribution(answer, keys, tolerance)
    assert list(checked) == keys and math.isclose(math.fsum(checked.values()), 1.0, abs_tol=1e-12)
    assert all(0 <= p <= 1 + 1e-12 for p in checked.values())


def test_a_distribution_names_every_option_and_only_them() -> None:
    with pytest.raises(ProbabilityError, match=r"does not offer: \['maybe'\]"):
        distribution({"yes": 0.5, "no": 0.5, "maybe": 0.0}, ("yes", "no"))
    with pytest.raises(ProbabilityError, match=r"misses option\(s\) \['no'\]"):
        distribution({"yes": 1.0}, ("yes", "no"))
    assert sum_allowance(26) == pytest.approx(0.13) and sum_allowance(2) == 0.02


@CHECKED
@given(values=st.lists(st.floats(-50, 0), min_size=1, max_size=6))
def test_softmax_of_log_likelihoods_is_a_distribution(values: list[float]) -> None:
    keys = [f"k{i}" for i in range(len(values))]
    p = from_log_likelihoods(keys, values)
    assert math.isclose(sum(p.values()), 1.0, abs_tol=1e-9)
    assert all(p[a] >= p[b] for a, x in zip(keys, values, strict=True) for b, y in zip(keys, values, strict=True)
               if x >= y), "a larger log-likelihood never gets a smaller probability"


def test_a_positive_log_likelihood_is_refused_not_softmaxed() -> None:
    """Issue 37 case 6: +0.7 turned p(yes) 0.20 into 0.51; no log of a probability is positive."""
    assert from_log_likelihoods(("yes", "no"), [math.log(0.2), math.log(0.8)])["yes"] == pytest.approx(0.2)
    with pytest.raises(ProbabilityError, match=r"0\.7, impossible for the log of a probability"):
        from_log_likelihoods(("yes", "no"), [0.7, math.log(0.8) + 0.7 - 0.7])
