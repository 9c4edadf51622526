"""support_priority: one decisive time, minutes either side of a round band edge, the clock rules, the solver."""

from __future__ import annotations

from collections import Counter

from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale import support_priority as sp
from decisionpivot.scale.boundary import Boundary, offset
from decisionpivot.score_questions import gold_level
from decisionpivot.verify.check import agreement
from tests.scale.conftest import items_by_group, scale_draw, scale_groups


def test_time_open_moves_one_minute_per_member_across_a_round_edge() -> None:
    for plan, group in scale_groups(sp.NAME):
        boundary = Boundary.of(plan)
        rules = group.members[0].case["rules"]
        edge = rules["edges"][boundary.edge - 1]
        assert edge % 30 == 0, "band edges are round"
        first = edge if rules["style"] == sp.FROM else edge + 1  # the first minute of the upper band
        for member in group.members:
            side, steps = (member.variation or "").split("_")
            assert sp.time_open(dict(member.case)) == first + offset(side, int(steps))
            assert sp.band(first + offset(side, int(steps)), rules["edges"], rules["style"]) == int(member.answer)


def test_members_differ_in_one_line_of_the_state() -> None:
    for members in items_by_group(sp.NAME).values():
        base = str(members[0].state).splitlines()
        for other in members[1:]:
            lines = str(other.state).splitlines()
            assert len(lines) == len(base)
            assert sum(a != b for a, b in zip(base, lines, strict=True)) == 1


def test_levels_add_the_clock_rules() -> None:
    by_level: dict[int, Counter[str]] = {1: Counter(), 2: Counter(), 3: Counter()}
    for plan, group in scale_groups(sp.NAME):
        rules = group.members[0].case["rules"]
        by_level[plan.level].update({"pauses": rules["pauses"], "hours": rules["hours"] is not None,
                                     f"kind {plan.variation}": True})
    assert by_level[1]["pauses"] == by_level[1]["hours"] == 0
    assert by_level[2]["pauses"] > 0 and by_level[2]["hours"] == 0
    assert by_level[3]["pauses"] == by_level[3]["hours"] == sum(1 for p, _ in scale_groups(sp.NAME) if p.level == 3)
    for level in (2, 3):
        assert {k for k in by_level[level] if k.startswith("kind")} == {"kind logged", "kind checked", "kind reply"}


def test_rule_style_says_nothing_about_the_heavy_side() -> None:
    """Whether the edge opens or closes a band is drawn apart from which side a group's third member is on."""
    seen: Counter[tuple[str, int]] = Counter()
    for plan, group in scale_groups(sp.NAME):
        seen[(group.members[0].case["rules"]["style"], Boundary.of(plan).lower)] += 1
    for lower in (1, 2):
        share = seen[(sp.FROM, lower)] / (seen[(sp.FROM, lower)] + seen[(sp.UP_TO, lower)])
        assert 0.35 < share < 0.65, seen


def test_every_level_three_request_is_counted_in_opening_hours_only() -> None:
    """The clock-time shortcut (no stops, no opening hours, from the first history line) misses at every level."""
    misses = Counter()
    for item in scale_draw(sp.NAME).items:
        probs = sp.heuristic_clock_time(item)
        misses[item.level] += max(probs, key=probs.__getitem__) != item.answer
    assert all(misses[level] > 60 for level in (1, 2, 3)), misses


def test_solver_agrees_on_the_release_and_a_fresh_draw() -> None:
    for seed in (SCALE_SEED, 7):
        result = agreement(sp.NAME, scale_draw(sp.NAME, seed).items)
        assert result.items == 600 and result.disagreements == (), result.disagreements[:5]


def test_solver_reads_the_state_not_the_gold() -> None:
    """A check at 23:59 instead leaves a level-1 request of the lowest priority open far longer: the solver's
    answer moves with the text."""
    from dataclasses import replace

    from decisionpivot.solve.scale.support_priority import solve

    item = next(i for i in scale_draw(sp.NAME).items if i.level == 1 and gold_level(i) == 0)
    text = str(item.state)
    last = text.splitlines()[-1]
    moved = last[: -len("HH:MM.")] + "23:59."
    assert solve(replace(item, state=text.replace(last, moved))) != item.answer


def test_history_length_says_nothing_about_the_boundary() -> None:
    """As many notes and waits whatever the time open (a short request once showed fewer lines: the audit's
    line-count probe read the level off them)."""
    lines: dict[tuple[int, int], list[int]] = {}
    for seed in (SCALE_SEED, 7, 8):  # three draws: a level's boundaries have 12 to 30 groups each
        for plan, group in scale_groups(sp.NAME, seed):
            lines.setdefault((plan.level, Boundary.of(plan).edge), []).append(len(group.members[0].case["events"]))
    for level in (1, 2, 3):
        means = [sum(v) / len(v) for (lv, _), v in lines.items() if lv == level]
        assert max(means) - min(means) < 0.6, (level, means)
