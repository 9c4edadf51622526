"""Words and n-grams of a family's texts, found once and counted for every probe and for the hygiene check.

scikit-learn's vectorisers read a document again for every vectoriser, fold and fit, in a Python loop per
token; the audit used to tokenise each state about fifty times. Here a family's documents are tokenised
once (:meth:`Tokens.of`), and n-grams are counted with array operations on token ids. The results are
the very matrices scikit-learn makes, checked in tests/audit/test_terms.py:

* :meth:`Tokens.counts` is ``CountVectorizer(lowercase=True, token_pattern=WORD.pattern,
  ngram_range=(n, n)).fit_transform(documents)``: int64 counts, terms in alphabetical order;
* :func:`hashed_rows` is ``HashingVectorizer(n_features, ngram_range=(1, 2), alternate_sign=False,
  norm="l2").transform(documents)``, whose default tokens are the words of two or more characters
  (``Tokens.longer_than(1)``).

Alphabetical order of n-grams is the order of their words' ids: word ids are ranks in the sorted
vocabulary, and ``"w1 w2"`` sorts as the pair ``(w1, w2)`` because a word character sorts after a space.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import normalize
from sklearn.utils import murmurhash3_32

WORD = re.compile(r"(?u)\b\w+\b")
"""A token: a run of word characters, single letters included (of the lower-cased document)."""


@dataclass(frozen=True)
class Tokens:
    """The tokens of some documents, as word ids, one document after another."""

    words: tuple[str, ...]
    """The distinct words, sorted (code point order, as Python sorts strings)."""
    ids: np.ndarray
    """Index into ``words`` of every token (int64)."""
    starts: np.ndarray
    """(documents + 1,) offsets: the tokens of document d are ``ids[starts[d]:starts[d + 1]]``."""

    @classmethod
    def of(cls, documents: Sequence[str]) -> Tokens:
        index: dict[str, int] = {}
        ids: list[int] = []
        starts = [0]
        for document in documents:
            ids.extend([index.setdefault(token, len(index)) for token in WORD.findall(document.lower())])
            starts.append(len(ids))
        words = sorted(index)
        rank = np.empty(len(words), dtype=np.int64)
        rank[[index[w] for w in words]] = np.arange(len(words))
        return cls(tuple(words), rank[np.array(ids, dtype=np.int64)], np.array(starts, dtype=np.int64))

    @property
    def documents(self) -> int:
        return len(self.starts) - 1

    def longer_than(self, characters: int) -> Tokens:
        """Only the tokens of more than ``characters`` characters (``\\b\\w\\w+\\b`` for 1)."""
        keep_word = np.array([len(w) > characters for w in self.words], dtype=bool)
        new_id = np.cumsum(keep_word) - 1
        keep = keep_word[self.ids] if len(self.ids) else np.zeros(0, dtype=bool)
        kept_before = np.concatenate([[0], np.cumsum(keep)])
        words = tuple(w for w, k in zip(self.words, keep_word, strict=True) if k)
        return Tokens(words, new_id[self.ids[keep]], kept_before[self.starts])

    def _ngrams(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(document, n-gram rank) of every n-gram occurrence, ranks in alphabetical order; and the positions."""
        document = np.repeat(np.arange(self.documents), np.diff(self.starts))
        last = max(len(self.ids) - n + 1, 0)
        position = np.flatnonzero(document[:last] == document[n - 1:n - 1 + last])  # all n tokens in one document
        rank = self.ids[position]
        for offset in range(1, n):  # (rank of the first k words, next word) -> rank of the first k + 1
            _, rank = np.unique(rank * len(self.words) + self.ids[position + offset], return_inverse=True)
        return np.stack([document[position], rank.astype(np.int64).ravel()]), position

    def counts(self, n: int) -> tuple[sp.csr_matrix, np.ndarray]:
        """(documents, distinct n-grams) occurrence counts, n-grams in alphabetical order; and where each n-gram
        first occurs (a position in ``ids``, for :meth:`spell`)."""
        (document, rank), position = self._ngrams(n)
        distinct, first, column = np.unique(rank, return_index=True, return_inverse=True)  # only n-grams that occur
        counts = sp.csr_matrix((np.ones(len(rank), dtype=np.int64), (document, column.ravel())),
                               shape=(self.documents, len(distinct)))
        counts.sum_duplicates()
        return counts, position[first]

    def term_counts(self, ngram: tuple[int, int]) -> sp.csr_matrix:
        """Counts of the n-grams of every order in the ``ngram`` range, all in one alphabetical order
        (``CountVectorizer(ngram_range=ngram)``)."""
        low, high = ngram
        if low == high:
            return self.counts(low)[0]
        blocks, terms = [], []
        for n in range(low, high + 1):
            counts, first = self.counts(n)
            blocks.append(counts)
            terms += self.spell(first, n)
        return sp.hstack(blocks, format="csr")[:, np.argsort(np.array(terms, dtype=object), kind="stable")]

    def tail(self, start: int) -> Tokens:
        """The tokens of documents ``start`` onwards (the same words)."""
        return Tokens(self.words, self.ids[self.starts[start]:], self.starts[start:] - self.starts[start])

    def spell(self, positions: np.ndarray, n: int) -> list[str]:
        """The n-grams that start at ``positions``, as text (words joined by a space)."""
        return [" ".join(self.words[i] for i in self.ids[p:p + n]) for p in positions.tolist()]


def _bucket(term: str, buckets: int) -> int:
    """The column ``FeatureHasher`` gives ``term``: |signed murmurhash3| modulo ``buckets``."""
    h = murmurhash3_32(term, seed=0, positive=False)
    return (2147483647 - (buckets - 1)) % buckets if h == -2147483648 else abs(h) % buckets


def hashed_rows(tokens: Tokens, buckets: int) -> sp.csr_matrix:
    """Unit-length rows of the hashed counts of every word and bigram of ``tokens``."""
    rows, columns, values = [], [], []
    for n in (1, 2):
        counts, first = tokens.counts(n)
        bucket = np.array([_bucket(term, buckets) for term in tokens.spell(first, n)], dtype=np.int64)
        coo = counts.tocoo()
        rows.append(coo.row)
        columns.append(bucket[coo.col])
        values.append(coo.data.astype(float))
    hashed = sp.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
                           shape=(tokens.documents, buckets))
    hashed.sum_duplicates()
    return normalize(hashed, norm="l2", copy=False)
