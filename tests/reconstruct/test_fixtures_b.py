"""Fixture tests (second batch): each task's converter on a small fixture in its exact official format."""

from __future__ import annotations

from collections import Counter

from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import build_items
from tests.reconstruct.conftest import FIXTURES


def test_proofwriter_owa_fixture_converts() -> None:
    card = all_cards()["proofwriter_owa"]
    items = build_items(card, FIXTURES / "proofwriter_owa")
    assert len(items) == 5 and [o.key for o in items[0].options] == ["true", "false", "unknown"]
    assert [i.answer for i in items] == ["true", "false", "unknown", "true", "false"]
    assert items[0].group == "proofwriter_owa:RelNeg-OWA-D5-1"
    assert items[0].state["statement"] == "The bear chases the cat."
    assert items[2].extra == {"source_id": "RelNeg-OWA-D5-1-Q3", "qdep": 0}


def test_natplan_calendar_fixture_converts() -> None:
    card = all_cards()["natplan_calendar"]
    items = build_items(card, FIXTURES / "natplan_calendar")
    assert [len(i.options) for i in items] == [8, 8]
    golds = [next(o.meaning for o in i.options if o.key == i.answer) for i in items]
    assert golds == ["Monday, 14:00 - 14:30", "Tuesday, 16:00 - 17:00"]
    for item in items:
        assert [o.key for o in item.options] == list("ABCDEFGH") and len({o.meaning for o in item.options}) == 8
    assert all(o.meaning.startswith(("Monday", "Tuesday", "Wednesday")) for o in items[1].options)
    assert items[0].extra["source_id"] == "calendar_scheduling_example_0" and "TASK:" in items[0].state["prompt"]
    assert build_items(card, FIXTURES / "natplan_calendar") == items  # candidates are seeded


def test_natplan_meeting_fixture_converts() -> None:
    card = all_cards()["natplan_meeting"]
    items = build_items(card, FIXTURES / "natplan_meeting")
    assert [len(i.options) for i in items] == [4, 2]
    gold = next(o.meaning for o in items[0].options if o.key == items[0].answer)
    assert gold == " ".join(items[0].extra["golden_plan"])  # the rendered golden plan equals the official text
    assert items[0].extra["golden_meetings"] == 2 and items[1].extra["golden_meetings"] == 1
    distractor = next(o.meaning for o in items[1].options if o.key != items[1].answer)
    assert distractor == "You start at Russian Hill at 9:00AM."  # dropping the only meeting
    assert build_items(card, FIXTURES / "natplan_meeting") == items


def test_rerank_trec_dl_fixture_converts() -> None:
    card = all_cards()["rerank_trec_dl"]
    items = build_items(card, FIXTURES / "rerank_trec_dl")
    # 19335 (4 candidates), 47923 (2), 1030303 (2); 1037496 has no grade >= 2 candidate, 99999 is unjudged
    assert Counter(i.extra["query"] for i in items) == {"19335": 4, "47923": 2, "1030303": 2}
    assert [o.key for o in card.options] == ["relevant", "not_relevant"]
    by_pid = {i.extra["source_id"]: i for i in items}
    assert by_pid["1082489"].answer == "relevant" and by_pid["1082489"].extra["grade"] == 3
    assert by_pid["109063"].answer == "not_relevant" and by_pid["109063"].extra["grade"] == 1
    assert by_pid["555"].extra["grade"] == 0 and by_pid["1965510"].answer == "relevant"
    assert by_pid["8726436"].group == "rerank_trec_dl:1030303" and by_pid["8726436"].domain == "dl20"
    assert by_pid["1965510"].state == {"query": "axon terminals or synaptic knob definition",
                                       "passage": "Axon terminals are distal terminations of the branches of an axon."}


def test_rerank_bright_fixture_converts() -> None:
    card = all_cards()["rerank_bright"]
    items = build_items(card, FIXTURES / "rerank_bright")
    first = [i for i in items if i.extra["query"] == "biology/0"]
    assert len(first) == 5 and len(items) == 11  # 6 documents; query 0 excludes bio_x
    assert [i.extra["source_id"] for i in first][:3] == ["leaf_1", "leaf_2", "tree_3"]  # gold, then BM25 order
    assert "bio_x" not in {i.extra["source_id"] for i in first}
    assert Counter(i.answer for i in items) == {"relevant": 3, "not_relevant": 8}
    assert all(i.extra["grade"] == (i.answer == "relevant") for i in items)
    assert first[0].group == "rerank_bright:biology/0" and first[0].domain == "biology"


def test_esci_match_fixture_converts() -> None:
    card = all_cards()["esci_match"]
    items = build_items(card, FIXTURES / "esci_match")
    assert [o.key for o in card.options] == ["exact", "substitute", "complement", "irrelevant"]
    assert [i.answer for i in items] == ["exact", "substitute", "complement", "irrelevant", "exact"]
    assert items[0].state == {"query": "!qscreen fence without holes",
                              "product": {"product_title": "Windscreen Privacy Fence Screen, 6' x 50'",
                                          "product_brand": "Amgo", "product_color": "Black",
                                          "product_bullet_point": "UV protected",
                                          "product_description": "<p>Heavy duty</p>"}}
    assert items[0].extra == {"source_id": "16", "product_id": "B07DXNB7P8"} and items[0].group == "esci_match:1"
    assert items[4].domain == "es" and "product_description" not in items[2].state["product"]
