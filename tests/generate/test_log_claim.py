"""log_claim: pairs, variation counts, the pivot on the claim, window boundaries, sizes, shortcuts."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from decisionpivot.generate import log_claim as lc
from decisionpivot.generate.common.names import ORG_ENDINGS
from decisionpivot.generate.family import Group, case_difference
from decisionpivot.generate.registry import family
from decisionpivot.items import Item
from tests.conftest import built_groups, cached_draw

CONFIG = lc.LogClaimConfig()


def true_and_false(group: Group) -> tuple[dict, dict]:
    yes = next(m for m in group.members if m.answer == "yes").case
    no = next(m for m in group.members if m.answer == "no").case
    return yes, no


def pairs() -> list[tuple[Item, Item]]:
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in cached_draw(lc.NAME).items:
        groups[item.group].append(item)
    return [tuple(sorted(m, key=lambda i: i.answer != "yes")) for m in groups.values()]  # type: ignore[misc]


def test_pairs_and_variation_counts_per_level() -> None:
    ps = pairs()
    assert len(ps) == 300
    split = Counter((no.level, no.variation) for _, no in ps)
    assert split == {(lv, v): 25 for lv in (1, 2, 3) for v in lc.VARIATIONS}
    for yes, no in ps:
        assert (yes.answer, no.answer, yes.variation) == ("yes", "no", None)


def test_only_the_claim_differs() -> None:
    for plan, group in built_groups(lc.NAME):
        yes, no = true_and_false(group)
        assert yes["events"] == no["events"]
        diff = case_difference(yes, no)
        expected = {"count_1": {"claim/count"}, "count_2": {"claim/count"}, "service": {"claim/service"}}
        if plan.variation == "window":
            assert diff in ({"claim/start"}, {"claim/end"})
        else:
            assert diff == expected[plan.variation]
        assert diff == set(group.decisive)
    for yes, no in pairs():
        a, b = yes.state.splitlines(), no.state.splitlines()  # type: ignore[union-attr]
        changed = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        assert len(changed) == 1 and a[changed[0]].startswith("Claim: ")


def test_count_changes_are_one_or_two_and_balanced_in_sign() -> None:
    signs: Counter[tuple[str, int]] = Counter()
    for plan, group in built_groups(lc.NAME):
        if plan.variation not in ("count_1", "count_2"):
            continue
        yes, no = true_and_false(group)
        delta = no["claim"]["count"] - yes["claim"]["count"]
        assert abs(delta) == (1 if plan.variation == "count_1" else 2)
        signs[(plan.variation, delta > 0)] += 1
    for v in ("count_1", "count_2"):
        assert {signs[(v, True)], signs[(v, False)]} == {37, 38}


def test_claimed_counts_do_not_depend_on_answer_or_level() -> None:
    """yes and no claims draw their counts from the same range at every level."""
    by: dict[tuple[int, str], list[int]] = defaultdict(list)
    for plan, group in built_groups(lc.NAME):
        for m in group.members:
            by[(plan.level, m.answer)].append(m.case["claim"]["count"])
    for level in (1, 2, 3):
        yes, no = by[(level, "yes")], by[(level, "no")]
        assert abs(sum(yes) / len(yes) - sum(no) / len(no)) < 0.6
        assert min(yes + no) >= 1 and max(yes + no) <= CONFIG.max_count
    means = [sum(by[(lv, "yes")] + by[(lv, "no")]) / 200 for lv in (1, 2, 3)]
    assert max(means) - min(means) < 0.8


def test_window_edge_sits_on_an_event_in_one_member_and_one_second_off_in_the_other() -> None:
    on_true = 0
    for plan, group in built_groups(lc.NAME):
        if plan.variation != "window":
            continue
        yes, no = true_and_false(group)
        (path,) = group.decisive
        key = path.split("/")[1]
        stamps = {e["t"] for e in yes["events"]
                  if e["service"] == yes["claim"]["service"] and e["level"] == yes["claim"]["level"]}
        edges = (yes["claim"][key], no["claim"][key])
        assert abs(edges[0] - edges[1]) == 1
        on = [t for t in edges if t in stamps]
        assert len(on) == 1, "exactly one member's edge lands on a matching event"
        assert lc.count_in_window(yes) == yes["claim"]["count"]
        assert abs(lc.count_in_window(no) - no["claim"]["count"]) == 1
        on_true += on[0] == yes["claim"][key]
    assert on_true in (37, 38)


def test_service_swap_names_a_service_with_another_count() -> None:
    for plan, group in built_groups(lc.NAME):
        if plan.variation != "service":
            continue
        yes, no = true_and_false(group)
        assert yes["claim"]["service"] != no["claim"]["service"]
        assert lc.count_in_window(no) != no["claim"]["count"]
        assert any(e["service"] == no["claim"]["service"] for e in no["events"])


def test_near_misses_are_in_the_shared_log() -> None:
    stats: Counter[str] = Counter()
    for _, group in built_groups(lc.NAME):
        yes, _ = true_and_false(group)
        c = yes["claim"]
        inside = [e for e in yes["events"] if c["start"] <= e["t"] <= c["end"]]
        same_service = [e for e in inside if e["service"] == c["service"]]
        same_level = [e for e in inside if e["level"] == c["level"]]
        stats["other_level"] += any(e["level"] != c["level"] for e in same_service)
        stats["other_service"] += any(e["service"] != c["service"] for e in same_level)
        stats["just_outside"] += any(e["service"] == c["service"] and e["level"] == c["level"]
                                     and (0 < c["start"] - e["t"] <= 91 or 0 < e["t"] - c["end"] <= 91)
                                     for e in yes["events"])
        stats["on_edge"] += any(e["service"] == c["service"] and e["level"] == c["level"]
                                and e["t"] in (c["start"], c["end"]) for e in yes["events"])
    assert stats["other_level"] >= 290 and stats["other_service"] >= 270
    assert stats["just_outside"] >= 200 and stats["on_edge"] >= 150


def test_log_sizes_per_level() -> None:
    for plan, group in built_groups(lc.NAME):
        case = group.members[0].case
        assert len(case["events"]) == CONFIG.lines[plan.level - 1]
        assert len({e["service"] for e in case["events"]}) <= CONFIG.services[plan.level - 1]
        times = [e["t"] for e in case["events"]]
        assert times == sorted(times) and len(set(times)) == len(times)


def test_heuristics_stay_near_chance() -> None:
    items = cached_draw(lc.NAME).items
    heuristics = family(lc.NAME).heuristics
    assert set(heuristics) == {"ignore_window", "ignore_level", "exclusive_edges"}
    for name, heuristic in heuristics.items():
        correct = sum(max(heuristic(i).items(), key=lambda kv: kv[1])[0] == i.answer for i in items)
        assert 0.4 <= correct / len(items) <= 0.65, (name, correct)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"items_per_level": 201}, "even"),
        ({"items_per_level": 202}, "split evenly"),
        ({"max_count": 2}, "max_count"),
        ({"services": (2, 6, 8)}, "services"),
        ({"lines": (20, 60, 90)}, "cannot hold"),
    ],
)
def test_config_validate_errors(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(CONFIG, **change).validate()


def test_default_config_is_valid() -> None:
    CONFIG.validate()


# --- text revision of 1.1 (core 1.2) ------------------------------------------------------------


def test_service_names_and_messages_are_dictionary_words() -> None:
    """1.0 had "api", "auth", "kyc", "scada", "catalog", "notify" and "unhandled exception"."""
    from decisionpivot.audit.text import known_word, misspelled

    for domain, services in lc.SERVICES.items():
        assert len(set(services)) == len(services), domain
        for service in services:
            assert service.isalpha() and service.islower() and known_word(service), (domain, service)
    for level, templates in lc.MESSAGES.items():
        for template in templates:
            assert misspelled(re.sub(r"\{\w+\}", "7", template)) == [], (level, template)


def test_intro_does_not_glue_the_business_phrase_to_a_noun() -> None:
    """1.0 wrote "the Kibous Studio software services systems"; the business phrase now stands in
    brackets or after "a"/"an" with "firm"."""
    from decisionpivot.audit.text import article
    from decisionpivot.generate.common.domains import DOMAINS

    for item in cached_draw(lc.NAME).items:
        intro = item.state.splitlines()[0]  # type: ignore[union-attr]
        for d in DOMAINS:
            assert f"{d.business} platform" not in intro and f"{d.business} systems" not in intro
        assert article(intro) == []
        endings = ORG_ENDINGS[item.domain]  # core 1.3: a name of the region with an ending of its business
        assert any(f" {kind} " in intro or f" {kind}," in intro for kind in endings), intro
