"""Scan one part of a training file against the item index: the function every engine runs, worker or not.

A part's blocks are tokenised (:mod:`decisionpivot.overlap.chunks`), their n-gram hashes looked up
in the index, and every match re-checked on the tokens. A stream carries its last ``n - 1`` tokens
from block to block, so n-grams across block boundaries are seen; documents (JSON lines, Parquet
rows) carry nothing and an n-gram across two documents does not count. Within a part, an item is
checked until its first confirmed n-gram (the evidence kept for it), and an n-gram hash whose items
are all flagged is not re-checked again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from decisionpivot.overlap.chunks import TokenizedChunk, tokenize_chunk
from decisionpivot.overlap.hashing import ngram_hashes
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.sources import PARQUET, Block, Part, read_part


@dataclass(frozen=True)
class Evidence:
    """Where an item's first shared n-gram was found."""

    file: str
    """Training file (as reported)."""
    unit: str
    """``byte`` (offset of the n-gram's first token, or of the JSON line) or ``row`` (Parquet row)."""
    position: int
    """Byte offset or row number."""
    ngram: str
    """The shared n-gram, its tokens joined by spaces."""


@dataclass(frozen=True)
class PartResult:
    """What scanning one part found."""

    part: Part
    """The part."""
    hits: dict[str, Evidence]
    """Flagged item id -> its evidence in this part."""
    text_bytes: int
    """Bytes of training input read, decompressed (JSON lines as they are; Parquet: the text column's text)."""
    tokens: int
    """Tokens read."""
    cpu_seconds: float = 0.0
    """CPU time the scan took (its thread only; 0 when read back from a resume state)."""


class _Stream:
    """The last ``n - 1`` tokens of a stream, carried into the next block."""

    def __init__(self) -> None:
        self.hashes = np.zeros(0, dtype=np.uint64)
        self.words: list[str] = []
        self.origins = np.zeros(0, dtype=np.int64)
        self.boundary: int | None = None
        """Where the part ends (the first lookahead block's offset), once reached."""


def scan_part(index: ItemIndex, part: Part, text_column: str = "text",
              progress: Callable[[int], None] | None = None) -> PartResult:
    """Every item sharing an n-gram with this part, with where it was found; ``progress`` gets bytes read."""
    cpu_started = time.thread_time()
    flagged = np.zeros(len(index.item_ids), dtype=bool)
    complete = np.zeros(len(index.hashes), dtype=bool)
    hits: dict[str, Evidence] = {}
    tail = _Stream()
    reported = text_bytes = token_count = 0
    unit = "row" if part.file.format == PARQUET else "byte"
    blocks = read_part(part, text_column)
    try:
        for block in blocks:
            chunk = tokenize_chunk(block.data)
            text_bytes += block.span
            token_count += 0 if block.lookahead else len(chunk.hashes)
            if block.doc_starts is not None:
                _match_documents(index, chunk, block, flagged, complete, hits, part.file.url, unit)
            elif _match_stream(index, chunk, block, tail, part, flagged, complete, hits):
                break
            consumed = min(block.consumed, part.weight)  # reading on past the part's end is not its progress
            if progress is not None and consumed > reported:
                progress(consumed - reported)
                reported = consumed
    finally:
        blocks.close()
    if progress is not None and part.weight > reported:
        progress(part.weight - reported)
    return PartResult(part, dict(sorted(hits.items())), text_bytes, token_count, time.thread_time() - cpu_started)


def _resolve(index: ItemIndex, starts: np.ndarray, groups: np.ndarray, hashes: np.ndarray, word: Callable[[int], str],
             where: Callable[[int], tuple[str, int]], file: str, flagged: np.ndarray, complete: np.ndarray,
             hits: dict[str, Evidence]) -> None:
    """Flag the items that truly contain the n-grams starting at ``starts`` (token indices into ``hashes``)
    whose hashes matched hash ``groups``. In bulk: the first occurrence of each open group is compared with
    every not yet flagged item n-gram of that group token hash by token hash; then, once per newly flagged
    item, its earliest candidate is compared token by token (a collision of token hashes never flags).
    Groups whose items are all flagged are closed and cost nothing more in this part."""
    n = index.n
    window = np.arange(n)
    keep = ~complete[groups]
    starts, groups = starts[keep], groups[keep]
    first_round = True
    while len(starts):
        if first_round:  # one occurrence per group: a repeated n-gram is checked once
            groups_now, first = np.unique(groups, return_index=True)
            starts_now = starts[first]
        else:  # what a collision in the first round left open: every remaining occurrence
            groups_now, starts_now = groups, starts
        which, entries = index.entries(groups_now)
        owners = index.position_items[entries]
        open_ = ~flagged[owners]
        which, entries, owners = which[open_], entries[open_], owners[open_]
        begin = starts_now[which]
        same = (hashes[begin[:, None] + window] == index.token_hashes[index.positions[entries][:, None] + window])
        verified = same.all(axis=1)
        begin, entries, owners = begin[verified], entries[verified], owners[verified]
        order = np.lexsort((begin, owners))
        words_at: dict[int, list[str]] = {}
        for start, entry, owner in zip(begin[order].tolist(), entries[order].tolist(), owners[order].tolist(),
                                       strict=True):
            if flagged[owner]:  # an earlier candidate of this item passed
                continue
            words = words_at.get(start)
            if words is None:
                words = words_at[start] = [word(k) for k in range(start, start + n)]
            if index.exact(words, int(index.positions[entry])):
                flagged[owner] = True
                unit, position = where(start)
                hits[index.item_ids[owner]] = Evidence(file, unit, position, " ".join(words))
        which_all, entries_all = index.entries(groups_now)
        unflagged = ~flagged[index.position_items[entries_all]]
        still_open = np.bincount(which_all, weights=unflagged, minlength=len(groups_now))
        complete[groups_now[still_open == 0]] = True
        if not first_round:
            break
        first_round = False
        remaining = np.ones(len(starts), dtype=bool)
        remaining[first] = False
        starts, groups = starts[remaining], groups[remaining]
        keep = ~complete[groups]
        starts, groups = starts[keep], groups[keep]


def _match_documents(index: ItemIndex, chunk: TokenizedChunk, block: Block, flagged: np.ndarray,
                     complete: np.ndarray, hits: dict[str, Evidence], file: str, unit: str) -> None:
    candidates, groups = index.lookup(ngram_hashes(chunk.hashes, index.n))
    if not len(candidates):
        return
    assert block.doc_starts is not None and block.doc_origins is not None
    first_doc = np.searchsorted(block.doc_starts, chunk.offsets(candidates), side="right") - 1
    last_doc = np.searchsorted(block.doc_starts, chunk.offsets(candidates + index.n - 1), side="right") - 1
    inside = first_doc == last_doc  # an n-gram across two documents does not count
    starts, origins = block.doc_starts, block.doc_origins

    def where(start: int) -> tuple[str, int]:
        document = int(np.searchsorted(starts, chunk.offsets(np.array([start]))[0], side="right")) - 1
        return unit, int(origins[document])

    _resolve(index, candidates[inside], groups[inside], chunk.hashes, chunk.word, where, file, flagged, complete,
             hits)


def _match_stream(index: ItemIndex, chunk: TokenizedChunk, block: Block, tail: _Stream, part: Part,
                  flagged: np.ndarray, complete: np.ndarray, hits: dict[str, Evidence]) -> bool:
    """Match one block of a stream (after the carried tokens); True when the part needs no more lookahead."""
    n = index.n
    carried = len(tail.hashes)
    hashes = np.concatenate((tail.hashes, chunk.hashes)) if carried else chunk.hashes
    ngrams = ngram_hashes(hashes, n)
    owned, owned_tokens = len(ngrams), 0
    if block.lookahead:  # only n-grams that start inside the part: at one of the carried tokens before its end
        if tail.boundary is None:
            tail.boundary = block.origin
        owned_tokens = int(np.count_nonzero(tail.origins < tail.boundary))
        owned = min(owned, owned_tokens)
    candidates, groups = index.lookup(ngrams[:owned])

    def word(k: int) -> str:
        return tail.words[k] if k < carried else chunk.word(k - carried)

    def origin(k: int) -> int:
        return int(tail.origins[k]) if k < carried else block.origin + chunk.segment_start(k - carried)

    if len(candidates):
        _resolve(index, candidates, groups, hashes, word, lambda s: ("byte", origin(s)), part.file.url, flagged,
                 complete, hits)
    if block.lookahead and len(hashes) >= owned_tokens + n - 1:
        return True
    keep = min(n - 1, len(hashes))
    kept = range(len(hashes) - keep, len(hashes))
    tail.words = [word(k) for k in kept]
    tail.origins = np.array([origin(k) for k in kept], dtype=np.int64)
    tail.hashes = hashes[len(hashes) - keep :].copy()
    return False
