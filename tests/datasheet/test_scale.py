"""`dp datasheet` with the scale suite (issue 40): its section's numbers come from its files, croissant.json lists its
files and record sets and still validates offline, and without it nothing changes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from decisionpivot.datasheet import write_datasheet
from decisionpivot.items import read_items
from decisionpivot.scale.framing import write_framed
from decisionpivot.scale.run import write_suite
from decisionpivot.score_questions import gold_level
from tests.datasheet.test_datasheet import no_network, table_rows  # noqa: F401 - a fixture
from tests.release.conftest import sample_cards, write_core

NAMES = ["support_priority", "supplier_risk"]


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("scale-sheet")
    core = write_core(root / "core", {"alpha_check": ("A", 12)})
    write_suite(root / "scale", names=NAMES)
    write_framed(root / "framed", names=NAMES)
    return core, root / "scale", root / "framed"


def test_the_section_counts_what_the_files_hold(scale: tuple[Path, Path, Path], tmp_path: Path) -> None:
    core, suite, framed = scale
    without = [p.read_bytes() for p in write_datasheet(core, None, tmp_path / "without", cards=sample_cards())]
    sheet, _ = write_datasheet(core, None, tmp_path / "out", cards=sample_cards(), scale_dir=suite,
                               scale_invariance_dir=framed)
    text = sheet.read_text()
    assert "## Scale suite" not in without[0].decode() and '"scale-' not in without[1].decode()
    assert "## Scale suite (version 1.0)" in text and "1200 score items of 2 families" in text
    rows = {row[0]: row for row in table_rows(text, "| family | layer | items |")}
    for name in NAMES:
        items = read_items(suite / f"{name}.jsonl")
        gold = Counter(gold_level(i) for i in items)
        sizes = [len(next(i for i in items if i.level == level).options) for level in (1, 2, 3)]
        assert rows[name][2:] == [str(len(items)), str(len({i.group for i in items})), " / ".join(map(str, sizes)),
                                  " ".join(f"{k}:{gold[k]}" for k in sorted(gold))]
    assert "Its framings (1.0; 2040 items" in text


def test_croissant_lists_the_suite_and_validates_offline(scale: tuple[Path, Path, Path], tmp_path: Path,
                                                        no_network) -> None:  # noqa: F811
    mlc = pytest.importorskip("mlcroissant")
    core, suite, framed = scale
    _, path = write_datasheet(core, None, tmp_path / "out", cards={}, scale_dir=suite, scale_invariance_dir=framed)
    document = json.loads(path.read_text())
    names = [r["name"] for r in document["recordSet"]]
    assert names == ["alpha_check", "scale-supplier_risk", "scale-support_priority",  # the manifests' order
                     "scale-invariance-supplier_risk", "scale-invariance-support_priority"]
    dataset = mlc.Dataset(jsonld=path)
    records = list(dataset.records("scale-supplier_risk"))
    assert len(records) == 600 and {r["scale-supplier_risk/question_type"].decode() for r in records} == {"score"}
    framings = Counter(r["scale-invariance-support_priority/framing"].decode()
                       for r in dataset.records("scale-invariance-support_priority"))
    assert framings == {f: 204 for f in ("plain", "reversed", "letters", "words", "rubric")}
