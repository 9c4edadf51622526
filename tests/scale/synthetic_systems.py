"""Synthetic systems of kind ``python`` with one known defect each, for the scale suite's metrics (issue 40, item 6).

Each reads the item's gold level (they are fixtures, not decision models) and answers with that defect:

* ``middle`` - always the middle level (the lower middle on an even scale), all mass on it;
* ``off_by_one_up`` - one level too high: 0.9 on the level above gold and 0.1 on gold (on the top level, all on it),
  so its expected level still rises with the gold;
* ``reversed`` - the scale read upside down: all mass on level N-1-gold, what a system answering by position does when
  the scale is listed the other way;
* ``oracle`` - all mass on gold: the control no metric may flag.

Declare one as ``{kind: python, callable: tests.scale.synthetic_systems:middle}``. An item that is not a score item
(a core item, when a test scores both) gets the uniform distribution.
"""

from __future__ import annotations

from collections.abc import Sequence

from decisionpivot.items import Item
from decisionpivot.score_questions import is_score_item


def _answer(item: Item, mass: dict[int, float]) -> dict[str, float]:
    """Probability ``mass[level]`` on each level's option (a framed item's options mapped to levels by its key map)."""
    if not is_score_item(item):
        return {key: 1 / len(item.options) for key in item.option_keys}
    key_map = item.extra.get("key_map") or {}
    return {key: mass.get(int(key_map.get(key, key)), 0.0) for key in item.option_keys}


def middle(items: Sequence[Item]) -> list[dict[str, float]]:
    return [_answer(item, {(len(item.options) - 1) // 2: 1.0}) for item in items]


def off_by_one_up(items: Sequence[Item]) -> list[dict[str, float]]:
    out = []
    for item in items:
        gold, top = gold_level_of(item), len(item.options) - 1
        out.append(_answer(item, {top: 1.0} if gold == top else {gold + 1: 0.9, gold: 0.1}))
    return out


def reversed_scale(items: Sequence[Item]) -> list[dict[str, float]]:
    return [_answer(item, {len(item.options) - 1 - gold_level_of(item): 1.0}) for item in items]


def oracle(items: Sequence[Item]) -> list[dict[str, float]]:
    return [_answer(item, {gold_level_of(item): 1.0}) for item in items]


SYSTEMS = {"oracle": "oracle", "middle": "middle", "off_by_one_up": "off_by_one_up", "reversed": "reversed_scale"}
"""System name -> callable of this module."""


def by_position(items: Sequence[Item]) -> list[dict[str, float]]:
    """Reads the scale by position, not by level: answers the option listed at the gold level's index (right when
    the scale is listed lowest first; the mirror level when it is listed highest first)."""
    return [{o.key: (1.0 if i == gold_level_of(item) else 0.0) for i, o in enumerate(item.options)} for item in items]


def gold_level_of(item: Item) -> int:
    """The gold level of a plain or framed score item (through its ``key_map``); -1 for any other item."""
    if not is_score_item(item):
        return -1
    key_map = item.extra.get("key_map") or {}
    return int(key_map.get(str(item.answer), str(item.answer)))


SYSTEMS_FRAMED = {"oracle": "oracle", "reversed": "reversed_scale", "by_position": "by_position"}
"""The systems run on the suite's framings (their answers to a framed item are read through its key map)."""
