"""The byte-level tokenizer gives exactly the tokens of the Python normalisation, and equal hashes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from decisionpivot.overlap.chunks import CASE_IGNORABLE_ASCII, SAFE, first_safe, safe_cut, tokenize_chunk
from decisionpivot.overlap.hashing import string_hashes
from decisionpivot.overlap.normalise import tokens

# letters whose lower-casing is special (final sigma, dotted I, Kelvin sign, ligatures), marks, quotes,
# surrogates, digits of other scripts, and the ASCII characters the tokenizer treats specially
TRICKY = [*"aZ9_ '.:^`-\n\t,\"!", "é", "É", "Σ", "σ", "ς", "İ", "\u212a", "\u0301", "“", "”", "—", "ß", "ﬁ",
          "中文", "\ud800", "\ufffd", "Ⅰ", "²", "٣", "\u00ad", "·", "\u2019"]


def words_of(data: bytes) -> list[str]:
    chunk = tokenize_chunk(data)
    return [chunk.word(j) for j in range(len(chunk.hashes))]


def check(data: bytes) -> None:
    expected = tokens(data.decode("utf-8", "replace"))
    chunk = tokenize_chunk(data)
    assert [chunk.word(j) for j in range(len(chunk.hashes))] == expected
    assert np.array_equal(chunk.hashes, string_hashes(expected))


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=60), st.binary(max_size=6))
def test_tokens_equal_the_python_normalisation_on_tricky_text(pieces: list[str], noise: bytes) -> None:
    text = "".join(pieces)
    data = text.encode("utf-8", "surrogatepass")
    check(data)
    check(data + noise + data)  # undecodable bytes in the middle


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_tokens_equal_the_python_normalisation_on_any_text(text: str) -> None:
    check(text.encode("utf-8", "surrogatepass"))


def test_the_final_sigma_depends_on_neighbours_across_case_ignorable_punctuation() -> None:
    assert words_of("ΟΔΟΣ".encode()) == ["οδος"]
    assert words_of("ΟΔΟΣ'Α".encode()) == ["οδοσ", "α"]  # Σ followed by ' and a letter is not final
    assert words_of("ΟΔΟΣ Α".encode()) == ["οδος", "α"]
    assert words_of("x.ΟΔΟΣ.y ok".encode()) == tokens("x.ΟΔΟΣ.y ok")


def test_the_case_ignorable_ascii_characters_are_exactly_those_str_lower_looks_through() -> None:
    separators = [c for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")]
    ignorable = bytes(c for c in separators if ("AΣ" + chr(c) + "A").lower()[1] == "σ")
    assert ignorable == CASE_IGNORABLE_ASCII
    assert all(SAFE[c] == (c not in ignorable) for c in separators)


def test_chunks_are_cut_only_after_a_safe_separator() -> None:
    assert safe_cut(b"abc def'ghi") == 4
    assert safe_cut(b"abcdef") == 0
    assert safe_cut(b"x" * 200_000 + b" " + b"y" * 10) == 200_001
    assert first_safe(b"ab'c d") == 4 and first_safe(b"abc'") == -1
    text = "Alpha ΟΔΟΣ'Α beta. ΣΟΦΙΑ: don't “Kelvin\u212a” end\n" * 50
    data = text.encode()
    pieces, start = [], 0
    while start < len(data):
        cut = safe_cut(data[: start + 37], start) if start + 37 < len(data) else len(data)
        cut = cut if cut > start else len(data)
        pieces.append(data[start:cut])
        start = cut
    assert [w for p in pieces for w in words_of(p)] == tokens(text)
