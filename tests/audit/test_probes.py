"""The text probes' fast path computes what their scikit-learn pipeline (``Probe.model()``) computes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays
from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer

from decisionpivot.audit import probes
from decisionpivot.audit.probes import (
    PROBES,
    SpanBasis,
    _folds,
    gold_position,
    inner_products,
    lbfgs_logistic_scores,
    probe_table,
    robust_argmax,
    tfidf_fold,
)
from decisionpivot.audit.terms import WORD, Tokens
from decisionpivot.generate.run import draw_family
from decisionpivot.items import Item, render_state

SEED = 20261007


def _family(name: str) -> list[Item]:
    return list(draw_family(name, SEED).items)


def _probe(name: str) -> probes.Probe:
    return next(p for p in PROBES if p.name == name)


def _fold_inputs(items: list[Item], probe: probes.Probe, fold: int = 0) -> tuple[list[str], list[str], np.ndarray,
                                                                                np.ndarray, np.ndarray]:
    states = [render_state(i.state) for i in items]
    documents = probe.features(items, states)
    train, test = _folds(items, None)[fold]
    return documents, states, train, test, np.array([gold_position(i) for i in items])


@pytest.mark.parametrize(("family", "probe_name"), [
    ("policy_case", "bag_of_words"),  # 3 classes, more features than training rows: the span
    ("access_request", "bag_of_bigrams"),  # 2 classes
    ("record_rule", "options_only"),  # up to 10 classes, fewer features than rows: the features themselves
])
def test_fast_fit_gives_the_pipelines_scores_and_predictions(family: str, probe_name: str) -> None:
    items, probe = _family(family), _probe(probe_name)
    documents, _, train, test, gold = _fold_inputs(items, probe)
    pipeline = probe.model()
    pipeline.fit([documents[i] for i in train], gold[train])  # type: ignore[attr-defined]
    expected = pipeline.decision_function([documents[i] for i in test])  # type: ignore[attr-defined]
    x_train, x_test = tfidf_fold(Tokens.of(documents).term_counts(probe.ngram), train, test)
    classes, scores = lbfgs_logistic_scores(x_train, gold[train], x_test)
    assert classes.tolist() == pipeline.classes_.tolist()  # type: ignore[attr-defined]
    assert np.abs(scores - expected).max() < 1e-7
    assert (classes[robust_argmax(scores)] == pipeline.classes_[robust_argmax(expected)]).all()  # type: ignore


def test_fold_features_are_the_tfidf_vectorizers() -> None:
    items, probe = _family("booking_check"), _probe("bag_of_bigrams")
    documents, _, train, test, _ = _fold_inputs(items, probe, fold=2)
    vectoriser = probe.model().steps[0][1]  # type: ignore[attr-defined]
    expected_train = vectoriser.fit_transform([documents[i] for i in train])
    expected_test = vectoriser.transform([documents[i] for i in test])
    x_train, x_test = tfidf_fold(Tokens.of(documents).term_counts(probe.ngram), train, test)
    for found, expected in ((x_train, expected_train), (x_test, expected_test)):
        assert found.shape == expected.shape
        assert abs(found - expected).max() < 1e-15


def test_the_feature_limit_keeps_the_most_frequent_terms_ties_in_alphabetical_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    items = _family("clause_change")
    documents = [render_state(i.state) for i in items]
    train, test = _folds(items, None)[0]
    counts = Tokens.of(documents).term_counts((1, 1))  # columns in alphabetical order
    frequency = np.asarray(counts[train].sum(axis=0)).ravel()
    eligible = np.flatnonzero(np.bincount(counts[train].indices, minlength=counts.shape[1]) >= probes.MIN_DF)
    ranked = sorted(eligible.tolist(), key=lambda j: (-frequency[j], j))
    tied = next(k for k in range(200, len(ranked)) if frequency[ranked[k - 1]] == frequency[ranked[k]])
    monkeypatch.setattr(probes, "MAX_FEATURES", tied)  # the cut goes through terms of equal frequency
    x_train, _ = tfidf_fold(counts, train, test)
    expected = TfidfTransformer(sublinear_tf=True).fit_transform(counts[train][:, sorted(ranked[:tied])])
    assert x_train.shape == expected.shape and abs(x_train - expected).max() == 0
    clean = next(k for k in range(200, len(ranked)) if frequency[ranked[k - 1]] > frequency[ranked[k]])
    monkeypatch.setattr(probes, "MAX_FEATURES", clean)  # no tie at the cut: scikit-learn picks the same terms
    x_train, _ = tfidf_fold(counts, train, test)
    expected = TfidfVectorizer(min_df=probes.MIN_DF, max_features=clean, token_pattern=WORD.pattern,
                               sublinear_tf=True).fit_transform([documents[i] for i in train])
    assert x_train.shape == expected.shape and abs(x_train - expected).max() < 1e-15


def test_span_basis_is_orthonormal_with_repeated_rows() -> None:
    rng = np.random.default_rng(4)
    import scipy.sparse as sp

    base = rng.random((6, 40)) * (rng.random((6, 40)) < 0.3)
    x = sp.csr_matrix(np.vstack([base, base[:2], 2 * base[3:4], np.zeros((1, 40))]))  # rank 6 of 10 rows
    gram = inner_products(x)
    assert np.abs(gram - (x @ x.T).toarray()).max() < 1e-12
    span = SpanBasis.of(gram)
    assert span.rows.shape == (10, 6)
    q = x.T @ span.combination(np.eye(6))  # the basis, as weights
    assert np.abs(q.T @ q - np.eye(6)).max() < 1e-10
    assert np.abs(x @ q - span.rows).max() < 1e-10
    other = sp.csr_matrix(rng.random((3, 40)))
    assert np.abs(span.coordinates((other @ x.T).toarray()) - other @ q).max() < 1e-10


def test_no_terms_left_is_an_intercept_only_model() -> None:
    items = _family("triage_order")[:60]
    documents = [f"unique{k}" for k in range(len(items))]  # every term in one document only: min_df removes all
    train, test = _folds(items, None)[0]
    x_train, x_test = tfidf_fold(Tokens.of(documents).term_counts((1, 1)), train, test)
    assert x_train.shape[1] == 0
    gold = np.array([gold_position(i) for i in items])
    _, scores = lbfgs_logistic_scores(x_train, gold[train], x_test)
    assert scores.shape[0] == len(test) and np.ptp(scores, axis=0).max() < 1e-12  # the same scores for every item


def test_probe_table_with_a_training_draw_tests_on_the_items() -> None:
    items, train = _family("goal_check")[:200], list(draw_family("goal_check", 7).items)[:200]
    table = probe_table(items, train)
    assert set(table) == {p.name for p in PROBES} and all(len(v) == len(items) for v in table.values())
    alone = probe_table(items, train, probes=(_probe("bag_of_words"),))
    assert alone["bag_of_words"].tolist() == table["bag_of_words"].tolist()


_FOLD_SCORES = """
import json, sys
import numpy as np
from decisionpivot.audit.probes import PROBES, _folds, gold_position, lbfgs_logistic_scores, tfidf_fold
from decisionpivot.audit.terms import Tokens
from decisionpivot.generate.run import draw_family
from decisionpivot.items import render_state
name, probe_name, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
items = list(draw_family(name, seed).items)
probe = next(p for p in PROBES if p.name == probe_name)
documents = probe.features(items, [render_state(i.state) for i in items])
counts = Tokens.of(documents).term_counts(probe.ngram)
gold = np.array([gold_position(i) for i in items])
out = []
for train, test in _folds(items, None):
    x_train, x_test = tfidf_fold(counts, train, test)
    out.append(lbfgs_logistic_scores(x_train, gold[train], x_test)[1].tolist())
print(json.dumps(out))
"""


@pytest.mark.parametrize(("family", "probe_name", "seed"), [
    ("clause_change", "bag_of_words", 1),  # 3 classes in the span: 6e-6 apart when stopped at 1e-4
    ("triage_order", "bag_of_words", 20261007),  # up to 10 classes: 1.5e-7 apart when stopped at 1e-4
])
def test_a_fit_gives_the_same_scores_on_another_kernel_and_thread_count(family: str, probe_name: str,
                                                                        seed: int) -> None:
    """Each fit is solved to its optimum, so two OpenBLAS kernels and thread counts (which sum in other orders)
    give the same scores to 1e-8, far below the rounding of the argmax: stopped early (scikit-learn's tol of
    1e-4), these folds' scores differed by up to 6e-6 between kernels, and a fold of the invariance suite by
    2e-3, which swapped near-equal classes and changed a dvc.lock hash under CI's kernel."""
    import json
    import subprocess
    import sys

    from tests.release.test_dvc import _blas_env, _other_kernel

    scores = []
    for threads, kernel in ((2, None), (1, _other_kernel())):
        result = subprocess.run([sys.executable, "-c", _FOLD_SCORES, family, probe_name, str(seed)],
                                env=_blas_env(threads, kernel), capture_output=True, text=True, check=True)
        scores.append([np.array(fold) for fold in json.loads(result.stdout)])
    for first, second in zip(*scores, strict=True):
        assert np.abs(first - second).max() < 1e-8
        assert (robust_argmax(first) == robust_argmax(second)).all()


@given(arrays(np.float64, array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=12),
              elements=st.floats(-700, 700, allow_nan=False)))
def test_row_log_sum_exp_is_scipys_logsumexp(scores: np.ndarray) -> None:
    from scipy.special import logsumexp

    np.testing.assert_allclose(probes.row_log_sum_exp(scores), logsumexp(scores, axis=1, keepdims=True),
                               rtol=1e-13, atol=1e-12)
