"""`dp gate` and `dp score --gate` from the command line, as a user runs them: the main run in a real
subprocess, the rest through the same entry point in-process (faster, same parsing and error handling)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gate.conftest import SEEDS, Project

ROOT = Path(__file__).resolve().parents[2]


def dp(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "decisionpivot.cli", *args], cwd=project.root, env=env,
                          capture_output=True, text=True, timeout=600)


def dp_here(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    """`dp ARGS` through :func:`decisionpivot.cli.main` in this process, in the project folder."""
    import contextlib
    import io

    from decisionpivot.cli import main

    out, err, code = io.StringIO(), io.StringIO(), 0
    previous = Path.cwd()
    os.chdir(project.root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess(["dp", *args], code, out.getvalue(), err.getvalue())


def _one_error_line(result: subprocess.CompletedProcess[str], needle: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("error: ") and needle in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def gated(project: Project) -> Path:
    params = project.root / "gate-params.yaml"
    params.write_text(f"gate:\n  seeds: [{', '.join(map(str, SEEDS))}]\n  target_risk: 0.05\n  delta: 0.1\n"
                      "  resamples: 100\n", encoding="utf-8")
    result = dp(project, "gate", "--params", "gate-params.yaml", "--out", "reports")
    assert result.returncode == 0, result.stderr
    assert "| oracle | 3 of 3 |" in result.stdout and "wrote reports/gate.json" in result.stdout
    return project.root / "reports"


def test_dp_gate_writes_every_output(gated: Path) -> None:
    record = json.loads((gated / "gate.json").read_text())
    assert record["resamples"] == 100 and [c["seed"] for c in record["calibration"]] == list(SEEDS)
    assert (gated / "gate.md").read_text().startswith("# Certified automation (`dp gate`)")
    assert sorted(p.name for p in (gated / "gate" ).iterdir()) == sorted(f"{s}.json" for s in record["systems"])


def test_flags_win_over_the_params_file(project: Project, gated: Path, tmp_path: Path) -> None:
    result = dp_here(project, "gate", "--params", "gate-params.yaml", "--seeds", str(SEEDS[0]), "--delta", "0.2",
                "--systems", "uniform", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    record = json.loads((tmp_path / "gate.json").read_text())
    assert record["delta"] == 0.2 and record["resamples"] == 100
    assert [c["seed"] for c in record["calibration"]] == [SEEDS[0]] and list(record["systems"]) == ["uniform"]


def test_the_params_file_names_the_gated_systems(project: Project, gated: Path, tmp_path: Path) -> None:
    """`gate.systems` in the params file (the pipeline gates the real models and uniform, not the heuristics):
    only those are gated, and --systems still wins; a malformed list is one error line."""
    params = tmp_path / "params.yaml"
    params.write_text(f"gate:\n  seeds: [{SEEDS[0]}]\n  resamples: 20\n  systems: uniform,oracle\n", encoding="utf-8")
    result = dp_here(project, "gate", "--params", str(params), "--out", str(tmp_path / "a"))
    assert result.returncode == 0, result.stderr
    assert sorted(json.loads((tmp_path / "a" / "gate.json").read_text())["systems"]) == ["oracle", "uniform"]
    result = dp_here(project, "gate", "--params", str(params), "--systems", "uniform", "--out", str(tmp_path / "b"))
    assert list(json.loads((tmp_path / "b" / "gate.json").read_text())["systems"]) == ["uniform"]
    params.write_text(f"gate:\n  seeds: [{SEEDS[0]}]\n  systems: uniform, oracle/..\n", encoding="utf-8")
    _one_error_line(dp_here(project, "gate", "--params", str(params), "--out", str(tmp_path / "c")), "systems")


def test_dp_score_gets_the_certified_coverage_column(project: Project, gated: Path, tmp_path: Path) -> None:
    result = dp_here(project, "score", "--runs", "runs", "--items", str(project.items), "--reference", "",
                     "--resamples", "20", "--nofigures", "--gate", "reports/gate.json", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    record = json.loads((gated / "gate.json").read_text())
    board = (tmp_path / "leaderboard.md").read_text()
    header = next(line for line in board.splitlines() if line.startswith("| # "))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[cells.index("C(0.05)") + 1] == "Cert. cov."
    oracle = next(line for line in board.splitlines() if "| oracle |" in line)
    value = 100 * record["systems"]["oracle"]["certified_coverage_macro"]
    assert [c.strip() for c in oracle.strip("|").split("|")][cells.index("Cert. cov.")] == f"{value:.1f}"
    assert "Cert. cov.: coverage on these items at confidence thresholds certified by `dp gate`" in board
    rows = list(csv.DictReader((tmp_path / "leaderboard.csv").open()))
    assert float(next(r for r in rows if r["system"] == "oracle")["certified_coverage"]) == pytest.approx(value)
    assert list(rows[0]).index("certified_coverage") == list(rows[0]).index("coverage_at_5_ci_high") + 1
    tex = (tmp_path / "leaderboard.tex").read_text()
    assert "Cert. cov." in tex and "\\begin{tabular}{rl" + "c" * 9 + "}" in tex
    plain = dp_here(project, "score", "--runs", "runs", "--items", str(project.items), "--reference", "",
               "--resamples", "20", "--nofigures", "--out", str(tmp_path / "plain"))
    assert plain.returncode == 0 and "Cert. cov." not in (tmp_path / "plain" / "leaderboard.md").read_text()


def test_dp_score_refuses_a_gate_json_checked_on_other_items(project: Project, gated: Path, tmp_path: Path) -> None:
    record = json.loads((gated / "gate.json").read_text())
    record["release"]["families"]["policy_case"] = "0" * 64
    other = tmp_path / "gate.json"
    other.write_text(json.dumps(record))
    result = dp_here(project, "score", "--runs", "runs", "--items", str(project.items), "--reference", "",
                     "--resamples", "20", "--nofigures", "--gate", str(other), "--out", str(tmp_path / "r"))
    _one_error_line(result, "checked on policy_case items with SHA-256 0000")


RISK = "--target-risk: expected a fraction between 0 and 1, both excluded"
DELTA = "--delta: expected a fraction between 0 and 1, both excluded"


@pytest.mark.parametrize(("args", "needle"), [
    (["--seeds", "20261008"], "is the release seed"),
    (["--seeds", "101,x"], "--seeds: expected comma-separated non-negative integers, found 'x'"),
    (["--seeds", "101,101"], "given twice"),
    (["--seeds", "7"], "datasets/fresh/seed-7: no such folder"),
    (["--target-risk", "5"], RISK),
    (["--delta", "0"], DELTA),
    (["--delta", "0.9999999999"], "--delta 0.9999999999: the guarantee states it and its complement as percentages"),
    (["--target-risk", "0.0000001"], "--target-risk 1e-07: the guarantee states it"),
    (["--target-risk", "2", "--calibration-runs", "datasets"], RISK),  # first
    (["--delta", "5", "--calibration-runs", "datasets"], DELTA),
    (["--calibration-runs", "datasets"], "datasets: no seed-N folders of calibration runs"),
    (["--calibration-runs", "nowhere"], "--calibration-runs: no such folder: nowhere"),
    (["--params", "missing.yaml"], "--params"),
    (["--systems", "nobody"], "unknown system 'nobody'"),
    (["--target-risk", "high"], "--target-risk"),
])
def test_bad_input_is_one_error_line(project: Project, args: list[str], needle: str, tmp_path: Path) -> None:
    _one_error_line(dp_here(project, "gate", *args, "--out", str(tmp_path)), needle)


def test_help_comes_from_the_docstring(project: Project) -> None:
    result = dp(project, "gate", "--help")
    assert result.returncode == 0
    shown = result.stdout + result.stderr  # fire writes help to stderr when stdout is not a terminal
    assert "Certify a confidence threshold per system and family" in shown
    assert "--calibration-runs" in shown.replace("_", "-")


def test_dp_score_refuses_a_gate_json_made_from_other_runs(project: Project, gated: Path, tmp_path: Path) -> None:
    """A stale gate.json after a re-run: the oracle's release answers redone with another configuration."""
    from decisionpivot.evaluate.run import evaluate_system
    from decisionpivot.evaluate.systems import get_system

    runs = tmp_path / "runs"
    shutil.copytree(project.root / "runs", runs)
    shutil.rmtree(runs / "oracle")
    config = tmp_path / "systems.yaml"
    config.write_text('systems:\n  oracle: {kind: python, callable: "tests.gate.calibrated_oracle:decide", '
                      'options: {skill: 0.5}}\n', encoding="utf-8")
    evaluate_system(get_system("oracle", config), project.root / project.items, runs, progress=False)
    recorded = json.loads((gated / "gate.json").read_text())["systems"]["oracle"]["fingerprints"]["fact_answerable"]
    now = json.loads((runs / "oracle" / "fact_answerable.meta.json").read_text())["fingerprint"]
    assert recorded != now
    args = ["score", "--runs", str(runs), "--items", str(project.items), "--reference", "", "--resamples", "20",
            "--nofigures", "--out", str(tmp_path / "r")]
    result = dp_here(project, *args, "--gate", "reports/gate.json")
    _one_error_line(result, f"oracle fact_answerable: gate.json was made from answers of configuration "
                            f"{recorded[:12]}, the scored answers are of configuration {now[:12]}")
    assert "run `dp gate` again" in result.stderr
    old = json.loads((gated / "gate.json").read_text())
    for system in old["systems"].values():
        del system["fingerprints"]  # a gate.json of an older dp gate
    (tmp_path / "old.json").write_text(json.dumps(old))
    _one_error_line(dp_here(project, *args, "--gate", str(tmp_path / "old.json")),
                    "no answer fingerprints (made by an older `dp gate`)")
