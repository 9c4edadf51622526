"""bfcl_relevance (layer D): given the conversation and the available functions, should the assistant
call a function or abstain?

Source: three BFCL v4 files (JSON Lines despite the name), read in this order:
``BFCL_v4_irrelevance.json`` (240; none of the functions fits: abstain), ``BFCL_v4_live_irrelevance.json``
(884, user-contributed; abstain) and ``BFCL_v4_live_relevance.json`` (16; at least one function
fits: call). The category is the label, as in BFCL's own relevance/irrelevance scoring. Item: state
``{"question": <the record's chat turns, verbatim>, "function": <the function documents, verbatim>}``;
options call / abstain; domain = the category; extra ``bfcl_id`` = the record id.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

CATEGORIES = (("irrelevance", "abstain"), ("live_irrelevance", "abstain"), ("live_relevance", "call"))


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for category, answer in CATEGORIES:
        path = f"BFCL_v4_{category}.json"
        for number, record in enumerate(source.jsonl(path), start=1):
            where = f"{source.path(path)}: record {number}"
            if not isinstance(record, dict):
                raise SourceError(f"{where}: expected a JSON object")
            rid, question, functions = record.get("id"), record.get("question"), record.get("function")
            if not isinstance(rid, str) or not rid.startswith(f"{category}_"):
                raise SourceError(f"{where}: id {rid!r} does not name category {category!r}")
            if not isinstance(question, list) or not question or not all(
                    isinstance(turn, list) and all(isinstance(m, dict) and "role" in m and "content" in m for m in turn)
                    for turn in question):
                raise SourceError(f"{where}: 'question' is not a list of chat turns")
            if not isinstance(functions, list) or not all(isinstance(f, dict) for f in functions):
                raise SourceError(f"{where}: 'function' is not a list of function documents")
            items.append(reference_item(card, {"question": question, "function": functions}, answer,
                                        domain=category, extra={"bfcl_id": rid}))
    return items
