"""Two slower scans kept as oracles: the v0.1 implementation of `dp overlap`, and a plain Python scan.

``legacy_*`` is release/overlap.py as it shipped before this package (hashed n-grams as a dot
product of token ids, one process, text / JSON Lines / gzip), kept verbatim: the tests check that
the new scanner flags exactly its items on the benchmark's own data, and
``benchmarks/overlap_speed.py`` times it. It cut plain text into blocks of about 1 MB of lines,
kept only the last line's final 2,000 characters across a block boundary, and lower-cased each
block on its own; the new scanner reads a text file as one token stream, so the two can differ
only for an n-gram that spans such a boundary.

:func:`plain_flag_overlap` is the definition written out in plain Python -- tuples of 13 tokens in
a dict, every format read the straightforward way -- used as the exact oracle for all input
formats and as the "plain pure-Python scan" of the benchmark.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, render_state, string_values
from decisionpivot.overlap.normalise import DEFAULT_N, item_text, tokens
from decisionpivot.overlap.sources import JSONL, PARQUET, detect_format

TOKEN = re.compile(r"\w+")
CHUNK_BYTES = 1 << 20


class LegacyNgramIndex:
    """Hashed n-grams of the reference items, and the lookup of training text against them."""

    def __init__(self, n: int = DEFAULT_N) -> None:
        if n < 1:
            raise DecisionPivotError(f"--n must be positive, got {n}")
        self.n = n
        self.vocab: dict[str, int] = {}
        self.weights = np.random.default_rng(20261007).integers(1, 2**63, size=n, dtype=np.uint64) | np.uint64(1)
        self.hashes = np.zeros(0, dtype=np.uint64)
        """Sorted n-gram hashes of the reference items (with repeats, one per owner)."""
        self.owners = np.zeros(0, dtype=np.int64)
        """Index into ``item_ids`` of the item owning each entry of ``hashes``."""
        self.item_ids: list[str] = []

    def ids(self, text: str) -> np.ndarray:
        """Token ids of a text; each distinct token is looked up once per call."""
        tokens = TOKEN.findall(text.lower())
        if not tokens:
            return np.zeros(0, dtype=np.uint64)
        distinct, inverse = np.unique(np.array(tokens), return_inverse=True)
        vocab = self.vocab
        table = np.fromiter((vocab.setdefault(t, len(vocab) + 1) for t in distinct.tolist()), dtype=np.uint64,
                            count=len(distinct))
        return table[inverse]

    def ngram_hashes(self, ids: np.ndarray) -> np.ndarray:
        if len(ids) < self.n:
            return np.zeros(0, dtype=np.uint64)
        windows = sliding_window_view(ids, self.n)
        with np.errstate(over="ignore"):
            return (windows * self.weights).sum(axis=1, dtype=np.uint64)

    def add_items(self, items: Iterable[Item]) -> None:
        hashes, owners = [self.hashes], [self.owners]
        for item in items:
            text = " ".join([render_state(item.state), item.question, *(o.meaning for o in item.options)])
            item_hashes = self.ngram_hashes(self.ids(text))
            hashes.append(item_hashes)
            owners.append(np.full(len(item_hashes), len(self.item_ids), dtype=np.int64))
            self.item_ids.append(item.id)
        all_hashes, all_owners = np.concatenate(hashes), np.concatenate(owners)
        order = np.argsort(all_hashes, kind="stable")
        self.hashes, self.owners = all_hashes[order], all_owners[order]

    def matches(self, text_ids: np.ndarray) -> set[str]:
        hashes = self.ngram_hashes(text_ids)
        if not len(hashes) or not len(self.hashes):
            return set()
        at = np.minimum(np.searchsorted(self.hashes, hashes), len(self.hashes) - 1)
        hits = np.unique(hashes[self.hashes[at] == hashes])
        found: set[str] = set()
        for h in hits:
            lo, hi = np.searchsorted(self.hashes, h, side="left"), np.searchsorted(self.hashes, h, side="right")
            found.update(self.item_ids[i] for i in self.owners[lo:hi].tolist())
        return found


def _legacy_open_text(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as handle:  # type: ignore[operator]
            yield from handle
    except OSError as exc:
        raise DecisionPivotError(f"{path}: cannot read training file ({exc})") from None


def legacy_training_documents(path: Path) -> Iterator[str]:
    """Text of a training file in chunks: JSON Lines records' string values, or plain-text blocks."""
    is_jsonl = ".jsonl" in path.suffixes or ".json" in path.suffixes
    buffer: list[str] = []
    size = 0
    for number, line in enumerate(_legacy_open_text(path), start=1):
        if is_jsonl:
            if not line.strip():
                continue
            try:
                yield " ".join(string_values(json.loads(line)))
            except json.JSONDecodeError:
                raise DecisionPivotError(f"{path}:{number}: not valid JSON") from None
            continue
        buffer.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield "".join(buffer)
            # keep the tail so n-grams spanning the chunk boundary are still seen
            tail = buffer[-1][-2000:]
            buffer, size = [tail], len(tail)
    if buffer:
        yield "".join(buffer)


def legacy_flag_overlap(items_by_task: dict[str, Sequence[Item]], training: Sequence[Path],
                        n: int = DEFAULT_N) -> set[str]:
    """Ids of reference items sharing at least one n-gram with the training files."""
    index = LegacyNgramIndex(n)
    for items in items_by_task.values():
        index.add_items(items)
    flagged: set[str] = set()
    for path in training:
        if not path.is_file():
            raise DecisionPivotError(f"{path}: no such training file")
        for document in legacy_training_documents(path):
            flagged |= index.matches(index.ids(document))
    return flagged


def _plain_open(path: Path, compression: str) -> BinaryIO:
    if compression == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(path.open("rb"), read_across_frames=True)  # type: ignore[return-value]
    return gzip.open(path, "rb") if compression == "gzip" else path.open("rb")  # type: ignore[return-value]


def _plain_documents(path: Path, text_column: str) -> Iterator[tuple[bool, str]]:
    """(starts a new document, text) pieces of a training file, read the straightforward way."""
    fmt, compression = detect_format(path.name)
    if fmt == PARQUET:
        import pyarrow.parquet as pq

        for value in pq.read_table(path, columns=[text_column]).column(0).to_pylist():
            if value is not None:
                yield True, value
        return
    with _plain_open(path, compression) as raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace",
                                                                  newline="\n") as handle:
        for line in handle:
            if fmt == JSONL:
                if line.strip():
                    yield True, " ".join(string_values(json.loads(line)))
            else:
                yield False, line  # a stream: n-grams run across lines


def plain_index(items: Iterable[Item], n: int = DEFAULT_N) -> dict[tuple[str, ...], set[str]]:
    """Every n-gram of the items (a tuple of tokens) -> the ids of the items that have it."""
    owners: dict[tuple[str, ...], set[str]] = {}
    for item in items:
        words = tokens(item_text(item))
        for i in range(len(words) - n + 1):
            owners.setdefault(tuple(words[i : i + n]), set()).add(item.id)
    return owners


def plain_flag_overlap(items: Iterable[Item], training: Sequence[Path], n: int = DEFAULT_N,
                       text_column: str = "text") -> set[str]:
    """Ids of items sharing an n-gram with the training files: tuples of tokens in a dict, plain Python."""
    return plain_scan(plain_index(items, n), training, n, text_column)


def plain_scan(owners: dict[tuple[str, ...], set[str]], training: Sequence[Path], n: int = DEFAULT_N,
               text_column: str = "text") -> set[str]:
    """Ids of the items of a :func:`plain_index` that share an n-gram with the training files."""
    flagged: set[str] = set()
    for path in training:
        window: list[str] = []
        for new_document, text in _plain_documents(Path(path), text_column):
            window = tokens(text) if new_document else window[max(0, len(window) - n + 1) :] + tokens(text)
            for i in range(len(window) - n + 1):
                found = owners.get(tuple(window[i : i + n]))
                if found:
                    flagged |= found
    return flagged
