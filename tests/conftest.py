"""Shared fixtures: draws are cached per (family, seed) for the whole session."""

from __future__ import annotations

from functools import cache

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.generate.registry import families
from decisionpivot.generate.run import FamilyDraw, draw_family

FAMILY_NAMES = [spec.name for spec in families()]


@cache
def cached_draw(name: str, seed: int = RELEASE_SEED) -> FamilyDraw:
    return draw_family(name, seed)


@pytest.fixture(params=FAMILY_NAMES)
def family_name(request: pytest.FixtureRequest) -> str:
    return request.param
