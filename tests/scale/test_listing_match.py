"""listing_match: one figure steps across its requirement's limit; its points cross one grade edge; the solver."""

from __future__ import annotations

from collections import Counter

from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale import listing_match as lm
from decisionpivot.scale.boundary import Boundary
from decisionpivot.verify.check import agreement
from tests.scale.conftest import items_by_group, scale_draw, scale_groups


def test_the_decisive_figure_steps_across_its_limit_and_the_points_across_one_edge() -> None:
    for plan, group in scale_groups(lm.NAME):
        lower = Boundary.of(plan).edge - 1
        key = group.members[0].case["decisive"]
        [requirement] = [r for r in group.members[0].case["brief"] if r["key"] == key]
        assert requirement["direction"] == plan.variation
        values = sorted(lm.value(dict(m.case), key) for m in group.members)
        assert values == list(range(values[0], values[0] + len(values))), "one unit apart"
        for member in group.members:
            case = dict(member.case)
            side = (member.variation or "").split("_")[0]
            assert lm.meets(requirement, lm.value(case, key)) == (side == "upper")
            assert lm.grade(case) == lower + (side == "upper") == int(member.answer)
        assert requirement["limit"] in [lm.value(dict(m.case), key) for m in group.members], "a member on the limit"


def test_other_figures_clear_their_limits() -> None:
    """Only the decisive figure lies near its limit: every other one meets or misses it by a clear margin, and a
    figure that comes in round sizes (a lease in years, a service interval) by whole steps of them."""
    figures = {(s.domain, f.key): f for s in lm.SETTINGS for f in s.figures}
    for _, group in scale_groups(lm.NAME):
        case = group.members[0].case
        for requirement in case["brief"]:
            if requirement["key"] == case["decisive"]:
                continue
            figure = figures[(case["domain"], requirement["key"])]
            gap = abs(lm.value(case, requirement["key"]) - requirement["limit"])
            if figure.decisive:
                assert gap >= 2
            else:
                assert gap and gap % figure.limits[2] == 0


def test_weights_and_parts_by_level() -> None:
    seen: dict[int, Counter[str]] = {1: Counter(), 2: Counter(), 3: Counter()}
    for plan, group in scale_groups(lm.NAME):
        case = group.members[0].case
        seen[plan.level].update({f"points {r['points']}" for r in case["brief"]} | {f"parts {h}" for h in
                                                                                    case["parts"].values()})
    assert set(seen[1]) == {"points 1"}
    assert set(seen[2]) == {"points 1", "points 2"}
    assert {"points 3", "parts add", "parts subtract", "parts first only"} <= set(seen[3])


def test_members_differ_in_one_line() -> None:
    for members in items_by_group(lm.NAME).values():
        base = str(members[0].state).splitlines()
        for other in members[1:]:
            assert sum(a != b for a, b in zip(base, str(other.state).splitlines(), strict=True)) == 1


def test_solver_agrees_on_the_release_and_a_fresh_draw() -> None:
    for seed in (SCALE_SEED, 7):
        result = agreement(lm.NAME, scale_draw(lm.NAME, seed).items)
        assert result.items == 600 and result.disagreements == (), result.disagreements[:5]
