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


def graded(items: Sequence[Any], skill: float, salt: str = "") -> list[dict[str, float]]:
    """A synthetic system of graded skill: the gold option with probability ``skill`` (decided by a hash of
    the item id and ``salt``), else the next option; for testing the statistics, not a decision model."""
    import hashlib

    out = []
    for item in items:
        roll = int.from_bytes(hashlib.sha256(f"{salt}:{item.id}".encode()).digest()[:4], "big") / 2**32
        keys = list(item.option_keys)
        gold = keys.index(item.answer)
        chosen = gold if roll < skill else (gold + 1) % len(keys)
        out.append({key: (0.8 if i == chosen else 0.2 / (len(keys) - 1)) for i, key in enumerate(keys)})
    return out
