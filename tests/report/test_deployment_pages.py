"""deployment.html: built from what dp compare, recalibrate, cost and monitor wrote; every worse group links
into the group browser; the cost figures are in the site."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.report.deployment_pages import read_deployment
from tests.deployment_project import Project, shared_project


@pytest.fixture(scope="module")
def site() -> tuple[Project, Path]:
    project = shared_project()
    previous = Path.cwd()
    os.chdir(project.root)
    try:
        main(["score", "--items", str(project.items), "--reference", "", "--resamples", "50", "--nofigures",
              "--out", "reports"])
        with pytest.raises(SystemExit):
            main(["compare", "--baseline", "runs/oracle", "--candidate", "runs/degraded", "--resamples", "50",
                  "--out", "reports/compare"])
        main(["recalibrate", "--items", str(project.items), "--systems", "oracle", "--resamples", "20"])
        main(["cost", "--items", str(project.items), "--cost-wrong", "50", "--cost-escalated", "2", "--gate",
              "reports/gate.json"])
        main(["monitor", "reports/gate/oracle.json", "--answers", "runs-traffic/oracle", "--items",
              "datasets/fresh/seed-102", "--out", "reports/monitor"])
        main(["report", "--items", str(project.items)])
    finally:
        os.chdir(previous)
    return project, project.root / "reports" / "site"


def test_the_page_shows_every_part_and_links_each_worse_group(site: tuple[Project, Path]) -> None:
    project, folder = site
    page = (folder / "deployment.html").read_text(encoding="utf-8")
    for heading in ("Upgrade check", "Recalibration", "What automation costs", "After deployment"):
        assert heading in page
    record = json.loads((project.root / "reports/compare/compare.json").read_text(encoding="utf-8"))
    worse = record["families"]["policy_case"]["broken"]
    links = re.findall(r'href="groups.html#family=policy_case&amp;item=([^"]+)"', page)
    assert worse and links == [g["first_item"] for g in worse]
    assert 'href="deployment.html"' in (folder / "index.html").read_text(encoding="utf-8")  # in the navigation
    for system in ("oracle", "uniform"):
        svg = (folder / "figures" / "cost" / f"{system}.svg").read_text(encoding="utf-8")
        assert "<svg" in svg and f'src="figures/cost/{system}.svg"' in page


def test_a_site_without_deployment_files_has_no_page(tmp_path: Path) -> None:
    assert read_deployment(tmp_path) == {}
    (tmp_path / "cost").mkdir()
    (tmp_path / "cost" / "cost.json").write_text("{", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r"cost\.json:1: not valid JSON"):
        read_deployment(tmp_path)


def test_a_comparison_that_cannot_pass_is_not_shown_as_passing() -> None:
    """compare.json of a comparison with a family left out: the page said "passes" (it read only `failed`)."""
    from decisionpivot.report.deployment_pages import _compare

    record = {"baseline": "runs/a", "candidate": "runs/b", "test": "t", "alpha": 0.05, "failed": False,
              "verdict": "cannot pass", "not_compared": ["policy_case"], "families": {}, "overall": {}}
    page = _compare(record)
    assert "cannot pass: policy_case could not be compared" in page and "passes" not in page
