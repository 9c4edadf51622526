"""Items files that cannot be read, and output paths that cannot be written, are one clear error (issue 15, item 12)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import (
    Item,
    ItemError,
    Option,
    atomic_write_bytes,
    item_line,
    make_folder,
    read_items,
    write_items,
)


def _item(index: int) -> Item:
    return Item(id=f"fam:{index:05d}", family="fam", layer="A", version="1", group=f"fam:g{index:04d}", level=1,
                variation=None, domain=None, state=f"Café state {index}", question="Q?",
                options=(Option("yes", "y"), Option("no", "n")), answer="yes")


def test_invalid_utf8_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "fam.jsonl"
    good = (item_line(_item(0)) + "\n").encode("utf-8")
    bad = (item_line(_item(1)) + "\n").encode("utf-8").replace("Café".encode(), b"Caf\xe9")
    path.write_bytes(good + bad)
    with pytest.raises(ItemError) as caught:
        read_items(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:2: not valid UTF-8") and "column" in message and "\\xe9" in message


def test_items_split_on_newlines_only(tmp_path: Path) -> None:
    """A carriage return or U+2028 inside a line is part of the line (text mode would split on \\r)."""
    item = _item(0)
    record = json.loads(item_line(item))
    record["state"] = "line\u2028separator"
    path = tmp_path / "fam.jsonl"
    path.write_bytes((json.dumps(record, ensure_ascii=False) + "\r\n").encode("utf-8"))
    assert read_items(path)[0].state == "line\u2028separator"


def test_a_folder_or_an_unreadable_path_is_an_item_error(tmp_path: Path) -> None:
    with pytest.raises(ItemError, match="is a folder, not an items file"):
        read_items(tmp_path)
    with pytest.raises(ItemError, match="no such items file"):
        read_items(tmp_path / "absent.jsonl")
    with pytest.raises(ItemError, match="cannot read the items file"):
        read_items("/dev/null/x.jsonl")


def test_deeply_nested_json_is_an_item_error(tmp_path: Path) -> None:
    path = tmp_path / "fam.jsonl"
    path.write_text("[" * 100000 + "]" * 100000 + "\n")
    with pytest.raises(ItemError, match=":1: not valid JSON"):
        read_items(path)


@pytest.mark.parametrize("target", ["/dev/null/x/items.jsonl", "/dev/null/items.jsonl"])
def test_writing_below_a_file_names_the_path(target: str) -> None:
    with pytest.raises(DecisionPivotError) as caught:
        atomic_write_bytes(target, b"data")
    assert "/dev/null" in str(caught.value) and "cannot" in str(caught.value)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_writing_into_proc_names_the_path() -> None:
    with pytest.raises(DecisionPivotError, match="cannot create the folder /proc/decisionpivot-nope"):
        write_items("/proc/decisionpivot-nope/fam.jsonl", [_item(0)])


def test_a_folder_in_the_way_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "fam.jsonl").mkdir()
    with pytest.raises(DecisionPivotError, match=r"cannot write .*fam\.jsonl"):
        write_items(tmp_path / "fam.jsonl", [_item(0)])
    assert [p.name for p in tmp_path.iterdir()] == ["fam.jsonl"]  # no temporary file left behind


def test_make_folder(tmp_path: Path) -> None:
    assert make_folder(tmp_path / "a" / "b").is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(DecisionPivotError, match="exists and is not a folder"):
        make_folder(tmp_path / "file")
    with pytest.raises(DecisionPivotError, match="cannot create the folder"):
        make_folder(tmp_path / "file" / "below")


def test_manifest_that_is_not_utf8_or_a_folder(tmp_path: Path) -> None:
    from decisionpivot.generate.run import read_manifest

    (tmp_path / "MANIFEST.json").write_bytes(b'{"families": "\xff"}')
    with pytest.raises(DecisionPivotError, match="not valid UTF-8"):
        read_manifest(tmp_path)
    (tmp_path / "MANIFEST.json").unlink()
    (tmp_path / "MANIFEST.json").mkdir()
    with pytest.raises(DecisionPivotError, match="is a folder, expected a file"):
        read_manifest(tmp_path)
    (tmp_path / "MANIFEST.json").rmdir()
    (tmp_path / "MANIFEST.json").write_text("[1]")
    with pytest.raises(DecisionPivotError, match="expected a JSON object"):
        read_manifest(tmp_path)


def test_dp_show_on_an_items_file_with_bad_bytes_is_one_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from decisionpivot.cli import main

    folder = tmp_path / "items"
    folder.mkdir()
    (folder / "fam.jsonl").write_bytes(b"\xff\xfe{}\n")
    with pytest.raises(SystemExit) as caught:
        main(["show", "fam:00000", "--items", str(folder)])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.count("\n") == 1 and "fam.jsonl:1: not valid UTF-8" in err, err


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_atomic_writes_get_the_mode_a_plain_open_gives(tmp_path: Path, umask: int) -> None:
    """mkstemp's 0600 would make a shared results folder unreadable to the group."""
    import os
    import stat

    from decisionpivot.items import atomic_write_bytes

    old = os.umask(umask)
    try:
        atomic_write_bytes(tmp_path / "atomic.json", b"{}\n")
        (tmp_path / "plain.json").write_bytes(b"{}\n")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "atomic.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.json").stat().st_mode) == 0o666 & ~umask


def test_dp_show_names_the_benchmark_version_not_only_the_generators(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A 1.2 item made by a generator still at 1.1 was labelled "v1.1"."""
    from decisionpivot.cli import main

    folder = tmp_path / "core"
    item = replace(_item(0), version="1.1")
    write_items(folder / "fam.jsonl", [item])
    (folder / "MANIFEST.json").write_text(json.dumps({"version": "1.2", "families": {}}))
    main(["show", "fam:00000", "--items", str(folder)])
    header = capsys.readouterr().out.splitlines()[1]
    assert "benchmark 1.2" in header and "generator 1.1" in header and "v1.1" not in header
