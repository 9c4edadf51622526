"""Tokens of a chunk of UTF-8 training text, found on the bytes with numpy, exactly as :func:`tokens` finds them.

:func:`decisionpivot.overlap.normalise.tokens` lower-cases a text and takes its ``\\w+`` runs. Done
in Python that is the slow part of a scan (about 40 MB/s for the regular expression alone). Here a
chunk is cut into *runs*: maximal byte sequences without an ASCII separator (an ASCII byte that is
not a letter, digit or ``_``). A run of ASCII word bytes only is exactly one token, lower-cased by
a byte table and hashed in bulk (:func:`decisionpivot.overlap.hashing.token_hashes`). A run with a
non-ASCII byte (``café``, ``“quoted”``, ``Kelvin`` with the Kelvin sign) is decoded, lower-cased and
tokenised by :func:`tokens` itself, all such runs of a chunk in one call. Both give the same tokens
as :func:`tokens` on the whole text because an ASCII separator is ``\\W`` before and after
lower-casing, so no token crosses it, and ``str.lower`` maps each character on its own -- except
the capital sigma, lower-cased to ``ς`` or ``σ`` depending on its neighbours, through a few
case-ignorable characters, four of them ASCII (``' . : ^ ```). A chunk containing a capital sigma is
therefore cut only at the other separators (:data:`SAFE`), and runs holding one of those five
ASCII characters go the Python way too. Chunks themselves always start and end next to a
:data:`SAFE` byte (:func:`safe_cut`), so tokenising chunk by chunk equals tokenising the stream.
Undecodable bytes become U+FFFD (``errors="replace"``), a separator, as they did before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from decisionpivot.overlap.hashing import PAD, string_hashes, token_hashes
from decisionpivot.overlap.normalise import TOKEN

_WORD = np.zeros(256, dtype=bool)
_WORD[list(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] = True
CASE_IGNORABLE_ASCII = b"'.:^`"
"""ASCII characters that Unicode calls case-ignorable: the final-sigma rule of str.lower looks through them."""
_IGNORABLE = np.zeros(256, dtype=bool)
_IGNORABLE[list(CASE_IGNORABLE_ASCII)] = True
_HIGH = np.arange(256) >= 128
RUN_BYTES = _WORD | _HIGH
"""Bytes that runs are made of (a chunk without a capital sigma)."""
RUN_BYTES_SIGMA = _WORD | _HIGH | _IGNORABLE
"""Bytes that runs are made of in a chunk with a capital sigma."""
SLOW_BYTES_SIGMA = _HIGH | _IGNORABLE
"""Bytes that send a run to Python in a chunk with a capital sigma."""
SAFE = ~RUN_BYTES_SIGMA
"""Separators no token and no case mapping crosses: chunks are cut right after one of them."""
CAPITAL_SIGMA = "Σ".encode()


def safe_cut(data: bytes | bytearray | memoryview, search_from: int = 0) -> int:
    """The end of the last :data:`SAFE` byte at or after ``search_from`` (0 if there is none): a
    chunk may end there without changing any token."""
    buf = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 16
    end = len(buf)
    while end > search_from:
        start = max(search_from, end - step)
        found = np.flatnonzero(SAFE[buf[start:end]])
        if len(found):
            return start + int(found[-1]) + 1
        end, step = start, step * 4
    return 0


def first_safe(data: bytes | bytearray | memoryview) -> int:
    """The index of the first :data:`SAFE` byte (-1 if there is none): a part of a file starts right after it."""
    found = np.flatnonzero(SAFE[np.frombuffer(data, dtype=np.uint8)])
    return int(found[0]) if len(found) else -1


@dataclass(frozen=True)
class TokenizedChunk:
    """The tokens of one chunk: their hashes in order, and what is needed to read a few of them back."""

    hashes: np.ndarray
    """uint64 hash of every token, in text order."""
    lowered: np.ndarray
    """The chunk's bytes with ASCII letters lower-cased, followed by PAD zero bytes."""
    run_starts: np.ndarray
    """Byte offset where each run starts."""
    run_ends: np.ndarray
    """Byte offset where each run ends."""
    run_first: np.ndarray | None
    """Index of each run's first token (None: every run is one token, run i = token i)."""
    slow_words: dict[int, list[str]]
    """Tokens of each run that went through Python, by run index."""

    def runs_of(self, tokens: np.ndarray) -> np.ndarray:
        """The run each of the given token indices belongs to."""
        if self.run_first is None:
            return tokens
        return np.searchsorted(self.run_first, tokens, side="right") - 1

    def offsets(self, tokens: np.ndarray) -> np.ndarray:
        """Byte offset (in the chunk) of the run each of the given tokens belongs to."""
        return self.run_starts[self.runs_of(tokens)]

    def segment_start(self, token: int) -> int:
        """Byte offset (in the chunk) of the SAFE-separated segment the token starts in: where a report
        says the token is (the same whichever way the chunk was cut into runs)."""
        start = int(self.offsets(np.array([token]))[0])
        found = np.flatnonzero(SAFE[self.lowered[max(0, start - 256) : start]])
        while not len(found) and start > 256:
            start -= 256
            found = np.flatnonzero(SAFE[self.lowered[max(0, start - 256) : start]])
        return max(0, start - 256) + int(found[-1]) + 1 if len(found) else 0

    def word(self, token: int) -> str:
        """The token itself (lower-cased text)."""
        run = int(self.runs_of(np.array([token]))[0])
        slow = self.slow_words.get(run)
        if slow is not None:
            assert self.run_first is not None
            return slow[token - int(self.run_first[run])]
        return self.lowered[self.run_starts[run] : self.run_ends[run]].tobytes().decode("ascii")


def tokenize_chunk(data: bytes) -> TokenizedChunk:
    """Tokens of ``data``, a chunk that starts and ends next to a :data:`SAFE` byte (or at the stream's ends)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    lowered = np.zeros(len(buf) + PAD, dtype=np.uint8)
    if not len(buf):
        empty = np.zeros(0, dtype=np.int64)
        return TokenizedChunk(np.zeros(0, dtype=np.uint64), lowered, empty, empty, None, {})
    high = np.flatnonzero(buf >= 128)
    lead = high[:-1][buf[high[:-1]] == CAPITAL_SIGMA[0]] if len(high) else high
    sigma = bool(len(lead)) and bool((buf[lead + 1] == CAPITAL_SIGMA[1]).any())
    if sigma:
        is_run = RUN_BYTES_SIGMA[buf]
    else:  # the same as RUN_BYTES[buf], in a quarter of the time: letters, digits, "_", bytes >= 128
        is_run = (buf | np.uint8(0x20)) - np.uint8(97) < 26
        is_run |= buf - np.uint8(48) < 10
        is_run |= buf == 95
        is_run |= buf >= 128
    edges = np.flatnonzero(is_run[1:] != is_run[:-1]) + 1
    if is_run[0]:
        edges = np.concatenate(([0], edges))
    if is_run[-1]:
        edges = np.concatenate((edges, [len(buf)]))
    run_starts, run_ends = edges[0::2], edges[1::2]
    upper = (buf - np.uint8(65) < 26).view(np.uint8)
    np.bitwise_or(buf, upper << np.uint8(5), out=lowered[: len(buf)])  # ASCII letters lower-cased
    marks = np.flatnonzero(SLOW_BYTES_SIGMA[buf]) if sigma else high
    if not len(marks):
        return TokenizedChunk(token_hashes(lowered, run_starts, run_ends - run_starts), lowered, run_starts, run_ends,
                              None, {})
    slow = np.unique(np.searchsorted(run_starts, marks, side="right") - 1)
    fast = np.ones(len(run_starts), dtype=bool)
    fast[slow] = False
    slow_list = slow.tolist()
    joined = b"\n".join(data[s:e] for s, e in zip(run_starts[slow].tolist(), run_ends[slow].tolist(), strict=True))
    words_per_run = [TOKEN.findall(part) for part in joined.decode("utf-8", "replace").lower().split("\n")]
    counts = np.ones(len(run_starts), dtype=np.int64)
    slow_counts = np.fromiter(map(len, words_per_run), dtype=np.int64, count=len(words_per_run))
    counts[slow] = slow_counts
    run_first = np.cumsum(counts) - counts
    hashes = np.empty(int(counts.sum()), dtype=np.uint64)
    fast_runs = np.flatnonzero(fast)
    fast_starts = run_starts[fast_runs]
    hashes[run_first[fast_runs]] = token_hashes(lowered, fast_starts, run_ends[fast_runs] - fast_starts)
    if slow_counts.sum():
        flat = [w for words in words_per_run for w in words]
        within = np.arange(len(flat)) - np.repeat(np.cumsum(slow_counts) - slow_counts, slow_counts)
        hashes[np.repeat(run_first[slow], slow_counts) + within] = string_hashes(flat)
    return TokenizedChunk(hashes, lowered, run_starts, run_ends, run_first, dict(zip(slow_list, words_per_run,
                                                                                     strict=True)))
