"""Token and n-gram hashes equal their documented definitions (so they are the same on every platform)."""

from __future__ import annotations

import numpy as np

from decisionpivot.overlap.hashing import MASK64, L, P, R, ngram_hashes, powers, string_hashes


def test_ngram_hash_is_the_polynomial_of_its_token_hashes() -> None:
    rng = np.random.default_rng(3)
    hashes = rng.integers(0, 2**63, size=40, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    for n in (1, 2, 13, 40):
        got = ngram_hashes(hashes, n)
        expected = [sum(int(hashes[i + k]) * pow(R, k, 1 << 64) for k in range(n)) & MASK64
                    for i in range(len(hashes) - n + 1)]
        assert got.tolist() == expected
    assert len(ngram_hashes(hashes, 41)) == 0


def test_powers_are_inverse() -> None:
    up, down = powers(5000)
    assert ((up * down) == 1).all()


def test_token_hashes_depend_on_every_byte_and_the_length() -> None:
    words = ["a", "b", "ab", "ba", "abcdefgh", "abcdefghi", "abcdefgh_", "x" * 100, "x" * 101, "é", "e"]
    hashes = string_hashes(words)
    assert len(set(hashes.tolist())) == len(words)
    assert string_hashes(["abcdefghi"]).tolist() == [hashes[5]]


def _fmix64(x: int) -> int:
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK64
    return x ^ (x >> 33)


def _token_hash(word: str) -> int:
    """The documented definition, in Python integers: 8-byte little-endian blocks, then fmix64."""
    data = word.encode()
    blocks = [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)]
    return _fmix64((sum(b * pow(P, k, 1 << 64) for k, b in enumerate(blocks)) + len(data) * int(L)) & MASK64)


def test_token_hashes_follow_their_definition_on_any_platform() -> None:
    words = ["the", "river", "x_y", "abcdefgh", "abcdefghijklmnopqrstuvwxyz0123456789", "naïve", "οδος", "中文"]
    assert string_hashes(words).tolist() == [_token_hash(w) for w in words]
