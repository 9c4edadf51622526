"""Fixtures for the harness tests: release items of two families (each drawn as `dp generate` draws it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.generate.run import write_family_files

FAMILIES = ("fact_answerable", "policy_case")
"""A yes/no family and a three-option one."""


@pytest.fixture(scope="session")
def release_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release items of :data:`FAMILIES` with their MANIFEST.json (checked as manifest+release)."""
    folder = tmp_path_factory.mktemp("release-items")
    write_family_files(folder, RELEASE_SEED, list(FAMILIES), benchmark_version=BENCHMARK_VERSION)
    return folder
