"""Where the official reference files are: ../shared/reference-sources beside the checkout, if present."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OFFICIAL = REPO.parent / "shared" / "reference-sources"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def official() -> Path:
    if not OFFICIAL.is_dir():
        pytest.skip(f"official reference files not found at {OFFICIAL} (they are not part of the package)")
    return OFFICIAL
