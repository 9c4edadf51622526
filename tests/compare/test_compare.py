"""`dp compare --baseline --candidate` on real runs: an upgrade that breaks one family fails, a rerun passes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.cli import main
from decisionpivot.compare.run import (
    CANNOT_PASS,
    FAILS,
    PASSES,
    compare_folders,
    group_solved,
    members_correct,
)
from decisionpivot.score.answers import read_task_answers
from decisionpivot.score.layout import read_layout
from tests.deployment_project import Project


def test_an_upgrade_that_breaks_a_family_fails_there_only(in_project: Path, project: Project) -> None:
    c = compare_folders(project.runs / "oracle", project.runs / "degraded", project.items, resamples=200)
    by_family = {f.family: f for f in c.families}
    assert c.failed and by_family["policy_case"].worse and not by_family["fact_answerable"].worse
    broken = by_family["policy_case"]
    assert broken.groups_worse > 0 and broken.groups_better == 0 and broken.p_holm is not None
    assert broken.p_holm <= 0.05 and broken.item_difference.ci_high < 0 and broken.difference.value < 0
    untouched = by_family["fact_answerable"]
    assert (untouched.items_fixed, untouched.items_broken, untouched.p_value) == (0, 0, 1.0)
    assert c.overall.groups_worse == broken.groups_worse and c.overall.p_holm is None


def test_counts_agree_with_a_loop_over_items(in_project: Path, project: Project) -> None:
    c = compare_folders(project.runs / "uniform", project.runs / "oracle", project.items, resamples=50)
    for f in c.families:
        layout = read_layout(project.items / f"{f.family}.jsonl")
        before = read_task_answers(project.runs / "uniform" / f"{f.family}.jsonl", layout, "uniform").correct
        after = read_task_answers(project.runs / "oracle" / f"{f.family}.jsonl", layout, "oracle").correct
        members: dict[int, list[int]] = {}
        for position, group in enumerate(layout.group_index.tolist()):
            members.setdefault(group, []).append(position)
        better = worse = fixed = broken = 0
        for positions in members.values():
            right_before = sum(bool(before[p]) for p in positions)
            right_after = sum(bool(after[p]) for p in positions)
            better += right_after > right_before
            worse += right_after < right_before
            fixed += right_after == len(positions) > right_before
            broken += right_before == len(positions) > right_after
        assert (f.groups_better, f.groups_worse, f.groups_fixed, f.groups_broken) == (better, worse, fixed, broken)
        assert f.items_fixed == int((~before & after).sum()) and f.items_broken == int((before & ~after).sum())
        assert len(f.broken) == worse and len(f.fixed) == better
        assert all(g.changed_items for g in f.broken + f.fixed)
    assert not c.failed  # the oracle is far better than guessing


def test_group_helpers() -> None:
    correct = np.array([True, True, False, True, False, False])
    groups = np.array([0, 0, 1, 1, 2, 2])
    assert members_correct(correct, groups).tolist() == [2, 1, 0]
    assert group_solved(correct, groups).tolist() == [True, False, False]


def test_cli_exit_code_and_files(in_project: Path, project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["compare", "--baseline", "runs/oracle", "--candidate", "runs/degraded", "--resamples", "100",
              "--out", "reports/compare"])
    assert stop.value.code == 1
    record = json.loads((in_project / "reports/compare/compare.json").read_text(encoding="utf-8"))
    assert record["failed"] and record["families"]["policy_case"]["worse"]
    assert record["families"]["policy_case"]["broken"][0]["changed_items"]
    assert "**Fails**" in (in_project / "reports/compare/compare.md").read_text(encoding="utf-8")
    capsys.readouterr()
    main(["compare", "--baseline", "runs/oracle", "--candidate", "runs/oracle", "--resamples", "100"])
    assert "**Passes**" in capsys.readouterr().out
    # a large minimum effect turns the failure into a pass
    main(["compare", "--baseline", "runs/oracle", "--candidate", "runs/degraded", "--resamples", "100",
          "--min-effect", "100"])


def test_bad_input_is_a_clean_error(in_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["compare", "--baseline", "runs/nothing", "--candidate", "runs/oracle"],
                 ["compare", "--baseline", "runs/oracle"],
                 ["compare", "--baseline", "runs/oracle", "--candidate", "runs/uniform", "--alpha", "2"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("error:") and "Traceback" not in err


def _without_last_records(folder: Path, family: str, count: int, to: Path) -> Path:
    """A copy of the answer folder ``folder`` whose ``family`` file lost its last ``count`` records."""
    copy = to / folder.name
    shutil.copytree(folder, copy)
    path = copy / f"{family}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-count]), encoding="utf-8")
    return copy


def test_a_family_that_cannot_be_compared_cannot_pass(in_project: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the candidate is worse on policy_case but 9 of its 600 records are missing, so the family
    is not compared; the verdict was "Passes", exit 0, on the one family left."""
    candidate = _without_last_records(in_project / "runs/degraded", "policy_case", 9, tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["compare", "--baseline", "runs/oracle", "--candidate", str(candidate), "--resamples", "50",
              "--out", str(tmp_path / "out")])
    assert stop.value.code == 3
    out = capsys.readouterr().out
    assert "**Cannot pass**: policy_case could not be compared" in out and "**Passes**" not in out
    assert "policy_case: not compared, so the candidate cannot pass: the candidate has no scored answers" in out
    record = json.loads((tmp_path / "out/compare.json").read_text(encoding="utf-8"))
    assert (record["verdict"], record["not_compared"], record["failed"]) == ("cannot pass", ["policy_case"], False)
    # the same missing records on the baseline's side
    baseline = _without_last_records(in_project / "runs/oracle", "policy_case", 9, tmp_path / "b")
    assert compare_folders(baseline, in_project / "runs/oracle", "datasets/core/" + BENCHMARK_VERSION,
                           resamples=20).verdict == CANNOT_PASS


def test_a_family_neither_side_answered_leaves_the_verdict_alone(in_project: Path, tmp_path: Path) -> None:
    """A family of the items folder that neither run has answers to is outside the comparison (noted), not a
    blocker; a worse family still fails (exit 1 wins over 3)."""
    oracle, same = (_without_last_records(in_project / "runs/oracle", "fact_answerable", 1, tmp_path / side)
                    for side in ("a", "b"))
    for folder in (oracle, same):
        (folder / "policy_case.jsonl").unlink()
        (folder / "policy_case.meta.json").unlink()
    c = compare_folders(oracle, same, "datasets/core/" + BENCHMARK_VERSION, resamples=20)
    assert c.verdict == PASSES and "policy_case: not compared, neither has answers to it" in c.notes
    worse = _without_last_records(in_project / "runs/degraded", "fact_answerable", 600, tmp_path / "c")
    assert compare_folders("runs/oracle", worse, "datasets/core/" + BENCHMARK_VERSION, resamples=20).verdict == FAILS
