"""Earlier core editions stay drawable: `dp generate --version 1.1` (or 1.2) gives that release byte for byte."""

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

ARCHIVED = ("1.1", "1.2")


def test_drawable_versions() -> None:
    assert editions.editions() == (*ARCHIVED, BENCHMARK_VERSION) and BENCHMARK_VERSION == "1.3"
    with pytest.raises(DecisionPivotError, match=r"drawable versions: 1\.1, 1\.2, 1\.3"):
        editions.module("1.0", "run")


@pytest.mark.parametrize("version", ARCHIVED)
def test_a_redraw_equals_its_release_in_every_file(tmp_path: Path, version: str) -> None:
    """Each archived edition drawn with the release seed gives the manifest recorded at its release (every file's
    SHA-256): 1.2 was archived when 1.3 began to change the generators (issue #38)."""
    released = json.loads((RELEASED / f"core-{version}.MANIFEST.json").read_text(encoding="utf-8"))
    assert released["version"] == version and len(released["families"]) == 13
    out = tmp_path / f"core-{version}"
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "generate", "--version", version, "--out",
                           str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"core {version}, seed {RELEASE_SEED}" in done.stdout
    assert json.loads((out / "MANIFEST.json").read_text(encoding="utf-8")) == released


def test_the_archived_generators_are_separate_from_the_current_ones() -> None:
    new = editions.module(BENCHMARK_VERSION, "registry")
    assert new.__name__ == "decisionpivot.generate.registry"
    for version, access_request in (("1.1", "1.0"), ("1.2", "1.1")):
        old = editions.module(version, "registry")
        assert old.__name__ == f"decisionpivot_core_{version.replace('.', '_')}.generate.registry"
        assert old.family("log_claim") is not new.family("log_claim")
        assert old.family("access_request").version == access_request  # as released in that edition


@pytest.mark.parametrize("version", ARCHIVED)
def test_the_archive_holds_exactly_the_release_commit_sources_with_imports_renamed(version: str) -> None:
    top = editions.package_name(version)
    with zipfile.ZipFile(editions.ARCHIVE / f"core-{version}.zip") as archive:
        names = archive.namelist()
        run = archive.read(f"{top}/generate/run.py").decode()
    assert f"{top}/generate/common/names.py" in names
    assert "decisionpivot.generate" not in run and f"from {top}.generate.registry import" in run
    assert "from decisionpivot.items import" in run  # item records are shared, their bytes are pinned


@pytest.mark.parametrize("version", ARCHIVED)
def test_archiving_is_deterministic(tmp_path: Path, version: str) -> None:
    """Needs the source checkout's git history (CI's clone has it): the archive is what the commit held."""
    repo = Path(__file__).resolve().parents[2]
    commit = editions.EDITION_COMMITS[version]
    first = editions.archive_edition(version, commit, repo, tmp_path / "a.zip")
    assert first.read_bytes() == (editions.ARCHIVE / f"core-{version}.zip").read_bytes()


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
    wanted = "error: core version '0.9' cannot be drawn; drawable versions: 1.1, 1.2, 1.3"
    assert done.stderr.strip().splitlines() == [wanted]
    assert not (tmp_path / "datasets").exists()


@pytest.mark.parametrize("version", ARCHIVED)
def test_the_current_heuristics_read_earlier_items_as_their_own_heuristics_did(version: str) -> None:
    """Baselines run on every version (benchmarks/rank_stability.py): a heuristic that cannot read the 1.1 or 1.2
    wording would make the revision look like a score change."""
    import numpy as np

    from decisionpivot.audit.run import heuristic_positions

    old, new = editions.module(version, "registry"), editions.module(BENCHMARK_VERSION, "registry")
    run = editions.module(version, "run")
    for spec in new.families():
        items = run.draw_family(spec.name, RELEASE_SEED).items
        for name, heuristic in spec.heuristics.items():
            then = heuristic_positions(old.family(spec.name).heuristics[name], items)
            assert np.array_equal(heuristic_positions(heuristic, items), then), f"{spec.name}.{name}"
