"""A strong synthetic decision model for the `dp gate` tests, run by `dp evaluate` as a ``python`` system.

It knows the gold answer and is right with probability equal to its confidence (perfectly calibrated),
its confidence high for most items: the kind of system a gate should let automate part of the work.

It is **out of sample**: every draw it makes is a SHA-256 hash of the item's *content* (state, question and
options), never of its id or group id. Ids repeat across draws (``policy_case:00001`` is in every seed), so a
system keyed on them would give the release the very answers it gave a calibration draw, and its release
check would re-read its calibration. Keyed on content, a fresh draw gets fresh answers, and the same item
gets the same answer on every run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from decisionpivot.items import Item


def _uniform(text: str) -> float:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") / 2**64


def content_key(item: Item) -> str:
    """What the item asks, without its id or group: state, question and options as canonical JSON."""
    return json.dumps([item.state, item.question, [[o.key, o.meaning] for o in item.options]], sort_keys=True,
                      ensure_ascii=False)


def decide(items: Sequence[Item], skill: float = 0.85) -> list[dict[str, float]]:
    """Gold with probability c, else the next option; c near 1 for a share ``skill`` of items."""
    answers = []
    for item in items:
        keys = item.option_keys
        content = content_key(item)
        strong = _uniform(f"strong {content}")
        own = _uniform(f"item {content}")
        low = 1.0 / len(keys)
        confidence = 0.9995 - 0.02 * own if strong < skill else low + (0.9 - low) * own
        right = _uniform(f"correct {content}") < confidence
        gold = keys.index(item.answer) if item.answer in keys else 0
        chosen = gold if right else (gold + 1) % len(keys)
        rest = (1.0 - confidence) / (len(keys) - 1)
        answers.append({key: (confidence if i == chosen else rest) for i, key in enumerate(keys)})
    return answers
