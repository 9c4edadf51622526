"""The report's scale pages (issue 40): the scale suite's leaderboard and families, and its contrast groups shown with
the scale, built by `dp report --scale` from what `dp score --scale` wrote."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import write_family_files
from decisionpivot.items import read_items
from decisionpivot.report.scale_pages import GROUPS_PER_PAGE
from decisionpivot.report.site import report_site
from decisionpivot.scale.run import write_suite
from decisionpivot.score.pipeline import score_runs

SYSTEMS = {"oracle": "oracle", "middle": "middle"}
FAMILIES = ["support_priority", "listing_match"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("scale-report")
    items, suite = root / "items", root / "suite"
    write_family_files(items, RELEASE_SEED, ["fact_answerable"])
    write_suite(suite, names=FAMILIES)
    config = root / "systems.yaml"
    config.write_text(json.dumps({"systems": {name: {"kind": "python",
                                                     "callable": f"tests.scale.synthetic_systems:{function}"}
                                              for name, function in SYSTEMS.items()}}))
    for name in ["uniform", *SYSTEMS]:
        system = get_system(name, config)
        evaluate_system(system, items, root / "runs", progress=False)
        evaluate_system(system, suite, root / "runs-scale", progress=False)
    score_runs(root / "runs", items, None, root / "reports", resamples=20, tasks=(), figures=False, scale=suite,
               scale_runs=root / "runs-scale")
    built = report_site(root / "reports", items, root / "runs", root / "site", gate="", stability="", partial="",
                        progress=False, scale=suite, scale_runs=root / "runs-scale")
    return built.out, suite


def test_the_scale_page_shows_the_suites_leaderboard_and_families(site: tuple[Path, Path]) -> None:
    out, _ = site
    page = (out / "scale.html").read_text()
    assert 'href="scale.html"' in (out / "index.html").read_text()  # in the navigation
    rows = re.findall(r'<tr><td>(\d*=?)</td><th scope="row">([^<]+)</th><td class="num" data-sort="([^"]*)"', page)
    assert [(rank, system) for rank, system, _ in rows] == [("1", "oracle"), ("2=", "middle"), ("2=", "uniform")]
    assert rows[0][2] == "100.000000"
    assert "uniform guessing" in page and page.count('<section id="family-') == len(FAMILIES)
    for family in FAMILIES:  # its groups in pages of 40
        assert f'href="scale/{family}-0.html">groups 1-40</a>' in page
        assert f'href="scale/{family}-5.html">groups 201-201</a>' in page


def test_the_group_browser_shows_the_members_with_the_scale(site: tuple[Path, Path]) -> None:
    out, suite = site
    pages = sorted((out / "scale").glob("support_priority-*.html"))
    items = read_items(suite / "support_priority.jsonl")
    groups = {item.group for item in items}
    assert len(pages) == 6 and sum(p.read_text().count("<details ") for p in pages) == len(groups)
    assert max(p.stat().st_size for p in pages) < 350_000  # the report's page budget
    page = (out / "scale" / "support_priority-0.html").read_text()
    items = [item for item in items if item.group in re.findall(r'<details id="([^"]+)"', page)]
    assert page.count("<details ") == GROUPS_PER_PAGE
    first = [item for item in items if item.group == items[0].group]
    names = " &lt; ".join(o.meaning.split(" - ")[0] for o in first[0].options)
    assert f"scale {names}</summary>" in page
    for item in first:
        assert f"{item.id} ({item.variation})" in page
    # the members' differing line, the check time for this group, is shown; the shared lines are not
    assert "The queue is checked on" in page and "Queue rules:" not in page
    # one figure per member and system; the oracle puts everything on the gold level
    figures = re.findall(r'<svg class="scale"[^>]*aria-label="([^"]*)"', page)
    assert len(figures) == len(items) * 3  # the page's items
    gold = int(first[0].answer)
    assert figures[1].startswith(", ".join(f"{level}: {1.0 if level == gold else 0.0:.2f}"
                                           for level in range(len(first[0].options))))


def test_a_report_asked_for_an_unscored_scale_suite_says_so(tmp_path: Path, site: tuple[Path, Path]) -> None:
    out, suite = site
    reports = out.parent / "reports"
    scoring = json.loads((reports / "scoring.json").read_text())
    copy = tmp_path / "reports"
    copy.mkdir()
    (copy / "scores.json").write_text((reports / "scores.json").read_text())
    (copy / "scoring.json").write_text(json.dumps({k: v for k, v in scoring.items() if k != "scale"}))
    with pytest.raises(DecisionPivotError, match="no 'scale' section"):
        report_site(copy, out.parent / "items", out.parent / "runs", tmp_path / "site", gate="", stability="",
                    partial="", progress=False, scale=suite, scale_runs=out.parent / "runs-scale")
