"""A tiny randomly initialised decision-capable chat model, built in the test (no download).

What ``transformers serve``'s ``/v1/systemone`` and ``pipeline("decision")`` need of a plain causal LM
(transformers 5.24, ``decision/template_utils.py``): a ``config.json`` with ``architectures``, a
tokenizer in which ``A``-``Z``, ``Yes`` and ``No`` each encode to one distinct known token (the option
labels whose next-token logits are read), and a chat template (the generic decision prompt is sent as
the user message of the model's chat template). A one-layer Llama with a WordLevel tokenizer does.
"""

from __future__ import annotations

import string
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

CHAT_TEMPLATE = (
    "{% for m in messages %}<s> {{ m['role'] }} : {{ m['content'] }} </s>{% endfor %}"
    "{% if add_generation_prompt %}<s> assistant :{% endif %}"
)


def build_tiny_decider(folder: Path, seed: int = 0) -> Path:
    labels = [*string.ascii_uppercase, "Yes", "No"]
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3}
    words = labels + list(string.ascii_lowercase) + list(string.digits) + list(string.punctuation)
    words += ["the", "is", "a", "of", "to", "and", "or", "in", "on", "for", "with", "not", "can", "be",
              "answered", "question", "facts", "record", "yes", "no"]
    for word in words:
        vocab.setdefault(word, len(vocab))
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>",
                                   eos_token="</s>", pad_token="<pad>")
    fast.chat_template = CHAT_TEMPLATE
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(vocab) + 2,  # + the <|mark|> and <|split|> sentinels the pipeline adds
                         hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                         num_key_value_heads=2, max_position_embeddings=65536)
    LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder
