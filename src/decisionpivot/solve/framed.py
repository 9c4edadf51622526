"""Framed items (the invariance suite, ``dp frame``): the family solver answers the decision, then the
answer is put in the framed item's own option keys.

Reads only the item: its question's polarity (a negated question carries ``NOT`` in capitals) and its
``key_map`` (framed option key -> the key with the same meaning in the core item). The solver reads the
framed state itself - padded with irrelevant or steering text - so its answer checks that the inserted
text changed nothing decisive; the negation mark is checked against the key map, so a negated question
whose gold was not flipped (or a flipped gold under a plain question) is a disagreement, not a pass.
No FAMILY here: this module is not a solver of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from decisionpivot.items import Item, Option

NEGATION_MARK = re.compile(r"\bNOT\b")
FLIP = {"yes": "no", "no": "yes"}


def answering_framed(solve: Callable[[Item], str]) -> Callable[[Item], str]:
    """``solve`` extended to framed items; core items go to ``solve`` unchanged."""

    def answer(item: Item) -> str:
        key_map = item.extra.get("key_map")
        if key_map is None:
            return solve(item)
        if not isinstance(key_map, dict) or set(key_map) != set(item.option_keys):
            raise ValueError(f"{item.id}: key_map must name every option key once, found {key_map!r}")
        negated = NEGATION_MARK.search(item.question) is not None
        if negated != (key_map == FLIP):
            raise ValueError(f"{item.id}: the question is {'' if negated else 'not '}negated but the key map "
                             f"{'does not flip' if negated else 'flips'} yes and no")
        base_view = replace(item, options=tuple(Option(key_map[o.key], o.meaning) for o in item.options), extra={})
        decided = solve(base_view)
        back = {base: framed for framed, base in key_map.items()}
        if decided not in back:
            raise ValueError(f"{item.id}: solver answered {decided!r}, not an option of the core item")
        return back[decided]

    answer.__name__ = getattr(solve, "__name__", "solve")
    return answer
