"""Score questions: an ordered scale, lowest level first, written as an ordinary item.

Every decision interface the project runs has three question types: yes/no, choice and score (System One's
``type: score`` with its ordered ``criteria``; the Decisions APIs' ``score`` with ``levels``). A score item is
an :class:`decisionpivot.items.Item` whose

* options are the scale's levels, lowest first; the key of the level at index ``i`` is ``str(i)`` ("0", "1",
  ...), the keys System One answers a score question with (``probabilities`` {"0": p, ...}, ``legend``), so
  the expected level, sum of i * p, is read off the keys and a runner needs no key map;
* option meanings are the levels as a reader sees them, "<level name> - <what the level means>";
* one extra top-level key, ``"question_type": "score"``, which core items lack, tells runners, the audit and
  the report that the options form a scale.

This module is the format's one home: the scale suite writes it (:mod:`decisionpivot.scale`), the solvers and
the audit read it, none of them needs the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from decisionpivot.items import Item, ItemError, Option

QUESTION_TYPE_KEY = "question_type"
"""The extra top-level key that marks a score item."""
SCORE = "score"
"""Its value on a score item."""
MEANING_SEPARATOR = " - "
"""Between a level's name and what the level means, in an option's meaning."""
MIN_LEVELS, MAX_LEVELS = 3, 7
"""Scales of the suite have this many levels at least and at most (System One takes up to 10)."""


def level_key(index: int) -> str:
    """The option key of the level at ``index`` (0 = lowest)."""
    return str(index)


def level_options(levels: Sequence[tuple[str, str]]) -> tuple[Option, ...]:
    """A scale's options from its ``(name, description)`` levels, lowest first."""
    if not MIN_LEVELS <= len(levels) <= MAX_LEVELS:
        raise ValueError(f"a scale has {MIN_LEVELS}-{MAX_LEVELS} levels, got {len(levels)}")
    names = [name for name, _ in levels]
    if len(set(names)) != len(names):
        raise ValueError(f"level names repeat: {names}")
    return tuple(Option(level_key(i), f"{name}{MEANING_SEPARATOR}{description}")
                 for i, (name, description) in enumerate(levels))


def is_score_item(item: Item) -> bool:
    """True when ``item`` asks a score question (its options form a scale)."""
    return item.extra.get(QUESTION_TYPE_KEY) == SCORE


def level_name(option: Option) -> str:
    """The level's name as the option's meaning gives it (the part before :data:`MEANING_SEPARATOR`)."""
    return option.meaning.split(MEANING_SEPARATOR, 1)[0]


def check_score_item(item: Item, where: str = "") -> None:
    """Raise ItemError unless ``item`` is a well-formed score item: marked as one, keys "0".."n-1" in order, a
    scale of 3-7 levels with distinct names, a gold level."""
    where = where or item.id
    if not is_score_item(item):
        raise ItemError(f"{where}: field {QUESTION_TYPE_KEY!r}: expected {SCORE!r}, "
                        f"found {item.extra.get(QUESTION_TYPE_KEY)!r}")
    keys = list(item.option_keys)
    expected = [level_key(i) for i in range(len(keys))]
    if keys != expected:
        raise ItemError(f"{where}: field 'options': expected the level keys {expected} in order, found {keys}")
    if not MIN_LEVELS <= len(keys) <= MAX_LEVELS:
        raise ItemError(f"{where}: field 'options': expected a scale of {MIN_LEVELS}-{MAX_LEVELS} levels, "
                        f"found {len(keys)}")
    names = [level_name(o) for o in item.options]
    if len(set(names)) != len(names) or not all(names):
        raise ItemError(f"{where}: field 'options': expected distinct level names, found {names}")
    if item.answer is None:
        raise ItemError(f"{where}: field 'answer': expected a level key, found None")


def gold_level(item: Item) -> int:
    """The index of the gold level (0 = lowest) of a score item; of a framed one (its keys renamed, its levels listed
    in another order: ``dp scale --framings``), through its ``key_map`` to the key of the level in the suite."""
    key_map = item.extra.get("key_map")
    answer = item.answer or ""
    return int(key_map.get(answer, answer) if isinstance(key_map, dict) else answer)
