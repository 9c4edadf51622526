"""The independent solvers agree with every gold answer, on the release and on fresh draws."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.items import items_bytes
from decisionpivot.solve import solvers
from decisionpivot.verify.check import agreement, chance_pair_accuracy
from tests.conftest import FAMILY_NAMES, cached_draw

FRESH_SEEDS = list(range(1, 21))
SOLVE_DIR = Path(__file__).resolve().parents[2] / "src" / "decisionpivot" / "solve"


def test_every_family_has_a_solver() -> None:
    assert set(FAMILY_NAMES) <= set(solvers())


def test_solvers_never_import_the_generators() -> None:
    for path in SOLVE_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["." * node.level + (node.module or "")]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert "generate" not in name, f"{path.name} imports {name}"


def test_release_agreement(family_name: str) -> None:
    result = agreement(family_name, cached_draw(family_name).items)
    assert result.disagreements == (), result.disagreements[:5]


@cache
def _release_bytes(family_name: str) -> bytes:
    return items_bytes(cached_draw(family_name, RELEASE_SEED).items)


def _fresh_draw_differs_and_agrees(family_name: str, seed: int) -> None:
    fresh = cached_draw(family_name, seed)
    assert items_bytes(fresh.items) != _release_bytes(family_name)
    result = agreement(family_name, fresh.items)
    assert result.disagreements == (), result.disagreements[:5]


# Two classes, one per half of the seeds: `-n 2` hands out a class as a unit (pytest-xdist's loadscope), so the
# 260 fresh draws (about three minutes) run on both workers instead of on one.
class TestFreshDrawsFirstHalf:
    @pytest.mark.parametrize("seed", FRESH_SEEDS[: len(FRESH_SEEDS) // 2])
    def test_fresh_draw_differs_and_agrees(self, family_name: str, seed: int) -> None:
        _fresh_draw_differs_and_agrees(family_name, seed)


class TestFreshDrawsSecondHalf:
    @pytest.mark.parametrize("seed", FRESH_SEEDS[len(FRESH_SEEDS) // 2:])
    def test_fresh_draw_differs_and_agrees(self, family_name: str, seed: int) -> None:
        _fresh_draw_differs_and_agrees(family_name, seed)


def test_chance_pair_accuracy_of_a_known_structure() -> None:
    from decisionpivot.items import Item, Option

    def item(i: int, group: str, k: int) -> Item:
        opts = tuple(Option(f"o{j}", "") for j in range(k))
        return Item(f"f:{i}", "f", "A", "1", group, 1, None, None, "s", "q", opts, "o0")

    items = [item(0, "f:g0", 2), item(1, "f:g0", 2), item(2, "f:g1", 3), item(3, "f:g1", 3), item(4, "f:g1", 3)]
    assert chance_pair_accuracy(items) == pytest.approx((1 / 4 + 1 / 27) / 2)
