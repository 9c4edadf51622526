"""The one normalisation both sides of `dp overlap` use: lower-case, then ``\\w+`` word tokens.

This is the project's own definition since ``dp overlap`` first shipped (release/overlap.py of
v0.1), kept unchanged so that the flagged items stay the same: a text is lower-cased with Python's
``str.lower`` (full Unicode case mapping, including the final-sigma rule), and its tokens are the
maximal runs of ``\\w`` characters (Unicode letters and digits, and ``_``); everything else --
whitespace, punctuation, symbols -- separates tokens and is dropped. Two texts share an n-gram when
``n`` consecutive tokens (13 by default) are equal. Case, punctuation and line breaks never hide an
overlap; a hyphen or apostrophe splits a word (``don't`` -> ``don``, ``t``).

It is not lm-evaluation-harness's decontamination normalisation (``lm_eval.decontamination.janitor``):
the Janitor lower-cases ASCII letters only, deletes ASCII punctuation (``don't`` -> ``dont``) and
splits on whitespace. The two agree on text whose words are separated by whitespace and contain no
punctuation; ``benchmarks/overlap_speed.py`` runs the Janitor's own code on such text next to this
one. The fast scanner (:mod:`decisionpivot.overlap.chunks`) reproduces :func:`tokens` exactly on
bytes; the tests check it against this function on random Unicode text.
"""

from __future__ import annotations

import re

from decisionpivot.items import Item, render_state

TOKEN = re.compile(r"\w+")
"""A word token (after lower-casing)."""
DEFAULT_N = 13
"""n-gram length in tokens, as the paper's training-overlap filter."""
NORMALISATION = "lower-case (str.lower), then \\w+ tokens; v0.1"
"""Names the normalisation in overlap.json and in the resume state (a change invalidates old states)."""


def tokens(text: str) -> list[str]:
    """The word tokens of a text: the ``\\w+`` runs of ``text.lower()``, in order."""
    return TOKEN.findall(text.lower())


def item_text(item: Item) -> str:
    """The text of a reference item that is checked for overlap: the state as a model reads it, the
    question and every option's meaning, joined by spaces (n-grams may span these parts)."""
    return " ".join([render_state(item.state), item.question, *(o.meaning for o in item.options)])
