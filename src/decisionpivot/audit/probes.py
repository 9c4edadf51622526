"""Content-blind probes: can an item's answer be predicted without reading the decisive fact?

Each probe turns an item into features that carry no decisive content (its options, its question
wording, the length or line count of its state, the bag of words or bigrams of its state) and a
logistic regression is trained and tested with ``GroupKFold`` so that whole contrast groups stay on
one side. The target is the gold option's position, which is the answer class for yes/no families
and stays meaningful when option keys differ from item to item (ticket ids, ledger entries).

**The model** of a probe is :meth:`Probe.model`, a scikit-learn pipeline: tf-idf and
``LogisticRegression(C=10)`` solved to its optimum for text, a standard scaler and a regression with its
lbfgs solver for numbers. Numeric probes run that pipeline. Text probes compute the same numbers faster, in three
steps that change no result:

* every text of a family is tokenised once (:class:`decisionpivot.audit.terms.Tokens`), not once per
  probe, fold and fit; each fold picks its vocabulary (terms in at least ``MIN_DF`` training documents,
  at most ``MAX_FEATURES``) and weights exactly as ``TfidfVectorizer`` would (:func:`tfidf_fold`);
* the regression is solved in the span of the training rows (:func:`lbfgs_logistic_scores`): an
  L2-penalised linear model's weights lie in that span, and an orthonormal basis of it turns up to
  50,000 sparse features into at most one coordinate per training item (~480) without changing any
  inner product, so L-BFGS takes the very same steps there (it is built from inner products only)
  and stops by the very same tests, which are evaluated on the original weights;
* what is the same for every probe of a family (the folds, the rendered states) is computed once.

**Portability.** The reported figures must be the same bytes on every host, whatever BLAS kernel and
thread count the arithmetic runs on (different CPUs pick different kernels, which sum in another
order). Two steps make them so:

* every text probe's fit is solved *to its optimum*, not stopped where L-BFGS stops: the penalised
  likelihood is strictly convex in the weights, so its minimiser is unique, and after L-BFGS's
  scikit-learn stop (no gradient component above ``TOLERANCE``, 1e-4) a few Newton steps
  (:func:`newton_polish`) bring the gradient's norm below ``OPTIMUM_GRADIENT``. The L-BFGS iterate
  depends on the path it took, and the last bits of a kernel's sums change that path: one fold's
  scores differed by 2e-3 between two kernels, enough to swap two near-equal classes (invariance
  suite 1.1, record_rule, options_only: four items, so one dvc.lock hash under CI's kernel), and
  tightening L-BFGS's own tolerance does not help, as it then stops on its relative-decrease test
  with scores still 1e-6 apart. At the optimum the kernels agree to about 1e-10;
* a prediction is the argmax of the decision scores rounded to ``DECIMALS`` places, ties going to the
  earliest gold position. A near-chance probe often has classes whose scores are *mathematically* equal
  (policy_case puts one case per outcome in each policy, so every line count is seen with each outcome
  equally often) and differ only by rounding noise (~1e-17), which would otherwise pick the class; an
  exact tie stays a tie, and noise far below 1e-6 cannot move a rounded score except at a rounding
  boundary.

tests/audit/test_probes.py runs fits under two kernels and thread counts and holds their scores to 1e-8.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy import optimize
from scipy.linalg import lapack, solve_triangular
from scipy.special import expit
from sklearn.feature_extraction.text import TfidfTransformer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from decisionpivot.audit.terms import WORD, Tokens
from decisionpivot.items import Item, render_state

FOLDS = 5
DECIMALS = 6
"""Decision scores are rounded to this many decimal places before the argmax (see the module docstring)."""

C = 10.0
"""Inverse L2 penalty of the text probes' regression (lets a real cue show)."""
TOLERANCE = 1e-4
"""lbfgs stops when no weight's gradient exceeds this (scikit-learn's ``tol``)."""
OPTIMUM_GRADIENT = 1e-10
"""Newton's method then runs until the gradient's 2-norm is at most this: the optimum (module docstring)."""
MAX_ITER = 2000
"""lbfgs iteration limit of the text probes."""
MIN_DF = 2
"""A term counts as a feature when it occurs in at least this many training documents."""
MAX_FEATURES = 50000
"""At most this many terms per fold: the most frequent in the training documents."""
RANK_TOLERANCE = 1e-13
"""A training row adds a direction to the span of the others when its squared distance from them exceeds this
share of the Gram matrix's trace. Rounding noise lies far below, real directions far above: over every fold of
core 1.2 the Gram eigenvalues are either below 1e-15 of the largest (rows that repeat another's bag of words)
or above 1e-12."""


def gold_position(item: Item) -> int:
    return item.option_keys.index(item.answer or "")


def _options_text(item: Item, state: str) -> str:
    return " | ".join(f"{o.key} {o.meaning}" for o in item.options) + f" n{len(item.options)}"


def _question_text(item: Item, state: str) -> str:
    return item.question


def _state_text(item: Item, state: str) -> str:
    return state


def _length(item: Item, state: str) -> list[float]:
    return [float(np.log1p(len(state)))]


def _lines(item: Item, state: str) -> list[float]:
    return [float(state.count("\n") + 1)]


@dataclass(frozen=True)
class Probe:
    """A content-blind feature set and how to model it."""

    name: str
    """Probe name in reports (``bag_of_words``)."""
    text: Callable[[Item, str], str] | None = None
    """Text features (bag of n-grams) of an item and its rendered state - or None for numeric features."""
    numeric: Callable[[Item, str], list[float]] | None = None
    """Numeric features of an item and its rendered state."""
    ngram: tuple[int, int] = (1, 1)
    """n-gram range for text features."""

    def model(self) -> object:
        """The probe's model as a scikit-learn pipeline (text probes compute its numbers faster, see the module
        docstring; tests check that they agree)."""
        if self.text is not None:
            # tf-idf rows are l2-normalised, which keeps lbfgs fast; C=10 lets a real cue show
            return make_pipeline(
                TfidfVectorizer(ngram_range=self.ngram, min_df=MIN_DF, max_features=MAX_FEATURES, lowercase=True,
                                token_pattern=WORD.pattern, sublinear_tf=True),
                LogisticRegression(C=C, solver="newton-cg", max_iter=MAX_ITER, tol=OPTIMUM_GRADIENT),
            )
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))

    def features(self, items: Sequence[Item], states: Sequence[str] | None = None) -> object:
        """The model's input for ``items`` (``states``: their rendered states, if at hand)."""
        states = [render_state(i.state) for i in items] if states is None else states
        if self.text is not None:
            return [self.text(item, state) for item, state in zip(items, states, strict=True)]
        assert self.numeric is not None
        return np.array([self.numeric(item, state) for item, state in zip(items, states, strict=True)])


PROBES: tuple[Probe, ...] = (
    Probe("options_only", text=_options_text),
    Probe("question_only", text=_question_text),
    Probe("state_length", numeric=_length),
    Probe("line_count", numeric=_lines),
    Probe("bag_of_words", text=_state_text),
    Probe("bag_of_bigrams", text=_state_text, ngram=(2, 2)),
)


def robust_argmax(scores: np.ndarray, decimals: int = DECIMALS) -> np.ndarray:
    """Column index of the largest score per row, after rounding to ``decimals`` places; ties -> first column.

    ``scores`` is (n, k), or (n,) for a binary model's signed score (positive means column 1, as in
    scikit-learn's ``predict``; zero means column 0)."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 1:
        scores = np.stack([np.zeros_like(scores), scores], axis=1)
    rounded = np.round(scores, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0
    return np.argmax(rounded, axis=1)


def tfidf_fold(counts: sp.csr_matrix, train: np.ndarray, test: np.ndarray) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Tf-idf rows of the ``train`` and ``test`` documents, as ``Probe.model()``'s vectoriser fitted on ``train``.

    The vocabulary is the terms in at least ``MIN_DF`` training documents; above ``MAX_FEATURES`` of them the
    most frequent stay (ties: alphabetical order - a stable sort, where scikit-learn's unstable one may pick
    another tied term on another CPU). Weights: sublinear tf (1 + log count) times smoothed idf
    (1 + log((1 + n) / (1 + df)), n training documents), rows scaled to unit length."""
    train_counts = counts[train]
    document_frequency = np.bincount(train_counts.indices, minlength=counts.shape[1])
    keep = document_frequency >= MIN_DF
    if keep.sum() > MAX_FEATURES:
        frequency = np.asarray(train_counts.sum(axis=0)).ravel()[keep]
        chosen = np.zeros_like(keep)
        chosen[np.flatnonzero(keep)[np.argsort(-frequency, kind="stable")[:MAX_FEATURES]]] = True
        keep = chosen
    columns = np.flatnonzero(keep)
    if len(columns) == 0:
        return sp.csr_matrix((len(train), 0)), sp.csr_matrix((len(test), 0))
    weights = TfidfTransformer(sublinear_tf=True)
    return weights.fit_transform(train_counts[:, columns]), weights.transform(counts[test][:, columns])


DENSE_DOCUMENT_FREQUENCY = 32
"""In :func:`inner_products`, terms in more than this many rows are multiplied as dense columns (BLAS)."""


def inner_products(x: sp.csr_matrix) -> np.ndarray:
    """``x @ x.T`` as a dense array: the frequent terms' columns densely (a few hundred template words and
    bigrams that occur in almost every state, where a sparse product spends most of its time), the rest sparse."""
    frequency = np.bincount(x.indices, minlength=x.shape[1])
    frequent = frequency > DENSE_DOCUMENT_FREQUENCY
    dense = x[:, np.flatnonzero(frequent)].toarray()
    rare = x[:, np.flatnonzero(~frequent)]
    return dense @ dense.T + (rare @ rare.T).toarray()


@dataclass(frozen=True)
class SpanBasis:
    """An orthonormal basis ``Q`` of the span of n training rows ``X``, known through their Gram matrix ``X X^T``.

    A pivoted Cholesky factorisation picks the rows that span the others, ``X_P``, and factors their Gram
    matrix ``X_P X_P^T = L L^T``; then ``Q = X_P^T L^-T`` is orthonormal and every row's coordinates are its
    inner products with ``X_P`` times ``L^-T``. A row whose part outside the span of the rows already picked
    is below ``RANK_TOLERANCE`` (repeated bags of words are common) adds no direction."""

    pivots: np.ndarray
    """Indices of the spanning training rows ``P``."""
    lower: np.ndarray
    """(rank, rank) lower Cholesky factor ``L`` of their Gram matrix."""
    rows: np.ndarray
    """(n, rank): every training row's coordinates in the basis, ``X Q``."""

    @classmethod
    def of(cls, gram: np.ndarray) -> SpanBasis:
        factor, pivots, rank, info = lapack.dpstrf(gram, tol=RANK_TOLERANCE * float(np.trace(gram)), lower=1)
        if info < 0:
            raise ValueError(f"dpstrf: argument {-info} is invalid")
        pivots = pivots[:rank] - 1
        lower = np.tril(factor[:rank, :rank])
        return cls(pivots, lower, cls._solve(lower, gram[:, pivots]))

    @staticmethod
    def _solve(lower: np.ndarray, cross: np.ndarray) -> np.ndarray:
        """``cross L^-T``."""
        if lower.shape[0] == 0:
            return np.zeros((cross.shape[0], 0))
        return solve_triangular(lower, cross.T, lower=True).T

    def coordinates(self, cross: np.ndarray) -> np.ndarray:
        """Coordinates ``Y Q`` of other rows ``Y``, from their inner products with the training rows ``Y X^T``."""
        return self._solve(self.lower, cross[:, self.pivots])

    def combination(self, v: np.ndarray) -> np.ndarray:
        """``beta`` with ``X^T beta = Q v``: the weights ``Q v`` as a combination of the n training rows."""
        beta = np.zeros((len(self.rows), v.shape[1]))
        if len(self.pivots):
            beta[self.pivots] = solve_triangular(self.lower, v, lower=True, trans="T")
        return beta


def row_log_sum_exp(scores: np.ndarray) -> np.ndarray:
    """``log(sum(exp(scores), axis=1))`` as a column, shifted by each row's largest score (no overflow): scipy's
    ``logsumexp`` for finite scores, without its per-call checks (the probes call it some 14,000 times a run)."""
    top = scores.max(axis=1, keepdims=True)
    return top + np.log(np.exp(scores - top).sum(axis=1, keepdims=True))


def lbfgs_logistic_scores(x_train: sp.csr_matrix, y: np.ndarray,
                          x_test: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Classes and test decision scores of ``LogisticRegression(C=C, tol=TOLERANCE, max_iter=MAX_ITER)`` (lbfgs),
    computed in the span of the training rows when there are more features than rows.

    The model minimises ``mean(loss) + ||W||^2 / (2 C n)`` (binomial loss for two classes, multinomial for more;
    intercepts unpenalised), starting from zero. Every gradient of the weights is a combination of the training
    rows, so the iterates stay in their span. With an orthonormal basis ``Q`` of that span (:class:`SpanBasis`),
    ``W = Q V`` maps n (or fewer) coordinates to the weights while keeping every inner product, the penalty
    and the scores (``X W = (X Q) V``). L-BFGS-B without bounds is built from inner products, so on ``V`` it takes the
    same steps as on ``W``; its tests are the relative decrease of the objective (the same in both) and the
    largest absolute gradient component of ``W`` (not rotation-invariant, so evaluated on ``W`` after every
    step, in a callback). From there :func:`newton_polish` solves to the optimum. Scores agree with the pipeline's
    (tests/audit/test_probes.py checks 1e-7); the cost per step falls from (terms x classes) to (training items x
    classes). With no more features than rows the problem is solved as it stands, on the dense features."""
    classes = np.unique(y)
    n, features = x_train.shape
    k = 1 if len(classes) == 2 else len(classes)
    target = (y == classes[1]).astype(float)[:, None] if k == 1 else (y[:, None] == classes[None, :]).astype(float)
    penalty = 1.0 / (C * n)
    in_span = features > n
    if in_span:
        products = inner_products(sp.vstack([x_train, x_test], format="csr"))
        span = SpanBasis.of(products[:n, :n])
        rows, test_rows = span.rows, span.coordinates(products[n:, :n])
    else:
        rows, test_rows = x_train.toarray(), x_test.toarray()
    rank = rows.shape[1]
    last: dict[str, np.ndarray] = {}

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        v, b = x[: rank * k].reshape(rank, k), x[rank * k:]
        scores = rows @ v + b
        if k == 1:
            loss = np.logaddexp(0.0, scores) - target * scores
            residual = (expit(scores) - target) / n
        else:
            total = row_log_sum_exp(scores)
            loss = total - (scores * target).sum(axis=1, keepdims=True)
            residual = (np.exp(scores - total) - target) / n
        gradient = np.concatenate([(rows.T @ residual + penalty * v).ravel(), residual.sum(axis=0)])
        last["x"], last["residual"], last["gradient"] = x.copy(), residual, gradient
        return float(loss.sum() / n + 0.5 * penalty * np.sum(v * v)), gradient

    def converged(x: np.ndarray) -> bool:
        """scikit-learn's test: no gradient component of the weights W = X^T beta or the intercepts exceeds
        TOLERANCE. W's gradient has the 2-norm of V's; where that bounds the answer the product is skipped."""
        if not np.array_equal(x, last.get("x")):
            objective(x)
        residual, gradient = last["residual"], last["gradient"]
        intercepts = float(np.abs(gradient[rank * k:]).max())
        norm = float(np.linalg.norm(gradient[: rank * k]))
        if max(norm, intercepts) <= TOLERANCE * (1 - 1e-6):
            return True
        if max(norm / np.sqrt(features * k), intercepts) > TOLERANCE * (1 + 1e-6):
            return False
        beta = span.combination(x[: rank * k].reshape(rank, k))
        weights = np.abs(x_train.T @ (residual + penalty * beta)).max(initial=0.0)
        return bool(max(weights, intercepts) <= TOLERANCE)

    def stop_when_converged(intermediate_result: optimize.OptimizeResult) -> None:
        if converged(intermediate_result.x):
            raise StopIteration

    x = np.zeros((rank + 1) * k)
    if not in_span:  # lbfgs on the features themselves: scikit-learn's own problem and tests
        x = optimize.minimize(objective, x, method="L-BFGS-B", jac=True,
                              options={"maxiter": MAX_ITER, "maxls": 50, "gtol": TOLERANCE,
                                       "ftol": 64 * np.finfo(float).eps}).x
    elif not converged(x):  # lbfgs tests the starting point first
        x = optimize.minimize(objective, x, method="L-BFGS-B", jac=True, callback=stop_when_converged,
                              options={"maxiter": MAX_ITER, "maxls": 50, "gtol": 0.0,
                                       "ftol": 64 * np.finfo(float).eps}).x
    x = newton_polish(x, rows, target, penalty, objective)
    scores = test_rows @ x[: rank * k].reshape(rank, k) + x[rank * k:]
    return classes, scores[:, 0] if k == 1 else scores


def newton_polish(x: np.ndarray, rows: np.ndarray, target: np.ndarray, penalty: float,
                  objective: Callable[[np.ndarray], tuple[float, np.ndarray]]) -> np.ndarray:
    """The optimum of the penalised logistic loss from a point near it (L-BFGS's stop): Newton's method with
    conjugate-gradient steps in a trust region (scipy's ``trust-ncg``), until the gradient's 2-norm is at most
    :data:`OPTIMUM_GRADIENT`.

    ``x`` holds the weights ``V`` (``rank x k``, row-major) and then the ``k`` intercepts; ``objective`` gives the
    loss and its gradient. The Hessian is applied, never formed: for scores ``S = R V + b``, class probabilities
    ``P`` and a direction ``(dV, db)`` with ``dS = R dV + db``, the loss's curvature is ``(P * dS - P * rowsum(P *
    dS)) / n`` (``p (1 - p) dS / n`` for one binomial score), mapped back by ``R^T`` and summed over rows for the
    intercepts, plus ``penalty * dV``. The multinomial intercepts can all move by one constant without changing the
    loss; Newton's steps, built from the gradient, never move along that direction."""
    n, rank = rows.shape
    k = target.shape[1]
    at: dict[str, np.ndarray] = {}

    def probabilities(x: np.ndarray) -> np.ndarray:
        """The class probabilities at ``x``, computed once per Newton iterate (every conjugate-gradient step of
        one trust-region solve applies the Hessian at the same point)."""
        if "x" not in at or not np.array_equal(at["x"], x):
            v, b = x[: rank * k].reshape(rank, k), x[rank * k:]
            scores = rows @ v + b
            at["x"] = x.copy()
            at["p"] = expit(scores) if k == 1 else np.exp(scores - row_log_sum_exp(scores))
        return at["p"]

    def curvature(x: np.ndarray, direction: np.ndarray) -> np.ndarray:
        p = probabilities(x)
        change = rows @ direction[: rank * k].reshape(rank, k) + direction[rank * k:]
        if k == 1:
            weighted = p * (1 - p) * change / n
        else:
            weighted = (p * change - p * (p * change).sum(axis=1, keepdims=True)) / n
        return np.concatenate([(rows.T @ weighted + penalty * direction[: rank * k].reshape(rank, k)).ravel(),
                               weighted.sum(axis=0)])

    if np.linalg.norm(objective(x)[1]) <= OPTIMUM_GRADIENT:
        return x
    return optimize.minimize(objective, x, method="trust-ncg", jac=True, hessp=curvature,
                             options={"gtol": OPTIMUM_GRADIENT, "maxiter": MAX_ITER}).x


def _folds(items: Sequence[Item], train: Sequence[Item] | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train rows, test rows) of the documents (``train`` first, if given, then ``items``)."""
    if train is not None:
        return [(np.arange(len(train)), np.arange(len(train), len(train) + len(items)))]
    groups = np.array([i.group or i.id for i in items])
    folds = min(FOLDS, len(set(groups.tolist())))
    return list(GroupKFold(n_splits=folds).split(np.zeros(len(items)), groups=groups))


def probe_table(items: Sequence[Item], train: Sequence[Item] | None = None, probes: Sequence[Probe] = PROBES,
                states: Sequence[str] | None = None, state_tokens: Tokens | None = None) -> dict[str, np.ndarray]:
    """Probe name -> predicted gold positions of ``items``: out-of-fold over contrast groups, or from ``train``.

    Every probe sees the same folds; probes reading the same text share its tokens. ``states`` and
    ``state_tokens``: the rendered states of ``train`` (if given) and ``items`` and their tokens, if at hand."""
    documents = [*(train or ()), *items]
    states = [render_state(i.state) for i in documents] if states is None else states
    gold = np.array([gold_position(i) for i in documents])
    folds = _folds(items, train)
    offset = len(train) if train is not None else 0
    tokens: dict[Callable[[Item, str], str], Tokens] = {} if state_tokens is None else {_state_text: state_tokens}
    for probe in probes:
        if probe.text is not None and probe.text not in tokens:
            tokens[probe.text] = Tokens.of(probe.features(documents, states))  # type: ignore[arg-type]
    table = {}
    for probe in probes:
        predictions = np.zeros(len(items), dtype=int)
        features = probe.features(documents, states) if probe.text is None else None
        term_counts = tokens[probe.text].term_counts(probe.ngram) if probe.text is not None else None
        for train_rows, test_rows in folds:
            y = gold[train_rows]
            if len(set(y.tolist())) < 2:
                predicted = np.full(len(test_rows), y[0])
            elif probe.text is not None:
                x_train, x_test = tfidf_fold(term_counts, train_rows, test_rows)
                classes, scores = lbfgs_logistic_scores(x_train, y, x_test)
                predicted = classes[robust_argmax(scores)]
            else:
                model = probe.model()
                model.fit(features[train_rows], y)  # type: ignore[attr-defined,index]
                scores = model.decision_function(features[test_rows])  # type: ignore[attr-defined,index]
                predicted = np.asarray(model.classes_)[robust_argmax(scores)]  # type: ignore[attr-defined]
            predictions[test_rows - offset] = predicted
        table[probe.name] = predictions
    return table


def probe_predictions(probe: Probe, items: Sequence[Item], train: Sequence[Item] | None = None) -> np.ndarray:
    """Predicted gold positions for ``items``: out-of-fold over contrast groups, or from ``train`` if given."""
    return probe_table(items, train, (probe,))[probe.name]
