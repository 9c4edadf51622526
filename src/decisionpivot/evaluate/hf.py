"""The `hf` runner: option-key probabilities from a local transformers causal LM.

Readout (paper, Appendix B, for open general models): the prompt is the chat request with the
closing replaced by "Answer with one option key." and an answer cue; each option key is scored as
a whole continuation (sum of its tokens' log-probabilities), and a softmax over the listed options
gives the distribution. Scoring whole keys handles keys that share a first token (``yes_only_A``
and ``yes_only_B``). Sequences are left-padded and batched, and only the logits of the last
positions are kept, so memory does not grow with vocabulary x prompt length.

Loading passes ``trust_remote_code=False`` to every loader (transformers never asks on stdin, a checkpoint's own
code never runs) and reads pickle weights as tensors only; a checkpoint that cannot load is one error line
(:mod:`decisionpivot.evaluate.checkpoints`). torch and transformers are imported only when an ``hf`` system
runs (extra ``decisionpivot[hf]``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.checkpoints import load_error, torch_dtype
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    Emit,
    KindSpec,
    RunCounters,
    Setting,
    SystemConfig,
    integer,
    optional_integer,
    register,
    text,
)
from decisionpivot.evaluate.prompt import SYSTEM_MESSAGE, user_message
from decisionpivot.items import Item

INSTRUCTION = "Answer with one option key."


def key_body(item: Item) -> str:
    """The user message of the key readout: the chat request with its closing replaced by :data:`INSTRUCTION`."""
    return user_message(item).rsplit("Reply with the JSON object", 1)[0] + INSTRUCTION


def plain_prompt(item: Item) -> str:
    """The whole prompt for a model without a chat template; each key is scored after it with a space before it."""
    return f"{SYSTEM_MESSAGE}\n\n{key_body(item)}\nAnswer:"


def key_probabilities(keys: Sequence[str], log_likelihoods: Sequence[float]) -> dict[str, float]:
    """Softmax over the keys' log-likelihoods: ``p(k) = exp(l_k - max l) / sum_j exp(l_j - max l)``."""
    top = max(log_likelihoods)
    weights = [math.exp(v - top) for v in log_likelihoods]
    total = sum(weights)
    return {key: w / total for key, w in zip(keys, weights, strict=True)}


class HFRunner:
    """Scores option keys with a causal LM loaded from a local path (or an injected model)."""

    def __init__(self, system: SystemConfig, model: Any = None, tokenizer: Any = None) -> None:
        try:
            import torch
            import transformers
        except ImportError:
            raise DecisionPivotError(
                f"system {system.name!r} needs torch and transformers: pip install 'decisionpivot[hf]'"
            ) from None
        self.torch = torch
        s = system.settings
        self.batch_size = int(s["batch_size"])
        device = str(s["device"])
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        dtype = torch_dtype(system.name, torch, str(s["dtype"]))
        path = str(s["model"])
        try:  # never the checkpoint's own code, never a pickle beyond tensors (decisionpivot.evaluate.checkpoints)
            if model is None:  # first: its config says at once whether the checkpoint needs its own code
                model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype, trust_remote_code=False)
            if tokenizer is None:
                tokenizer = transformers.AutoTokenizer.from_pretrained(path, trust_remote_code=False)
        except Exception as exc:  # the checkpoint's fault, whatever the loader raised: one line
            raise load_error(system.name, path, exc) from None
        self.tokenizer = tokenizer
        self.model = model.to(self.device).eval()
        limit = s.get("context_tokens") or getattr(model.config, "max_position_embeddings", None) \
            or getattr(model.config, "n_positions", None)
        self.context_tokens = int(limit) if limit else None
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        if self.pad_id is None:
            self.pad_id = 0

    def prompt_and_continuations(self, item: Item) -> tuple[list[int], list[list[int]]]:
        """Token ids of the prompt and of each option key's continuation."""
        if getattr(self.tokenizer, "chat_template", None):
            messages = [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": key_body(item)}]
            text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            prompt = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            continuations = [self.tokenizer(k, add_special_tokens=False)["input_ids"] for k in item.option_keys]
        else:
            prompt = self.tokenizer(plain_prompt(item))["input_ids"]
            continuations = [self.tokenizer(" " + k, add_special_tokens=False)["input_ids"] for k in item.option_keys]
        if any(not c for c in continuations):
            raise DecisionPivotError(f"{item.id}: an option key tokenises to nothing")
        return list(prompt), [list(c) for c in continuations]

    def _score(self, sequences: Sequence[tuple[list[int], list[int]]]) -> list[float]:
        """Log-probability of each continuation after its prompt, batched with left padding."""
        torch = self.torch
        full = [p + c for p, c in sequences]
        width = max(len(s) for s in full)
        keep = max(len(c) for _, c in sequences) + 1
        ids = torch.full((len(full), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(full), width), dtype=torch.long)
        for row, seq in enumerate(full):
            ids[row, width - len(seq):] = torch.tensor(seq, dtype=torch.long)
            mask[row, width - len(seq):] = 1
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        with torch.no_grad():
            inputs = {"input_ids": ids.to(self.device), "attention_mask": mask.to(self.device),
                      "position_ids": positions.to(self.device)}
            try:
                logits = self.model(**inputs, logits_to_keep=keep).logits
            except TypeError:
                logits = self.model(**inputs).logits[:, -keep:, :]
            logprobs = torch.log_softmax(logits.float(), dim=-1)
        scores = []
        for row, (_, cont) in enumerate(sequences):
            total = 0.0
            # logits[:, j] predicts the token at absolute position width - keep + j + 1
            for offset, token in enumerate(cont):
                j = keep - len(cont) - 1 + offset
                total += float(logprobs[row, j, token])
            scores.append(total)
        return scores

    def answer(self, items: Sequence[Item]) -> list[dict[str, Any]]:
        """One record per item: softmax over whole-key log-probabilities, or an error."""
        records: list[dict[str, Any] | None] = [None] * len(items)
        pending: list[tuple[int, int, list[int], list[int]]] = []
        for index, item in enumerate(items):
            prompt, continuations = self.prompt_and_continuations(item)
            longest = len(prompt) + max(len(c) for c in continuations)
            if self.context_tokens and longest > self.context_tokens:
                records[index] = {"id": item.id, "error": f"{INPUT_RESTRICTION}: input longer than the model context "
                                                          f"({longest} tokens > {self.context_tokens})"}
                continue
            pending.extend((index, k, prompt, c) for k, c in enumerate(continuations))
        scores: dict[tuple[int, int], float] = {}
        for start in range(0, len(pending), self.batch_size):
            chunk = pending[start:start + self.batch_size]
            for (index, k, _, _), value in zip(chunk, self._score([(p, c) for _, _, p, c in chunk]), strict=True):
                scores[(index, k)] = value
        for index, item in enumerate(items):
            if records[index] is not None:
                continue
            values = [scores[(index, k)] for k in range(len(item.options))]
            records[index] = {"id": item.id, "p": key_probabilities(item.option_keys, values)}
        return [r for r in records if r is not None]

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        for start in range(0, len(items), self.batch_size):
            for record in self.answer(items[start:start + self.batch_size]):
                emit(record)


register(KindSpec(
    name="hf",
    doc="a local transformers causal LM: softmax over whole option keys' log-probabilities",
    settings={
        "model": Setting(None, text, "path or hub id of a causal LM (loading never downloads unless allowed)"),
        "device": Setting("auto", text, "cpu, cuda or auto"),
        "batch_size": Setting(8, integer(1), "sequences per forward pass", identity=False),
        "dtype": Setting("float32", text, "float32, bfloat16, ... or auto (from the weights)"),
        "context_tokens": Setting(None, optional_integer(1), "longer inputs are recorded as errors"),
    },
    required=("model",),
    make_runner=HFRunner,
    readout=lambda settings: "hf/key-logits",
))
