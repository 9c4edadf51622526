"""The documentation site: it builds in strict mode, its CLI reference is the command's own help, the README
stays short and its links reach real pages and headings, and pages state what the code does."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from markdown.extensions.toc import slugify

from decisionpivot.generate.registry import families

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
"""A Markdown link (not an image): its target."""


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", DOCS / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _anchors(page: Path) -> set[str]:
    """The ids MkDocs gives the headings of a page (Python-Markdown's toc slugs), outside code blocks."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    headings = re.findall(r"^#{1,6} (.+?)\s*$", text, flags=re.MULTILINE)
    return {slugify(re.sub(r"`([^`]*)`", r"\1", heading), "-") for heading in headings}


def _nav_pages(nav: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        target = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(target) if isinstance(target, list) else [str(target)]
    return pages


def _nav() -> list[object]:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]


def build_site(out: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` (what CI runs) of this checkout into ``out``."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for this module's tests."""
    out = tmp_path_factory.mktemp("docs") / "site"
    result = build_site(out)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "WARNING" not in result.stderr, result.stderr[-4000:]
    return out


def test_site_builds_in_strict_mode(site: Path) -> None:
    """A broken link or anchor, a page missing from the nav or an included file that is gone fails the build
    (the fixture). The CLI reference holds every verb's help; included files arrive, and no forge-only line."""
    reference = html.unescape((site / "reference" / "cli.html").read_text(encoding="utf-8"))
    assert "usage: dp evaluate" in reference and "usage: dp gate" in reference
    started = html.unescape((site / "getting-started.html").read_text(encoding="utf-8"))
    assert "--require-hashes -r requirements-main.lock" in started  # the README's commands (uv pip ...)
    assert "sparrow-nano-general-v1.1" in started  # the README's table
    for page in ("getting-started.html", "changelog.html", "provenance.html"):
        text = html.unescape((site / page).read_text(encoding="utf-8"))
        assert "--8<--" not in text and "on a forge" not in text, page
    assert "## [" not in html.unescape((site / "changelog.html").read_text(encoding="utf-8"))  # rendered


class _Links(HTMLParser):
    """Every href and src of a page, and its ids (the targets of fragments)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None:
                self.links.append(value)


def test_every_link_of_every_built_page_resolves_from_disk(site: Path) -> None:
    """The site opened as files (file://, no server): every link and script of every page, the 404 page's too,
    reaches a file - not a folder, which a browser shows as a listing, nor the file system's root - and its
    fragment reaches an id of that page."""
    parsed: dict[Path, _Links] = {}

    def links_of(page: Path) -> _Links:
        if page not in parsed:
            parsed[page] = _Links()
            parsed[page].feed(page.read_text(encoding="utf-8"))
        return parsed[page]

    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 25 and (site / "404.html") in pages
    broken = []
    for page in pages:
        for url in links_of(page).links:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue  # another site
            where = f"{page.relative_to(site)}: {url}"
            if url.startswith("/"):
                broken.append(f"{where} (root-absolute: the file system's root under file://)")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.is_file():
                broken.append(f"{where} ({'a folder' if target.is_dir() else 'no such file'})")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in links_of(target).ids:
                broken.append(f"{where} (no such anchor)")
    assert not broken, f"{len(broken)} links do not work from disk, e.g. {broken[:10]}"
    assert (site / "search" / "search_index.js").is_file()  # search reads its index from a script there
    assert "unpkg.com" not in (site / "index.html").read_text(encoding="utf-8")  # nothing from a CDN


def test_pages_that_include_a_file_read_on_a_forge() -> None:
    """On GitHub an include line showed as `--8<-- "README.md:commands"` where the commands should be: each page
    writes it inside an HTML comment, which a forge hides, after a line saying where the included text is."""
    hook = _hook("forge_includes")
    comment = re.compile(r"<!--.*?-->", re.DOTALL)
    pages = [p for p in sorted(DOCS.rglob("*.md")) if "--8<--" in p.read_text(encoding="utf-8")
             and p.name != "contributing.md"]
    assert {p.name for p in pages} >= {"getting-started.md", "changelog.md", "provenance.md"}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        on_a_forge = comment.sub("", text)
        assert "--8<--" not in on_a_forge, f"{page.name}: a forge shows an include line"
        notes = [line for line in text.splitlines() if line.endswith("<!-- forge only -->")]
        assert len(notes) == len(hook.INCLUDE.findall(text)) > 0, page.name
        for note in notes:
            for target in LINK.findall(note):
                assert (page.parent / target).resolve().is_file(), f"{page.name}: {target}"
        built = hook.for_the_site(text)
        assert "forge only" not in built and re.search(r'^--8<-- "[^"]+"$', built, re.MULTILINE), page.name


def test_the_404_page_is_made_relative_and_keeps_a_servers_base() -> None:
    hook = _hook("offline_404")
    page = '<html><head><link href="/assets/x.css"></head><body><a href="/index.html">' \
           '<a href="//cdn.example/x.js"><img src="/assets/i.png"></body></html>'
    made = hook.relative_error_page(page)
    assert 'href="assets/x.css"' in made and 'href="index.html"' in made and 'src="assets/i.png"' in made
    assert 'href="//cdn.example/x.js"' in made
    assert made.index('location.protocol !== "file:"') < made.index("assets/x.css")  # the base comes first
    assert hook.on_post_template(page, template_name="index.html") == page


def test_cli_reference_is_what_dp_help_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """The reference page is generated from the command, never written twice: the overview and each verb's
    section hold exactly what `dp [VERB] --help` prints at 100 columns, every verb of `dp --help` once."""
    from decisionpivot.cli import DP, main
    from decisionpivot.command_help import verb_order
    from decisionpivot.command_line import verbs

    hook = _hook("cli_reference")
    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert page.count(hook.MARKER) == 1
    markdown = hook.reference_markdown()
    names = verb_order(DP, verbs(DP))
    assert re.findall(r"^## dp (\S+)$", markdown, flags=re.MULTILINE) == names
    assert len(names) > 20
    for verb in ("evaluate", "score", "gate"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("COLUMNS", "100")
            main([verb, "--help"])
        printed = capsys.readouterr().out.rstrip()
        assert f"## dp {verb}\n\n```text\n{printed}\n```" in markdown


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page_or_pending() -> None:
    """A page left out of the nav is unreachable; a nav entry without its page fails the strict build unless
    it is one the pending-pages hook waits for (written on another branch)."""
    pending = _hook("pending_pages").PENDING
    listed = _nav_pages(_nav())
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
    assert sorted(set(pages) - set(listed)) == []
    assert sorted(p for p in set(listed) - set(pages) if p not in pending) == []
    assert len(listed) == len(set(listed))


def test_pending_pages_leave_the_nav_only_while_missing(tmp_path: Path) -> None:
    hook = _hook("pending_pages")
    (tmp_path / "deployment.md").write_text("# Deployment\n", encoding="utf-8")
    nav = [{"Home": "index.md"}, {"A": [{"x": "invariance.md"}]}, {"B": [{"y": "deployment.md"}, "gone.md"]}]
    assert hook.without_missing(nav, tmp_path) == [{"Home": "index.md"}, {"B": [{"y": "deployment.md"}, "gone.md"]}]


def test_readme_is_short_and_its_links_reach_pages_and_headings() -> None:
    """The README keeps a newcomer's screen or two; its links are relative (`docs/...md`, so they work on GitHub
    and in a checkout) and each reaches an existing file and, where it names one, an existing heading."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 250
    targets = LINK.findall(readme)
    assert len([t for t in targets if t.startswith("docs/")]) >= 15
    for target in targets:
        assert not target.startswith(("http:", "https:", "/")), target
        path, _, anchor = target.partition("#")
        assert (ROOT / path).is_file(), f"README links to {target}: no such file"
        if anchor:
            assert anchor in _anchors(ROOT / path), f"README links to {target}: no such heading"
    for image in re.findall(r"!\[[^\]]+\]\(([^)]+)\)", readme):
        assert (ROOT / image).is_file(), image


def test_readme_commands_and_table_are_marked_for_the_site() -> None:
    """Getting started shows the README's two commands and table by inclusion (one home for each)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("commands", "leaderboard"):
        assert readme.count(f"<!-- --8<-- [start:{name}] -->") == 1
        assert readme.count(f"<!-- --8<-- [end:{name}] -->") == 1
        assert f'--8<-- "README.md:{name}"' in (DOCS / "getting-started.md").read_text(encoding="utf-8")


def test_families_table_has_a_row_for_every_family() -> None:
    """The families table once had 12 rows for 13 families (record_rule was missing)."""
    text = (DOCS / "items.md").read_text(encoding="utf-8")
    table = text[text.index("## Families"):text.index("## Writing a family")]
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")]
    assert rows[0] == "family"
    assert sorted(rows[1:]) == sorted(spec.name for spec in families())


def test_docker_page_says_how_to_get_an_engine_and_when_answers_equal_the_hosts() -> None:
    text = (DOCS / "docker.md").read_text(encoding="utf-8")
    assert "## Getting a Docker engine" in text and "docker.io" in text
    assert "only with `SOURCE_DATE_EPOCH` set" in text
    assert "-e SOURCE_DATE_EPOCH=0 dp evaluate" in text


def test_ci_runs_the_end_to_end_tests_the_default_command_skips() -> None:
    """README command 2 deselects the tests marked e2e (pyproject's addopts); CI runs them and fails with them."""
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "-m 'not e2e'" in options["addopts"]
    assert any(marker.startswith("e2e:") for marker in options["markers"])
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pytest -n 2 -m e2e" in run and '[ "$E2E_RC" != 0 ]' in run
    assert "mkdocs build --strict" in run and '[ "$DOCS_RC" != 0 ]' in run
