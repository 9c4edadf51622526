"""ledger_reconcile: group structure, counts, the pivot on ledger B lines, boundaries, shortcuts."""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
from collections import Counter

import pytest

from decisionpivot.generate import ledger_reconcile as lr
from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import case_difference
from decisionpivot.generate.registry import family
from tests.conftest import built_groups, cached_draw, items_by_group

NAME = "ledger_reconcile"


def test_group_count_and_sizes() -> None:
    groups = items_by_group(NAME)
    assert len(groups) == 201
    for level in (1, 2, 3):
        sizes = Counter(len(m) for m in groups.values() if m[0].level == level)
        assert sizes == {3: 66, 2: 1}


def test_answer_and_variation_counts() -> None:
    items = cached_draw(NAME).items
    assert sum(i.answer == "none" for i in items) == 100
    assert Counter(i.option_keys.index(i.answer) for i in items) == {k: 100 for k in range(6)}
    assert Counter(i.variation for i in items) == {
        "missing_line": 142,
        "changed_amount": 140,
        "late_date": 110,
        "broken_split": 108,
        None: 100,
    }
    per_level = {lv: Counter(i.variation for i in items if i.level == lv) for lv in (1, 2, 3)}
    assert per_level[1] == {"missing_line": 56, "changed_amount": 55, "late_date": 55, None: 34}
    assert per_level[2] == {
        "missing_line": 43,
        "changed_amount": 43,
        "late_date": 27,
        "broken_split": 54,
        None: 33,
    }
    assert per_level[3] == {
        "missing_line": 43,
        "changed_amount": 42,
        "late_date": 28,
        "broken_split": 54,
        None: 33,
    }
    for item in items:
        assert (item.answer == "none") == (item.variation is None)
        assert [o.key for o in item.options][-1] == "none" and len(item.options) == 6


def test_members_of_a_group_have_different_answers_and_share_options() -> None:
    for members in items_by_group(NAME).values():
        assert len({m.answer for m in members}) == len(members)
        assert len({m.options for m in members}) == 1
        keys = [k for k in members[0].option_keys if k != "none"]
        assert keys == sorted(keys), "entry options are listed in ledger order"


def test_pivot_only_ledger_b_lines_differ() -> None:
    for _, group in built_groups(NAME):
        assert group.decisive and all(p.startswith("b/") and p.count("/") == 1 for p in group.decisive)
        base = group.members[0].case
        for member in group.members[1:]:
            diff = case_difference(base, member.case)
            assert diff and all(p.split("/")[0] == "b" for p in diff)
    # rendered: everything before ledger B is identical, and ledger B differs in at most four lines
    for members in items_by_group(NAME).values():
        heads = {str(m.state).partition("\nLedger B (")[0] for m in members}
        assert len(heads) == 1
        tails = [str(m.state).partition("\nLedger B (")[2].splitlines() for m in members]
        for other in tails[1:]:
            sm = difflib.SequenceMatcher(a=tails[0], b=other, autojunk=False)
            changed = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal")
            assert 1 <= changed <= 6


def test_level_sizes() -> None:
    config = lr.LedgerReconcileConfig()
    for plan, group in built_groups(NAME):
        case = group.members[0].case
        i = plan.level - 1
        types = Counter(e["type"] for e in case["a"])
        assert len(case["a"]) == config.entries[i]
        assert types["split"] == config.splits[i] and types["fee"] == config.fee_entries[i]
        assert types["batch"] == 3 * config.batches[i]
        assert len(case["processors"]) == config.processors[i]
        lo, hi = config.tolerance[i]
        assert lo <= case["tolerance"] <= hi
    items = cached_draw(NAME).items
    for level, count in ((1, 8), (2, 14), (3, 22)):
        assert all(f"cash book, {count} entries" in str(i.state) for i in items if i.level == level)


def _line_lag(case: dict, line: dict) -> int:
    by_ref = {e["ref"]: e for e in case["a"]}
    return max(
        (dt.date.fromisoformat(line["date"]) - dt.date.fromisoformat(by_ref[r]["date"])).days
        for r in line["refs"]
    )


def test_late_dates_sit_one_day_past_a_tolerance_met_by_the_other_members() -> None:
    seen = 0
    for _, group in built_groups(NAME):
        for member in group.members:
            if member.variation != "late_date":
                continue
            others = [m for m in group.members if m is not member]
            (k,) = {
                int(p.split("/")[1])
                for p in case_difference(member.case, others[0].case)
                if p.endswith("/date")
            }
            tol = member.case["tolerance"]
            assert _line_lag(member.case, member.case["b"][k]) == tol + 1
            assert all(_line_lag(o.case, o.case["b"][k]) == tol for o in others)
            seen += 1
    assert seen == 110


def test_amount_breaks_include_the_one_cent_boundary() -> None:
    deltas: Counter[int] = Counter()
    for _, group in built_groups(NAME):
        for member in group.members:
            if member.variation not in ("changed_amount", "broken_split"):
                continue
            other = next(m for m in group.members if m is not member)
            for path in case_difference(member.case, other.case):
                k = int(path.split("/")[1])
                a, b = member.case["b"][k], other.case["b"][k]
                if a["omitted"] == b["omitted"] and a["cents"] != b["cents"]:
                    deltas[abs(a["cents"] - b["cents"])] += 1
    assert deltas[1] >= 60
    assert len(deltas) >= 10


def test_entry_types_broken_by_each_variation() -> None:
    for _, group in built_groups(NAME):
        for member in group.members:
            if member.variation is None:
                continue
            entry = next(e for e in member.case["a"] if e["id"] == member.answer)
            assert entry["type"] in lr.ELIGIBLE[member.variation]


def _accuracy(heuristic: object) -> float:
    items = cached_draw(NAME).items
    hits = 0
    for item in items:
        probs = heuristic(item)  # type: ignore[operator]
        hits += max(probs, key=lambda k: probs[k]) == item.answer
    return hits / len(items)


@pytest.mark.parametrize("name", ["largest_amount", "last_entry"])
def test_shortcut_heuristics_stay_near_chance(name: str) -> None:
    accuracy = _accuracy(family(NAME).heuristics[name])
    assert 0.10 <= accuracy <= 0.24, f"{name}: {accuracy:.3f} (chance 1/6)"


def test_largest_amount_heuristic_reads_the_amounts() -> None:
    item = cached_draw(NAME).items[0]
    amounts = lr._option_amounts(item)
    assert len(amounts) == 5 and all(v > 0 for v in amounts.values())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"items_per_level": 4}, "at least 6"),
        ({"entries": (5, 14, 22)}, "options"),
        ({"splits": (0, 1, 4)}, "three split entries"),
        ({"fee_entries": (0, 3, 4), "processors": (0, 0, 2)}, "processor"),
        ({"tolerance": ((1, 3), (2, 4), (1, 5))}, "batches need"),
        ({"tolerance": ((0, 3), (2, 4), (2, 5))}, "within 1-10"),
        ({"variation_weights": ((1, 1, 1), (1, 1, 1, 1), (1, 1, 1, 1))}, "non-negative weights"),
        ({"splits": (0, 3, 14)}, "need more than"),
    ],
)
def test_config_validate_errors(change: dict, message: str) -> None:
    config = dataclasses.replace(lr.LedgerReconcileConfig(), **change)
    with pytest.raises(ValueError, match=message):
        config.validate()


def test_small_config_draws() -> None:
    config = lr.LedgerReconcileConfig(items_per_level=10)
    config.validate()
    plans = lr.plan(config)
    assert sum(len(p.params["members"]) for p in plans) == 30
    for p in plans:
        group = lr.build_group(p, group_rng(NAME, 1, p.level, p.index), config)
        assert len({m.answer for m in group.members}) == len(group.members)


def test_text_revision_1_2() -> None:
    """Core 1.2: no "Counterparty" (unknown to the dictionary) and "an" before a vowel business."""
    states = [str(i.state) for i in cached_draw("ledger_reconcile").items]
    assert not any("Counterparty" in s for s in states)
    assert all("Payer or payee" in s for s in states)
    assert not any("a adult" in s for s in states)
    assert any("an adult education firm" in s for s in states)


def test_text_revision_core_1_3() -> None:
    """The question leaves room for its "none" option (1.2 asked which entry "does not reconcile"), and payers and
    payees are companies with their region's legal form, not namesakes of the firm's own business."""
    from decisionpivot.generate import ledger_reconcile as lr
    from decisionpivot.generate.common.names import LEGAL_FORMS, region

    assert "if any" in lr.QUESTION
    for item in cached_draw(lr.NAME).items:
        assert item.question == lr.QUESTION and "none" in item.option_keys
        assert f" {LEGAL_FORMS[region(item.domain).name]}" in str(item.state), item.id
