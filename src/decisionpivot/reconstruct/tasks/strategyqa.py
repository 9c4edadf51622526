"""strategyqa (layer E): implicit multi-step yes/no questions (StrategyQA train set).

Official file: ``strategyqa_train.json`` - a JSON array of ``{"qid", "term", "description",
"question", "answer" (bool), "facts", "decomposition", "evidence"}``. The state is the question
with its term and the term's description; the annotated facts and decomposition are withheld (they
would state the answer).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "strategyqa_train.json"


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    records = source.json(FILE)
    if not isinstance(records, list):
        raise SourceError(f"{source.path(FILE)}: expected a JSON array of questions")
    items = []
    for i, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("question"), str):
            raise SourceError(f"{source.path(FILE)}: record {i} should be an object with a 'question' string")
        if not isinstance(record.get("answer"), bool):
            raise SourceError(f"{source.path(FILE)}: record {i} ({record.get('qid')}) has no boolean answer")
        state = {"question": record["question"], "term": record.get("term", ""),
                 "term_description": record.get("description", "")}
        items.append(reference_item(card, state, "yes" if record["answer"] else "no",
                                    extra={"source_id": record["qid"]}))
    return items
