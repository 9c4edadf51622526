"""Training inputs: formats, fsspec URLs, parts, and one clear error for every broken file."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from decisionpivot.errors import DecisionPivotError
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.run import scan_training
from decisionpivot.overlap.sources import detect_format, expand_inputs, plan_parts
from tests.overlap.helpers import TEXTS, jsonl_bytes, random_documents, random_items, reference
from tests.overlap.oracles import plain_flag_overlap
from tests.overlap.test_run import dp


def test_formats_come_from_the_name() -> None:
    assert detect_format("a.jsonl") == ("jsonl", "")
    assert detect_format("dir/A.JSONL.GZ") == ("jsonl", "gzip")
    assert detect_format("x.json.zst") == ("jsonl", "zstd")
    assert detect_format("x.ndjson.zstd") == ("jsonl", "zstd")
    assert detect_format("part-0001.parquet") == ("parquet", "")
    assert detect_format("notes.txt.gz") == ("text", "gzip")
    assert detect_format("README") == ("text", "")


def test_fsspec_urls_read_like_local_files(tmp_path: Path) -> None:
    rng = random.Random(4)
    items = random_items(rng)
    documents = random_documents(rng, items)
    local = tmp_path / "train.jsonl.zst"
    local.write_bytes(zstandard.ZstdCompressor().compress(jsonl_bytes(documents)))
    expected = plain_flag_overlap(items, [local], 6)
    assert expected
    memory = fsspec.filesystem("memory")
    memory.pipe("/corpus/train.jsonl.zst", local.read_bytes())
    memory.pipe("/corpus/more/notes.txt", "\n".join(documents).encode())
    memory.pipe("/corpus/_SUCCESS", b"")
    index = ItemIndex(items, 6)
    try:
        assert set(scan_training(index, ["memory://corpus/train.jsonl.zst"]).flagged) == expected
        assert set(scan_training(index, [local.as_uri()]).flagged) == expected
        files = expand_inputs(["memory://corpus"])
        assert [f.url for f in files] == ["memory:///corpus/more/notes.txt", "memory:///corpus/train.jsonl.zst"]
        assert set(scan_training(index, ["memory://corpus/*.zst"]).flagged) == expected
        # byte-range parts of a remote file: seeks, reads on past the part end for the last n-grams
        parts = plan_parts(expand_inputs(["memory://corpus/more/notes.txt"]), 500)
        assert len(parts) > 3
        cut = scan_training(index, ["memory://corpus/more/notes.txt"], part_bytes=500)
        assert set(cut.flagged) == plain_flag_overlap(items, [_local_copy(tmp_path, documents)], 6)
    finally:
        memory.rm("/corpus", recursive=True)


def _local_copy(tmp_path: Path, documents: list[str]) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("\n".join(documents), encoding="utf-8")
    return path


def test_inputs_are_expanded_once_each_in_order(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("b")
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / ".skip.txt").write_text("x")
    files = expand_inputs([str(tmp_path / "b.txt"), str(tmp_path), str(tmp_path / "*.txt")])
    assert [Path(f.location).name for f in files] == ["b.txt", "a.txt"]
    assert files[0].url == str(tmp_path / "b.txt")
    before = files[1].key
    (tmp_path / "a.txt").write_text("changed")
    assert expand_inputs([str(tmp_path / "a.txt")])[0].key != before


def test_parquet_row_groups_become_parts_and_rows_are_documents(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    words = TEXTS[2].split()
    rows = ["unrelated words here"] * 30 + [" ".join(words[:13])] + [" ".join(words[:7]), " ".join(words[7:14])]
    pq.write_table(pa.table({"body": rows, "id": list(range(len(rows)))}), path, row_group_size=4)
    folder = reference(tmp_path)
    parts = plan_parts(expand_inputs([str(path)]), 1)
    assert [(p.start, p.end) for p in parts] == [(g, g + 1) for g in range(9)]
    index = ItemIndex(__import__("decisionpivot.items", fromlist=["read_items"]).read_items(folder / "t.jsonl"))
    scan = scan_training(index, [str(path)], text_column="body", part_bytes=1)
    assert list(scan.flagged) == ["t:00002"]  # the split sentence (two rows) does not count
    assert scan.flagged["t:00002"].unit == "row" and scan.flagged["t:00002"].position == 30


@pytest.fixture
def broken(tmp_path: Path) -> dict[str, Path]:
    lines = jsonl_bytes(TEXTS * 2000)
    gz, zst = gzip.compress(lines), zstandard.ZstdCompressor(write_checksum=True).compress(lines)
    files = {
        "truncated.jsonl.gz": gz[: len(gz) // 2],
        "corrupt.jsonl.gz": gz[:1000] + bytes(200) + gz[1200:],
        "notgzip.txt.gz": b"plain text, not gzip",
        "truncated.jsonl.zst": zst[: len(zst) // 2],
        "corrupt.jsonl.zst": zst[:1000] + bytes(200) + zst[1200:],
        "notzstd.txt.zst": b"plain text, not zstd",
        "bad.jsonl": b'{"text": "fine"}\n{"text": broken\n',
        "bad.parquet": b"PAR1 not really",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in files}


def test_a_broken_file_is_one_error_naming_it_never_a_partial_scan(broken: dict[str, Path], tmp_path: Path) -> None:
    folder = reference(tmp_path)
    for name, path in broken.items():
        result = dp("overlap", str(path), "--items", str(folder), "--out", str(tmp_path / "out"))
        assert result.returncode == 2, (name, result.stderr)
        assert result.stderr.startswith(f"error: {path}") and "Traceback" not in result.stderr, (name, result.stderr)
        assert not (tmp_path / "out" / "overlap.json").exists()
        compressed = name.endswith((".gz", ".zst"))
        assert ("corrupt or truncated" in result.stderr) == compressed, (name, result.stderr)
    assert f"error: {broken['bad.jsonl']}:2: not valid JSON" in dp(
        "overlap", str(broken["bad.jsonl"]), "--items", str(folder), "--out", str(tmp_path / "o")).stderr


def test_json_errors_name_the_line_also_in_a_later_part(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    lines = [json.dumps({"text": f"line {i}"}) for i in range(500)]
    lines[437] = '{"text": oops}'
    path.write_text("\n".join(lines) + "\n")
    index = ItemIndex([])
    with pytest.raises(DecisionPivotError, match=rf"^{path}:438: not valid JSON$"):
        scan_training(index, [str(path)], part_bytes=1000)


def test_parquet_column_problems_are_clear(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"text": [1, 2], "body": ["a", "b"]}), path)
    index = ItemIndex([])
    with pytest.raises(DecisionPivotError, match="column 'text' holds int64, not text"):
        scan_training(index, [str(path)])
    with pytest.raises(DecisionPivotError, match=r"no column 'content' \(columns: text, body\); name the text column"):
        scan_training(index, [str(path)], text_column="content")
    assert scan_training(index, [str(path)], text_column="body").tokens == 2
