"""The leaderboard ranks like with like and says what every figure is (issues 21.9, 21.11, 21.12 and 22)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from decisionpivot.items import write_items
from decisionpivot.score.operations import SystemOperations
from decisionpivot.score.pipeline import score_runs
from decisionpivot.score.report import leaderboard_csv, leaderboard_markdown, markdown_text, ranks, readout_legend
from tests.score.synthetic import CORE_SHAPES, family_items, write_answers

SHAPES = CORE_SHAPES[:3]


def _board(tmp_path: Path, systems: dict[str, object]) -> tuple[Path, Path]:
    """Items of three families and, per system, a rule giving each item's record (or None: no file)."""
    items_dir, runs = tmp_path / "items", tmp_path / "runs"
    for shape in SHAPES:
        items = family_items(shape)
        sha = write_items(items_dir / f"{shape.name}.jsonl", items)
        for name, rule in systems.items():
            records = [rule(item, shape.name) for item in items]  # type: ignore[operator]
            if any(r is None for r in records):
                continue
            write_answers(runs / name, shape.name, sha, records)
    return items_dir, runs


def gold(item, family):  # type: ignore[no-untyped-def]
    return {"id": item.id, "p": {k: float(k == item.answer) for k in item.option_keys}}


def wrong(item, family):  # type: ignore[no-untyped-def]
    other = next(k for k in item.option_keys if k != item.answer)
    return {"id": item.id, "p": {k: float(k == other) for k in item.option_keys}}


def errors(item, family):  # type: ignore[no-untyped-def]
    return {"id": item.id, "error": "HTTP 400: the model refused"}


def one_unanswered(item, family):  # type: ignore[no-untyped-def]
    if item.id.endswith(":00001"):
        return {"id": item.id, "error": "HTTP 503 (gave up after 6 attempts)", "transient": True}
    return gold(item, family)


def test_ties_share_a_rank_failures_rank_last_and_partial_systems_are_not_ranked(tmp_path: Path) -> None:
    systems = {"a-all-errors": errors, "b-wrong": wrong, "c-wrong": wrong, "d-gold": gold,
               "e-one-family": lambda item, family: gold(item, family) if family == SHAPES[0].name else None,
               "f-unanswered": one_unanswered}
    items_dir, runs = _board(tmp_path, systems)
    # an always-error system whose name sorts first must not come first among equals
    scoring = score_runs(runs, items_dir, None, tmp_path / "reports", tasks=(), resamples=20, figures=False,
                         allow_modified_items=True)
    numbers = ranks(scoring)
    assert numbers["d-gold"] == "1" and numbers["f-unanswered"] == "2"
    assert numbers["b-wrong"] == numbers["c-wrong"] == numbers["a-all-errors"] == "3="
    board = leaderboard_markdown(scoring)
    ranked_part = board.split("## Not ranked")[0]
    order = [line.split(" | ")[1] for line in ranked_part.splitlines() if line.startswith("| ") and " | " in line][1:]
    assert order[:5] == ["d-gold", "f-unanswered", "b-wrong", "c-wrong", "a-all-errors"]
    assert "e-one-family" not in numbers and "e-one-family" in board.split("## Not ranked")[1]
    assert "core over 1 of 3 families (fact_answerable)" in board
    row = next(line for line in board.splitlines() if "| a-all-errors |" in line)
    assert "| 1800 |" in row, "failed predictions are shown per system"
    row = next(line for line in board.splitlines() if "| f-unanswered |" in line)
    assert "| 3 (3 unanswered) |" in row
    csv = leaderboard_csv(scoring).decode()
    assert "comparability" in csv.splitlines()[0] and ",e-one-family,partial," in csv


def test_a_system_with_no_included_task_gets_no_rank(tmp_path: Path) -> None:
    def short(item, family):  # type: ignore[no-untyped-def]
        return gold(item, family) if item.id.endswith("0") else {"id": item.id, "error": "x", "transient": True}

    items_dir, runs = _board(tmp_path, {"good": gold, "short": short})
    for shape in SHAPES:  # drop most records: below the 99% a task needs
        path = runs / "short" / f"{shape.name}.jsonl"
        path.write_text("".join(line + "\n" for line in path.read_text().splitlines()[:50]))
    scoring = score_runs(runs, items_dir, None, tmp_path / "reports", tasks=(), resamples=20, figures=False,
                         allow_modified_items=True)
    assert ranks(scoring) == {"good": "1"}
    assert "no task included" in leaderboard_markdown(scoring)


@pytest.mark.parametrize("concurrencies", [(1, 16), (4, 4)])
def test_latencies_carry_the_concurrency_they_were_measured_at(tmp_path: Path, concurrencies: tuple[int, int]) -> None:
    items_dir, runs = _board(tmp_path, {"slow": gold, "fast": gold})
    for name, level in zip(("slow", "fast"), concurrencies, strict=True):
        for path in (runs / name).glob("*.meta.json"):
            meta = json.loads(path.read_text())
            path.write_text(json.dumps({**meta, "system": {"name": name, "concurrency": level}}))
        for path in (runs / name).glob("*.jsonl"):
            records = [{**json.loads(line), "latency_s": 0.01 * level} for line in path.read_text().splitlines()]
            path.write_text("".join(json.dumps(r) + "\n" for r in records))
    board = leaderboard_markdown(score_runs(runs, items_dir, None, tmp_path / "r", tasks=(), resamples=20,
                                            figures=False, allow_modified_items=True))
    rows = {name: next(line for line in board.splitlines() if f"| {name} |" in line) for name in ("slow", "fast")}
    for name, level in zip(("slow", "fast"), concurrencies, strict=True):
        assert f"| {0.01 * level:.3f} | {0.01 * level:.3f} | {level} |" in rows[name]
    warned = "Latencies were measured at different concurrency" in board
    assert warned == (concurrencies[0] != concurrencies[1])


def test_system_names_cannot_break_the_markdown_table() -> None:
    assert markdown_text("evil|name*<b>") == "evil\\|name\\*\\<b\\>"
    assert "|" not in markdown_text("a|b").replace("\\|", "")


def test_the_readout_note_explains_every_readout_shown_and_only_those() -> None:
    def ops(system: str, readout: str) -> SystemOperations:
        return SystemOperations(system, readout, 0, None, None, "", 0, 0, None, False)

    legend = readout_legend([ops("a", "logprobs/whole-key"), ops("b", "systemone/noul+openai_decisions/choice"),
                             ops("c", "hf/key-logits"), ops("d", "mystery"), ops("e", "-")])
    assert legend.split("; ")[0].startswith("hf/key-logits: in process")
    assert "logprobs/whole-key: a served model's echoed log-probabilities of each whole key" in legend
    assert "openai_decisions/choice: yes/no items as a two-option choice" in legend
    assert "systemone/noul: yes/no items as P(true)" in legend
    assert "mystery: the kind's own readout" in legend
    assert "chat/verbalised" not in legend and "first-token" not in legend and "-:" not in legend
    assert readout_legend([ops("x", "logprobs/first-token")]).endswith("never a zero)")
