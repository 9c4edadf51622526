"""Two members of a group, or two items of a draw, must not show the same state. Plain string states are
compared as strings, other states by ``repr`` (in a group) and by sorted-key JSON (in a draw), as before
strings skipped the escaping."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from decisionpivot.generate import registry
from decisionpivot.generate.family import (
    FamilyConfig,
    FamilySpec,
    Group,
    GroupContractError,
    GroupPlan,
    Member,
    check_group,
)
from decisionpivot.generate.run import _state_key, draw_family
from decisionpivot.items import Option

OPTIONS = (Option("yes", "it holds"), Option("no", "it does not"))

STATES: list[str | dict[str, Any]] = [
    "a", "b", "", '"a"', '{"x": 1}', "{'x': 1}", "caf\u00e9", "line\nbreak", "tab\there", "\ud800",
    {"x": 1}, {"x": 1.0}, {"x": True}, {"y": 1, "x": 1}, {"x": 1, "y": 1}, {"x": "a"}, {},
]  # fmt: skip
"""Strings that are other states' JSON or repr text, and dicts equal by == but not by repr."""


def _member(state: str | dict[str, Any], flag: int, answer: str) -> Member:
    return Member(case={"flag": flag}, state=state, answer=answer, options=OPTIONS)


def _group(states: Sequence[str | dict[str, Any]]) -> Group:
    members = tuple(_member(s, i, "yes" if i % 2 == 0 else "no") for i, s in enumerate(states))
    return Group(level=1, domain="d", members=members, decisive=frozenset({"flag"}))


PLAN = GroupPlan(level=1, index=0, variation="v")


def test_a_group_refuses_two_members_whose_states_have_the_same_repr() -> None:
    for a in STATES:
        for b in STATES:
            if repr(a) == repr(b):
                with pytest.raises(GroupContractError, match="two members have the same rendered state"):
                    check_group("f", PLAN, _group([a, b]), None)
            else:
                check_group("f", PLAN, _group([a, b]), None)


def test_the_draw_keys_states_apart_exactly_as_their_sorted_json_did() -> None:
    for a in STATES:
        for b in STATES:
            old_same = json.dumps(a, sort_keys=True, ensure_ascii=False) == json.dumps(
                b, sort_keys=True, ensure_ascii=False
            )
            assert (_state_key(a) == _state_key(b)) is old_same, (a, b)


def _tiny_family(state_of: Callable[[GroupPlan, int], str | dict[str, Any]]) -> FamilySpec:
    def plan(config: FamilyConfig) -> list[GroupPlan]:
        return [GroupPlan(level=level, index=0, variation="v") for level in (1, 2, 3)]

    def build_group(plan: GroupPlan, rng: object, config: FamilyConfig) -> Group:
        members = tuple(_member(state_of(plan, i), i, ("yes", "no")[i]) for i in range(2))
        return Group(level=plan.level, domain="d", members=members, decisive=frozenset({"flag"}))

    return FamilySpec(
        name="tiny_repeats", layer="A", version="1", question="Q?", config_type=FamilyConfig,
        plan=plan, build_group=build_group,
    )  # fmt: skip


@pytest.mark.parametrize(
    "state_of",
    [
        lambda plan, i: f"state {i}",  # every group shows the same two strings
        lambda plan, i: {"member": i, "level": min(plan.level, 2)},  # levels 2 and 3 show the same dicts
        lambda plan, i: {"level": 2, "member": i} if plan.level == 3 else {"member": i, "level": plan.level},
    ],
)
def test_a_draw_refuses_two_items_with_the_same_state(
    monkeypatch: pytest.MonkeyPatch, state_of: Callable[[GroupPlan, int], Any]
) -> None:
    registry._load_all()
    monkeypatch.setitem(registry._FAMILIES, "tiny_repeats", _tiny_family(state_of))
    with pytest.raises(GroupContractError, match="repeats the state of tiny_repeats:"):
        draw_family("tiny_repeats", 1, FamilyConfig(items_per_level=2))


def test_a_draw_takes_a_string_state_that_spells_another_items_json(monkeypatch: pytest.MonkeyPatch) -> None:
    def state_of(plan: GroupPlan, i: int) -> str | dict[str, Any]:
        return {"m": i} if plan.level == 1 else json.dumps({"m": i}) if plan.level == 2 else f"third {i}"

    registry._load_all()
    monkeypatch.setitem(registry._FAMILIES, "tiny_repeats", _tiny_family(state_of))
    assert len(draw_family("tiny_repeats", 1, FamilyConfig(items_per_level=2)).items) == 6
