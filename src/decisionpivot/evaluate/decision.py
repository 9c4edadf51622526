"""Kind ``decision``: transformers' decision pipeline in process (transformers >= 5.24).

One line declares a local decision checkpoint - a decision head such as ``JevForDecision`` loaded
through ``AutoModelForDecision``, or any chat model read by its label logits::

    systems:
      my-decider: {kind: decision, model: /models/my-decider}

**Loaded as ``transformers serve`` loads it** (``cli/serving/model_manager.py``, ``_load_model`` and
``_load_processor``), then wrapped in a ``DecisionPipeline`` as its ``/v1/systemone`` handler wraps it:
``AutoModelForDecision`` first (a decision model, or a checkpoint shipping a decision head next to its
weights); when that says the checkpoint is neither, ``AutoModelForMultimodalLM`` for a multimodal model type
(Gemma 4, Qwen3.5) or the class named by ``config.json``'s ``architectures`` (Llama, Qwen2, Gemma 3 ...);
the processor from ``AutoProcessor``, or the tokenizer when the checkpoint has no processor that loads here
(a text-only export, or image/video processors needing torchvision: the items are text). Not through
``pipeline("decision", model=PATH)``: for the config types transformers 5.24 maps to ``JevForDecision``
(``qwen2``, ``qwen3_5``, ``gemma4``) that call tries ``JevForDecision.from_pretrained(PATH)`` without the
checkpoint's config (``pipelines.base.load_model`` keeps it back), which reads ``config.json`` as a
``JevConfig`` with its defaults: a plain Qwen2 checkpoint becomes a default-size JEV (a 4096-wide,
32-layer ``qwen3_5_text`` body: the process is killed for memory), a Qwen3.5 or Gemma 4 one a JEV with a
random 4096-wide head that fails on the first item. Every loader gets ``trust_remote_code=False`` and a
pickle is read as tensors only (:mod:`decisionpivot.evaluate.checkpoints`); a checkpoint that cannot load
is one error line.

Items are asked exactly as the ``systemone`` kind asks them (same question mapping, same answer
reading: :mod:`decisionpivot.evaluate.systemone`), so a checkpoint gives the same probabilities in
process as behind ``transformers serve``'s ``/v1/systemone``. The 5.24 pipeline runs one forward
pass per request and cannot batch requests yet (its ``_forward`` says so), so items are asked one at
a time, as the server does; an item the pipeline rejects (a ValueError) is judged as ``transformers serve``'s
422 with that message is (:mod:`decisionpivot.evaluate.outcome`): more options than the model's labels is an
input restriction, anything else (labels that are not single tokens for the model) is no answer - a transient
record, and ``dp evaluate`` exits 1 saying so. Any other failure of the model stops the run with one line: it is
the checkpoint's, not the item's.

``threads`` (default :data:`DEFAULT_THREADS`) is set with ``torch.set_num_threads`` before loading: one
request is a few small matrix products, and on the 2-core machine ``benchmarks/decision_threads.py``
measured torch's default (one thread per core) at a fraction of one thread's items/s (README, Benchmarks);
``threads: 0`` keeps torch's default. It does not change the answers beyond float rounding of a
reduction order, so it is not part of the run's fingerprint; the meta file records it with the settings.
torch and transformers are imported only when a ``decision`` system runs (``decisionpivot[decision]``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.checkpoints import load_error, one_line, torch_dtype
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    Emit,
    KindSpec,
    Record,
    RunCounters,
    Setting,
    SystemConfig,
    integer,
    register,
    text,
)
from decisionpivot.evaluate.outcome import NotAnAnswer, Verdict, status_verdict
from decisionpivot.evaluate.questions import DECISION_SETTINGS
from decisionpivot.evaluate.systemone import SystemOneWire, decision_readout
from decisionpivot.items import Item

DEFAULT_THREADS = 1
"""torch intra-op threads of a ``decision`` system unless its ``threads`` says otherwise (see the docstring)."""


def load_model(transformers: Any, path: str, **kwargs: Any) -> Any:
    """The model at ``path`` as ``transformers serve`` loads it (module docstring); ``kwargs`` go to each loader."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES

    config = transformers.AutoConfig.from_pretrained(path, trust_remote_code=False)
    try:
        return transformers.AutoModelForDecision.from_pretrained(path, **kwargs)
    except ValueError as exc:  # neither a decision model nor a checkpoint with a decision head
        if "trust_remote_code" in str(exc):
            raise
    if config.model_type in MODEL_FOR_MULTIMODAL_LM_MAPPING_NAMES:
        return transformers.AutoModelForMultimodalLM.from_pretrained(path, **kwargs)
    names = getattr(config, "architectures", None) or []
    architecture = getattr(transformers, names[0], None) if names else None
    if architecture is None:
        raise ValueError(f"config.json names no architecture this transformers has (architectures: {names})")
    return architecture.from_pretrained(path, **kwargs)


def load_processor(transformers: Any, path: str) -> Any:
    """``AutoProcessor`` as ``transformers serve`` loads it, else the tokenizer (the items are text only)."""
    try:
        return transformers.AutoProcessor.from_pretrained(path, trust_remote_code=False)
    except (OSError, ValueError, ImportError, AttributeError, TypeError, KeyError) as exc:
        if "trust_remote_code" in str(exc):  # the processor's own code: refused, never worked around
            raise
        return transformers.AutoTokenizer.from_pretrained(path, trust_remote_code=False)


def load_pipeline(system: SystemConfig) -> Any:
    """A ``DecisionPipeline`` around the checkpoint of ``system``, loaded as ``transformers serve`` loads it."""
    s = system.settings
    try:
        import torch
        import transformers
    except ImportError:
        raise DecisionPivotError(
            f"system {system.name!r} needs torch and transformers>=5.24: pip install 'decisionpivot[decision]'"
        ) from None
    try:
        from transformers.pipelines import DecisionPipeline
    except ImportError:
        raise DecisionPivotError(f"system {system.name!r}: this transformers ({transformers.__version__}) has no "
                                 "decision pipeline; install transformers>=5.24") from None
    if int(s["threads"]):
        torch.set_num_threads(int(s["threads"]))
    device = str(s["device"])
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    path = str(s["model"])
    dtype = torch_dtype(system.name, torch, str(s["dtype"]))
    try:
        model = load_model(transformers, path, trust_remote_code=False, dtype=dtype, device_map=device)
        processor = load_processor(transformers, path)
        tokenizer = getattr(processor, "tokenizer", processor)
        is_processor = isinstance(processor, transformers.ProcessorMixin)
        return DecisionPipeline(model=model, tokenizer=tokenizer, processor=processor if is_processor else None,
                                device=model.device)
    except Exception as exc:  # the checkpoint's fault, whatever the loader raised: one line
        raise load_error(system.name, path, exc) from None


class DecisionPipelineRunner:
    """Answers items with a ``DecisionPipeline`` (loaded from the config, or given)."""

    def __init__(self, system: SystemConfig, pipe: Any = None) -> None:
        self.system = system
        self.pipe = load_pipeline(system) if pipe is None else pipe
        self.wire = SystemOneWire(system.settings)  # the same question and the same answer reading as the HTTP kind

    def _one(self, item: Item) -> Record:
        """One item through the pipeline's steps as the ``/v1/systemone`` handler runs them (same input count)."""
        wire, pipe = self.wire, self.pipe
        request = {key: value for key, value in wire.request(item).items() if key != "model"}
        started = time.monotonic()
        try:
            model_inputs = pipe.preprocess(request)
            answers = pipe.postprocess(pipe.forward(model_inputs))
        except ValueError as exc:  # judged as transformers serve sends it: a 422 with the message
            message = one_line(str(exc))
            verdict = status_verdict(422, message)
            if verdict is Verdict.INPUT_RESTRICTION:
                return {"id": item.id, "error": f"{INPUT_RESTRICTION}: {message}"}
            if verdict is Verdict.STOP:
                raise DecisionPivotError(f"system {self.system.name!r}: the pipeline refused a request parameter on "
                                         f"{item.id}: {message}") from None
            return {"id": item.id, "error": f"pipeline: {message}", "transient": True}
        except Exception as exc:  # not the item's fault: the model cannot run (a broken checkpoint, out of memory)
            raise DecisionPivotError(f"system {self.system.name!r}: the model failed on {item.id}: "
                                     f"{type(exc).__name__}: {one_line(str(exc))}") from None
        latency = round(time.monotonic() - started, 3)
        input_tokens = sum(int(inputs["input_ids"].shape[-1]) for inputs, _ in model_inputs["prompts"])
        body = {"answers": answers if isinstance(answers, dict) else {},
                "usage": {"input_tokens": input_tokens, "output_tokens": 0}}
        try:
            return {**wire.parse(item, body), "latency_s": latency}
        except NotAnAnswer as exc:  # what the HTTP kinds retry: in process, asking again gives the same
            return {"id": item.id, "error": str(exc), "transient": True, "latency_s": latency}

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        for item in items:
            refused = self.wire.refused(item)
            emit({"id": item.id, "error": refused} if refused is not None else self._one(item))


register(KindSpec(
    name="decision",
    doc="transformers' DecisionPipeline in process, loaded as transformers serve loads it (decision heads, or any "
        "chat model by label logits)",
    settings={
        **DECISION_SETTINGS,
        "model": Setting(None, text, "path (or hub id, if your environment may download) of the checkpoint"),
        "device": Setting("auto", text, "cpu, cuda, cuda:N or auto"),
        "dtype": Setting("auto", text, "auto (from the weights), float32, bfloat16, ..."),
        "threads": Setting(DEFAULT_THREADS, integer(0), "torch CPU threads (0: torch's default, one per core); "
                           "see benchmarks/decision_threads.py", identity=False),
    },
    required=("model",),
    make_runner=DecisionPipelineRunner,
    readout=decision_readout("pipeline"),
    questions_per_request="several",  # the System One body, companions included, as transformers serve gets it
))
