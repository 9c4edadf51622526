"""Every task whose official files are available is rebuilt with its counts and hashes checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot.items import read_items
from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import reconstruct_task
from tests.reconstruct.conftest import OFFICIAL

LOCAL = [t for t, c in all_cards().items() if (OFFICIAL / t).is_dir() and not c.needs_sampled_answers]


@pytest.mark.parametrize("task", LOCAL)
def test_official_reconstruction_matches_the_card(task: str, official: Path, tmp_path: Path) -> None:
    card = all_cards()[task]
    assert card.verified, f"{task}: official files are available, so the card must record verified hashes"
    result = reconstruct_task(task, official, tmp_path)
    assert (result.items, result.sha256) == (card.expected_items, card.expected_sha256)
    items = read_items(result.path)
    assert len(items) <= max(card.target, 1) and {i.layer for i in items} == {card.layer}
    assert all(i.answer in i.option_keys for i in items if i.answer is not None)
