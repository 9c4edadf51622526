"""access_request: pairs, variation counts, the single granting path, level sizes, shortcuts, config."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace

import pytest

from decisionpivot.generate import access_request as ar
from decisionpivot.generate.family import case_difference
from decisionpivot.generate.registry import family
from decisionpivot.items import Item
from decisionpivot.solve.access_request import solve
from tests.conftest import built_groups, cached_draw

CONFIG = ar.AccessRequestConfig()
EXPECTED_SPLIT = {
    1: {"membership": 34, "role_grant": 33, "inheritance": 33},
    2: {"membership": 13, "role_grant": 14, "inheritance": 13, "seal": 30, "deny": 30},
    3: {"membership": 13, "role_grant": 13, "inheritance": 14, "seal": 30, "deny": 30},
}
DECISIVE_SHAPES = {
    "membership": [r"groups/\d+/(users|groups)/\d+", r"groups/\d+/(users|groups)/\d+"],
    "role_grant": [r"holds/\d+/roles/\d+|roles/\d+/grants/\d+/actions"] * 2,
    "inheritance": [r"roles/\d+/grants/\d+/folder"],
    "seal": [r"seals/\d+"],
    "deny": [r"denies/\d+/(who|action|folder)"],
}


def pairs() -> list[tuple[Item, Item]]:
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in cached_draw(ar.NAME).items:
        groups[item.group].append(item)
    return [tuple(sorted(m, key=lambda i: i.answer != "yes")) for m in groups.values()]  # type: ignore[misc]


def test_pairs_and_variation_counts_per_level() -> None:
    ps = pairs()
    assert len(ps) == 300
    split: dict[int, Counter[str]] = defaultdict(Counter)
    for yes, no in ps:
        assert (yes.answer, no.answer) == ("yes", "no")
        assert yes.variation is None and no.variation in ar.VARIATIONS
        split[no.level][no.variation] += 1
    assert {lv: dict(c) for lv, c in split.items()} == EXPECTED_SPLIT
    assert Counter(v for c in split.values() for v in c.elements()) == dict.fromkeys(ar.VARIATIONS, 60)


def test_member_order_is_shuffled() -> None:
    first_yes = sum(1 for p in built_groups(ar.NAME) if p[1].members[0].answer == "yes")
    assert 110 <= first_yes <= 190


def test_positive_has_exactly_one_granting_path_and_negative_breaks_one_link() -> None:
    for plan, group in built_groups(ar.NAME):
        pos = next(m for m in group.members if m.answer == "yes").case
        neg = next(m for m in group.members if m.answer == "no").case
        assert len(ar.granting_paths(pos)) == 1 and not ar.applicable_denies(pos)
        if plan.variation == "deny":
            assert ar.granting_paths(neg) == ar.granting_paths(pos)
            assert len(ar.applicable_denies(neg)) == 1
        else:
            assert ar.granting_paths(neg) == [] and ar.applicable_denies(neg) == []


def test_members_differ_only_at_the_decisive_link() -> None:
    for plan, group in built_groups(ar.NAME):
        a, b = (m.case for m in group.members)
        leaves = case_difference(a, b)
        diff = sorted(group.decisive)
        for leaf in leaves:
            assert any(leaf == d or leaf.startswith(d + "/") for d in diff), leaf
        for d in diff:
            assert any(leaf == d or leaf.startswith(d + "/") for leaf in leaves), d
        shapes = DECISIVE_SHAPES[plan.variation]
        assert len(diff) == len(shapes), (plan, diff)
        assert all(re.fullmatch(shape, path) for shape, path in zip(shapes, diff, strict=True)), diff
        if plan.variation == "role_grant":
            assert len({p.split("/")[0] for p in diff}) == 1  # either both holdings or both grants


def test_rendered_members_differ_in_at_most_two_lines() -> None:
    for yes, no in pairs():
        a, b = yes.state.splitlines(), no.state.splitlines()  # type: ignore[union-attr]
        assert len(a) == len(b)
        changed = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        assert 1 <= len(changed) <= 2
        assert abs(len(yes.state) - len(no.state)) <= 40


def test_level_sizes() -> None:
    for plan, group in built_groups(ar.NAME):
        case = group.members[0].case
        i = plan.level - 1
        assert max(ar._depth(f) for f in case["folders"]) == CONFIG.depth[i]
        assert len(case["users"]) == CONFIG.users[i]
        assert len(case["groups"]) == CONFIG.groups[i]
        assert len(case["roles"]) == CONFIG.roles[i]
        assert len(case["seals"]) == CONFIG.seals[i]
        assert len(case["denies"]) == CONFIG.denies[i]
        nested = sum(len(g["groups"]) for g in case["groups"])
        if plan.level == 1:
            assert nested == 0 and not case["restricted"]
        else:
            assert nested >= 2 and case["restricted"]
        route = ar.granting_paths(next(m for m in group.members if m.answer == "yes").case)[0][0]
        assert len(route) in CONFIG.chain[i]


def test_near_misses_appear_in_both_members() -> None:
    """Seals on or above the granting folder, and deny entries one field off, are common distractors."""
    seal_on_or_above = 0
    deny_near = 0
    for plan, group in built_groups(ar.NAME):
        if plan.level == 1:
            continue
        pos = next(m for m in group.members if m.answer == "yes").case
        ((_route, role, gi),) = ar.granting_paths(pos)
        grant_folder = next(r for r in pos["roles"] if r["name"] == role)["grants"][gi]["folder"]
        seal_on_or_above += any(ar._covers(s, grant_folder) for s in pos["seals"])
        request = pos["request"]
        deny_near += any(d["action"] == request["action"] for d in pos["denies"])
    assert seal_on_or_above >= 80
    assert deny_near == 200


def test_handmade_case_semantics_match_the_solver() -> None:
    """Seal on the granting folder does not block, a seal below it does, nested groups pass on
    membership, and a deny entry beats a grant."""
    case = {
        "domain": "retail", "intro": "Access rules.", "rules": ["Rule."], "restricted": True,
        "style": {"tree": "outline", "groups": "prose", "roles": "block", "holds": "prose", "denies": "deny"},
        "folders": ["a", "a/b", "a/b/c", "x"], "seals": ["a"], "users": ["Uvo", "Pel"],
        "groups": [{"name": "Inner Team", "users": ["Uvo"], "groups": []},
                   {"name": "Outer Crew", "users": ["Pel"], "groups": ["Inner Team"]}],
        "roles": [{"name": "Editor", "grants": [{"folder": "a", "actions": ["read", "write"]}]}],
        "holds": [{"group": "Outer Crew", "roles": ["Editor"]}],
        "denies": [{"kind": "user", "who": "Pel", "action": "write", "folder": "a"}],
        "request": {"user": "Uvo", "action": "write", "folder": "a/b/c"},
        "request_template": ar.REQUEST_TEMPLATES[1],
    }

    def both(c: dict) -> tuple[str, str]:
        item = Item("access_request:0", ar.NAME, "B", "1.0", None, 2, None, "retail", ar.render(c),
                    ar.QUESTION, ar.OPTIONS, None)
        return ar.answer(c), solve(item)

    assert both(case) == ("yes", "yes")
    assert both({**case, "seals": ["a/b"]}) == ("no", "no")
    assert both({**case, "denies": [{**case["denies"][0], "who": "Uvo"}]}) == ("no", "no")
    assert both({**case, "denies": [{"kind": "group", "who": "Inner Team", "action": "write", "folder": "a"}],
                 "seals": ["a/b"]}) == ("no", "no")
    assert both({**case, "denies": [{"kind": "group", "who": "Inner Team", "action": "write", "folder": "a"}],
                 "roles": [{"name": "Editor", "grants": [{"folder": "a/b", "actions": ["write"]}]}],
                 "seals": ["a/b"]}) == ("yes", "yes")
    assert both({**case, "request": {"user": "Uvo", "action": "read", "folder": "x"}}) == ("no", "no")


def test_structural_counts_stay_near_chance() -> None:
    sklearn = pytest.importorskip("sklearn")
    del sklearn
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    items = cached_draw(ar.NAME).items
    counts = [ar.structural_counts(i) for i in items]
    assert len(counts[0]) == 14
    x = np.array([[c[k] for k in counts[0]] for c in counts], dtype=float)
    y = np.array([i.answer == "yes" for i in items])
    groups = np.array([i.group for i in items])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    pred = cross_val_predict(model, x, y, groups=groups, cv=GroupKFold(5))
    assert (pred == y).mean() <= 0.58
    # negatives move or swap entries, so most pairs have identical counts
    same = sum(counts[a] == counts[a + 1] for a in range(0, 600, 2))
    assert same >= 250


def test_heuristics_stay_near_chance() -> None:
    items = cached_draw(ar.NAME).items
    heuristics = family(ar.NAME).heuristics
    assert set(heuristics) == {"structural_counts", "grant_on_path"}
    for name, heuristic in heuristics.items():
        correct = sum(max(heuristic(i).items(), key=lambda kv: kv[1])[0] == i.answer for i in items)
        assert 0.4 <= correct / len(items) <= 0.6, (name, correct)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"items_per_level": 201}, "even"),
        ({"items_per_level": 12}, "split evenly"),
        ({"depth": (1, 3, 4)}, "depth"),
        ({"seals": (0, 0, 3)}, "seals and deny entries come together"),
        ({"seals": (0, 0, 0), "denies": (0, 0, 0)}, "at least one level"),
        ({"chain": ((1,), (1, 4), (2, 3))}, "chain lengths"),
        ({"groups": (5, 4, 9)}, "too few"),
        ({"denies": (0, 1, 4), "seals": (0, 2, 3)}, "at least 2 deny entries"),
    ],
)
def test_config_validate_errors(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(CONFIG, **change).validate()


def test_default_config_is_valid() -> None:
    CONFIG.validate()


# --- text revision of 1.1 (core 1.2) ------------------------------------------------------------


def test_document_folders_have_real_plurals() -> None:
    """1.0 appended "s" to every document ("syllabuss")."""
    from decisionpivot.audit.text import known_word
    from decisionpivot.generate.common.domains import DOMAINS

    assert ar.plural("syllabus") == "syllabuses"
    assert ar.plural("delivery note") == "delivery notes"
    for domain in DOMAINS:
        for pool in ar.folder_pools(domain):
            for name in pool:
                words = name.split("-")
                assert all(known_word(w) or w.isdigit() or w in ("q1", "q2", "q3", "q4") for w in words), name


def test_folder_trees_follow_the_depth_lists() -> None:
    """A department sits only at the top and a quarter only at the bottom: no /final/final/q3 or
    /q1/q3/admissions (1.0 drew every level from one pool)."""
    from decisionpivot.generate.common.domains import DOMAIN_BY_NAME

    for _plan, group in built_groups(ar.NAME):
        case = group.members[0].case
        pools = ar.folder_pools(DOMAIN_BY_NAME[case["domain"]])
        for folder in case["folders"]:
            parts = folder.split("/")
            assert all(part in pools[d] for d, part in enumerate(parts)), folder
            assert len(set(parts)) == len(parts), folder


def test_rules_and_intro_read_cleanly() -> None:
    """No "subfolders" (not in the dictionary) and no "a adult education firm"."""
    from decisionpivot.audit.text import article, misspelled

    for item in cached_draw(ar.NAME).items:
        state = item.state  # type: ignore[union-attr]
        assert "subfolder" not in state
        intro, rules = state.split("\n\n")[:2]
        assert article(intro) == [] and misspelled(rules) == []


def test_requests_grants_and_denies_name_what_is_done_to_files() -> None:
    """Core 1.3 (issue #38): 1.2 wrote "Isla asks to read in /audit/reports" and "may share in /management"."""
    for item in cached_draw("access_request").items:
        text = str(item.state)
        assert not re.search(r"\b(?:read|write|delete|share) in /", text), item.id
        assert re.search(r"\b(?:read|write|delete|share) files in (?:the folder )?/", text.splitlines()[-1]), item.id
