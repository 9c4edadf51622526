"""Shared fixtures: draws are cached per (family, seed) for the whole session."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import decisionpivot
from decisionpivot import RELEASE_SEED
from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import Group, GroupPlan
from decisionpivot.generate.registry import families, family
from decisionpivot.generate.run import FamilyDraw, draw_family
from decisionpivot.items import Item

FAMILY_NAMES = [spec.name for spec in families()]


PACKAGE_DATA = ("released", "reconstruct/cards", "release/expected_manifest.json")
"""The package's recorded hashes, which maintainers' commands write (`--record-manifest`, `--record`)."""


def _recorded_hashes() -> dict[str, str]:
    root = Path(decisionpivot.__file__).resolve().parent
    paths = [p for name in PACKAGE_DATA for p in ([root / name] if (root / name).is_file()
                                                   else sorted((root / name).rglob("*")))]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


@pytest.fixture(scope="session", autouse=True)
def package_records_untouched() -> Iterator[None]:
    """No test may rewrite the hashes the package ships (a test once recorded its synthetic core as release 1.1)."""
    before = _recorded_hashes()
    yield
    changed = sorted(path for path, digest in _recorded_hashes().items() if before.get(path) != digest)
    assert not changed, f"tests changed the package's recorded hashes: {changed}"


@cache
def cached_draw(name: str, seed: int = RELEASE_SEED) -> FamilyDraw:
    return draw_family(name, seed)


@cache
def built_groups(name: str, seed: int = RELEASE_SEED) -> tuple[tuple[GroupPlan, Group], ...]:
    """A draw's groups rebuilt with their structured cases (same seeds as the draw), by level and index."""
    spec = family(name)
    config = spec.config_type()
    plans = sorted(spec.plan(config), key=lambda p: (p.level, p.index))
    return tuple((p, spec.build_group(p, group_rng(name, seed, p.level, p.index), config)) for p in plans)


def items_by_group(name: str, seed: int = RELEASE_SEED) -> dict[str, list[Item]]:
    """A draw's items by contrast group, in file order."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in cached_draw(name, seed).items:
        groups[item.group or item.id].append(item)
    return dict(groups)


@pytest.fixture(params=FAMILY_NAMES)
def family_name(request: pytest.FixtureRequest) -> str:
    return request.param
