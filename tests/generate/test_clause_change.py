"""clause_change: group layout, answer balance, the pivot property, boundary values, levels and shortcuts."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any

import pytest

from decisionpivot.generate import clause_change as C
from decisionpivot.generate.family import case_difference
from decisionpivot.generate.registry import family
from tests.conftest import built_groups, cached_draw, items_by_group

EXPECTED_ANSWERS = {
    1: {"same": 67, "yes_only_A": 67, "yes_only_B": 66},
    2: {"same": 67, "yes_only_A": 66, "yes_only_B": 67},
    3: {"same": 66, "yes_only_A": 67, "yes_only_B": 67},
}


def _windows(case: dict[str, Any]) -> dict[str, tuple[int, int]]:
    lower = next(c for c in case["clauses"] if c["kind"] == "lower")
    upper = next(c for c in case["clauses"] if c["kind"] == "upper")
    return {v: (C._bounds(lower["op"][v], lower["limit"][v]), C._bounds(upper["op"][v], upper["limit"][v]))
            for v in ("A", "B")}


def test_group_layout() -> None:
    groups = items_by_group(C.NAME)
    assert len(groups) == 200
    sizes = Counter((members[0].level, len(members)) for members in groups.values())
    assert sizes == {(1, 3): 66, (1, 2): 1, (2, 3): 66, (2, 2): 1, (3, 3): 64, (3, 4): 2}


def test_answers_balanced_per_level_and_overall() -> None:
    for level, expected in EXPECTED_ANSWERS.items():
        assert Counter(i.answer for i in cached_draw(C.NAME).items if i.level == level) == expected
    assert Counter(i.answer for i in cached_draw(C.NAME).items) == {"same": 200, "yes_only_A": 200, "yes_only_B": 200}
    variations = Counter(i.variation for i in cached_draw(C.NAME).items)
    assert variations == {"lower_gap": 200, "upper_gap": 200, "outside": 200}


def test_options_fixed_in_order() -> None:
    for item in cached_draw(C.NAME).items:
        assert item.option_keys == ("same", "yes_only_A", "yes_only_B")


def test_each_group_has_one_looser_version_and_a_same_member() -> None:
    for members in items_by_group(C.NAME).values():
        answers = Counter(m.answer for m in members)
        assert answers["same"] == 1
        assert len(answers) == 2, answers
        gaps = {m.variation for m in members if m.answer != "same"}
        if len(members) >= 3:
            assert gaps == {"lower_gap", "upper_gap"}


def test_pivot_is_the_fact_value_only() -> None:
    for _, group in built_groups(C.NAME):
        assert group.decisive == frozenset({"fact/value"})
        base = group.members[0]
        for other in group.members[1:]:
            assert case_difference(base.case, other.case) == {"fact/value"}
            a, b = str(base.state).splitlines(), str(other.state).splitlines()
            changed = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
            assert len(changed) == 1
            assert changed[0][0].split(":")[0] == changed[0][1].split(":")[0]  # the same fact line


def test_placements_match_the_windows() -> None:
    for plan, group in built_groups(C.NAME):
        loose = plan.params["loose"]
        strict = "B" if loose == "A" else "A"
        for member in group.members:
            windows = _windows(dict(member.case))
            (ll, lh), (tl, th) = windows[loose], windows[strict]
            assert ll < tl <= th < lh
            value = member.case["fact"]["value"]
            if member.variation == "lower_gap":
                assert ll <= value < tl
            elif member.variation == "upper_gap":
                assert th < value <= lh
            else:
                assert value < ll or tl <= value <= th or value > lh


def test_boundary_values() -> None:
    """Most values sit exactly at a limit or one unit past it, about equally often in both answer kinds."""
    at_limit: Counter[bool] = Counter()
    one_past: Counter[bool] = Counter()
    members: Counter[bool] = Counter()
    for _, group in built_groups(C.NAME):
        for member in group.members:
            windows = _windows(dict(member.case))
            value = member.case["fact"]["value"]
            bounds = {b for w in windows.values() for b in w}
            near = {b - 1 for w in windows.values() for b in (w[0],)} | {w[1] + 1 for w in windows.values()}
            same = member.answer == "same"
            members[same] += 1
            at_limit[same] += value in bounds
            one_past[same] += value in near or (value - 1 in bounds) or (value + 1 in bounds)
    for same in (True, False):
        assert at_limit[same] >= 0.35 * members[same], (same, at_limit, members)
        assert at_limit[same] + one_past[same] >= 0.7 * members[same]
    share = {same: at_limit[same] / members[same] for same in (True, False)}
    assert abs(share[True] - share[False]) <= 0.15, share


def test_printed_figures_do_not_give_the_answer_away() -> None:
    """'The fact equals a figure of a limit clause' is about as common for 'same' as for the others."""
    equal: Counter[bool] = Counter()
    total: Counter[bool] = Counter()
    for _, group in built_groups(C.NAME):
        for member in group.members:
            figures = {c["limit"][v] for c in member.case["clauses"] if c["kind"] != "other" for v in "AB"}
            same = member.answer == "same"
            total[same] += 1
            equal[same] += member.case["fact"]["value"] in figures
    assert abs(equal[True] / total[True] - equal[False] / total[False]) <= 0.15


def _figures(text: str) -> list[str]:
    return re.findall(r"\d[\d,]*", text)


def test_level_sizes_and_distractor_changes() -> None:
    config = C.ClauseChangeConfig()
    for plan, group in built_groups(C.NAME):
        case = group.members[0].case
        clauses = case["clauses"]
        low, high = config.clauses[plan.level - 1]
        assert low <= len(clauses) <= high
        others = [c for c in clauses if c["kind"] == "other"]
        differing = [c for c in others if c["text"]["A"] != c["text"]["B"]]
        figures_changed = [c for c in differing
                           if _figures(c["text"]["A"]) != _figures(c["text"]["B"])]
        assert len(figures_changed) == config.irrelevant_changes[plan.level - 1]
        assert len(differing) - len(figures_changed) == config.rewordings[plan.level - 1]
        for clause in clauses:
            if clause["kind"] != "other":
                assert clause["limit"]["A"] != clause["limit"]["B"]
                if plan.level < 3:
                    assert clause["op"]["A"] == clause["op"]["B"]


def test_state_length_grows_with_level() -> None:
    medians = {}
    for level in (1, 2, 3):
        lengths = sorted(len(str(i.state)) for i in cached_draw(C.NAME).items if i.level == level)
        medians[level] = lengths[len(lengths) // 2]
    assert 1600 <= medians[1] < medians[2] < medians[3] <= 5000, medians


def test_ignore_facts_reader_gets_two_thirds_of_items_and_no_group() -> None:
    heuristic = family(C.NAME).heuristics["ignore_facts"]
    for level in (1, 2, 3):
        items = [i for i in cached_draw(C.NAME).items if i.level == level]
        accuracy = sum(heuristic(i)[i.answer or ""] for i in items) / len(items)
        assert 0.6 <= accuracy <= 0.7, (level, accuracy)
    groups = items_by_group(C.NAME).values()
    solved = sum(all(heuristic(m)[m.answer or ""] == 1.0 for m in members) for members in groups)
    assert solved <= 1


def test_boundary_semantics() -> None:
    assert [C._bounds(op, 30) for op in (">=", ">", "<=", "<")] == [30, 31, 30, 29]
    case = {"fact": {"value": 30}, "clauses": [
        {"kind": "lower", "op": {"A": ">=", "B": ">"}, "limit": {"A": 30, "B": 30}},
        {"kind": "upper", "op": {"A": "<=", "B": "<="}, "limit": {"A": 90, "B": 90}},
    ]}
    assert C.answer(case) == "yes_only_A"  # exactly at 'at least 30'; not 'more than 30'
    case["fact"] = {"value": 31}
    assert C.answer(case) == "same"
    case["fact"] = {"value": 91}
    assert C.answer(case) == "same"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"items_per_level": 5}, "at least 6"),
        ({"clauses": ((5, 8), (10, 11), (12, 14))}, "clauses per version"),
        ({"irrelevant_changes": (0, 1, 30)}, "too many changed"),
        ({"exclusive_switch": (0.0, 0.0, 1.5)}, "probability"),
        ({"extra_facts": (3, 5, 70)}, "extra facts"),
    ],
)
def test_config_validate_errors(change: dict[str, Any], message: str) -> None:
    config = dataclasses.replace(C.ClauseChangeConfig(), **change)
    with pytest.raises(ValueError, match=message):
        config.validate()


# --- 1.2 text revision ----------------------------------------------------------------------------------


def test_no_force_majeure_no_doubled_at_and_people_agree() -> None:
    for item in cached_draw(C.NAME).items:
        assert isinstance(item.state, str)
        assert "majeure" not in item.state, item.id
        assert "at at " not in item.state, item.id
        assert ": 1 people" not in item.state, item.id


def test_articles_before_goods() -> None:
    for item in cached_draw(C.NAME).items:
        assert isinstance(item.state, str)
        assert not re.search(r"\ba [aeiou]", item.state), item.id


def test_storage_deposit_and_booking_topics_fit_their_domains() -> None:
    assert "retail" not in C.TOPIC_BY_KEY["storage"].domains
    assert set(C.TOPIC_BY_KEY["deposit"].domains) <= {"hospitality", "education"}
    assert set(C.TOPIC_BY_KEY["lead"].domains) <= {"hospitality", "education"}
    for item in cached_draw(C.NAME).items:
        assert isinstance(item.state, str)
        for noun in ("syllabus", "support plan", "license seat", "kitchen department", "front desk"):
            assert noun not in item.state, (item.id, noun)


def test_the_customer_places_orders_and_holds_events() -> None:
    for _plan, group in built_groups(C.NAME):
        case = group.members[0].case
        if case["topic"] in ("order", "deposit", "guests", "lead", "term", "outage", "loan"):
            customer = re.search(r"(?:with|and) ([A-Z][a-z]+ [A-Za-z./]+) \(customer\)|^[A-Z][a-z]+ [A-Z][a-z]+ and "
                                 r"([A-Z][a-z]+ [A-Za-z./]+) are revising", case["intro"])
            assert customer is not None, case["intro"]
            named = case["point"] + case["fact"]["context"]
            assert (customer.group(1) or customer.group(2)) in named, (case["intro"], named)


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_the_question_names_every_option_and_presupposes_no_difference() -> None:
    """1.2 asked the yes/no "Does the change between the two versions alter the answer ...?" over three options, and
    "same" is right for a third of the items."""
    assert {item.question for item in cached_draw(C.NAME).items} == {C.QUESTION}
    assert C.QUESTION.endswith("?") and not C.QUESTION.startswith(("Does the change", "How does"))
    assert "same" in C.QUESTION and "only one" in C.QUESTION and "alter" not in C.QUESTION


def test_parties_read_as_companies_of_their_region() -> None:
    from decisionpivot.generate.common.names import LEGAL_FORMS, ORG_ENDINGS, region

    for _plan, group in built_groups(C.NAME):
        case = group.members[0].case
        intro = case["intro"]
        provider = (re.search(r"([A-Z][a-z]+ [A-Za-z]+) \(provider\)", intro)
                    or re.search(r"^([A-Z][a-z]+ [A-Za-z]+) and .* are revising", intro))
        assert provider is not None, intro
        _stem, ending = provider.group(1).split(" ")
        assert ending in ORG_ENDINGS[case["domain"]], intro
        assert f" {LEGAL_FORMS[region(case['domain']).name]}" in intro, intro


def test_conventional_figures_and_no_goods_in_a_credit_agreement() -> None:
    for item in cached_draw(C.NAME).items:
        text = str(item.state)
        for days in re.findall(r"Invoices are payable within (\d+) days|Payment is due (\d+) days", text):
            assert int(days[0] or days[1]) in (15, 30, 45, 60), item.id
        for days in re.findall(r"with (\d+) days' warning|after (\d+) days' warning", text):
            assert int(days[0] or days[1]) in (7, 14, 21, 28), item.id
        if item.domain == "finance":
            assert not re.search(r"card reader|PIN pad|cash counter|payment terminal|carries a warranty", text)
