"""The score-question format: levels as options "0".., lowest first, and the question_type mark."""

from __future__ import annotations

import pytest

from decisionpivot.items import Item, ItemError, Option, item_from_dict, item_line
from decisionpivot.score_questions import (
    QUESTION_TYPE_KEY,
    check_score_item,
    gold_level,
    is_score_item,
    level_name,
    level_options,
)


def _item(**changes: object) -> Item:
    options = level_options([("Low", "no action"), ("Medium", "review"), ("High", "escalate")])
    fields = {"id": "f:00000", "family": "f", "layer": "E", "version": "1.0", "group": "f:g0000", "level": 1,
              "variation": "lower_1", "domain": "retail", "state": "s", "question": "q", "options": options,
              "answer": "1", "extra": {QUESTION_TYPE_KEY: "score"}}
    fields.update(changes)
    return Item(**fields)  # type: ignore[arg-type]


def test_options_are_keyed_by_level_index_lowest_first() -> None:
    options = level_options([("Low", "no action"), ("Medium", "review"), ("High", "escalate")])
    assert [o.key for o in options] == ["0", "1", "2"]
    assert options[2].meaning == "High - escalate" and level_name(options[2]) == "High"
    with pytest.raises(ValueError, match="3-7 levels"):
        level_options([("Low", "a"), ("High", "b")])
    with pytest.raises(ValueError, match="repeat"):
        level_options([("Low", "a"), ("Low", "b"), ("High", "c")])


def test_a_score_item_round_trips_with_its_mark_after_the_schema_keys() -> None:
    item = _item()
    check_score_item(item)
    assert is_score_item(item) and gold_level(item) == 1
    line = item_line(item)
    assert line.endswith('"answer": "1", "question_type": "score"}')
    assert item_from_dict(__import__("json").loads(line)) == item


@pytest.mark.parametrize(("changes", "message"), [
    ({"extra": {}}, "question_type"),
    ({"options": (Option("1", "Low - a"), Option("0", "Medium - b"), Option("2", "High - c"))}, "level keys"),
    ({"options": (Option("0", "Low - a"), Option("1", "Low - b"), Option("2", "High - c"))}, "distinct"),
    ({"options": (Option("0", "Low - a"), Option("1", "High - b")), "answer": "0"}, "3-7 levels"),
])
def test_malformed_score_items_are_refused_with_the_field(changes: dict, message: str) -> None:
    with pytest.raises(ItemError, match=message):
        check_score_item(_item(**changes), "scale/f.jsonl:3")
