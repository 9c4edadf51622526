"""squad2_answerability (layer A): can the question be answered from the paragraph? (SQuAD 2.0 dev).

Official file: ``dev-v2.0.json`` - ``{"version": "v2.0", "data": [{"title", "paragraphs": [{"context",
"qas": [{"id", "question", "answers", "is_impossible", ...}]}]}]}``. One item per question; the
state is the paragraph and the question; ``is_impossible`` gives the label. Items keep the file
order; the paragraph (title + index) is recorded as the item's domain.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "dev-v2.0.json"


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    data = source.json(FILE)
    if not isinstance(data, dict) or "data" not in data:
        raise SourceError(f"{source.path(FILE)}: expected an object with a 'data' list (SQuAD 2.0 format)")
    items = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if not isinstance(qa.get("is_impossible"), bool):
                    raise SourceError(f"{source.path(FILE)}: question {qa.get('id')!r} lacks a boolean is_impossible")
                state = {"title": article["title"].replace("_", " "), "paragraph": paragraph["context"],
                         "question": qa["question"]}
                answer = "unanswerable" if qa["is_impossible"] else "answerable"
                items.append(reference_item(card, state, answer, domain=article["title"],
                                            extra={"source_id": qa["id"]}))
    return items
