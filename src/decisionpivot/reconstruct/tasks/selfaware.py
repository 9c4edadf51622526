"""selfaware (layer A): can this question be answered, or is it unanswerable (no definite answer)?

Source: ``SelfAware.json`` (a JSON object; the 3,369 records are in its ``example`` array, in file
order). Item: the question text as state; options answerable / unanswerable from the boolean
``answerable`` field (True -> answerable, False -> unanswerable); domain = the record's ``source``
(SQuAD/HotpotQA/TriviaQA splits for answerable questions, ``SelfAware`` for the unanswerable ones).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "SelfAware.json"


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    data = source.json(FILE)
    records = data.get("example") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise SourceError(f"{source.path(FILE)}: expected a JSON object with an 'example' array of records")
    items = []
    for i, record in enumerate(records):
        where = f"{source.path(FILE)}: example[{i}]"
        if not isinstance(record, dict) or not isinstance(record.get("question"), str) or not record["question"]:
            raise SourceError(f"{where}: missing question text")
        answerable = record.get("answerable")
        if not isinstance(answerable, bool):
            raise SourceError(f"{where}: 'answerable' is {answerable!r}, expected true or false")
        items.append(reference_item(card, record["question"], "answerable" if answerable else "unanswerable",
                                    domain=str(record.get("source")) if record.get("source") is not None else None))
    return items
