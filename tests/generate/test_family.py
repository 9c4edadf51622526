"""``flatten``: the one-output-dict version equals the plain recursive definition, leaf for leaf and in order."""

from __future__ import annotations

import random
from typing import Any

from decisionpivot.generate.family import flatten
from tests.conftest import FAMILY_NAMES, built_groups


def recursive_flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """The definition, as it read before: each level merges its children's own dicts."""
    if isinstance(value, dict):
        if not value:
            return {prefix: {}}
        out: dict[str, Any] = {}
        for key, sub in value.items():
            out.update(recursive_flatten(sub, f"{prefix}/{key}" if prefix else str(key)))
        return out
    if isinstance(value, list):
        if not value:
            return {prefix: []}
        out = {}
        for i, sub in enumerate(value):
            out.update(recursive_flatten(sub, f"{prefix}/{i}" if prefix else str(i)))
        return out
    return {prefix: value}


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(5 if depth < 4 else 2)
    if kind == 0:
        return rng.choice([0, 1.5, "x", None, True, "a/b"])
    if kind == 1:
        return rng.choice([{}, []])
    if kind in (2, 3):
        return {rng.choice(["a", "b", "a/b", "0", ""]): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_flatten_equals_the_recursive_definition_in_order() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        value = random_value(rng)
        for prefix in ("", "p"):
            assert list(flatten(value, prefix).items()) == list(recursive_flatten(value, prefix).items())
    collision = {"a/b": 1, "a": {"b": 2}, "c": [[], {}]}  # two paths spell "a/b": the later leaf, first position
    assert list(flatten(collision).items()) == [("a/b", 2), ("c/0", []), ("c/1", {})]


def test_flatten_equals_the_recursive_definition_on_every_family_case() -> None:
    for name in FAMILY_NAMES:
        for _, group in built_groups(name)[:5]:
            for member in group.members:
                assert list(flatten(member.case).items()) == list(recursive_flatten(member.case).items())
