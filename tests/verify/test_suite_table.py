"""`dp verify` on an invariance suite: the chance column is the plain members' pair accuracy, labelled so; the
core table keeps its bytes (reports/verify.txt is pinned in dvc.lock)."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.items import Item, read_items
from tests.conftest import write_small_suite

FAMILIES = ("fact_answerable", "policy_case")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_small_suite(tmp_path_factory.mktemp("core"), tmp_path_factory.mktemp("suite"), FAMILIES)


def uniform_pair_accuracy(items: list[Item]) -> float:
    """Readable version: per group, the product of 1/k over its members; mean over groups."""
    groups: dict[str, float] = {}
    for item in items:
        key = item.group if item.group is not None else item.id
        groups[key] = groups.get(key, 1.0) / len(item.options)
    return sum(groups.values()) / len(groups)


def test_suite_table_shows_the_plain_members_chance(folders: tuple[Path, Path], capsys) -> None:
    _, suite = folders
    main(["verify", "--items", str(suite)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{'family':<18} {'items':>6} {'agree':>6} {'rate':>8} {'plain chance pair acc':>22}"
    plain_values = []
    for line, name in zip(lines[1:], FAMILIES, strict=False):
        items = read_items(suite / f"{name}.jsonl")
        plain = uniform_pair_accuracy([i for i in items if i.extra["framing"] == "plain"])
        plain_values.append(plain)
        assert line.split() == [name, str(len(items)), str(len(items)), "100.00%", f"{100 * plain:.2f}%"]
        assert plain > 0.01  # the whole framed group's uniform pair accuracy (the old column) is ~0
        assert uniform_pair_accuracy(items) < 1e-6
    macro = 100 * sum(plain_values) / len(plain_values)
    assert lines[3] == f"uniform-guess pair accuracy of the plain members, macro over 2 families: {macro:.2f}%"
    assert lines[4].startswith("uniform-guess robust pair accuracy (every framing of every member right): at most ")
    assert lines[5].startswith("verify OK: ")


def test_core_table_keeps_its_bytes(folders: tuple[Path, Path], capsys) -> None:
    core, _ = folders
    main(["verify", "--items", str(core)])
    out = capsys.readouterr().out
    expected = [f"{'family':<18} {'items':>6} {'agree':>6} {'rate':>8} {'chance pair acc':>16}"]
    chances = []
    for name in FAMILIES:
        items = read_items(core / f"{name}.jsonl")
        chances.append(uniform_pair_accuracy(items))
        expected.append(f"{name:<18} {len(items):>6} {len(items):>6} {100.0:>7.2f}% {100 * chances[-1]:>15.2f}%")
    expected.append(f"uniform-guess pair accuracy, macro over 2 families: {100 * sum(chances) / 2:.2f}%")
    expected.append(f"verify OK: {sum(len(read_items(core / f'{n}.jsonl')) for n in FAMILIES)} items, "
                    "100% solver agreement")
    assert out == "\n".join(expected) + "\n"
