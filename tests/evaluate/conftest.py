"""Fixtures for evaluation tests: a small items folder of real core items."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.generate.run import write_family_files

FAMILY = "fact_answerable"

TIMING = ("latency_s", "queued_s")
"""The fields of an HTTP record measured by the clock: two runs of the same answers differ only there (a loaded
machine queues some requests a millisecond longer)."""


@pytest.fixture(scope="session")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny random checkpoint of every architecture (``tiny_decider.py``), built once per session for the
    in-process ``decision`` kind and ``transformers serve`` alike (each test module used to build its own)."""
    from tests.evaluate.tiny_decider import ARCHITECTURES, build_tiny_decider

    root = tmp_path_factory.mktemp("checkpoints")
    return {name: build_tiny_decider(root / name, name) for name in ARCHITECTURES}


@pytest.fixture(scope="session")
def items_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("items")
    write_family_files(folder, RELEASE_SEED, [FAMILY])
    return folder
