"""One scoring with every optional input, built once per session through the real pipeline, and its site."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from decisionpivot.report.site import BuiltSite, report_site
from tests.report.fixture import ReportFixture, build_fixture


@dataclass(frozen=True)
class Built:
    """The fixture's scoring and the site built from it."""

    fixture: ReportFixture
    """Items, runs, reports."""
    site: BuiltSite
    """The site in <reports>/site."""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    fixture = build_fixture(tmp_path_factory.mktemp("report"))
    return Built(fixture, report_site(fixture.reports, fixture.items, fixture.runs, progress=False,
                                      invariance=fixture.invariance, invariance_runs=fixture.invariance_runs or ""))
