"""aggrefact_sota (layer C): is a summary factually consistent with its document? (AggreFact, SOTA test).

An item is one row of ``data/aggre_fact_sota.csv`` whose ``cut`` is ``test`` (columns include
dataset, origin, id, doc, summary, model_name, label, cut, and per-system scores/labels, which are
ignored). The state is the document and the summary as published; the domain is ``dataset``.
Label: ``label`` 1 -> consistent, 0 -> inconsistent. ``origin`` and ``model_name`` go to ``extra``.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

PATH = "data/aggre_fact_sota.csv"
LABELS = {"1": "consistent", "1.0": "consistent", "0": "inconsistent", "0.0": "inconsistent"}
COLUMNS = ("dataset", "origin", "doc", "summary", "model_name", "label", "cut")


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for number, row in enumerate(source.csv(PATH), start=2):
        missing = [c for c in COLUMNS if row.get(c) is None]
        if missing:
            raise SourceError(f"{source.path(PATH)}:{number}: missing column(s) {', '.join(missing)}")
        if row["cut"] not in ("val", "test"):
            raise SourceError(f"{source.path(PATH)}:{number}: cut {row['cut']!r}, expected val or test")
        if row["cut"] != "test":
            continue
        if row["label"] not in LABELS:
            raise SourceError(f"{source.path(PATH)}:{number}: label {row['label']!r}, expected 0 or 1")
        state = {"document": row["doc"], "summary": row["summary"]}
        items.append(reference_item(card, state, LABELS[row["label"]], domain=row["dataset"],
                                    extra={"origin": row["origin"], "model_name": row["model_name"]}))
    return items
