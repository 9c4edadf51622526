"""Provenance flags: provenance/<system>.yaml, checked line by line, shown by `dp score`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.overlap.provenance import (
    provenance_markdown,
    provenance_notes,
    read_file,
    read_provenance,
)
from decisionpivot.reconstruct.card import all_cards
from tests.score.synthetic import CORE_SHAPES, write_synthetic_core
from tests.score.test_score_cli import dp

TASKS = ["hatecheck", "rewardbench", "toxigen_annotated"]
GOOD = """\
system: model-x
documents:
  card: "https://example.org/model-x/card (2026-09-01), section Training data"
tasks:
  toxigen_annotated: {named: yes, document: card, note: lists ToxiGen among its safety data}
  hatecheck:
    named: no
    document: "Model X report, Table 3"
  rewardbench: unknown
"""


def write(tmp_path: Path, text: str, system: str = "model-x") -> Path:
    path = tmp_path / f"{system}.yaml"
    path.write_text(text)
    return path


def test_a_provenance_file_gives_one_record_per_task_unknown_by_default(tmp_path: Path) -> None:
    records = read_file(write(tmp_path, GOOD), "model-x", [*TASKS, "xstest"])
    by_task = {r.task: r for r in records}
    assert by_task["toxigen_annotated"].named == "yes"
    assert by_task["toxigen_annotated"].document.startswith("https://example.org/model-x/card")
    assert by_task["hatecheck"].named == "no" and by_task["hatecheck"].document == "Model X report, Table 3"
    assert by_task["rewardbench"].named == "unknown" and by_task["xstest"].named == "unknown"
    assert by_task["xstest"].document == ""
    assert provenance_notes(records, "model-x") == [
        "training docs name 1 of 4 reference task sources (1 no, 2 unknown; provenance.md)"]
    assert provenance_notes(records, "other") == []
    table = provenance_markdown(records, ["model-x", "uniform"])
    assert f"| toxigen_annotated | {all_cards()['toxigen_annotated'].title} | yes |" in table
    assert f"| hatecheck | {all_cards()['hatecheck'].title} | no |" in table
    assert "No provenance file (every task unknown): uniform." in table


@pytest.mark.parametrize(("text", "needle"), [
    ("tasks:\n  hatecheck: {named: yes}\n", ":2: tasks.hatecheck: 'yes' needs the document it came from"),
    ("tasks:\n  hatecheck: no\n", ":2: tasks.hatecheck: 'no' needs the document"),
    ("tasks:\n  hatecheck: {named: maybe, document: x}\n", ":2: tasks.hatecheck.named: expected yes, no or unknown"),
    ("tasks:\n  hatechek: unknown\n", ":2: tasks: 'hatechek' is not a reference task (did you mean hatecheck?)"),
    ("tasks:\n  hatecheck: {named: yes, document: x, source: y}\n", "unknown key 'source'"),
    ("system: other\n", ":1: system 'other' does not match the file name (model-x.yaml)"),
    ("models: {}\n", ":1: unknown key 'models'"),
    ("tasks: [a, b]\n", ":1: tasks must be a mapping"),
    ("tasks:\n  hatecheck: {named: yes\n", "not valid YAML"),
])
def test_a_bad_provenance_file_is_one_error_naming_file_and_line(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DecisionPivotError) as caught:
        read_file(path, "model-x", TASKS)
    assert str(caught.value).startswith(str(path)) and needle in str(caught.value), str(caught.value)


def test_every_task_card_can_be_named(tmp_path: Path) -> None:
    write(tmp_path, "tasks:\n" + "".join(f"  {task}: unknown\n" for task in all_cards()))
    assert len(read_provenance(tmp_path, ["model-x", "absent"])) == len(all_cards())
    assert read_provenance(tmp_path / "missing", ["model-x"]) == ()


def test_dp_score_shows_the_flags_in_the_leaderboard_notes_and_provenance_md(tmp_path: Path) -> None:
    items, runs, systems = write_synthetic_core(tmp_path / "core", 2, (CORE_SHAPES[0],))
    out = tmp_path / "reports"
    plain = dp("score", "--runs", str(runs), "--items", str(items), "--out", str(out), "--resamples", "20",
               "--nofigures", "--allow-modified-items")
    assert plain.returncode == 0, plain.stderr
    assert not (out / "provenance.md").exists() and "Training docs" not in plain.stdout
    folder = runs.parent / "provenance"
    folder.mkdir()
    (folder / f"{systems[1]}.yaml").write_text(GOOD.replace("model-x", systems[1]))
    result = dp("score", "--runs", str(runs), "--items", str(items), "--out", str(out), "--resamples", "20",
                "--nofigures", "--allow-modified-items")
    assert result.returncode == 0, result.stderr
    leaderboard = (out / "leaderboard.md").read_text()
    row = next(line for line in leaderboard.splitlines() if f"| {systems[1]} |" in line)
    assert f"training docs name 1 of {len(all_cards())} reference task sources (1 no," in row
    assert "- Training docs: whether a system's public training documentation names" in leaderboard
    assert f"training docs name 1 of {len(all_cards())}" in (out / "leaderboard.csv").read_text()
    table = (out / "provenance.md").read_text()
    assert f"| toxigen_annotated | {all_cards()['toxigen_annotated'].title} | yes |" in table
    assert f"No provenance file (every task unknown): {systems[0]}." in table
    (folder / f"{systems[1]}.yaml").write_text("tasks:\n  hatecheck: yes\n")
    broken = dp("score", "--runs", str(runs), "--items", str(items), "--out", str(tmp_path / "r2"), "--resamples",
                "20", "--nofigures", "--allow-modified-items")
    assert broken.returncode == 2 and f"{systems[1]}.yaml:2: tasks.hatecheck: 'yes' needs the document" in broken.stderr
    shutil.rmtree(folder)
