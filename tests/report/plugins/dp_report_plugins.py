"""A synthetic system for the report tests and the scale benchmark (a `kind: python` plugin on sys.path)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any


def _unit(*parts: object) -> float:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big") / 2**64


def graded(items: Sequence[Any], skill: float, name: str) -> list[dict[str, float]]:
    """Right with probability ``skill`` (+-0.1 per family), a hash of (name, item id) deciding; its confidence
    is higher when it is right, so the risk-coverage curves and reliability diagrams have a shape. For testing
    the report, not a decision model."""
    out = []
    for item in items:
        keys = list(item.option_keys)
        gold = keys.index(item.answer)
        p = skill + 0.2 * (_unit(name, item.family) - 0.5)
        right = _unit(name, item.id) < p
        chosen = gold if right else (gold + 1 + int(_unit(name, item.id, "other") * (len(keys) - 1))) % len(keys)
        top = 0.5 + 0.5 * _unit(name, item.id, "confidence") ** (0.5 if right else 2.0)
        top = max(top, 1.0 / len(keys) + 0.01)
        rest = (1.0 - top) / (len(keys) - 1)
        out.append({key: round(top if i == chosen else rest, 4) for i, key in enumerate(keys)})
    return out
