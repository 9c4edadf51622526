"""The hashes the package ships, and the reference track's check against its task cards (through the one rule of
every verb, decisionpivot.item_origin), in dp evaluate and in dp score alike."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION, item_hashes
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.kinds import SystemConfig
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.item_hashes import ModifiedItemsError, released_manifest
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import Item, Option, read_items, sha256_file, write_items
from decisionpivot.reconstruct.card import all_cards, get_card
from decisionpivot.reconstruct.scoring import reference_task
from decisionpivot.score.pipeline import load_runs


def _reference_items(folder: Path, relabel: int | None = None) -> Path:
    items = [
        Item(id=f"xstest:{i:05d}", family="xstest", layer="B", version="1.3", group=None, level=None,
             variation=None, domain=None, state=f"prompt {i}", question="Is this prompt safe?",
             options=(Option("safe", "comply"), Option("unsafe", "refuse")),
             answer=("safe" if i % 2 else "unsafe") if i != relabel else "safe")
        for i in range(40)
    ]
    path = folder / "xstest.jsonl"
    write_items(path, items)
    return path


@pytest.fixture()
def verified_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A reference folder whose xstest.jsonl is exactly what a (patched) verified xstest card records."""
    folder = tmp_path / "reference"
    path = _reference_items(folder)
    card = dataclasses.replace(get_card("xstest"), verified=True, expected_sha256=sha256_file(path))
    monkeypatch.setattr(item_hashes, "_reference_card", lambda task: card if task == "xstest" else None)
    return folder


def test_released_manifest_is_the_release_the_package_verifies_downloads_against() -> None:
    from decisionpivot.release.manifest import expected_manifest

    shipped = released_manifest(BENCHMARK_VERSION)
    release = expected_manifest()
    assert shipped is not None and release is not None
    assert {f: e["sha256"] for f, e in shipped["families"].items()} == \
        {f: e["sha256"] for f, e in release["core"].items()}


def test_reference_items_are_checked_against_their_card(verified_card: Path) -> None:
    path = verified_card / "xstest.jsonl"
    assert accept_items_file(path, sha256_file(path)) == "card"
    _reference_items(verified_card, relabel=0)  # one gold label changed: the always-"safe" answer now scores better
    with pytest.raises(ModifiedItemsError, match=r"xstest.jsonl: SHA-256 \w+ differs .* task card xstest.yaml"):
        accept_items_file(path, sha256_file(path))


def test_unverified_card_says_unchecked_and_a_folder_without_manifest_or_card_is_refused(tmp_path: Path) -> None:
    path = _reference_items(tmp_path)
    other = tmp_path / "mytask.jsonl"
    other.write_bytes(path.read_bytes())
    with pytest.raises(ModifiedItemsError, match=r"mytask.jsonl: no MANIFEST.json beside it and no task card "
                                                 r"'mytask'.*--allow-modified-items"):
        accept_items_file(other, sha256_file(other))
    assert accept_items_file(other, sha256_file(other), allow_modified=True).startswith(
        "modified (--allow-modified-items): no MANIFEST.json")
    [task, *_] = [card.id for card in all_cards().values() if not card.verified]
    target = tmp_path / f"{task}.jsonl"
    target.write_bytes(path.read_bytes())
    assert accept_items_file(target, sha256_file(target)) == \
        f"unchecked (task card {task} is unverified: no items hash recorded)"


def test_evaluate_and_score_refuse_relabelled_reference_items(verified_card: Path, tmp_path: Path) -> None:
    system: SystemConfig = get_system("uniform")
    runs = tmp_path / "runs"
    [run] = evaluate_system(system, verified_card, runs, progress=False)
    meta = json.loads(run.path.with_name("xstest.meta.json").read_text())
    assert meta["items_check"] == "card"
    tasks = [reference_task(get_card("xstest"), read_items(verified_card / "xstest.jsonl"))]
    assert dict(load_runs(runs, None, verified_card, tasks=tasks).item_checks) == {"xstest": "card"}
    _reference_items(verified_card, relabel=0)
    with pytest.raises(ModifiedItemsError, match="task card"):
        evaluate_system(system, verified_card, tmp_path / "runs2", progress=False)
    assert not (tmp_path / "runs2").exists()
    evaluate_system(system, verified_card, tmp_path / "runs2", progress=False, allow_modified_items=True)
    with pytest.raises(ModifiedItemsError, match="task card"):  # answered as modified, never scored silently
        load_runs(tmp_path / "runs2", None, verified_card, tasks=tasks)
    loaded = load_runs(tmp_path / "runs2", None, verified_card, tasks=tasks, allow_modified_items=True)
    assert dict(loaded.item_checks)["xstest"].startswith("modified (--allow-modified-items): SHA-256")


def test_a_relabelled_official_task_is_refused(tmp_path: Path) -> None:
    """The issue's case on real data: xstest rebuilt from its official files, one gold label flipped."""
    from decisionpivot.reconstruct.run import reconstruct_task
    from tests.reconstruct.conftest import OFFICIAL

    if not (OFFICIAL / "xstest").is_dir():
        pytest.skip(f"official xstest files not found at {OFFICIAL} (they are not part of the package)")
    built = reconstruct_task("xstest", OFFICIAL, tmp_path / "reference")
    assert accept_items_file(built.path, built.sha256) == "card"
    lines = built.path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    first["answer"] = next(key for key in (o["key"] for o in first["options"]) if key != first["answer"])
    built.path.write_text(json.dumps(first, ensure_ascii=False) + "\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(ModifiedItemsError, match=r"task card xstest\.yaml"):
        evaluate_system(get_system("uniform"), built.path.parent, tmp_path / "runs", progress=False)


def test_the_core_hashes_have_one_home_the_expected_manifest_derives_them(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """released/core-<v>.MANIFEST.json and expected_manifest.json's core section were two records of one fact."""
    from decisionpivot.release import manifest as release_manifest

    stored = json.loads(release_manifest.EXPECTED_MANIFEST.read_text(encoding="utf-8"))
    assert "core" not in stored
    derived = release_manifest.expected_manifest()
    assert derived is not None and derived["core"]["access_request"]["file"] == "core/access_request.jsonl"
    # a released core manifest that is not the file the release lists is refused, naming both
    shipped = json.loads((item_hashes.RELEASED / f"core-{BENCHMARK_VERSION}.MANIFEST.json").read_text())
    shipped["families"]["access_request"]["sha256"] = "0" * 64
    other = tmp_path / "released"
    other.mkdir()
    (other / f"core-{BENCHMARK_VERSION}.MANIFEST.json").write_text(json.dumps(shipped))
    monkeypatch.setattr(item_hashes, "RELEASED", other)
    item_hashes.released_manifest.cache_clear()
    try:
        with pytest.raises(DecisionPivotError, match=r"lists core/MANIFEST.json with SHA-256 \w+, and no released"):
            release_manifest.expected_manifest()
    finally:
        item_hashes.released_manifest.cache_clear()
