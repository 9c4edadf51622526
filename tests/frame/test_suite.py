"""The released suite: byte for byte from the release and the seed, whole groups, every framing, ~7,800 items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

import decisionpivot
from decisionpivot import RELEASE_SEED
from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import FRAMINGS, HOMOGLYPHS, SUITE_VERSION, TYPOS, YES_NO_ONLY
from decisionpivot.frame.suite import SUITE_SEED, sample_groups, write_suite
from decisionpivot.generate.run import rebuild_manifest
from decisionpivot.items import Item, read_items, sha256_file, write_items

RELEASED = Path(decisionpivot.__file__).parent / "released" / f"invariance-{SUITE_VERSION}.MANIFEST.json"


def test_redraw_gives_the_released_suite_byte_for_byte(suite_folder: Path) -> None:
    """The manifest names the SHA-256 of every file, so equal manifests mean equal bytes."""
    assert (suite_folder / "MANIFEST.json").read_bytes() == RELEASED.read_bytes()
    manifest = json.loads(RELEASED.read_text(encoding="utf-8"))
    for entry in manifest["families"].values():
        assert sha256_file(suite_folder / entry["file"]) == entry["sha256"]


def test_manifest_names_the_core_it_was_drawn_from(suite_folder: Path, core_folder: Path) -> None:
    manifest = json.loads((suite_folder / "MANIFEST.json").read_text(encoding="utf-8"))
    released_core = RELEASED.with_name(f"core-{manifest['core']['version']}.MANIFEST.json")
    recorded = manifest["core"]["manifest_sha256"]
    assert recorded == sha256_file(released_core) == sha256_file(core_folder / "MANIFEST.json")
    assert manifest["seed"] == SUITE_SEED and manifest["version"] == SUITE_VERSION
    assert manifest["framings"] == list(FRAMINGS)


def test_command_line_redraw_under_another_hash_seed(suite_folder: Path, core_folder: Path, tmp_path: Path) -> None:
    """`dp frame` in a fresh process with another PYTHONHASHSEED writes the same bytes."""
    env = {**os.environ, "PYTHONHASHSEED": "12345", "LC_ALL": "C"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(decisionpivot.__file__).parents[1]), env.get("PYTHONPATH", "")])
    out = tmp_path / "again"
    subprocess.run([sys.executable, "-m", "decisionpivot.cli", "frame", "--items", str(core_folder), "--out", str(out)],
                   check=True, env=env, capture_output=True)
    names = sorted(p.name for p in suite_folder.iterdir())
    assert sorted(p.name for p in out.iterdir()) == names
    for name in names:
        assert (out / name).read_bytes() == (suite_folder / name).read_bytes(), name


def test_suite_size_keeps_the_main_job_in_minutes(suite: dict[str, list[Item]]) -> None:
    """About 5,700 items (suite 1.0 had 7,758): BASE_ITEMS_PER_FAMILY whole groups' worth per family."""
    total = sum(len(items) for items in suite.values())
    assert len(suite) == 13
    assert 5_400 <= total <= 6_000


def test_whole_groups_every_member_every_framing(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    core_groups: dict[str, set[str]] = defaultdict(set)
    for item in core.values():
        core_groups[item.group or item.id].add(item.id)
    for family, items in suite.items():
        bases = list(dict.fromkeys(i.extra["base"] for i in items))
        assert bases == sorted(bases), f"{family}: items are ordered by base id"
        chosen = {core[b].group for b in bases}
        assert {b for g in chosen for b in core_groups[g]} == set(bases), f"{family}: only whole groups"
        for base in bases:
            framings = [i.extra["framing"] for i in items if i.extra["base"] == base]
            yes_no = core[base].option_keys == ("yes", "no")
            expected = [f for f in FRAMINGS if yes_no or f not in YES_NO_ONLY]
            if family == "record_rule":  # a batch whose state has no prose word to change has no typos/homoglyphs
                expected = [f for f in expected if f in framings or f not in (TYPOS, HOMOGLYPHS)]
            assert framings == expected, base
        levels = Counter(core[b].level for b in bases)
        assert set(levels) == {1, 2, 3}, f"{family}: every level is sampled"


def test_framed_items_keep_the_base_item_fields(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    for items in suite.values():
        for item in items:
            base = core[item.extra["base"]]
            assert item.id == f"{base.id}~{item.extra['framing']}"
            assert item.version == SUITE_VERSION
            for name in ("family", "layer", "group", "level", "variation", "domain"):
                assert getattr(item, name) == getattr(base, name), (item.id, name)


def test_a_fresh_seed_draws_other_groups(core_folder: Path, tmp_path: Path) -> None:
    manifest = write_suite(core_folder, tmp_path, seed=7, families=["log_claim", "policy_case"])
    assert manifest["seed"] == 7 and list(manifest["families"]) == ["log_claim", "policy_case"]
    for name in ("log_claim", "policy_case"):
        items = read_items(core_folder / f"{name}.jsonl")
        assert sample_groups(items, 7) != sample_groups(items, SUITE_SEED)
        assert {i.group for i in read_items(tmp_path / f"{name}.jsonl")} == set(sample_groups(items, 7))


def test_sample_takes_whole_groups_until_enough_base_items(core_folder: Path) -> None:
    items = read_items(core_folder / "record_rule.jsonl")  # groups of four
    chosen = sample_groups(items, SUITE_SEED, base_items=10)
    assert len(chosen) == 3
    assert sum(1 for i in items if i.group in chosen) == 12


def test_params_name_the_released_suite() -> None:
    root = Path(__file__).resolve().parents[2]
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))["frame"]
    assert {k: params[k] for k in ("seed", "version")} == {"seed": SUITE_SEED, "version": SUITE_VERSION}


def test_items_the_generators_did_not_draw_are_refused(core_folder: Path, tmp_path: Path) -> None:
    """The items must be the generators' draw: an edited state is refused before anything is written (the rule of
    every verb, decisionpivot.item_origin), and even with --allow-modified-items the irrelevant text, kept clear of
    the decisive values of the rebuilt groups, refuses it with the group named, not framed."""
    items = read_items(core_folder / "log_claim.jsonl")
    target = sample_groups(items, SUITE_SEED)[0]
    edited = [i if i.group != target else Item(**{**i.__dict__, "state": f"{i.state}\nEdited."}) for i in items]
    core = tmp_path / "core"
    write_items(core / "log_claim.jsonl", edited)
    rebuild_manifest(core, RELEASE_SEED)
    with pytest.raises(DecisionPivotError, match=r"log_claim.jsonl: SHA-256 \w+ is not \w+, the log_claim items the "
                                                 r"package's released core"):
        write_suite(core, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    with pytest.raises(DecisionPivotError, match=f"group {target} of the items is not what"):
        write_suite(core, tmp_path / "out", allow_modified_items=True)


def test_command_line_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["frame", "--items", str(tmp_path), "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert "no MANIFEST.json" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["frame", "--version", "2.0", "--items", str(tmp_path)])
    assert stop.value.code == 2
    assert f"writes invariance suite {SUITE_VERSION}, not '2.0'" in capsys.readouterr().err


def test_the_suite_never_overwrites_the_core(core_folder: Path) -> None:
    before = sha256_file(core_folder / "MANIFEST.json")
    with pytest.raises(DecisionPivotError, match="would overwrite the core items"):
        write_suite(core_folder, core_folder / ".." / core_folder.name)
    assert sha256_file(core_folder / "MANIFEST.json") == before
