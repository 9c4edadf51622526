"""Kind ``decision``: transformers' ``pipeline("decision")`` in process (transformers >= 5.24).

One line declares a local decision checkpoint - a decision head such as ``JevForDecision`` loaded
through ``AutoModelForDecision``, or any chat model read by its label logits::

    systems:
      my-decider: {kind: decision, model: /models/my-decider}

Items are asked exactly as the ``systemone`` kind asks them (same question mapping, same answer
reading: :mod:`decisionpivot.evaluate.systemone`), so a checkpoint gives the same probabilities in
process as behind ``transformers serve``'s ``/v1/systemone``. The 5.24 pipeline runs one forward
pass per request and cannot batch requests yet (its ``_forward`` says so), so items are asked one at
a time, as the server does; an item the pipeline rejects (a ValueError: labels that are not single tokens,
more options than the model's labels) becomes an error record, the latter as an input restriction.
torch and transformers are imported only when a ``decision`` system runs (``decisionpivot[decision]``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.http import INPUT_RESTRICTION
from decisionpivot.evaluate.kinds import (
    Emit,
    KindSpec,
    Record,
    RunCounters,
    Setting,
    register,
    text,
)
from decisionpivot.evaluate.questions import DECISION_SETTINGS, AnswerError, as_question, restriction
from decisionpivot.evaluate.systemone import (
    QUESTION_ID,
    decision_readout,
    read_systemone_answer,
    systemone_question,
)
from decisionpivot.evaluate.systems import SystemConfig
from decisionpivot.items import Item


class DecisionPipelineRunner:
    """Answers items with a ``DecisionPipeline`` (built from the config, or injected for tests)."""

    def __init__(self, system: SystemConfig, pipe: Any = None) -> None:
        self.system = system
        s = system.settings
        if pipe is None:
            try:
                import transformers
            except ImportError:
                raise DecisionPivotError(
                    f"system {system.name!r} needs torch and transformers>=5.24: pip install 'decisionpivot[decision]'"
                ) from None
            device = str(s["device"])
            if device == "auto":
                import torch

                device = "cuda" if torch.cuda.is_available() else "cpu"
            try:
                pipe = transformers.pipeline("decision", model=str(s["model"]), device=device, dtype=str(s["dtype"]))
            except KeyError as exc:  # an older transformers without the decision task
                raise DecisionPivotError(
                    f"system {system.name!r}: this transformers ({transformers.__version__}) has no decision pipeline "
                    f"({exc}); install transformers>=5.24"
                ) from None
            except (OSError, ValueError) as exc:
                raise DecisionPivotError(f"system {system.name!r}: cannot load {s['model']!r}: {exc}") from None
        self.pipe = pipe

    def _one(self, item: Item, request: dict[str, Any]) -> Record:
        question = as_question(item, str(self.system.settings["yes_no"]))
        started = time.monotonic()
        try:
            answers = self.pipe(request)
        except ValueError as exc:
            message = " ".join(str(exc).split())[:300]
            limited = "at most" in message or "options" in message
            return {"id": item.id, "error": f"{INPUT_RESTRICTION}: {message}" if limited else f"pipeline: {message}"}
        latency = round(time.monotonic() - started, 3)
        try:
            answer = answers.get(QUESTION_ID) if isinstance(answers, dict) else None
            probabilities = read_systemone_answer(item, question, answer, float(self.system.settings["sum_tolerance"]))
        except AnswerError as exc:
            return {"id": item.id, "error": str(exc), "latency_s": latency}
        return {"id": item.id, "p": probabilities, "latency_s": latency}

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        yes_no = str(self.system.settings["yes_no"])
        for item in items:
            question = as_question(item, yes_no)
            refused = restriction(question, self.system.settings)
            if refused:
                emit({"id": item.id, "error": refused})
                continue
            emit(self._one(item, {"state": item.state, "questions": {QUESTION_ID: systemone_question(question)}}))


register(KindSpec(
    name="decision",
    doc="transformers' pipeline('decision') in process (decision heads, or any chat model by label logits)",
    settings={
        **DECISION_SETTINGS,
        "model": Setting(None, text, "path (or hub id, if your environment may download) of the checkpoint"),
        "device": Setting("auto", text, "cpu, cuda, cuda:N or auto"),
        "dtype": Setting("auto", text, "auto (from the weights), float32, bfloat16, ..."),
    },
    required=("model",),
    make_runner=DecisionPipelineRunner,
    readout=decision_readout("pipeline"),
))
