"""bfcl_relevance (layer D): given the conversation and the available functions, should the assistant
call a function or abstain?

Source: six BFCL v4 files of one commit (JSON Lines despite the name). The category is the label, as
in BFCL's own relevance scoring: ``BFCL_v4_irrelevance.json`` (240) and ``BFCL_v4_live_irrelevance.json``
(884, user-contributed) offer no fitting function (abstain); ``BFCL_v4_live_relevance.json`` (16),
``BFCL_v4_live_simple.json`` (258), ``BFCL_v4_simple_python.json`` (400) and ``BFCL_v4_multiple.json``
(200) are categories where calling an offered function is correct (call); their possible answers are
not needed to know that a call is due. Item: state ``{"question": <the record's chat turns, verbatim>,
"function": <the function documents, verbatim>}``; options call / abstain; domain = the category;
extra ``bfcl_id`` = the record id.

``variation`` is the stratum the card samples within (``shares: equal, within: variation``):
``<origin>/<offer>``, origin ``live`` (user-contributed) or ``non_live`` (written by the BFCL
authors), offer ``no_function``, ``one_function`` or ``several_functions``. Both classes get the same
count in every stratum that holds both, so neither the origin's style nor the number of functions
offered predicts the answer in the sample.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

CATEGORIES = (
    ("irrelevance", "abstain", "non_live"),
    ("live_irrelevance", "abstain", "live"),
    ("live_relevance", "call", "live"),
    ("live_simple", "call", "live"),
    ("multiple", "call", "non_live"),
    ("simple_python", "call", "non_live"),
)
"""(BFCL category, answer, origin), in reading order."""


def offer(functions: list[Any]) -> str:
    """How many functions the record offers, as a stratum name."""
    if not functions:
        return "no_function"
    return "one_function" if len(functions) == 1 else "several_functions"


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for category, answer, origin in CATEGORIES:
        path = f"BFCL_v4_{category}.json"
        for where, record in source.records(path):
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
                                        domain=category, variation=f"{origin}/{offer(functions)}",
                                        extra={"bfcl_id": rid}))
    return items
