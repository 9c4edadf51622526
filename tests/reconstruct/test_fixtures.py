"""Tasks without official files here convert a small fixture written in their exact official format."""

from __future__ import annotations

from collections import Counter

from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import build_items
from tests.reconstruct.conftest import FIXTURES


def test_squad2_answerability_fixture_converts() -> None:
    items = build_items(all_cards()["squad2_answerability"], FIXTURES / "squad2_answerability")
    assert len(items) == 5 and Counter(i.answer for i in items) == {"answerable": 3, "unanswerable": 2}
    assert items[0].state["question"] == "In what country is Normandy located?"
    assert items[0].extra["source_id"] == "56ddde6b9a695914005b9628" and items[0].id == "squad2_answerability:00000"


def test_strategyqa_fixture_converts() -> None:
    items = build_items(all_cards()["strategyqa"], FIXTURES / "strategyqa")
    assert [i.answer for i in items] == ["no", "yes", "yes"]
    assert "facts" not in items[0].state and items[0].state["term"] == "Albany, Georgia"


def test_truthfulqa_mc1_fixture_converts_with_shuffled_choices() -> None:
    card = all_cards()["truthfulqa_mc1"]
    items = build_items(card, FIXTURES / "truthfulqa_mc1")
    assert [len(i.options) for i in items] == [4, 3]
    for item in items:
        gold = next(o for o in item.options if o.key == item.answer)
        assert gold.meaning.startswith(("Nauru", "People in the US have the shortest"))
    assert build_items(card, FIXTURES / "truthfulqa_mc1") == items  # the shuffle is seeded
