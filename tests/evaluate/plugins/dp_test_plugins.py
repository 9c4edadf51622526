"""Plugins for the evaluation tests (imported from this folder, which tests put on sys.path)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def huge(items: Sequence[Any]) -> list[dict[str, int]]:
    return [{key: 10**400 for key in item.option_keys} for item in items]


def first_listed(items: Sequence[Any]) -> list[dict[str, float]]:
    """Follows positions: always the first listed option."""
    return [{key: float(i == 0) for i, key in enumerate(item.option_keys)} for item in items]


def always_yes(items: Sequence[Any]) -> list[dict[str, float]]:
    """Reads names: always the option called yes."""
    return [{key: float(key == "yes") for key in item.option_keys} for item in items]
