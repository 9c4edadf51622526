"""The training-overlap filter: flags shared 13-grams, removes whole groups, reads text/JSONL/gzip."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

from decisionpivot.items import Item, Option, read_items, write_items
from decisionpivot.release.overlap import filter_folder

OPTIONS = (Option("yes", "y"), Option("no", "n"))
TEXTS = [
    "the quick brown fox jumps over the lazy dog while seven silent owls watch from the old oak tree at dusk",
    "a completely different passage about ledger entries that never reconcile because of netted bank fees today",
    "river boats carry grain downstream every autumn when the water is high and the locks stay open all night",
    "short text",
]


def reference(tmp_path: Path) -> Path:
    folder = tmp_path / "reference"
    items = [Item(f"t:{i:05d}", "t", "C", "1", f"t:g{i // 2}", None, None, None, text, "Q?", OPTIONS, "yes")
             for i, text in enumerate(TEXTS)]
    write_items(folder / "t.jsonl", items)
    return folder


def test_flags_items_and_their_groups(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    train = tmp_path / "train.txt"
    # 13 consecutive tokens of item 2 (group 1), across a line break and with other case/punctuation
    train.write_text("noise noise\nRiver boats carry grain downstream, every autumn\nwhen the water is high and the"
                     " locks\nmore noise\n")
    [report] = filter_folder(folder, [train], tmp_path / "out")
    assert (report.items, report.flagged, report.removed) == (4, 1, 2)
    assert [i.id for i in read_items(tmp_path / "out" / "t.jsonl")] == ["t:00000", "t:00001"]
    assert json.loads((tmp_path / "out" / "overlap.json").read_text())["tasks"][0]["removed"] == 2


def test_twelve_shared_tokens_are_not_enough_and_jsonl_gzip_is_read(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    twelve = " ".join(TEXTS[0].split()[:12])
    thirteen = " ".join(TEXTS[1].split()[3:16])
    train = tmp_path / "train.jsonl.gz"
    with gzip.open(train, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"text": twelve}) + "\n")
        handle.write(json.dumps({"meta": {"inner": [thirteen]}}) + "\n")
    [report] = filter_folder(folder, [train], tmp_path / "out")
    assert report.flagged == 1 and report.removed == 2
    assert [i.id for i in read_items(tmp_path / "out" / "t.jsonl")] == ["t:00002", "t:00003"]


def test_result_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    folder = reference(tmp_path)
    train = tmp_path / "train.txt"
    train.write_text(TEXTS[0] + "\n")
    outputs = []
    for seed in ("0", "4242"):
        out = tmp_path / f"out{seed}"
        result = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "overlap", str(train), "--items",
                                 str(folder), "--out", str(out)], capture_output=True, text=True,
                                env={**os.environ, "PYTHONHASHSEED": seed})
        assert result.returncode == 0, result.stderr
        outputs.append((out / "t.jsonl").read_bytes())
    assert outputs[0] == outputs[1]
