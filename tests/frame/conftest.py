"""The release core written once per session, and the invariance suite drawn from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.frame.suite import write_suite
from decisionpivot.generate.registry import families
from decisionpivot.generate.run import rebuild_manifest
from decisionpivot.items import Item, read_items, write_items
from tests.conftest import cached_draw


@pytest.fixture(scope="session")
def core_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The released core items (the session's cached draws), with their manifest."""
    folder = tmp_path_factory.mktemp("core")
    for spec in families():
        write_items(folder / f"{spec.name}.jsonl", cached_draw(spec.name).items)
    rebuild_manifest(folder, RELEASE_SEED, benchmark_version=BENCHMARK_VERSION)
    return folder


@pytest.fixture(scope="session")
def suite_folder(core_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The released invariance suite, drawn from the core with the release's suite seed."""
    folder = tmp_path_factory.mktemp("invariance")
    write_suite(core_folder, folder)
    return folder


@pytest.fixture(scope="session")
def suite(suite_folder: Path) -> dict[str, list[Item]]:
    """Family -> its framed items."""
    return {path.stem: read_items(path) for path in sorted(suite_folder.glob("*.jsonl"))}


@pytest.fixture(scope="session")
def core(core_folder: Path) -> dict[str, Item]:
    """Core item id -> item."""
    return {item.id: item for path in sorted(core_folder.glob("*.jsonl")) for item in read_items(path)}
