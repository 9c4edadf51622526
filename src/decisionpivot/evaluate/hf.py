"""The `hf` runner: option-key probabilities from a local transformers causal LM.

Readout (paper, Appendix B, for open general models): the prompt is the chat request with the
closing replaced by "Answer with one option key." and an answer cue; each option key is scored as
a whole continuation (sum of its tokens' log-probabilities), and a softmax over the listed options
gives the distribution. Scoring whole keys handles keys that share a first token (``yes_only_A``
and ``yes_only_B``). Each token is read once per batch: the prompts' shared prefixes (the members of a
contrast group share most of their prompt), then each prompt's rest from the prefix's cached state, then the
keys' later tokens from the prompt's; sequences are right-padded, and only the logits the keys need are
computed, so memory does not grow with vocabulary x prompt length.

Loading passes ``trust_remote_code=False`` to every loader (transformers never asks on stdin, a checkpoint's own
code never runs) and reads pickle weights as tensors only; a checkpoint that cannot load is one error line
(:mod:`decisionpivot.evaluate.checkpoints`). torch and transformers are imported only when an ``hf`` system
runs (extra ``decisionpivot[hf]``).

A model may be one GGUF file (llama.cpp's format, in which most local models are kept): ``model: DIR/NAME.gguf``,
or ``model: DIR_OR_HUB_ID`` with ``gguf_file: NAME.gguf`` for a folder or hub repository holding several
(:func:`checkpoint_of`). transformers reads the architecture, the tokenizer with its chat template and the
weights from the file (``from_pretrained(..., gguf_file=NAME)``, with the ``gguf`` and ``accelerate`` packages),
dequantizing them to ``dtype``; the readout is the same.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError, did_you_mean
from decisionpivot.evaluate.checkpoints import load_error, torch_dtype
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    Emit,
    KindSpec,
    Record,
    RunCounters,
    Setting,
    SettingError,
    SystemConfig,
    integer,
    optional_integer,
    optional_text,
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


Encoded = tuple[list[int], list[list[int]]]
"""An item as the model reads it: the prompt's token ids and each option key's continuation ids."""


def key_tokens(tokenizer: Any, item: Item) -> Encoded:
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


SHARED_PREFIX_TOKENS = 16
"""The shortest prefix worth reading once for several prompts (below it, a prompt is read whole)."""


def shared_prefixes(prompts: Sequence[Sequence[int]], least: int = SHARED_PREFIX_TOKENS) -> list[tuple[int, list[int]]]:
    """Prompts grouped by a shared prefix: (prefix length, prompt indexes), each prompt in exactly one group.

    In token order (lexicographic, so prompts sharing a long prefix are neighbours) a prompt joins the group
    before it when they share at least ``least`` tokens and at least half the group's prefix; the group's
    prefix shrinks to what all its prompts share, and always leaves each prompt at least its last token (the
    keys are read after it). A prompt alone is a group of one with all but its last token as its prefix.
    """
    groups: list[tuple[int, list[int]]] = []
    for i in sorted(range(len(prompts)), key=lambda j: list(prompts[j])):
        prompt = prompts[i]
        if groups:
            length, members = groups[-1]
            previous = prompts[members[-1]]
            shared = 0
            limit = min(length, len(prompt) - 1)
            while shared < limit and previous[shared] == prompt[shared]:
                shared += 1
            if shared >= least and 2 * shared >= length:
                groups[-1] = (shared, [*members, i])
                continue
        groups.append((len(prompt) - 1, [i]))
    return groups


GGUF_SUFFIX = ".gguf"
GGUF_PACKAGES = ("gguf", "accelerate")
"""What transformers needs to load a GGUF file (both in the ``hf`` extra)."""


@dataclass(frozen=True)
class Checkpoint:
    """Where an ``hf`` system's model and tokenizer are loaded from."""

    path: str
    """What ``from_pretrained`` is given: a local folder or a hub id."""
    gguf_file: str | None
    """The GGUF file inside ``path`` (``from_pretrained``'s ``gguf_file``); None: a transformers checkpoint."""


def checkpoint_of(settings: Mapping[str, Any]) -> Checkpoint:
    """The checkpoint an ``hf`` system's settings name: ``gguf_file`` inside ``model``; or a ``model`` ending in
    ``.gguf``, the file itself (its folder, or the hub repository before it, and its name); or ``model``."""
    model = str(settings["model"])
    if settings.get("gguf_file"):
        return Checkpoint(model, str(settings["gguf_file"]))
    if model.lower().endswith(GGUF_SUFFIX):
        folder, name = os.path.split(model)
        return Checkpoint(folder or ".", name)
    return Checkpoint(model, None)


def _check_settings(settings: Mapping[str, Any]) -> None:
    """A GGUF file is named once, and by a name ending in ``.gguf``."""
    named = settings.get("gguf_file")
    if named is None:
        return
    if not str(named).lower().endswith(GGUF_SUFFIX):
        raise SettingError(f"gguf_file: expected the name of a GGUF file (ending in {GGUF_SUFFIX}), got {named!r}")
    if str(settings["model"]).lower().endswith(GGUF_SUFFIX):
        raise SettingError(f"model {settings['model']!r} is a GGUF file and gguf_file names {named!r}: name the file "
                           "once (model: FILE.gguf, or model: FOLDER with gguf_file: FILE.gguf)")


def check_gguf_source(system: str, checkpoint: Checkpoint) -> None:
    """Before transformers sees a GGUF checkpoint: its packages are installed, and a local file exists (a folder
    that does not hold it names the GGUF files it does hold). Raises one-line errors; a hub id passes."""
    missing = [name for name in GGUF_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise DecisionPivotError(f"system {system!r}: a GGUF model needs the {' and '.join(missing)} "
                                 f"package{'s' if len(missing) > 1 else ''}: pip install 'decisionpivot[hf]'")
    folder = Path(checkpoint.path).expanduser()
    local = folder.is_dir() or folder.is_absolute() or checkpoint.path.startswith((".", "~"))
    if not local or (folder / str(checkpoint.gguf_file)).is_file():
        return
    where = Path(checkpoint.path, str(checkpoint.gguf_file))
    if not folder.is_dir():
        raise DecisionPivotError(f"system {system!r}: no GGUF file {str(where)!r} (no folder {checkpoint.path!r})")
    held = sorted(p.name for p in folder.iterdir() if p.name.lower().endswith(GGUF_SUFFIX))
    hint = did_you_mean(str(checkpoint.gguf_file), held)
    raise DecisionPivotError(f"system {system!r}: no GGUF file {str(where)!r}{hint}; the folder holds "
                             f"{', '.join(held) if held else 'no .gguf file'}")


PACKED_TAIL_MODELS = ("llama", "qwen2", "qwen3", "gpt2")
"""Model types whose key tails are read packed into their prompt's row under a custom attention mask
(:meth:`HFRunner._read_packed_tails`): each is checked against a pass per key in the tests. Other types (a sliding
window, ALiBi or position biases built from the mask, an attention without additive masks) read each key in a row
of its own."""


def packs_tails(config: Any) -> bool:
    """Whether a model with ``config`` reads its key tails packed: a type of :data:`PACKED_TAIL_MODELS`, every layer
    attending to the whole context, and torch's scaled-dot-product attention (the one the tests check the mask on,
    and transformers' default)."""
    layers = getattr(config, "layer_types", None) or ["full_attention"]
    return (getattr(config, "model_type", None) in PACKED_TAIL_MODELS and not getattr(config, "sliding_window", None)
            and all(kind == "full_attention" for kind in layers)
            and getattr(config, "_attn_implementation", None) == "sdpa")


@dataclass(frozen=True)
class CacheState:
    """The model's cached state after a pass, one row per sequence read so far."""

    cache: Any
    """The model's key/value cache (rows x positions)."""
    mask: Any
    """1 where a cached position holds a real token, 0 for padding (rows x positions)."""
    lengths: list[int]
    """Real tokens read so far per row (the position the row's next token takes)."""


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
        source = checkpoint_of(s)
        loading: dict[str, Any] = {"trust_remote_code": False}
        if source.gguf_file is not None:
            if model is None or tokenizer is None:
                check_gguf_source(system.name, source)
            loading["gguf_file"] = source.gguf_file
        path = os.path.expanduser(source.path)  # a YAML file or a quoted spec leaves ~ to us
        try:  # never the checkpoint's own code, never a pickle beyond tensors (decisionpivot.evaluate.checkpoints)
            if model is None:  # first: its config says at once whether the checkpoint needs its own code
                model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype, **loading)
            if tokenizer is None:
                tokenizer = transformers.AutoTokenizer.from_pretrained(path, **loading)
        except Exception as exc:  # the checkpoint's fault, whatever the loader raised: one line
            raise load_error(system.name, str(s["model"]), exc) from None
        self.tokenizer = tokenizer
        self.model = model.to(self.device).eval()
        limit = s.get("context_tokens") or getattr(model.config, "max_position_embeddings", None) \
            or getattr(model.config, "n_positions", None)
        self.context_tokens = int(limit) if limit else None
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        if self.pad_id is None:
            self.pad_id = 0
        self.packed_tails = packs_tails(model.config)

    def prompt_and_continuations(self, item: Item) -> Encoded:
        """Token ids of the prompt and of each option key's continuation (:func:`key_tokens`)."""
        return key_tokens(self.tokenizer, item)

    def _read(self, state: CacheState | None, rows: Sequence[tuple[int, list[int]]],
              every_position: bool) -> tuple[Any, CacheState]:
        """One forward pass feeding each row's tokens after its parent row's cached state (no state: from the
        start): (log-probabilities, the state after it).

        ``rows`` are (parent row in ``state``, tokens), right-padded: a causal model's real tokens never see the
        pads after them, so no attention mask is needed when every parent holds the same real tokens and no pad
        (attention takes its causal path). After a state holding pads (a parent shorter than the widest), the
        new tokens get their own positions and a mask that hides the pads between the parent's tokens and them.
        ``every_position``: log-probabilities at every new position (rows x longest x vocabulary: for short key
        tails only); otherwise only after each row's last token (rows x vocabulary), and only those positions'
        logits are computed.
        """
        torch = self.torch
        lengths = [len(tokens) for _, tokens in rows]
        width = max(lengths)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        new_mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, (_, tokens) in enumerate(rows):
            ids[r, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
            new_mask[r, :len(tokens)] = 1
        ends = sorted({n - 1 for n in lengths})
        keep: dict[str, Any] = {} if every_position else \
            {"logits_to_keep": torch.tensor(ends, dtype=torch.long, device=self.device)}
        inputs: dict[str, Any] = {}
        if state is None:
            mask, before = new_mask, [0] * len(rows)
        else:
            index = torch.tensor([parent for parent, _ in rows], dtype=torch.long)
            state.cache.reorder_cache(index.to(self.device))
            mask = torch.cat([state.mask[index], new_mask], dim=1)
            before = [state.lengths[parent] for parent, _ in rows]
            inputs[self._cache_argument] = state.cache
            if not bool(state.mask.all()):
                positions = torch.tensor(before, dtype=torch.long)[:, None] + torch.arange(width)[None, :]
                inputs |= {"attention_mask": mask.to(self.device), "position_ids": positions.to(self.device)}
        try:
            out = self.model(input_ids=ids.to(self.device), use_cache=True, **inputs, **keep)
            column = {end: j for j, end in enumerate(ends)} if keep else None
        except TypeError:  # a model without ``logits_to_keep``: every position's logits
            if not keep:
                raise
            out = self.model(input_ids=ids.to(self.device), use_cache=True, **inputs)
            column = {end: end for end in ends}
        if column is None:
            logprobs = torch.log_softmax(out.logits.float(), dim=-1)
        else:
            picked = torch.stack([out.logits[r, column[n - 1]] for r, n in enumerate(lengths)])
            logprobs = torch.log_softmax(picked.float(), dim=-1)
        cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
        return logprobs, CacheState(cache, mask, [b + n for b, n in zip(before, lengths, strict=True)])

    @property
    def _cache_argument(self) -> str:
        return "cache" if "cache" in inspect.signature(self.model.forward).parameters else "past_key_values"

    def _keys_after(self, state: CacheState, last: Any, keys: Sequence[list[list[int]]]) -> list[list[float]]:
        """Whole-key log-probabilities after each row of ``state`` (``last``: log-probabilities after the row's
        last token; ``keys``: each row's keys): the first token from ``last``, the later tokens (keys of two or
        more tokens only) from one more pass after the row's cached state: each row's keys packed into that row
        (:meth:`_read_packed_tails`) where the model allows it, else each key a row of its own."""
        scores = [[float(last[row, key[0]]) for key in row_keys] for row, row_keys in enumerate(keys)]
        tails = [(row, k, key) for row, row_keys in enumerate(keys) for k, key in enumerate(row_keys) if len(key) > 1]
        if tails and self.packed_tails:
            logprobs, starts = self._read_packed_tails(state, keys)
            for row, k, key in tails:
                start = starts[row][k]
                scores[row][k] += sum(float(logprobs[row, start + j, key[j + 1]]) for j in range(len(key) - 1))
        elif tails:
            logprobs, _ = self._read(state, [(row, key[:-1]) for row, _, key in tails], True)
            for r, (row, k, key) in enumerate(tails):
                scores[row][k] += sum(float(logprobs[r, j, key[j + 1]]) for j in range(len(key) - 1))
        return scores

    def _read_packed_tails(self, state: CacheState, keys: Sequence[list[list[int]]]) -> tuple[Any, list[list[int]]]:
        """One pass reading every row's key tails (each key but its last token) in that row, after its cached
        state: (log-probabilities, rows x new positions x vocabulary; where each key's tail starts in its row).

        The cache is not copied once per key (what a row per key costs: the whole prompt's keys and values for
        every key). A custom attention mask lets each tail token see the row's real cached tokens and the
        tokens of its own key before it, never another key's; its position continues the row's prompt, as if
        the key alone followed it. Rows without a tail read one pad that nothing reads back.
        """
        torch = self.torch
        starts: list[list[int]] = []
        packed: list[list[int]] = []
        for row_keys in keys:
            row_starts, tokens = [], []
            for key in row_keys:
                row_starts.append(len(tokens))
                tokens += key[:-1]
            starts.append(row_starts)
            packed.append(tokens or [self.pad_id])
        rows, width, past = len(packed), max(len(tokens) for tokens in packed), state.mask.shape[1]
        ids = torch.full((rows, width), self.pad_id, dtype=torch.long)
        positions = torch.zeros((rows, width), dtype=torch.long)
        allowed = torch.zeros((rows, 1, width, past + width), dtype=torch.bool)
        allowed[:, 0, :, :past] = state.mask.bool()[:, None, :]
        for r, (row_keys, tokens) in enumerate(zip(keys, packed, strict=True)):
            ids[r, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
            positions[r, :] = state.lengths[r]
            for key, start in zip(row_keys, starts[r], strict=True):
                n = len(key) - 1
                positions[r, start:start + n] = state.lengths[r] + torch.arange(n)
                allowed[r, 0, start:start + n, past + start:past + start + n] = \
                    torch.ones((n, n), dtype=torch.bool).tril()
        dtype = next(self.model.parameters()).dtype
        mask = torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)
        out = self.model(input_ids=ids.to(self.device), use_cache=True, attention_mask=mask.to(self.device),
                         position_ids=positions.to(self.device), **{self._cache_argument: state.cache})
        return torch.log_softmax(out.logits.float(), dim=-1), starts

    def _score_items(self, encoded: Sequence[Encoded]) -> list[list[float]]:
        """Whole-key log-probabilities for each (prompt, keys), a prefix that prompts share read once.

        Prompts that share no prefix (:func:`shared_prefixes`) are read together in one pass. Each group of
        prompts sharing one (the members of a contrast group share most of their prompt) is read in its own
        passes: the prefix once, then each prompt's rest after the prefix's cached state, with no padding
        between the two (the pads of a batch of prefixes would be attended over by every later token).
        """
        prompts = [prompt for prompt, _ in encoded]
        scores: list[list[float]] = [[] for _ in encoded]
        with self.torch.no_grad():
            groups = shared_prefixes(prompts)
            alone = [members[0] for _, members in groups if len(members) == 1]
            if alone:
                last, state = self._read(None, [(0, prompts[i]) for i in alone], False)
                for i, values in zip(alone, self._keys_after(state, last, [encoded[i][1] for i in alone]),
                                     strict=True):
                    scores[i] = values
            for length, members in groups:
                if len(members) > 1:
                    _, state = self._read(None, [(0, prompts[members[0]][:length])], False)
                    last, state = self._read(state, [(0, prompts[i][length:]) for i in members], False)
                    for i, values in zip(members, self._keys_after(state, last, [encoded[i][1] for i in members]),
                                         strict=True):
                        scores[i] = values
        return scores

    def encode(self, item: Item) -> Encoded | Record:
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

    def _answer(self, batch: Sequence[tuple[Item, Encoded | Record]]) -> list[Record]:
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
        """Items batched by shared prefix (:func:`shared_prefixes` over all items), whole groups to a batch of at
        most ``batch_size`` items, so that a prefix is read once (the answer file is put back in the items'
        order). An item that cannot be read (its error record from :meth:`encode`) is emitted at once."""
        ready: list[tuple[Item, Encoded]] = []
        for item in items:
            encoded = self.encode(item)
            if isinstance(encoded, dict):
                emit(encoded)
            else:
                ready.append((item, encoded))
        batches: list[list[tuple[Item, Encoded]]] = [[]]
        for _, members in shared_prefixes([prompt for _, (prompt, _) in ready]):
            for start in range(0, len(members), self.batch_size):
                part = [ready[m] for m in members[start:start + self.batch_size]]
                if len(batches[-1]) + len(part) > self.batch_size:
                    batches.append([])
                batches[-1] += part
        for batch in batches:
            for record in self._answer(batch):
                emit(record)


register(KindSpec(
    name="hf",
    doc="a local transformers causal LM: softmax over whole option keys' log-probabilities",
    settings={
        "model": Setting(None, text, "path or hub id of a causal LM, or a .gguf file (loading never downloads "
                         "unless allowed)"),
        "gguf_file": Setting(None, optional_text, "the GGUF file inside model (a folder or hub id holding several); "
                             "a model ending in .gguf names the file itself"),
        "device": Setting("auto", text, "cpu, cuda or auto"),
        "batch_size": Setting(8, integer(1), "items (prompts) per forward pass", identity=False),
        "dtype": Setting("float32", text, "float32, bfloat16, ... or auto (from the weights)"),
        "context_tokens": Setting(None, optional_integer(1), "longer inputs are recorded as errors"),
    },
    required=("model",),
    make_runner=HFRunner,
    readout=lambda settings: "hf/key-logits",
    validate=_check_settings,
))
