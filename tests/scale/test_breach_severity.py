"""breach_severity: one count of people moves the total across one band edge; nothing else tells the level."""

from __future__ import annotations

from collections import Counter

from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale import breach_severity as bs
from decisionpivot.scale.boundary import Boundary, offset
from decisionpivot.verify.check import agreement
from tests.scale.conftest import items_by_group, scale_draw, scale_groups


def test_the_total_moves_one_point_across_a_round_edge_by_one_person() -> None:
    for plan, group in scale_groups(bs.NAME):
        boundary = Boundary.of(plan)
        rules = group.members[0].case["rules"]
        edge = rules["edges"][boundary.edge - 1]
        assert edge % 5 == 0
        first = edge if rules["style"] == bs.FROM else edge + 1  # the upper band's first total
        people = {m.variation: bs.people_affected(m.case["facts"]) for m in group.members}
        for member in group.members:
            side, steps = (member.variation or "").split("_")
            assert bs.points(dict(member.case)) == (first if side == "upper" else first - 1)
            assert people[member.variation] == people["upper_1"] + offset(side, int(steps)), "one person apart"
        assert people["upper_1"] % rules["unit"] == 0, "the upper side starts at a full unit"


def test_nothing_but_the_people_depends_on_the_boundary() -> None:
    """The points from data, time and adjustments are spread the same way whatever the group's boundary."""
    other: dict[int, Counter[int]] = {}
    for plan, group in scale_groups(bs.NAME):
        case = group.members[0].case
        rest = bs.points(dict(case)) - bs.people_affected(case["facts"]) // case["rules"]["unit"]
        assert 0 <= rest <= bs.OTHER_POINTS_MAX
        other.setdefault(Boundary.of(plan).edge, Counter())[rest] += 1
    means = {edge: sum(k * v for k, v in c.items()) / sum(c.values()) for edge, c in other.items()}
    assert max(means.values()) - min(means.values()) < 1.0, means


def test_members_differ_in_the_people_line_only() -> None:
    for members in items_by_group(bs.NAME).values():
        base = str(members[0].state).splitlines()
        for other in members[1:]:
            changed = [a for a, b in zip(base, str(other.state).splitlines(), strict=True) if a != b]
            assert len(changed) == 1 and changed[0].startswith("People affected: ")


def test_the_rubric_grows_with_the_level() -> None:
    by_level = {level: [i for i in scale_draw(bs.NAME).items if i.level == level] for level in (1, 2, 3)}
    assert all("Take off" not in str(i.state) and "no one is on both lists" in str(i.state) for i in by_level[1])
    assert all("Take off 3 points" in str(i.state) and "Exposed from" in str(i.state) for i in by_level[2])
    assert all("under 18" in str(i.state) for i in by_level[3])
    assert any("Mitigation: none" not in str(i.state) for i in by_level[2])


def test_solver_agrees_on_the_release_and_a_fresh_draw() -> None:
    for seed in (SCALE_SEED, 7):
        result = agreement(bs.NAME, scale_draw(bs.NAME, seed).items)
        assert result.items == 600 and result.disagreements == (), result.disagreements[:5]
