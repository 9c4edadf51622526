"""The items a harness runs: checked as `dp evaluate` checks them, each identified by the hash of its line."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.errors import DecisionPivotError
from decisionpivot.harness.release_items import ensure_release_items, item_sha256, release_tasks


def test_each_item_is_identified_by_the_hash_of_its_line(release_items: Path) -> None:
    task = release_tasks(release_items, ["policy_case"])["policy_case"]
    lines = (release_items / "policy_case.jsonl").read_bytes().splitlines()
    assert [item_sha256(i) for i in task.items] == [hashlib.sha256(line).hexdigest() for line in lines]
    assert task.check == f"released core {BENCHMARK_VERSION}" and len(task.items) == 600


def test_a_changed_items_file_is_refused(tmp_path: Path, release_items: Path) -> None:
    items = tmp_path / "items"
    shutil.copytree(release_items, items)
    path = items / "fact_answerable.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"answer": "yes"', b'"answer": "no"', 1))
    with pytest.raises(DecisionPivotError, match=r"fact_answerable\.jsonl: SHA-256 \w+ is not \w+, the "
                                                 r"fact_answerable items the package.s released core") as refused:
        release_tasks(items, ["fact_answerable"])
    # a harness offers no --allow-modified-items (dp export, dp import, inspect's tasks): its refusal names none
    message = str(refused.value)
    assert "allow-modified-items" not in message and "Draw them again with `dp generate" in message
    with pytest.raises(DecisionPivotError, match="unknown task 'nope'"):
        release_tasks(items, ["nope"])


def test_without_a_folder_the_release_items_are_drawn_first(tmp_path: Path, release_items: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    folder = ensure_release_items(None)
    assert folder == Path("datasets") / "core" / BENCHMARK_VERSION
    assert "generating the release core items first" in capsys.readouterr().err
    assert release_tasks(folder, ["policy_case"])["policy_case"].check == f"released core {BENCHMARK_VERSION}"
    assert (folder / "policy_case.jsonl").read_bytes() == (release_items / "policy_case.jsonl").read_bytes()
    assert ensure_release_items(None) == folder and capsys.readouterr().err == ""  # drawn once
