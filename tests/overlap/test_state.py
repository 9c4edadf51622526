"""Resuming: a crash does not restart the scan, a changed or added file is the only one scanned again."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.overlap import engines
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.run import filter_folder, scan_training
from decisionpivot.overlap.scan import scan_part
from tests.overlap.helpers import random_documents, random_reference


def corpus(tmp_path: Path, files: int = 6, seed: int = 3) -> tuple[Path, list[Path]]:
    rng = random.Random(seed)
    folder, items = random_reference(tmp_path, rng)
    paths = []
    for i in range(files):
        path = tmp_path / "train" / f"{i:02d}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join(random_documents(rng, items, count=30, share=0.01)), encoding="utf-8")
        paths.append(path)
    return folder, paths


def counting(monkeypatch: pytest.MonkeyPatch, crash_after: int | None = None) -> list[str]:
    scanned: list[str] = []

    def wrapped(*args: object, **kwargs: object) -> object:
        if crash_after is not None and len(scanned) == crash_after:
            raise KeyboardInterrupt
        result = scan_part(*args, **kwargs)  # type: ignore[arg-type]
        scanned.append(Path(result.part.file.location).name)
        return result

    monkeypatch.setattr(engines, "scan_part", wrapped)
    return scanned


def test_after_a_crash_only_the_unfinished_parts_are_scanned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    folder, paths = corpus(tmp_path)
    fresh, _ = filter_folder(folder, paths, tmp_path / "fresh", resume=False)
    expected = (tmp_path / "fresh" / "overlap.json").read_bytes()
    counting(monkeypatch, crash_after=4)
    with pytest.raises(KeyboardInterrupt):
        filter_folder(folder, paths, tmp_path / "out")
    journal = (tmp_path / "out" / "overlap.state").read_text().splitlines()
    assert len(journal) == 1 + 4
    scanned = counting(monkeypatch)
    reports, _ = filter_folder(folder, paths, tmp_path / "out")
    assert scanned == ["04.txt", "05.txt"]
    assert "resuming from" in capsys.readouterr().err
    assert reports == fresh and (tmp_path / "out" / "overlap.json").read_bytes() == expected
    scanned.clear()
    filter_folder(folder, paths, tmp_path / "out")
    assert scanned == []


def test_a_changed_or_added_file_is_scanned_again_and_a_torn_line_is_dropped(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    folder, paths = corpus(tmp_path)
    filter_folder(folder, paths[:5], tmp_path / "out")
    state = tmp_path / "out" / "overlap.state"
    with state.open("a") as handle:
        handle.write('{"file": "torn by a cra')
    paths[1].write_text(paths[1].read_text() + "\nmore text")
    scanned = counting(monkeypatch)
    filter_folder(folder, paths, tmp_path / "out")
    assert sorted(scanned) == ["01.txt", "05.txt"]
    assert all(json.loads(line) for line in state.read_text().splitlines())
    filter_folder(folder, paths, tmp_path / "check", resume=False)
    assert (tmp_path / "out" / "overlap.json").read_bytes() == (tmp_path / "check" / "overlap.json").read_bytes()


def test_a_journal_of_other_items_or_another_n_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder, paths = corpus(tmp_path, files=2)
    filter_folder(folder, paths, tmp_path / "out")
    scanned = counting(monkeypatch)
    filter_folder(folder, paths, tmp_path / "out", n=12)
    assert len(scanned) == 2
    assert "written for other items, another --n or another --text-column" in capsys.readouterr().err
    state = tmp_path / "out" / "overlap.state"
    state.write_text(state.read_text().splitlines()[0] + "\nnot json\n" + "{}\n")
    with pytest.raises(DecisionPivotError, match=r"overlap.state:2: not a line of an overlap resume state"):
        scan_training(ItemIndex([], 12), [str(paths[0])], state=state)


def test_a_killed_command_resumes_where_it_stopped(tmp_path: Path) -> None:
    folder, paths = corpus(tmp_path, files=12, seed=11)
    for path in paths:  # about 1 MB each: the scan takes long enough to be killed in the middle
        path.write_text(path.read_text() * 25)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "decisionpivot.cli", "overlap", str(tmp_path / "train"), "--items", str(folder),
               "--out", str(out), "--noprogress"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    state = out / "overlap.state"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if state.exists() and len(state.read_bytes().splitlines()) >= 3:
            break
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    recorded = len(state.read_bytes().splitlines()) - 1
    assert recorded >= 2
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"resuming from {state}: {recorded} finished part(s)" in result.stderr
    filter_folder(folder, [tmp_path / "train"], tmp_path / "fresh", resume=False)
    assert (out / "overlap.json").read_bytes() == (tmp_path / "fresh" / "overlap.json").read_bytes()
