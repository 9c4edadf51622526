"""Wording variants: choose one phrasing per case, and join lists the way people write them."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def pick(rng: random.Random, variants: Sequence[T]) -> T:
    """One of ``variants``; raises on an empty sequence rather than silently returning None.

    Draws exactly what ``variants[rng.randrange(len(variants))]`` drew: for a ``random.Random`` (every
    group's RNG is one) CPython 3.11-3.13 answer ``randrange(n)`` and ``choice`` with
    ``_randbelow_with_getrandbits(n)``: ``getrandbits(n.bit_length())`` until the draw is below ``n``. That
    loop is written out here, without randrange's argument checks and two Python calls: picks were a seventh
    of a draw's time. ``tests/generate/test_wording.py`` pins the equivalence with ``randrange`` and ``choice``.
    """
    n = len(variants)
    if not n:
        raise ValueError("pick() needs at least one variant")
    getrandbits = rng.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return variants[r]


def join_words(words: Sequence[str], conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if not words:
        raise ValueError("join_words() needs at least one word")
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + f" {conjunction} " + words[-1]


def a_or_an(phrase: str) -> str:
    """``phrase`` with its indefinite article: ``an adult education firm``, ``a home-goods shop``.

    By the first letter, which is right for every phrase the families use (none starts with a silent
    ``h``, a ``u`` read as ``you`` or an ``o`` read as ``w``); dp audit's article check, which judges
    by sound, holds every draw to it.
    """
    return f"an {phrase}" if phrase[:1].lower() in "aeiou" else f"a {phrase}"


def numbered(lines: Sequence[str], start: int = 1) -> list[str]:
    """``1. first``, ``2. second``, ..."""
    return [f"{i}. {line}" for i, line in enumerate(lines, start=start)]
