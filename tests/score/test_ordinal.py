"""The score-question metrics against readable loop versions, independent implementations and hand-worked cases;
the resample-weight path against scoring the materialised resample."""

from __future__ import annotations

import math

import numpy as np
import pytest

from decisionpivot.score import ordinal
from decisionpivot.score.bootstrap import unit_weights

RNG = np.random.default_rng(7)


def random_case(n_groups: int = 40, seed: int = 7) -> dict[str, np.ndarray]:
    """Groups of 2-3 members on scales of 3-7 levels, gold straddling a boundary, random distributions, some failed."""
    rng = np.random.default_rng(seed)
    gold, levels, groups = [], [], []
    for g in range(n_groups):
        size = int(rng.integers(3, 8))
        edge = int(rng.integers(1, size))  # the upper level of the boundary
        golds = [edge - 1, edge] + ([edge - 1] if rng.random() < 0.5 else [edge] if rng.random() < 0.5 else [])
        for value in golds:
            gold.append(value)
            levels.append(size)
            groups.append(g)
    gold, levels, groups = np.array(gold), np.array(levels), np.array(groups)
    width = int(levels.max())
    raw = rng.random((3, gold.size, width)) ** 3
    raw[:, np.arange(width) >= levels[:, None]] = 0.0
    probabilities = raw / raw.sum(axis=-1, keepdims=True)
    failed = rng.random((3, gold.size)) < 0.05
    uniform = (np.arange(width) < levels[:, None]) / levels[:, None]
    probabilities = np.where(failed[..., None], uniform, probabilities)
    return {"p": probabilities, "gold": gold, "levels": levels, "groups": groups, "failed": failed}


# ------------------------------------------------------------------ loop versions, one item (or group) at a time


def loop_predicted(p: list[float], gold: int, n: int, failed: bool) -> int:
    if failed:
        return n - 1 if gold <= (n - 1) / 2 else 0
    best = 0
    for level in range(n):
        if p[level] > p[best]:
            best = level
    return best


def loop_metrics(p: np.ndarray, gold: np.ndarray, levels: np.ndarray, groups: np.ndarray,
                 failed: np.ndarray) -> dict[str, float]:
    n_items = gold.size
    exact = near = absolute = expected_abs = expected_signed = rps = confidence = 0.0
    expected_of = []
    predicted_of = []
    for i in range(n_items):
        n = int(levels[i])
        row = [float(v) for v in p[i, :n]]
        predicted = loop_predicted(row, int(gold[i]), n, bool(failed[i]))
        predicted_of.append(predicted)
        exact += predicted == gold[i]
        near += abs(predicted - gold[i]) <= 1 and not failed[i]
        absolute += abs(predicted - gold[i])
        expected = sum(level * row[level] for level in range(n))
        expected_of.append(expected)
        expected_abs += abs(expected - gold[i])
        expected_signed += expected - gold[i]
        cumulative = 0.0
        total = 0.0
        for k in range(n - 1):
            cumulative += row[k]
            total += (cumulative - (1.0 if gold[i] <= k else 0.0)) ** 2
        rps += total / (n - 1)
        best = 0
        for level in range(n):
            if row[level] > row[best]:
                best = level
        spread = sum(row[level] * abs(level - best) for level in range(n))
        middle = sum(abs(level - (n - 1) / 2) for level in range(n)) / n
        confidence += max(0.0, 1 - spread / middle)
    # ordinal pair direction: every two members with different gold, the expected level ordered as the gold
    right = counted = 0
    for g in sorted(set(groups.tolist())):
        members = [i for i in range(n_items) if groups[i] == g]
        pairs = [(a, b) for a in members for b in members if gold[a] < gold[b]]
        if not pairs:
            continue
        counted += 1
        right += all(expected_of[a] < expected_of[b] for a, b in pairs)
    # quadratic kappa, pooled over scale sizes
    observed = chance = 0.0
    for n in sorted(set(levels.tolist())):
        on = [i for i in range(n_items) if levels[i] == n]
        rows = [sum(1 for i in on if gold[i] == a) for a in range(n)]
        cols = [sum(1 for i in on if predicted_of[i] == b) for b in range(n)]
        for a in range(n):
            for b in range(n):
                w = (a - b) ** 2 / (n - 1) ** 2
                observed += w * sum(1 for i in on if gold[i] == a and predicted_of[i] == b)
                chance += w * rows[a] * cols[b] / len(on)
    return {"exact": exact / n_items, "within_one": near / n_items, "mae": absolute / n_items,
            "expected_error": expected_abs / n_items, "expected_bias": expected_signed / n_items,
            "rps": rps / n_items, "confidence": confidence / n_items,
            "direction": right / counted if counted else math.nan, "qwk": 1 - observed / chance}


def vectorised(p: np.ndarray, gold: np.ndarray, levels: np.ndarray, groups: np.ndarray, failed: np.ndarray,
               weights=None) -> dict[str, np.ndarray]:
    predicted = ordinal.predicted_levels(p, gold, levels, failed)
    expected = ordinal.expected_levels(p)
    return {
        "exact": ordinal.exact_accuracy(predicted, gold, weights),
        "within_one": ordinal.within_one_accuracy(predicted, gold, failed, weights),
        "mae": ordinal.mean_absolute_error(predicted, gold, weights),
        "expected_error": ordinal.expected_level_error(expected, gold, weights),
        "expected_bias": ordinal.expected_level_bias(expected, gold, weights),
        "rps": ordinal.ranked_probability_score(p, gold, levels, weights),
        "confidence": ordinal.score_confidence(p, levels, weights),
        "direction": ordinal.ordinal_pair_direction(expected, gold, groups, weights),
        "qwk": ordinal.quadratic_weighted_kappa(predicted, gold, levels, weights),
    }


def test_every_metric_equals_its_loop_version() -> None:
    case = random_case()
    got = vectorised(case["p"], case["gold"], case["levels"], case["groups"], case["failed"])
    for s in range(3):
        expected = loop_metrics(case["p"][s], case["gold"], case["levels"], case["groups"], case["failed"][s])
        for name, value in expected.items():
            assert got[name][s] == pytest.approx(value, abs=1e-12), name


def test_resample_weights_equal_scoring_the_materialised_resample() -> None:
    """Groups are the resampling unit: a resample's weights give what the loop gives on the drawn groups, repeats and
    all (each drawn copy a group of its own)."""
    case = random_case(25, seed=11)
    weights = unit_weights("scale-test", case["groups"], 6, seed=3)
    got = vectorised(case["p"], case["gold"], case["levels"], case["groups"], case["failed"], weights)
    for r in range(6):
        drawn = np.repeat(np.arange(case["groups"].max() + 1), weights.by_unit[r].astype(int))
        items = np.concatenate([np.flatnonzero(case["groups"] == g) for g in drawn])
        relabel = np.concatenate([np.full(int((case["groups"] == g).sum()), j) for j, g in enumerate(drawn)])
        for s in range(3):
            expected = loop_metrics(case["p"][s][items], case["gold"][items], case["levels"][items], relabel,
                                    case["failed"][s][items])
            for name, value in expected.items():
                assert got[name][s, r] == pytest.approx(value, abs=1e-9), (name, r)


def test_kappa_is_scikit_learns_quadratic_kappa_on_one_scale() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    gold = RNG.integers(0, 5, 300)
    predicted = np.clip(gold + RNG.integers(-2, 3, 300), 0, 4)
    expected = metrics.cohen_kappa_score(gold, predicted, weights="quadratic")
    assert ordinal.quadratic_weighted_kappa(predicted, gold, np.full(300, 5)) == pytest.approx(expected)


def test_score_confidence_is_the_one_transformers_returns() -> None:
    """An independent implementation: transformers' decision pipeline computes a score answer's confidence."""
    template = pytest.importorskip("transformers.decision.template_utils")
    for n in (3, 4, 5, 7):
        for _ in range(20):
            p = RNG.random(n) ** 2
            p /= p.sum()
            question = template.Question("q", "score", None, [str(i) for i in range(n)], [], [None] * n)
            expected = question.answer(p.tolist())["confidence"]
            assert ordinal.score_confidences(p[None, :], np.array([n]))[0] == pytest.approx(expected)


def test_hand_worked_cases() -> None:
    levels = np.array([5])
    gold = np.array([2])
    sure_gold = np.array([[0, 0, 1.0, 0, 0]])
    assert ordinal.ranked_probability_score(sure_gold, gold, levels) == 0
    # all mass on level 4 when gold is 0: every one of the 4 cumulative steps is off by 1
    assert ordinal.ranked_probability_score(np.array([[0, 0, 0, 0, 1.0]]), np.array([0]), levels) == 1
    # one level off costs a quarter of that on five levels, three levels off three quarters
    assert ordinal.ranked_probability_score(np.array([[0, 0, 0, 1.0, 0]]), gold, levels) == 0.25
    assert ordinal.score_confidences(sure_gold, levels)[0] == 1
    assert ordinal.score_confidences(np.full((1, 5), 0.2), levels)[0] == 0
    assert ordinal.expected_level_error(ordinal.expected_levels(np.array([[0, 0, 0.6, 0.4, 0]])), gold) \
        == pytest.approx(0.4)
    # the farthest level: a failed prediction on three levels with gold in the middle is never within one
    predicted = ordinal.predicted_levels(np.full((1, 3), 1 / 3), np.array([1]), np.array([3]), np.array([True]))
    assert ordinal.within_one_accuracy(predicted, np.array([1]), np.array([True])) == 0
    assert ordinal.exact_accuracy(predicted, np.array([1])) == 0
    # a constant answer agrees no better than chance; a reversed scale is opposed
    gold = np.tile(np.arange(5), 4)
    assert ordinal.quadratic_weighted_kappa(np.full(20, 2), gold, np.full(20, 5)) == pytest.approx(0)
    assert ordinal.quadratic_weighted_kappa(4 - gold, gold, np.full(20, 5)) == pytest.approx(-1)
    # direction: a tie moves nothing
    expected = np.array([1.0, 1.0, 2.0, 3.0])
    assert ordinal.ordinal_pair_direction(expected, np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])) == 0.5
