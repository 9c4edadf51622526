"""Item schema, validation messages (file, line, field) and deterministic writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from decisionpivot.items import Item, ItemError, Option, item_from_dict, read_items, write_items

GOOD = {
    "id": "demo:00000", "family": "demo", "layer": "A", "version": "1.1", "group": "demo:g0000",
    "level": 1, "variation": None, "domain": "retail", "state": "Ünïcode state", "question": "Q?",
    "options": [{"key": "yes", "meaning": "y"}, {"key": "no", "meaning": "n"}], "answer": "yes",
}


def write_lines(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_round_trip_is_byte_stable(tmp_path: Path) -> None:
    item = item_from_dict(GOOD)
    digest = write_items(tmp_path / "a.jsonl", [item])
    again = write_items(tmp_path / "b.jsonl", read_items(tmp_path / "a.jsonl"))
    assert digest == again
    line = (tmp_path / "a.jsonl").read_bytes().decode("utf-8")
    assert line.endswith("\n") and "Ünïcode" in line
    assert list(json.loads(line)) == list(GOOD)


def test_extra_keys_follow_in_sorted_order(tmp_path: Path) -> None:
    item = Item(**{**item_from_dict(GOOD).__dict__, "extra": {"zeta": 1, "query": "q7"}})
    write_items(tmp_path / "x.jsonl", [item])
    keys = list(json.loads((tmp_path / "x.jsonl").read_text()))
    assert keys[-2:] == ["query", "zeta"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"answer": "maybe"}, "answer"),
        ({"level": 4}, "level"),
        ({"layer": "H"}, "layer"),
        ({"id": "other:00000"}, "id"),
        ({"options": [{"key": "yes", "meaning": "y"}]}, "options"),
        ({"options": [{"key": "yes", "meaning": "y"}, {"key": "yes", "meaning": "n"}]}, "options"),
        ({"options": [{"key": "yes"}, {"key": "no", "meaning": "n"}]}, "options[0]"),
        ({"state": ""}, "state"),
    ],
)
def test_validation_names_file_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = write_lines(tmp_path / "bad.jsonl", [GOOD, {**GOOD, "id": "demo:00001", **change}])
    with pytest.raises(ItemError) as err:
        read_items(path)
    message = str(err.value)
    assert f"{path}:2" in message and f"field {field!r}" in message


def test_missing_field_malformed_json_duplicate_and_truncation(tmp_path: Path) -> None:
    record = dict(GOOD)
    del record["question"]
    with pytest.raises(ItemError, match=r"bad\.jsonl:1: missing field\(s\) question"):
        read_items(write_lines(tmp_path / "bad.jsonl", [record]))
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(GOOD) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ItemError, match=r"broken\.jsonl:2: not valid JSON"):
        read_items(broken)
    with pytest.raises(ItemError, match=r"dup\.jsonl:2: duplicate id 'demo:00000' \(first on line 1\)"):
        read_items(write_lines(tmp_path / "dup.jsonl", [GOOD, GOOD]))
    torn = tmp_path / "torn.jsonl"
    torn.write_text(json.dumps(GOOD), encoding="utf-8")
    with pytest.raises(ItemError, match="not terminated by a newline"):
        read_items(torn)


def test_options_keep_their_order() -> None:
    item = item_from_dict({**GOOD, "options": [{"key": "no", "meaning": "n"}, {"key": "yes", "meaning": "y"}]})
    assert item.options == (Option("no", "n"), Option("yes", "y"))
