"""toolcall_valid: groups, deviation types, pivot, levels, boundaries, schema-only shortcut, config."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

import jsonschema
import pytest

from decisionpivot.generate import toolcall_valid as tv
from decisionpivot.generate.family import Group, case_difference
from decisionpivot.items import Item
from tests.conftest import built_groups, cached_draw

NAME = "toolcall_valid"


def blocks(item: Item) -> tuple[dict, dict]:
    assert isinstance(item.state, str)
    return tv._json_blocks(item.state)


def test_three_hundred_pairs_with_one_yes_and_one_no() -> None:
    by_group = defaultdict(list)
    for item in cached_draw(NAME).items:
        by_group[item.group].append(item)
    assert len(by_group) == 300
    for members in by_group.values():
        assert sorted(m.answer for m in members) == ["no", "yes"]
        assert [m.variation for m in members if m.answer == "yes"] == [None]


def test_answers_and_deviation_types_per_level() -> None:
    for level in (1, 2, 3):
        level_items = [i for i in cached_draw(NAME).items if i.level == level]
        assert Counter(i.answer for i in level_items) == {"yes": 100, "no": 100}
        counts = Counter(i.variation for i in level_items if i.answer == "no")
        start = (level - 1) * 100
        expected = Counter(tv.VARIATIONS[(start + k) % 6] for k in range(100))
        assert counts == expected
        assert sorted(counts.values()) == [16, 16, 17, 17, 17, 17]
    overall = Counter(i.variation for i in cached_draw(NAME).items if i.answer == "no")
    assert overall == {v: 50 for v in tv.VARIATIONS}


def test_members_differ_only_in_one_argument_of_the_call() -> None:
    for _plan, group in built_groups(NAME):
        (key,) = group.decisive
        assert key.startswith("call/arguments/")
        a, b = (m.case for m in group.members)
        diff = case_difference(a, b)
        assert diff and all(p == key or p.startswith(key + "/") for p in diff)
        sa, sb = (m.state for m in group.members)
        head_a, _, call_a = sa.rpartition('\n{\n  "name"')
        head_b, _, call_b = sb.rpartition('\n{\n  "name"')
        assert head_a == head_b, "schema, rules and conversation must be shared"
        assert call_a != call_b


def test_schema_size_and_conversation_per_level() -> None:
    config = tv.ToolcallValidConfig()
    for item in cached_draw(NAME).items:
        schema, _ = blocks(item)
        assert len(schema["parameters"]["properties"]) == config.properties[item.level - 1]
        assert isinstance(item.state, str)
        earlier = [line for line in item.state.splitlines() if line.startswith("- ") and ': "' in line]
        lo, hi = config.history[item.level - 1]
        assert lo <= len(earlier) <= hi


def test_positives_and_non_schema_negatives_validate_with_jsonschema() -> None:
    for item in cached_draw(NAME).items:
        schema, call = blocks(item)
        valid = jsonschema.Draft202012Validator(schema["parameters"]).is_valid(call["arguments"])
        if item.answer == "yes" or item.variation not in tv.SCHEMA_VISIBLE:
            assert valid, item.id
        else:
            assert not valid, item.id


def test_rules_live_in_descriptions_not_in_schema_keywords() -> None:
    allowed = {"type", "enum", "description"}
    for item in cached_draw(NAME).items[:60]:
        schema, _ = blocks(item)
        for spec in schema["parameters"]["properties"].values():
            assert set(spec) <= allowed


def test_schema_only_heuristic_stays_near_two_thirds() -> None:
    items = cached_draw(NAME).items
    correct = [max(tv.heuristic_schema_only(i).items(), key=lambda kv: kv[1])[0] == i.answer for i in items]
    accuracy = sum(correct) / len(correct)
    assert 0.60 <= accuracy <= 0.70, accuracy
    # it only ever catches the two schema-visible types
    caught = Counter(i.variation for i, ok in zip(items, correct, strict=True) if ok and i.answer == "no")
    assert set(caught) == set(tv.SCHEMA_VISIBLE)


def test_each_negative_breaks_exactly_the_planned_kind_of_rule() -> None:
    for plan, group in built_groups(NAME):
        positive = next(m for m in group.members if m.answer == "yes")
        negative = next(m for m in group.members if m.answer == "no")
        assert tv.classify(dict(positive.case), positive.case["call"]["arguments"]) == set()
        cats = frozenset(tv.classify(dict(negative.case), negative.case["call"]["arguments"]))
        assert cats in tv.EXPECTED_CATEGORIES[plan.variation], (plan, cats)


def _target(group: Group) -> str:
    (path,) = group.decisive
    return path.rsplit("/", 1)[1]


def test_range_negatives_sit_one_unit_past_the_limit() -> None:
    seen = 0
    for plan, group in built_groups(NAME):
        if plan.variation != "description_format_range":
            continue
        positive = next(m.case for m in group.members if m.answer == "yes")
        negative = next(m.case for m in group.members if m.answer == "no")
        key = _target(group)
        clause = tv._clause(dict(positive), key)
        if clause is None or not clause["mode"].startswith("limit"):
            continue
        seen += 1
        good, bad = positive["call"]["arguments"][key], negative["call"]["arguments"][key]
        kind = next(p["kind"] for p in positive["props"] if p["key"] == key)
        if kind == "date":
            step = (dt.date.fromisoformat(bad) - dt.date.fromisoformat(good)).days
        elif kind == "time":
            step = tv._minutes(bad) - tv._minutes(good)
        elif kind == "money":
            step = round(bad * 100) - round(good * 100)
        else:
            step = bad - good
        assert step == (-1 if clause["mode"] == "limit_min" else 1), (key, good, bad)
    assert seen >= 15


def test_flag_dependency_pairs_sit_at_the_threshold() -> None:
    seen = Counter()
    for plan, group in built_groups(NAME):
        if plan.variation != "description_dependency" or not _target(group):
            continue
        positive = next(m.case for m in group.members if m.answer == "yes")
        props = {p["key"]: p for p in positive["props"]}
        key = _target(group)
        if props[key]["kind"] != "flag":
            continue
        rules = props[key]["rules"]
        source = positive["call"]["arguments"][rules["src"]]
        gap = rules["threshold"] - round(source * 100)
        assert gap in (0, 1), (key, source, rules)
        seen[gap] += 1
    assert seen[0] >= 10 and seen[1] >= 10


def test_labels_are_unique_within_each_tool() -> None:
    for tool in tv.TOOLS:
        labels = [p.label for p in tool.props]
        assert len(set(labels)) == len(labels)
        assert len({p.key for p in tool.props}) == len(tool.props)
    assert len({t.domain for t in tv.TOOLS}) == len(tv.TOOLS)


def test_state_lengths_grow_with_level() -> None:
    medians = []
    for level in (1, 2, 3):
        lengths = sorted(len(str(i.state)) for i in cached_draw(NAME).items if i.level == level)
        medians.append(lengths[len(lengths) // 2])
    assert medians == sorted(medians)
    assert medians[0] >= 1600 and medians[2] <= 5200


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"items_per_level": 3}, "even"),
        ({"items_per_level": 10}, "split evenly"),
        ({"properties": (5, 9, 12)}, "between 6 and 14"),
        ({"history": ((1, 2), (2, 3), (3, 4))}, "earlier messages"),
        ({"unmentioned": ((0, 1), (1, 2), (1, 9))}, "do not fit"),
        ({"indirect_share": (0.2, 1.5, 0.4)}, "probability"),
        ({"items_per_level": 0}, "positive"),
    ],
)
def test_config_validate_rejects_bad_settings(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tv.ToolcallValidConfig(**changes).validate()


def test_default_config_is_valid() -> None:
    tv.ToolcallValidConfig().validate()
    assert tv.QUESTION == "Is the proposed call correct for the request under this schema?"
    assert [o.key for o in tv.OPTIONS] == ["yes", "no"]


# --- 1.2 text revision ----------------------------------------------------------------------------------


def _requests(item: Item) -> list[str]:
    """The current request and the earlier messages of an item."""
    assert isinstance(item.state, str)
    lines = item.state.splitlines()
    return [line for line in lines if line.startswith(('"', "- "))]


def test_no_enum_in_prose_and_no_sku_key() -> None:
    import re

    for item in cached_draw(NAME).items:
        assert isinstance(item.state, str)
        prose = item.state.replace('"enum":', "")
        assert not re.search(r"\benum\b", prose), item.id
        assert '"sku"' not in item.state, item.id


def test_language_values_are_capitalised() -> None:
    languages = next(p for t in tv.TOOLS for p in t.props if p.key == "language").params
    assert all(value[0].isupper() for value in languages)


def test_relative_dates_never_follow_use_or_set_to() -> None:
    import re

    relative = r"(?:in \d+ days?|tomorrow|the day after tomorrow|next [A-Z][a-z]+day|a week from today|" \
               r"two weeks from today|\d+ days? after the)"
    seam = re.compile(rf"(?:, use|set the [a-z -]+ to) {relative}")
    for seed in (20261008, 1, 2):
        for item in cached_draw(NAME, seed).items:
            for line in _requests(item):
                assert not seam.search(line), (item.id, line)


def test_countable_yes_no_things_take_an_article() -> None:
    import re

    bare = re.compile(r"\b(?:I want|I don't want|With|Without) (?:" +
                      "|".join(o.split(" ", 1)[1] for o in tv.BOOL_OBJECTS.values()) + r")\b")
    for item in cached_draw(NAME).items:
        for line in _requests(item):
            assert not bare.search(line), (item.id, line)


def test_counts_of_one_take_the_singular() -> None:
    assert tv._measure_text(1, "minutes") == "1 minute"
    assert tv._measure_text(2, "minutes") == "2 minutes"
    assert tv._days(1) == "day"
    for item in cached_draw(NAME).items:
        assert isinstance(item.state, str)
        assert " 1 days" not in item.state and " 1 minutes" not in item.state, item.id


def test_messages_ask_as_people_write() -> None:
    """Core 1.3 (issue #38): 1.2 wrote messages as filled-in forms, "For the number of apprentices, use 3."."""
    asked = 0
    for item in cached_draw(NAME).items:
        assert ", use " not in str(item.state), item.id
        asked += "I'd like the " in str(item.state)
    assert asked > 100
