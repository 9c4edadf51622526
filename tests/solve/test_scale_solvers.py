"""The scale suite's solvers: one per family, never importing a generator, found by `dp verify`."""

from __future__ import annotations

import ast
from pathlib import Path

from decisionpivot.scale.registry import families
from decisionpivot.solve import solvers
from decisionpivot.solve.scale import scale_solvers

SCALE_SOLVE_DIR = Path(__file__).resolve().parents[2] / "src" / "decisionpivot" / "solve" / "scale"


def test_every_scale_family_has_a_solver_and_no_other_claims_it() -> None:
    assert set(scale_solvers()) == {spec.name for spec in families()}
    assert not set(scale_solvers()) & set(solvers())


def test_scale_solvers_never_import_the_generators() -> None:
    for path in SCALE_SOLVE_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["." * node.level + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert "generate" not in name and not name.startswith("decisionpivot.scale"), f"{path.name}: {name}"
