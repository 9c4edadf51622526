"""64-bit hashes of tokens and of token n-grams, vectorised with numpy (wrapping uint64 arithmetic).

A token's hash depends only on its UTF-8 bytes (after lower-casing): the bytes are read as 8-byte
little-endian blocks ``w_0 .. w_{m-1}`` (the last one zero-padded) and

    token_hash = fmix64(sum_k w_k * P**k + length * L)          (mod 2**64)

with MurmurHash3's 64-bit finaliser ``fmix64``. An n-gram's hash is a polynomial in its tokens' hashes,

    ngram_hash(t_i .. t_{i+n-1}) = sum_k t_{i+k} * R**k           (mod 2**64),

computed for a whole stream at once from one prefix sum (``R`` is odd, so ``R**-i`` exists mod 2**64).
Constants are fixed: nothing depends on PYTHONHASHSEED, the platform or the process. Equal token
sequences always hash equally, so a hash lookup never misses an overlap; unequal ones may collide
(rarely), which is why every hit is re-checked on the tokens themselves (:mod:`decisionpivot.overlap.index`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

MASK64 = (1 << 64) - 1
BLOCK_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [MASK64], dtype=np.uint64)
"""BLOCK_MASKS[k]: the low k bytes of a block (k = 8: all of it)."""
P = 0x9E3779B97F4A7C15
"""Block multiplier (odd)."""
L = np.uint64(0x2545F4914F6CDD1D)
"""Length multiplier."""
R = 0x5851F42D4C957F2D
"""n-gram polynomial base (odd, hence invertible modulo 2**64)."""
_C1, _C2, _S33 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53), np.uint64(33)
PAD = 8
"""Zero bytes that must follow the last byte of a buffer given to :func:`token_hashes`."""


def fmix64(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place: a bijection of uint64 that mixes every input bit."""
    x ^= x >> _S33
    x *= _C1
    x ^= x >> _S33
    x *= _C2
    x ^= x >> _S33
    return x


def token_hashes(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Hashes of the tokens ``buffer[s:s+l]`` (uint8 buffer followed by at least :data:`PAD` zero bytes)."""
    if not len(starts):
        return np.zeros(0, dtype=np.uint64)
    # every byte offset of the buffer read as a little-endian uint64 (unaligned, stride 1: no copy)
    words = np.ndarray((len(buffer) - PAD + 1,), dtype="<u8", buffer=buffer, offset=0, strides=(1,))
    hashes = words[starts] & BLOCK_MASKS[np.minimum(lengths, 8)]
    longer = np.flatnonzero(lengths > 8)
    block, multiplier = 1, P
    while len(longer):
        rest = lengths[longer] - 8 * block
        hashes[longer] += (words[starts[longer] + 8 * block] & BLOCK_MASKS[np.minimum(rest, 8)]) * np.uint64(multiplier)
        longer = longer[rest > 8]
        block, multiplier = block + 1, (multiplier * P) & MASK64
    hashes += lengths.astype(np.uint64) * L
    return fmix64(hashes)


def string_hashes(words: Sequence[str]) -> np.ndarray:
    """:func:`token_hashes` of Python strings (their UTF-8 bytes); the strings must not contain a newline."""
    if not words:
        return np.zeros(0, dtype=np.uint64)
    data = "\n".join(words).encode("utf-8", "surrogatepass")
    buffer = np.zeros(len(data) + PAD, dtype=np.uint8)
    buffer[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    ends = np.append(np.flatnonzero(buffer[: len(data)] == 10), len(data))
    starts = np.concatenate(([0], ends[:-1] + 1))
    return token_hashes(buffer, starts, ends - starts)


@lru_cache(maxsize=4)
def _powers(capacity_bits: int) -> tuple[np.ndarray, np.ndarray]:
    size = 1 << capacity_bits
    up = np.full(size, R, dtype=np.uint64)
    down = np.full(size, pow(R, -1, 1 << 64), dtype=np.uint64)
    up[0] = down[0] = 1
    return np.cumprod(up, dtype=np.uint64), np.cumprod(down, dtype=np.uint64)


def powers(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``R**j`` and ``R**-j`` (mod 2**64) for j < size (cached per power-of-two capacity)."""
    up, down = _powers(max(10, (size - 1).bit_length()))
    return up[:size], down[:size]


def ngram_hashes(hashes: np.ndarray, n: int) -> np.ndarray:
    """The hash of every n-gram of a token-hash stream: ``len(hashes) - n + 1`` values (none if shorter)."""
    count = len(hashes) - n + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    up, down = powers(len(hashes))
    prefix = np.cumsum(hashes * up, dtype=np.uint64)
    result = prefix[n - 1 :].copy()
    result[1:] -= prefix[: count - 1]
    result *= down[:count]
    return result
