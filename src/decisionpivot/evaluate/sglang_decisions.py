"""Kind ``sglang_decisions``: SGLang's own ``POST /v1/decisions`` (any Jinja chat model, read by labels).

Request: ``{"model", "input": <state as text>, "questions": [{"id": "decision", "type": "yes_no" |
"choice", "question": <instructions>, "options": [{"name": key, "description": meaning}]}]}``; a
yes/no item is a ``yes_no`` question with ``yes``/``no`` descriptions unless ``yes_no: choice``; a score item is a
``score`` question with ``levels`` [{"name": level name, "description": what it means}] in the item's order
(lowest first), answered with ``probabilities`` keyed by level index (the digit labels SGLang reads a scale with,
at most 10 levels) or by the levels' names, and a ``score`` kept as ``interface_score``.
``temperature`` is sent when set; an invariance-suite item's ``companions`` are further questions of the
request (``companion-<id>``), only ``decision`` is recorded. Response: ``answers`` {id: {type,
probabilities, label_mass, choice}} - read by id; yes_no probabilities are keyed ``yes``/``no`` (or ``true``/``false``);
``usage.prompt_tokens`` is the input size. SGLang reads at most 26 option labels (a 400 that says so: an input
restriction) and refuses an open reasoning block (another 400: transient, and a run whose first requests all
get it stops as a configuration error; turn thinking off).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.evaluate.http import HTTP_SETTINGS, SERVED_INSTEAD, HttpRunner, usage_fields
from decisionpivot.evaluate.kinds import KindSpec, Setting, optional_number, register, text, url_path
from decisionpivot.evaluate.questions import (
    DECISION_SETTINGS,
    NO,
    SCORE,
    SEVERAL,
    YES,
    AnswerError,
    DecisionQuestion,
    DecisionWire,
    from_distribution,
    from_levels,
    level_parts,
    meaning,
)
from decisionpivot.evaluate.systemone import QUESTION_ID, decision_readout, interface_figures, label_mass
from decisionpivot.items import Item, render_state


def sglang_question(question: DecisionQuestion, name: str = QUESTION_ID) -> dict[str, Any]:
    if question.type == "noul":
        return {"id": name, "type": "yes_no", "question": question.instructions,
                "yes": meaning(question, YES), "no": meaning(question, NO)}
    if question.type == SCORE:
        levels = [level_parts(text_) for _, text_ in question.options]
        return {"id": name, "type": SCORE, "question": question.instructions,
                "levels": [{"name": level, "description": description} for level, description in levels]}
    return {"id": name, "type": "choice", "question": question.instructions,
            "options": [{"name": key, "description": text_} for key, text_ in question.options]}


def read_sglang_answer(item: Item, question: DecisionQuestion, answers: Any, tolerance: float) -> dict[str, float]:
    if not isinstance(answers, dict):
        raise AnswerError("no 'answers' object")
    answer = answers.get(QUESTION_ID)
    if not isinstance(answer, dict):
        raise AnswerError(f"no answer for question {QUESTION_ID!r}")
    probabilities = answer.get("probabilities")
    if not isinstance(probabilities, dict):
        raise AnswerError("answer without 'probabilities'")
    if question.type == "noul" and set(probabilities) == {"true", "false"}:
        probabilities = {YES: probabilities["true"], NO: probabilities["false"]}
    if question.type == SCORE:
        names = [level_parts(text_)[0] for _, text_ in question.options]
        if set(probabilities) == set(names):
            probabilities = {str(names.index(name)): value for name, value in probabilities.items()}
        return from_levels(question, probabilities, tolerance)
    return from_distribution(item, probabilities, tolerance)


class SGLangDecisionsWire(DecisionWire):
    def body(self, item: Item, question: DecisionQuestion) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.settings["model"], "input": render_state(item.state),
                                "questions": [sglang_question(question),
                                              *(sglang_question(q, name) for name, q in self.companions(item))]}
        if self.settings.get("temperature") is not None:
            body["temperature"] = self.settings["temperature"]
        return body

    def read(self, item: Item, question: DecisionQuestion, body: dict[str, Any], tolerance: float) -> dict[str, float]:
        return read_sglang_answer(item, question, body.get("answers"), tolerance)

    def extras(self, body: dict[str, Any]) -> dict[str, Any]:
        answers = body.get("answers")
        answer = answers.get(QUESTION_ID) if isinstance(answers, dict) else None
        return {**usage_fields(body.get("usage")), **label_mass(answer, body), **interface_figures(answer)}


register(KindSpec(
    name="sglang_decisions",
    doc="SGLang's /v1/decisions (id-keyed answers, yes_no questions, label_mass)",
    settings={
        **HTTP_SETTINGS,
        **DECISION_SETTINGS,
        "base_url": Setting(None, text, "the server's root, e.g. http://localhost:30000", identity=False),
        "path": Setting("/v1/decisions", url_path, "appended to base_url"),
        "model": Setting(None, text, "model name as the server knows it"),
        "temperature": Setting(None, optional_number(0, strict=True), "divides the label logits (sent when set)"),
        "max_levels": Setting(10, DECISION_SETTINGS["max_levels"].check, "most levels per score question (SGLang "
                              "reads a scale by digit labels: 10); larger scales are recorded as input restrictions, "
                              "not sent"),
    },
    required=("base_url", "model"),
    instead=SERVED_INSTEAD,
    make_runner=lambda system: HttpRunner(system, SGLangDecisionsWire(system.settings)),
    readout=decision_readout("sglang_decisions"),
    questions_per_request=SEVERAL,
))
