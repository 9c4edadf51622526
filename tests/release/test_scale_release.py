"""The released scale suite (issue 40): its shipped manifests are what `dp scale` draws again byte for byte, the items
rule accepts the release as released, and the gated release carries the suite and its framings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.item_hashes import RELEASED, released_scale
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import items_bytes, sha256_file
from decisionpivot.release.hub import build_release
from decisionpivot.release.manifest import SCALE, manifest_bytes
from decisionpivot.scale import SCALE_SEED, SCALE_VERSION
from decisionpivot.scale.framing import FRAMED_VERSION, framed_family, write_framed
from decisionpivot.scale.registry import families
from decisionpivot.scale.run import write_suite as write_scale
from tests.scale.conftest import scale_draw


@pytest.mark.parametrize("name", [spec.name for spec in families()])
def test_the_shipped_manifests_are_the_suite_drawn_again_byte_for_byte(name: str) -> None:
    import hashlib

    shipped = released_scale(SCALE_VERSION)
    framed = released_scale(FRAMED_VERSION, framed=True)
    assert shipped is not None and framed is not None
    assert shipped["families"][name]["sha256"] == hashlib.sha256(items_bytes(scale_draw(name).items)).hexdigest()
    assert shipped["families"][name]["seed"] == SCALE_SEED
    assert framed["families"][name]["sha256"] == hashlib.sha256(items_bytes(framed_family(name))).hexdigest()


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("scale-release")
    write_scale(root / "scale")
    write_framed(root / "framed")
    return root / "scale", root / "framed"


def test_the_release_is_accepted_as_released(released: tuple[Path, Path]) -> None:
    scale, framed = released
    assert (scale / "MANIFEST.json").read_bytes() == (RELEASED / f"scale-{SCALE_VERSION}.MANIFEST.json").read_bytes()
    assert (framed / "MANIFEST.json").read_bytes() == \
        (RELEASED / f"scale-invariance-{FRAMED_VERSION}.MANIFEST.json").read_bytes()
    path = scale / "support_priority.jsonl"
    assert accept_items_file(path, sha256_file(path)) == f"released scale suite {SCALE_VERSION}"
    path = framed / "listing_match.jsonl"
    assert accept_items_file(path, sha256_file(path)) == f"released scale suite {FRAMED_VERSION} framings"


def test_a_changed_file_claiming_the_release_is_refused(released: tuple[Path, Path], tmp_path: Path) -> None:
    scale, _ = released
    copy = tmp_path / "scale"
    shutil.copytree(scale, copy)
    path = copy / "reconcile_band.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([lines[1], lines[0], *lines[2:]]))
    with pytest.raises(DecisionPivotError, match="released scale suite"):
        accept_items_file(path, sha256_file(path))


def test_the_gated_release_carries_the_suite_and_its_framings(released: tuple[Path, Path], tmp_path: Path,
                                                              core_dir: Path, suite_dir: Path, cards) -> None:
    scale, framed = released
    without = build_release(core_dir, None, tmp_path / "without", cards=cards, invariance_dir=suite_dir)
    built = build_release(core_dir, None, tmp_path / "with", cards=cards, invariance_dir=suite_dir, scale_dir=scale,
                          scale_invariance_dir=framed)
    assert SCALE not in without.manifest  # a release without it keeps the manifest it had
    section = built.manifest[SCALE]
    assert section["version"] == SCALE_VERSION and section["items"] == 3000
    assert section["framings"]["items"] == 5100
    files = built.manifest["files"]
    assert files["scale/support_priority.jsonl"]["items"] == 600
    assert files["scale-invariance/support_priority.jsonl"]["items"] == 1020
    assert files["scale/MANIFEST.json"]["sha256"] == sha256_file(RELEASED / f"scale-{SCALE_VERSION}.MANIFEST.json")
    card = (built.folder / "README.md").read_text()
    assert "config_name: scale-support_priority" in card and "config_name: scale-invariance-listing_match" in card
    assert "## Scale suite (version 1.0)" in card and "3000 items in 5 families" in card
    assert "## Scale suite" not in (without.folder / "README.md").read_text()
    assert (built.folder / "MANIFEST.json").read_bytes() == manifest_bytes(built.manifest)
    other = tmp_path / "other-seed"
    write_scale(other, seed=7)
    with pytest.raises(DecisionPivotError, match=r"drawn with seed 7, not the released suite.s 20261101"):
        build_release(core_dir, None, tmp_path / "bad", cards=cards, invariance_dir=suite_dir, scale_dir=other)
    json.loads((built.folder / "MANIFEST.json").read_text())
