"""fact_answerable's solver builds its question patterns once per glossary, whatever order the glossary lists."""

from __future__ import annotations

import random
from dataclasses import replace

from decisionpivot.solve import fact_answerable
from decisionpivot.solve.fact_answerable import _longest_first, _query_patterns, solve
from tests.conftest import cached_draw


def _glossary_phrases(state: str) -> list[str]:
    found = (fact_answerable._GLOSSARY.match(line) for line in state.splitlines())
    return [m.group("p1") or m.group("p2") for m in found if m]


def test_longest_first_ignores_the_glossary_order() -> None:
    phrases = ["bed count", "headcount", "founding year", "fleet size", "room count", "annual revenue"]
    expected = ("annual revenue", "founding year", "fleet size", "room count", "bed count", "headcount")
    assert _longest_first(phrases) == expected
    for seed in range(5):
        shuffled = phrases[:]
        random.Random(seed).shuffle(shuffled)
        assert _longest_first(shuffled + shuffled[:2]) == expected


def test_patterns_are_built_once_per_glossary() -> None:
    items = cached_draw("fact_answerable").items
    glossaries = {frozenset(_glossary_phrases(item.state)) for item in items if isinstance(item.state, str)}
    _query_patterns.cache_clear()
    for item in items:
        solve(item)
    assert _query_patterns.cache_info().misses == len(glossaries) < len(items) // 10


def test_a_reordered_glossary_gets_the_same_answer() -> None:
    """The glossary's order picks nothing: each item with its glossary lines reversed is answered as before."""
    for item in cached_draw("fact_answerable").items[::7]:
        assert isinstance(item.state, str)
        lines = item.state.splitlines()
        at = [k for k, line in enumerate(lines) if fact_answerable._GLOSSARY.match(line)]
        for k, line in zip(at, reversed([lines[k] for k in at]), strict=True):
            lines[k] = line
        assert solve(replace(item, state="\n".join(lines))) == solve(item) == item.answer
