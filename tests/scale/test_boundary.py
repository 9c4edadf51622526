"""The boundary plan spreads the gold evenly over every level; the boundary contract catches a wrong member."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from decisionpivot.generate.family import Group, GroupContractError, GroupPlan, Member
from decisionpivot.scale.boundary import (
    Boundary,
    ScaleConfig,
    boundary_plan,
    check_boundary_group,
    expected_answers,
    offset,
    scale_plans,
    variation,
)
from decisionpivot.score_questions import level_options


@pytest.mark.parametrize("levels", [3, 4, 5, 6, 7])
def test_plan_gives_every_level_its_share_and_uses_every_boundary(levels: int) -> None:
    plan = boundary_plan(levels, 200)
    counts = Counter()
    for b in plan:
        counts[b.edge - 1] += b.lower
        counts[b.edge] += b.upper
        assert (b.lower, b.upper) in ((1, 1), (2, 1), (1, 2))
    assert sum(counts.values()) == 200
    assert set(counts) == set(range(levels))
    assert max(counts.values()) - min(counts.values()) <= 2, counts
    assert {b.edge for b in plan} == set(range(1, levels))
    assert plan == boundary_plan(levels, 200), "deterministic"


@pytest.mark.parametrize("items", [2, 3, 4, 5, 7, 200, 201])
def test_plan_makes_exactly_the_item_count(items: int) -> None:
    assert sum(b.lower + b.upper for b in boundary_plan(4, items)) == items


def test_members_offsets_and_answers() -> None:
    heavy_low = Boundary(5, 2, 2, 1)
    assert heavy_low.members() == (("lower", 2), ("lower", 1), ("upper", 1))
    assert [offset(*m) for m in heavy_low.members()] == [-2, -1, 0]
    assert heavy_low.answers() == ("1", "1", "2")
    heavy_up = Boundary(5, 4, 1, 2)
    assert [offset(*m) for m in heavy_up.members()] == [-1, 0, 1]
    assert heavy_up.answers() == ("3", "4", "4")
    assert Boundary.of(GroupPlan(1, 0, "x", heavy_up.params())) == heavy_up


def _group(boundary: Boundary, answers: list[str]) -> tuple[GroupPlan, Group]:
    options = level_options([(f"L{i}", "d") for i in range(boundary.levels)])
    members = tuple(Member(case={"v": i}, state=str(i), answer=a, options=options, variation=variation(*m))
                    for i, (m, a) in enumerate(zip(boundary.members(), answers, strict=True)))
    return GroupPlan(2, 0, "kind", boundary.params()), Group(2, "retail", members, frozenset({"v"}))


def test_contract_accepts_the_planned_group_and_refuses_a_wrong_gold_or_label() -> None:
    boundary = Boundary(4, 2, 1, 2)
    plan, group = _group(boundary, list(expected_answers(GroupPlan(2, 0, "kind", boundary.params()))))
    check_boundary_group("f", plan, group)
    _, skipped = _group(boundary, ["1", "3", "3"])  # the gold jumps two levels
    with pytest.raises(GroupContractError, match="expected 2"):
        check_boundary_group("f", plan, skipped)
    relabelled = replace(group, members=(replace(group.members[0], variation="upper_2"), *group.members[1:]))
    with pytest.raises(GroupContractError, match="labelled"):
        check_boundary_group("f", plan, relabelled)
    shorter = replace(group, members=group.members[:2])
    with pytest.raises(GroupContractError, match="planned 3"):
        check_boundary_group("f", plan, shorter)


def test_config_refuses_scales_outside_three_to_seven() -> None:
    with pytest.raises(ValueError, match="3-7 levels"):
        ScaleConfig(levels=(3, 4, 8)).validate()
    with pytest.raises(ValueError, match="at least"):
        ScaleConfig(items_per_level=4, levels=(3, 4, 7)).validate()


def test_decisive_kinds_are_spread_over_every_boundary() -> None:
    """Taken in plan order, the kinds followed the plan's own period (on three levels the boundaries alternate), and
    a family with four kinds had two of them only at the lowest boundary."""
    plans = scale_plans((3, 5, 7), 200, (("a", "b", "c", "d"),) * 3)
    for level in (1, 2, 3):
        by_edge: dict[int, Counter[str]] = {}
        for plan in plans:
            if plan.level == level:
                by_edge.setdefault(Boundary.of(plan).edge, Counter())[plan.variation] += 1
        for edge, kinds in by_edge.items():
            assert set(kinds) == {"a", "b", "c", "d"} and max(kinds.values()) - min(kinds.values()) <= 2, (edge, kinds)
