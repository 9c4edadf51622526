"""Stable seeds: every random draw starts from a SHA-256 of its identifying parts.

Never ``hash()`` (it changes with PYTHONHASHSEED) and never ``seed + i`` (neighbouring seeds would
share streams); a group's RNG depends only on (family, seed, level, group index).
"""

from __future__ import annotations

import hashlib
import random


def stable_seed(*parts: object) -> int:
    """A 64-bit integer from the parts' string forms, identical on every host and run."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def group_rng(family: str, seed: int, level: int, index: int) -> random.Random:
    """The RNG of one contrast group."""
    return random.Random(stable_seed("decisionpivot", family, seed, level, index))


def child_rng(rng: random.Random, label: str) -> random.Random:
    """A separate stream derived from ``rng``'s next draw and a label (e.g. one per member)."""
    return random.Random(stable_seed(rng.getrandbits(64), label))
