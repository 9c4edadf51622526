"""booking_check: counts, the pivot at a limit, level sizes and the shortcut heuristics."""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from typing import Any

import pytest

from decisionpivot.audit.text import text_findings
from decisionpivot.generate import booking_check as bc
from decisionpivot.generate.family import Group, case_difference
from decisionpivot.generate.registry import family
from tests.conftest import built_groups, cached_draw

NAME = "booking_check"


def _members(group: Group) -> tuple[dict[str, Any], dict[str, Any]]:
    pos = next(m for m in group.members if m.answer == "yes")
    neg = next(m for m in group.members if m.answer == "no")
    return dict(pos.case), dict(neg.case)


def test_groups_are_pairs_with_the_papers_split() -> None:
    items = cached_draw(NAME).items
    groups = defaultdict(list)
    for item in items:
        groups[item.group].append(item)
    assert len(groups) == 300
    assert all(sorted(m.answer for m in g) == ["no", "yes"] for g in groups.values())
    negatives = Counter(i.variation for i in items if i.answer == "no")
    assert negatives == {"overlap": 112, "person": 77, "capacity": 37, "equipment": 37, "hours": 37}
    assert all(i.variation is None for i in items if i.answer == "yes")
    for level in (1, 2, 3):
        per_level = Counter(i.variation for i in items if i.answer == "no" and i.level == level)
        assert sum(per_level.values()) == 100
        for variation, total in negatives.items():
            assert abs(per_level[variation] - total / 3) < 1, (level, variation, per_level)
        assert Counter(i.answer for i in items if i.level == level) == {"yes": 100, "no": 100}


def test_type_totals_scale_with_the_config() -> None:
    assert bc._type_totals(300) == {
        "overlap": 112,
        "person": 77,
        "capacity": 37,
        "equipment": 37,
        "hours": 37,
    }
    assert sum(bc._type_totals(30).values()) == 30
    small = bc.BookingCheckConfig(items_per_level=20)
    plans = bc.plan(small)
    assert len(plans) == 30 and Counter(p.level for p in plans) == {1: 10, 2: 10, 3: 10}


def test_members_differ_in_one_field_and_one_rendered_line() -> None:
    for plan, group in built_groups(NAME):
        assert len(group.decisive) == 1
        pos, neg = _members(group)
        assert case_difference(pos, neg) == set(group.decisive)
        a = group.members[0].state.splitlines()  # type: ignore[union-attr]
        b = group.members[1].state.splitlines()  # type: ignore[union-attr]
        assert len(a) == len(b)
        changed = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        assert len(changed) == 1, plan
        blocks = difflib.SequenceMatcher(
            a=changed[0][0], b=changed[0][1], autojunk=False
        ).get_matching_blocks()
        assert sum(b.size for b in blocks) >= max(len(changed[0][0]), len(changed[0][1])) - 22, changed


def test_level_sizes() -> None:
    config = bc.BookingCheckConfig()
    for plan, group in built_groups(NAME):
        case = group.members[0].case
        li = plan.level - 1
        assert config.rooms[li][0] <= len(case["rooms"]) <= config.rooms[li][1]
        assert config.bookings[li][0] <= len(case["bookings"]) <= config.bookings[li][1]
        assert config.days[li][0] <= len(case["dates"]) <= config.days[li][1]
        assert {b["date"] for b in case["bookings"]} <= set(case["dates"])
    sizes = defaultdict(list)
    for item in cached_draw(NAME).items:
        sizes[item.level].append(len(item.state))
    medians = {lv: sorted(v)[len(v) // 2] for lv, v in sizes.items()}
    assert medians[1] < medians[2] < medians[3]
    overall = sorted(len(i.state) for i in cached_draw(NAME).items)[300]
    assert 1600 <= overall <= 5000


def _gap(a: dict[str, Any], b: dict[str, Any]) -> int:
    return max(a["start"] - b["end"], b["start"] - a["end"])


def test_positive_sits_exactly_at_the_limit_and_negative_one_unit_past() -> None:
    for plan, group in built_groups(NAME):
        pos, neg = _members(group)
        path = next(iter(group.decisive))
        assert bc.failures(pos) == [] and bc.failures(neg) == [plan.variation]
        if plan.variation in ("overlap", "person"):

            def closest(case: dict[str, Any], variation: str = plan.variation) -> int:
                req = case["request"]
                people = {req["organiser"], *req["attendees"]}
                gaps = [
                    _gap(b, req)
                    for b in case["bookings"]
                    if b["date"] == req["date"]
                    and (
                        (variation == "overlap" and b["room"] == req["room"])
                        or (variation == "person" and people & {b["organiser"], *b["attendees"]})
                    )
                ]
                return min(gaps)

            limit = pos["buffer"] if plan.variation == "overlap" else 0
            assert closest(pos) == limit and closest(neg) == limit - 1, plan
        elif plan.variation == "capacity":
            extra = 0 if pos["count_includes_organiser"] else 1
            room = bc._room(pos, pos["request"]["room"])
            assert pos["request"]["count"] + extra == room["capacity"]
            nroom = bc._room(neg, neg["request"]["room"])
            assert neg["request"]["count"] + extra == nroom["capacity"] + 1
        elif plan.variation == "hours":
            room = bc._room(pos, pos["request"]["room"])
            if path == "request/start":
                assert pos["request"]["start"] == room["open"]
                assert neg["request"]["start"] == room["open"] - bc.HOURS_STEP
            else:
                assert pos["request"]["end"] == room["close"]
                assert neg["request"]["end"] == room["close"] + bc.HOURS_STEP
        elif plan.variation == "equipment" and path.endswith("/count"):

            def short(case: dict[str, Any]) -> int:
                held = {e["item"]: e["count"] for e in bc._room(case, case["request"]["room"])["equipment"]}
                return max(e["count"] - held.get(e["item"], 0) for e in case["request"]["equipment"])

            assert short(pos) == 0 and short(neg) == 1


def _at(case: dict[str, Any], path: str) -> Any:
    node: Any = case
    for part in path.split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def test_time_pivots_move_one_minute_and_round_either_member_equally_often() -> None:
    round_on: Counter[str] = Counter()
    for plan, group in built_groups(NAME):
        if plan.variation not in ("overlap", "person"):
            continue
        pos, neg = _members(group)
        path = next(iter(group.decisive))
        node_p, node_n = _at(pos, path), _at(neg, path)
        assert abs(node_p - node_n) == 1
        round_on["positive" if node_p % 5 == 0 else "negative" if node_n % 5 == 0 else "neither"] += 1
    total = sum(round_on.values())
    # the limit time is uniform over the 5-minute cycle: each member round one time in five
    assert all(0.1 * total < round_on[k] < 0.3 * total for k in ("positive", "negative")), round_on
    assert 0.5 * total < round_on["neither"] < 0.7 * total, round_on


FRESH_SEEDS = (7, 11, 23)


def test_decisive_minutes_are_distributed_alike_over_answers_on_fresh_draws() -> None:
    """Issue #7: a clock minute must not tell the negative from the positive.

    The negative's decisive time is the positive's plus or minus one minute, so the probe sees a
    shifted minute token at the same place of the text. Unless the positive's minute is spread evenly
    over the 5-minute cycle, the shift shows: with round opening hours every hours negative ended on
    :59/:29/:14, and the old round-value die left the two members disjoint minute residues (the
    bag-of-bigrams probe reached +6 points on seed 7). Per decisive field, over fresh draws, the
    minute residues (mod 5) of positives and negatives must have nearly the same distribution.
    """
    pos: dict[str, Counter[int]] = defaultdict(Counter)
    neg: dict[str, Counter[int]] = defaultdict(Counter)
    for seed in FRESH_SEEDS:
        for plan, group in built_groups(NAME, seed):
            if plan.variation not in ("overlap", "person", "hours"):
                continue
            path = next(iter(group.decisive))
            kind = re.sub(r"/\d+/", "/i/", path)
            p, n = _members(group)
            pos[kind][_at(p, path) % 5] += 1
            neg[kind][_at(n, path) % 5] += 1
    assert set(pos) == {"request/start", "request/end", "bookings/i/start", "bookings/i/end"}
    for kind, counts in pos.items():
        total = sum(counts.values())
        distance = sum(abs(counts[r] - neg[kind][r]) for r in range(5)) / (2 * total)
        assert distance < 0.25, (kind, total, dict(counts), dict(neg[kind]))


def test_capacity_exact_requests_appear_in_yes_and_no_alike() -> None:
    items = cached_draw(NAME).items
    full = Counter(i.answer for i in items if bc.heuristic_room_exactly_full(i)["yes"] == 1.0)
    assert full["yes"] > 0 and full["no"] > 0
    assert abs(full["yes"] - full["no"]) <= 0.1 * (full["yes"] + full["no"])


@pytest.mark.parametrize("name", ["room_exactly_full", "touching_booking", "person_busy_that_day"])
def test_surface_heuristics_stay_near_chance_at_every_level(name: str) -> None:
    h = family(NAME).heuristics[name]
    items = cached_draw(NAME).items
    for level in (1, 2, 3):
        sub = [i for i in items if i.level == level]
        hits = sum(max(h(i).items(), key=lambda kv: kv[1])[0] == i.answer for i in sub)
        assert 0.45 <= hits / len(sub) <= 0.55, (name, level, hits)


def test_named_people_and_the_room_are_busy_in_both_members_alike() -> None:
    """Per pair, the surface heuristics give the same answer on both members (so 0.5 by construction)."""
    items = cached_draw(NAME).items
    groups = defaultdict(list)
    for item in items:
        groups[item.group].append(item)
    for name in ("touching_booking", "person_busy_that_day"):
        h = family(NAME).heuristics[name]
        for members in groups.values():
            assert h(members[0]) == h(members[1]), (name, members[0].id)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"items_per_level": 7}, "even"),
        ({"items_per_level": 0}, "positive"),
        ({"rooms": ((1, 2), (3, 4), (5, 6))}, "second room"),
        ({"rooms": ((2, 2), (3, 4))}, "one"),
        ({"bookings": ((8, 6), (12, 17), (20, 28))}, "empty"),
        ({"days": ((0, 1), (1, 2), (2, 3))}, "days"),
        ({"bookings": ((2, 3), (12, 17), (20, 28))}, "at least 4"),
        ({"bookings": ((11, 12), (12, 17), (20, 28))}, "do not fit"),
        ({"people": ((4, 5), (12, 14), (16, 20))}, "too few"),
    ],
)
def test_config_validate_rejects(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bc.BookingCheckConfig(**kwargs).validate()


# --- core 1.2 text revision ------------------------------------------------------------------------


def test_no_text_findings_on_release_and_fresh_seeds() -> None:
    for seed in (20261008, 1, 2):
        assert text_findings(cached_draw(NAME, seed).items) == []


def test_sheet_is_kept_by_a_facilities_team_and_dashes_stay_in_tables() -> None:
    for item in cached_draw(NAME).items:
        intro = item.state.splitlines()[0]
        assert re.search(r"the ([a-z ]+) team\.$", intro)[1] in bc.KEEPERS  # type: ignore[index]
        assert " a adult" not in intro
        assert "other named attendees: -," not in item.state


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_rooms_open_on_the_hour_or_half_hour_and_hours_pairs_stay_on_that_grid() -> None:
    """1.2 opened rooms at 08:02 and closed them at 19:03 (drawn to the minute so that an hours negative one minute
    off showed no odd minute); 1.3 opens them on the half hour and moves the hours negative by half an hour."""
    assert bc.HOURS_STEP == 30
    hours = 0
    for seed in (20261008, 7):
        for plan, group in built_groups(NAME, seed):
            for member in group.members:
                for room in member.case["rooms"]:
                    assert room["open"] % 30 == 0 and room["close"] % 30 == 0, room
            if plan.variation == "hours":
                pos, neg = _members(group)
                path = next(iter(group.decisive))
                assert _at(pos, path) % 30 == 0 and _at(neg, path) % 30 == 0
                hours += 1
    assert hours >= 70
