"""halueval_general (layer C): does this ChatGPT response to a user query contain a hallucination?

Source: ``general_data.json`` (JSON Lines despite the name; 4,507 records in file order) with
``ID``, ``user_query``, ``chatgpt_response``, ``hallucination`` (``yes``/``no``, human-annotated) and
``hallucination_spans``. Item: state ``{"user_query", "chatgpt_response"}`` verbatim; options
hallucination / no_hallucination (``yes`` -> hallucination, ``no`` -> no_hallucination). The spans
are not shown (they would give the answer away).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "general_data.json"
LABELS = {"yes": "hallucination", "no": "no_hallucination"}


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for where, record in source.records(FILE):
        label = record.get("hallucination")
        if label not in LABELS:
            raise SourceError(f"{where}: hallucination is {label!r}, expected 'yes' or 'no'")
        query, response = record.get("user_query"), record.get("chatgpt_response")
        if not isinstance(query, str) or not isinstance(response, str) or not query:
            raise SourceError(f"{where}: user_query and chatgpt_response must be strings")
        items.append(reference_item(card, {"user_query": query, "chatgpt_response": response}, LABELS[label]))
    return items
