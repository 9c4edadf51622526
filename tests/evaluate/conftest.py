"""Fixtures for evaluation tests: a small items folder of real core items."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.generate.run import write_family_files

FAMILY = "fact_answerable"


@pytest.fixture(scope="session")
def items_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("items")
    write_family_files(folder, RELEASE_SEED, [FAMILY])
    return folder
