"""The cost curve against a loop over thresholds, and `dp cost` on real runs with `dp gate`'s thresholds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.cli import main
from decisionpivot.cost.curve import ESCALATE_ALL, cost_curve, cost_per_thousand, minimum_cost_threshold
from decisionpivot.cost.run import read_prices
from decisionpivot.errors import DecisionPivotError
from tests.deployment_project import Project


def cost_loop(confidence: list[float], correct: list[bool], threshold: float, wrong: float, escalated: float) -> float:
    total = 0.0
    for c, right in zip(confidence, correct, strict=True):
        if c >= threshold:
            total += 0.0 if right else wrong
        else:
            total += escalated
    return 1000 * total / len(confidence)


def test_curve_and_cost_match_the_loop() -> None:
    rng = np.random.default_rng(7)
    confidence = np.round(rng.uniform(0.4, 1.0, 300), 2)  # ties on purpose
    correct = rng.random(300) < confidence
    thresholds, costs = cost_curve(confidence, correct, 20.0, 1.5)
    assert math.isinf(thresholds[0]) and (np.diff(thresholds[1:]) < 0).all()
    for t, c in zip(thresholds, costs, strict=True):
        assert c == pytest.approx(cost_loop(confidence.tolist(), correct.tolist(), t, 20.0, 1.5))
        assert cost_per_thousand(confidence, correct, t, 20.0, 1.5) == pytest.approx(c)
    best, least = minimum_cost_threshold(thresholds, costs)
    grid = [*np.linspace(0, 1, 1001), ESCALATE_ALL]
    assert least == pytest.approx(min(cost_loop(confidence.tolist(), correct.tolist(), t, 20.0, 1.5) for t in grid))
    assert cost_per_thousand(confidence, correct, best, 20.0, 1.5) == pytest.approx(least)


def test_escalating_is_free_so_nothing_is_automated_and_wrongs_are_free_so_everything_is() -> None:
    confidence, correct = np.array([0.9, 0.8, 0.7]), np.array([True, False, True])
    assert math.isinf(minimum_cost_threshold(*cost_curve(confidence, correct, 1.0, 0.0))[0])
    assert minimum_cost_threshold(*cost_curve(confidence, correct, 0.0, 1.0)) == (0.7, 0.0)


def test_prices_from_file_and_flags(tmp_path: Path) -> None:
    costs = tmp_path / "costs.yaml"
    costs.write_text("wrong: 40\nescalated: 2\nfamilies:\n  policy_case: {wrong: 200}\n", encoding="utf-8")
    prices = read_prices(costs, None, 3.0)
    # a family inherits the prices it does not set
    assert (prices.wrong, prices.escalated, prices.of("policy_case"), prices.of("x")) == (40, 3, (200, 3), (40, 3))
    costs.write_text("wrong: -1\nescalated: 2\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r"costs.yaml:1: wrong: expected a cost per decision from 0 to 1e12"):
        read_prices(costs, None, None)
    costs.write_text("wrong: 1\nescalate: 2\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match="unknown key"):
        read_prices(costs, None, None)
    with pytest.raises(DecisionPivotError, match="--cost-wrong"):
        read_prices(None, 1.0, None)


def test_dp_cost_marks_the_certified_threshold(in_project: Path, project: Project) -> None:
    main(["cost", "--items", str(project.items), "--cost-wrong", "50", "--cost-escalated", "2", "--gate",
          str(project.gate), "--systems", "oracle,uniform", "--out", "reports/cost"])
    record = json.loads((in_project / "reports/cost/cost.json").read_text(encoding="utf-8"))
    gate = json.loads((in_project / project.gate).read_text(encoding="utf-8"))
    oracle = record["systems"]["oracle"]
    for family, entry in oracle.items():
        certified = (gate["systems"]["oracle"]["pooled"] if family == "pooled"
                     else gate["systems"]["oracle"]["families"][family])["threshold"]
        assert entry["certified_threshold"] == certified
        # the least cost over these items' thresholds bounds both; a threshold certified on the calibration draws may
        # cost more than escalating everything on another draw (it is chosen for risk, not for cost)
        assert entry["minimum_cost"] <= min(entry["certified_cost"], entry["escalate_all_cost"]) + 1e-9
    assert oracle["pooled"]["minimum_cost"] < oracle["pooled"]["escalate_all_cost"]  # automating pays
    assert record["systems"]["uniform"]["pooled"]["minimum_threshold"] == "escalate all"
    svg = (in_project / "reports/cost/figures/cost-oracle.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and 'role="img"' in svg and "certified" in svg


@pytest.mark.parametrize("change", ["answers", "items", "recalibrated"])
def test_dp_cost_refuses_a_gate_json_of_other_answers_or_items(in_project: Path, project: Project, change: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A cost at a threshold certified for another configuration (or other items, or on recalibrated confidences)
    is no cost of these runs: `dp cost --gate` refuses such a gate.json as `dp score --gate` and `dp report` refuse
    a stale one, naming what differs."""
    gate = json.loads((in_project / project.gate).read_text(encoding="utf-8"))
    family = sorted(gate["release"]["families"])[0]
    if change == "answers":
        gate["systems"]["oracle"]["fingerprints"][family] = "f" * 64
        expected = f"oracle {family}: gate.json was made from answers of configuration ffffffffffff"
    elif change == "items":
        gate["release"]["families"][family] = "0" * 64
        expected = f"checked on {family} items with SHA-256 {'0' * 64}"
    else:  # thresholds on recalibrated confidences would be applied to the system's own
        gate["systems"]["oracle"]["recalibration"] = {"sha256": "a" * 64}
        expected = "oracle certified on confidences recalibrated by a `dp recalibrate` map"
    stale = in_project / "stale-gate.json"
    stale.write_text(json.dumps(gate), encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["cost", "--items", str(project.items), "--cost-wrong", "50", "--cost-escalated", "2", "--gate",
              str(stale), "--systems", "oracle,uniform", "--out", "reports/cost-stale"])
    assert exited.value.code != 0
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: --gate {stale}: ") and expected in line
    assert not (in_project / "reports/cost-stale").exists()


def test_a_misspelled_family_in_a_cost_file_is_refused(tmp_path: Path) -> None:
    """The issue's case 5: `policy_cas: {wrong: 200}` was ignored and policy_case priced at the default (minimum
    cost 260 instead of 510 per 1,000)."""
    costs = tmp_path / "costs.yaml"
    costs.write_text("wrong: 50\nescalated: 2\nfamilies:\n  policy_cas: {wrong: 200}\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=rf"^{costs}:4: unknown key 'policy_cas' in families "
                                                 r"\(did you mean policy_case\?\); known: access_request, "):
        read_prices(costs, None, None)
    costs.write_text("wrong: 50\nescalated: 2\nfamilies:\n  policy_case: {wrong: 200}\nwrong: 5\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=rf"^{costs}:5: key 'wrong' given twice \(first on line 1\)"):
        read_prices(costs, None, None)


@pytest.mark.parametrize("argv", [
    ["--cost-wrong", "1e308", "--cost-escalated", "1e308"],
    ["--cost-wrong", "1e13", "--cost-escalated", "2"],
    ["--costs", "huge.yaml"],
])
def test_prices_that_would_overflow_are_refused_up_front(in_project: Path, project: Project, argv: list[str],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case 7: `dp cost --cost-wrong 1e308 --cost-escalated 1e308` was a traceback (the costs per 1,000
    overflowed to inf, which is not JSON); prices are bounded by 1e12, the same bound for flags and the file."""
    (in_project / "huge.yaml").write_text("wrong: 1.0e+308\nescalated: 1.0e+308\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["cost", "--items", str(project.items), *argv, "--systems", "oracle", "--out", "reports/cost-huge"])
    assert exited.value.code == 2
    [line] = capsys.readouterr().err.splitlines()[:1]
    assert "expected a cost per decision from 0 to 1e12, got 1e" in line and "Traceback" not in line
    assert not (in_project / "reports/cost-huge").exists()


def test_the_largest_prices_give_finite_figures(in_project: Path, project: Project) -> None:
    main(["cost", "--items", str(project.items), "--cost-wrong", "1e12", "--cost-escalated", "1e12", "--systems",
          "oracle", "--out", "reports/cost-largest"])
    record = json.loads((in_project / "reports/cost-largest/cost.json").read_text(encoding="utf-8"))
    assert record["systems"]["oracle"]["pooled"]["escalate_all_cost"] == 1e15


def test_a_system_gate_json_does_not_hold_has_no_certified_cost(in_project: Path, project: Project,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A gate.json without the system (or family) being costed: its entries were shown as "do not automate" at the
    escalate-all cost, a certificate that does not exist."""
    gate = json.loads((in_project / project.gate).read_text(encoding="utf-8"))
    del gate["systems"]["uniform"]
    partial = in_project / "partial-gate.json"
    partial.write_text(json.dumps(gate), encoding="utf-8")
    main(["cost", "--items", str(project.items), "--cost-wrong", "50", "--cost-escalated", "2", "--gate",
          str(partial), "--systems", "oracle,uniform", "--out", "reports/cost-partial"])
    record = json.loads((in_project / "reports/cost-partial/cost.json").read_text(encoding="utf-8"))
    assert all(e["certified_cost"] is None and e["certified_threshold"] is None
               for e in record["systems"]["uniform"].values())
    assert all(e["certified_cost"] is not None for e in record["systems"]["oracle"].values())
    out = capsys.readouterr().out
    assert "not in it, so without a certified threshold: uniform fact_answerable, uniform policy_case" in out
    assert not any("| uniform |" in line and "do not automate" in line for line in out.splitlines())
