"""`dp score` and `dp compare` end to end on synthetic runs: every output file, clean errors."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from decisionpivot.items import Item, Option, write_items
from decisionpivot.score.bootstrap import spearman
from decisionpivot.score.pipeline import compare_runs, score_runs
from decisionpivot.score.reference import ReferenceTask
from decisionpivot.score.results import system_scores
from tests.score.synthetic import CORE_SHAPES, write_answers, write_synthetic_core

SHAPES = (CORE_SHAPES[0], CORE_SHAPES[2], CORE_SHAPES[11])  # pairs, 3-option triples, record_rule
RECORD_KEYS = ["system", "track", "task", "level", "metric", "value", "ci_low", "ci_high", "n"]


def dp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=600,
    )


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    return write_synthetic_core(tmp_path_factory.mktemp("core"), 3, SHAPES)


def test_dp_score_writes_every_output(synthetic: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    items, runs, _ = synthetic
    out = tmp_path / "reports"
    result = dp("score", "--runs", str(runs), "--items", str(items), "--out", str(out), "--resamples", "60",
                "--allow-modified-items")  # synthetic items: no draw of this package
    assert result.returncode == 0, result.stderr
    assert "| 1 | system02 |" in result.stdout  # the strongest synthetic system leads
    expected = [
        "scores.json",
        "scoring.json",
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.tex",
        "families.md",
        "families.csv",
        "levels.md",
        "levels.csv",
    ]
    figures = [
        f"figures/{name}.{fmt}"
        for name in ("risk_coverage", "reliability", "pair_direction", "family_heatmap")
        for fmt in ("png", "svg")
    ]
    for name in expected + figures:
        assert (out / name).stat().st_size > 0, name
    records = json.loads((out / "scores.json").read_text())
    assert all(list(r) == [*RECORD_KEYS, "modified_items"] and r["modified_items"] is True for r in records)
    macro = {(r["system"], r["metric"]): r for r in records if r["task"] == "macro" and r["level"] is None}
    for metric in (
        "pair_accuracy",
        "item_accuracy",
        "pair_direction",
        "coverage_at_5",
        "accuracy_at_90",
        "share_at_90",
        "brier",
        "aurc",
    ):
        r = macro[("system01", metric)]
        assert r["ci_low"] <= r["value"] <= r["ci_high"], (metric, r)
    ece = macro[("system01", "ece")]
    assert ece["ci_low"] <= ece["value"] <= ece["ci_high"]  # an interval over group resamples
    floor = macro[("system01", "ece_noise_floor")]
    assert floor["ci_low"] is None and floor["value"] > 0
    assert macro[("system01", "pair_accuracy")]["n"] == 3
    assert macro[("uniform-guess", "chance_pair_accuracy")]["value"] > 0
    assert {r["level"] for r in records} == {None, 1, 2, 3}
    meta = json.loads((out / "scoring.json").read_text())
    assert meta["resamples"] == 60 and meta["seed"] == 20261007
    assert (
        meta["aggregation"]["ece"] == "pooled items"
        and meta["aggregation"]["coverage_at_5"] == "family-macro"
    )
    rows = list(csv.DictReader((out / "leaderboard.csv").open()))
    assert [r["system"] for r in rows] == ["system02", "system01", "system00"]
    assert float(rows[0]["pair_accuracy_ci_low"]) <= float(rows[0]["pair_accuracy"])
    board = (out / "leaderboard.md").read_text()
    assert "family-macro" in board and "pooled items" in board and "60 resamples" in board
    assert "\\begin{tabular}" in (out / "leaderboard.tex").read_text()


def test_bad_answer_file_is_one_clear_line(synthetic: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    items, runs, _ = synthetic
    broken = tmp_path / "runs" / "broken"
    broken.mkdir(parents=True)
    source = runs / "system00"
    for path in source.iterdir():
        (broken / path.name).write_bytes(path.read_bytes())
    answers = broken / f"{SHAPES[1].name}.jsonl"
    lines = answers.read_text().splitlines()
    lines[6] = lines[3]
    answers.write_text("\n".join(lines) + "\n")
    result = dp(
        "score", "--runs", str(tmp_path / "runs"), "--items", str(items), "--out", str(tmp_path / "r"),
        "--allow-modified-items",
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0
    assert f"{answers}:7: duplicate id" in result.stderr


def test_dp_compare_prints_paired_differences(synthetic: tuple[Path, Path, list[str]]) -> None:
    items, runs, _ = synthetic
    result = dp(
        "compare", "system02", "system00", "--runs", str(runs), "--items", str(items), "--resamples", "50",
        "--allow-modified-items",
    )
    assert result.returncode == 0, result.stderr
    assert "pair_accuracy" in result.stdout and "A-B [95% CI]" in result.stdout
    assert "note: Items read with --allow-modified-items" in result.stdout
    rows, _ = compare_runs("system02", "system00", runs, items, resamples=50, allow_modified_items=True)
    headline = next(r for r in rows if r.task == "macro" and r.metric == "pair_accuracy")
    assert headline.difference.ci_low > 0  # the strong system is clearly ahead


def test_reference_tasks_plug_into_dp_score(synthetic: tuple[Path, Path, list[str]], tmp_path: Path) -> None:
    items, runs, systems = synthetic
    reference = tmp_path / "reference"
    cases = [
        Item(
            id=f"xstest_like:{i:05d}",
            family="xstest_like",
            layer="B",
            version="1.3",
            group=None,
            level=None,
            variation=None,
            domain=None,
            state=f"prompt {i}",
            question="Is the prompt safe?",
            options=(Option("safe", "comply"), Option("unsafe", "refuse")),
            answer="safe" if i % 2 else "unsafe",
        )
        for i in range(100)
    ]
    sha = write_items(reference / "xstest_like.jsonl", cases)
    run_copy = tmp_path / "runs"
    for system in systems:
        (run_copy / system).mkdir(parents=True)
        for path in (runs / system).iterdir():
            (run_copy / system / path.name).write_bytes(path.read_bytes())
        right = {"system00": 0.3, "system01": 0.6, "system02": 0.9}[system]  # system00 is below chance
        records = [
            {"id": c.id, "p": {c.answer: right, ("safe" if c.answer == "unsafe" else "unsafe"): 1 - right}}
            for c in cases
        ]
        write_answers(run_copy / system, "xstest_like", sha, records)
    card = ReferenceTask("xstest_like", "B", "accuracy", 0.5)
    out = tmp_path / "reports"
    scoring = score_runs(run_copy, items, reference, out, resamples=40, tasks=[card], figures=False,
                         allow_modified_items=True)
    assert scoring.get("system00", "reference", "xstest_like", "score").value == pytest.approx(-100.0)
    assert scoring.get("system00", "reference", "macro", "score").value == 0.0  # floored
    assert scoring.get("system02", "reference", "layer:B", "score").value == pytest.approx(100.0)
    assert "-100.0" in (out / "reference_tasks.md").read_text()
    assert "reference over 1 of 7 layers" in (out / "leaderboard.md").read_text()
    for name in ("reference_layers.md", "reference_layers.csv", "reference_tasks.csv"):
        assert (out / name).exists()


def test_score_help() -> None:
    result = dp("score", "--help")
    assert result.returncode == 0 and "resamples" in result.stdout + result.stderr


def test_rank_correlation_between_two_scorings(
    synthetic: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    items, runs, _ = synthetic
    first = score_runs(runs, items, None, tmp_path / "a", resamples=20, figures=False, allow_modified_items=True)
    second = score_runs(runs, items, None, tmp_path / "b", resamples=20, seed=1, figures=False,
                        allow_modified_items=True)
    records_a = json.loads((tmp_path / "a" / "scores.json").read_text())
    records_b = [r.to_dict() for r in second.records()]
    pair = system_scores(records_a, "core", "pair_accuracy")
    item = system_scores(records_b, "core", "item_accuracy")
    assert set(pair) == {"system00", "system01", "system02"}
    assert spearman(pair, item).rho == pytest.approx(1.0)  # the synthetic skill orders both
    assert first.get("system00", "core", "macro", "pair_accuracy").value == pytest.approx(pair["system00"])


def _xstest_runs(synthetic: tuple[Path, Path, list[str]], root: Path) -> tuple[Path, Path]:
    """A copy of the synthetic runs plus answers to 100 synthetic `xstest` items (a real, verified task card: the
    scorer refuses them unless --allow-modified-items, which the callers pass) in ``root``."""
    _, runs, systems = synthetic
    cases = [
        Item(id=f"xstest:{i:05d}", family="xstest", layer="B", version="1.3", group=None, level=None,
             variation=None, domain=None, state=f"prompt {i}", question="Is this prompt safe?",
             options=(Option("safe", "comply"), Option("unsafe", "refuse")), answer="safe" if i % 2 else "unsafe")
        for i in range(100)
    ]
    reference = root / "datasets" / "reference"
    sha = write_items(reference / "xstest.jsonl", cases)
    run_copy = root / "runs"
    for system in systems:
        (run_copy / system).mkdir(parents=True)
        for path in (runs / system).iterdir():
            (run_copy / system / path.name).write_bytes(path.read_bytes())
        write_answers(run_copy / system, "xstest", sha,
                      [{"id": c.id, "p": {"safe": 0.9 if c.answer == "safe" else 0.1,
                                          "unsafe": 0.1 if c.answer == "safe" else 0.9}} for c in cases])
    return reference, run_copy


def _score_in(cwd: Path, items: Path, runs: Path, *extra: str) -> tuple[list[dict], str]:
    out = cwd / "reports"
    result = subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", "score", "--runs", str(runs), "--items", str(items),
         "--out", str(out), "--resamples", "20", "--nofigures", "--allow-modified-items", *extra],
        capture_output=True, text=True, cwd=cwd, env={**os.environ, "MPLBACKEND": "Agg"}, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return json.loads((out / "scores.json").read_text()), (out / "leaderboard.md").read_text()


def test_reference_folder_is_an_explicit_input_of_dp_score(
    synthetic: tuple[Path, Path, list[str]], tmp_path: Path
) -> None:
    """Default: datasets/reference is read; --reference DIR reads DIR; --reference "" reads nothing (the DVC
    score stage relies on this: its outputs must not depend on an undeclared reference folder)."""
    items = synthetic[0]
    reference, runs = _xstest_runs(synthetic, tmp_path)

    def reference_tasks(records: list[dict]) -> set[str]:
        return {r["task"] for r in records if r["track"] == "reference"}

    refused = subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", "score", "--runs", str(runs), "--items", str(items),
         "--out", str(tmp_path / "refused"), "--resamples", "20", "--nofigures"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg"}, timeout=600,
    )
    assert refused.returncode == 2 and "--allow-modified-items" in refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "refused").exists()
    default, board = _score_in(tmp_path, items, runs)
    assert reference_tasks(default) == {"xstest", "layer:B", "macro"}
    assert "reference over 1 of 7 layers" in board
    explicit = tmp_path / "elsewhere"
    explicit.mkdir()
    chosen, _ = _score_in(explicit, items, runs, "--reference", str(reference))
    assert reference_tasks(chosen) == reference_tasks(default)
    # "" means no reference tasks -- not the current folder, which here holds xstest.jsonl itself.
    none, board = _score_in(reference, items, runs, "--reference", "")
    assert reference_tasks(none) == set()
    assert "reference over" not in board
    assert {r["task"] for r in none} == {r["task"] for r in default if r["track"] == "core"}
