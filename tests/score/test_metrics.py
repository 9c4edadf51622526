"""Every metric pinned to the paper's definitions, worked examples, and independent implementations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

from decisionpivot.items import Item, Option
from decisionpivot.score import metrics
from decisionpivot.score.bootstrap import multiplicities, resample_indices, spearman
from tests.score.synthetic import CORE_SHAPES, answers_of, family_items, layout_of


def item(
    family: str, index: int, group: str | None, keys: tuple[str, ...], answer: str, level: int = 1
) -> Item:
    return Item(
        id=f"{family}:{index:05d}",
        family=family,
        layer="G",
        version="1.1",
        group=None if group is None else f"{family}:{group}",
        level=level,
        variation=None,
        domain=None,
        state=f"case {index}",
        question="?",
        options=tuple(Option(k, k) for k in keys),
        answer=answer,
    )


# --------------------------------------------------------------------------- the paper's worked examples


def test_worked_example_calibration_error_is_20() -> None:
    """Every item at top probability 0.90, 70% correct -> calibration error 20.0."""
    confidence = np.full(10, 0.90)
    correct = np.array([True] * 7 + [False] * 3)
    assert 100 * metrics.expected_calibration_error(confidence, correct) == pytest.approx(20.0)


def test_worked_example_accuracy_and_share_at_090() -> None:
    """5 of 10 items at 0.90, 4 of these correct -> accuracy at 0.90 80.0, share 50.0."""
    confidence = np.array([0.90] * 5 + [0.6, 0.7, 0.55, 0.8, 0.89])
    correct = np.array([True, True, True, True, False, True, False, True, False, True])
    assert 100 * metrics.accuracy_at_confidence(confidence, correct) == pytest.approx(80.0)
    assert 100 * metrics.share_at_confidence(confidence) == pytest.approx(50.0)


def test_box_3_2_yes_yes_is_half_the_items_and_no_pair() -> None:
    """A yes/yes answer to a yes/no pair: 50% item accuracy, 0 pair accuracy; 0.86/0.84 is a correct
    direction although both members are predicted yes."""
    layout = layout_of(
        [
            item("filter_match", 0, "g0000", ("yes", "no"), "yes"),
            item("filter_match", 1, "g0000", ("yes", "no"), "no"),
        ]
    )
    answers = answers_of(layout, "decider", np.array([[0.86, 0.14], [0.84, 0.16]]))
    assert metrics.item_accuracy(answers.correct) == 0.5
    assert metrics.pair_accuracy(answers.correct, layout.group_index) == 0.0
    plus, minus = layout.pairs[0]
    column = layout.pair_positive_column[0]
    assert (
        metrics.pair_direction(answers.probabilities[[plus], column], answers.probabilities[[minus], column])
        == 1.0
    )
    clef = answers_of(layout, "clef", np.array([[0.09, 0.91], [0.09, 0.91]]))
    assert (
        metrics.pair_direction(clef.probabilities[[plus], 0], clef.probabilities[[minus], 0]) == 0.0
    )  # a tie


def test_pair_accuracy_needs_every_member_of_larger_groups() -> None:
    correct = np.array([True, True, False, True, True, True, True, True, True])
    groups = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2])
    assert metrics.pair_accuracy(correct, groups) == pytest.approx(2 / 3)
    assert metrics.item_accuracy(correct) == pytest.approx(8 / 9)


def test_pair_direction_is_the_share_of_pairs_with_p_plus_above_p_minus() -> None:
    p_plus = np.array([0.9, 0.6, 0.3, 0.5, 0.2])
    p_minus = np.array([0.1, 0.7, 0.2, 0.5, 0.1])
    assert metrics.pair_direction(p_plus, p_minus) == pytest.approx(3 / 5)


# --------------------------------------------------------------------------- chance pair accuracy


def test_chance_pair_accuracy_of_a_known_group_structure() -> None:
    items = [
        item("t", 0, "g0", ("yes", "no"), "yes"),
        item("t", 1, "g0", ("yes", "no"), "no"),
        *[item("t", 2 + i, "g1", ("a", "b", "c"), "a") for i in range(3)],
        *[item("t", 5 + i, "g2", tuple("abcdefghij"[: 7 + i]), "a") for i in range(4)],
        item("t", 9, None, ("a", "b", "c", "d", "e"), "a"),
    ]
    expected = (1 / 4 + 1 / 27 + 1 / (7 * 8 * 9 * 10) + 1 / 5) / 4
    assert metrics.chance_pair_accuracy(items) == pytest.approx(expected)
    layout = layout_of(items)
    assert metrics.uniform_pair_accuracy(layout.option_count, layout.group_index) == pytest.approx(expected)


def test_uniform_guessing_on_the_mirrored_core_is_about_16_percent() -> None:
    """The paper: uniform guessing yields 16.1% core pair accuracy (macro over 13 families)."""
    per_family = [metrics.chance_pair_accuracy(family_items(shape)) for shape in CORE_SHAPES]
    assert 100 * float(np.mean(per_family)) == pytest.approx(16.1, abs=0.1)


# --------------------------------------------------------------------------- selective coverage


def test_coverage_counts_an_error_share_of_exactly_five_percent() -> None:
    confidence = np.linspace(0.99, 0.60, 20)
    correct = np.ones(20, bool)
    correct[-1] = False  # 1 error in 20 = exactly 5%
    assert metrics.selective_coverage(confidence, correct) == 1.0
    assert metrics.selective_coverage(confidence[1:], correct[1:]) == pytest.approx(18 / 19)  # 1/19 > 5%


def test_prefixes_end_at_confidence_tie_boundaries() -> None:
    """19 correct items above a tie of one wrong and one right item: splitting the tie after the right
    one would give 20/21 at risk 0, but the tie enters together (1/21 errors <= 5%) ..."""
    confidence = np.r_[np.linspace(0.99, 0.81, 19), 0.8, 0.8]
    for tie in ([True, False], [False, True]):
        correct = np.r_[np.ones(19, bool), tie]
        assert metrics.selective_coverage(confidence, correct) == 1.0
    # ... and with only 9 items above the tie, the tie pushes risk to 1/11 > 5%: coverage stops before it
    confidence, correct = np.r_[np.linspace(0.99, 0.81, 9), 0.8, 0.8], np.r_[np.ones(9, bool), True, False]
    assert metrics.selective_coverage(confidence, correct) == pytest.approx(9 / 11)
    assert metrics.selective_coverage(confidence, correct[[*range(9), 10, 9]]) == pytest.approx(9 / 11)


def test_coverage_is_the_largest_eligible_prefix_not_the_first_to_fail() -> None:
    confidence = np.linspace(0.99, 0.5, 40)
    correct = np.ones(40, bool)
    correct[:2] = False  # the two most confident items are wrong: every prefix but the last fails ...
    assert metrics.selective_coverage(confidence, correct) == 1.0  # ... 2/40 = 5% qualifies
    assert metrics.selective_coverage(confidence[:39], correct[:39]) == 0.0  # 2/39 > 5%: nothing


def test_aurc_is_the_mean_prefix_risk_with_ties_entering_together() -> None:
    correct = np.array([True, False])
    assert metrics.aurc(np.array([0.9, 0.8]), correct) == pytest.approx(0.25)  # risks 0 and 1/2
    assert metrics.aurc(np.array([0.9, 0.9]), correct) == pytest.approx(0.5)  # one prefix: 1/2
    curve = metrics.risk_coverage_curve(np.array([0.9, 0.9, 0.7]), np.array([True, False, True]))
    np.testing.assert_allclose(curve[0], [2 / 3, 1.0])
    np.testing.assert_allclose(curve[1], [0.5, 1 / 3])


# --------------------------------------------------------------------------- calibration and Brier


def test_calibration_error_bins_are_fifteen_equal_widths() -> None:
    bins = metrics.calibration_bin(np.array([0.0, 1 / 15, 1 / 15 + 1e-6, 0.5, 0.9, 1.0]))
    np.testing.assert_array_equal(bins, [0, 0, 1, 7, 13, 14])
    # two bins, each perfectly calibrated -> 0; mixing them in one bin would not be
    confidence = np.array([0.2, 0.2, 0.2, 0.2, 0.2, 1.0])
    correct = np.array([True, False, False, False, False, True])
    assert metrics.expected_calibration_error(confidence, correct) == pytest.approx(0.0)


def test_brier_is_the_multiclass_squared_error() -> None:
    p = np.array([[0.7, 0.2, 0.1], [0.5, 0.5, 0.0]])
    gold = np.array([0, 1])
    expected = ((0.3**2 + 0.2**2 + 0.1**2) + (0.5**2 + 0.5**2)) / 2
    assert metrics.brier_score(p, gold) == pytest.approx(expected)


# ------------------------------------------------------------------------- reference metrics vs scikit-learn


@pytest.fixture(scope="module")
def classification() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    gold = rng.integers(0, 4, 300)
    predicted = np.where(rng.random(300) < 0.6, gold, rng.integers(0, 4, 300))
    scores = np.round(rng.random(300) * 0.6 + 0.4 * (gold == 1), 1)  # rounded: many ties
    return gold, predicted, scores


def test_classification_metrics_agree_with_scikit_learn(classification: tuple[np.ndarray, ...]) -> None:
    gold, predicted, _ = classification
    assert metrics.accuracy(gold, predicted) == pytest.approx(skm.accuracy_score(gold, predicted))
    assert metrics.balanced_accuracy(gold, predicted) == pytest.approx(
        skm.balanced_accuracy_score(gold, predicted)
    )
    assert metrics.f1_of_class(gold, predicted, 2) == pytest.approx(
        skm.f1_score(gold, predicted, labels=[2], average="macro")
    )
    assert metrics.f1_of_class(gold == 1, predicted == 1, True) == pytest.approx(
        skm.f1_score(gold == 1, predicted == 1)
    )
    assert metrics.precision_of_class(gold == 1, predicted == 1, True) == pytest.approx(
        skm.precision_score(gold == 1, predicted == 1)
    )
    assert metrics.macro_f1(gold, predicted) == pytest.approx(skm.f1_score(gold, predicted, average="macro"))
    assert metrics.micro_f1(gold, predicted) == pytest.approx(skm.f1_score(gold, predicted, average="micro"))


def test_ranking_metrics_agree_with_scikit_learn_including_ties(
    classification: tuple[np.ndarray, ...],
) -> None:
    gold, _, scores = classification
    positive = gold == 1
    assert metrics.auroc(scores, positive) == pytest.approx(skm.roc_auc_score(positive, scores))
    assert metrics.average_precision(scores, positive) == pytest.approx(
        skm.average_precision_score(positive, scores)
    )


def test_weighted_metrics_equal_scikit_learn_with_sample_weights(
    classification: tuple[np.ndarray, ...],
) -> None:
    """The bootstrap path: multiplicities as weights = scoring the resampled multiset."""
    gold, predicted, scores = classification
    weights = multiplicities(resample_indices("sk", gold.size, 5), gold.size)
    positive = gold == 1
    for r, w in enumerate(weights):
        assert metrics.auroc(scores, positive, weights)[r] == pytest.approx(
            skm.roc_auc_score(positive, scores, sample_weight=w)
        )
        assert metrics.average_precision(scores, positive, weights)[r] == pytest.approx(
            skm.average_precision_score(positive, scores, sample_weight=w)
        )
        assert metrics.balanced_accuracy(gold, predicted, weights)[r] == pytest.approx(
            skm.balanced_accuracy_score(gold, predicted, sample_weight=w)
        )
        assert metrics.macro_f1(gold, predicted, weights)[r] == pytest.approx(
            skm.f1_score(gold, predicted, average="macro", sample_weight=w)
        )
        assert metrics.f1_of_class(gold, predicted, 3, weights)[r] == pytest.approx(
            skm.f1_score(gold, predicted, labels=[3], average="macro", sample_weight=w)
        )


def test_failed_predictions_are_no_class_for_f1() -> None:
    gold = np.array([1, 1, 0, 0])
    predicted = np.array([1, -1, 0, -1])  # -1: failed
    assert metrics.accuracy(gold, predicted) == 0.5
    assert metrics.f1_of_class(gold, predicted, 1) == pytest.approx(2 / 3)  # tp 1, fn 1
    assert metrics.micro_f1(gold, predicted) == pytest.approx(2 * 2 / (2 * 2 + 2))


def test_ndcg_at_10_agrees_with_scikit_learn() -> None:
    rng = np.random.default_rng(3)
    queries, candidates = 6, 50
    gains = rng.integers(0, 4, (queries, candidates)) * (rng.random((queries, candidates)) < 0.3)
    scores = np.round(rng.random((queries, candidates)), 1)  # ties
    scores[0] = 0.5  # a query with every candidate tied (failed predictions are uniform)
    gains[1] = 0  # a query with nothing relevant
    ours = metrics.ndcg_per_query(gains.ravel(), scores.ravel(), np.repeat(np.arange(queries), candidates))
    for q in range(queries):
        assert ours[q] == pytest.approx(skm.ndcg_score(gains[[q]], scores[[q]], k=10), abs=1e-12)


def test_one_minus_brier_on_success_rates() -> None:
    assert metrics.one_minus_brier(np.array([0.8, 0.1]), np.array([1.0, 0.3])) == pytest.approx(
        1 - (0.04 + 0.04) / 2
    )


def test_spearman_agrees_with_scipy() -> None:
    a = {"s1": 70.1, "s2": 44.2, "s3": 60.0, "s4": 60.0, "s5": 12.0}
    b = {"s1": 57.0, "s2": 54.4, "s3": 50.0, "s4": 58.0, "s5": 20.0, "only_b": 1.0}
    result = spearman(a, b)
    expected = stats.spearmanr([a[s] for s in sorted(a)], [b[s] for s in sorted(a)])
    assert result.rho == pytest.approx(expected.statistic)
    assert result.pvalue == pytest.approx(expected.pvalue)
    assert result.systems == ("s1", "s2", "s3", "s4", "s5")
