"""Getting started says what the README's table says and explains all of it (issue #39, point 3): it gave the
uniform baseline's item accuracy as 39.9 (the table: 39.6), the README sent readers there for what each column
means while ECE, Robust pair acc., Flip rate and Readout were not explained, and its "what each verb writes"
stopped at evaluate although the main job runs a dozen more verbs."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"

GENERAL, ROBOT, UNIFORM = "sparrow-nano-general-v1.1", "sparrow-nano-robot-v1.2", "uniform"
CLAIMS = [  # (a sentence of getting-started, its figures in order, the README cells they must equal)
    (r"item accuracy sits where a constant answer's does \(([\d.]+)% and ([\d.]+)% over all families, next to the "
     r"([\d.]+)% of\s+the `uniform` baseline",
     [(GENERAL, "Item acc."), (ROBOT, "Item acc."), (UNIFORM, "Item acc.")]),
    (r"pair accuracy is ([\d.]+)% and ([\d.]+)%", [(GENERAL, "Pair acc."), (ROBOT, "Pair acc.")]),
    (r"far below the ([\d.]+)% that guessing at random", [("uniform guessing", "Pair acc.")]),
    (r"Pair direction - [^-]+- is ([\d.]+)% and\s+([\d.]+)%", [(GENERAL, "Pair dir."), (ROBOT, "Pair dir.")]),
]


def _readme_table() -> tuple[list[str], dict[str, list[str]]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- --8<-- [start:leaderboard] -->", 1)[1].split("<!-- --8<-- [end:leaderboard] -->")[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in block.splitlines()
            if line.startswith("|")]
    return rows[0], {row[1]: row for row in rows[2:]}


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = re.search(r"^#{1,3} ", text[start + len(heading):], flags=re.MULTILINE)
    return text[start:start + len(heading) + following.start()] if following else text[start:]


def test_every_figure_quoted_is_the_readmes() -> None:
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    header, rows = _readme_table()
    for pattern, cells in CLAIMS:
        found = re.search(pattern, text)
        assert found is not None, f"getting-started no longer says {pattern!r}: update the claim here"
        for quoted, (system, column) in zip(found.groups(), cells, strict=True):
            shown = rows[system][header.index(column)].split()[0]
            assert quoted == shown, f"getting-started: {system} {column} is {quoted}, the README's table: {shown}"


def test_every_column_of_the_readmes_table_is_explained() -> None:
    """The README sends readers to getting-started#what-the-main-job-shows for what each column means."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"docs/getting-started\.md#what-(the-main-job-shows|each-column-means)", readme)
    columns = _section(PAGE.read_text(encoding="utf-8"), "### What each column means")
    header, rows = _readme_table()
    missing = [name for name in header if f"**{name}**" not in columns]
    assert not missing, f"columns of the README's table not explained in getting-started: {missing}"
    assert "**uniform guessing**" in columns and "not ranked:" in columns  # the two rows that are not systems
    assert any(name.startswith("*not ranked:*") for name in rows)


def test_what_each_verb_writes_covers_every_verb_the_main_job_runs() -> None:
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    commands = [str(stage.get("do", stage).get("cmd", "")) for stage in stages.values()]
    verbs = sorted({verb for command in commands for verb in re.findall(r"(?:^|[\s;&|])dp ([a-z]+)", command)})
    assert {"generate", "evaluate", "score", "gate", "report", "datasheet"} <= set(verbs)
    section = _section(PAGE.read_text(encoding="utf-8"), "## What each verb writes")
    missing = [verb for verb in verbs if f"`dp {verb}" not in section]
    assert not missing, f"verbs of the main job that getting-started does not describe: {missing}"
