"""Route rules over licence metadata, and the review table."""

from __future__ import annotations

import pytest

from decisionpivot.licenses.routes import RECONSTRUCT_ONLY, REDISTRIBUTE, decide_route, review_markdown
from decisionpivot.reconstruct.card import License, all_cards


def terms(license_class: str, redistribution: str = "allowed") -> License:
    return License("X", "X", license_class, redistribution, "cite")


@pytest.mark.parametrize(
    ("license_class", "redistribution", "route", "reason"),
    [
        ("permissive", "allowed", REDISTRIBUTE, "permissive"),
        ("share-alike", "share-alike", RECONSTRUCT_ONLY, "share-alike"),
        ("permissive", "share-alike", RECONSTRUCT_ONLY, "share-alike"),
        ("non-commercial", "allowed", RECONSTRUCT_ONLY, "non-commercial"),
        ("research-only", "allowed", RECONSTRUCT_ONLY, "research-only"),
        ("mixed", "allowed", RECONSTRUCT_ONLY, "mixed"),
        ("unstated", "unstated", RECONSTRUCT_ONLY, "unstated"),
        ("permissive", "to-verify", RECONSTRUCT_ONLY, "not yet verified"),
        ("permissive", "not-allowed", RECONSTRUCT_ONLY, "not allowed"),
    ],
)
def test_route_rules(license_class: str, redistribution: str, route: str, reason: str) -> None:
    decision = decide_route(terms(license_class, redistribution))
    assert decision.route == route and reason in decision.reason


def test_cards_record_the_route_the_rules_give() -> None:
    for task, card in all_cards().items():
        assert card.route == decide_route(card.license).route, task


def test_review_lists_every_task_and_counts() -> None:
    text = review_markdown(all_cards())
    for task in all_cards():
        assert f"| {task} |" in text
    assert "| route | tasks |" in text and "| licence class | tasks |" in text
