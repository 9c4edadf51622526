"""A small real project for the `dp gate` tests: release items of three families, two fresh calibration
draws, and real `dp evaluate` runs of uniform guessing, a family heuristic and a strong calibrated
system (``tests/gate/calibrated_oracle.py``) on all of them; ``oracle-short`` answers only 100 items of
one family on one calibration draw (so that family is refused); ``drifted`` answers the release with one
configuration and the calibration draws with another (so every family is refused)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import write_family_files

FAMILIES = ("fact_answerable", "policy_case", "record_rule")
SEEDS = (101, 102)
SYSTEMS_FILE = """systems:
  oracle: {kind: python, callable: "tests.gate.calibrated_oracle:decide", batch_size: 200}
  oracle-short: {kind: python, callable: "tests.gate.calibrated_oracle:decide", batch_size: 200}
  drifted: {kind: python, callable: "tests.gate.calibrated_oracle:decide", batch_size: 200, options: {skill: 0.0}}
"""
CALIBRATION_SYSTEMS_FILE = SYSTEMS_FILE.replace("options: {skill: 0.0}", "options: {skill: 0.9}")
"""``drifted`` is calibrated with another answer-changing configuration than its release answers were made with."""
SYSTEMS = ("drifted", "heuristic.fact_answerable.names_in_table", "oracle", "oracle-short", "uniform")


@dataclass(frozen=True)
class Project:
    """Paths of the test project (relative to ``root``, as the pipeline passes them)."""

    root: Path
    """The project folder (tests chdir into it)."""
    items: Path = Path("datasets/core") / BENCHMARK_VERSION
    """Release items."""
    fresh: Path = Path("datasets/fresh")
    """Calibration items root (seed-N/)."""
    runs: Path = Path("runs")
    """Release answers."""
    calibration: Path = Path("runs-calibration")
    """Calibration answers root (seed-N/<system>/)."""


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    made = Project(tmp_path_factory.mktemp("gate-project"))
    root = made.root
    write_family_files(root / made.items, RELEASE_SEED, list(FAMILIES), benchmark_version=BENCHMARK_VERSION)
    for seed in SEEDS:
        write_family_files(root / made.fresh / f"seed-{seed}", seed, list(FAMILIES),
                           benchmark_version=BENCHMARK_VERSION)
    config, calibration_config = root / "systems.yaml", root / "systems-calibration.yaml"
    config.write_text(SYSTEMS_FILE, encoding="utf-8")
    calibration_config.write_text(CALIBRATION_SYSTEMS_FILE, encoding="utf-8")
    for name in SYSTEMS:
        evaluate_system(get_system(name, config), root / made.items, root / made.runs, progress=False)
        for seed in SEEDS:
            evaluate_system(get_system(name, calibration_config), root / made.fresh / f"seed-{seed}",
                            root / made.calibration / f"seed-{seed}", progress=False)
    # oracle-short: its policy_case answers on the last seed cut to 100 records
    path = root / made.calibration / f"seed-{SEEDS[-1]}" / "oracle-short" / "policy_case.jsonl"
    path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:100]), encoding="utf-8")
    return made
