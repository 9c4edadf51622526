"""Earlier core editions stay drawable: `dp generate --version 1.1` gives the 1.1 release byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.errors import DecisionPivotError
from decisionpivot.generate import editions
from decisionpivot.item_hashes import RELEASED

RELEASED_1_1 = RELEASED / "core-1.1.MANIFEST.json"


def test_drawable_versions() -> None:
    assert editions.editions() == ("1.1", BENCHMARK_VERSION) and BENCHMARK_VERSION == "1.2"
    with pytest.raises(DecisionPivotError, match=r"drawable versions: 1\.1, 1\.2"):
        editions.module("1.0", "run")


def test_the_1_1_redraw_equals_the_1_1_release_in_every_file(tmp_path: Path) -> None:
    released = json.loads(RELEASED_1_1.read_text(encoding="utf-8"))
    assert released["version"] == "1.1" and len(released["families"]) == 13
    out = tmp_path / "core-1.1"
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "generate", "--version", "1.1", "--out",
                           str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"core 1.1, seed {RELEASE_SEED}" in done.stdout
    assert json.loads((out / "MANIFEST.json").read_text(encoding="utf-8")) == released


def test_the_1_1_generators_are_separate_from_the_current_ones() -> None:
    old, new = editions.module("1.1", "registry"), editions.module(BENCHMARK_VERSION, "registry")
    assert old.__name__ == "decisionpivot_core_1_1.generate.registry"
    assert new.__name__ == "decisionpivot.generate.registry"
    assert old.family("log_claim") is not new.family("log_claim")
    assert old.family("access_request").version == "1.0"  # as released in 1.1


def test_the_archive_holds_exactly_the_release_commit_sources_with_imports_renamed() -> None:
    with zipfile.ZipFile(editions.ARCHIVE / "core-1.1.zip") as archive:
        names = archive.namelist()
        run = archive.read("decisionpivot_core_1_1/generate/run.py").decode()
    assert "decisionpivot_core_1_1/generate/common/names.py" in names
    assert "decisionpivot.generate" not in run and "from decisionpivot_core_1_1.generate.registry import" in run
    assert "from decisionpivot.items import" in run  # item records are shared, their bytes are pinned


def test_archiving_is_deterministic(tmp_path: Path) -> None:
    """Needs the source checkout's git history (CI's clone has it): the archive is what the commit held."""
    repo = Path(__file__).resolve().parents[2]
    commit = editions.EDITION_COMMITS["1.1"]
    first = editions.archive_edition("1.1", commit, repo, tmp_path / "a.zip")
    assert first.read_bytes() == (editions.ARCHIVE / "core-1.1.zip").read_bytes()


def test_fresh_draws_of_an_earlier_version_have_their_own_folder(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "generate", "--version", "1.1", "--seed", "7",
                           "--families", "log_claim"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "datasets/fresh/1.1/seed-7/MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["version"] == "1.1" and manifest["families"]["log_claim"]["seed"] == 7


def test_an_unknown_version_is_one_line_and_exit_1(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "generate", "--version", "0.9"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode != 0
    wanted = "error: core version '0.9' cannot be drawn; drawable versions: 1.1, 1.2"
    assert done.stderr.strip().splitlines() == [wanted]
    assert not (tmp_path / "datasets").exists()


def test_the_current_heuristics_read_1_1_items_as_the_1_1_heuristics_did() -> None:
    """Baselines run on both versions (benchmarks/rank_stability.py): a heuristic that cannot read the 1.1
    wording would make the revision look like a score change."""
    import numpy as np

    from decisionpivot.audit.run import heuristic_positions

    old, new = editions.module("1.1", "registry"), editions.module(BENCHMARK_VERSION, "registry")
    run = editions.module("1.1", "run")
    for spec in new.families():
        items = run.draw_family(spec.name, RELEASE_SEED).items
        for name, heuristic in spec.heuristics.items():
            then = heuristic_positions(old.family(spec.name).heuristics[name], items)
            assert np.array_equal(heuristic_positions(heuristic, items), then), f"{spec.name}.{name}"
