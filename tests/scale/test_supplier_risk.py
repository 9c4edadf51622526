"""supplier_risk: the highest tier any figure reaches; one figure steps across one threshold; the solver."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import pairwise

from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale import supplier_risk as sr
from decisionpivot.scale.boundary import Boundary
from decisionpivot.verify.check import agreement
from tests.scale.conftest import items_by_group, scale_draw, scale_groups


def test_one_figure_crosses_the_groups_threshold_and_no_other_figure_goes_higher() -> None:
    for plan, group in scale_groups(sr.NAME):
        lower = Boundary.of(plan).edge - 1
        for member in group.members:
            case = dict(member.case)
            side = (member.variation or "").split("_")[0]
            assert sr.figure_tier(case, plan.variation) == lower + (side == "upper")
            others = [sr.figure_tier(case, c) for c in case["facts"] if c != plan.variation]
            assert max(others) <= lower
            assert sr.tier(case) == int(member.answer)


def test_the_decisive_figure_moves_one_step_per_member() -> None:
    for plan, group in scale_groups(sr.NAME):
        values = sorted(sr.figure(dict(m.case), plan.variation) for m in group.members)
        steps = {b - a for a, b in pairwise(values)}
        assert len(steps) == 1, (plan, values)
        [step] = steps
        if plan.variation in (sr.OVERDUE, sr.FINDINGS):
            assert step == 1
        else:  # one delivery of at least 300, one defective unit of at least 3,000: under a third of a point
            assert 0 < step <= Fraction(1, 3)


def test_every_other_figure_is_a_near_miss() -> None:
    """No figure but the decisive one reaches a tier (reaching tiers up to the group's lower one told the boundary),
    and each lies within one spacing of its first threshold."""
    for plan, group in scale_groups(sr.NAME):
        for member in group.members:
            case = dict(member.case)
            for criterion, thresholds in case["rules"]["thresholds"].items():
                if criterion == plan.variation:
                    continue
                assert sr.figure_tier(case, criterion) == 0
                if criterion == sr.ON_TIME and case["facts"][sr.ON_TIME]["deliveries"] < sr.MIN_DELIVERIES:
                    continue  # level 3: too few deliveries to count, whatever the rate
                spacing = abs(thresholds[1] - thresholds[0])
                rounding = Fraction(1, 2)  # a rate rounded to whole deliveries or units
                assert abs(sr.figure(case, criterion) - thresholds[0]) <= spacing + rounding


def test_ladders_do_not_depend_on_the_boundary() -> None:
    """A figure's thresholds come from its own draw of a start and a spacing, never from the group's boundary."""
    rng_a, rng_b = random.Random("ladder"), random.Random("ladder")
    for criterion in sr.CRITERIA:
        for count in (2, 4, 6):
            assert sr._ladder(rng_a, criterion, count) == sr._ladder(rng_b, criterion, count)
    assert "lower" not in sr._ladder.__code__.co_varnames


def test_members_differ_in_one_figure_line() -> None:
    for members in items_by_group(sr.NAME).values():
        base = str(members[0].state).splitlines()
        for other in members[1:]:
            changed = [a for a, b in zip(base, str(other.state).splitlines(), strict=True) if a != b]
            assert len(changed) == 1 and changed[0].startswith("- "), changed


def test_level_three_has_suppliers_with_too_few_deliveries() -> None:
    few = Counter()
    for plan, group in scale_groups(sr.NAME):
        facts = group.members[0].case["facts"]
        if plan.level == 3 and facts[sr.ON_TIME]["deliveries"] < sr.MIN_DELIVERIES:
            counted = {**group.members[0].case, "rules": {**group.members[0].case["rules"], "min_deliveries": 0}}
            few[sr.figure_tier(counted, sr.ON_TIME) > 0] += 1
    assert few[True] >= 10, "some of them would reach a tier if the rate counted"


def test_solver_agrees_on_the_release_and_a_fresh_draw() -> None:
    for seed in (SCALE_SEED, 7):
        result = agreement(sr.NAME, scale_draw(sr.NAME, seed).items)
        assert result.items == 600 and result.disagreements == (), result.disagreements[:5]
