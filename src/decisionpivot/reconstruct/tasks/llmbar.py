"""llmbar (layer C): which of two outputs follows the instruction? Natural + the four Adversarial sets."""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

SUBSETS = ("Natural", "Adversarial/Neighbor", "Adversarial/GPTInst", "Adversarial/GPTOut", "Adversarial/Manual")


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for subset in SUBSETS:
        path = f"{subset}/dataset.json"
        for i, record in enumerate(source.json(path)):
            if record.get("label") not in (1, 2):
                raise SourceError(f"{source.path(path)}: record {i} has label {record.get('label')!r}, expected 1 or 2")
            state = {"instruction": record["input"], "output_1": record["output_1"], "output_2": record["output_2"]}
            items.append(reference_item(card, state, f"output_{record['label']}", domain=subset))
    return items
