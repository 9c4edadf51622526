"""`dp recalibrate` on real runs: an over-confident system's calibration is fixed on the release, fitted on
fresh draws only; the written map applies to answers and CSVs; bad maps are clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.recalibrate.map_file import read_map, recalibrated_confidence
from decisionpivot.recalibrate.run import ISOTONIC, NONE, TEMPERATURE, fit_half, recalibrate_runs
from tests.deployment_project import CALIBRATION_SEED, Project


@pytest.fixture(scope="module")
def fitted(project: Project) -> Path:
    out = project.root / "reports" / "recalibrate"
    previous = Path.cwd()
    import os

    os.chdir(project.root)
    try:
        main(["recalibrate", "--items", str(project.items), "--systems", "overconfident,oracle", "--resamples", "50",
              "--out", "reports/recalibrate"])
    finally:
        os.chdir(previous)
    return out


def test_overconfidence_is_fixed_on_the_release(fitted: Path) -> None:
    record = json.loads((fitted / "recalibration.json").read_text(encoding="utf-8"))
    over = record["systems"]["overconfident"]
    before, iso, temp = (over["methods"][m] for m in (NONE, ISOTONIC, TEMPERATURE))
    assert iso["ece"] < before["ece"] / 2 and temp["ece"] < before["ece"]
    assert over["temperature"] > 1.5  # softened
    assert over["recommended"] in (ISOTONIC, TEMPERATURE) and over["seeds"] == [CALIBRATION_SEED]
    assert before["accuracy_at_90"] < iso["accuracy_at_90"]  # at 0.90 the recalibrated confidence means 90%
    oracle = record["systems"]["oracle"]["methods"]
    assert oracle[NONE]["certified_coverage"] > 0.3  # a calibrated strong system: certified, before and after
    assert oracle[ISOTONIC]["certified_coverage"] > 0.3


def test_the_map_names_what_it_was_fitted_on_never_the_release(fitted: Path, project: Project) -> None:
    record = json.loads((fitted / "maps" / "overconfident.json").read_text(encoding="utf-8"))
    assert record["format"] == "decisionpivot-recalibration" and record["format_version"] == 1
    manifest = project.root / project.fresh / f"seed-{CALIBRATION_SEED}" / "MANIFEST.json"
    import hashlib

    assert record["fitted_on"]["draws"] == {str(CALIBRATION_SEED): hashlib.sha256(manifest.read_bytes()).hexdigest()}
    assert 0 < record["fitted_on"]["items"] < 1200  # half the groups of the draw


def test_release_answers_never_reach_the_fit(project: Project) -> None:
    """Scrambling the release answers changes the release figures but not the fitted maps."""
    result = recalibrate_runs(project.root / project.runs, project.root / project.items,
                              project.root / project.calibration, project.root / project.fresh, [CALIBRATION_SEED],
                              ["overconfident", "uniform"], resamples=20)
    maps = {s.maps.system: s.maps for s in result.systems}
    again = recalibrate_runs(project.root / project.runs, project.root / project.items,
                             project.root / project.calibration, project.root / project.fresh, [CALIBRATION_SEED],
                             ["overconfident"], resamples=20)
    assert again.systems[0].maps == maps["overconfident"]
    assert maps["uniform"].temperature != maps["overconfident"].temperature


def test_split_is_by_group_key_only() -> None:
    keys = [f"seed 101 fact_answerable:g{i:04d}" for i in range(400)]
    share = sum(fit_half(k) for k in keys) / len(keys)
    assert 0.4 < share < 0.6 and [fit_half(k) for k in keys] == [fit_half(k) for k in keys]


def test_apply_to_answers_and_csv(fitted: Path, project: Project, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    mapping = fitted / "maps" / "overconfident.json"
    out = tmp_path / "applied.csv"
    main(["recalibrate", "apply", "--map", str(mapping), "--answers",
          str(project.root / project.runs / "overconfident"), "--items", str(project.root / project.items),
          "--out", str(out)])
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "task,id,predicted,confidence,recalibrated_confidence" and len(lines) == 1 + 1200
    values = np.array([[float(v) for v in line.split(",")[3:]] for line in lines[1:]])
    assert values[:, 1].mean() < values[:, 0].mean()  # over-confidence taken out
    traffic = tmp_path / "traffic.csv"
    traffic.write_text("id,confidence,correct\na,0.99,1\nb,0.999,0\n", encoding="utf-8")
    capsys.readouterr()
    main(["recalibrate", "apply", "--map", str(mapping), "--csv", str(traffic), "--method", "isotonic"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "id,confidence,recalibrated_confidence,correct" and len(printed) == 3
    loaded = read_map(mapping, "isotonic")
    import hashlib

    assert loaded.sha256 == hashlib.sha256(mapping.read_bytes()).hexdigest()  # the certificate's fingerprint
    assert float(printed[1].split(",")[2]) == pytest.approx(float(recalibrated_confidence(loaded, np.array([0.99]))[0]),
                                                            abs=1e-6)


def test_bad_maps_and_csvs_are_clean_errors(fitted: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "decisionpivot-recalibration", "format_version": 2}', encoding="utf-8")
    with pytest.raises(DecisionPivotError, match="format_version"):
        read_map(bad)
    record = json.loads((fitted / "maps" / "overconfident.json").read_text(encoding="utf-8"))
    record["isotonic"]["confidence"] = record["isotonic"]["confidence"][::-1]
    bad.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(DecisionPivotError, match="isotonic knots"):
        read_map(bad)
    traffic = tmp_path / "t.csv"
    traffic.write_text("confidence\n0.5\nlots\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["recalibrate", "apply", "--map", str(fitted / "maps" / "overconfident.json"), "--csv", str(traffic),
              "--method", "isotonic"])
    assert stop.value.code == 2
    with pytest.raises(DecisionPivotError, match="temperature scaling needs"):
        recalibrated_confidence(read_map(fitted / "maps" / "overconfident.json", "temperature"), np.array([0.5]))


def test_a_map_applied_to_another_configuration_is_refused(fitted: Path, project: Project, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The overconfident system's map on the oracle's answers was applied silently; dp gate --recalibration
    refuses the same mismatch."""
    with pytest.raises(SystemExit) as stop:
        main(["recalibrate", "apply", "--map", str(fitted / "maps" / "overconfident.json"), "--answers",
              str(project.root / project.runs / "oracle"), "--items", str(project.root / project.items),
              "--out", str(tmp_path / "out.csv")])
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "was fitted on answers of configuration" in line and not (tmp_path / "out.csv").exists()


def test_a_hand_edited_map_is_refused(fitted: Path, tmp_path: Path) -> None:
    """A NaN knot passed the increasing check (NaN compares false with everything) and mapped confidences to NaN."""
    record = json.loads((fitted / "maps" / "overconfident.json").read_text(encoding="utf-8"))
    record["isotonic"]["calibrated"][-1] = float("nan")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r"isotonic\.calibrated\.\d+: expected a probability from 0 to 1"):
        read_map(bad)
