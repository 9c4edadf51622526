"""The README's figures are the main job's: its leaderboard table and the compare step's counts equal what
`dvc repro` writes to reports/ (they were typed from it, so a change to the models or params left them stale).

End to end: it reads the outputs of the whole pipeline, which CI's `.ci/run` makes (`dvc repro`) before it runs
`pytest -m e2e`; the default command skips it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e  # needs the pipeline's reports/: CI runs it after its dvc repro


def _report(relative: str) -> str:
    path = ROOT / "reports" / relative
    if not path.is_file():
        pytest.fail(f"{path}: not found - run `dvc repro` first (CI runs it before the end-to-end tests)")
    return path.read_text(encoding="utf-8")


def _table(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """(header, system -> cells) of the first Markdown table in ``text``."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    header, body = rows[0], rows[2:]
    return header, {row[1]: row for row in body}


@pytest.mark.parametrize(("block", "report_file"), [("leaderboard", "leaderboard.md"),
                                                  ("scale-leaderboard", "scale_leaderboard.md")])
def test_the_readme_leaderboards_are_the_pipelines(block: str, report_file: str) -> None:
    """The core leaderboard and the score questions' headline (issue #40: shown beside the core's)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    text = readme.split(f"<!-- --8<-- [start:{block}] -->", 1)[1].split(f"<!-- --8<-- [end:{block}] -->")[0]
    shown_header, shown = _table(text)
    report_header, report = _table(_report(report_file))
    ranked = [system for system, row in shown.items() if row[0]]
    assert ranked, f"the README's {block} lists no ranked system"
    for system in [*ranked, "uniform guessing"]:
        assert system in report, f"README lists {system!r}, reports/{report_file} does not"
        for column, cell in zip(shown_header, shown[system], strict=True):
            if system == "uniform guessing" and column not in ("Pair acc.", "Exact"):
                continue  # its other cells are labels ("expected"), the report's dashes
            if column in report_header and cell:
                expected = report[system][report_header.index(column)]
                assert cell == expected, f"README {system} {column}: {cell!r}, reports/{report_file}: {expected!r}"
    report_ranked = [system for system, row in report.items() if row[0]]
    assert ranked == report_ranked, f"the README ranks other systems than reports/{report_file}"
    assert all(column in report_header for column in shown_header), "a README column the report does not have"


def test_the_readme_compare_step_is_the_pipelines() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    step = re.search(r"([\d,]+) items fixed and\s+([\d,]+) broken, item accuracy ([\d.]+) -> ([\d.]+) "
                     r"\[([-+][\d.]+), ([-+][\d.]+)\]", readme)
    assert step is not None, "README: the compare step's sentence is gone or reworded"
    fixed, broken, before, after, low, high = step.groups()
    overall = next(line for line in _report("compare/compare.md").splitlines() if line.startswith("| overall |"))
    cells = [cell.strip() for cell in overall.strip("|").split("|")]
    assert [fixed.replace(",", ""), broken.replace(",", "")] == cells[6:8], overall
    interval = rf"\[{re.escape(low)}, {re.escape(high)}\]"
    assert re.match(rf"{re.escape(before)} -> {re.escape(after)} \([-+][\d.]+ {interval}\)", cells[8]), overall
