"""Every framing's gold is exact: key maps, meanings, negation, steering targets, companions, inserted text."""

from __future__ import annotations

import re

import pytest

from decisionpivot.frame import material, materials
from decisionpivot.frame.framings import (
    FRAMINGS,
    IRRELEVANT_AFTER,
    IRRELEVANT_LENGTHS,
    LENGTH_TOLERANCE,
    MEANING_FRAMINGS,
    NEGATION_MARK,
    NEGATIONS,
    STATE_FRAMINGS,
    TAKEN_YES_NO_NAMES,
    YES_NO_ONLY,
    frame_item,
    insert_after,
    insert_text,
)
from decisionpivot.generate.family import flatten
from decisionpivot.generate.registry import families
from decisionpivot.items import Item, Option
from tests.conftest import built_groups


def test_every_family_has_material() -> None:
    assert sorted(materials()) == sorted(spec.name for spec in families())
    for name, stuff in materials().items():
        assert len(set(stuff.wordings)) == 3, name
        assert family_question(name) not in stuff.wordings, name
        for wording in stuff.wordings:
            assert not NEGATION_MARK.search(wording), f"{name}: a rewording must not read as negated"


def family_question(name: str) -> str:
    return next(spec.question for spec in families() if spec.name == name)


def test_gold_maps_to_the_base_gold_and_meanings_are_kept(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    for items in suite.values():
        for item in items:
            base = core[item.extra["base"]]
            key_map = item.extra["key_map"]
            assert sorted(key_map) == sorted(item.option_keys), item.id
            assert sorted(key_map.values()) == sorted(base.option_keys), item.id
            assert key_map[item.answer] == base.answer, item.id
            base_meaning = {o.key: o.meaning for o in base.options}
            framing = item.extra["framing"]
            for option in item.options:
                meaning = base_meaning[key_map[option.key]]
                if framing == "options-reworded":
                    assert option.meaning != meaning and option.meaning, (item.id, option.key)
                    assert option.meaning == material(item.family).reworded(Option(key_map[option.key], meaning))
                elif framing in ("options-bare", "negation"):
                    assert option.meaning == option.key, (item.id, option.key)  # the polarity is in the question only
                else:
                    assert framing not in MEANING_FRAMINGS
                    assert option.meaning == meaning, (item.id, option.key)
            if framing in NEGATIONS:
                assert key_map == {"yes": "no", "no": "yes"} and item.answer != base.answer
                assert NEGATION_MARK.search(item.question), item.id
            else:
                assert not NEGATION_MARK.search(item.question), item.id
            if framing in YES_NO_ONLY:
                assert base.option_keys == ("yes", "no"), item.id
            if framing in ("labels", "two-option-choice"):
                assert all(k != v for k, v in key_map.items()), item.id
                if base.option_keys == ("yes", "no"):
                    assert not set(item.option_keys) & TAKEN_YES_NO_NAMES, item.id  # a rename on every kind's wire
                if framing == "two-option-choice":
                    assert item.option_keys == ("A", "B") and key_map == {"A": "yes", "B": "no"}, item.id
            elif framing not in NEGATIONS:
                assert all(k == v for k, v in key_map.items()), item.id
            if framing.startswith("wording-"):
                assert item.question == material(item.family).wordings[int(framing[-1]) - 1]
            elif framing not in NEGATIONS:
                assert item.question == base.question, item.id
            if framing not in STATE_FRAMINGS:
                assert item.state == base.state, item.id
            else:
                assert item.state != base.state, item.id


def test_steering_argues_for_a_wrong_option_only_in_steering(suite: dict[str, list[Item]],
                                                              core: dict[str, Item]) -> None:
    targets = []
    for items in suite.values():
        for item in items:
            steer_to = item.extra["steer_to"]
            if item.extra["framing"] != "steering":
                assert steer_to is None, item.id
                continue
            assert steer_to in item.option_keys and steer_to != item.answer, item.id
            inserted = inserted_text(core[item.extra["base"]].state, item.state)
            assert "reviewer" in inserted, item.id
            targets.append(steer_to)
    assert len(targets) == sum(len({i.extra["base"] for i in items}) for items in suite.values())


def test_together_asks_two_companions_with_exact_gold(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    for items in suite.values():
        for item in items:
            companions = item.extra["companions"]
            if item.extra["framing"] != "together":
                assert companions is None, item.id
                continue
            base = core[item.extra["base"]]
            assert len(companions) == 2 and len({c["id"] for c in companions}) == 2, item.id
            for companion in companions:
                keys = [o["key"] for o in companion["options"]]
                assert companion["answer"] in keys and companion["question"] != item.question, item.id
            by_id = {c["id"]: c for c in companions}
            assert by_id["reworded"]["answer"] == base.answer
            if base.option_keys == ("yes", "no"):
                assert by_id["negated"]["answer"] == {"yes": "no", "no": "yes"}[base.answer]
            else:
                [other] = [c for c in companions if c["id"] != "reworded"]
                assert [o["key"] for o in other["options"]] == ["yes", "no"]


# Gold of the choice families' computable companion question, restated from its definition.
COMPANION_GOLD = {
    "policy_case": lambda item: item.answer == "escalate",
    "clause_change": lambda item: item.answer == "same",
    "ledger_reconcile": lambda item: item.answer == "none",
    "record_rule": lambda item: item.answer == "none",
    "triage_order": lambda item: item.answer == item.options[0].key,
}


def test_choice_companions_follow_their_definition(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    seen = {name: set() for name in COMPANION_GOLD}
    for name, rule in COMPANION_GOLD.items():
        for item in suite[name]:
            if item.extra["framing"] == "together":
                [other] = [c for c in item.extra["companions"] if c["id"] != "reworded"]
                expected = "yes" if rule(core[item.extra["base"]]) else "no"
                assert other["answer"] == expected, item.id
                seen[name].add(expected)
    assert all(answers == {"yes", "no"} for answers in seen.values()), seen


def inserted_text(base_state: str | dict, framed_state: str | dict) -> str:
    """What a framing inserted into the state (the new paragraphs or the new top-level value)."""
    if isinstance(framed_state, dict):
        assert isinstance(base_state, dict)
        [key] = set(framed_state) - set(base_state)
        assert {k: v for k, v in framed_state.items() if k != key} == base_state
        return framed_state[key]
    assert isinstance(base_state, str) and isinstance(framed_state, str)
    if framed_state.startswith(base_state.rstrip() + "\n\n"):  # appended after the whole state
        return framed_state[len(base_state.rstrip()) + 2:]
    head, _, rest = base_state.partition("\n\n")
    assert framed_state.startswith(head + "\n\n") and framed_state.endswith("\n\n" + rest)
    return framed_state[len(head) + 2:len(framed_state) - len(rest) - 2]


def decisive_strings(family: str, group_id: str) -> set[str]:
    """Every string value at a decisive path of any member's case of the group (4 characters or more)."""
    plan_and_group = built_groups(family)[int(group_id.split(":g")[1])]
    group = plan_and_group[1]
    values: set[str] = set()
    for member in group.members:
        for path, value in flatten(dict(member.case)).items():
            decisive = any(path == d or path.startswith(d + "/") for d in group.decisive)
            if decisive and isinstance(value, str) and len(value.strip()) >= 4:
                values.add(value.strip())
    return values


@pytest.mark.parametrize("family", [spec.name for spec in families()])
def test_irrelevant_text_has_its_length_and_no_decisive_value(family: str, suite: dict[str, list[Item]],
                                                              core: dict[str, Item]) -> None:
    """Lengths within the tolerance; no digit (so no figure, date, time or version of the case) and no
    string of a decisive path of any member of the group."""
    checked = 0
    texts: dict[tuple[str, str], str] = {}
    for item in suite[family]:
        framing = item.extra["framing"]
        if framing not in IRRELEVANT_LENGTHS:
            continue
        base_state = core[item.extra["base"]].state
        text = inserted_text(base_state, item.state)
        if framing in IRRELEVANT_AFTER:  # after everything: the base state is the framed state's beginning
            assert item.state == insert_after(base_state, text, "background"), item.id
        texts[(item.extra["base"], framing)] = text
        target = IRRELEVANT_LENGTHS[framing]
        assert abs(len(text) - target) <= LENGTH_TOLERANCE * target, (item.id, len(text))
        assert not re.search(r"\d", text), item.id
        for value in decisive_strings(family, item.group or ""):
            assert not re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE), (item.id, value)
        checked += 1
    assert checked == len(IRRELEVANT_LENGTHS) * len({i.extra["base"] for i in suite[family]})
    for (base, framing), text in texts.items():  # the same text before and after: only the position differs
        if framing in IRRELEVANT_AFTER:
            assert text == texts[(base, framing.removesuffix("-after"))], (base, framing)


def test_members_of_a_group_get_the_same_irrelevant_text(suite: dict[str, list[Item]],
                                                         core: dict[str, Item]) -> None:
    """A framing changes no member of a contrast group more than another: the pivot stays the only difference."""
    texts: dict[tuple[str, str], set[str]] = {}
    for item in suite["booking_check"]:
        if item.extra["framing"] in IRRELEVANT_LENGTHS:
            text = inserted_text(core[item.extra["base"]].state, item.state)
            texts.setdefault((item.group or "", item.extra["framing"]), set()).add(text)
    assert texts and all(len(v) == 1 for v in texts.values())


def test_framings_come_in_order_and_need_gold() -> None:
    item = Item(id="log_claim:00000", family="log_claim", layer="C", version="1.2", group="log_claim:g0000",
                level=1, variation=None, domain="retail", state="Intro.\n\nClaim: x", question="Is it?",
                options=(Option("yes", "the claim is correct for this log"),
                         Option("no", "the claim is not correct for this log")), answer="yes")
    item = Item(**{**item.__dict__, "state": "Intro.\n\nThe reviewer reads the whole record before answering the "
                                             "claim.\n\nClaim: x"})
    framed = frame_item(item, material("log_claim"), seed=1)
    assert [i.extra["framing"] for i in framed] == list(FRAMINGS)
    with pytest.raises(ValueError, match="only core items"):
        frame_item(Item(**{**item.__dict__, "answer": None, "level": None}), material("log_claim"), seed=1)


def test_insert_after_places_text_after_the_whole_state() -> None:
    assert insert_after("Head line.\n\nRules:\n1. x\n", "Note.", "note") == "Head line.\n\nRules:\n1. x\n\nNote."
    assert list(insert_after({"request": 1, "record": 2}, "Note.", "note")) == ["request", "record", "note"]
    with pytest.raises(ValueError, match="already has"):
        insert_after({"note": 1}, "Note.", "note")


def test_yes_no_families_rename_to_their_own_words() -> None:
    """labels must change what every kind sends: never yes/no, never true/false (System One's and the Decisions APIs'
    wire for a plain yes/no item)."""
    for name, stuff in materials().items():
        keys = ("yes", "no") if stuff.negation is not None else None
        if keys is None:
            continue
        renamed = stuff.labels(keys)
        assert len(set(renamed.values())) == 2 and not set(renamed.values()) & TAKEN_YES_NO_NAMES, name


def test_insert_text_places_text_after_the_opening_paragraph() -> None:
    assert insert_text("Head line.\n\nRules:\n1. x", "Note.", "note") == "Head line.\n\nNote.\n\nRules:\n1. x"
    assert insert_text({"request": 1, "record": 2}, "Note.", "note") == {"request": 1, "note": "Note.", "record": 2}
    assert list(insert_text({"request": 1, "record": 2}, "Note.", "note")) == ["request", "note", "record"]
    with pytest.raises(ValueError, match="already has"):
        insert_text({"note": 1}, "Note.", "note")
