"""goal_check: counts, one changed step breaking exactly one condition, level sizes, heuristics."""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from typing import Any

import pytest

from decisionpivot.generate import goal_check as gc
from decisionpivot.generate.family import Group, case_difference
from decisionpivot.generate.registry import family
from tests.conftest import built_groups, cached_draw

NAME = "goal_check"


def _members(group: Group) -> tuple[dict[str, Any], dict[str, Any]]:
    pos = next(m for m in group.members if m.answer == "yes")
    neg = next(m for m in group.members if m.answer == "no")
    return dict(pos.case), dict(neg.case)


def test_pairs_variations_and_domains() -> None:
    items = cached_draw(NAME).items
    groups = defaultdict(list)
    for item in items:
        groups[item.group].append(item)
    assert len(groups) == 300
    assert all(sorted(m.answer for m in g) == ["no", "yes"] for g in groups.values())
    for level in (1, 2, 3):
        negatives = Counter(i.variation for i in items if i.answer == "no" and i.level == level)
        assert negatives == {v: 25 for v in gc.VARIATIONS}
    assert all(i.variation is None for i in items if i.answer == "yes")
    domains = Counter(i.domain for i in items)
    assert set(domains) == {d.key for d in gc.DOMAINS}
    assert min(domains.values()) == max(domains.values())


def test_one_changed_step_breaks_exactly_one_condition() -> None:
    for plan, group in built_groups(NAME):
        pos, neg = _members(group)
        assert gc.failing_conditions(pos) == []
        assert len(gc.failing_conditions(neg)) == 1
        diff = case_difference(pos, neg)
        decisive = sorted(group.decisive)
        assert all(any(p == d or p.startswith(d + "/") for d in decisive) for p in diff)
        if plan.variation == "swapped":
            i, j = sorted(int(d.split("/")[1]) for d in decisive)
            assert 0 < j - i <= 3
            expected = list(pos["trace"])
            expected[i], expected[j] = expected[j], expected[i]
            assert neg["trace"] == expected and pos["trace"] != neg["trace"]
        else:
            assert len(decisive) == 1
            suffix = {"wrong_target": ("/a", "/b"), "wrong_content": ("/text",), "replaced": ("/op",)}
            assert decisive[0].endswith(suffix[plan.variation])
            assert diff == set(decisive)
        if plan.variation == "replaced":
            step = int(decisive[0].split("/")[1])
            ops = {pos["trace"][step]["op"], neg["trace"][step]["op"]}
            assert ops <= set(gc.TWO_PATH) or ops <= set(gc.WITH_TEXT)


def test_rendered_members_differ_only_in_the_changed_steps() -> None:
    for plan, group in built_groups(NAME):
        a = group.members[0].state.splitlines()  # type: ignore[union-attr]
        b = group.members[1].state.splitlines()  # type: ignore[union-attr]
        assert len(a) == len(b)
        changed = [n for n, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        assert len(changed) == (2 if plan.variation == "swapped" else 1)
        trace_at = a.index("Trace:")
        assert all(n > trace_at for n in changed)
        matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
        assert matcher.ratio() > 0.9


def test_level_sizes_and_distractor_steps() -> None:
    config = gc.GoalCheckConfig()
    for plan, group in built_groups(NAME):
        li = plan.level - 1
        for member in group.members:
            case = member.case
            assert len(case["trace"]) == config.steps[li]
            assert len(case["goal"]) == config.conditions[li]
            assert config.files[li][0] <= len(case["files"]) <= config.files[li][1]
            quiet = [s for s in case["trace"] if not gc._relevant(s, case["goal"])]
            assert len(quiet) >= config.distractors[li]
    sizes = defaultdict(list)
    for item in cached_draw(NAME).items:
        sizes[item.level].append(len(item.state))
    medians = {lv: sorted(v)[len(v) // 2] for lv, v in sizes.items()}
    assert medians[1] < medians[2] < medians[3]
    overall = sorted(len(i.state) for i in cached_draw(NAME).items)[300]
    assert 1600 <= overall <= 5000


def test_failing_steps_are_in_every_trace_in_equal_number() -> None:
    for _plan, group in built_groups(NAME):
        pos, neg = _members(group)
        assert len(gc.simulate(pos)[2]) == len(gc.simulate(neg)[2]) >= 1


def test_goal_kinds_vary_and_goal_paths_are_distinct() -> None:
    kinds = Counter()
    decisive_kinds = Counter()
    for _plan, group in built_groups(NAME):
        pos, neg = _members(group)
        paths = [c["path"] for c in pos["goal"]]
        assert len(set(paths)) == len(paths)
        kinds.update(c["kind"] for c in pos["goal"])
        decisive_kinds[pos["goal"][gc.failing_conditions(neg)[0]]["kind"]] += 1
    assert set(kinds) == {"exists", "absent", "line", "noline", "count"}
    assert len(decisive_kinds) >= 4, decisive_kinds


def test_semantics_name_every_operation() -> None:
    for item in cached_draw(NAME).items[:40]:
        ops = item.state.partition("Operations:")[2].partition("Goal:")[0]  # type: ignore[union-attr]
        for op in gc.OPS:
            assert f"\n- {gc.COMMAND.get(op, op)} " in ops


def test_simulate_follows_the_stated_rules() -> None:
    case = {
        "folders": ["a", "b"],
        "files": [{"path": "a/x.txt", "lines": ["k: 1"]}],
        "trace": [
            {"op": "copy", "a": "a/missing.txt", "b": "b/m.txt"},  # fails: no source
            {"op": "create", "a": "a/x.txt", "text": "k: 2"},  # fails: exists
            {"op": "write", "a": "c/y.txt", "text": "k: 3"},  # fails: no folder
            {"op": "append", "a": "a/x.txt", "text": "k: 4"},
            {"op": "copy", "a": "a/x.txt", "b": "b/x.txt"},
            {"op": "move", "a": "a/x.txt", "b": "b/x.txt"},  # overwrites
            {"op": "mkdir", "a": "c/d"},
            {"op": "write", "a": "c/d/z.txt", "text": "k: 5"},
            {"op": "delete", "a": "a/none.txt"},
        ],
    }
    folders, files, failed = gc.simulate(case)
    assert failed == [0, 1, 2]
    assert files == {"b/x.txt": ["k: 1", "k: 4"], "c/d/z.txt": ["k: 5"]}
    assert {"c", "c/d"} <= folders


@pytest.mark.parametrize("name", ["goal_paths_mentioned", "goal_texts_mentioned"])
def test_mention_heuristics_are_at_chance_by_construction(name: str) -> None:
    h = family(NAME).heuristics[name]
    items = cached_draw(NAME).items
    groups = defaultdict(list)
    for item in items:
        groups[item.group].append(item)
    for members in groups.values():
        assert h(members[0]) == h(members[1]), members[0].id
    for level in (1, 2, 3):
        sub = [i for i in items if i.level == level]
        hits = sum(max(h(i).items(), key=lambda kv: kv[1])[0] == i.answer for i in sub)
        assert hits / len(sub) == 0.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"items_per_level": 7}, "even"),
        ({"items_per_level": 202}, "evenly"),
        ({"steps": (3, 15, 25)}, "too short"),
        ({"conditions": (1, 5, 7)}, "at least 2"),
        ({"distractors": (4, 3, 5)}, "do not fit"),
        ({"files": ((5, 4), (9, 12), (13, 16))}, "low <= high"),
        ({"folders": ((3, 4), (4, 5), (5, 7))}, "at most 6"),
        ({"steps": (5, 15)}, "one value per level"),
    ],
)
def test_config_validate_rejects(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gc.GoalCheckConfig(**kwargs).validate()


# --- text revision of 1.2 (core 1.2) ------------------------------------------------------------


def test_commands_and_rules_are_written_in_words() -> None:
    """1.1 wrote "mkdir F" and "subfolders"; the dictionary knows neither."""
    from decisionpivot.audit.text import misspelled

    for item in cached_draw(NAME).items:
        state = item.state  # type: ignore[union-attr]
        assert "mkdir" not in state and "subfolder" not in state
        ops = state.partition("Operations:")[2].partition("Goal:")[0]
        assert misspelled(ops) == []
    assert gc._step_text({"op": "mkdir", "a": "docs/reference"}, "command") == "make-folder docs/reference"


def test_folder_names_are_words_or_identifiers() -> None:
    """Every folder of every setting is a dictionary word or an identifier (1.1 had docs/api)."""
    from decisionpivot.audit.text import misspelled

    for domain in gc.DOMAINS:
        for folder in domain.folders:
            assert misspelled(folder) == [], (domain.key, folder)


def test_solver_reads_the_old_and_new_folder_command() -> None:
    from decisionpivot.solve.goal_check import _step

    assert _step("3. mkdir docs/reference") == ("mkdir", ["docs/reference"], None)
    assert _step("3. make-folder docs/reference") == ("mkdir", ["docs/reference"], None)


# --- core 1.3 text revision (issue #38) ----------------------------------------------------------------


def test_files_are_named_as_their_setting_names_them_and_the_text_speaks_of_files() -> None:
    """1.2: "Store at the start:", "bring ... into a goal state", "kvoulk_protocol.md"."""
    for item in cached_draw("goal_check").items:
        text = str(item.state)
        assert gc.START_HEADING in text and "Store at the start" not in text and "goal state" not in text
        for name in re.findall(r"([a-z]+)_protocol\.md", text):
            assert name in gc.PROTOCOLS, name
        for product in re.findall(r"applies to: ([A-Za-z]+) ", text):
            assert product in gc.PRODUCTS, product
