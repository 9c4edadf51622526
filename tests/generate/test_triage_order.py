"""triage_order: group layout, balance, the pivot property, boundary members, levels and shortcuts."""

from __future__ import annotations

import dataclasses
import difflib
from collections import Counter
from typing import Any

import pytest

from decisionpivot.audit.text import text_findings
from decisionpivot.generate import triage_order as T
from decisionpivot.generate.family import case_difference
from decisionpivot.generate.registry import family
from tests.conftest import built_groups, cached_draw, items_by_group

EXPECTED_VARIATIONS = {
    1: {"arrival": 71, "current_time": 39, "deadline": 30, "class": 30, "threshold": 30},
    2: {"arrival": 71, "current_time": 39, "deadline": 30, "class": 30, "threshold": 30},
    3: {"arrival": 75, "current_time": 41, "deadline": 30, "class": 27, "threshold": 27},
}


def test_group_layout() -> None:
    groups = items_by_group(T.NAME)
    assert len(groups) == 201
    sizes = Counter((members[0].level, len(members)) for members in groups.values())
    assert sizes == {(1, 3): 66, (1, 2): 1, (2, 3): 66, (2, 2): 1, (3, 3): 66, (3, 2): 1}


def test_variation_counts_per_level() -> None:
    for level, expected in EXPECTED_VARIATIONS.items():
        found = Counter(i.variation for i in cached_draw(T.NAME).items if i.level == level)
        assert found == expected
    assert Counter(i.variation for i in cached_draw(T.NAME).items) == {
        "arrival": 217, "current_time": 119, "deadline": 90, "class": 87, "threshold": 87}


def test_gold_positions_balanced_per_level() -> None:
    for level in (1, 2, 3):
        positions = Counter(i.option_keys.index(i.answer or "") for i in cached_draw(T.NAME).items if i.level == level)
        assert positions == {0: 40, 1: 40, 2: 40, 3: 40, 4: 40}


def test_members_share_options_and_have_different_golds() -> None:
    for members in items_by_group(T.NAME).values():
        assert len({m.options for m in members}) == 1
        assert len(members[0].options) == T.N_OPTIONS
        assert len({m.answer for m in members}) == len(members)
        assert len({m.variation for m in members}) == 1


def test_pivot_one_path_and_one_rendered_line() -> None:
    prefixes = {"arrival": ("tickets/", "/arrival"), "current_time": ("now", ""),
                "deadline": ("tickets/", "/deadline"), "class": ("tickets/", "/class"),
                "threshold": ("rules/", "/minutes")}
    for plan, group in built_groups(T.NAME):
        (path,) = group.decisive
        start, end = prefixes[plan.variation]
        assert path.startswith(start) and path.endswith(end), (plan.variation, path)
        base = group.members[0]
        for other in group.members[1:]:
            assert case_difference(base.case, other.case) == {path}
            a, b = str(base.state).splitlines(), str(other.state).splitlines()
            assert len(a) == len(b)
            changed = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
            assert len(changed) == 1, difflib.unified_diff(a, b)


def _limit_marks(case: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Limits a case sits exactly at, and limits it is one minute past (waiting or deadline window)."""
    at: set[str] = set()
    past: set[str] = set()
    limits = {r["kind"]: r["minutes"] for r in case["rules"] if "minutes" in r}
    now = case["now"]
    for t in case["tickets"]:
        for kind in ("escalate", "escalate2"):
            if kind in limits:
                wait = now - t["arrival"]
                if wait == limits[kind]:
                    at.add(f"{t['ticket']}/{kind}")
                if wait == limits[kind] + 1:
                    past.add(f"{t['ticket']}/{kind}")
        if "deadline" in limits and t["deadline"] is not None:
            if t["deadline"] - now == limits["deadline"]:
                at.add(f"{t['ticket']}/deadline")
            if t["deadline"] - now == limits["deadline"] + 1:
                past.add(f"{t['ticket']}/deadline")
    return at, past


def test_boundary_members() -> None:
    """Every time-based group has a member exactly at a limit; most have the limit and one minute past it."""
    paired: Counter[str] = Counter()
    counted: Counter[str] = Counter()
    for plan, group in built_groups(T.NAME):
        if plan.variation == "class":
            continue
        marks = [_limit_marks(m.case) for m in group.members]
        where = f"{plan.variation} group {plan.level}/{plan.index}"
        assert any(at for at, _ in marks), f"{where} has no member at a limit"
        if plan.variation != "threshold":
            counted[plan.variation] += 1
            all_at = set().union(*(at for at, _ in marks))
            all_past = set().union(*(past for _, past in marks))
            paired[plan.variation] += bool(all_at & all_past)
    for variation, n in counted.items():
        assert paired[variation] >= 0.5 * n, (variation, paired[variation], n)


def test_boundary_semantics_on_a_small_queue() -> None:
    def ticket(n: int, cls: str, arrival: int, deadline: int | None = None,
               status: str = "open") -> dict[str, Any]:
        return {"ticket": f"T-{n}", "class": cls, "arrival": arrival, "deadline": deadline,
                "account": "standard", "status": status}

    case = {
        "now": 600, "classes": ["A", "B", "C"],
        "rules": [{"kind": "class_order"}, {"kind": "escalate", "minutes": 90},
                  {"kind": "deadline", "minutes": 30}, {"kind": "hold"}, {"kind": "tie"}],
        "tickets": [ticket(1001, "A", 590), ticket(2002, "B", 510), ticket(3003, "B", 509),
                    ticket(4004, "C", 580, deadline=630), ticket(5005, "C", 580, deadline=631),
                    ticket(6006, "A", 500, status="on hold")],
        "position": 1,
    }
    # 4004's deadline is exactly 30 minutes away (urgent); 3003 waited 91 minutes (moves up), 2002
    # exactly 90 (stays); 6006 is on hold.
    assert T.serve_order(case) == ["T-4004", "T-3003", "T-1001", "T-2002", "T-5005"]
    assert T.naive_order(case)[:2] == ["T-6006", "T-1001"]


def test_level_sizes() -> None:
    for plan, group in built_groups(T.NAME):
        case = group.members[0].case
        kinds = [r["kind"] for r in case["rules"]]
        adjustments = [k for k in kinds if k in T.ADJUSTMENTS]
        n = len(case["tickets"])
        if plan.level == 1:
            assert n == 6 and 2 <= len(kinds) <= 3
            assert any(k in T.TIME_RULES for k in kinds)
        elif plan.level == 2:
            assert 9 <= n <= 10 and 4 <= len(kinds) <= 5 and len(adjustments) == 1
        else:
            assert 12 <= n <= 14 and 5 <= len(kinds) <= 6 and len(adjustments) == 2


def test_state_length_grows_with_level() -> None:
    medians = {}
    for level in (1, 2, 3):
        lengths = sorted(len(str(i.state)) for i in cached_draw(T.NAME).items if i.level == level)
        medians[level] = lengths[len(lengths) // 2]
    assert 1600 <= medians[1] < medians[2] < medians[3] <= 5000, medians


def test_naive_class_then_arrival_stays_below_chance() -> None:
    heuristic = family(T.NAME).heuristics["class_then_arrival"]
    for level in (1, 2, 3):
        items = [i for i in cached_draw(T.NAME).items if i.level == level]
        accuracy = sum(heuristic(i)[i.answer or ""] for i in items) / len(items)
        assert accuracy <= 0.15, (level, accuracy)
    groups = items_by_group(T.NAME).values()
    solved = sum(all(heuristic(m)[m.answer or ""] == 1.0 for m in members) for members in groups)
    assert solved <= 2


def test_options_only_is_at_chance() -> None:
    """The position of the gold option is uniform, so an options-only reader gets 20%."""
    positions = Counter(i.option_keys.index(i.answer or "") for i in cached_draw(T.NAME).items)
    assert max(positions.values()) == min(positions.values()) == 120


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"items_per_level": 3}, "at least 4"),
        ({"cases": ((5, 6), (9, 10), (12, 14))}, "cases per queue"),
        ({"classes": ((2, 4), (4, 4), (4, 5))}, "classes"),
        ({"variation_weights": ((1, 1), (1, 1, 1, 1, 1), (1, 1, 1, 1, 1))}, "variation_weights"),
        ({"pair_variation": ("arrival", "arrival", "sideways")}, "unknown variation"),
        ({"variation_weights": ((0, 1, 1, 1, 1), (1, 1, 1, 1, 1), (1, 1, 1, 1, 1))}, "no groups"),
    ],
)
def test_config_validate_errors(change: dict[str, Any], message: str) -> None:
    config = dataclasses.replace(T.TriageOrderConfig(), **change)
    with pytest.raises(ValueError, match=message):
        config.validate()


# --- core 1.2 text revision ------------------------------------------------------------------------


def test_no_text_findings_on_release_and_fresh_seeds() -> None:
    for seed in (20261008, 1, 2):
        assert text_findings(cached_draw("triage_order", seed).items) == []


def test_queue_is_kept_by_the_domain_customer_desk() -> None:
    for item in cached_draw("triage_order").items:
        intro = item.state.splitlines()[0]
        assert f" {T.SETTINGS[item.domain].desk} " in intro
        for bad in ("desk desk", "service service", " a adult", "Dev "):
            assert bad not in intro


def test_only_machines_break_and_only_goods_of_the_domain_appear() -> None:
    for item in cached_draw("triage_order").items:
        setting = T.SETTINGS[item.domain]
        for option in item.options:
            text = option.meaning
            for tail in (" not working", " keeps switching off"):
                if text.endswith(tail):
                    assert text.removesuffix(tail).lower() in {m.lower() for m in setting.machines}, text
            assert "support plan" not in text.lower() and "making a noise" not in text


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_the_question_speaks_as_the_writer_would() -> None:
    """1.2 asked for "the position asked for in the state": "state" is the benchmark's word."""
    from decisionpivot.generate import triage_order as to

    assert "state" not in to.QUESTION.lower()
    assert {item.question for item in cached_draw("triage_order").items} == {to.QUESTION}


def test_summaries_are_the_customers_and_customers_fit_the_desk() -> None:
    """1.2 had "Facilities cannot open a course certificate" and academies queueing at student services."""
    from decisionpivot.generate import triage_order as to
    from decisionpivot.generate.common.domains import DOMAIN_BY_NAME
    from decisionpivot.generate.common.names import LEGAL_FORMS, region

    for seed in (20261008, 7):
        for item in cached_draw("triage_order", seed).items:
            text = str(item.state)
            setting = to.SETTINGS[item.domain]
            departments = DOMAIN_BY_NAME[item.domain].departments
            for option in item.options:
                said = option.meaning.lower()
                assert not any(said.startswith((f"{d} asks", f"{d} cannot", f"the {d} asks", f"the {d} cannot"))
                               or said == f"complaint about {d}" for d in departments), option.meaning
                assert "archive" not in option.meaning
            form = LEGAL_FORMS[region(item.domain).name]
            if setting.people:
                assert f" {form} " not in text and f" {form}\n" not in text, item.id
                assert setting.customer in text.lower(), item.id
            else:
                assert f" {form}" in text, item.id
