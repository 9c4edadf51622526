"""The scale suite scored end to end: synthetic systems with one defect each, through `dp evaluate` (kind python) and
`dp score`, show which metric catches which defect and which metrics leave it alone (issue 40, item 6); the scale
tables, scores.json and scoring.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from decisionpivot.scale.run import write_suite
from decisionpivot.score.pipeline import score_runs
from decisionpivot.score.results import MACRO, UNIFORM_GUESS
from decisionpivot.score.scale import EXACT_LEVEL_NOTE, SCALE, SCALE_METRICS, scale_readout
from decisionpivot.score_questions import gold_level
from tests.scale.synthetic_systems import SYSTEMS

DEFECTS = ("middle", "off_by_one_up", "reversed")


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """The whole scale suite answered by the synthetic systems and the uniform baseline, and scored."""
    root = tmp_path_factory.mktemp("scale-scored")
    suite = write_suite(root / "suite") and root / "suite"
    config = root / "systems.yaml"
    config.write_text(json.dumps({"systems": {
        name: {"kind": "python", "callable": f"tests.scale.synthetic_systems:{function}"}
        for name, function in SYSTEMS.items()}}))
    for name in [*SYSTEMS, "uniform"]:
        evaluate_system(get_system(name, config), suite, root / "runs", progress=False)
    scoring = score_runs(root / "runs", suite, out=root / "reports", resamples=50)
    values = {(e.system, e.metric): e.value for e in scoring.scale if e.task == MACRO and e.level is None}
    return suite, root / "reports", values


def uniform_guessing(suite: Path) -> dict[str, float]:
    """What guessing every level with probability 1/N is expected to score, macro over the families: within-one
    accuracy and the mean absolute error in levels (the uniform system's own argmax, level 0 on every tie, is not a
    guess)."""
    within, distance = [], []
    for path in sorted(suite.glob("*.jsonl")):
        items = read_items(path)
        gold = np.array([gold_level(i) for i in items])
        levels = np.array([len(i.options) for i in items])
        within.append(np.mean([np.mean(np.abs(np.arange(n) - g) <= 1) for g, n in zip(gold, levels, strict=True)]))
        distance.append(np.mean([np.mean(np.abs(np.arange(n) - g)) for g, n in zip(gold, levels, strict=True)]))
    return {"within_one_accuracy": 100 * float(np.mean(within)), "mean_absolute_error": float(np.mean(distance))}


def flags(values: dict, guessing: dict[str, float], system: str) -> set[str]:
    """The metrics that flag ``system``: each says it is no better than guessing, or (bias) systematically off."""
    v = {metric: values[(system, metric)] for metric in SCALE_METRICS}
    chance_pair = values[(UNIFORM_GUESS, "chance_pair_accuracy")]
    chance_exact = values[(UNIFORM_GUESS, "chance_exact_accuracy")]
    checks = {
        "pair_accuracy": v["pair_accuracy"] <= chance_pair,
        "ordinal_pair_direction": v["ordinal_pair_direction"] <= 50,  # no better than a coin per group
        "exact_accuracy": v["exact_accuracy"] <= chance_exact + 5,
        "within_one_accuracy": v["within_one_accuracy"] < guessing["within_one_accuracy"],
        "mean_absolute_error": v["mean_absolute_error"] >= guessing["mean_absolute_error"],
        "expected_level_error": v["expected_level_error"] >= guessing["mean_absolute_error"],
        "expected_level_bias": abs(v["expected_level_bias"]) >= 0.5,  # half a level off, one way
        "quadratic_weighted_kappa": v["quadratic_weighted_kappa"] <= 10,
        "ranked_probability_score": v["ranked_probability_score"] >= values[("uniform", "ranked_probability_score")],
        "score_confidence": v["score_confidence"] - v["exact_accuracy"] >= 25,  # overconfident
    }
    return {metric for metric, flagged in checks.items() if flagged}


CAUGHT = {
    "middle": {"pair_accuracy", "ordinal_pair_direction", "exact_accuracy", "quadratic_weighted_kappa",
               "ranked_probability_score", "score_confidence"},
    "off_by_one_up": {"pair_accuracy", "exact_accuracy", "expected_level_bias", "score_confidence"},
    "reversed": {"pair_accuracy", "ordinal_pair_direction", "exact_accuracy", "within_one_accuracy",
                 "mean_absolute_error", "expected_level_error", "quadratic_weighted_kappa", "ranked_probability_score",
                 "score_confidence"},
    "oracle": set(),
}
"""What each synthetic system is caught by. Exact and pair accuracy (and overconfidence) catch every defect: they ask
for the exact level. The ordinal metrics tell the defects apart: the bias catches only the system one level too high
(the middle and the reversed scale err both ways); within-one accuracy and the errors in levels catch only the
reversed scale (they reward the middle, never far off); kappa, ranked probability score and ordinal pair direction
catch the middle and the reversed scale, and leave the system one level off - whose levels still move with the
gold - alone. The oracle is caught by nothing."""


def test_each_metric_catches_its_system_and_leaves_the_others_alone(scored: tuple[Path, Path, dict]) -> None:
    suite, _, values = scored
    guessing = uniform_guessing(suite)
    got = {system: flags(values, guessing, system) for system in CAUGHT}
    assert got == CAUGHT
    for metric in SCALE_METRICS:  # every metric catches a defect, and every ordinal metric leaves one alone
        caught = {system for system in DEFECTS if metric in CAUGHT[system]}
        assert caught, metric
        if metric not in ("pair_accuracy", "exact_accuracy", "score_confidence"):
            assert caught != set(DEFECTS), metric
    assert {s for s in DEFECTS if CAUGHT[s] - set().union(*(CAUGHT[o] for o in DEFECTS if o != s))} \
        == {"off_by_one_up", "reversed"}, "the bias alone catches off-by-one; within-one and MAE only the reversal"


def test_the_signature_values(scored: tuple[Path, Path, dict]) -> None:
    _, _, values = scored
    assert values[("oracle", "pair_accuracy")] == 100 and values[("oracle", "quadratic_weighted_kappa")] == 100
    assert values[("middle", "quadratic_weighted_kappa")] == pytest.approx(0, abs=1e-9)  # a constant answer
    assert values[("reversed", "quadratic_weighted_kappa")] == pytest.approx(-100, abs=0.1)  # gold nearly even
    assert values[("off_by_one_up", "ordinal_pair_direction")] == 100
    assert values[("middle", "ordinal_pair_direction")] == 0 == values[("reversed", "ordinal_pair_direction")]
    assert values[("uniform", "score_confidence")] == 0 and values[("middle", "score_confidence")] == 100


def test_dp_score_writes_the_scale_tables_scores_and_metadata(scored: tuple[Path, Path, dict]) -> None:
    _, reports, _ = scored
    names = sorted(p.name for p in reports.iterdir())
    assert names == ["scale.csv", "scale_families.md", "scale_leaderboard.csv", "scale_leaderboard.md",
                     "scores.json", "scoring.json"]
    records = json.loads((reports / "scores.json").read_text())
    assert {r["track"] for r in records} == {SCALE}
    assert {r["task"] for r in records} == {MACRO, "breach_severity", "listing_match", "reconcile_band",
                                            "supplier_risk", "support_priority"}
    meta = json.loads((reports / "scoring.json").read_text())
    assert meta["scale"]["leaderboard"][0]["system"] == "oracle"
    assert meta["scale"]["metrics"]["mean_absolute_error"]["unit"] == "levels"
    board = (reports / "scale_leaderboard.md").read_text()
    assert "| 1 | oracle | 100.0 [100.0, 100.0] |" in board and "| python |" in board
    families = (reports / "scale_families.md").read_text()
    assert families.count("\n## ") == 5 and "uniform guessing (expected)" in families


def test_a_scale_folder_with_core_options_is_refused_with_one_line(tmp_path: Path) -> None:
    with pytest.raises(DecisionPivotError, match="is a scale suite"):
        suite = tmp_path / "suite"
        write_suite(suite, names=["support_priority"])
        score_runs(tmp_path / "runs", suite, reference=tmp_path, out=tmp_path / "out")


def test_the_readout_of_a_score_asking_kind() -> None:
    assert scale_readout("systemone/noul") == "systemone/score"
    assert scale_readout("pipeline/choice") == "pipeline/score"
    assert scale_readout("chat/verbalised") == "chat/verbalised" and scale_readout("baseline") == "baseline"


def _dp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "decisionpivot.cli", *args], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_gate_compare_and_cost_work_on_score_items_and_say_how(scored: tuple[Path, Path, dict],
                                                              tmp_path: Path) -> None:
    """Each reads a score item as a choice of one level (exact, confidence the level's probability) and says so in
    one line; the oracle certifies and costs nothing, always answering the middle is worse than it."""
    suite, _, _ = scored
    runs = suite.parent / "runs"
    compare = _dp("compare", "--baseline", str(runs / "oracle"), "--candidate", str(runs / "middle"),
                  "--items", str(suite), "--resamples", "50")
    assert compare.returncode == 1, compare.stderr  # the candidate is worse: exit 1 is the finding
    assert compare.stdout.splitlines()[0] == f"note: {EXACT_LEVEL_NOTE}"
    cost = _dp("cost", "--runs", str(runs), "--items", str(suite), "--cost-wrong", "50", "--cost-escalated", "2",
               "--systems", "oracle,middle", "--out", str(tmp_path / "cost"))
    assert cost.returncode == 0, cost.stderr
    assert cost.stdout.splitlines()[0] == f"note: {EXACT_LEVEL_NOTE}"
    record = json.loads((tmp_path / "cost" / "cost.json").read_text())
    pooled = {system: families["pooled"]["minimum_cost"] for system, families in record["systems"].items()}
    assert pooled["oracle"] == 0 and pooled["middle"] > 0
    calibration = tmp_path / "calibration" / "seed-101"
    write_suite(calibration, seed=101)
    config = tmp_path / "systems.yaml"
    config.write_text(json.dumps({"systems": {"oracle": {"kind": "python",
                                                         "callable": "tests.scale.synthetic_systems:oracle"}}}))
    evaluate_system(get_system("oracle", config), calibration, tmp_path / "calibration-runs" / "seed-101",
                    progress=False)
    gate = _dp("gate", "--runs", str(runs), "--items", str(suite), "--systems", "oracle", "--calibration-runs",
               str(tmp_path / "calibration-runs"), "--calibration-items", str(tmp_path / "calibration"),
               "--out", str(tmp_path / "gate"), "--resamples", "50")
    assert gate.returncode == 0, gate.stderr
    assert gate.stdout.splitlines()[0] == f"note: {EXACT_LEVEL_NOTE}"
    assert "| oracle | 5 of 5 |" in gate.stdout
