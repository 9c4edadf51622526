"""The vectorised bootstrap equals the readable per-resample loop; resamples are matched and seeded."""

from __future__ import annotations

import numpy as np
import pytest

from decisionpivot.score import metrics
from decisionpivot.score.bootstrap import (
    BOOTSTRAP_SEED,
    Multiplicities,
    exact_product,
    multiplicities,
    paired_difference,
    percentile_interval,
    resample_indices,
)
from decisionpivot.score.core import score_core
from decisionpivot.score.results import CORE, MACRO, Estimate
from tests.score.bootstrap_loop import loop_core_samples
from tests.score.synthetic import FamilyShape, family_items, layout_of, random_answers

SHAPES = (
    FamilyShape("pairs", "A", 24, 2, (2, 2)),
    FamilyShape("triples", "B", 12, 3, (3, 3)),
    FamilyShape("rules", "F", 9, 4, (7, 10)),
)
SYSTEMS = ("weak", "middle", "strong")
RESAMPLES = 40


@pytest.fixture(scope="module")
def scored() -> tuple[list, dict, list[Estimate]]:
    layouts = [layout_of(family_items(shape)) for shape in SHAPES]
    answers = {
        (system, layout.task): random_answers(layout, system, skill=1.0 + 1.5 * s, seed=10 * s + f)
        for s, system in enumerate(SYSTEMS)
        for f, layout in enumerate(layouts)
    }
    del answers[("weak", "rules")]  # a system without one family: its aggregates use the other two
    return layouts, answers, score_core(layouts, answers, SYSTEMS, RESAMPLES, BOOTSTRAP_SEED, jobs=2)


def test_vectorised_bootstrap_equals_the_loop(scored: tuple[list, dict, list[Estimate]]) -> None:
    layouts, answers, estimates = scored
    loop = loop_core_samples(layouts, answers, SYSTEMS, RESAMPLES, BOOTSTRAP_SEED)
    vectorised = {(e.system, e.task, e.level, e.metric): e for e in estimates if e.samples is not None}
    assert set(loop) == set(vectorised)
    for key, values in loop.items():
        np.testing.assert_allclose(
            vectorised[key].samples, 100 * np.array(values), atol=1e-4, err_msg=str(key)
        )


def test_point_estimates_are_the_metrics_on_all_items(scored: tuple[list, dict, list[Estimate]]) -> None:
    _, answers, estimates = scored
    by_key = {(e.system, e.task, e.level, e.metric): e for e in estimates}
    a = answers[("strong", "triples")]
    assert by_key[("strong", "triples", None, "item_accuracy")].value == pytest.approx(100 * a.correct.mean())
    families = [by_key[("weak", f, None, "pair_accuracy")].value for f in ("pairs", "triples")]
    assert by_key[("weak", MACRO, None, "pair_accuracy")].value == pytest.approx(np.mean(families))
    assert by_key[("weak", MACRO, None, "pair_accuracy")].n == 2
    ece = by_key[("strong", MACRO, None, "ece")]
    assert ece.samples is not None and ece.ci[0] <= ece.value <= ece.ci[1]  # an interval, unlike the paper
    assert by_key[("strong", MACRO, None, "ece_noise_floor")].samples is None  # a simulated expectation


def test_resamples_do_not_depend_on_which_systems_are_scored(
    scored: tuple[list, dict, list[Estimate]],
) -> None:
    layouts, answers, estimates = scored
    alone = score_core(layouts, {k: v for k, v in answers.items() if k[0] == "middle"}, ["middle"], RESAMPLES)
    together = {e.key: e for e in estimates}
    for e in alone:
        if e.system == "middle" and e.samples is not None:
            np.testing.assert_allclose(e.samples, together[e.key].samples, rtol=1e-6)  # float32 sums


def test_index_matrix_is_seeded_per_task() -> None:
    a = resample_indices("policy_case", 200, 10)
    np.testing.assert_array_equal(a, resample_indices("policy_case", 200, 10))
    assert not np.array_equal(a, resample_indices("clause_change", 200, 10))
    assert not np.array_equal(a, resample_indices("policy_case", 200, 10, seed=1))
    counts = multiplicities(a, 200)
    assert counts.shape == (10, 200) and (counts.sum(axis=1) == 200).all()
    np.testing.assert_array_equal(counts[3], np.bincount(a[3], minlength=200))


def test_paired_difference_uses_matched_resamples(scored: tuple[list, dict, list[Estimate]]) -> None:
    _, _, estimates = scored
    by_key = {e.key: e for e in estimates}
    a = by_key[("strong", CORE, MACRO, None, "pair_accuracy")]
    b = by_key[("middle", CORE, MACRO, None, "pair_accuracy")]
    diff = paired_difference(a.value, a.samples, b.value, b.samples)
    assert diff.value == pytest.approx(a.value - b.value)
    low, high = percentile_interval(a.samples - b.samples)
    assert (diff.ci_low, diff.ci_high) == (low, high)
    assert diff.ci_high - diff.ci_low < (a.interval()[1] - a.interval()[0]) + (
        b.interval()[1] - b.interval()[0]
    )


def test_percentile_interval_is_central_95_and_ignores_undefined_resamples() -> None:
    samples = np.r_[np.arange(1.0, 1001.0), np.nan]
    low, high = percentile_interval(samples)
    assert low == pytest.approx(np.percentile(np.arange(1.0, 1001.0), 2.5))
    assert high == pytest.approx(np.percentile(np.arange(1.0, 1001.0), 97.5))
    assert np.isnan(percentile_interval(np.array([np.nan]))[0])


@pytest.mark.parametrize("regime", ["many ties", "few ties", "no ties"])
def test_selective_scans_equal_the_materialised_resamples(regime: str) -> None:
    """Both scans (run ends for many repeated confidences, streaming otherwise) match the definition."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 5, 60)
    groups = np.repeat(np.arange(60), sizes)
    confidence = rng.random((4, groups.size))
    if regime == "many ties":
        confidence = np.round(confidence, 1)
    elif regime == "few ties":
        confidence[:, ::7] = 0.5
    correct = rng.random((4, groups.size)) < 0.85
    drawn = resample_indices(regime, 60, 25)
    weights = multiplicities(drawn, 60)[:, groups]
    coverage, area = metrics.selective_metrics(confidence, correct, weights)
    for r in range(25):
        items = np.concatenate([np.flatnonzero(groups == g) for g in drawn[r]])
        for s in range(4):
            c, k = confidence[s, items], correct[s, items]
            assert coverage[s, r] == metrics.selective_coverage(c, k)
            assert area[s, r] == pytest.approx(metrics.aurc(c, k), abs=1e-6)


def test_weighted_sums_are_exact_so_order_and_blas_kernel_cannot_change_them() -> None:
    """Float values summed over resamples give the same bits whatever the order of the items (a BLAS
    kernel's blocking is such a reordering; a float64 product differs in the last bits, and an ECE interval
    rounded to six decimals moved under another OpenBLAS kernel), and agree with the float64 sum."""
    rng = np.random.default_rng(5)
    values = rng.random((3, 997)) - rng.random((3, 997))
    counts = rng.integers(0, 4, size=(997, 200))
    order = rng.permutation(997)
    forward = exact_product(values, counts)
    assert np.array_equal(forward, exact_product(values[:, order], counts[order]))
    assert np.array_equal(forward, exact_product(values[:, ::-1], counts[::-1]))
    np.testing.assert_allclose(forward, values @ counts, rtol=0, atol=1e-6)
    floats = values @ counts
    reordered = values[:, order] @ counts[order]
    assert not np.array_equal(floats, reordered), "the float64 product is order-dependent (what this guards)"
    weights = Multiplicities(counts.T.astype(np.float32), np.arange(997))
    assert np.array_equal(weights.sum_over_items(values), forward)
    assert np.array_equal(metrics.weighted_sum(values, counts.T), forward)
    assert np.isnan(exact_product(np.array([[np.nan, 1.0]]), np.ones((2, 3)))).all()  # non-finite: float path
    assert np.array_equal(exact_product(np.array([[True, False, True]]), np.ones((3, 2))), [[2.0, 2.0]])
