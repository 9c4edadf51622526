"""The exact McNemar test and Holm's correction, each against a readable loop version."""

from __future__ import annotations

import itertools
from math import comb

import pytest

from decisionpivot.compare.significance import holm_adjusted, mcnemar_exact_p


def mcnemar_loop(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar: twice the probability of a split at least as uneven, summed term by term."""
    d = fixed + broken
    if d == 0:
        return 1.0
    tail = sum(comb(d, k) for k in range(min(fixed, broken) + 1)) / 2**d
    return min(1.0, 2 * tail)


def holm_loop(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment written out: the k-th smallest times (m - k + 1), made non-decreasing."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


@pytest.mark.parametrize(("fixed", "broken"), list(itertools.product(range(0, 14, 3), range(0, 30, 4))))
def test_mcnemar_matches_the_loop(fixed: int, broken: int) -> None:
    assert mcnemar_exact_p(fixed, broken) == pytest.approx(mcnemar_loop(fixed, broken), rel=1e-12, abs=1e-15)


def test_mcnemar_known_values() -> None:
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(5, 5) == 1.0
    assert mcnemar_exact_p(0, 6) == pytest.approx(2 / 64)  # the kind of case: all discordant one way
    assert mcnemar_exact_p(11, 61) < 1e-8
    assert mcnemar_exact_p(3, 7) == mcnemar_exact_p(7, 3)  # two-sided


def test_holm_matches_the_loop() -> None:
    for p in ([0.01, 0.04, 0.03, 0.2], [0.5], [0.01, 0.01, 0.9], [0.04, 0.001, 0.3, 0.02, 0.02]):
        assert holm_adjusted(p) == pytest.approx(holm_loop(p))


def test_holm_known_values() -> None:
    # m = 3: 0.01 * 3 = 0.03; 0.02 * 2 = 0.04; 0.04 * 1 = 0.04
    assert holm_adjusted([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm_adjusted([0.6, 0.5]) == [1.0, 1.0]
