"""Kind ``systemone``: TypeSafe's System One API and every server that speaks its body.

``POST <base_url><path>`` (path ``/v1/systemone`` by default) with ``{"model", "state", "questions":
{"decision": Q}}``: one item per request, since a request holds one state (its questions are
answered independently, so asking one question loses nothing). An invariance-suite item with
``companions`` (framing ``together``) sends them too, as ``companion-<id>`` questions of the same
request; only the ``decision`` answer is recorded. Q is the item as a typed question
(:mod:`decisionpivot.evaluate.questions`): ``noul`` with criteria ``{"true", "false"}`` for yes/no items
(unless ``yes_no: choice``), ``score`` with ``criteria`` the levels' meanings as an array in the item's order
(lowest first) for score items, else ``choice`` with criteria option key -> meaning in the item's order.

The answer is read by question id, never by position: ``noul`` -> P(true) (or, as vLLM also sends,
``probabilities.true``); ``choice`` -> ``probabilities`` {option: p}, renormalised within tolerance; ``score`` ->
``probabilities`` {"0": p, ...} by level index, mapped to the listed option keys, and the interface's own
``score`` (sum of index x p) and ``confidence`` kept on the record as ``interface_score`` and
``interface_confidence`` when they are numbers (what the interface said; the scorer computes its own from ``p``).
Extras (vLLM's ``diagnostics``, ``confidence``, ``legend``) are tolerated; ``label_mass`` is kept on the
record when a server reports it. The interface documents no refusal: a ``refusal`` in place of an answer is
no answer (transient, :mod:`decisionpivot.evaluate.outcome`), and so is a body without the answer asked for.
``usage.input_tokens`` / ``output_tokens`` become ``input_tokens`` / ``tokens``.

The same body is served by TypeSafe (``https://api.typesafe.ai``), vLLM, llama.cpp's ``llama-server``,
Ollama, OpenRouter (base ``https://openrouter.ai/api``), Perplexity (path ``/v1/decisions``: the
shape is the config's, never inferred from the path), Databricks (``auth_scheme: Basic``),
DigitalOcean, Fireworks (path ``/inference/v1/systemone``) and ``transformers serve``.
"""

from __future__ import annotations

import math
from typing import Any

from decisionpivot.evaluate.http import HTTP_SETTINGS, SERVED_INSTEAD, HttpRunner, usage_fields
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
    from_distribution,
    from_levels,
    from_true_probability,
    meaning,
)
from decisionpivot.items import Item

QUESTION_ID = "decision"
"""The id of the one question of each request (ids are not shown to the model)."""


def systemone_question(question: DecisionQuestion) -> dict[str, Any]:
    """The System One question object."""
    if question.type == "noul":
        return {"type": "noul", "instructions": question.instructions,
                "criteria": {"true": meaning(question, YES), "false": meaning(question, NO)}}
    if question.type == SCORE:
        return {"type": SCORE, "instructions": question.instructions,
                "criteria": [text_ for _, text_ in question.options]}
    return {"type": "choice", "instructions": question.instructions,
            "criteria": {key: text_ for key, text_ in question.options}}


def read_systemone_answer(item: Item, question: DecisionQuestion, answer: Any, tolerance: float) -> dict[str, float]:
    """Option probabilities from one System One answer object (see the module docstring)."""
    if not isinstance(answer, dict):
        raise AnswerError(f"no answer for question {QUESTION_ID!r}")
    if answer.get("refusal"):
        raise AnswerError(f"a 'refusal', which the System One interface does not define (not an answer): "
                          f"{str(answer['refusal'])[:300]}")
    kind = answer.get("type")
    if kind is not None and kind != question.type:
        raise AnswerError(f"answer of type {kind!r} to a {question.type} question")
    probabilities = answer.get("probabilities")
    if question.type == "noul":
        if "noul" in answer:
            return from_true_probability(item, answer["noul"])
        if isinstance(probabilities, dict) and set(probabilities) == {"true", "false"}:
            by_option = {YES: probabilities["true"], NO: probabilities["false"]}
            return from_distribution(item, by_option, tolerance)
        raise AnswerError("noul answer without 'noul' (P(true))")
    if not isinstance(probabilities, dict):
        raise AnswerError(f"{question.type} answer without 'probabilities'")
    if question.type == SCORE:
        return from_levels(question, probabilities, tolerance)
    return from_distribution(item, probabilities, tolerance)


def interface_figures(answer: Any) -> dict[str, float]:
    """A score answer's own ``score`` and ``confidence`` as ``interface_score`` / ``interface_confidence``, when
    they are finite numbers (extras of the record: the scorer reads ``p``). An answer is a score answer when it has a
    ``score`` and its ``type``, if it says one, is ``score``."""
    if not isinstance(answer, dict) or answer.get("type", SCORE) != SCORE or "score" not in answer:
        return {}
    out = {}
    for field, name in (("score", "interface_score"), ("confidence", "interface_confidence")):
        value = answer.get(field)
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            out[name] = float(value)
    return out


def label_mass(answer: Any, body: Any) -> dict[str, float]:
    """``label_mass`` from an answer (SGLang) or vLLM's ``diagnostics``, when it is a number in [0, 1]."""
    for source in (answer, body.get("diagnostics") if isinstance(body, dict) else None):
        if isinstance(source, dict):
            value = source.get("label_mass")
            if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
                return {"label_mass": float(value)}
    return {}


class SystemOneWire(DecisionWire):
    """The System One body over the shared HTTP engine."""

    def body(self, item: Item, question: DecisionQuestion) -> dict[str, Any]:
        questions = {QUESTION_ID: systemone_question(question)}
        questions.update({name: systemone_question(q) for name, q in self.companions(item)})
        return {"model": self.settings["model"], "state": item.state, "questions": questions}

    def read(self, item: Item, question: DecisionQuestion, body: dict[str, Any], tolerance: float) -> dict[str, float]:
        if not isinstance(body.get("answers"), dict):
            raise AnswerError("malformed response body (no 'answers' object)")
        return read_systemone_answer(item, question, body["answers"].get(QUESTION_ID), tolerance)

    def extras(self, body: dict[str, Any]) -> dict[str, Any]:
        answers = body.get("answers")
        answer = answers.get(QUESTION_ID) if isinstance(answers, dict) else None
        return {**usage_fields(body.get("usage")), **label_mass(answer, body), **interface_figures(answer)}


def decision_readout(api: str) -> Any:
    """``<api>/noul`` or ``<api>/choice``: how the system reads yes/no items."""
    return lambda settings: f"{api}/{settings.get('yes_no', 'noul')}"


SYSTEMONE_SETTINGS: dict[str, Setting] = {
    **HTTP_SETTINGS,
    **DECISION_SETTINGS,
    "base_url": Setting(None, text, "the server's root, without the path (e.g. https://api.typesafe.ai)",
                        identity=False),
    "path": Setting("/v1/systemone", url_path, "appended to base_url (Perplexity /v1/decisions, Fireworks "
                    "/inference/v1/systemone)"),
    "model": Setting(None, text, "model name (jev-latest, a pinned jev-1.13.0, a local path for transformers serve)"),
    "max_levels": Setting(10, DECISION_SETTINGS["max_levels"].check, "most levels per score question (TypeSafe "
                          "documents 10; transformers serve 26); larger scales are recorded as input restrictions, "
                          "not sent"),
}


register(KindSpec(
    name="systemone",
    doc="the System One API (TypeSafe, vLLM, llama.cpp, Ollama, OpenRouter, transformers serve, ...)",
    settings=SYSTEMONE_SETTINGS,
    required=("base_url", "model"),
    instead=SERVED_INSTEAD,
    make_runner=lambda system: HttpRunner(system, SystemOneWire(system.settings)),
    readout=decision_readout("systemone"),
    questions_per_request=SEVERAL,
))
