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

import inspect
import math
import time
from collections.abc import Sequence
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.checkpoints import load_error, torch_dtype
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    Emit,
    KindSpec,
    Record,
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


class KeyTokenError(DecisionPivotError):
    """An option key whose tokens cannot be told apart from the prompt's (the item's record says so)."""


def key_prompt(tokenizer: Any, item: Item) -> tuple[str, str, list[int]]:
    """(prompt text, text each key follows it with, special tokens before the text) of the key readout.

    With a chat template: the system message and :func:`key_body` through the template with the generation
    prompt, each key right after it, no special tokens added (the template writes them). Without one:
    :func:`plain_prompt`, each key after a space, and the special tokens the tokenizer puts before a text (BOS).
    """
    if getattr(tokenizer, "chat_template", None):
        messages = [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": key_body(item)}]
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return str(text), "", []
    return plain_prompt(item), " ", lead_tokens(tokenizer)


def lead_tokens(tokenizer: Any) -> list[int]:
    """The special tokens the tokenizer puts before a text (BOS), found by tokenizing a short text both ways."""
    bare = list(tokenizer("Answer", add_special_tokens=False)["input_ids"])
    full = list(tokenizer("Answer")["input_ids"])
    lead = next((i for i in range(len(full) - len(bare) + 1) if full[i:i + len(bare)] == bare), 0)
    return full[:lead]


def key_tokens(tokenizer: Any, item: Item) -> tuple[list[int], list[list[int]]]:
    """Token ids of the prompt and of each option key, the key's tokens read from prompt and key tokenized together.

    Each key is tokenized with the prompt before it and the tokens past the prompt's length are the key's: a
    key tokenized alone may differ (a Llama-2-style tokenizer puts a word-start mark before a text's first
    word, so ``"A"`` alone is not the ``"A"`` after ``"assistant:"``). A key whose first token merges with the
    prompt's last (the joint tokens do not start with the prompt's) raises :class:`KeyTokenError`.
    """
    text, join, lead = key_prompt(tokenizer, item)
    prompt = list(tokenizer(text, add_special_tokens=False)["input_ids"])
    continuations = []
    for key in item.option_keys:
        joint = list(tokenizer(text + join + key, add_special_tokens=False)["input_ids"])
        if joint[:len(prompt)] != prompt or len(joint) == len(prompt):
            raise KeyTokenError(f"{item.id}: option key {key!r} does not tokenize apart from the prompt "
                                "(its first token merges with the prompt's last)")
        continuations.append(joint[len(prompt):])
    return lead + prompt, continuations


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
        """Token ids of the prompt and of each option key's continuation (:func:`key_tokens`)."""
        return key_tokens(self.tokenizer, item)

    def _first_pass(self, prompts: Sequence[list[int]]) -> tuple[Any, Any, Any]:
        """One forward pass over the right-padded prompts: (log-probabilities after each prompt's last token, the
        cache, the prompts' mask).

        Right padding needs no attention mask (a causal model's real tokens never see the pads after them), so
        attention takes its causal fast path; only the logits of the prompts' last positions are computed.
        """
        torch = self.torch
        lengths = [len(p) for p in prompts]
        width = max(lengths)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, seq in enumerate(prompts):
            ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, :len(seq)] = 1
        ends = sorted({n - 1 for n in lengths})
        try:
            out = self.model(input_ids=ids.to(self.device), use_cache=True,
                             logits_to_keep=torch.tensor(ends, dtype=torch.long, device=self.device))
            column = {end: j for j, end in enumerate(ends)}
        except TypeError:
            out = self.model(input_ids=ids.to(self.device), use_cache=True)
            column = {end: end for end in ends}
        picked = torch.stack([out.logits[row, column[n - 1]] for row, n in enumerate(lengths)])
        last = torch.log_softmax(picked.float(), dim=-1)
        cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
        return last, cache, mask

    def _rest_of_keys(self, cache: Any, mask: Any, prompt_lengths: Sequence[int],
                      rows: Sequence[tuple[int, list[int]]]) -> list[float]:
        """Log-probability of each key's tokens after its first, continuing the prompts' cached state.

        ``rows`` are (prompt row, key tokens) for keys of two or more tokens; the cache is copied per row
        and the keys' tokens but the last are fed after the prompt (right-padded), so each prompt is read once.
        """
        torch = self.torch
        index = torch.tensor([row for row, _ in rows], dtype=torch.long, device=self.device)
        cache.reorder_cache(index)
        longest = max(len(key) - 1 for _, key in rows)
        ids = torch.full((len(rows), longest), self.pad_id, dtype=torch.long)
        extra = torch.zeros((len(rows), longest), dtype=torch.long)
        positions = torch.zeros((len(rows), longest), dtype=torch.long)
        for r, (row, key) in enumerate(rows):
            ids[r, :len(key) - 1] = torch.tensor(key[:-1], dtype=torch.long)
            extra[r, :len(key) - 1] = 1
            positions[r] = prompt_lengths[row] + torch.arange(longest)
        full_mask = torch.cat([mask[index.cpu()], extra], dim=1)
        named = "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"
        out = self.model(input_ids=ids.to(self.device), attention_mask=full_mask.to(self.device),
                         position_ids=positions.to(self.device), use_cache=True, **{named: cache})
        logprobs = torch.log_softmax(out.logits.float(), dim=-1)
        return [sum(float(logprobs[r, j, key[j + 1]]) for j in range(len(key) - 1)) for r, (_, key) in enumerate(rows)]

    def _score_items(self, encoded: Sequence[tuple[list[int], list[list[int]]]]) -> list[list[float]]:
        """Whole-key log-probabilities for each (prompt, keys): one pass over the prompts, then the keys' later
        tokens from the cached state (only for keys of two or more tokens)."""
        with self.torch.no_grad():
            last, cache, mask = self._first_pass([prompt for prompt, _ in encoded])
            scores = [[float(last[row, key[0]]) for key in keys] for row, (_, keys) in enumerate(encoded)]
            rows = [(row, key) for row, (_, keys) in enumerate(encoded) for key in keys if len(key) > 1]
            if rows:
                rest = iter(self._rest_of_keys(cache, mask, [len(p) for p, _ in encoded], rows))
                for row, (_, keys) in enumerate(encoded):
                    for k, key in enumerate(keys):
                        if len(key) > 1:
                            scores[row][k] += next(rest)
        return scores

    def encode(self, item: Item) -> tuple[list[int], list[list[int]]] | Record:
        """The item's prompt and key tokens, or its error record (keys not apart from the prompt, too long)."""
        try:
            prompt, continuations = self.prompt_and_continuations(item)
        except KeyTokenError as exc:
            return {"id": item.id, "error": str(exc)}
        longest = len(prompt) + max(len(c) for c in continuations)
        if self.context_tokens and longest > self.context_tokens:
            return {"id": item.id, "error": f"{INPUT_RESTRICTION}: input longer than the model context "
                                            f"({longest} tokens > {self.context_tokens})"}
        return prompt, continuations

    def answer(self, items: Sequence[Item]) -> list[Record]:
        """One record per item (in the items' order), the items read in one batch."""
        return self._answer([(item, self.encode(item)) for item in items])

    def _answer(self, batch: Sequence[tuple[Item, tuple[list[int], list[list[int]]] | Record]]) -> list[Record]:
        """Softmax over whole-key log-probabilities, or the item's error.

        Each record also holds ``input_tokens`` (the prompt's tokens plus the keys' tokens but their last: what
        the model read) and ``latency_s`` (the batch's compute time, shared out over its items).
        """
        pending = [(index, encoded) for index, (_, encoded) in enumerate(batch) if isinstance(encoded, tuple)]
        records: list[Record] = [encoded if isinstance(encoded, dict) else {} for _, encoded in batch]
        if pending:
            started = time.monotonic()
            scores = self._score_items([encoded for _, encoded in pending])
            latency = round((time.monotonic() - started) / len(pending), 6)
            for (index, (prompt, keys)), values in zip(pending, scores, strict=True):
                item = batch[index][0]
                records[index] = {"id": item.id, "p": key_probabilities(item.option_keys, values),
                                  "input_tokens": len(prompt) + sum(len(k) - 1 for k in keys), "latency_s": latency}
        return records

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        """Items batched longest prompt first (little padding; the answer file is put back in the items' order)."""
        encoded = [(item, self.encode(item)) for item in items]
        order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i][1][0]) if isinstance(encoded[i][1], tuple)
                       else 0)
        for start in range(0, len(order), self.batch_size):
            for record in self._answer([encoded[i] for i in order[start:start + self.batch_size]]):
                emit(record)


register(KindSpec(
    name="hf",
    doc="a local transformers causal LM: softmax over whole option keys' log-probabilities",
    settings={
        "model": Setting(None, text, "path or hub id of a causal LM (loading never downloads unless allowed)"),
        "device": Setting("auto", text, "cpu, cuda or auto"),
        "batch_size": Setting(8, integer(1), "items (prompts) per forward pass", identity=False),
        "dtype": Setting("float32", text, "float32, bfloat16, ... or auto (from the weights)"),
        "context_tokens": Setting(None, optional_integer(1), "longer inputs are recorded as errors"),
    },
    required=("model",),
    make_runner=HFRunner,
    readout=lambda settings: "hf/key-logits",
))
