"""Exact intervals and the exceedance test against loops; `dp monitor` on real traffic holds for the certified
system and fails for one whose answers broke after certification."""

from __future__ import annotations

import json
import shutil
from math import comb
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.cli import main
from decisionpivot.monitor.exact import clopper_pearson, exceedance_p_value
from decisionpivot.monitor.run import Sample, check_sample
from tests.deployment_project import Project


def binomial_cdf_loop(k: int, n: int, p: float) -> float:
    return sum(comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


def clopper_pearson_loop(k: int, n: int) -> tuple[float, float]:
    """By bisection: the p where P(X >= k) = 2.5% (lower) and where P(X <= k) = 2.5% (upper)."""
    def solve(f, target: float) -> float:  # f increasing in p
        low, high = 0.0, 1.0
        for _ in range(80):
            mid = (low + high) / 2
            low, high = (mid, high) if f(mid) < target else (low, mid)
        return (low + high) / 2
    lower = 0.0 if k == 0 else solve(lambda p: 1 - binomial_cdf_loop(k - 1, n, p), 0.025)
    upper = 1.0 if k == n else solve(lambda p: -binomial_cdf_loop(k, n, p), -0.025)
    return lower, upper


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (7, 40), (1, 100)])
def test_clopper_pearson_matches_the_loop(k: int, n: int) -> None:
    assert clopper_pearson(k, n) == pytest.approx(clopper_pearson_loop(k, n), abs=1e-9)


@pytest.mark.parametrize(("errors", "n"), [(0, 50), (3, 50), (6, 50), (12, 80)])
def test_exceedance_p_matches_the_loop(errors: int, n: int) -> None:
    loop = 1.0 if errors == 0 else 1 - binomial_cdf_loop(errors - 1, n, 0.05)
    assert exceedance_p_value(errors, n, 0.05) == pytest.approx(loop, abs=1e-12)


def test_check_sample() -> None:
    sample = Sample("f", np.array([0.99, 0.95, 0.9, 0.5]), np.array([True, False, True, False]))
    entry = check_sample(sample, 0.9, 0.05, 0.05)
    assert (entry.automated, entry.errors, entry.risk, entry.coverage) == (3, 1, 1 / 3, 0.75)
    assert not entry.exceeded  # 1 of 3 is not evidence at alpha 0.05 (p = 0.14)
    nothing = check_sample(sample, None, 0.05, 0.05)
    assert (nothing.automated, nothing.risk, nothing.exceeded) == (0, None, False)


def test_certified_system_holds_on_traffic(in_project: Path, project: Project) -> None:
    main(["monitor", "reports/gate/oracle.json", "--answers", "runs-traffic/oracle", "--items",
          "datasets/fresh/seed-102", "--out", "reports/monitor"])
    record = json.loads((in_project / "reports/monitor/monitor.json").read_text(encoding="utf-8"))
    assert not record["exceeded"] and record["families"]["policy_case"]["automated"] > 0


def _as_certified(project_root: Path, system: str, to: Path) -> Path:
    """``system``'s traffic answers with the oracle's configuration fingerprint in their metas: the certified
    configuration whose answers changed behind it (a provider swapping the weights behind one model name)."""
    certified = {p.name: json.loads(p.read_text(encoding="utf-8"))["fingerprint"]
                 for p in (project_root / "runs-traffic/oracle").glob("*.meta.json")}
    folder = to / "oracle"
    shutil.copytree(project_root / "runs-traffic" / system, folder)
    for meta in folder.glob("*.meta.json"):
        record = json.loads(meta.read_text(encoding="utf-8"))
        meta.write_text(json.dumps({**record, "fingerprint": certified[meta.name]}), encoding="utf-8")
    return folder


def test_broken_answers_exceed_the_certificate(in_project: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The certified configuration's policy_case answers broke after certification (the degraded system's answers,
    wrong at the oracle's confidence, under the oracle's fingerprint): the oracle's thresholds fail."""
    broken = _as_certified(in_project, "degraded", tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--answers", str(broken), "--items", "datasets/fresh/seed-102"])
    assert stop.value.code == 1
    out = capsys.readouterr().out
    assert "**Exceeded**" in out and "policy_case" in out.split("**Exceeded**")[1].splitlines()[0]


def test_answers_of_another_configuration_are_refused(in_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The oracle's certificate on another system's answers: its thresholds were certified for the oracle's
    configuration only (`dp monitor` applied them, and its verdict was about the wrong system)."""
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--answers", "runs-traffic/overconfident", "--items",
              "datasets/fresh/seed-102"])
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "runs-traffic/overconfident: fact_answerable answers of configuration" in line
    assert "reports/gate/oracle.json certified configuration" in line


def test_csv_sample_and_errors(in_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = tmp_path / "traffic.csv"
    sample.write_text("confidence,correct,family\n" + "0.999,1,fact_answerable\n" * 50, encoding="utf-8")
    main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert "**Holds**" in capsys.readouterr().out
    sample.write_text("confidence,correct\n0.99,yes\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert stop.value.code == 2 and "traffic.csv:2: correct: expected 1 or 0, got 'yes'" in capsys.readouterr().err
    sample.write_text("confidence,correct,family\n0.99,1,nonesuch\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert "traffic.csv:2: family: unknown family 'nonesuch'" in capsys.readouterr().err


def test_a_row_given_twice_is_refused(in_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's note: dp monitor counted duplicated `id` rows twice (two errors where one item was wrong)."""
    sample = tmp_path / "traffic.csv"
    rows = "".join(f"q{i},0.999,1,fact_answerable\n" for i in range(30))
    sample.write_text("id,confidence,correct,family\n" + rows + "q7,0.999,0,fact_answerable\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == f"error: {sample}:32: id 'q7' given twice (first on line 9): each row must be another item"


@pytest.mark.parametrize(("content", "message"), [
    ("confidence,correct\nnan,1\n", ":2: confidence: expected a probability from 0 to 1, got 'nan'"),
    ("confidence,correct\n1.5,1\n", ":2: confidence: expected a probability from 0 to 1, got '1.5'"),
    ("confidence,correct,familly\n0.9,1,policy_case\n", ":1: unknown column 'familly' (did you mean family?)"),
    ("confidence,correct\n0.9,1,extra\n", ":2: 3 cells, but the header has 2 columns"),
    ("\ufeffconfidence,correct\n0.9,1\n", ":1: starts with a byte-order mark"),
    ("confidence,correct\n", ": no rows below the header"),
    ("", ":1: empty; expected a header line"),
    ("confidence,correct,family\n0.9,1,policy_cas\n", ":2: family: unknown family 'policy_cas' (did you mean "
     "policy_case?)"),
])
def test_bad_csv_samples_are_one_line(in_project: Path, tmp_path: Path, content: str, message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    sample = tmp_path / "traffic.csv"
    sample.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: {sample}{message}")


@pytest.mark.parametrize(("edit", "message"), [
    ({"families": {"policy_case": {"decision": "automate", "threshold": float("nan")}}},
     "families.policy_case.threshold: expected a probability from 0 to 1, or null"),
    ({"families": {"policy_case": {"decision": "automate", "threshold": -1}}},
     "families.policy_case.threshold: expected a probability from 0 to 1, or null"),
    ({"families": {"policy_case": {"decision": "automate", "threshold": None}}},
     "policy_case: decision 'automate' with threshold None"),
    ({"families": {"policy_case": {"decision": "maybe", "threshold": 0.9}}},
     "families.policy_case.decision: expected one of automate, do not automate, refused"),
    ({"target_risk": 1.5}, "target_risk: expected a fraction between 0 and 1, both excluded"),
])
def test_a_hand_edited_certificate_is_refused(in_project: Path, tmp_path: Path, edit: dict[str, object],
                                             message: str) -> None:
    """A NaN threshold automated nothing and a negative one everything; both passed as "holds"."""
    from decisionpivot.errors import DecisionPivotError
    from decisionpivot.monitor.run import read_certificate

    record = json.loads((in_project / "reports/gate/oracle.json").read_text(encoding="utf-8"))
    for key, value in edit.items():
        record[key] = {**record[key], **value} if isinstance(value, dict) else value
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=f"^{path}: {message}".replace("(", r"\(").replace(")", r"\)")):
        read_certificate(path)
