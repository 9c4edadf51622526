"""Invariance for scales (issue 40, item 5): the framings' items, their exact gold, the solvers, the items rule, and
their scoring with the invariance suite's metric functions."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.item_hashes import ModifiedItemsError
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import read_items, sha256_file, write_items
from decisionpivot.scale.framing import GROUP_STRIDE, REWORDINGS, SCALE_FRAMINGS, framed_groups, write_framed
from decisionpivot.scale.registry import families
from decisionpivot.score.pipeline import score_runs
from decisionpivot.score.results import MACRO
from decisionpivot.score.scale_invariance import SCALE_INVARIANCE
from decisionpivot.score_questions import level_name
from decisionpivot.solve.scale import scale_solvers
from decisionpivot.verify import verify_folder
from tests.scale.conftest import items_by_group, scale_draw
from tests.scale.synthetic_systems import SYSTEMS_FRAMED

NAMES = [spec.name for spec in families()]


@pytest.mark.parametrize("name", NAMES)
def test_every_framing_keeps_the_gold_level_and_changes_only_what_it_says(name: str) -> None:
    items = scale_draw(name).items
    framed = framed_groups(items)
    groups = items_by_group(name)
    for level in (1, 2, 3):  # a third of each level's groups, the gold spread evenly over its scale
        at_level = [g for g, members in groups.items() if members[0].level == level]
        sampled = {i.group for i in framed if i.level == level}
        assert len(sampled) == -(-len(at_level) // GROUP_STRIDE) and sampled <= set(at_level)
        gold = Counter(i.answer for i in framed if i.level == level and i.extra["framing"] == "plain")
        assert len(gold) == len(groups[next(iter(sampled))][0].options) and max(gold.values()) - min(gold.values()) <= 2
    base = {i.id: i for i in items}
    by_framing: dict[str, int] = {}
    for item in framed:
        framing = item.extra["framing"]
        by_framing[framing] = by_framing.get(framing, 0) + 1
        plain = base[item.extra["base"]]
        assert item.id == f"{plain.id}~{framing}" and item.group == plain.group and item.level == plain.level
        key_map = item.extra["key_map"]
        assert key_map[item.answer] == plain.answer  # the gold level, whatever the framing
        assert {o.meaning: key_map[o.key] for o in item.options} == {o.meaning: o.key for o in plain.options}
        if framing == "reversed":
            assert item.options == tuple(reversed(plain.options)) and item.state == plain.state
        elif framing in ("letters", "words"):
            assert [o.meaning for o in item.options] == [o.meaning for o in plain.options]
            assert item.option_keys[0] == ("A" if framing == "letters" else "one")
        elif framing == "rubric":
            old, new = plain.state.split("\n"), item.state.split("\n")
            changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
            assert len(changed) >= 2 and all((a, b) in REWORDINGS[name] for a, b in changed)
            assert item.options == plain.options
        else:
            assert (item.state, item.options, item.answer) == (plain.state, plain.options, plain.answer)
    assert set(by_framing) == set(SCALE_FRAMINGS) and len(set(by_framing.values())) == 1


@pytest.mark.parametrize("name", NAMES)
def test_the_solvers_answer_every_framing_and_catch_a_mirrored_gold(name: str) -> None:
    """The scale solver reads the framed item (the reworded state, the options in their order) and answers through
    the key map; a reversed item whose gold was moved to the mirror position is a disagreement."""
    solve = scale_solvers()[name]
    framed = framed_groups(scale_draw(name).items)[:60]
    assert all(solve(item) == item.answer for item in framed)
    reversed_items = [i for i in framed if i.extra["framing"] == "reversed" and 2 * int(i.answer) != len(i.options) - 1]
    for item in reversed_items[:5]:
        position = item.option_keys.index(item.answer)
        mirrored = replace(item, answer=item.option_keys[len(item.options) - 1 - position])
        assert solve(mirrored) != mirrored.answer
    assert all(level_name(o) for i in framed for o in i.options)


@pytest.fixture(scope="module")
def framed_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("framed")
    write_framed(folder, names=["support_priority", "reconcile_band"])
    return folder


def test_dp_verify_and_the_items_rule_read_the_framings(framed_folder: Path, tmp_path: Path) -> None:
    results = verify_folder(framed_folder)
    assert [r.rate for r in results] == [1.0, 1.0]
    assert [r.items_check for r in results] == ["released scale suite 1.0 framings"] * 2  # the shipped manifest
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "MANIFEST.json").write_bytes((framed_folder / "MANIFEST.json").read_bytes())
    items = read_items(framed_folder / "support_priority.jsonl")
    flipped = [replace(items[1], answer=items[1].option_keys[0]) if i == 1 else item for i, item in enumerate(items)]
    write_items(copy / "support_priority.jsonl", flipped)
    path = copy / "support_priority.jsonl"
    with pytest.raises(ModifiedItemsError, match="dp scale --framings"):
        accept_items_file(path, sha256_file(path))
    assert accept_items_file(path, sha256_file(path), allow_modified=True).startswith("modified")


def test_the_framings_scored_with_the_invariance_functions(framed_folder: Path, tmp_path: Path) -> None:
    """A system that reads levels keeps every answer (flip 0, position share 0); one that reads positions answers
    the mirror level on every reversed item off the middle (position share 100) and nothing else moves."""
    config = tmp_path / "systems.yaml"
    config.write_text(json.dumps({"systems": {
        name: {"kind": "python", "callable": f"tests.scale.synthetic_systems:{function}"}
        for name, function in SYSTEMS_FRAMED.items()}}))
    for name in SYSTEMS_FRAMED:
        evaluate_system(get_system(name, config), framed_folder, tmp_path / "runs", progress=False)
    suite = tmp_path / "suite"
    from decisionpivot.scale.run import write_suite

    write_suite(suite, names=["support_priority", "reconcile_band"])
    for name in SYSTEMS_FRAMED:
        evaluate_system(get_system(name, config), suite, tmp_path / "scale-runs", progress=False)
    scoring = score_runs(tmp_path / "scale-runs", suite, out=tmp_path / "out", resamples=20,
                         scale_invariance=framed_folder, scale_invariance_runs=tmp_path / "runs")
    value = {(e.system, e.metric): e.value for e in scoring.scale
             if e.track == SCALE_INVARIANCE and e.task == MACRO}
    assert value[("oracle", "flip_rate")] == 0 and value[("oracle", "robust_pair_accuracy")] == 100
    assert value[("oracle", "position_share")] == 0
    assert value[("reversed", "flip_rate")] == 0 and value[("reversed", "position_share")] == 0  # wrong, but stable
    assert value[("by_position", "position_share")] == 100
    assert value[("by_position", "flip_rate:letters")] == 0 == value[("by_position", "flip_rate:rubric")]
    assert value[("by_position", "flip_rate:reversed")] > 50 and value[("by_position", "accuracy:plain")] == 100
    board = (tmp_path / "out" / "scale_leaderboard.md").read_text()
    assert "Position share" in board and (tmp_path / "out" / "scale_invariance.md").exists()


def test_a_fresh_seeds_framings_are_re_derived(tmp_path: Path) -> None:
    write_framed(tmp_path, seed=7, names=["support_priority"])
    path = tmp_path / "support_priority.jsonl"
    assert accept_items_file(path, sha256_file(path)) == "re-derived scale suite 1.0 framings seed 7"


def test_the_audits_middle_level_check_reads_framed_items() -> None:
    """gold_level reads a framed item's gold through its key map (letters and words keys): the audit's middle-level
    check raised ValueError on the framings before (int('B'))."""
    from decisionpivot.audit.ordinal import ordinal_report
    from decisionpivot.score_questions import gold_level

    framed = framed_groups(scale_draw("supplier_risk").items)
    assert all(gold_level(i) == int(i.extra["key_map"][i.answer]) for i in framed)
    report = ordinal_report(framed, 0.05)
    assert report["failures"] == [] and report["levels_unused"] == {}


def test_a_framing_sent_as_its_plain_member_is_no_flip_and_says_so(framed_folder: Path, tmp_path: Path) -> None:
    """System One asks a score question with its levels' meanings as an array: renaming the level keys sends the
    plain member's bytes. Records say what was sent (``request_sha256``); such items are left out of every flip
    rate, ``same_request:<framing>`` counts them, and the table says "same request as plain" - a flip rate of 0
    there would measure nothing. A framing whose bytes differ keeps its flips."""
    import hashlib

    from decisionpivot.scale.run import write_suite
    from decisionpivot.score.answers import same_request

    assert list(same_request(["a", "a", "b", ""], __import__("numpy").array([0, 0, 0, 0]))) == \
        [False, True, False, False]  # the plain member itself, a different request and an unrecorded one: no
    config = tmp_path / "systems.yaml"
    config.write_text(json.dumps({"systems": {
        "by_position": {"kind": "python", "callable": "tests.scale.synthetic_systems:"
                        f"{SYSTEMS_FRAMED['by_position']}"}}}))
    system = get_system("by_position", config)
    runs = tmp_path / "runs"
    evaluate_system(system, framed_folder, runs, progress=False)
    for path in (runs / "by_position").glob("*.jsonl"):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        items = {item.id: item for item in read_items(framed_folder / path.name)}
        for record in records:  # the request a System One wire would send: letters/words as their plain member
            item = items[record["id"]]
            framing = item.extra["framing"]
            base = "plain" if framing in ("letters", "words") else framing
            record["request_sha256"] = hashlib.sha256(f"{item.extra['base']}|{base}".encode()).hexdigest()
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    suite = tmp_path / "suite"
    write_suite(suite, names=["support_priority", "reconcile_band"])
    evaluate_system(system, suite, tmp_path / "scale-runs", progress=False)
    scoring = score_runs(tmp_path / "scale-runs", suite, out=tmp_path / "out", resamples=20,
                         scale_invariance=framed_folder, scale_invariance_runs=runs)
    value = {e.metric: e.value for e in scoring.scale
             if e.track == SCALE_INVARIANCE and e.task == MACRO and e.system == "by_position"}
    assert value["same_request:letters"] == 100 == value["same_request:words"]
    assert value["same_request:reversed"] == 0 == value["same_request:rubric"]
    assert "flip_rate:letters" not in value or value["flip_rate:letters"] != value["flip_rate:letters"]  # no value
    assert value["flip_rate:reversed"] > 50  # the position reader still flips where the bytes differ
    table = (tmp_path / "out" / "scale_invariance.md").read_text()
    assert "(same request as plain)" in table
