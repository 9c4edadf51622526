"""policy_case: group structure, balance, pivot, boundaries, heuristics and config checks."""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict

import pytest

from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import case_difference
from decisionpivot.generate.policy_case import (
    DOMAIN_BY_NAME,
    MODES,
    OUTCOMES,
    SCHEMAS,
    VARIATIONS,
    PolicyCaseConfig,
    build_group,
    heuristic_default_always,
    heuristic_first_match,
    heuristic_last_match,
    holds,
    interpretation,
    plan,
)
from decisionpivot.generate.run import draw_family
from decisionpivot.items import Item
from tests.conftest import cached_draw

NAME = "policy_case"
LEVEL_COUNTS = {
    1: ({"approve": 67, "deny": 67, "escalate": 66}, {"plain": 67, "exception": 67, "precedence": 66}),
    2: ({"approve": 66, "deny": 67, "escalate": 67}, {"plain": 66, "exception": 67, "precedence": 67}),
    3: ({"approve": 67, "deny": 66, "escalate": 67}, {"plain": 67, "exception": 66, "precedence": 67}),
}


def _groups(items: tuple[Item, ...]) -> dict[str, list[Item]]:
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[item.group or item.id].append(item)
    return groups


def _built_groups(seed: int = 20261008) -> list:
    config = PolicyCaseConfig()
    return [build_group(p, group_rng(NAME, seed, p.level, p.index), config) for p in plan(config)]


@pytest.fixture(scope="module")
def built() -> list:
    return _built_groups()


def test_group_count_and_sizes() -> None:
    groups = _groups(cached_draw(NAME).items)
    assert len(groups) == 201
    sizes = Counter((members[0].level, len(members)) for members in groups.values())
    assert sizes == {(1, 3): 66, (1, 2): 1, (2, 3): 66, (2, 2): 1, (3, 3): 66, (3, 2): 1}


def test_answer_and_interpretation_counts_per_level() -> None:
    items = cached_draw(NAME).items
    for level, (answers, variations) in LEVEL_COUNTS.items():
        at = [i for i in items if i.level == level]
        assert Counter(i.answer for i in at) == answers
        assert Counter(i.variation for i in at) == variations
    assert Counter(i.answer for i in items) == dict.fromkeys(OUTCOMES, 200)
    assert Counter(i.variation for i in items) == dict.fromkeys(VARIATIONS, 200)
    positions = Counter(i.option_keys.index(i.answer) for i in items)
    assert positions == {0: 200, 1: 200, 2: 200}
    assert all(i.option_keys == OUTCOMES for i in items)


def test_outcome_and_interpretation_are_independent() -> None:
    cells = Counter((i.answer, i.variation) for i in cached_draw(NAME).items)
    assert len(cells) == 9
    assert min(cells.values()) >= 66 and max(cells.values()) <= 67


def test_triples_have_every_outcome_and_every_interpretation() -> None:
    for members in _groups(cached_draw(NAME).items).values():
        answers = [m.answer for m in members]
        variations = [m.variation for m in members]
        assert len(set(answers)) == len(members)
        assert len(set(variations)) == len(members)


def test_members_share_the_policy_and_differ_in_one_or_two_record_values(built: list) -> None:
    for group in built:
        base = group.members[0].case
        changed: set[str] = set()
        for other in group.members[1:]:
            diff = case_difference(base, other.case)
            assert diff and all(re.fullmatch(r"record/fields/\d+/value", p) for p in diff), diff
            changed |= diff
        assert 1 <= len(changed) <= 2
        assert changed <= set(group.decisive)
        assert len(group.decisive) <= 2


def test_members_differ_only_in_record_lines_of_the_rendered_state() -> None:
    for members in _groups(cached_draw(NAME).items).values():
        base = str(members[0].state).splitlines()
        for other in members[1:]:
            lines = str(other.state).splitlines()
            assert len(lines) == len(base)
            changed = [(a, b) for a, b in zip(base, lines, strict=True) if a != b]
            assert 1 <= len(changed) <= 2
            for a, b in changed:
                assert re.match(r"^(- |\| )?[A-Z][A-Za-z' ]+(: | \| )", a), a
                assert a.split(":")[0] == b.split(":")[0] or a.split(" | ")[0] == b.split(" | ")[0]
            ratio = difflib.SequenceMatcher(a=base, b=lines, autojunk=False).ratio()
            assert ratio > 0.9


def test_level_sizes_rules_and_fields() -> None:
    config = PolicyCaseConfig()
    for item in cached_draw(NAME).items:
        state = str(item.state)
        rules = re.findall(r"^\d+\. ", state, flags=re.M)
        assert len(rules) == config.rules[item.level - 1]
        record = state.rsplit("\n\n", 1)[1].splitlines()
        entries = [line for line in record[1:] if line not in ("| Field | Value |", "|---|---|")]
        assert len(entries) == config.fields[item.level - 1] + 4


def test_larger_states_at_higher_levels() -> None:
    items = cached_draw(NAME).items
    medians = []
    for level in (1, 2, 3):
        lengths = sorted(len(str(i.state)) for i in items if i.level == level)
        medians.append(lengths[len(lengths) // 2])
    assert medians[0] < medians[1] < medians[2]
    overall = sorted(len(str(i.state)) for i in items)[300]
    assert 1600 <= overall <= 4000


def test_every_member_needs_its_labelled_interpretation(built: list) -> None:
    for group in built:
        for member in group.members:
            assert interpretation(dict(member.case)) == member.variation


def test_precedence_kinds_schemas_and_domains_vary(built: list) -> None:
    modes = Counter(g.members[0].case["precedence"]["mode"] for g in built)
    assert set(modes) == set(MODES) and min(modes.values()) >= 45
    schemas = Counter(g.members[0].case["schema"] for g in built)
    assert set(schemas) == set(SCHEMAS) and min(schemas.values()) >= 30
    domains = Counter(g.domain for g in built)
    assert len(domains) == 8 and min(domains.values()) >= 24


def test_thresholds_sit_on_the_boundary(built: list) -> None:
    """A numeric decisive field takes the limit and the value one unit past it, on either side of a test."""
    checked = 0
    for group in built:
        case = group.members[0].case
        fields = {f.key: f for f in DOMAIN_BY_NAME[case["domain"]].fields}
        for path in group.decisive:
            index = int(path.split("/")[2])
            key = case["record"]["fields"][index]["key"]
            if not fields[key].numeric:
                continue
            values = sorted({m.case["record"]["fields"][index]["value"] for m in group.members})
            if len(values) < 2:
                continue
            assert len(values) == 2 and values[1] - values[0] == 1, values
            atoms = [a for r in case["rules"] for a in [*r["conds"], *([r["exc"]] if r["exc"] else [])]
                     if a["field"] == key and a["value"] in values]
            deciding = [a for a in atoms
                        if holds(a, {key: values[0]}) != holds(a, {key: values[1]})]
            assert deciding, f"no rule tests {key} at {values}"
            checked += 1
    assert checked >= 100


def _accuracy(heuristic, items: tuple[Item, ...]) -> tuple[float, float]:
    right: dict[str, list[bool]] = defaultdict(list)
    for item in items:
        probs = heuristic(item)
        right[item.group or item.id].append(max(probs, key=probs.get) == item.answer)
    flat = [r for rs in right.values() for r in rs]
    return sum(flat) / len(flat), sum(all(rs) for rs in right.values()) / len(right)


def test_default_always_heuristic_stays_weak() -> None:
    item_acc, group_acc = _accuracy(heuristic_default_always, cached_draw(NAME).items)
    assert item_acc <= 0.36
    assert group_acc == 0.0


def test_first_match_heuristic_stays_weak() -> None:
    items = cached_draw(NAME).items
    item_acc, group_acc = _accuracy(heuristic_first_match, items)
    assert item_acc <= 0.56
    assert group_acc == 0.0
    for item in items:
        probs = heuristic_first_match(item)
        right = max(probs, key=probs.get) == item.answer
        if item.variation == "exception":
            assert not right, item.id
        if item.variation == "plain":
            assert right, item.id


def test_last_match_heuristic_stays_weak() -> None:
    item_acc, group_acc = _accuracy(heuristic_last_match, cached_draw(NAME).items)
    assert item_acc <= 0.65
    assert group_acc <= 0.12


def test_heuristics_agree_with_the_structured_case(built: list) -> None:
    from decisionpivot.generate.policy_case import OPTIONS, _first_match, _record

    for group in built[::7]:
        for member in group.members:
            case = dict(member.case)
            item = Item("policy_case:0", NAME, "B", "1.0", "policy_case:g0", group.level, member.variation,
                        group.domain, member.state, "q", OPTIONS, member.answer)
            for last, heuristic in ((False, heuristic_first_match), (True, heuristic_last_match)):
                probs = heuristic(item)
                expected = _first_match(case["rules"], _record(case), case["default"], last=last)
                assert max(probs, key=probs.get) == expected
            probs = heuristic_default_always(item)
            assert max(probs, key=probs.get) == case["default"]


def test_small_config_draw() -> None:
    config = PolicyCaseConfig(items_per_level=8)
    draw = draw_family_with(config)
    assert len(draw) == 24
    assert Counter(len(v) for v in _groups(draw).values()) == {3: 6, 2: 3}


def draw_family_with(config: PolicyCaseConfig) -> tuple[Item, ...]:
    return draw_family(NAME, 5, config).items


@pytest.mark.parametrize(
    "kwargs",
    [
        {"items_per_level": 7},
        {"items_per_level": 0},
        {"items_per_level": 1},
        {"rules": (3, 8, 12)},
        {"rules": (4, 8, 30)},
        {"fields": (4, 8, 10)},
        {"fields": (6, 8, 11)},
        {"rules": (4, 8)},
    ],
)
def test_config_validate_rejects(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        PolicyCaseConfig(**kwargs).validate()


def test_default_config_is_valid() -> None:
    PolicyCaseConfig().validate()


def test_text_revision_1_1() -> None:
    """Core 1.2: the data-sharing field is "Redaction of names" ("Anonymisation" is unknown to the dictionary)."""
    states = [str(i.state) for i in cached_draw("policy_case").items]
    assert not any("nonymis" in s for s in states)
    assert any("Redaction of names" in s for s in states)
    assert not any("payment terms is" in s for s in states)
    assert any("the payment schedule is" in s for s in states)


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_values_take_their_article_in_the_rules() -> None:
    """1.2 wrote "the entry day is public holiday", "unless the entry day is weekday", "the zone is not server room"."""
    from decisionpivot.generate.policy_case import DOMAINS

    states = [str(i.state) for seed in (20261008, 7) for i in cached_draw(NAME, seed).items]
    rules = "\n".join(line for s in states for line in s.splitlines() if re.match(r"\d+\. ", line))
    bare = []
    for domain in DOMAINS:
        for field in domain.fields:
            for value, article in zip(field.values, field.articles, strict=False):
                if article:
                    bare += re.findall(rf"the {re.escape(field.label.lower())} is (?:not |anything other than )?"
                                       rf"{re.escape(value)}\b", rules)
    assert bare == []
    for wanted in ("the entry day is a public holiday", "the entry day is a weekday", "the zone is not the server room",
                   "the property is an apartment"):
        assert wanted in rules, wanted


def test_money_and_large_count_thresholds_are_round_and_the_boundary_stays_exact(built: list) -> None:
    """1.2 set limits such as 11,647.10 CHF and 628.99 GBP, worked back from the record; 1.3 writes round sums, and
    the decisive record value sits one cent (or one unit) beyond them."""
    from decisionpivot.generate.common.numbers import round_step
    from decisionpivot.generate.policy_case import FIELD_BY_KEY

    money = 0
    for group in built:
        case = group.members[0].case
        fields = FIELD_BY_KEY[case["domain"]]
        for rule in case["rules"]:
            for atom in [*rule["conds"], *([rule["exc"]] if rule["exc"] else [])]:
                field = fields[atom["field"]]
                if field.kind == "money" or (field.kind == "count" and atom["value"] >= 1000):
                    assert atom["value"] % round_step(atom["value"]) == 0, (field.label, atom["value"])
                    money += field.kind == "money"
    assert money >= 150


def test_exceptions_read_with_their_rule() -> None:
    """No "deny the access request ... except where the safety induction is outstanding", no "approve the claim
    unless the receipt is attached": on a two-valued state field an exception lifts an approval for the unfavourable
    value and a refusal for the favourable one."""
    from decisionpivot.generate.policy_case import FIELD_BY_KEY, _sensible
    from decisionpivot.generate.run import draw_groups

    checked = 0
    for seed in (20261008, 7):
        for _, group in draw_groups(NAME, seed):
            case = group.members[0].case
            for rule in case["rules"]:
                if rule["exc"] is not None and FIELD_BY_KEY[case["domain"]][rule["exc"]["field"]].favourable:
                    assert _sensible(rule["exc"], rule["outcome"], FIELD_BY_KEY[case["domain"]]), rule
                    checked += 1
    assert checked >= 200
