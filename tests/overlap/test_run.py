"""The training-overlap filter end to end: flags shared 13-grams, removes whole groups, writes overlap.json."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

from decisionpivot.items import read_items
from decisionpivot.overlap.run import filter_folder
from tests.overlap.helpers import TEXTS, reference


def dp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "decisionpivot.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_flags_items_and_their_groups(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    train = tmp_path / "train.txt"
    # 13 consecutive tokens of item 2 (group 1), across a line break and with other case/punctuation
    train.write_text("noise noise\nRiver boats carry grain downstream, every autumn\nwhen the water is high and the"
                     " locks\nmore noise\n")
    [report], scan = filter_folder(folder, [train], tmp_path / "out")
    assert (report.items, report.flagged, report.removed) == (4, 1, 2)
    assert [i.id for i in read_items(tmp_path / "out" / "t.jsonl")] == ["t:00000", "t:00001"]
    summary = json.loads((tmp_path / "out" / "overlap.json").read_text())
    assert summary["tasks"][0]["removed"] == 2
    assert summary["flagged"] == {"t:00002": {
        "file": str(train), "byte": 12,
        "ngram": "river boats carry grain downstream every autumn when the water is high and"}}
    assert summary["files"] == [{"file": str(train), "bytes": train.stat().st_size, "flagged": 1}]
    assert scan.tokens == 19


def test_twelve_shared_tokens_are_not_enough_and_jsonl_gzip_is_read(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    twelve = " ".join(TEXTS[0].split()[:12])
    thirteen = " ".join(TEXTS[1].split()[3:16])
    train = tmp_path / "train.jsonl.gz"
    with gzip.open(train, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"text": twelve}) + "\n")
        handle.write(json.dumps({"meta": {"inner": [thirteen]}}) + "\n")
    [report], _ = filter_folder(folder, [train], tmp_path / "out")
    assert report.flagged == 1 and report.removed == 2
    assert [i.id for i in read_items(tmp_path / "out" / "t.jsonl")] == ["t:00002", "t:00003"]


def test_an_ngram_across_two_json_records_does_not_count(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    words = TEXTS[2].split()
    train = tmp_path / "train.jsonl"
    train.write_text(json.dumps({"text": " ".join(words[:7])}) + "\n" + json.dumps({"text": " ".join(words[7:14])})
                     + "\n")
    [report], _ = filter_folder(folder, [train], tmp_path / "out")
    assert report.flagged == 0


def test_result_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    train = tmp_path / "train.txt"
    train.write_text(TEXTS[0] + "\n")
    outputs = []
    for seed in ("0", "4242"):
        out = tmp_path / f"out{seed}"
        result = dp("overlap", str(train), "--items", str(folder), "--out", str(out), env={"PYTHONHASHSEED": seed})
        assert result.returncode == 0, result.stderr
        outputs.append(((out / "t.jsonl").read_bytes(), (out / "overlap.json").read_bytes()))
    assert outputs[0] == outputs[1]


def test_the_command_prints_counts_and_accepts_folders_and_globs(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(TEXTS[0] + "\n")
    (corpus / "b.jsonl").write_text(json.dumps({"text": TEXTS[2]}) + "\n")
    (corpus / "_SUCCESS").write_text("")
    (corpus / ".hidden.txt").write_text(TEXTS[1])
    result = dp("overlap", str(corpus), "--items", str(folder), "--out", str(tmp_path / "out"), "--noprogress")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split() == ["t", "4", "2", "4"]
    assert "read 2 training file(s)" in result.stderr
    result = dp("overlap", str(corpus / "*.txt"), "--items", str(folder), "--out", str(tmp_path / "out2"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split() == ["t", "4", "1", "2"]


def test_bad_inputs_are_one_clear_error(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    out = str(tmp_path / "out")
    cases = [
        ([str(tmp_path / "missing.txt")], "missing.txt: no such training file"),
        ([str(tmp_path / "*.nothing")], "no training files match"),
        (["--workers", "2", str(folder / "t.jsonl")], "--workers and --address need --engine dask"),
        (["--engine", "spark", str(folder / "t.jsonl")], "--engine"),
        (["--workers", "0", str(folder / "t.jsonl")], "--workers: expected a number >= 1"),
        ([], "name at least one training file"),
    ]
    for args, needle in cases:
        result = dp("overlap", *args, "--items", str(folder), "--out", out)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert needle in result.stderr and "Traceback" not in result.stderr, (args, result.stderr)
