"""when2call (layer D): should the assistant call a tool, ask for information, decline, or answer directly?

An item is one line of ``data/test/when2call_test_mcq.jsonl`` (keys uuid, source, source_id,
question, orig_question, correct_answer, answers, target_tool, tools, orig_tools, held_out_param).
The state is the question, the tools offered (each published as a JSON string, decoded to an
object) and the four candidate responses of the multiple-choice format, keyed by behaviour.
Answer: ``correct_answer`` (tool_call, request_for_info, cannot_answer, direct). The domain is the
BFCL source category; ``uuid`` goes to ``extra``.
"""

from __future__ import annotations

import json
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

PATH = "data/test/when2call_test_mcq.jsonl"
BEHAVIOURS = ("tool_call", "request_for_info", "cannot_answer", "direct")


def _tool(source: SourceFolder, tool: Any, line: int) -> Any:
    if not isinstance(tool, str):
        return tool
    try:
        return json.loads(tool)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{source.path(PATH)}:{line}: a tool is not valid JSON ({exc.msg})") from None


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for line, record in enumerate(source.jsonl(PATH), start=1):
        for key in ("uuid", "source", "question", "correct_answer", "answers", "tools"):
            if key not in record:
                raise SourceError(f"{source.path(PATH)}: record {line} lacks key {key!r}")
        if record["correct_answer"] not in BEHAVIOURS:
            raise SourceError(f"{source.path(PATH)}: record {line} has correct_answer {record['correct_answer']!r}")
        answers = record["answers"]
        if not isinstance(answers, dict) or any(b not in answers for b in BEHAVIOURS):
            raise SourceError(f"{source.path(PATH)}: record {line} needs answers for {', '.join(BEHAVIOURS)}")
        state = {"question": record["question"],
                 "tools": [_tool(source, t, line) for t in record["tools"]],
                 "candidate_responses": {b: answers[b] for b in BEHAVIOURS}}
        items.append(reference_item(card, state, record["correct_answer"], domain=record["source"],
                                    extra={"source_id": record["uuid"]}))
    return items
