"""Content-blind probes: can an item's answer be predicted without reading the decisive fact?

Each probe turns an item into features that carry no decisive content (its options, its question
wording, the length or line count of its state, the bag of words or bigrams of its state) and a
logistic regression is trained and tested with ``GroupKFold`` so that whole contrast groups stay on
one side. The target is the gold option's position, which is the answer class for yes/no families
and stays meaningful when option keys differ from item to item (ticket ids, ledger entries).

The reported figures must be the same bytes on every host, whatever BLAS kernel and thread count the
solver's arithmetic runs on (different CPUs pick different kernels, which sum in another order). The
fits are deterministic but their last bits are not portable, and a near-chance probe often has classes
whose scores are *mathematically* equal: policy_case puts one case per outcome in each policy, so every
line count is seen with each outcome equally often, and the three class scores differ only by rounding
noise (~1e-17), which used to pick the predicted class. A prediction is therefore the argmax of the
decision scores rounded to ``DECIMALS`` places, ties going to the earliest gold position: noise of
1e-16 to 1e-8 (measured between kernels and thread counts) cannot move a rounded score except at a
rounding boundary, and an exact tie stays a tie.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from decisionpivot.items import Item, render_state

FOLDS = 5
DECIMALS = 6
"""Decision scores are rounded to this many decimal places before the argmax (see the module docstring)."""


def gold_position(item: Item) -> int:
    return item.option_keys.index(item.answer or "")


def _options_text(item: Item) -> str:
    return " | ".join(f"{o.key} {o.meaning}" for o in item.options) + f" n{len(item.options)}"


def _state_text(item: Item) -> str:
    return render_state(item.state)


def _length(item: Item) -> list[float]:
    return [float(np.log1p(len(render_state(item.state))))]


def _lines(item: Item) -> list[float]:
    return [float(render_state(item.state).count("\n") + 1)]


@dataclass(frozen=True)
class Probe:
    """A content-blind feature set and how to model it."""

    name: str
    """Probe name in reports (``bag_of_words``)."""
    text: Callable[[Item], str] | None = None
    """Text features (bag of n-grams) - or None for numeric features."""
    numeric: Callable[[Item], list[float]] | None = None
    """Numeric features."""
    ngram: tuple[int, int] = (1, 1)
    """n-gram range for text features."""

    def model(self) -> object:
        if self.text is not None:
            # tf-idf rows are l2-normalised, which keeps lbfgs fast; C=10 lets a real cue show
            return make_pipeline(
                TfidfVectorizer(ngram_range=self.ngram, min_df=2, max_features=50000, lowercase=True,
                                token_pattern=r"(?u)\b\w+\b", sublinear_tf=True),
                LogisticRegression(C=10.0, max_iter=2000),
            )
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))

    def features(self, items: Sequence[Item]) -> object:
        if self.text is not None:
            return [self.text(item) for item in items]
        assert self.numeric is not None
        return np.array([self.numeric(item) for item in items])


PROBES: tuple[Probe, ...] = (
    Probe("options_only", text=_options_text),
    Probe("question_only", text=lambda item: item.question),
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


def _fit_predict(probe: Probe, train: Sequence[Item], test: Sequence[Item]) -> np.ndarray:
    y = np.array([gold_position(i) for i in train])
    if len(set(y.tolist())) < 2:
        return np.full(len(test), y[0])
    model = probe.model()
    model.fit(probe.features(train), y)  # type: ignore[attr-defined]
    scores = model.decision_function(probe.features(test))  # type: ignore[attr-defined]
    return np.asarray(model.classes_)[robust_argmax(scores)]  # type: ignore[attr-defined]


def probe_predictions(probe: Probe, items: Sequence[Item], train: Sequence[Item] | None = None) -> np.ndarray:
    """Predicted gold positions for ``items``: out-of-fold over contrast groups, or from ``train`` if given."""
    if train is not None:
        return _fit_predict(probe, train, items)
    groups = np.array([i.group or i.id for i in items])
    predictions = np.zeros(len(items), dtype=int)
    folds = min(FOLDS, len(set(groups.tolist())))
    for train_idx, test_idx in GroupKFold(n_splits=folds).split(np.zeros(len(items)), groups=groups):
        predictions[test_idx] = _fit_predict(probe, [items[i] for i in train_idx], [items[i] for i in test_idx])
    return predictions
