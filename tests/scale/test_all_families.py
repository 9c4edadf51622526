"""Properties every family of the scale suite must have (run for each family)."""

from __future__ import annotations

import difflib
import json
from collections import Counter, defaultdict

import pytest
from scipy.stats import chisquare

from decisionpivot.audit.run import heuristic_positions
from decisionpivot.audit.text import text_findings
from decisionpivot.generate.family import case_difference
from decisionpivot.generate.registry import families as core_families
from decisionpivot.items import render_state
from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale.boundary import Boundary, variation
from decisionpivot.scale.registry import families, family
from decisionpivot.score.metrics import chance_pair_accuracy
from decisionpivot.score_questions import QUESTION_TYPE_KEY, SCORE, check_score_item, gold_level
from tests.scale.conftest import items_by_group, scale_draw, scale_groups

SCALE_FAMILIES = [spec.name for spec in families()]


@pytest.fixture(params=SCALE_FAMILIES)
def name(request: pytest.FixtureRequest) -> str:
    return request.param


def test_five_families_from_five_layers_apart_from_the_core() -> None:
    specs = families()
    assert len(specs) >= 5
    assert len({s.layer for s in specs}) == len(specs), "one family per decision layer"
    assert not {s.name for s in specs} & {s.name for s in core_families()}
    assert len(core_families()) == 13, "the core registry keeps exactly its 13 families"
    assert {n for s in specs for n in s.config_type().levels} == {3, 4, 5, 6, 7}, "scales of 3 to 7 levels"


def test_counts_levels_ids_and_format(name: str) -> None:
    draw = scale_draw(name)
    spec = family(name)
    assert len(draw.items) == 600
    assert Counter(i.level for i in draw.items) == {1: 200, 2: 200, 3: 200}
    assert [i.id for i in draw.items] == [f"{name}:{n:05d}" for n in range(600)]
    assert {i.layer for i in draw.items} == {spec.layer}
    levels = spec.config_type().levels
    for item in draw.items:
        check_score_item(item)
        assert item.extra == {QUESTION_TYPE_KEY: SCORE}
        assert len(item.options) == levels[(item.level or 0) - 1]
        assert json.loads(json.dumps(item.to_dict()))[QUESTION_TYPE_KEY] == SCORE


def test_groups_straddle_one_boundary(name: str) -> None:
    """Every group: one level and domain, 2 or 3 members, gold on two neighbouring levels, labelled by side."""
    for members in items_by_group(name).values():
        assert 2 <= len(members) <= 3
        assert len({m.level for m in members}) == 1 and len({m.domain for m in members}) == 1
        golds = sorted({gold_level(m) for m in members})
        assert len(golds) == 2 and golds[1] - golds[0] == 1, golds
        for m in members:
            side = (m.variation or "").split("_")[0]
            assert gold_level(m) == (golds[0] if side == "lower" else golds[1]), m.id


def test_members_differ_only_at_the_decisive_fact(name: str) -> None:
    for plan, group in scale_groups(name):
        base = group.members[0].case
        for member in group.members[1:]:
            assert case_difference(base, member.case) == set(group.decisive), (plan, group.decisive)
        assert sorted(m.variation for m in group.members) == sorted(
            variation(side, steps) for side, steps in Boundary.of(plan).members())


def test_gold_balanced_over_every_level_of_every_scale(name: str) -> None:
    items = scale_draw(name).items
    for level in (1, 2, 3):
        subset = [i for i in items if i.level == level]
        n = len(subset[0].options)
        counts = Counter(gold_level(i) for i in subset)
        assert set(counts) == set(range(n)), "every level of the scale is gold somewhere"
        assert max(counts.values()) - min(counts.values()) <= 2, counts
        assert chisquare([counts[k] for k in range(n)]).pvalue > 0.5


def test_boundaries_cover_every_edge(name: str) -> None:
    edges = defaultdict(set)
    for plan, _ in scale_groups(name):
        edges[plan.level].add(Boundary.of(plan).edge)
    for level, n in enumerate(family(name).config_type().levels, start=1):
        assert edges[level] == set(range(1, n)), level


def test_no_state_repeated_and_members_share_most_lines(name: str) -> None:
    states = [json.dumps(i.state, sort_keys=True) for i in scale_draw(name).items]
    assert len(set(states)) == len(states)
    for members in items_by_group(name).values():
        base = render_state(members[0].state).splitlines()
        for other in members[1:]:
            lines = render_state(other.state).splitlines()
            assert difflib.SequenceMatcher(a=base, b=lines, autojunk=False).ratio() > 0.8


def test_domains_vary(name: str) -> None:
    assert 3 <= len(Counter(i.domain for i in scale_draw(name).items)) <= 8


def test_heuristics_solve_no_more_groups_than_guessing(name: str) -> None:
    """Each partial-information shortcut the family names wins whole groups no more often than guessing + 5 points
    (the audit's default limit)."""
    items = scale_draw(name).items
    spec = family(name)
    assert spec.heuristics
    for hname, heuristic in spec.heuristics.items():
        predicted = heuristic_positions(heuristic, items)
        whole: dict[str, bool] = defaultdict(lambda: True)
        for item, position in zip(items, predicted, strict=True):
            whole[item.group or ""] &= bool(position == gold_level(item))
        assert sum(whole.values()) / len(whole) <= chance_pair_accuracy(items) + 0.05, hname


def test_text_reads_clean(name: str) -> None:
    """The audit's text check (doubled words, agreement such as "1 people", articles, spelling, misplaced function
    words) finds nothing, on the release and on a fresh draw."""
    for seed in (SCALE_SEED, 7):
        findings = text_findings(scale_draw(name, seed).items)
        assert findings == [], findings[:5]
