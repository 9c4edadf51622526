"""Parsing details of the folio, tabfact, logiqa2_nli, raha_* and em_* converters, on tiny inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import build_items
from decisionpivot.reconstruct.sources import SourceError, SourceFolder
from decisionpivot.reconstruct.tasks._ditto import parse_entity
from decisionpivot.reconstruct.tasks._raha import raha_normalize
from decisionpivot.reconstruct.tasks.tabfact import read_table


def test_ditto_entities_parse_into_attributes_with_empty_values_kept() -> None:
    text = "COL name VAL sony dsc w120 COL description VAL  COL price VAL 104.95 "
    assert parse_entity(text, "x") == {"name": "sony dsc w120", "description": "", "price": "104.95"}
    assert parse_entity("COL a VAL x  y  COL b VAL  ", "x") == {"a": "x  y ", "b": ""}
    for broken in ("name VAL x ", "COL a VAL x", "COL a VAL x COL a VAL y "):
        with pytest.raises(SourceError):
            parse_entity(broken, "x")


def test_em_pairs_convert_and_report_bad_lines(tmp_path: Path) -> None:
    card = all_cards()["em_walmart_amazon"]
    line = "COL title VAL a COL price VAL 1 \tCOL title VAL b COL price VAL  \t{}\n"
    (tmp_path / "test.txt").write_text(line.format(1) + line.format(0), encoding="utf-8")
    items = build_items(card, tmp_path)
    assert [i.answer for i in items] == ["match", "no_match"]
    assert items[0].state == {"left": {"title": "a", "price": "1"}, "right": {"title": "b", "price": ""}}
    (tmp_path / "test.txt").write_text(line.format(1) + "COL title VAL a \tCOL title VAL b \t0\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"test.txt:2: left entity has attributes \['title'\]"):
        build_items(card, tmp_path)


def test_raha_normaliser_follows_raha_including_its_32_run_limit() -> None:
    assert raha_normalize("  a&amp;b \t\n c ") == "a&b c"
    # Raha passes re.UNICODE (32) where re.sub expects count: only the first 32 runs are collapsed
    assert raha_normalize("x" + "  y" * 40) == "x" + " y" * 32 + "  y" * 8
    assert raha_normalize("x" + "  y" * 32) == "x" + " y" * 32


def test_raha_cells_align_by_position_and_carry_row_and_column(tmp_path: Path) -> None:
    card = all_cards()["raha_beers"]
    (tmp_path / "dirty.csv").write_text("index,beer_name,ounces\n1,Pub Beer,12.0 oz\n2, Ale ,16\n", encoding="utf-8")
    (tmp_path / "clean.csv").write_text("index,beer-name,ounces\n1,Pub Beer,12\n2,Ale,16\n", encoding="utf-8")
    items = build_items(card, tmp_path)
    assert [(i.extra["cell"]["row"], i.extra["cell"]["column"], i.answer) for i in items] == [
        (0, "index", "clean"), (0, "beer_name", "clean"), (0, "ounces", "erroneous"),
        (1, "index", "clean"), (1, "beer_name", "clean"), (1, "ounces", "clean")]
    assert items[2].state == {"row": {"index": "1", "beer_name": "Pub Beer", "ounces": "12.0 oz"}, "cell": "ounces"}
    assert items[0].group == items[2].group != items[3].group
    (tmp_path / "clean.csv").write_text("index,beer-name,ounces\n1,Pub Beer,12\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"dirty\.csv is 2x3 but clean\.csv is 1x3"):
        build_items(card, tmp_path)


def test_tabfact_tables_split_on_hash_and_reject_ragged_rows(tmp_path: Path) -> None:
    (tmp_path / "all_csv").mkdir()
    (tmp_path / "all_csv" / "t.html.csv").write_bytes(b"a#b\r\n1#2\r\n3#4\r\n")
    assert read_table(SourceFolder(tmp_path), "t.html.csv") == (["a", "b"], [["1", "2"], ["3", "4"]])
    (tmp_path / "all_csv" / "t.html.csv").write_bytes(b"a#b\r\n1#2#3\r\n")
    with pytest.raises(SourceError, match=r"t.html.csv:2: 3 cells, header has 2"):
        read_table(SourceFolder(tmp_path), "t.html.csv")


def test_folio_and_logiqa_reject_unknown_labels(tmp_path: Path) -> None:
    record = {"premises": ["p"], "premises-FOL": ["P"], "conclusion": "c", "conclusion-FOL": "C", "label": "Unknown"}
    (tmp_path / "folio-validation.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=r"folio-validation.jsonl:1: label 'Unknown'"):
        build_items(all_cards()["folio"], tmp_path)
    nli = {"label": "entailed", "major_premise": [], "minor_premise": "m", "conclusion": "c"}
    (tmp_path / "test.txt").write_text(json.dumps(nli) + "\n" + json.dumps({**nli, "label": "neutral"}) + "\n",
                                       encoding="utf-8")
    with pytest.raises(SourceError, match=r"test.txt:2: label 'neutral'"):
        build_items(all_cards()["logiqa2_nli"], tmp_path)
    (tmp_path / "test.txt").write_text(json.dumps(nli) + "\n", encoding="utf-8")
    [item] = build_items(all_cards()["logiqa2_nli"], tmp_path)
    assert item.answer == "entailed" and item.state == {"major_premise": [], "minor_premise": "m", "conclusion": "c"}
