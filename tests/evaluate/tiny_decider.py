"""Tiny randomly initialised decision-capable chat checkpoints of several architectures, built in the test.

What ``transformers serve``'s ``/v1/systemone`` and ``pipeline("decision")`` need of a plain chat model
(transformers 5.24, ``decision/template_utils.py``): a ``config.json`` with ``architectures``, a
tokenizer in which ``A``-``Z``, ``Yes`` and ``No`` each encode to one distinct known token (the option
labels whose next-token logits are read), and a chat template (the generic decision prompt is sent as
the user message of the model's chat template). Each checkpoint here has a byte-level BPE tokenizer
(any text encodes, no unknown token) whose merges make those labels single tokens, its family's chat
template with its markers as special tokens, and one or two layers of hidden size 16, so it builds in
well under a second and answers an item in a few milliseconds.

Architectures (:data:`ARCHITECTURES`), with the config class and the model class ``save_pretrained`` records:

- ``llama``: ``LlamaConfig``, ``LlamaForCausalLM``.
- ``qwen2``: ``Qwen2Config``, ``Qwen2ForCausalLM`` (Qwen2 / Qwen2.5 chat checkpoints).
- ``qwen3``: ``Qwen3Config``, ``Qwen3ForCausalLM``; its template reads ``enable_thinking`` as Qwen3's does.
- ``qwen3_5``: ``Qwen3_5Config`` (text + a one-block vision tower), ``Qwen3_5ForConditionalGeneration``:
  the shape of the released Qwen3.5 checkpoints, with a linear-attention and a full-attention layer.
- ``gemma3_text``: ``Gemma3TextConfig``, ``Gemma3ForCausalLM`` (Gemma 3 1B-style text checkpoints); like
  ``gemma4``, a sliding-window layer and a full-attention layer.
- ``gemma4``: ``Gemma4Config`` (text only: vision and audio are optional), ``Gemma4ForConditionalGeneration``:
  the model type of the released Gemma 4 checkpoints.

``qwen2``, ``qwen3_5`` and ``gemma4`` are the config types transformers 5.24 maps to ``JevForDecision`` in
``MODEL_FOR_DECISION_MAPPING``, the ones its ``pipeline("decision", model=PATH)`` cannot load.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import transformers
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

GENERIC_TEMPLATE = (
    "{% for m in messages %}<s> {{ m['role'] }} : {{ m['content'] }} </s>{% endfor %}"
    "{% if add_generation_prompt %}<s> assistant :{% endif %}"
)
QWEN_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n"
    "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}"
)
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n"
    "{{ m['content'] }}<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)
QWEN_MARKERS = ("<|im_start|>", "<|im_end|>", "<think>", "</think>")
GEMMA_MARKERS = ("<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>")

LABELS = [*string.ascii_uppercase, "Yes", "No"]
WORDS = ["the", "is", "a", "of", "to", "and", "or", "in", "on", "for", "with", "not", "can", "be",
         "answered", "question", "facts", "record", "yes", "no", "user", "assistant", "model", "system", "Answer",
         "only", "letter", "option", "that", "fits", "best"]
SENTINELS = 2
"""The pipeline adds ``<|mark|>`` and ``<|split|>`` to the tokenizer: the embeddings leave room for them."""
SLIDING_THEN_FULL = ["sliding_attention", "full_attention"]
"""Gemma's two attention types, one layer each (a model of sliding layers only would read the last 16 tokens)."""
LAYER = {"hidden_size": 16, "intermediate_size": 32, "num_attention_heads": 2, "num_key_value_heads": 2,
         "max_position_embeddings": 65536}


def merges_of(words: list[str]) -> list[tuple[str, str]]:
    """BPE merges that join each word left to right (``Yes``: Y+e, Ye+s), in the order of ``words``, each once."""
    merges: list[tuple[str, str]] = []
    for word in words:
        for end in range(2, len(word) + 1):
            pair = (word[:end - 1], word[end - 1])
            if pair not in merges:
                merges.append(pair)
    return merges


def tokenizer_for(markers: tuple[str, ...], template: str, bos: str, eos: str, pad: str) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer, as Llama 3, Qwen and GPT-2 have: every byte a token, so any text encodes and
    two different states never encode alike; merges make each word of :data:`WORDS` one token (the labels first,
    so ``Yes`` and ``No`` are single tokens whatever else merges), and ``markers`` are special tokens."""
    merges = merges_of(LABELS + WORDS)  # the alphabet is sorted: tokenizers hands it over in a random order
    vocab: dict[str, int] = {}
    for token in [bos, eos, pad, *sorted(pre_tokenizers.ByteLevel.alphabet()), *("".join(pair) for pair in merges)]:
        vocab.setdefault(token, len(vocab))
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.add_special_tokens([AddedToken(marker, special=True, normalized=False)
                                  for marker in dict.fromkeys((bos, eos, pad, *markers))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token=bos, eos_token=eos, pad_token=pad)
    fast.chat_template = template
    return fast


def token_ids(fast: PreTrainedTokenizerFast) -> dict[str, Any]:
    """The special token ids a model config records, and a vocabulary with room for the sentinels."""
    return {"vocab_size": len(fast) + SENTINELS, "bos_token_id": fast.bos_token_id, "eos_token_id": fast.eos_token_id,
            "pad_token_id": fast.pad_token_id}


def llama(fast: PreTrainedTokenizerFast) -> Any:
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(**LAYER, **token_ids(fast), num_hidden_layers=1))


def qwen2(fast: PreTrainedTokenizerFast) -> Any:
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**LAYER, **token_ids(fast), num_hidden_layers=1))


def qwen3(fast: PreTrainedTokenizerFast) -> Any:
    config = transformers.Qwen3Config(**LAYER, **token_ids(fast), num_hidden_layers=1, head_dim=8)
    return transformers.Qwen3ForCausalLM(config)


def qwen3_5(fast: PreTrainedTokenizerFast) -> Any:
    ids = token_ids(fast)
    text = {**LAYER, **ids, "num_hidden_layers": 2, "full_attention_interval": 2, "head_dim": 8,
            "linear_key_head_dim": 8, "linear_value_head_dim": 8, "linear_num_key_heads": 2,
            "linear_num_value_heads": 2}
    vision = {"depth": 1, "hidden_size": 16, "intermediate_size": 32, "num_heads": 2, "out_hidden_size": 16}
    top = ids["vocab_size"]  # image and video markers past the text vocabulary: a text request never holds them
    config = transformers.Qwen3_5Config(text_config=text, vision_config=vision, image_token_id=top,
                                        video_token_id=top + 1, vision_start_token_id=top + 2,
                                        vision_end_token_id=top + 3)
    return transformers.Qwen3_5ForConditionalGeneration(config)


def gemma3_text(fast: PreTrainedTokenizerFast) -> Any:
    config = transformers.Gemma3TextConfig(**LAYER, **token_ids(fast), num_hidden_layers=2, head_dim=8,
                                           layer_types=SLIDING_THEN_FULL, sliding_window=16)
    return transformers.Gemma3ForCausalLM(config)


def gemma4(fast: PreTrainedTokenizerFast) -> Any:
    ids = token_ids(fast)
    text = {**LAYER, **ids, "num_hidden_layers": 2, "layer_types": SLIDING_THEN_FULL, "head_dim": 8,
            "global_head_dim": 8, "sliding_window": 16, "vocab_size_per_layer_input": ids["vocab_size"],
            "hidden_size_per_layer_input": 4}
    return transformers.Gemma4ForConditionalGeneration(transformers.Gemma4Config(text_config=text))


@dataclass(frozen=True)
class Architecture:
    """How to build one tiny checkpoint."""

    model: Callable[[PreTrainedTokenizerFast], Any]
    """Builds the random model for the tokenizer (its vocabulary size and special ids)."""
    markers: tuple[str, ...]
    """The family's chat-template markers, special tokens of the tokenizer."""
    template: str
    """The chat template."""
    specials: tuple[str, str, str]
    """bos, eos and pad tokens."""
    text_only_processor: bool = False
    """A multimodal model type: released checkpoints ship an image/video processor (see :func:`build_tiny_decider`)."""


QWEN_SPECIALS = ("<|endoftext|>", "<|im_end|>", "<|endoftext|>")
GEMMA_SPECIALS = ("<bos>", "<eos>", "<pad>")
ARCHITECTURES: dict[str, Architecture] = {
    "llama": Architecture(llama, (), GENERIC_TEMPLATE, ("<s>", "</s>", "<pad>")),
    "qwen2": Architecture(qwen2, QWEN_MARKERS, QWEN_TEMPLATE, QWEN_SPECIALS),
    "qwen3": Architecture(qwen3, QWEN_MARKERS, QWEN_TEMPLATE, QWEN_SPECIALS),
    "qwen3_5": Architecture(qwen3_5, QWEN_MARKERS, QWEN_TEMPLATE, QWEN_SPECIALS, text_only_processor=True),
    "gemma3_text": Architecture(gemma3_text, GEMMA_MARKERS, GEMMA_TEMPLATE, GEMMA_SPECIALS),
    "gemma4": Architecture(gemma4, GEMMA_MARKERS, GEMMA_TEMPLATE, GEMMA_SPECIALS, text_only_processor=True),
}


def build_tiny_decider(folder: Path, architecture: str = "llama", seed: int = 0, *,
                       processor_class: bool = True) -> Path:
    """Saves a tiny random ``architecture`` chat checkpoint (safetensors weights) and its tokenizer in ``folder``.

    Released Gemma 4 and Qwen3.5 checkpoints ship an image and a video processor, which ``AutoProcessor``
    (what ``transformers serve`` loads) builds from their model type; video processors need torchvision,
    which this environment does not have. These text-only checkpoints name their tokenizer as their
    processor instead (``processor_class`` in ``tokenizer_config.json``), so the server loads them;
    ``processor_class=False`` leaves that out, as a text-only export without a processor would.
    """
    spec = ARCHITECTURES[architecture]
    fast = tokenizer_for(spec.markers, spec.template, *spec.specials)
    torch.manual_seed(seed)
    spec.model(fast).save_pretrained(folder)
    fast.save_pretrained(folder)
    if spec.text_only_processor and processor_class:
        config_path = folder / "tokenizer_config.json"
        config = json.loads(config_path.read_text())
        config["processor_class"] = type(transformers.AutoTokenizer.from_pretrained(folder)).__name__
        config_path.write_text(json.dumps(config, indent=2) + "\n")
    return folder


def build_custom_code_checkpoint(folder: Path, marker: Path) -> Path:
    """A checkpoint whose config needs its own Python files (``auto_map``); importing them writes ``marker``."""
    build_tiny_decider(folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(model_type="marker_lm", architectures=["MarkerForCausalLM"],
                  auto_map={"AutoConfig": "configuration_marker.MarkerConfig",
                            "AutoModelForCausalLM": "modeling_marker.MarkerForCausalLM"})
    (folder / "config.json").write_text(json.dumps(config))
    code = (f"import pathlib\npathlib.Path({str(marker)!r}).write_text('the checkpoint code ran')\n"
            "from transformers import LlamaConfig, LlamaForCausalLM\n"
            "class MarkerConfig(LlamaConfig):\n    model_type = 'marker_lm'\n"
            "class MarkerForCausalLM(LlamaForCausalLM):\n    config_class = MarkerConfig\n")
    for name in ("configuration_marker.py", "modeling_marker.py"):
        (folder / name).write_text(code)
    return folder


class ShellCall:
    """Pickles as a call of ``os.system`` (what a malicious ``pytorch_model.bin`` holds)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        import os

        return os.system, (self.command,)


def build_pickle_checkpoint(folder: Path, marker: Path | None = None) -> Path:
    """A tiny Llama whose only weights are a pickle, ``pytorch_model.bin``; with ``marker``, the pickle also holds
    a shell command that creates ``marker`` when unpickled without ``weights_only``."""
    import shlex

    from safetensors.torch import load_file

    build_tiny_decider(folder)
    weights: dict[str, Any] = dict(load_file(folder / "model.safetensors"))
    (folder / "model.safetensors").unlink()
    if marker is not None:
        weights["payload"] = ShellCall(f"touch {shlex.quote(str(marker))}")
    torch.save(weights, folder / "pytorch_model.bin")
    return folder
