"""Every task whose official files are available is rebuilt with its counts and hashes checked."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from decisionpivot.items import read_items
from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import ReconstructionError, reconstruct_task
from decisionpivot.reconstruct.scoring import chance_for
from tests.reconstruct.conftest import OFFICIAL

CARDS = all_cards()
"""Read once at collection (every worker collects every module: a call per parameter cost seconds each)."""
LOCAL = [t for t, c in CARDS.items() if (OFFICIAL / t).is_dir() and not c.needs_sampled_answers]


@pytest.mark.parametrize("task", LOCAL)
def test_official_reconstruction_matches_the_card(task: str, official: Path, tmp_path: Path) -> None:
    card = all_cards()[task]
    assert card.verified, f"{task}: official files are available, so the card must record verified hashes"
    result = reconstruct_task(task, official, tmp_path)
    assert (result.items, result.sha256) == (card.expected_items, card.expected_sha256)
    items = read_items(result.path)
    assert len(items) <= max(card.target, 1) and {i.layer for i in items} == {card.layer}
    assert all(i.answer in i.option_keys for i in items if i.answer is not None)


VERIFIED_LOCAL = [t for t in LOCAL if CARDS[t].verified]


@pytest.mark.parametrize("task", VERIFIED_LOCAL)
def test_chance_recorded_on_the_card_is_the_one_computed_on_the_items(task: str, official: Path,
                                                                      tmp_path: Path) -> None:
    """The card's chance.on_items is what the scorer computes on the rebuilt items, and no verified task is
    (nearly) one class: a baseline above 0.9 leaves too little range for chance-corrected scores."""
    card = all_cards()[task]
    items = read_items(reconstruct_task(task, official, tmp_path).path)
    assert card.chance_on_items is not None, f"{task}: record chance.on_items (dp reconstruct {task} --record)"
    assert round(chance_for(card, items), 4) == card.chance_on_items
    assert card.chance_on_items <= 0.9
    shares = Counter(i.answer for i in items)
    assert max(shares.values()) / len(items) <= 0.9, (task, shares)


def test_truthfulqa_mc1_is_the_original_817_question_release(official: Path, tmp_path: Path) -> None:
    card = all_cards()["truthfulqa_mc1"]
    assert [f.path for f in card.files] == ["v1/mc_task.json"] and card.verified
    items = read_items(reconstruct_task("truthfulqa_mc1", official, tmp_path).path)
    assert len(items) == 817 == len({i.extra["source_index"] for i in items})
    assert {len(i.options) for i in items} == set(range(2, 14))
    assert any("790" in caveat and "not" in caveat.lower() for caveat in card.caveats)
    # The January 2025 revision (790 questions) in place of v1 is refused, naming the file and both hashes.
    folder = tmp_path / "src" / "truthfulqa_mc1"
    (folder / "v1").mkdir(parents=True)
    shutil.copy(official / "truthfulqa_mc1" / "mc_task.json", folder / "v1" / "mc_task.json")
    with pytest.raises(ReconstructionError, match=r"v1/mc_task\.json: SHA-256 c90d8534.*expected b3799639"):
        reconstruct_task("truthfulqa_mc1", tmp_path / "src", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_bfcl_relevance_is_balanced_within_every_stratum(official: Path, tmp_path: Path) -> None:
    items = read_items(reconstruct_task("bfcl_relevance", official, tmp_path).path)
    assert Counter(i.answer for i in items) == {"call": 500, "abstain": 500}
    cells = Counter((i.variation, i.answer) for i in items)
    for stratum in {i.variation for i in items}:
        assert cells[(stratum, "call")] == cells[(stratum, "abstain")] > 0, stratum
    # The number of functions offered and the origin tell nothing about the answer.
    assert {i.variation for i in items} == {"live/one_function", "live/several_functions", "non_live/one_function"}
    assert Counter(i.domain for i in items if i.answer == "call")["live_relevance"] == 16
