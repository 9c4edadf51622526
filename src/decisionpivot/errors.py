"""The one exception type the CLI turns into a clean message (no traceback) and a non-zero exit, and the one
"did you mean" hint its messages give for a mistyped name."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class DecisionPivotError(Exception):
    """A user-facing error: bad input, mismatched hashes, a failed check. The message says what and where."""


def did_you_mean(word: str, choices: Iterable[str], most: int = 1) -> str:
    """`` (did you mean a or b?)`` with up to ``most`` of ``choices`` close to ``word`` (difflib's ratio of at least
    0.6), or ``""`` when none is close: appended to the message naming the unknown word."""
    close = difflib.get_close_matches(word, list(choices), n=most, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def unknown_names(what: str, names: Iterable[str], known: Iterable[str], plural: str | None = None) -> str:
    """What is wrong with a list of names a user gave (families, tasks, systems, ...), or ``""`` when every one is
    in ``known``: ``unknown family 'x' (did you mean y?); known: a, b, c`` - each unknown name with its hint, then
    every known name in the order given (``known: none`` when there is none). ``what`` names one of them,
    ``plural`` several (default ``what + "s"``). Every verb checking a name list goes through here."""
    choices = list(dict.fromkeys(known))
    unknown = [name for name in dict.fromkeys(names) if name not in choices]
    if not unknown:
        return ""
    noun = what if len(unknown) == 1 else (plural or what + "s")
    listed = ", ".join(f"{name!r}{did_you_mean(name, choices)}" for name in unknown)
    return f"unknown {noun} {listed}; known: {', '.join(choices) or 'none'}"


def check_names(what: str, names: Iterable[str], known: Iterable[str], where: str = "",
                plural: str | None = None) -> None:
    """Raise :class:`DecisionPivotError` with :func:`unknown_names`'s message (after ``where: ``) when a name is
    not known."""
    problem = unknown_names(what, names, known, plural)
    if problem:
        raise DecisionPivotError(f"{where}: {problem}" if where else problem)
