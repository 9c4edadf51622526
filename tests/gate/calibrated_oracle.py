"""A strong synthetic decision model for the `dp gate` tests, run by `dp evaluate` as a ``python`` system.

It knows the gold answer and is right with probability equal to its confidence (perfectly calibrated),
its confidence high for most items: the kind of system a gate should let automate part of the work.
Confidences share a per-group part (members of a contrast group are alike), and every draw is a
SHA-256 hash of the item id, so answers are the same on every run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from decisionpivot.items import Item


def _uniform(text: str) -> float:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") / 2**64


def decide(items: Sequence[Item], skill: float = 0.9) -> list[dict[str, float]]:
    """Gold with probability c, else the next option; c near 1 for a share ``skill`` of groups."""
    answers = []
    for item in items:
        keys = item.option_keys
        shared = _uniform(f"group {item.group}")
        own = _uniform(f"item {item.id}")
        low = 1.0 / len(keys)
        confidence = 0.999 - 0.03 * own if shared < skill else low + (0.9 - low) * own
        right = _uniform(f"correct {item.id}") < confidence
        gold = keys.index(item.answer) if item.answer in keys else 0
        chosen = gold if right else (gold + 1) % len(keys)
        rest = (1.0 - confidence) / (len(keys) - 1)
        answers.append({key: (confidence if i == chosen else rest) for i, key in enumerate(keys)})
    return answers
