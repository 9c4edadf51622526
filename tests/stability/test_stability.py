"""`dp stability` on synthetic systems of graded skill: paired versions, fresh draws, repeated runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from decisionpivot import RELEASE_SEED
from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import write_family_files
from decisionpivot.score.layout import read_layout
from decisionpivot.stability.run import _resampled_rho, balanced_subset, stability

PLUGINS = Path(__file__).resolve().parents[1] / "evaluate" / "plugins"
FAMILIES = ["fact_answerable", "policy_case"]
SKILLS = {"s10": 0.1, "s40": 0.4, "s60": 0.6, "s80": 0.8, "s95": 0.95}


@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("stability")
    release, fresh = root / "release", root / "fresh"
    write_family_files(release, RELEASE_SEED, FAMILIES)
    write_family_files(fresh, 7, FAMILIES)
    copy = root / "copy"
    shutil.copytree(release, copy)
    return {"release": release, "fresh": fresh, "copy": copy, "root": root}


def run_systems(items: Path, runs: Path, config: Path, salt: str = "") -> None:
    for name in SKILLS:
        evaluate_system(get_system(name + salt, config), items, runs, progress=False)


@pytest.fixture(scope="module")
def config(sets: dict[str, Path]) -> Path:
    import sys

    sys.path.insert(0, str(PLUGINS))
    lines = ["systems:"]
    for name, skill in SKILLS.items():
        for salt in ("", "-rerun"):
            lines.append(f"  {name}{salt}: {{kind: python, callable: 'dp_test_plugins:graded', "
                         f"options: {{skill: {skill}, salt: '{salt}'}}}}")
    path = sets["root"] / "systems.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_fresh_draw_is_independent_and_ranks_hold(sets: dict[str, Path], config: Path) -> None:
    run_systems(sets["release"], sets["root"] / "runs-a", config)
    run_systems(sets["fresh"], sets["root"] / "runs-b", config)
    result = stability(sets["release"], sets["root"] / "runs-a", sets["fresh"], sets["root"] / "runs-b",
                       resamples=200)
    assert result.resampling == "independent"
    assert result.systems == tuple(sorted(SKILLS))
    assert result.rho > 0.8 and result.rho_ci[0] <= result.rho <= result.rho_ci[1]
    assert result.intervals_including_zero >= 3  # same skill on both: most changes are noise
    assert not result.churn  # different items: no answer churn


def test_identical_items_give_matched_resamples_and_churn(sets: dict[str, Path], config: Path) -> None:
    runs_a, runs_b = sets["root"] / "runs-a", sets["root"] / "runs-copy"
    run_systems(sets["release"], runs_a, config)
    for name in SKILLS:  # the second run of each system draws its hits anew (another salt), under the same name
        evaluate_system(get_system(name + "-rerun", config), sets["copy"], sets["root"] / "tmp", progress=False)
        shutil.copytree(sets["root"] / "tmp" / f"{name}-rerun", runs_b / name, dirs_exist_ok=True)
    result = stability(sets["release"], runs_a, sets["copy"], runs_b, resamples=200)
    assert result.resampling == "matched" and set(result.churn) == set(SKILLS)
    # a system right with probability k picks the other option when its two draws disagree
    for name, skill in SKILLS.items():
        expected = 100 * 2 * skill * (1 - skill)
        assert result.churn[name] == pytest.approx(expected, abs=6), name


def test_the_vectorised_rho_equals_scipy_per_resample() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random((30, 6)), rng.random((30, 6))
    a[3, :2] = a[3, 2]  # ties
    loop = [spearmanr(x, y).statistic for x, y in zip(a, b, strict=True)]
    assert np.allclose(_resampled_rho(a, b), loop)


def test_balanced_subset_has_equal_groups_per_level(sets: dict[str, Path]) -> None:
    layout = read_layout(sets["release"] / "policy_case.jsonl")
    keep = balanced_subset(layout)
    levels = layout.level[keep]
    groups = {lvl: len(set(layout.group_index[keep & (layout.level == lvl)].tolist())) for lvl in (1, 2, 3)}
    assert len(set(groups.values())) == 1 and groups[1] > 0 and set(levels.tolist()) == {1, 2, 3}


def test_cli_writes_the_report(sets: dict[str, Path], config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_systems(sets["release"], sets["root"] / "runs-a", config)
    run_systems(sets["fresh"], sets["root"] / "runs-b", config)
    out = sets["root"] / "report"
    main(["stability", str(sets["release"]), str(sets["root"] / "runs-a"), str(sets["fresh"]),
          str(sets["root"] / "runs-b"), "--resamples", "100", "--out", str(out)])
    assert "Spearman rank correlation" in capsys.readouterr().out
    record = json.loads((out / "stability.json").read_text())
    assert record["resampling"] == "independent" and len(record["changes"]) == len(SKILLS)


def test_edited_items_are_refused_unless_allowed_and_then_every_output_says_so(
        sets: dict[str, Path], config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`dp stability` refused an edited items folder suggesting --allow-modified-items, a flag it did not have: it
    has it now, as every verb that reads items, and stability.json, stability.md and stderr then say so."""
    edited = sets["root"] / "edited"
    shutil.copytree(sets["release"], edited)
    path = edited / "fact_answerable.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"answer": "yes"', b'"answer": "no"', 1))
    runs = sets["root"] / "runs-edited"
    for name in SKILLS:
        evaluate_system(get_system(name, config), edited, runs, progress=False, allow_modified_items=True)
    run_systems(sets["release"], sets["root"] / "runs-a", config)
    run_systems(sets["fresh"], sets["root"] / "runs-b", config)
    with pytest.raises(DecisionPivotError, match=r"fact_answerable\.jsonl: .*--allow-modified-items"):
        stability(edited, runs, sets["fresh"], sets["root"] / "runs-b", resamples=50)
    out = sets["root"] / "report-edited"
    argv = ["stability", str(edited), str(runs), str(sets["fresh"]), str(sets["root"] / "runs-b"), "--resamples",
            "50", "--out", str(out)]
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and "--allow-modified-items" in capsys.readouterr().err and not out.exists()
    main([*argv, "--allow-modified-items"])
    printed = capsys.readouterr()
    note = ("Items read with --allow-modified-items (neither re-derived by this package nor released): "
            "A/fact_answerable;")
    assert printed.err.count(note) == 1 and note in printed.out
    record = json.loads((out / "stability.json").read_text())
    assert list(record["modified_items"]) == ["A/fact_answerable"] and record["modified_items"]["A/fact_answerable"]
    assert note in (out / "stability.md").read_text()
    unedited = sets["root"] / "report-unedited"
    main(["stability", str(sets["release"]), str(sets["root"] / "runs-a"), str(sets["fresh"]),
          str(sets["root"] / "runs-b"), "--resamples", "50", "--out", str(unedited), "--allow-modified-items"])
    assert "modified_items" not in json.loads((unedited / "stability.json").read_text())
    assert "--allow-modified-items" not in (unedited / "stability.md").read_text() + capsys.readouterr().err
