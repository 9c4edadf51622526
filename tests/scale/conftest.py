"""Shared helpers of the scale suite's tests: draws and built groups cached per (family, seed) for the process."""

from __future__ import annotations

from collections import defaultdict
from functools import cache

from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import Group, GroupPlan
from decisionpivot.generate.run import FamilyDraw
from decisionpivot.items import Item
from decisionpivot.scale import SCALE_SEED
from decisionpivot.scale.registry import family
from decisionpivot.scale.run import draw_family


@cache
def scale_draw(name: str, seed: int = SCALE_SEED) -> FamilyDraw:
    """One family of the scale suite drawn with ``seed`` (the release seed by default)."""
    return draw_family(name, seed)


@cache
def scale_groups(name: str, seed: int = SCALE_SEED) -> tuple[tuple[GroupPlan, Group], ...]:
    """A draw's groups rebuilt with their structured cases (same seeds as the draw), by level and index."""
    spec = family(name)
    config = spec.config_type()
    plans = sorted(spec.plan(config), key=lambda p: (p.level, p.index))
    return tuple((p, spec.build_group(p, group_rng(name, seed, p.level, p.index), config)) for p in plans)


def items_by_group(name: str, seed: int = SCALE_SEED) -> dict[str, list[Item]]:
    """A draw's items by contrast group, in file order."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in scale_draw(name, seed).items:
        groups[item.group or item.id].append(item)
    return dict(groups)
