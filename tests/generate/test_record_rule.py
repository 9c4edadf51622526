"""record_rule: groups of four, 13 rule types balanced, near misses at the edge, pivot, shortcuts."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections import Counter, defaultdict

import pytest

from decisionpivot.generate import record_rule as rr
from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import Group, case_difference
from decisionpivot.generate.registry import family
from tests.conftest import built_groups, cached_draw, items_by_group

NAME = "record_rule"


def test_thirteen_rule_types() -> None:
    assert len(rr.RULE_TYPES) == len(set(rr.RULE_TYPES)) == 13
    assert set(rr.TYPE_ROLES) == set(rr.RULE_TYPES)


def test_groups_of_four_and_untouched_batches() -> None:
    groups = items_by_group(NAME)
    assert len(groups) == 150
    assert all(len(m) == 4 for m in groups.values())
    for level in (1, 2, 3):
        level_groups = [m for m in groups.values() if m[0].level == level]
        assert len(level_groups) == 50
        assert sum(any(i.answer == "none" for i in m) for m in level_groups) == 24
    for members in groups.values():
        assert len({m.answer for m in members}) == 4
        assert len({m.options for m in members}) == 1
        assert sum(m.answer == "none" for m in members) <= 1


def test_rule_type_counts() -> None:
    items = cached_draw(NAME).items
    assert sum(i.answer == "none" for i in items) == 72
    counts = Counter(i.variation for i in items if i.variation is not None)
    assert set(counts) == set(rr.RULE_TYPES)
    assert sorted(Counter(counts.values()).items()) == [(40, 5), (41, 8)]
    for item in items:
        assert (item.variation is None) == (item.answer == "none")
    for level in (1, 2, 3):
        assert sum(1 for i in items if i.level == level and i.variation) == 176


def test_gold_positions_balanced() -> None:
    """For each number of listed rules, the broken rule sits at every position about equally often."""
    items = cached_draw(NAME).items
    by_k: dict[int, Counter[int]] = defaultdict(Counter)
    for item in items:
        if item.answer != "none":
            by_k[len(item.options) - 1][item.option_keys.index(item.answer)] += 1
    assert set(by_k) == {6, 7, 8, 9}
    for k, positions in by_k.items():
        assert set(positions) == set(range(k))
        assert max(positions.values()) - min(positions.values()) <= 2, (k, positions)
    for item in items:
        assert item.option_keys[-1] == "none"
        assert item.option_keys[:-1] == tuple(f"R{k}" for k in range(1, len(item.options)))


def test_level_sizes() -> None:
    config = rr.RecordRuleConfig()
    for plan, group in built_groups(NAME):
        case = group.members[0].case
        i = plan.level - 1
        assert len(case["records"]) == config.records[i]
        lo, hi = config.rules[i]
        assert lo <= len(case["rules"]) <= hi
        assert len({rule["type"] for rule in case["rules"]}) == len(case["rules"])
        read = {role for rule in case["rules"] for role in rr.TYPE_ROLES[rule["type"]]} | {"key"}
        assert set(case["roles"]) > read, "some shown fields are read by no rule"
    for item in cached_draw(NAME).items:
        assert f"Batch ({config.records[item.level - 1]} records):" in str(item.state)


def test_members_differ_in_one_field_of_one_record() -> None:
    for _, group in built_groups(NAME):
        assert all(p.startswith("records/") and p.count("/") == 2 for p in group.decisive)
        untouched = [m for m in group.members if m.variation is None]
        reference = untouched[0] if untouched else group.members[0]
        for member in group.members:
            if member is reference:
                continue
            diff = case_difference(reference.case, member.case)
            assert diff <= group.decisive
            assert 1 <= len(diff) <= (1 if untouched else 2)
    for members in items_by_group(NAME).values():
        heads = {str(m.state).partition("\nBatch (")[0] for m in members}
        assert len(heads) == 1, "rules, lists and fields are shared by the group"
        untouched = [m for m in members if m.answer == "none"]
        if untouched:
            base = str(untouched[0].state).splitlines()
            for m in members:
                changed = [a for a, b in zip(base, str(m.state).splitlines(), strict=True) if a != b]
                assert len(changed) == (0 if m is untouched[0] else 1)


def _changed(group: Group, member_index: int) -> tuple[dict, dict, str, int, str]:
    """(member case, base record holder, type, record index, field) for one breaking member.

    The member's own field is the decisive path where it differs from every other member; the base
    value there is the one most other members share (at most two rule types touch the same field).
    """
    member = group.members[member_index]
    others = [m for m in group.members if m is not member]
    for path in sorted(group.decisive):
        _, j, field = path.split("/")
        mine = member.case["records"][int(j)][field]
        values = [o.case["records"][int(j)][field] for o in others]
        if mine not in values:
            base_value = Counter(values).most_common(1)[0][0]
            holder = next(o for o, v in zip(others, values, strict=True) if v == base_value)
            return member.case, holder.case, str(member.variation), int(j), field
    raise AssertionError("no field of its own")


def test_near_miss_in_base_and_one_step_past_in_the_breaking_member() -> None:
    seen: Counter[str] = Counter()
    for _, group in built_groups(NAME):
        for k, member in enumerate(group.members):
            if member.variation is None:
                continue
            case, other, t, j, field = _changed(group, k)
            rec, base = case["records"][j], other["records"][j]
            roles = dict(zip(case["roles"], case["fields"], strict=True))
            p = case["params"]
            if t == "range":
                assert (int(base[field]), int(rec[field])) in ((p["hi"], p["hi"] + 1), (p["lo"], p["lo"] - 1))
            elif t == "compare":
                assert int(base[field]) == int(base[roles["planned"]]) == int(rec[field]) - 1
            elif t == "date_order":
                start = dt.date.fromisoformat(rec[roles["start"]])
                assert base[field] == rec[roles["start"]]
                assert dt.date.fromisoformat(rec[field]) == start - dt.timedelta(days=1)
            elif t == "length":
                assert len(base[field]) == p["n"] and len(rec[field]) == p["n"] + 1
            elif t == "unique":
                keys = [r[field] for r in other["records"]]
                assert rec[field] in keys and base[field] != rec[field]
                assert sum(a != b for a, b in zip(base[field], rec[field], strict=True)) == 1
            elif t == "sum":
                assert abs(rr._cents(rec[field]) - rr._cents(base[field])) in (1, 100)
            elif t == "conditional":
                urgent = case["schema"]["urgent"]
                assert rec[roles["priority"]] == urgent and rec[roles["approver"]] == ""
            seen[t] += 1
    assert set(seen) == set(rr.RULE_TYPES)


def test_rule_wordings_are_recognised() -> None:
    for _, group in built_groups(NAME):
        for rule in group.members[0].case["rules"]:
            assert rr.rule_type_of(rule["text"]) == rule["type"]


def test_most_frequent_rule_type_heuristic_near_chance() -> None:
    items = cached_draw(NAME).items
    heuristic = family(NAME).heuristics["most_frequent_rule_type"]
    hits = sum(max((p := heuristic(i)), key=lambda k: p[k]) == i.answer for i in items)
    chance = sum(1 / len(i.options) for i in items) / len(items)
    assert abs(hits / len(items) - chance) <= 0.05, (hits / len(items), chance)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"items_per_level": 202}, "multiple of group_size"),
        ({"rules": ((5, 7), (7, 8), (8, 9))}, "within 6-9"),
        ({"rules": ((6, 10), (7, 8), (8, 9))}, "within 6-9"),
        ({"none_groups": (24, 51, 24)}, "none_groups"),
        ({"records": (4, 16, 24)}, "at least 6 records"),
        ({"distractors": ((1, 1), (1, 2), (2, 5))}, "distractor range"),
        ({"group_size": 1}, "at least 2"),
        ({"group_size": 8, "items_per_level": 200}, "cannot give"),
    ],
)
def test_config_validate_errors(change: dict, message: str) -> None:
    config = dataclasses.replace(rr.RecordRuleConfig(), **change)
    with pytest.raises(ValueError, match=message):
        config.validate()


def test_small_config_draws() -> None:
    config = rr.RecordRuleConfig(items_per_level=8, none_groups=(1, 1, 0))
    config.validate()
    for p in rr.plan(config):
        group = rr.build_group(p, group_rng(NAME, 3, p.level, p.index), config)
        assert len({m.answer for m in group.members}) == 4


# --- core 1.2 text revision ------------------------------------------------------------------------


def test_notes_are_whole_phrases_of_their_domain() -> None:
    """Every note of every record is one to three phrases of its domain's list (no word salad)."""
    import re

    for item in cached_draw(NAME).items[::7]:
        state = item.state if isinstance(item.state, str) else str(item.state)
        domain = next(d for d, s in rr.SCHEMAS.items() if f'Record type "{s["record"]}"' in state)
        note_field = rr.SCHEMAS[domain]["note"]
        if note_field not in state.split("Batch (")[1].splitlines()[1]:
            continue
        lines = state.split("Batch (")[1].splitlines()[1:]
        sep = " | " if lines[0].startswith("| ") else "; "
        header = [c.strip() for c in lines[0].strip("| ").split(sep)]
        col = header.index(note_field)
        for line in lines[1:]:
            if set(line) <= {"|", "-"}:
                continue
            note = [c.strip() for c in line.strip().strip("|").split(sep.strip() or sep)][col]
            parts = re.split(r"(?<=[.!]) ", note)
            assert all(p in rr.NOTE_PHRASES[domain] for p in parts), note
            assert rr._compatible(parts), note


@pytest.mark.parametrize("domain", sorted(rr.SCHEMAS))
def test_every_note_length_can_be_hit_and_lengthened(domain: str) -> None:
    rng = __import__("random").Random(5)
    for n in range(11, 39):
        note = rr._text_of_length(rng, domain, n)
        assert len(note) == n
        longer = rr._lengthen(rng, domain, note)
        assert len(longer) == n + 1
        assert all(p in rr.NOTE_PHRASES[domain] for p in __import__("re").split(r"(?<=[.!]) ", longer))


def test_no_words_the_dictionary_lacks_in_schemas() -> None:
    text = repr(rr.SCHEMAS)
    for word in ("advisor", "sku", "backordered", "waitlisted", "license"):
        assert f'"{word}' not in text and f"'{word}" not in text, word


def test_export_date_after_every_record_date() -> None:
    months = {m: k for k, m in enumerate(
        ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
         "November", "December"), start=1)}
    import re

    checked = 0
    for item in cached_draw(NAME).items[::5]:
        state = item.state if isinstance(item.state, str) else str(item.state)
        day, month, year = re.search(r" on (\d{1,2}) (\w+) (\d{4})", state.split("\n")[0]).groups()
        exported = dt.date(int(year), months[month], int(day))
        dates = [dt.date.fromisoformat(d) for d in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", state)]
        assert not dates or max(dates) < exported, item.id
        checked += bool(dates)
    assert checked > 50


def test_an_before_vowel_business() -> None:
    states = [i.state for i in cached_draw(NAME).items if "adult education organisation" in str(i.state)]
    assert states and all("a adult" not in str(s) for s in states)


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_a_note_is_about_one_thing_and_vat_is_a_real_rate() -> None:
    """1.2: "Get well soon. Congratulations!", "Legal fees. Car lease.", "Rent for March." on a loan record, and VAT
    anywhere from 0.7% to 23.8% of the net price in one retailer's batch."""
    from decisionpivot.generate import record_rule as rr

    notes = vat = 0
    for seed in (20261008, 7):
        for _plan, group in built_groups("record_rule", seed):
            case = group.members[0].case
            domain = case["domain"]
            field = dict(zip(case["roles"], case["fields"], strict=True))
            for member in group.members:
                for record in member.case["records"]:
                    note = record.get(field.get("note", ""), "")
                    if domain in rr.ADDED_PHRASES and note:
                        parts = re.split(r"(?<=[.!]) ", note)
                        assert all(p in rr.ADDED_PHRASES[domain] for p in parts[1:]), note
                        assert "Rent" not in note and "Membership" not in note
                        notes += 1
                    if domain == "retail" and field.get("net") in record:
                        net, tax = rr._cents(record[field["net"]]), rr._cents(record[field["tax"]])
                        assert any(tax == net * r // 100 for r in rr.VAT_RATES) or member.variation, record
                        vat += 1
    assert notes > 500 and vat > 100
