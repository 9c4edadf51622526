"""Figures a newcomer can read: every curve named, panel titles that do not run into each other (issue 22)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot.score.figures import wrapped
from decisionpivot.score.pipeline import score_runs
from tests.score.synthetic import CORE_SHAPES, write_synthetic_core


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("figures")
    small = [replace(shape, groups=20) for shape in CORE_SHAPES]  # the legend needs systems, not items
    items, runs, _ = write_synthetic_core(root, systems=25, shapes=small)
    score_runs(runs, items, None, root / "reports", tasks=(), resamples=20, allow_modified_items=True)
    return root / "reports" / "figures"


def test_the_risk_coverage_figure_names_every_system(figures: Path) -> None:
    """25 systems once gave a figure without a legend (the SVG held no system name at all)."""
    svg = (figures / "risk_coverage.svg").read_text(encoding="utf-8")
    for i in range(25):
        assert f"system{i:02d}" in svg


def test_long_system_names_wrap_at_their_separators() -> None:
    name = "heuristic.access_request.structural_counts"
    lines = wrapped(name).split("\n")
    assert "".join(lines) == name and len(lines) > 1 and all(len(line) <= 26 for line in lines)
    assert wrapped("uniform") == "uniform"
