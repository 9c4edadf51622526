"""install_check: groups, pair types per level, pivot, sizes, boundaries, traps, heuristics, config."""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict

import pytest

from decisionpivot.generate import install_check as ic
from decisionpivot.generate.family import Group, case_difference
from tests.conftest import built_groups, cached_draw

NAME = "install_check"


def members(group: Group) -> tuple[dict, dict]:
    positive = next(m.case for m in group.members if m.answer == "yes")
    negative = next(m.case for m in group.members if m.answer == "no")
    return dict(positive), dict(negative)


def package_of(group: Group) -> str:
    (path,) = group.decisive
    return path.removeprefix("pins/")


def entry(case: dict, name: str, version: str) -> dict:
    package = next(p for p in case["index"] if p["name"] == name)
    return next(v for v in package["versions"] if v["version"] == version)


def test_version_ordering_and_ranges() -> None:
    assert ic.vkey("3.10.0") > ic.vkey("3.9.9")
    assert ic.vkey("1.4.10") > ic.vkey("1.4.9")
    assert ic.vkey("1.9.9") < ic.vkey("2.0.0a1") < ic.vkey("2.0.0b1") < ic.vkey("2.0.0rc1") < ic.vkey("2.0.0")
    assert ic.matches("2.10.0", ">=2.10.0") and not ic.matches("2.9.12", ">=2.10.0")
    assert not ic.matches("2.0.0rc1", ">=1.0.0") and ic.matches("2.0.0rc2", ">=2.0.0rc1")
    assert ic.matches("2.4.9", "~=2.4.0") and not ic.matches("2.5.0", "~=2.4.0")
    assert ic.matches("1.99.0", "^1.2.0") and not ic.matches("2.0.0", "^1.2.0")
    assert ic.matches("1.4.9", ">=1.0.0,!=1.4.8") and not ic.matches("1.4.8", ">=1.0.0,!=1.4.8")
    assert ic.runtime_ok("3.11", ">=3.9") and not ic.runtime_ok("3.9", ">=3.10")


def test_three_hundred_pairs() -> None:
    by_group = defaultdict(list)
    for item in cached_draw(NAME).items:
        by_group[item.group].append(item)
    assert len(by_group) == 300
    for group_items in by_group.values():
        assert sorted(m.answer for m in group_items) == ["no", "yes"]


def test_pair_types_per_level() -> None:
    expected = {1: {"version_bound": 27, "missing_pin": 26, "unmet_requirement": 26, "conflict": 21},
                2: {"version_bound": 26, "missing_pin": 26, "unmet_requirement": 26, "conflict": 22},
                3: {"version_bound": 26, "missing_pin": 26, "unmet_requirement": 26, "conflict": 22}}
    for level in (1, 2, 3):
        level_items = [i for i in cached_draw(NAME).items if i.level == level]
        assert Counter(i.answer for i in level_items) == {"yes": 100, "no": 100}
        assert Counter(i.variation for i in level_items if i.answer == "no") == expected[level]
        assert {i.variation for i in level_items if i.answer == "yes"} == {None}
    overall = Counter(i.variation for i in cached_draw(NAME).items if i.answer == "no")
    assert overall == {"version_bound": 79, "missing_pin": 78, "unmet_requirement": 78, "conflict": 65}


def test_members_differ_in_one_pin_only() -> None:
    for plan, group in built_groups(NAME):
        positive, negative = members(group)
        name = package_of(group)
        assert case_difference(positive, negative) == {f"pins/{name}"}
        sp, sn = (m.state for m in group.members)
        head_p, _, pins_p = str(sp).rpartition("\n\n")
        head_n, _, pins_n = str(sn).rpartition("\n\n")
        assert head_p == head_n, "conventions, environment and index are shared"
        changed = set(pins_p.splitlines()) ^ set(pins_n.splitlines())
        assert 1 <= len(changed) <= 2 and all(name in line for line in changed)
        if plan.variation == "missing_pin":
            assert name in positive["pins"] and name not in negative["pins"]


def test_pin_counts_per_level() -> None:
    config = ic.InstallCheckConfig()
    for item in cached_draw(NAME).items:
        lo, hi = config.pins[item.level - 1]
        assert lo <= len(ic.parse_state(str(item.state))["pins"]) <= hi, item.id


def test_each_negative_fails_exactly_one_check_of_its_type() -> None:
    for plan, group in built_groups(NAME):
        positive, negative = members(group)
        assert all(ok for _, _, ok in ic.checks(positive))
        failing = [kind for kind, _, ok in ic.checks(negative) if not ok]
        assert len(failing) == 1 and failing[0] in ic.FAILURE_OF[plan.variation]


def test_both_members_hold_a_text_comparison_trap() -> None:
    for _plan, group in built_groups(NAME):
        for member in group.members:
            assert ic.has_text_trap(dict(member.case))


def test_version_bound_pairs_sit_at_the_bound() -> None:
    kinds = Counter()
    for plan, group in built_groups(NAME):
        if plan.variation != "version_bound":
            continue
        positive, negative = members(group)
        name = package_of(group)
        good, bad = positive["pins"][name], negative["pins"][name]
        ranges = [spec for other in positive["pins"]
                  for dep, spec in entry(positive, other, positive["pins"][other])["deps"] if dep == name]
        assert len(ranges) == 1
        assert good in ranges[0], "the positive pin is the bound the range names"
        index_entry = next(p for p in positive["index"] if p["name"] == name)
        versions = sorted((v["version"] for v in index_entry["versions"]), key=ic.vkey)
        assert abs(versions.index(good) - versions.index(bad)) == 1, "the two pins are neighbours"
        if ic.vkey(bad)[3] != 3:
            kinds["pre"] += 1
            assert bad.startswith(good)
        elif ic.vkey(bad) < ic.vkey(good):
            kinds["below"] += 1
        else:
            kinds["above"] += 1
    assert min(kinds.values()) >= 8 and len(kinds) == 3


def test_runtime_requirements_sit_at_the_environment_version() -> None:
    seen = 0
    for plan, group in built_groups(NAME):
        if plan.variation != "unmet_requirement":
            continue
        positive, negative = members(group)
        name = package_of(group)
        bad = entry(negative, name, negative["pins"][name])["runtime"]
        if bad == entry(positive, name, positive["pins"][name])["runtime"]:
            continue  # a platform pair
        seen += 1
        major, minor = (int(x) for x in positive["env"]["version"].split("."))
        assert bad in (f">={major}.{minor + 1}", f"<{major}.{minor}")
    assert seen >= 40


def test_text_comparison_heuristic_stays_at_chance() -> None:
    items = cached_draw(NAME).items
    picks = [max(ic.heuristic_string_versions(i).items(), key=lambda kv: kv[1])[0] for i in items]
    correct = [p == i.answer for p, i in zip(picks, cached_draw(NAME).items, strict=True)]
    assert 0.45 <= sum(correct) / len(correct) <= 0.55
    by_group = defaultdict(list)
    for item, ok in zip(cached_draw(NAME).items, correct, strict=True):
        by_group[item.group].append(ok)
    assert sum(all(v) for v in by_group.values()) / len(by_group) <= 0.05


def test_presence_only_heuristic_finds_only_missing_pins() -> None:
    items = cached_draw(NAME).items
    picks = [max(ic.heuristic_presence_only(i).items(), key=lambda kv: kv[1])[0] for i in items]
    accuracy = sum(p == i.answer for p, i in zip(picks, cached_draw(NAME).items, strict=True)) / len(picks)
    assert 0.60 <= accuracy <= 0.66
    caught = {i.variation for p, i in zip(picks, cached_draw(NAME).items, strict=True) if p == "no"}
    assert caught == {"missing_pin"}


def test_level_one_positives_need_about_three_checks() -> None:
    counts = [len(ic.checks(ic.parse_state(str(i.state))))
              for i in cached_draw(NAME).items if i.level == 1 and i.answer == "yes"]
    assert statistics.median(counts) == 3
    medians = [statistics.median(len(ic.checks(ic.parse_state(str(i.state)))) for i in cached_draw(NAME).items
                                 if i.level == level and i.answer == "yes") for level in (1, 2, 3)]
    assert medians == sorted(medians)


def test_parse_state_reads_back_the_case() -> None:
    for _plan, group in built_groups(NAME)[:40]:
        for member in group.members:
            parsed = ic.parse_state(str(member.state))
            assert parsed["pins"] == member.case["pins"]
            assert [c[2] for c in ic.checks(parsed)] == [c[2] for c in ic.checks(dict(member.case))]


def test_state_lengths() -> None:
    medians = [statistics.median(len(str(i.state)) for i in cached_draw(NAME).items if i.level == level)
               for level in (1, 2, 3)]
    assert medians == sorted(medians)
    # 1.2 writes "requires:" for 1.1's "deps:" in every table row: about 400 characters more at level 3
    assert medians[0] >= 1600 and medians[2] <= 5500


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"items_per_level": 3}, "even"),
        ({"variation_counts": (80, 78, 78, 65)}, "add up"),
        ({"variation_counts": (-1, 80, 80, 141)}, "negative"),
        ({"pins": ((3, 5), (6, 8), (9, 12))}, "pins"),
        ({"versions": ((1, 3), (2, 3), (2, 4))}, "versions per package"),
        ({"unpinned": (0, 2, 2)}, "unpinned"),
        ({"runtime_share": (0.0, 1.2, 0.5)}, "probabilities"),
        ({"items_per_level": 0}, "positive"),
    ],
)
def test_config_validate_rejects_bad_settings(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ic.InstallCheckConfig(**changes).validate()


def test_level_counts_follow_the_config() -> None:
    config = ic.InstallCheckConfig(items_per_level=20, variation_counts=(8, 8, 8, 6))
    config.validate()
    counts = ic.level_counts(config)
    assert all(sum(c.values()) == 10 for c in counts.values())
    assert [sum(counts[lv][v] for lv in (1, 2, 3)) for v in ic.VARIATIONS] == [8, 8, 8, 6]


# --- 1.2 text revision ----------------------------------------------------------------------------------


def test_runtime_names_are_ordinary_words() -> None:
    """1.2 spelt them by the syllable grammar ("Kvillet"); 1.3 names an invented runtime with a word a reader
    knows (issue #38)."""
    from decisionpivot.audit.text import known_word

    assert "Quillet" not in ic.RUNTIMES and "Kvillet" not in ic.RUNTIMES
    assert all(known_word(name) for name in ic.RUNTIMES)


def test_index_table_says_requires_not_deps() -> None:
    for item in cached_draw(NAME).items:
        assert isinstance(item.state, str)
        assert "deps" not in item.state, item.id


def test_teams_are_technical_and_articles_agree() -> None:
    for item in cached_draw(NAME).items:
        assert isinstance(item.state, str)
        first = item.state.splitlines()[0]
        assert "a adult" not in first and "a hotels" not in first, first
        for team in ("front desk", "kitchen", "radiology", "housekeeping", "marketing"):
            assert f"{team} team" not in first, first


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_no_range_names_one_version_as_floor_and_ceiling() -> None:
    """1.2 wrote ">=3.1.0,<=3.1.0"; one version is "==3.1.0"."""
    found = 0
    for seed in (20261008, 7):
        for item in cached_draw(ic.NAME, seed).items:
            for floor, ceiling in re.findall(r">=([0-9][0-9a-z.]*),<=([0-9][0-9a-z.]*)", str(item.state)):
                assert floor != ceiling, item.id
                found += 1
    assert found > 50


def test_platforms_are_named_as_build_tools_name_them() -> None:
    assert all(re.fullmatch(r"(linux|windows|macos)-(x64|arm64|riscv64)", p) for p in ic.PLATFORMS)
