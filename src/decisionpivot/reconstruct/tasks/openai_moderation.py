"""openai_moderation (layer B): should this text be flagged by a content-moderation system?

Source: ``samples-1680.jsonl.gz`` (gzip JSON Lines; 1,680 records in file order), each a ``prompt``
with human labels for up to eight categories (S sexual, H hate, V violence, HR harassment, SH
self-harm, S3 sexual/minors, H2 hate/threatening, V2 violence/graphic) valued 0, 1 or absent/null
(category not annotated). Item: the prompt text as state; options flagged / not_flagged, where
flagged = at least one category is 1 (the moderation API's ``flagged``); a record with no category
at 1 is not_flagged, whether its other categories are 0 or not annotated. The annotated categories
are kept in ``extra.categories`` (code -> 0/1, unannotated ones omitted).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "samples-1680.jsonl.gz"
CATEGORIES = ("S", "H", "V", "HR", "SH", "S3", "H2", "V2")


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for where, record in source.records(FILE):
        if not isinstance(record.get("prompt"), str) or not record["prompt"]:
            raise SourceError(f"{where}: missing prompt text")
        unknown = [k for k in record if k != "prompt" and k not in CATEGORIES]
        if unknown:
            raise SourceError(f"{where}: unknown field(s) {unknown}")
        labels: dict[str, int] = {}
        for code in CATEGORIES:
            value = record.get(code)
            if value is None:
                continue
            if value not in (0, 1) or isinstance(value, bool):
                raise SourceError(f"{where}: category {code} is {value!r}, expected 0, 1 or null")
            labels[code] = int(value)
        if not labels:
            raise SourceError(f"{where}: no category is annotated")
        answer = "flagged" if any(labels.values()) else "not_flagged"
        items.append(reference_item(card, record["prompt"], answer, extra={"categories": labels}))
    return items
