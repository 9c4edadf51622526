"""A small real project for the deployment verbs (compare, recalibrate, cost, monitor): release items of two
families, a fresh calibration draw and a further fresh draw as "traffic", and real `dp evaluate` runs of
uniform guessing and three python systems on all of them:

* ``oracle`` - perfectly calibrated and strong (``tests/gate/calibrated_oracle.py``);
* ``overconfident`` - the oracle's choices with confidence pushed towards 1 (miscalibrated, fixable);
* ``degraded`` - the oracle, but on ``policy_case`` the next option instead of its choice, at the same
  confidence (an upgrade that breaks one family).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.cli import main
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import write_family_files
from decisionpivot.items import Item
from tests.gate.calibrated_oracle import decide as oracle

FAMILIES = ("fact_answerable", "policy_case")
CALIBRATION_SEED = 101
TRAFFIC_SEED = 102
SYSTEMS_FILE = """systems:
  oracle: {kind: python, callable: "tests.gate.calibrated_oracle:decide", batch_size: 200}
  overconfident: {kind: python, callable: "tests.deployment_project:overconfident", batch_size: 200}
  degraded: {kind: python, callable: "tests.deployment_project:degraded", batch_size: 200}
"""
SYSTEMS = ("oracle", "overconfident", "degraded", "uniform")


def overconfident(items: Sequence[Item]) -> list[dict[str, float]]:
    """The oracle's answers with the chosen option's probability raised to the power 0.05 (towards 1)."""
    out = []
    for answer in oracle(items):
        top = max(answer, key=answer.__getitem__)
        raised = answer[top] ** 0.05
        rest = (1.0 - raised) / max(1, len(answer) - 1)
        out.append({key: raised if key == top else rest for key in answer})
    return out


def degraded(items: Sequence[Item]) -> list[dict[str, float]]:
    """The oracle, except that on policy_case the probabilities move one option on (its choice is lost)."""
    out = []
    for item, answer in zip(items, oracle(items), strict=True):
        if item.family == "policy_case":
            keys = list(answer)
            answer = {keys[(i + 1) % len(keys)]: answer[key] for i, key in enumerate(keys)}
        out.append(answer)
    return out


@dataclass(frozen=True)
class Project:
    """Paths of the test project (relative to ``root``; tests chdir into it)."""

    root: Path
    """The project folder."""
    items: Path = Path("datasets/core") / BENCHMARK_VERSION
    """Release items."""
    fresh: Path = Path("datasets/fresh")
    """Fresh draws root (seed-N/)."""
    runs: Path = Path("runs")
    """Release answers."""
    calibration: Path = Path("runs-calibration")
    """Calibration answers root (seed-N/<system>/)."""
    traffic: Path = Path("runs-traffic")
    """Answers to the traffic draw (<system>/)."""
    gate: Path = Path("reports/gate.json")
    """`dp gate`'s gate.json (certified on the calibration draw); reports/gate/<system>.json beside it."""


def build_project(root: Path) -> Project:
    """Draw the items and run every system on every draw (about a minute)."""
    made = Project(root)
    write_family_files(root / made.items, RELEASE_SEED, list(FAMILIES), benchmark_version=BENCHMARK_VERSION)
    for seed in (CALIBRATION_SEED, TRAFFIC_SEED):
        write_family_files(root / made.fresh / f"seed-{seed}", seed, list(FAMILIES),
                           benchmark_version=BENCHMARK_VERSION)
    config = root / "systems.yaml"
    config.write_text(SYSTEMS_FILE, encoding="utf-8")
    for name in SYSTEMS:
        system = get_system(name, config)
        evaluate_system(system, root / made.items, root / made.runs, progress=False)
        evaluate_system(system, root / made.fresh / f"seed-{CALIBRATION_SEED}",
                        root / made.calibration / f"seed-{CALIBRATION_SEED}", progress=False)
        evaluate_system(system, root / made.fresh / f"seed-{TRAFFIC_SEED}", root / made.traffic, progress=False)
    previous = Path.cwd()
    os.chdir(root)
    try:  # the certificates: dp gate on the calibration draw, as a team would run it; at a 10% target, since one
        # small draw of two families (delta / 3 per entry) certifies nothing for the oracle at 5%
        with contextlib.redirect_stdout(io.StringIO()):
            main(["gate", "--items", str(made.items), "--seeds", str(CALIBRATION_SEED), "--target-risk", "0.1",
                  "--resamples", "50"])
    finally:
        os.chdir(previous)
    return made


@cache
def shared_project() -> Project:
    """One project per test session, shared by tests/compare, recalibrate, cost and monitor (removed at exit)."""
    root = Path(tempfile.mkdtemp(prefix="dp-deployment-project-"))
    atexit.register(shutil.rmtree, root, True)
    return build_project(root)
