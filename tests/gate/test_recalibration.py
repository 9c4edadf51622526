"""`dp gate --recalibration`: certify on confidences a `dp recalibrate` map recalibrated, with the map in the
certificate; `dp monitor` and `dp score --gate` honour it.

A project of its own beside the gate project's items: the release and both calibration draws answered by
``overconfident`` (the calibrated oracle's choices pushed towards confidence 1: miscalibrated, fixable) and
``oracle``; maps fitted with `dp recalibrate` on seed 101 only, certificates made on seed 102 only.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.gate.calibration import family_answers
from decisionpivot.gate.method import certify, sampled_members
from decisionpivot.recalibrate.map_file import read_map, recalibrated_confidence
from decisionpivot.score.answers import read_task_answers
from decisionpivot.score.layout import read_layout
from tests.gate.conftest import FAMILIES, SEEDS, Project
from tests.gate.test_cli import dp_here

FIT_SEED, CERTIFY_SEED = SEEDS
RUNS, CALIBRATION = "runs-recal", "runs-calibration-recal"
SYSTEMS_FILE = """systems:
  overconfident: {kind: python, callable: "tests.deployment_project:overconfident", batch_size: 200}
"""


@dataclass(frozen=True)
class Fitted:
    """The project, its maps folder and the outputs of the plain and the recalibrated gating."""

    project: Project
    """The gate tests' project (items and oracle answers reused)."""
    maps: Path
    """``dp recalibrate``'s maps/ folder (fitted on seed 101)."""
    plain: Path
    """`dp gate` without --recalibration on seed 102."""
    recalibrated: Path
    """`dp gate --recalibration maps` on seed 102."""


def _gate(project: Project, out: str, *extra: str) -> None:
    result = dp_here(project, "gate", "--runs", RUNS, "--calibration-runs", CALIBRATION, "--items",
                     str(project.items), "--seeds", str(CERTIFY_SEED), "--resamples", "20", "--out", out, *extra)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def fitted(project: Project) -> Fitted:
    root = project.root
    config = root / "systems-recal.yaml"
    config.write_text(SYSTEMS_FILE, encoding="utf-8")
    system = get_system("overconfident", config)
    evaluate_system(system, root / project.items, root / RUNS, progress=False)
    shutil.copytree(root / project.runs / "oracle", root / RUNS / "oracle")
    for seed in SEEDS:
        evaluate_system(system, root / project.fresh / f"seed-{seed}", root / CALIBRATION / f"seed-{seed}",
                        progress=False)
        shutil.copytree(root / project.calibration / f"seed-{seed}" / "oracle",
                        root / CALIBRATION / f"seed-{seed}" / "oracle")
    result = dp_here(project, "recalibrate", "--runs", RUNS, "--calibration-runs", CALIBRATION, "--items",
                     str(project.items), "--seeds", str(FIT_SEED), "--resamples", "20", "--out", "recal")
    assert result.returncode == 0, result.stderr
    _gate(project, "gated-plain")
    _gate(project, "gated-recal", "--recalibration", "recal/maps")
    return Fitted(project, root / "recal" / "maps", root / "gated-plain", root / "gated-recal")


def _mapped(mapping_path: Path, items: Path, answers: Path) -> tuple[np.ndarray, np.ndarray, object]:
    """Recalibrated confidence and correctness of one answer file, read independently of `dp gate`."""
    layout = read_layout(items)
    answers_read = read_task_answers(answers, layout, answers.parent.name)
    mapping = read_map(mapping_path)
    mapped = recalibrated_confidence(mapping, answers_read.confidence, answers_read.probabilities, layout.option_count)
    return mapped, answers_read.correct, layout


def test_the_certificate_records_the_map(fitted: Fitted) -> None:
    record = json.loads((fitted.recalibrated / "gate.json").read_text(encoding="utf-8"))
    for system in ("oracle", "overconfident"):
        mapping = read_map(fitted.maps / f"{system}.json")
        for written in (record["systems"][system]["recalibration"],
                        json.loads((fitted.recalibrated / "gate" / f"{system}.json").read_text())["recalibration"]):
            assert written["sha256"] == mapping.sha256 and written["method"] == mapping.method
            assert written["fitted_on"] == mapping.record["fitted_on"]
            assert written["fitted_on"]["seeds"] == [FIT_SEED]
    assert "Recalibrated confidences" in (fitted.recalibrated / "gate.md").read_text(encoding="utf-8")
    plain = json.loads((fitted.plain / "gate.json").read_text(encoding="utf-8"))
    assert all("recalibration" not in entry for entry in plain["systems"].values())
    assert "Recalibrated" not in (fitted.plain / "gate.md").read_text(encoding="utf-8")


def test_thresholds_are_certified_and_checked_on_recalibrated_confidences(fitted: Fitted) -> None:
    project, root = fitted.project, fitted.project.root
    record = json.loads((fitted.recalibrated / "gate.json").read_text(encoding="utf-8"))
    plain = json.loads((fitted.plain / "gate.json").read_text(encoding="utf-8"))
    entries = record["systems"]["overconfident"]["families"]
    changed = 0
    for family in FAMILIES:
        entry = entries[family]
        draw = f"seed-{CERTIFY_SEED}"
        mapped, correct, layout = _mapped(fitted.maps / "overconfident.json",
                                          root / project.fresh / draw / f"{family}.jsonl",
                                          root / CALIBRATION / draw / "overconfident" / f"{family}.jsonl")
        answers = family_answers(layout, mapped, correct, f"seed {CERTIFY_SEED}")  # type: ignore[arg-type]
        sampled, pilot = sampled_members(answers.group_index, answers.group_keys, answers.largest_group)
        certificate = certify(answers.confidence[sampled], answers.correct[sampled], pilot, 0.05, 0.10)
        assert entry["threshold"] == certificate.threshold, family
        released, released_correct, _ = _mapped(fitted.maps / "overconfident.json",
                                                root / project.items / f"{family}.jsonl",
                                                root / RUNS / "overconfident" / f"{family}.jsonl")
        if entry["threshold"] is not None:
            automated = released >= entry["threshold"]
            assert entry["release"]["automated"] == int(automated.sum())
            assert entry["release"]["errors"] == int((automated & ~released_correct).sum())
        changed += plain["systems"]["overconfident"]["families"][family]["threshold"] != entry["threshold"]
    assert changed  # the map moved the confidences the test saw


def test_a_map_fitted_on_a_certified_draw_is_refused(fitted: Fitted, tmp_path: Path) -> None:
    project = fitted.project
    result = dp_here(project, "gate", "--runs", RUNS, "--calibration-runs", CALIBRATION, "--items",
                     str(project.items), "--seeds", f"{CERTIFY_SEED},{FIT_SEED}", "--resamples", "20",
                     "--out", str(tmp_path), "--recalibration", "recal/maps")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"fitted on calibration seed {FIT_SEED}" in result.stderr and "never saw" in result.stderr
    assert not (tmp_path / "gate.json").exists()
    # the same draw under another seed number is recognised by its MANIFEST.json
    record = json.loads((fitted.maps / "overconfident.json").read_text(encoding="utf-8"))
    manifest = json.loads((fitted.recalibrated / "gate.json").read_text())["calibration"][0]["manifest_sha256"]
    record["fitted_on"]["seeds"], record["fitted_on"]["draws"] = [7], {"7": manifest}
    disguised = tmp_path / "disguised.json"
    disguised.write_text(json.dumps(record), encoding="utf-8")
    result = dp_here(project, "gate", "--runs", RUNS, "--calibration-runs", CALIBRATION, "--items",
                     str(project.items), "--seeds", str(CERTIFY_SEED), "--systems", "overconfident",
                     "--out", str(tmp_path), "--recalibration", str(disguised))
    assert result.returncode == 2 and f"fitted on calibration seed 7, and seed {CERTIFY_SEED}" in result.stderr


def test_a_map_of_another_system_is_refused(fitted: Fitted, tmp_path: Path) -> None:
    project = fitted.project
    args = ["gate", "--runs", RUNS, "--calibration-runs", CALIBRATION, "--items", str(project.items), "--seeds",
            str(CERTIFY_SEED), "--resamples", "20", "--out", str(tmp_path)]
    single = dp_here(project, *args, "--recalibration", "recal/maps/overconfident.json")
    assert single.returncode == 2 and "a map of system overconfident, but oracle would be gated" in single.stderr
    alone = dp_here(project, *args, "--systems", "overconfident", "--recalibration", "recal/maps/overconfident.json")
    assert alone.returncode == 0, alone.stderr
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    shutil.copy(fitted.maps / "overconfident.json", swapped / "oracle.json")
    shutil.copy(fitted.maps / "overconfident.json", swapped / "overconfident.json")
    result = dp_here(project, *args, "--recalibration", str(swapped))
    assert result.returncode == 2 and "a map fitted for system overconfident, not oracle" in result.stderr
    (swapped / "oracle.json").unlink()
    result = dp_here(project, *args, "--recalibration", str(swapped))
    assert result.returncode == 2 and "no map for system oracle" in result.stderr


@pytest.mark.parametrize("fingerprint", ["0" * 64, None])
def test_a_map_of_another_configuration_refuses_the_family(fitted: Fitted, tmp_path: Path,
                                                           fingerprint: str | None) -> None:
    record = json.loads((fitted.maps / "overconfident.json").read_text(encoding="utf-8"))
    assert all(record["fitted_on"]["fingerprints"][family] for family in FAMILIES)
    record["fitted_on"]["fingerprints"]["policy_case"] = fingerprint
    other = tmp_path / "overconfident.json"
    other.write_text(json.dumps(record), encoding="utf-8")
    result = dp_here(fitted.project, "gate", "--runs", RUNS, "--calibration-runs", CALIBRATION, "--items",
                     str(fitted.project.items), "--seeds", str(CERTIFY_SEED), "--systems", "overconfident",
                     "--resamples", "20", "--out", str(tmp_path / "out"), "--recalibration", str(other))
    assert result.returncode == 0, result.stderr
    entries = json.loads((tmp_path / "out" / "gate.json").read_text())["systems"]["overconfident"]
    refused = entries["families"]["policy_case"]
    assert refused["decision"] == "refused" and str(other) in refused["reason"]
    needle = "configuration 000000000000" if fingerprint else "records no configuration fingerprint"
    assert needle in refused["reason"]
    assert entries["families"]["record_rule"]["decision"] != "refused" and entries["pooled"]["decision"] == "refused"


def test_monitor_refuses_a_map_the_certificate_was_not_made_with(fitted: Fitted, tmp_path: Path) -> None:
    project = fitted.project
    sample = ["--answers", f"{RUNS}/oracle", "--items", str(project.items)]
    certificate = str(fitted.recalibrated / "gate" / "oracle.json")
    missing = dp_here(project, "monitor", "--certificate", certificate, *sample)
    assert missing.returncode == 2 and "pass that map with --map" in missing.stderr
    wrong = dp_here(project, "monitor", "--certificate", certificate, *sample, "--map",
                    str(fitted.maps / "overconfident.json"))
    assert wrong.returncode == 2 and "its thresholds hold only on that map's" in wrong.stderr
    plain = dp_here(project, "monitor", "--certificate", str(fitted.plain / "gate" / "oracle.json"), *sample,
                    "--map", str(fitted.maps / "oracle.json"))
    assert plain.returncode == 2 and "was made on the system's own confidences" in plain.stderr
    right = dp_here(project, "monitor", "--certificate", certificate, *sample, "--map",
                    str(fitted.maps / "oracle.json"), "--out", str(tmp_path))
    assert right.returncode in (0, 1), right.stderr
    assert json.loads((tmp_path / "monitor.json").read_text())["map"] == str(fitted.maps / "oracle.json")


def test_dp_score_says_which_systems_were_certified_on_a_map(fitted: Fitted, tmp_path: Path) -> None:
    project = fitted.project
    result = dp_here(project, "score", "--runs", RUNS, "--items", str(project.items), "--reference", "",
                     "--resamples", "20", "--nofigures", "--gate", str(fitted.recalibrated / "gate.json"),
                     "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    board = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    sha = read_map(fitted.maps / "overconfident.json").sha256[:12]
    assert "Certified on confidences recalibrated by a `dp recalibrate` map" in board
    assert f"overconfident (map {sha})" in board
