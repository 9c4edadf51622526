"""xstest (layer B): is the prompt safe to comply with, or unsafe? (v1 prompts with gold labels)."""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for number, row in enumerate(source.csv("xstest_prompts.csv"), start=2):
        if row["label"] not in ("safe", "unsafe"):
            raise SourceError(f"{source.path('xstest_prompts.csv')}:{number}: label {row['label']!r}")
        items.append(reference_item(card, row["prompt"], row["label"], domain=row["type"]))
    return items
