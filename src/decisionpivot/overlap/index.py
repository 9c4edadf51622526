"""The n-grams of the reference items: a bit filter, the sorted hashes and the tokens for the exact re-check.

This is the object a cluster broadcasts to its workers once. A training stream's n-gram hashes are
looked up in three steps: a bit filter of about 64 bits per distinct n-gram (one memory access per
n-gram, almost all of them misses), a binary search of the few survivors among the sorted hashes,
and, for every hash that matches, a comparison of the training tokens with each item n-gram of that
hash, token by token (:meth:`ItemIndex.confirm`): a hash collision never flags an item.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item
from decisionpivot.overlap.hashing import ngram_hashes, string_hashes
from decisionpivot.overlap.normalise import DEFAULT_N, NORMALISATION, item_text, tokens

FILTER_BITS_PER_NGRAM = 64
"""Bit-filter size per distinct item n-gram: about 1.6% of training n-grams reach the binary search."""
MIN_FILTER_BITS, MAX_FILTER_BITS = 16, 32
"""Bit-filter size limits (as powers of two): 8 KiB to 512 MiB."""


class ItemIndex:
    """Every n-gram of a set of reference items, ready for lookups (picklable: it is what workers receive)."""

    def __init__(self, items: Iterable[Item], n: int = DEFAULT_N) -> None:
        if n < 1:
            raise DecisionPivotError(f"--n must be positive, got {n}")
        self.n = n
        self.item_ids: list[str] = []
        self.vocab: dict[str, int] = {}
        digest = hashlib.sha256(f"{NORMALISATION}\n{n}\n".encode())
        ids, token_hashes, hashes, starts = [], [], [], [0]
        for item in items:
            words = tokens(item_text(item))
            digest.update(f"{item.id}\0{' '.join(words)}\n".encode("utf-8", "surrogatepass"))
            vocab = self.vocab
            ids.append(np.fromiter((vocab.setdefault(w, len(vocab)) for w in words), dtype=np.int32, count=len(words)))
            token_hashes.append(string_hashes(words))
            hashes.append(ngram_hashes(token_hashes[-1], n))
            starts.append(starts[-1] + len(words))
            self.item_ids.append(item.id)
        self.digest = digest.hexdigest()
        """SHA-256 of the normalisation, n and every item's id and tokens: what a resume state must match."""
        self.token_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32)
        """Vocabulary id of every item token, items one after the other."""
        self.item_starts = np.array(starts, dtype=np.int64)
        """Where each item's tokens start in ``token_ids`` (one more entry: the end)."""
        self.token_hashes = np.concatenate(token_hashes) if token_hashes else np.zeros(0, dtype=np.uint64)
        """The hash of every item token (as ``token_ids``): the first, vectorised, check of a hit."""
        all_hashes = np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.uint64)
        positions = np.concatenate([self.item_starts[i] + np.arange(len(h)) for i, h in enumerate(hashes)]
                                   ) if hashes else np.zeros(0, dtype=np.int64)
        order = np.argsort(all_hashes, kind="stable")
        sorted_hashes = all_hashes[order]
        offsets = np.int32 if len(self.token_ids) < 2**31 else np.int64
        self.positions = positions[order].astype(offsets)
        """Start (in ``token_ids``) of every item n-gram, grouped by hash."""
        self.position_items = (np.searchsorted(self.item_starts, self.positions, side="right") - 1).astype(np.int32)
        """The item (index into ``item_ids``) each entry of ``positions`` belongs to."""
        self.hashes, first = np.unique(sorted_hashes, return_index=True)
        """The distinct n-gram hashes, sorted."""
        self.group_starts = np.append(first, len(sorted_hashes)).astype(offsets)
        """Where each distinct hash's n-grams start in ``positions`` (one more entry: the end)."""
        directory_bits = max(1, len(self.hashes).bit_length())
        self.directory_shift = np.uint64(64 - directory_bits)
        """A hash's directory bucket is its top ``64 - directory_shift`` bits."""
        self.directory = np.searchsorted(self.hashes >> self.directory_shift,
                                         np.arange((1 << directory_bits) + 1, dtype=np.uint64)).astype(offsets)
        """Where each bucket of hashes starts in ``hashes`` (one more entry: the end): about one hash a bucket."""
        bits = min(MAX_FILTER_BITS, max(MIN_FILTER_BITS, (FILTER_BITS_PER_NGRAM * len(self.hashes)).bit_length()))
        self.filter_shift = np.uint64(64 - bits)
        """A hash's filter bit is its top ``64 - filter_shift`` bits."""
        self.filter = np.zeros(1 << (bits - 3), dtype=np.uint8)
        """The bit filter: bit ``h >> filter_shift`` is set for every item n-gram hash ``h``."""
        slots = self.hashes >> self.filter_shift
        np.bitwise_or.at(self.filter, (slots >> np.uint64(3)).astype(np.int64),
                         (np.uint8(1) << (slots & np.uint64(7)).astype(np.uint8)))

    def lookup(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(index into ``hashes``, hash group) of every training n-gram hash that some item n-gram has."""
        if not len(hashes) or not len(self.hashes):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        slots = hashes >> self.filter_shift
        bits = self.filter[slots >> np.uint64(3)] >> (slots & np.uint64(7)).astype(np.uint8)
        survivors = np.flatnonzero(bits & np.uint8(1))
        if not len(survivors):
            return survivors, survivors
        wanted = hashes[survivors]
        bucket = (wanted >> self.directory_shift).astype(np.int64)
        at, end = self.directory[bucket].astype(np.int64), self.directory[bucket + 1].astype(np.int64)
        groups = np.full(len(wanted), -1, dtype=np.int64)
        open_ = np.flatnonzero(at < end)
        while len(open_):  # a few rounds: buckets hold about one hash each
            probe = at[open_]
            equal = self.hashes[probe] == wanted[open_]
            groups[open_[equal]] = probe[equal]
            at[open_] += 1
            open_ = open_[~equal & (at[open_] < end[open_])]
        found = groups >= 0
        return survivors[found], groups[found]

    def entries(self, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(which of ``groups``, entry of ``positions``) for every item n-gram of the given hash groups."""
        first = self.group_starts[groups].astype(np.int64)
        counts = self.group_starts[groups + 1] - first
        which = np.repeat(np.arange(len(groups)), counts)
        return which, np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))

    def exact(self, words: Sequence[str], position: int) -> bool:
        """Whether the item n-gram starting at ``position`` (in ``token_ids``) is exactly ``words``."""
        vocab = self.vocab
        ids = [vocab.get(w, -1) for w in words]
        return ids == self.token_ids[position : position + self.n].tolist()
