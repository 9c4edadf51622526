"""The one exception type the CLI turns into a clean message (no traceback) and a non-zero exit."""


class DecisionPivotError(Exception):
    """A user-facing error: bad input, mismatched hashes, a failed check. The message says what and where."""
