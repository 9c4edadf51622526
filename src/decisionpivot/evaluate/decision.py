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
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    Emit,
    KindSpec,
    Record,
    RunCounters,
    Setting,
    SystemConfig,
    register,
    text,
)
from decisionpivot.evaluate.questions import DECISION_SETTINGS
from decisionpivot.evaluate.systemone import SystemOneWire, decision_readout
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
        self.wire = SystemOneWire(s)  # the same question and the same answer reading as the HTTP kind

    def _one(self, item: Item) -> Record:
        wire = self.wire
        request = {key: value for key, value in wire.request(item).items() if key != "model"}
        started = time.monotonic()
        try:
            answers = self.pipe(request)
        except ValueError as exc:
            message = " ".join(str(exc).split())[:300]
            limited = "at most" in message or "options" in message
            return {"id": item.id, "error": f"{INPUT_RESTRICTION}: {message}" if limited else f"pipeline: {message}"}
        latency = round(time.monotonic() - started, 3)
        record = wire.parse(item, {"answers": answers if isinstance(answers, dict) else {}})
        return {**record, "latency_s": latency}

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        for item in items:
            refused = self.wire.refused(item)
            emit({"id": item.id, "error": refused} if refused is not None else self._one(item))


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
