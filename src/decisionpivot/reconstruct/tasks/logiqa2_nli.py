"""logiqa2_nli (layer E): is the conclusion entailed by the premises? (LogiQA 2.0, NLI version, test).

File: ``test.txt`` (JSON Lines despite the name; 3,942 records with ``major_premise``,
``minor_premise``, ``conclusion``, ``label``; 3 records also carry a ``type`` object). One item per
record, in file order. The state holds the three fields exactly as the file gives them:
``major_premise`` is a string in some records and a list of strings (possibly empty) in others,
and is kept in that form. Labels map ``entailed`` -> ``entailed``, ``not entailed`` -> ``not_entailed``.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "test.txt"
LABELS = {"entailed": "entailed", "not entailed": "not_entailed"}


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for where, record in source.records(FILE):
        label = record.get("label")
        if label not in LABELS:
            raise SourceError(f"{where}: label {label!r}, expected one of {list(LABELS)}")
        major = record.get("major_premise")
        if not (isinstance(major, str) or (isinstance(major, list) and all(isinstance(m, str) for m in major))):
            raise SourceError(f"{where}: 'major_premise' should be a string or a list of strings")
        for key in ("minor_premise", "conclusion"):
            if not isinstance(record.get(key), str):
                raise SourceError(f"{where}: {key!r} should be a string")
        if not record["conclusion"].strip():
            raise SourceError(f"{where}: empty conclusion")
        state = {"major_premise": major, "minor_premise": record["minor_premise"], "conclusion": record["conclusion"]}
        items.append(reference_item(card, state, LABELS[label]))
    return items
