"""when2call (layer D): should the assistant call a tool, ask for information, decline, or answer directly?

An item is one line of ``data/test/when2call_test_mcq.jsonl`` (keys uuid, source, source_id,
question, orig_question, correct_answer, answers, target_tool, tools, orig_tools, held_out_param).
The state is the question, the tools offered (each published as a JSON string, decoded to an
object) and the four candidate responses of the multiple-choice format, keyed by behaviour.
Answer: ``correct_answer`` (tool_call, request_for_info, cannot_answer, direct). The domain is the
BFCL source category; ``uuid`` goes to ``extra``.

Only the keys the item uses are required: in the released LLM-as-judge subset (same format, 300
records) ``orig_question`` and ``held_out_param`` occur only in request_for_info records and
``orig_tools`` only in cannot_answer records, so which optional keys a record has tells its class;
none of them is shown. A tool (or the ``answers`` field) published as a string is decoded as JSON,
or else as a Python literal (``ast.literal_eval``: literals only, nothing is run), since copies of
the release have been described as holding stringified Python.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

PATH = "data/test/when2call_test_mcq.jsonl"
BEHAVIOURS = ("tool_call", "request_for_info", "cannot_answer", "direct")


def decode(value: Any, what: str, where: str) -> Any:
    """A field published as a JSON (or Python-literal) string, decoded; other values as they are."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise SourceError(f"{where}: {what} is neither JSON ({exc.msg}) nor a Python literal") from None


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for where, record in source.records(PATH):
        for key in ("uuid", "source", "question", "correct_answer", "answers", "tools"):
            if key not in record:
                raise SourceError(f"{where}: record lacks key {key!r}")
        if record["correct_answer"] not in BEHAVIOURS:
            raise SourceError(f"{where}: correct_answer {record['correct_answer']!r}, expected one of "
                              f"{', '.join(BEHAVIOURS)}")
        answers = decode(record["answers"], "'answers'", where)
        if not isinstance(answers, dict) or any(b not in answers for b in BEHAVIOURS):
            raise SourceError(f"{where}: 'answers' needs a response for each of {', '.join(BEHAVIOURS)}")
        tools = record["tools"]
        if not isinstance(tools, list):
            raise SourceError(f"{where}: 'tools' should be a list, found {type(tools).__name__}")
        state = {"question": record["question"],
                 "tools": [decode(t, f"tool {n}", where) for n, t in enumerate(tools)],
                 "candidate_responses": {b: answers[b] for b in BEHAVIOURS}}
        items.append(reference_item(card, state, record["correct_answer"], domain=record["source"],
                                    extra={"source_id": record["uuid"]}))
    return items
