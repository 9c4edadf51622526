"""Exact intervals and the exceedance test against loops; `dp monitor` on real traffic holds for the certified
system and fails for one whose answers broke after certification."""

from __future__ import annotations

import json
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


def test_broken_answers_exceed_the_certificate(in_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The degraded system answers policy_case wrong at the oracle's confidence: the oracle's thresholds fail."""
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--answers", "runs-traffic/degraded", "--items",
              "datasets/fresh/seed-102"])
    assert stop.value.code == 1
    out = capsys.readouterr().out
    assert "**Exceeded**" in out and "policy_case" in out.split("**Exceeded**")[1].splitlines()[0]


def test_csv_sample_and_errors(in_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = tmp_path / "traffic.csv"
    sample.write_text("confidence,correct,family\n" + "0.999,1,fact_answerable\n" * 50, encoding="utf-8")
    main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert "**Holds**" in capsys.readouterr().out
    sample.write_text("confidence,correct\n0.99,yes\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert stop.value.code == 2 and "line 2: correct 'yes' is not 0 or 1" in capsys.readouterr().err
    sample.write_text("confidence,correct,family\n0.99,1,nonesuch\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["monitor", "reports/gate/oracle.json", "--csv", str(sample)])
    assert "not in the certificate" in capsys.readouterr().err
