"""teval_review (layer D): which of five outcomes (A-E) describes this tool call's result?

Source: ``review_str_v1.json`` (T-Eval v1), a JSON object of 487 records keyed by id (``"126"``,
``"query_85_0_0"``, ...), read in file order. Each record holds ``origin_prompt`` (a system message
that defines the options A-E, then a user message with ``Goal``, ``Name``, ``Args`` and ``Response``),
``ground_truth`` (``answer`` A-E and a ``thought``), an empty ``template``, ``meta_data`` and, for 17
records, ``return_tag: true``. Item: the user message text as state (verbatim); the options are parsed
from the system message's ``X: meaning`` lines (verbatim, e.g. ``A: Success -- ...``) and must match
the card's options; the answer is ``ground_truth.answer``; extra ``teval_id`` = the record key.
"""

from __future__ import annotations

import re
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "review_str_v1.json"
OPTION_LINE = re.compile(r"^([A-E]): (.+)$", re.MULTILINE)


def options_from_prompt(system: str) -> list[tuple[str, str]]:
    """The ``(key, meaning)`` pairs defined by the system message, in order."""
    return [(m.group(1), m.group(2).strip()) for m in OPTION_LINE.finditer(system)]


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    data = source.json(FILE)
    if not isinstance(data, dict):
        raise SourceError(f"{source.path(FILE)}: expected a JSON object of records keyed by id")
    expected = [(o.key, o.meaning) for o in card.options]
    items = []
    for key, record in data.items():
        where = f"{source.path(FILE)}: record {key!r}"
        prompt = record.get("origin_prompt") if isinstance(record, dict) else None
        if not (isinstance(prompt, list) and len(prompt) == 2
                and [m.get("role") if isinstance(m, dict) else None for m in prompt] == ["system", "user"]
                and all(isinstance(m.get("content"), str) for m in prompt)):
            raise SourceError(f"{where}: origin_prompt is not [system, user] messages")
        found = options_from_prompt(prompt[0]["content"])
        if found != expected:
            raise SourceError(f"{where}: the system message defines options {found}, the card expects {expected}")
        truth = record.get("ground_truth")
        answer = truth.get("answer") if isinstance(truth, dict) else None
        if answer not in [k for k, _ in expected]:
            raise SourceError(f"{where}: ground_truth.answer is {answer!r}, expected one of A-E")
        items.append(reference_item(card, prompt[1]["content"], answer, extra={"teval_id": key}))
    return items
