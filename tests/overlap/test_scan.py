"""The scanner flags exactly what the plain definition flags, for every format, block size and part size;
hash collisions never flag an item; and on the benchmark's own items it flags exactly what v0.1 flagged."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from decisionpivot.items import Item, read_items, write_items
from decisionpivot.overlap import index as index_module
from decisionpivot.overlap import scan as scan_module
from decisionpivot.overlap import sources
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.normalise import tokens
from decisionpivot.overlap.run import filter_folder, scan_training
from decisionpivot.overlap.sources import expand_inputs, plan_parts
from tests.conftest import cached_draw
from tests.overlap.helpers import jsonl_bytes, random_documents, random_items
from tests.overlap.oracles import legacy_flag_overlap, plain_flag_overlap


def corpus(tmp_path: Path, documents: list[str]) -> list[Path]:
    """The same documents as text (plain, gzip, zstd), JSON Lines (plain, gzip, zstd) and Parquet."""
    stream = "\n".join(documents).encode("utf-8")
    lines = jsonl_bytes(documents)
    files = {
        "a.txt": stream, "b.txt.gz": gzip.compress(stream), "c.txt.zst": zstandard.ZstdCompressor().compress(stream),
        "d.jsonl": lines, "e.jsonl.gz": gzip.compress(lines), "f.jsonl.zst": zstandard.ZstdCompressor().compress(lines),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    pq.write_table(pa.table({"text": documents, "n": list(range(len(documents)))}), tmp_path / "g.parquet",
                   row_group_size=7)
    return [tmp_path / name for name in files] + [tmp_path / "g.parquet"]


@pytest.mark.parametrize("seed", [0, 1])
def test_every_format_block_size_and_part_size_flags_exactly_the_plain_definition(
        tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    items = random_items(rng)
    documents = random_documents(rng, items)
    index = ItemIndex(items, 6)
    for path in corpus(tmp_path, documents):
        expected = plain_flag_overlap(items, [path], 6)
        assert 0 < len(expected) < len(items)
        for block, part in ((1 << 20, 10**9), (64, 300), (7, 50)):
            monkeypatch.setattr(sources, "CHUNK_BYTES", block)
            monkeypatch.setattr(sources, "READ_BYTES", max(16, block))
            assert set(scan_training(index, [str(path)], part_bytes=part).flagged) == expected, (path.name, block)


def test_byte_range_parts_cover_every_token_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    items = random_items(rng)
    text = "\n".join(random_documents(rng, items, count=80))
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    index = ItemIndex(items, 6)
    whole = scan_training(index, [str(path)])
    for part in (101, 997, 4999):
        assert len(plan_parts(expand_inputs([str(path)]), part)) > 1
        cut = scan_training(index, [str(path)], part_bytes=part)
        assert (cut.tokens, cut.text_bytes) == (whole.tokens, whole.text_bytes) == (len(tokens(text)),
                                                                                     len(text.encode()))
        assert cut.flagged == whole.flagged  # the same items with the same (first) evidence


def test_a_hash_collision_never_flags_an_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With n-gram hashes cut to 3 bits almost every training n-gram collides with some item n-gram;
    the exact re-check on the tokens still flags only true overlaps."""
    real = index_module.ngram_hashes

    def weak(hashes: np.ndarray, n: int) -> np.ndarray:
        return real(hashes, n) & np.uint64(7)

    monkeypatch.setattr(index_module, "ngram_hashes", weak)
    monkeypatch.setattr(scan_module, "ngram_hashes", weak)
    rng = random.Random(9)
    items = random_items(rng)
    documents = random_documents(rng, items)
    index = ItemIndex(items, 6)
    assert len(index.hashes) <= 8
    for path in corpus(tmp_path, documents)[::3]:
        assert set(scan_training(index, [str(path)]).flagged) == plain_flag_overlap(items, [path], 6)


@pytest.fixture(scope="module")
def benchmark_items(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], list[Item]]:
    """The release draw of two core families as reference items; training files made of the items of
    three other families with windows of the first family's states (some boilerplate, some specific) spliced in,
    so some reference items are flagged and never all (a boilerplate window flags its whole family)."""
    tmp = tmp_path_factory.mktemp("benchmark")
    folder = tmp / "reference"
    reference: list[Item] = []
    for family in ("fact_answerable", "clause_change"):
        items = list(cached_draw(family).items)
        write_items(folder / f"{family}.jsonl", items)
        reference += items
    rng = random.Random(20261007)
    documents = []
    for family in ("access_request", "ledger_reconcile", "install_check"):
        for item in cached_draw(family).items[:100]:
            text = str(item.state)
            if rng.random() < 0.1:  # windows of fact_answerable only: clause_change is never in the training
                words = str(rng.choice(reference[:600]).state).split(" ")
                start = rng.randrange(len(words))
                cut = rng.randrange(len(text))
                window = " ".join(words[start : start + rng.choice((8, 12, 14, 40))])
                text = f"{text[:cut]} {window} {text[cut:]}"
            documents.append(text)
    jsonl = tmp / "train.jsonl.gz"
    jsonl.write_bytes(gzip.compress(b"".join(json.dumps({"text": d, "id": i}).encode() + b"\n"
                                             for i, d in enumerate(documents))))
    text = tmp / "train.txt"  # under 1 MB: one block of v0.1's reader, whose block edges were approximate
    text.write_text("\n".join(documents[:100]), encoding="utf-8")
    return folder, [jsonl, text], reference


def test_the_benchmark_items_are_flagged_exactly_as_v0_1_flagged_them(
        benchmark_items: tuple[Path, list[Path], list[Item]], tmp_path: Path) -> None:
    folder, training, reference = benchmark_items
    by_task = {p.stem: read_items(p) for p in sorted(folder.glob("*.jsonl"))}
    reports, scan = filter_folder(folder, training, tmp_path / "out", resume=False)
    assert set(scan.flagged) == legacy_flag_overlap(by_task, training)
    assert sum(r.flagged for r in reports) == len(scan.flagged)
    index = ItemIndex(reference)
    for path in training:
        new = set(scan_training(index, [str(path)]).flagged)
        assert 0 < len(new) < len(reference), path.name
        assert new == legacy_flag_overlap(by_task, [path]), path.name
    assert new == plain_flag_overlap(reference, [path])
