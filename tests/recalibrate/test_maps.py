"""Temperature scaling and isotonic recalibration against readable loop versions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from decisionpivot.recalibrate.maps import (
    fit_isotonic,
    fit_temperature,
    isotonic_applied,
    temperature_nll,
    temperature_scaled,
)


def scaled_loop(p: list[float], temperature: float) -> list[float]:
    powered = [max(v, 1e-12) ** (1 / temperature) for v in p]
    return [v / sum(powered) for v in powered]


def nll_loop(items: list[tuple[list[float], int]], temperature: float) -> float:
    return -sum(math.log(scaled_loop(p, temperature)[gold]) for p, gold in items) / len(items)


def pav_loop(x: list[float], y: list[float]) -> dict[float, float]:
    """Pool adjacent violators over the distinct x values (weights = counts), written out."""
    distinct = sorted(set(x))
    blocks = [[sum(yy for xx, yy in zip(x, y, strict=True) if xx == v), sum(1 for xx in x if xx == v), [v]]
              for v in distinct]
    merged = True
    while merged:
        merged = False
        for i in range(len(blocks) - 1):
            if blocks[i][0] / blocks[i][1] > blocks[i + 1][0] / blocks[i + 1][1]:
                blocks[i] = [blocks[i][0] + blocks[i + 1][0], blocks[i][1] + blocks[i + 1][1],
                             blocks[i][2] + blocks[i + 1][2]]
                del blocks[i + 1]
                merged = True
                break
    return {v: total / count for total, count, values in blocks for v in values}


def _items(seed: int, n: int = 120) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    counts = rng.integers(2, 5, n)
    p = np.zeros((n, 4))
    for i, k in enumerate(counts):
        p[i, :k] = rng.dirichlet(np.full(k, 0.3))
    gold = np.array([int(rng.choice(k, p=p[i, :k])) for i, k in enumerate(counts)])  # calibrated: T near 1
    return p, counts, gold


def test_temperature_scaling_matches_the_loop_and_keeps_the_choice() -> None:
    p, counts, gold = _items(1)
    for t in (0.5, 1.0, 2.7):
        scaled = temperature_scaled(p, counts, t)
        for i in range(len(p)):
            assert scaled[i, : counts[i]] == pytest.approx(scaled_loop(list(p[i, : counts[i]]), t))
            assert (scaled[i, counts[i]:] == 0).all()
        assert (scaled.argmax(axis=1) == p.argmax(axis=1)).all()
        items = [(list(p[i, : counts[i]]), int(gold[i])) for i in range(len(p))]
        assert temperature_nll([(p, counts, gold)], t) == pytest.approx(nll_loop(items, t))


def test_fitted_temperature_minimises_the_loss() -> None:
    p, counts, gold = _items(2)
    t = fit_temperature([(p, counts, gold)])
    assert 0.5 < t < 2
    best = temperature_nll([(p, counts, gold)], t)
    for other in (t * 0.9, t * 1.1):
        assert best <= temperature_nll([(p, counts, gold)], other) + 1e-9


def test_overconfidence_is_softened() -> None:
    rng = np.random.default_rng(3)
    confidence = rng.uniform(0.55, 0.95, 400)
    right = rng.random(400) < confidence  # calibrated at T = 1 ...
    sharpened = confidence**4 / (confidence**4 + (1 - confidence) ** 4)  # ... then sharpened (T = 1/4)
    p = np.stack([sharpened, 1 - sharpened], axis=1)
    gold = np.where(right, 0, 1)
    assert fit_temperature([(p, np.full(400, 2), gold)]) > 3


def test_isotonic_matches_pool_adjacent_violators() -> None:
    rng = np.random.default_rng(4)
    x = np.round(rng.uniform(0.3, 1.0, 200), 2)
    y = rng.random(200) < x - 0.2
    mapping = fit_isotonic(x, y)
    expected = pav_loop(x.tolist(), y.astype(float).tolist())
    assert mapping.confidence == tuple(sorted(expected))
    assert mapping.calibrated == pytest.approx([expected[v] for v in mapping.confidence])
    applied = isotonic_applied(mapping, np.linspace(0, 1, 101))
    assert (np.diff(applied) >= -1e-12).all()  # non-decreasing
    assert applied[0] == mapping.calibrated[0] and applied[-1] == mapping.calibrated[-1]  # constant beyond
