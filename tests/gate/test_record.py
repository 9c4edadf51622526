"""One home for what gate.json is: `dp score --gate` and `dp report` read it through one validator, and
`dp gate` reads and hashes each items file of a draw once."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.run import GateSettings, gate_runs
from decisionpivot.score.certified import read_certified, read_gate_file, read_gate_for
from tests.gate.conftest import SEEDS, Project


@pytest.fixture(scope="module")
def record(project: Project) -> dict[str, Any]:
    from decisionpivot.gate.report import gate_record

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        return gate_record(gate_runs(project.runs, project.items, project.calibration, project.fresh, SEEDS,
                                     GateSettings(0.05, 0.1, 20)))


@pytest.mark.parametrize(("break_it", "needle"), [
    (lambda r: r["systems"]["oracle"]["families"]["policy_case"].update(decision="maybe"),
     "systems.oracle.families.policy_case: 'decision' must be one of automate, do not automate, refused"),
    (lambda r: r.pop("release"), "not a gate.json of `dp gate` (needs 'systems' and 'release' objects)"),
    (lambda r: r["systems"]["oracle"]["pooled"].update(observed_risk=4.5),
     "systems.oracle.pooled.observed_risk: expected a fraction in [0, 1] or null, found 4.5"),
    (lambda r: r["systems"]["oracle"].update(fingerprints=["x"]),
     "systems.oracle.fingerprints: expected an object of family -> fingerprint or null"),
])
def test_dp_score_report_and_cost_refuse_the_same_files_the_same_way(
    record: dict[str, Any], tmp_path: Path, break_it: Callable[[dict[str, Any]], object], needle: str,
) -> None:
    broken = json.loads(json.dumps(record))
    break_it(broken)
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(DecisionPivotError) as by_validator:
        read_gate_file(path)
    with pytest.raises(DecisionPivotError) as by_report_and_cost:
        read_gate_for(path, {}, {})
    with pytest.raises(DecisionPivotError) as by_score:
        read_certified(path, {})
    assert needle in str(by_validator.value)
    assert str(by_score.value) == str(by_report_and_cost.value) == f"--gate {by_validator.value}"


def test_the_written_gate_json_passes_its_validator(record: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(record))
    assert read_gate_file(path) == record


def test_each_items_file_is_hashed_once(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    import decisionpivot.gate.calibration as calibration
    import decisionpivot.score.layout as layout

    hashed: Counter[str] = Counter()

    def counting(original: Callable[[Path], str]) -> Callable[[Path], str]:
        def sha256_file(path: Path) -> str:
            hashed[Path(path).as_posix()] += 1
            return original(path)
        return sha256_file

    monkeypatch.setattr(layout, "sha256_file", counting(layout.sha256_file))
    monkeypatch.setattr(calibration, "sha256_file", counting(calibration.sha256_file))
    monkeypatch.chdir(project.root)
    gate_runs(project.runs, project.items, project.calibration, project.fresh, SEEDS, GateSettings(0.05, 0.1, 20))
    items = {path: count for path, count in hashed.items() if path.endswith(".jsonl")}
    assert len(items) == 3 * (1 + len(SEEDS)) and set(items.values()) == {1}, hashed
