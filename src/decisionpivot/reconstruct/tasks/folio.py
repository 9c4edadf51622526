"""folio (layer E): does the conclusion follow from the premises? True, False or Uncertain (FOLIO v0.0).

File: ``folio-validation.jsonl`` (v0.0 validation split, 204 JSON Lines records with ``premises``
(list of sentences), ``premises-FOL``, ``conclusion``, ``conclusion-FOL``, ``label``). One item per
record, in file order. The state keeps the natural-language premises (as the list the file gives,
unchanged) and the conclusion; the first-order-logic translations are not shown. Labels map
``True`` -> ``true``, ``False`` -> ``false``, ``Uncertain`` -> ``uncertain``.

The validation file has no story id, so records that share the same premises list (one story with
several conclusions) form one group, numbered by the story's first appearance; the bootstrap
resamples stories.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "folio-validation.jsonl"
LABELS = {"True": "true", "False": "false", "Uncertain": "uncertain"}


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    stories: dict[tuple[str, ...], int] = {}
    for where, record in source.records(FILE):
        label = record.get("label")
        if label not in LABELS:
            raise SourceError(f"{where}: label {label!r}, expected one of {list(LABELS)}")
        premises = record.get("premises")
        conclusion = record.get("conclusion")
        if not isinstance(premises, list) or not premises or not all(isinstance(p, str) for p in premises):
            raise SourceError(f"{where}: 'premises' should be a non-empty list of strings")
        if not isinstance(conclusion, str) or not conclusion.strip():
            raise SourceError(f"{where}: 'conclusion' should be a non-empty string")
        story = stories.setdefault(tuple(premises), len(stories) + 1)
        state = {"premises": premises, "conclusion": conclusion}
        items.append(reference_item(card, state, LABELS[label], group=f"s{story:04d}"))
    return items
