"""Task cards are read once per process while their files stay the same, with the values `yaml.safe_load` gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from decisionpivot.reconstruct import card as card_module
from decisionpivot.reconstruct.card import YAML_LOADER, all_cards, card_paths


def test_the_fast_loader_reads_every_card_as_safe_load_does() -> None:
    for path in card_paths():
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=YAML_LOADER) == yaml.safe_load(text), path.name


def test_cards_are_read_again_only_when_a_file_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cards"
    folder.mkdir()
    for path in card_paths():
        (folder / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(card_module, "card_paths", lambda: sorted(folder.glob("*.yaml")))
    reads: list[str] = []
    load = card_module.load_card
    monkeypatch.setattr(card_module, "load_card", lambda path: (reads.append(Path(path).name), load(path))[1])
    first = all_cards()
    assert len(reads) == len(first) > 0
    assert all_cards() == first and len(reads) == len(first)  # the second call reads nothing
    some = sorted(folder.glob("*.yaml"))[0]
    text = some.read_text(encoding="utf-8").replace("\ntitle: ", "\ntitle: Edited ", 1)
    some.write_text(text, encoding="utf-8")
    os.utime(some, ns=(some.stat().st_atime_ns, some.stat().st_mtime_ns + 1_000_000_000))
    edited = all_cards()
    assert edited[some.stem].title.startswith("Edited ") and len(reads) == 2 * len(first)
