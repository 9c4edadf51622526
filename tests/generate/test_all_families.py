"""Properties every registered family must have (run for each family)."""

from __future__ import annotations

import difflib
import json
from collections import Counter, defaultdict

from decisionpivot.generate.family import case_difference
from decisionpivot.generate.registry import family
from decisionpivot.items import item_line, render_state
from tests.conftest import cached_draw


def test_counts_levels_and_ids(family_name: str) -> None:
    draw = cached_draw(family_name)
    assert len(draw.items) == 600
    assert Counter(i.level for i in draw.items) == {1: 200, 2: 200, 3: 200}
    assert [i.id for i in draw.items] == [f"{family_name}:{n:05d}" for n in range(600)]
    spec = family(family_name)
    assert {i.layer for i in draw.items} == {spec.layer}
    assert {i.question for i in draw.items} == {spec.question}


def test_groups_share_a_level_and_domain(family_name: str) -> None:
    groups = defaultdict(list)
    for item in cached_draw(family_name).items:
        groups[item.group].append(item)
    for members in groups.values():
        assert len(members) >= 2
        assert len({m.level for m in members}) == 1
        assert len({m.domain for m in members}) == 1
        assert len({m.answer for m in members}) >= 2, "a contrast group needs different answers"


def test_no_state_repeated(family_name: str) -> None:
    states = [json.dumps(i.state, sort_keys=True) for i in cached_draw(family_name).items]
    assert len(set(states)) == len(states)


def test_answer_classes_and_gold_positions_balanced(family_name: str) -> None:
    items = cached_draw(family_name).items
    answers = Counter(i.answer for i in items)
    positions = Counter(i.option_keys.index(i.answer) for i in items)
    option_counts = Counter(len(i.options) for i in items)
    if set(option_counts) == {2}:
        assert answers["yes"] == answers["no"] == 300
        assert positions[0] == positions[1] == 300
    else:
        # multi-option families: no answer class and no position may take more than twice its fair share
        fair = len(items) / max(len(positions), 1)
        assert max(positions.values()) <= 2 * fair


def test_domains_vary(family_name: str) -> None:
    domains = Counter(i.domain for i in cached_draw(family_name).items)
    assert 3 <= len(domains) <= 8


def test_members_differ_only_in_a_small_part_of_the_rendered_state(family_name: str) -> None:
    """The pivot property on the rendered text: most lines are shared by every member of a group."""
    groups = defaultdict(list)
    for item in cached_draw(family_name).items:
        groups[item.group].append(item)
    for members in groups.values():
        texts = [item_line(m) for m in members]
        base = render_state(members[0].state).splitlines()
        for other in members[1:]:
            lines = render_state(other.state).splitlines()
            matcher = difflib.SequenceMatcher(a=base, b=lines, autojunk=False)
            assert matcher.ratio() > 0.75, f"{members[0].id} vs {other.id}: states share too little"
        assert len(set(texts)) == len(texts)


def test_case_difference_finds_changed_paths() -> None:
    a = {"rows": [{"org": "A", "v": 1}, {"org": "B", "v": 2}], "x": 1}
    b = {"rows": [{"org": "A", "v": 1}, {"org": "B", "v": 3}], "x": 1}
    assert case_difference(a, b) == {"rows/1/v"}
    assert case_difference(a, {**a, "y": 2}) == {"y"}


def test_no_text_findings_in_the_release_or_a_fresh_draw(family_name: str) -> None:
    """Core 1.2: dp audit's text check finds nothing (doubled words, agreement, articles, spelling, grammar)."""
    from decisionpivot.audit.text import text_findings

    for seed in (None, 7):
        draw = cached_draw(family_name) if seed is None else cached_draw(family_name, seed)
        findings = text_findings(draw.items)
        assert not findings, f"{family_name} seed {draw.seed}: {len(findings)} findings, e.g. {findings[:3]}"
