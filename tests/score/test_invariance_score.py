"""`dp score` on an invariance suite: scoring.json's ``invariance`` section, invariance.md/.csv, the leaderboard's
two columns - for a suite given as the items folder and for a suite scored beside the core (``--invariance``)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import FRAMINGS
from decisionpivot.items import write_items
from decisionpivot.score.invariance import INVARIANCE
from decisionpivot.score.pipeline import score_runs
from decisionpivot.score.report import framing_name
from decisionpivot.score.results import MACRO
from tests.conftest import cached_draw
from tests.score.framed import SYSTEMS, framed_family, write_runs, write_suite

FAMILIES = ("fact_answerable", "policy_case")
CHOSEN = {name: SYSTEMS[name] for name in ("oracle", "uniform", "steering_follower", "together_confused")}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("invariance-score")
    suite = write_suite(root / "suite", {f: framed_family(cached_draw(f).items, 3) for f in FAMILIES})
    core = root / "core"
    core.mkdir()
    for family in FAMILIES:
        write_items(core / f"{family}.jsonl", list(cached_draw(family).items[:30]))
    write_runs(root / "runs", core, CHOSEN)
    write_runs(root / "runs-invariance", suite, {k: v for k, v in CHOSEN.items() if k != "together_confused"})
    write_runs(root / "runs-invariance", suite, {"together_confused": CHOSEN["together_confused"]},
               meta={"questions_per_request": "one"})
    return {"root": root, "suite": suite, "core": core, "runs": root / "runs", "inv": root / "runs-invariance"}


def test_dp_score_on_a_suite_writes_the_invariance_section_tables_and_columns(folders: dict[str, Path]) -> None:
    out = folders["root"] / "reports-suite"
    done = subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", "score", "--items", str(folders["suite"]), "--runs",
         str(folders["inv"]), "--out", str(out), "--reference", "", "--resamples", "20", "--nofigures",
         "--allow-modified-items"],  # hand-made suite and core: not what this package draws
        capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"}, timeout=600)
    assert done.returncode == 0, done.stderr
    section = json.loads((out / "scoring.json").read_text())["invariance"]
    assert set(section) == {"definitions", "framings", "questions_per_request_one", "records"}
    assert section["questions_per_request_one"] == ["together_confused"]
    records = {(r["system"], r["task"], r["metric"]): r for r in section["records"]}
    assert records[("oracle", MACRO, "robust_pair_accuracy")]["value"] == 100
    assert records[("steering_follower", MACRO, "steering_success")]["value"] == 100
    assert records[("uniform", MACRO, "flip_rate")]["value"] == 0
    # a kind asking one question per request: its together items are the plain question again, not interference
    assert ("together_confused", MACRO, "request_interference") not in records
    assert ("steering_follower", MACRO, "request_interference") in records
    robust = records[("steering_follower", "policy_case", "robust_pair_accuracy")]
    low, high = robust["ci_low"], robust["ci_high"]
    assert low is not None and low <= high
    board = (out / "leaderboard.md").read_text()
    assert "| Robust pair acc. | Flip rate |" in board
    rows = list(csv.DictReader((out / "leaderboard.csv").open()))
    assert {r["system"]: r["robust_pair_accuracy"] for r in rows}["oracle"] == "100.0000"
    tables = (out / "invariance.md").read_text()
    assert "## policy_case by framing" in tables and "## Macro over families" in tables
    for framing in FRAMINGS:  # every framing has its row, under its human name (and its code name)
        assert f"| {framing_name(framing)} |" in tables, framing
    assert "together_confused" in tables.split("Asked one question per request")[1].splitlines()[0]
    assert (out / "invariance.csv").read_text().startswith("system,track,task,level,metric,value")
    assert "Robust pair acc." in done.stdout


def test_a_suite_scored_beside_the_core_adds_its_columns_to_the_core_leaderboard(folders: dict[str, Path]) -> None:
    out = folders["root"] / "reports-both"
    scoring = score_runs(folders["runs"], folders["core"], None, out, resamples=20, tasks=(), figures=False,
                         invariance=folders["suite"], invariance_runs=folders["inv"], allow_modified_items=True)
    assert scoring.core_tasks == FAMILIES
    robust = scoring.get("steering_follower", INVARIANCE, MACRO, "robust_pair_accuracy")
    assert robust is not None and robust.value == 0
    assert scoring.get("oracle", "core", MACRO, "pair_accuracy").value == 100
    assert "| Robust pair acc. | Flip rate |" in (out / "leaderboard.md").read_text()
    only_core = score_runs(folders["runs"], folders["core"], None, folders["root"] / "core-only", resamples=20,
                           tasks=(), figures=False, allow_modified_items=True)
    assert only_core.invariance == ()
    assert "Robust pair acc." not in (folders["root"] / "core-only" / "leaderboard.md").read_text()
    assert "invariance" not in json.loads((folders["root"] / "core-only" / "scoring.json").read_text())


def test_core_items_given_as_the_suite_are_an_error_naming_the_folder(folders: dict[str, Path]) -> None:
    with pytest.raises(DecisionPivotError, match="not an invariance suite"):
        score_runs(folders["runs"], folders["core"], None, folders["root"] / "wrong", resamples=20, tasks=(),
                   figures=False, invariance=folders["core"], invariance_runs=folders["runs"],
                   allow_modified_items=True)


def test_dp_score_and_dp_report_take_a_suite_beside_the_core(folders: dict[str, Path]) -> None:
    out = folders["root"] / "reports-cli"
    common = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", "score", "--items", str(folders["core"]), "--runs",
         str(folders["runs"]), "--out", str(out), "--reference", "", "--resamples", "20", "--nofigures",
         "--invariance", str(folders["suite"]), "--invariance-runs", str(folders["inv"]), "--allow-modified-items"],
        capture_output=True, text=True, env=common, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "| Robust pair acc. | Flip rate |" in (out / "leaderboard.md").read_text()
    assert (out / "invariance.md").is_file()
    done = subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", "report", "--reports", str(out), "--items", str(folders["core"]),
         "--runs", str(folders["runs"]), "--out", str(out / "site"), "--gate", "", "--stability", "", "--partial",
         "", "--invariance", str(folders["suite"]), "--invariance-runs", str(folders["inv"]),
         "--allow-modified-items"],
        capture_output=True, text=True, env=common, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (out / "site" / "framings" / "fact_answerable.html").is_file()


def test_a_framing_sent_as_its_plain_members_bytes_is_no_flip_and_says_so(folders: dict[str, Path]) -> None:
    """Records say what reached the model (``request_sha256``). Where a framing's request was byte for byte its plain
    member's, the framing never reached the model: its items are out of every flip rate (a flip rate of 0 there
    would measure nothing), ``same_request:<framing>`` counts them and the table says so. Framings whose bytes
    differ keep their flips."""
    import hashlib

    from decisionpivot.items import read_items

    runs = folders["root"] / "runs-same-request"
    write_runs(runs, folders["suite"], {"wording_reader": SYSTEMS["wording_reader"]})
    for path in sorted((runs / "wording_reader").glob("*.jsonl")):
        items = {item.id: item for item in read_items(folders["suite"] / path.name)}
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for record in records:  # a wire that drops the wording: wording-1 is sent as the plain question
            item = items[record["id"]]
            framing = item.extra["framing"]
            sent = "plain" if framing == "wording-1" else framing
            record["request_sha256"] = hashlib.sha256(f"{item.extra['base']}|{sent}".encode()).hexdigest()
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = folders["root"] / "reports-same-request"
    scoring = score_runs(runs, folders["suite"], None, out, resamples=20, tasks=(), figures=False,
                         allow_modified_items=True)
    value = {e.metric: e.value for e in scoring.invariance if e.task == MACRO and e.system == "wording_reader"}
    assert value["same_request:wording-1"] == 100
    assert value["same_request:wording-2"] == 0 == value["same_request:steering"]
    assert "flip_rate:wording-1" not in value or value["flip_rate:wording-1"] != value["flip_rate:wording-1"]
    assert value["flip_rate:wording-2"] > 0  # the wording reader still flips where the bytes differ
    unsent = write_runs(folders["root"] / "runs-unrecorded", folders["suite"],
                        {"wording_reader": SYSTEMS["wording_reader"]})
    before = score_runs(unsent, folders["suite"], None, folders["root"] / "reports-unrecorded", resamples=20,
                        tasks=(), figures=False, allow_modified_items=True)
    flips = {e.metric: e.value for e in before.invariance if e.task == MACRO and e.system == "wording_reader"}
    assert flips["flip_rate:wording-1"] > 0 and "same_request:wording-1" not in flips
    assert "[same request as plain: 100% of items]" in (out / "invariance.md").read_text()
