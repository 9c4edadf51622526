"""reconcile_band: one side of one invoice moves the difference one cent across a band edge; the solver."""

from __future__ import annotations

from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale import reconcile_band as rb
from decisionpivot.scale.boundary import Boundary, offset
from decisionpivot.verify.check import agreement
from tests.scale.conftest import items_by_group, scale_draw, scale_groups


def test_the_difference_moves_one_cent_per_member_across_a_round_edge() -> None:
    for plan, group in scale_groups(rb.NAME):
        rules = group.members[0].case["rules"]
        edge = rules["edges"][Boundary.of(plan).edge - 1]
        assert edge in (100, 200, 500, 1000, 2000, 2500, 5000, 10000, 20000, 25000, 50000, 100000)
        first = edge if rules["style"] == rb.FROM else edge + 1  # the first size of the upper band, in cents
        for member in group.members:
            side, steps = (member.variation or "").split("_")
            assert abs(rb.difference(dict(member.case))) == first + offset(side, int(steps))


def test_the_decisive_invoice_is_on_both_sides_with_two_amounts_far_from_the_difference() -> None:
    for plan, group in scale_groups(rb.NAME):
        case = group.members[0].case
        side, index, _ = case["decisive"].split("/")
        assert side == plan.variation
        line = case[side][int(index)]
        other = "ledger" if side == "statement" else "statement"
        [twin] = [x for x in case[other] if x["ref"] == line["ref"]]
        assert line["kind"] == twin["kind"] == rb.INVOICE and line["amount"] != twin["amount"]
        assert all(x["amount"] % 100 for x in (*case["statement"], *case["ledger"])), "no whole amounts"


def test_members_differ_in_one_line() -> None:
    for members in items_by_group(rb.NAME).values():
        base = str(members[0].state).splitlines()
        for other in members[1:]:
            changed = [a for a, b in zip(base, str(other.state).splitlines(), strict=True) if a != b]
            assert len(changed) == 1 and ", invoice INV-" in changed[0]


def test_left_out_lines_appear_from_level_two() -> None:
    for plan, group in scale_groups(rb.NAME):
        case = group.members[0].case
        left_out = len(case["ledger"]) - len(rb.counted(case, "ledger"))
        assert (left_out > 0) == (plan.level >= 2)


def test_solver_agrees_on_the_release_and_a_fresh_draw() -> None:
    for seed in (SCALE_SEED, 7):
        result = agreement(rb.NAME, scale_draw(rb.NAME, seed).items)
        assert result.items == 600 and result.disagreements == (), result.disagreements[:5]
