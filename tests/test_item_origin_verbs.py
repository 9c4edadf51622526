"""Every verb that reads items goes through the one rule (decisionpivot.item_origin): an edited items file - an
edit Hypothesis generates, in the release, the calibration draw and the traffic draw of the deployment project
(tests/deployment_project.py), with the manifest rewritten to match or not - stops evaluate, score, verify,
compare, gate, recalibrate, cost, monitor, report and frame with one line naming the file; with
--allow-modified-items each of them runs, and every file it writes says so."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.deployment_project import CALIBRATION_SEED, SYSTEMS, TRAFFIC_SEED, Project, shared_project
from tests.test_item_origin import _edited, edits

FAMILY = "fact_answerable"
FLAG = "--allow-modified-items"
STATED = ("--allow-modified-items", "modified_items")
"""What an output that read items under the flag carries (the sentence, or the JSON key / CSV column)."""


@pytest.fixture(scope="module")
def project() -> Project:
    return shared_project()


def _dp(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _states(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return any(marker in text for marker in STATED)


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(edit=edits(suite=False))
def test_every_verb_refuses_an_edited_file_and_states_the_flag_in_every_output(
        project: Project, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, edit: tuple[str, Callable[[list[str]], list[str]], bool]) -> None:
    what, change, rewrite = edit
    lines = change((project.root / project.items / f"{FAMILY}.jsonl").read_text(encoding="utf-8").splitlines(True))
    probe = tmp_path_factory.mktemp("probe") / f"{FAMILY}.jsonl"
    probe.write_text("".join(lines), encoding="utf-8")
    try:
        read_items(probe)
    except DecisionPivotError:
        assume(False)  # an edit that breaks the file is refused by its reader before any verb runs it
    root = tmp_path_factory.mktemp("edited")
    for folder in (project.items, project.fresh / f"seed-{CALIBRATION_SEED}", project.fresh / f"seed-{TRAFFIC_SEED}"):
        _edited(project.root / folder, root / folder, FAMILY, change, rewrite)
    for name in ("runs", "runs-calibration", "runs-traffic", "reports", "systems.yaml"):
        (shutil.copytree if (project.root / name).is_dir() else shutil.copy)(project.root / name, root / name)
    monkeypatch.chdir(root)
    items, calibration, traffic = str(project.items), f"datasets/fresh/seed-{CALIBRATION_SEED}", \
        f"datasets/fresh/seed-{TRAFFIC_SEED}"
    verbs = {
        "evaluate": ("evaluate", "--system", "uniform", "--items", items, "--runs", "runs-new"),
        "score": ("score", "--items", items, "--reference", "", "--out", "scored", "--nofigures", "--resamples", "20"),
        "verify": ("verify", "--items", items),
        "compare": ("compare", "--baseline", "runs/oracle", "--candidate", "runs/degraded", "--items", items,
                    "--resamples", "20", "--out", "scored/compare"),
        "gate": ("gate", "--items", items, "--seeds", str(CALIBRATION_SEED), "--target-risk", "0.1", "--resamples",
                 "20", "--out", "scored"),
        "recalibrate": ("recalibrate", "--items", items, "--seeds", str(CALIBRATION_SEED), "--resamples", "20",
                        "--out", "scored/recalibrate"),
        "cost": ("cost", "--items", items, "--cost-wrong", "50", "--cost-escalated", "2", "--gate",
                 "scored/gate.json", "--out", "scored/cost"),
        "monitor": ("monitor", "scored/gate/oracle.json", "--answers", "runs-traffic/oracle", "--items", traffic,
                    "--out", "scored/monitor"),
        "report": ("report", "--reports", "scored", "--items", items, "--gate", "scored/gate.json", "--stability",
                   "", "--partial", "", "--out", "scored/site"),
        "frame": ("frame", "--items", items, "--out", "suite", "--families", FAMILY, "--base-items", "12"),
    }
    def refused(verb: str, folder: str = items) -> None:
        code, _, err = _dp(capsys, *verbs[verb])
        assert code == 2 and err.count("\n") == 1, (verb, what, err)
        assert err.startswith(f"error: {folder}/") and FLAG in err, (verb, what, err)

    for verb in ("evaluate", "score", "verify", "compare", "gate", "recalibrate", "frame"):
        refused(verb)
    assert not Path("runs-new").exists() and not Path("scored").exists() and not Path("suite").exists()
    # with the flag: answers to the edited items first (the answer files name the items they answered)
    for name in ("runs", "runs-calibration", "runs-traffic"):
        shutil.rmtree(name)
    for name in SYSTEMS:
        system = get_system(name, Path("systems.yaml"))
        evaluate_system(system, Path(items), Path("runs"), progress=False, allow_modified_items=True)
        evaluate_system(system, Path(calibration), Path(f"runs-calibration/seed-{CALIBRATION_SEED}"), progress=False,
                        allow_modified_items=True)
        evaluate_system(system, Path(traffic), Path("runs-traffic"), progress=False, allow_modified_items=True)
    for verb in ("score", "compare", "gate", "recalibrate", "cost", "monitor", "report"):
        if verb in ("cost", "monitor", "report"):  # their other inputs (gate.json, the scoring) exist by now
            refused(verb, traffic if verb == "monitor" else items)
        code, out, err = _dp(capsys, *verbs[verb], FLAG)
        assert code in (0, 1), (verb, what, err)  # compare and monitor exit 1 on a finding
        assert verb not in ("compare", "monitor") or "Items read with --allow-modified-items" in out, verb
    code, out, _ = _dp(capsys, *verbs["verify"], FLAG)
    assert code in (0, 1) and out.startswith("Items read with --allow-modified-items"), what
    written = sorted(str(p) for p in Path("scored").rglob("*")
                     if p.is_file() and (p.suffix == ".html" or "site" not in p.parts))
    assert {"scored/gate.md", "scored/gate/oracle.json", "scored/recalibrate/maps/oracle.json", "scored/cost/cost.md",
            "scored/cost/figures/cost-oracle.svg", "scored/monitor/monitor.json", "scored/compare/compare.md",
            "scored/site/index.html", "scored/leaderboard.md", "scored/scores.json", "scored/families.csv"} \
        <= set(written)
    assert [path for path in written if not _states(Path(path))] == [], what
    code, out, _ = _dp(capsys, "recalibrate", "apply", "--map", "scored/recalibrate/maps/oracle.json", "--answers",
                       "runs/oracle", "--items", items, FLAG)
    assert code == 0 and out.splitlines()[0].endswith(",modified_items")
    code, _, err = _dp(capsys, *verbs["frame"], FLAG)
    if code == 0:  # an edit that keeps the states: framed, and the suite says from what
        assert json.loads(Path("suite/MANIFEST.json").read_text())["core"]["modified"].keys() == {FAMILY}
    else:  # a state edited or moved: the framing rebuilds the groups from the generator and refuses it anyway
        assert code == 2 and "is not what this package's generator draws" in err, (what, err)
