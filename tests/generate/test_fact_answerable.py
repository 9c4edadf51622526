"""fact_answerable: core 1.2 text revision (who compiles the sheet, agreement for two organisations,
briefing questions that name each organisation once) and the solver on both question forms."""

from __future__ import annotations

import re

from decisionpivot.audit.text import text_findings
from decisionpivot.generate import fact_answerable as fa
from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.solve.fact_answerable import solve
from tests.conftest import cached_draw

NAME = "fact_answerable"


def test_no_text_findings_on_release_and_fresh_seeds() -> None:
    for seed in (20261008, 1, 2):
        assert text_findings(cached_draw(NAME, seed).items) == []


def test_sheet_is_compiled_by_a_research_team_not_a_domain_department() -> None:
    departments = {d for domain in DOMAINS for d in domain.departments}
    for item in cached_draw(NAME).items:
        intro = item.state.splitlines()[0]
        assert "desk desk" not in intro and " a adult" not in intro
        m = re.search(r"by the (.+?) team", intro)
        if m:
            assert m.group(1) in fa.COMPILERS
            assert m.group(1) not in departments


def test_two_organisations_take_both_and_larger() -> None:
    for item in cached_draw(NAME).items:
        query = item.state.rpartition("Question under review: ")[2]
        names = re.findall(r"[A-Z]\w+ [A-Z]\w+", query)
        if " larger" in query or " both " in query:
            assert len(names) == 2, query
        if " largest" in query or " all have " in query:
            assert len(names) >= 3, query


def test_briefing_question_names_each_organisation_once() -> None:
    seen = 0
    for item in cached_draw(NAME).items:
        query = item.state.rpartition("Question under review: ")[2]
        if not query.startswith(("For a briefing note", "State")):
            continue
        seen += 1
        orgs = re.findall(r"(?:of|for) ([A-Z]\w+ [A-Z]\w+)", query)
        assert len(orgs) == len(set(orgs)), query
    assert seen > 50


def test_solver_agrees_on_release_items() -> None:
    assert all(solve(item) == item.answer for item in cached_draw(NAME).items)


def test_the_figures_of_one_organisation_belong_together() -> None:
    """Core 1.3 (issue #38): 1.2 drew every figure alone ("founded 1990, listed 1983"; an adult-education body with
    809.7 million EUR revenue and 1,758 students). Every row about an organisation now comes from one profile."""
    from collections import defaultdict

    from decisionpivot.generate.fact_answerable import SCALE

    checked = 0
    for seed in (20261008, 7):
        for item in cached_draw(NAME, seed).items:
            facts: dict[str, dict[str, str]] = defaultdict(dict)
            for line in str(item.state).splitlines():
                cells = [c.strip() for c in line.strip("|").split("|")]
                if len(cells) == 3 and line.startswith("|"):
                    facts[cells[0]][cells[1]] = cells[2]
            for org, rows in facts.items():
                if "Founded" in rows and "Listed" in rows:
                    assert int(rows["Listed"]) > int(rows["Founded"]), (item.id, org)
                    checked += 1
                if "Employees" in rows and "Revenue (last fiscal year)" in rows:
                    staff = int(rows["Employees"].replace(",", ""))
                    revenue = float(rows["Revenue (last fiscal year)"].split()[0].replace(",", "")) * 1e6
                    low, high = SCALE[item.domain][1]
                    assert 0.9 * low <= revenue / staff <= 1.1 * high, (item.id, org, rows)
                    checked += 1
    assert checked > 50
