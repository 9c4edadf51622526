"""Kind ``openai_decisions``: OpenAI's Decisions API shape (``POST /v1/decisions``, also at Fireworks).

Request: ``{"model", "input": <state as text>, "questions": [{"type", "name": "decision",
"instructions", ...}]}`` - an ARRAY of questions, each named. Yes/no items are ``predicate``
questions (the noul criteria are appended to the instructions, as LangChain maps them) unless
``yes_no: choice``; score items are ``score`` questions with ``levels`` [{label: level name, description: what
the level means}] in the item's order (lowest first); other items are ``choice`` with ``choices`` [{value: key,
description: meaning}] in the item's order. Structured states are sent as their indented JSON (``input`` is text).

Response: ``answers``, an array in question order; the answer is found by its ``name``, never by
position (an invariance-suite item's ``companions`` are further named questions of the same
request, ``companion-<id>``; only ``decision`` is recorded). predicate -> ``probability`` = P(yes);
choice -> ``probabilities`` [{value, probability}] (values may be booleans: they are matched as
``true``/``false``); score -> ``probabilities`` [{label, value: level index, probability}], read by ``value`` (a
``label`` that is not the level's at that index is no answer), with the answer's own ``score`` and ``confidence``
kept as ``interface_score`` / ``interface_confidence``. A per-question ``refusal``, which the interface
documents, is a final error record with the refusal's text (scored as a failed prediction); a body without our
answer is no answer (transient).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.evaluate.http import HTTP_SETTINGS, SERVED_INSTEAD, HttpRunner
from decisionpivot.evaluate.kinds import KindSpec, Setting, register, text, url_path
from decisionpivot.evaluate.questions import (
    DECISION_SETTINGS,
    NO,
    SCORE,
    SEVERAL,
    YES,
    AnswerError,
    DecisionQuestion,
    DecisionWire,
    Refusal,
    from_distribution,
    from_levels,
    from_true_probability,
    level_parts,
    meaning,
)
from decisionpivot.evaluate.systemone import QUESTION_ID, decision_readout, interface_figures
from decisionpivot.items import Item, render_state


def openai_question(question: DecisionQuestion, name: str = QUESTION_ID) -> dict[str, Any]:
    if question.type == "noul":
        instructions = (f"{question.instructions}\nTrue means: {meaning(question, YES)}\n"
                        f"False means: {meaning(question, NO)}")
        return {"type": "predicate", "name": name, "instructions": instructions}
    if question.type == SCORE:
        levels = [level_parts(text_) for _, text_ in question.options]
        return {"type": SCORE, "name": name, "instructions": question.instructions,
                "levels": [{"label": label, "description": description} for label, description in levels]}
    return {"type": "choice", "name": name, "instructions": question.instructions,
            "choices": [{"value": key, "description": text_} for key, text_ in question.options]}


def _value_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    raise AnswerError(f"choice value is not a string: {str(value)[:60]!r}")


def named_answer(answers: Any) -> dict[str, Any]:
    """The answer named :data:`QUESTION_ID` of an ``answers`` array (found by name, never by position)."""
    if not isinstance(answers, list):
        raise AnswerError("no 'answers' array")
    named = [a for a in answers if isinstance(a, dict) and a.get("name") == QUESTION_ID]
    if not named:
        raise AnswerError(f"no answer named {QUESTION_ID!r}")
    return named[0]


def read_score_levels(question: DecisionQuestion, listed: list[Any], tolerance: float) -> dict[str, float]:
    """Option probabilities from a score answer's [{label, value: index, probability}] (see the module docstring)."""
    labels = [level_parts(text_)[0] for _, text_ in question.options]
    by_index: dict[str, Any] = {}
    for entry in listed:
        if not isinstance(entry, dict) or "value" not in entry or "probability" not in entry:
            raise AnswerError(f"probabilities entry is not {{label, value, probability}}: {str(entry)[:80]}")
        value = entry["value"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(labels):
            raise AnswerError(f"score level value is not a level index 0-{len(labels) - 1}: {str(value)[:60]!r}")
        if "label" in entry and entry["label"] != labels[value]:
            raise AnswerError(f"level {value} is {labels[value]!r}, the answer calls it {str(entry['label'])[:60]!r}")
        if str(value) in by_index:
            raise AnswerError(f"level {value} listed twice")
        by_index[str(value)] = entry["probability"]
    return from_levels(question, by_index, tolerance)


def read_openai_answer(item: Item, question: DecisionQuestion, answers: Any, tolerance: float) -> dict[str, float]:
    answer = named_answer(answers)
    if answer.get("refusal"):
        raise Refusal(f"refusal: {str(answer['refusal'])[:300]}")
    if question.type == "noul":
        if "probability" not in answer:
            raise AnswerError("predicate answer without 'probability'")
        return from_true_probability(item, answer["probability"])
    listed = answer.get("probabilities")
    if not isinstance(listed, list):
        raise AnswerError(f"{question.type} answer without a 'probabilities' list")
    if question.type == SCORE:
        return read_score_levels(question, listed, tolerance)
    distribution: dict[str, Any] = {}
    for entry in listed:
        if not isinstance(entry, dict) or "value" not in entry or "probability" not in entry:
            raise AnswerError(f"probabilities entry is not {{value, probability}}: {str(entry)[:80]}")
        name = _value_name(entry["value"])
        if name in distribution:
            raise AnswerError(f"option {name!r} listed twice")
        distribution[name] = entry["probability"]
    return from_distribution(item, distribution, tolerance)


class OpenAIDecisionsWire(DecisionWire):
    def body(self, item: Item, question: DecisionQuestion) -> dict[str, Any]:
        return {"model": self.settings["model"], "input": render_state(item.state),
                "questions": [openai_question(question),
                              *(openai_question(q, name) for name, q in self.companions(item))]}

    def read(self, item: Item, question: DecisionQuestion, body: dict[str, Any], tolerance: float) -> dict[str, float]:
        return read_openai_answer(item, question, body.get("answers"), tolerance)

    def extras(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            answer = named_answer(body.get("answers"))
        except AnswerError:
            answer = None
        return {**super().extras(body), **interface_figures(answer)}


register(KindSpec(
    name="openai_decisions",
    doc="OpenAI's Decisions API shape (array questions predicate/choice, refusals); also Fireworks",
    settings={
        **HTTP_SETTINGS,
        **DECISION_SETTINGS,
        "base_url": Setting(None, text, "the server's root (e.g. https://api.openai.com)", identity=False),
        "path": Setting("/v1/decisions", url_path, "appended to base_url (Fireworks /inference/v1/decisions)"),
        "model": Setting(None, text, "model name, e.g. gpt-6-luna"),
        "max_levels": Setting(10, DECISION_SETTINGS["max_levels"].check, "most levels per score question (2-10 "
                              "documented); larger scales are recorded as input restrictions, not sent"),
    },
    required=("base_url", "model"),
    instead=SERVED_INSTEAD,
    make_runner=lambda system: HttpRunner(system, OpenAIDecisionsWire(system.settings)),
    readout=decision_readout("openai_decisions"),
    questions_per_request=SEVERAL,
))
