"""docs/score-questions.md says what the suite holds: its families with their layers and scales, and an item of the
release as it is drawn."""

from __future__ import annotations

import re
from pathlib import Path

from decisionpivot.scale.registry import families
from tests.scale.conftest import scale_draw

PAGE = Path(__file__).resolve().parents[2] / "docs" / "score-questions.md"


def test_the_family_table_lists_every_family_with_its_layer_and_scales() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for spec in families():
        levels = " / ".join(str(n) for n in spec.config_type().levels)
        row = next((line for line in text.splitlines() if line.startswith(f"| {spec.name} |")), None)
        assert row is not None, spec.name
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[1:4] == [spec.layer, spec.question, levels], cells


def test_the_example_is_the_release_item() -> None:
    text = PAGE.read_text(encoding="utf-8")
    item_id = re.search(r"An item of the release, `([a-z_]+:\d{5})`", text)
    assert item_id is not None
    block = re.search(r"```text\n(.*?)\n```", text[item_id.end():], re.S)
    assert block is not None
    [item] = [i for i in scale_draw(item_id.group(1).split(":")[0]).items if i.id == item_id.group(1)]
    assert block.group(1) == item.state
    options = "; ".join(f'`"{o.key}"` {o.meaning}' for o in item.options)
    assert f"Options: {options}." in text
