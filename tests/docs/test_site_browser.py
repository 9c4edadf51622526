"""The documentation site opened from disk in a real browser (issue #39, point 4): links open pages, not folder
listings, the theme's styles load, and search answers without a server. Headless Chromium, as the report's
browser test drives it (CI installs it; without it the test skips unless DP_REQUIRE_BROWSER=1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.docs.test_site import build_site
from tests.report.test_browser import driver, wait  # noqa: F401 (the fixture: one headless Chromium per module)

pytestmark = pytest.mark.e2e  # a real browser: CI runs it (`-m e2e`), the default command skips it


def test_the_site_is_read_from_disk_links_styles_and_search(driver: Any, tmp_path: Path) -> None:  # noqa: F811
    site = tmp_path / "site"
    result = build_site(site)
    assert result.returncode == 0, result.stderr[-4000:]
    driver.get((site / "index.html").as_uri())
    wait(lambda: driver.execute_script("return document.readyState") == "complete", "the home page")
    header = driver.execute_script("return getComputedStyle(document.querySelector('.md-header')).position")
    assert header in ("sticky", "fixed"), "the theme's stylesheet did not load"
    link = driver.find_element("css selector", "a.md-nav__link[href$='getting-started.html']")
    driver.execute_script("arguments[0].click()", link)
    wait(lambda: driver.current_url.endswith("/getting-started.html"), "the link to open a page (not a folder)")
    assert driver.find_element("css selector", "article h1").text == "Getting started"
    assert "pip install --require-hashes" in driver.find_element("css selector", "article").text
    box = driver.find_element("css selector", "input.md-search__input")
    driver.execute_script("arguments[0].focus()", box)
    box.send_keys("contrast groups")
    results = wait(lambda: driver.find_elements("css selector", ".md-search-result__item"),
                   "search results from the inlined index (no server)")
    assert results
