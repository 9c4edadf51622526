"""Reconstruction framework: card schema, hash checks, nothing written on mismatch, safe archives."""

from __future__ import annotations

import io
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from decisionpivot.reconstruct.card import CardError, all_cards, parse_card
from decisionpivot.reconstruct.run import ReconstructionError, reconstruct_task
from decisionpivot.reconstruct.sources import SourceError, SourceFolder, extract_archive
from tests.reconstruct.conftest import OFFICIAL


def test_every_card_parses_and_names_its_file() -> None:
    cards = all_cards()
    assert cards, "no task cards found"
    for task, card in cards.items():
        assert Path(card.path).stem == task
        assert card.target <= 5000 and card.seed
        if card.verified:
            assert card.expected_items and card.expected_sha256 and all(f.sha256 for f in card.files)


def test_card_errors_name_the_field() -> None:
    data = yaml.safe_load((Path(all_cards()["llmbar"].path)).read_text())
    broken = {**data, "layer": "Z"}
    with pytest.raises(CardError, match=r"x\.yaml: field 'layer' must be one of"):
        parse_card(broken, "x.yaml")
    del broken["citation"]
    with pytest.raises(CardError, match="missing field 'citation'"):
        parse_card({**broken, "layer": "C"}, "x.yaml")


def copy_task(task: str, tmp_path: Path) -> Path:
    if not (OFFICIAL / task).is_dir():
        pytest.skip(f"official files of {task} not available at {OFFICIAL}")
    target = tmp_path / "src" / task
    shutil.copytree(OFFICIAL / task, target)
    return target


def test_tampered_source_writes_nothing_and_says_what_differs(tmp_path: Path) -> None:
    folder = copy_task("xstest", tmp_path)
    with (folder / "xstest_prompts.csv").open("ab") as handle:
        handle.write(b"451,extra,homonyms,safe,x,y\n")
    out = tmp_path / "out"
    with pytest.raises(ReconstructionError) as err:
        reconstruct_task("xstest", tmp_path / "src", out)
    message = str(err.value)
    assert "xstest_prompts.csv: SHA-256" in message and "expected 11783fb2" in message
    assert not out.exists() or not any(out.iterdir())


def test_wrong_expected_count_or_hash_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy_task("xstest", tmp_path)
    import dataclasses

    from decisionpivot.reconstruct import run

    card = all_cards()["xstest"]
    monkeypatch.setattr(run, "get_card", lambda task: dataclasses.replace(card, expected_items=449))
    with pytest.raises(ReconstructionError, match=r"450 items, card expects 449"):
        reconstruct_task("xstest", tmp_path / "src", tmp_path / "out")
    monkeypatch.setattr(run, "get_card", lambda task: dataclasses.replace(card, expected_sha256="0" * 64))
    with pytest.raises(ReconstructionError, match=r"card expects 0{64}"):
        reconstruct_task("xstest", tmp_path / "src", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_decoding_fallbacks_and_gzip(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(SourceError, match="not decodable as utf-8-sig"):
        SourceFolder(tmp_path).text("a.txt")
    assert SourceFolder(tmp_path, ("utf-8-sig", "cp1252")).text("a.txt") == "café"
    import gzip

    (tmp_path / "b.jsonl.gz").write_bytes(gzip.compress(b'{"x": 1}\n{"x": 2}\n'))
    assert SourceFolder(tmp_path).jsonl("b.jsonl.gz") == [{"x": 1}, {"x": 2}]
    with pytest.raises(SourceError, match="leaves the source folder"):
        SourceFolder(tmp_path).raw("../etc/passwd")


@pytest.mark.parametrize("name", ["../evil.txt", "/abs.txt", "a/../../evil.txt"])
def test_archives_cannot_write_outside_the_target(tmp_path: Path, name: str) -> None:
    zpath = tmp_path / "x.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr(name, "boom")
    with pytest.raises(SourceError, match="outside the target folder"):
        extract_archive(zpath, tmp_path / "out")
    tpath = tmp_path / "x.tar.gz"
    with tarfile.open(tpath, "w:gz") as tf:
        info = tarfile.TarInfo(name)
        info.size = 4
        tf.addfile(info, io.BytesIO(b"boom"))
    with pytest.raises(SourceError, match="outside the target folder"):
        extract_archive(tpath, tmp_path / "out")
    assert not (tmp_path / "evil.txt").exists()


def test_archive_links_are_refused_and_plain_members_extracted(tmp_path: Path) -> None:
    tpath = tmp_path / "x.tar"
    with tarfile.open(tpath, "w") as tf:
        info = tarfile.TarInfo("data/ok.txt")
        info.size = 2
        tf.addfile(info, io.BytesIO(b"ok"))
    assert [p.read_text() for p in extract_archive(tpath, tmp_path / "out")] == ["ok"]
    lpath = tmp_path / "l.tar"
    with tarfile.open(lpath, "w") as tf:
        link = tarfile.TarInfo("data/link")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    with pytest.raises(SourceError, match="link"):
        extract_archive(lpath, tmp_path / "out2")


def test_json_lines_records_name_file_and_line(tmp_path: Path) -> None:
    from decisionpivot.reconstruct.sources import SourceError, SourceFolder

    (tmp_path / "a.jsonl").write_text('{"x": 1}\n\n{"x": 2}\n[3]\n', encoding="utf-8")
    records = SourceFolder(tmp_path).records("a.jsonl")
    assert next(records) == (f"{tmp_path / 'a.jsonl'}:1", {"x": 1})
    assert next(records) == (f"{tmp_path / 'a.jsonl'}:3", {"x": 2})  # blank lines keep the file's numbering
    with pytest.raises(SourceError, match=r"a\.jsonl:4: expected a JSON object"):
        next(records)


def _candidates(cells: dict[tuple[str, str], int]) -> list:
    from decisionpivot.items import Item, Option

    options = (Option("a", "first"), Option("b", "second"))
    return [Item(id=f"t:{n}", family="t", layer="D", version="1", group=None, level=None, variation=stratum,
                 domain=None, state=f"{stratum}-{answer}-{k}", question="q", options=options, answer=answer)
            for n, ((stratum, answer), count) in enumerate(cells.items()) for k in range(count)]


def test_equal_shares_balances_classes_and_strata() -> None:
    import random
    from collections import Counter

    from decisionpivot.reconstruct.run import equal_shares

    items = _candidates({("x", "a"): 240, ("x", "b"): 600, ("y", "a"): 884, ("y", "b"): 274, ("z", "b"): 200})
    picked = equal_shares(items, 1000, random.Random(1), "variation")
    cells = Counter((items[i].variation, items[i].answer) for i in picked)
    assert picked == sorted(set(picked))
    # 500 per class, spread over the strata holding both classes in proportion to their smaller class.
    assert cells == {("x", "a"): 233, ("x", "b"): 233, ("y", "a"): 267, ("y", "b"): 267}
    assert equal_shares(items, 1000, random.Random(1), "variation") == picked
    flat = Counter(items[i].answer for i in equal_shares(items, 1000, random.Random(1)))
    assert flat == {"a": 500, "b": 500}
    small = Counter(items[i].answer for i in equal_shares(items[:250], 1000, random.Random(1)))
    assert small == {"a": 10, "b": 10}  # fewer than the target: the smaller class decides


def test_card_rejects_unknown_share_options() -> None:
    data = yaml.safe_load((Path(all_cards()["bfcl_relevance"].path)).read_text())
    with pytest.raises(CardError, match=r"sampling\.within' must be one of"):
        parse_card({**data, "sampling": {**data["sampling"], "within": "answer"}}, "x.yaml")
    with pytest.raises(CardError, match=r"sampling\.shares' must be 'equal'"):
        parse_card({**data, "sampling": {**data["sampling"], "shares": "half"}}, "x.yaml")


def test_record_writes_count_hash_and_chance_on_items_once(tmp_path: Path) -> None:
    import dataclasses

    from decisionpivot.reconstruct.run import build_items, reconstruct_task, record_expected
    from tests.reconstruct.conftest import FIXTURES

    card = all_cards()["strategyqa"]
    copy = tmp_path / "strategyqa.yaml"
    copy.write_text(Path(card.path).read_text(encoding="utf-8").replace(
        'method: "majority-class share on the sampled items"}',
        'method: "majority-class share on the sampled items", on_items: 0.9}'), encoding="utf-8")
    result = reconstruct_task("strategyqa", FIXTURES, tmp_path / "out")
    local = dataclasses.replace(card, path=str(copy))
    record_expected(local, result)
    record_expected(local, result)
    text = copy.read_text(encoding="utf-8")
    assert f"expected: {{items: 3, items_sha256: {result.sha256}, verified: true}}\n" in text
    assert text.count("on_items") == 1
    assert 'on_items: 0.6667}\n' in text  # 2 of 3 fixture questions are yes
    assert len(build_items(card, FIXTURES / "strategyqa")) == 3
