"""Capability-boundary tasks: grading edge cases, success-rate labels, and skipping without sampled answers."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from decisionpivot.items import items_bytes
from decisionpivot.reconstruct import run
from decisionpivot.reconstruct.capability import (
    brier_skill_chance,
    grade_gsm8k,
    grade_nq_open,
    gsm8k_gold,
    last_number,
    normalize_answer,
    normalize_number,
)
from decisionpivot.reconstruct.card import SourceFile, all_cards
from decisionpivot.reconstruct.run import (
    MissingInputError,
    ReconstructionError,
    build_items,
    reconstruct_all,
    reconstruct_task,
)
from decisionpivot.reconstruct.sources import SourceError
from tests.reconstruct.conftest import FIXTURES

GSM8K_ANSWERS = FIXTURES / "capb_sampled_answers_gsm8k.jsonl"
NQ_ANSWERS = FIXTURES / "capb_sampled_answers_nq_open.jsonl"


# ---------------------------------------------------------------- grading

@pytest.mark.parametrize(
    ("text", "expected"),
    [("$1,450,000", "1450000"), ("18.0", "18"), (" 18.00 ", "18"), ("-0.50", "-0.5"), ("2,125", "2125"),
     ("7.", "7"), ("\u221212", "-12"), ("abc", None), ("", None), ("$", None)],
)
def test_normalize_number(text: str, expected: str | None) -> None:
    assert normalize_number(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("The answer is 18.", "18"), ("It costs $1,250.00 in total", "1250"), ("It takes 2-3 days", "3"),
     ("The temperature is -5 degrees", "-5"), ("pi is about 3.14.", "3.14"), ("first 12 then 7, final", "7"),
     ("#### 42", "42"), ("no number here", None), ("", None), ("x2", "2"), ("costs .5 dollars", "0.5")],
)
def test_last_number(text: str, expected: str | None) -> None:
    assert last_number(text) == expected


def test_gsm8k_gold_and_grading() -> None:
    assert gsm8k_gold("He has 20 - 2 = <<20-2=18>>18 left.\n#### 18") == "18"
    assert gsm8k_gold("... 1,000 + 250 = 1,250\n#### 1,250") == "1250"
    with pytest.raises(ValueError, match="no '####'"):
        gsm8k_gold("no final answer")
    with pytest.raises(ValueError, match="not a number"):
        gsm8k_gold("#### eighteen")
    assert grade_gsm8k("So she makes $18 every day.", "18")
    assert grade_gsm8k("18.0", "18") and grade_gsm8k("The answer is 18.00", "18")
    assert grade_gsm8k("1,250", "1250") and grade_gsm8k("0.50", "0.5")
    assert not grade_gsm8k("18 eggs, 3 each, total 54", "18")  # the LAST number counts
    assert not grade_gsm8k("I cannot tell", "18")
    assert not grade_gsm8k("-18", "18")


def test_nq_open_normalisation_and_grading() -> None:
    assert normalize_answer("The  Beatles!") == "beatles"
    assert normalize_answer("A Tale of Two Cities") == "tale of two cities"
    assert normalize_answer("an apple, the end") == "apple end"
    assert normalize_answer("Theater") == "theater"  # articles only as whole words
    assert grade_nq_open("the Beatles.", ["Beatles", "The Fab Four"])
    assert grade_nq_open("fab four", ["Beatles", "The Fab Four"])  # any gold answer
    assert not grade_nq_open("The Beatles were the band", ["Beatles"])  # exact match, not containment
    assert grade_nq_open("Ro\u0308ntgen", ["R\u00f6ntgen"])  # NFD: composed and decomposed accents agree
    assert grade_nq_open("14 December 1972", ["14 December 1972 UTC", "December 1972"]) is False
    assert grade_nq_open("december, 1972", ["14 December 1972 UTC", "December 1972"])


def test_brier_skill_chance_is_one_minus_variance() -> None:
    assert brier_skill_chance([0.0, 1.0]) == pytest.approx(0.75)
    assert brier_skill_chance([0.5, 0.5, 0.5]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        brier_skill_chance([])


# ---------------------------------------------------------------- labels from the fixtures

def labels(items: list) -> list[tuple[str, str | dict, float, int]]:
    return [(i.extra["question_id"], i.state, i.extra["success_rate"], i.extra["samples"]) for i in items]


def test_capb_gsm8k_fixture_converts() -> None:
    card = all_cards()["capb_gsm8k"]
    items = build_items(card, FIXTURES / "capb_gsm8k", sampled_answers=str(GSM8K_ANSWERS))
    got = labels(items)
    assert [(q, s, n) for q, _, s, n in got] == [("gsm8k-0000", 0.5, 4), ("gsm8k-0001", pytest.approx(2 / 3), 3),
                                                 ("gsm8k-0002", 0.0, 2)]
    assert got[1][1].startswith("Tom has 20 apples")  # the question as state
    assert [i.id for i in items] == ["capb_gsm8k:00000", "capb_gsm8k:00001", "capb_gsm8k:00002"]
    for item in items:
        assert item.answer is None and item.option_keys == ("success", "failure") and item.layer == "A"
    # the nq_open line in the file is ignored; gsm8k-0003 has no samples and is no item
    assert items_bytes(items) == items_bytes(build_items(card, FIXTURES / "capb_gsm8k",
                                                         sampled_answers=str(GSM8K_ANSWERS)))


def test_capb_nq_open_fixture_converts() -> None:
    card = all_cards()["capb_nq_open"]
    items = build_items(card, FIXTURES / "capb_nq_open", sampled_answers=str(NQ_ANSWERS))
    got = labels(items)
    assert [(q, s, n) for q, _, s, n in got] == [("nq_open-0000", 0.75, 4), ("nq_open-0001", pytest.approx(2 / 3), 3),
                                                 ("nq_open-0002", 1.0, 1)]
    assert got[0][1] == "who wrote the novel the silent orchard"
    assert all(i.answer is None and i.option_keys == ("success", "failure") for i in items)
    record = json.loads(items_bytes(items).decode().splitlines()[0])
    assert record["success_rate"] == 0.75 and record["samples"] == 4 and record["answer"] is None


def write(tmp_path: Path, *records: object) -> str:
    path = tmp_path / "answers.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("record", "message"),
    [("{not json", "answers.jsonl:1: not valid JSON"),
     ({"question_id": 7, "model": "m", "answer": "1"}, "'question_id' should be a string"),
     ({"question_id": "gsm8k-x", "model": "m", "answer": "1"}, "is not gsm8k-<line index>"),
     ({"question_id": "gsm8k-0009", "model": "m", "answer": "1"}, "beyond the 4 questions"),
     ({"question_id": "gsm8k-0001", "model": "", "answer": "1"}, "'model' should be a non-empty string"),
     ({"question_id": "gsm8k-0001", "model": "m", "answer": None}, "'answer' should be a string")],
)
def test_malformed_sampled_answers_name_file_and_line(tmp_path: Path, record: object, message: str) -> None:
    card = all_cards()["capb_gsm8k"]
    path = write(tmp_path, record)
    with pytest.raises(SourceError, match=message.replace("(", r"\(")):
        build_items(card, FIXTURES / "capb_gsm8k", sampled_answers=path)


def test_missing_sampled_answers_say_so_plainly(tmp_path: Path) -> None:
    for task in ("capb_gsm8k", "capb_nq_open"):
        card = all_cards()[task]
        with pytest.raises(MissingInputError, match=r"needs a sampled-answers file.*--sampled-answers"):
            build_items(card, FIXTURES / task)
    # a given file without answers for the task: also skipped (the other task's answers may be there)
    only_nq = write(tmp_path, {"question_id": "nq_open-0000", "model": "m", "answer": "x"})
    with pytest.raises(MissingInputError, match="has none with ids gsm8k-"):
        build_items(all_cards()["capb_gsm8k"], FIXTURES / "capb_gsm8k", sampled_answers=only_nq)
    # a named file that does not exist is an error, not a skip
    with pytest.raises(ReconstructionError, match="not found") as err:
        build_items(all_cards()["capb_gsm8k"], FIXTURES / "capb_gsm8k", sampled_answers=str(tmp_path / "nope.jsonl"))
    assert not isinstance(err.value, MissingInputError)


def test_reconstruct_all_skips_capability_tasks_without_sampled_answers(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cards = {}
    for task in ("capb_gsm8k", "capb_nq_open"):
        shutil.copytree(FIXTURES / task, tmp_path / "src" / task)
        card = all_cards()[task]
        cards[task] = dataclasses.replace(card, files=tuple(SourceFile(f.path, None) for f in card.files))
    monkeypatch.setattr(run, "all_cards", lambda: cards)
    monkeypatch.setattr(run, "get_card", lambda task: cards[task])
    done, skipped, failed = reconstruct_all(tmp_path / "src", tmp_path / "out")
    assert done == [] and failed == {}
    assert set(skipped) == {"capb_gsm8k", "capb_nq_open"}
    for reason in skipped.values():
        assert "needs a sampled-answers file" in reason and "--sampled-answers" in reason
    assert not (tmp_path / "out").exists()
    done, skipped, failed = reconstruct_all(tmp_path / "src", tmp_path / "out", sampled_answers=str(GSM8K_ANSWERS))
    # the GSM8K fixture also holds one nq_open answer, so both tasks build; neither card is verified
    assert [(r.task, r.items, r.verified) for r in done] == [("capb_gsm8k", 3, False), ("capb_nq_open", 1, False)]
    assert skipped == {} and failed == {}


def test_official_capability_tasks_are_skipped_then_built_with_answers(official: Path, tmp_path: Path) -> None:
    _, skipped, failed = reconstruct_all(official, tmp_path / "out")
    assert {"capb_gsm8k", "capb_nq_open"} <= set(skipped)
    assert "capb_gsm8k" not in failed and "capb_nq_open" not in failed
    result = reconstruct_task("capb_gsm8k", official, tmp_path / "out", sampled_answers=str(GSM8K_ANSWERS))
    lines = [json.loads(line) for line in result.path.read_text(encoding="utf-8").splitlines()]
    first = json.loads((official / "capb_gsm8k" / "test.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert len(lines) == 3 and lines[0]["state"] == first["question"] and lines[0]["question_id"] == "gsm8k-0000"
    assert all(0.0 <= r["success_rate"] <= 1.0 and r["samples"] >= 1 for r in lines)
