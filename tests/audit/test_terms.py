"""One tokenisation, the matrices scikit-learn's vectorisers make: counts, n-gram order and hashed rows."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

from decisionpivot.audit.terms import WORD, Tokens, hashed_rows
from decisionpivot.generate.run import draw_family
from decisionpivot.items import render_state

TRICKY = [
    "Ledger A: INV-1014.txt, line_id >= 2.0; a b c a b c.",
    "",  # no tokens at all
    "Ünïcode Straße, café, naïve; 東京 and ۱۲۳ digits; ab abc ab, abc!",
    "x",  # one single-letter token
    "the the the\nthe",
    "a b",
    "   \t  ",
    "Zebra zebra ZEBRA apple Apple",
]


@cache
def _documents(name: str) -> list[str]:
    """The tricky texts, or the states of a family's first 120 items of a draw: drawn when a test needs them, not
    at collection (which every worker repeats)."""
    if name == "tricky":
        return TRICKY
    return [render_state(item.state) for item in draw_family(name, 20261007).items[:120]]


@pytest.mark.parametrize("name", ["tricky", "policy_case"])
@pytest.mark.parametrize("ngram", [(1, 1), (2, 2), (3, 3), (1, 2), (1, 3)])
def test_counts_are_count_vectorizers(name: str, ngram: tuple[int, int]) -> None:
    documents = _documents(name)
    reference = CountVectorizer(ngram_range=ngram, lowercase=True, token_pattern=WORD.pattern)
    expected = reference.fit_transform(documents)
    tokens = Tokens.of(documents)
    counts = tokens.term_counts(ngram)
    assert counts.shape == expected.shape and counts.dtype == expected.dtype == np.int64
    assert (counts != expected).nnz == 0
    if ngram[0] == ngram[1]:
        _, first = tokens.counts(ngram[0])
        assert tokens.spell(first, ngram[0]) == list(reference.get_feature_names_out())


@pytest.mark.parametrize("name", ["tricky", "booking_check"])
def test_hashed_rows_are_hashing_vectorizers(name: str) -> None:
    documents = _documents(name)
    expected = HashingVectorizer(n_features=2**18, ngram_range=(1, 2), alternate_sign=False,
                                 norm="l2").transform(documents)
    expected.sort_indices()
    found = hashed_rows(Tokens.of(documents).longer_than(1), 2**18)
    assert np.array_equal(found.indptr, expected.indptr) and np.array_equal(found.indices, expected.indices)
    assert np.array_equal(found.data, expected.data)  # bit for bit: the same sums in the same order


def test_longer_than_keeps_document_boundaries_and_tail_keeps_the_last_documents() -> None:
    tokens = Tokens.of(["a bb c dd", "e", "ff g hh"])
    long = tokens.longer_than(1)
    assert long.words == ("bb", "dd", "ff", "hh")
    assert [long.words[i] for i in long.ids] == ["bb", "dd", "ff", "hh"] and long.starts.tolist() == [0, 2, 2, 4]
    _, first = long.counts(2)
    assert long.spell(first, 2) == ["bb dd", "ff hh"]  # no bigram across the empty second document
    tail = tokens.tail(1)
    assert tail.documents == 2 and [tail.words[i] for i in tail.ids] == ["e", "ff", "g", "hh"]
    expected = CountVectorizer(token_pattern=WORD.pattern).fit_transform(["e", "ff g hh"])
    assert (tail.term_counts((1, 1)) != expected).nnz == 0
