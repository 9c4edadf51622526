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
