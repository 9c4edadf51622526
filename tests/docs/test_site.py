"""The documentation site: it builds in strict mode, its CLI reference is the command's own help, the README
stays short and its links reach real pages and headings, and pages state what the code does."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

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


def test_site_builds_in_strict_mode(tmp_path: Path) -> None:
    """`mkdocs build --strict` (what CI runs): a broken link or anchor, a page missing from the nav or an
    included file that is gone fails it. The CLI reference holds every verb's help; included files arrive."""
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT / "src")}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "WARNING" not in result.stderr, result.stderr[-4000:]
    reference = html.unescape((site / "reference" / "cli" / "index.html").read_text(encoding="utf-8"))
    assert "usage: dp evaluate" in reference and "usage: dp gate" in reference
    started = html.unescape((site / "getting-started" / "index.html").read_text(encoding="utf-8"))
    assert "pip install --require-hashes -r requirements-main.lock" in started  # the README's commands (uv pip ...)
    assert "sparrow-nano-general-v1.1" in started  # the README's table
    assert "--8<--" not in started


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
