"""A tiny random Llama chat model written both as a transformers checkpoint and as one GGUF file, built in the test.

The GGUF file holds what llama.cpp's converter writes for a Llama with a byte-level BPE vocabulary: the
architecture's keys (``llama.*``), the tokenizer (``tokenizer.ggml.model = gpt2``, tokens, token types with the
special tokens as control tokens, merges, special ids, the chat template) and every weight in float32 under its
GGUF name (``gguf.get_tensor_name_map``), the query and key projections permuted as llama.cpp stores them.
Written unquantized, it loads into the very weights of the transformers checkpoint, so the ``hf`` kind must read
the same probabilities from either (``tests/evaluate/test_hf_gguf.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import transformers

from tests.evaluate.tiny_decider import (
    LABELS,
    QWEN_MARKERS,
    QWEN_SPECIALS,
    QWEN_TEMPLATE,
    WORDS,
    merges_of,
    tokenizer_for,
)

LAYERS = 2
HIDDEN = 16
HEADS = 2
CONTEXT = 65536


@dataclass(frozen=True)
class TinyGGUF:
    """One tiny model in both formats."""

    gguf_file: Path
    """The GGUF file (float32 weights, tokenizer and chat template inside)."""
    checkpoint: Path
    """The same model as a transformers folder (safetensors, tokenizer files)."""


def llama_cpp_permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """The order llama.cpp's converter stores a Llama query or key projection in (transformers' GGUF loader
    undoes it): each head's rows, split in two halves, interleaved."""
    return weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:]).swapaxes(1, 2) \
        .reshape(weights.shape)


def build_tiny_gguf(folder: Path, seed: int = 0) -> TinyGGUF:
    """Saves the model as ``folder/checkpoint`` and as ``folder/tiny-llama.F32.gguf``."""
    import gguf

    fast = tokenizer_for(QWEN_MARKERS, QWEN_TEMPLATE, *QWEN_SPECIALS)
    vocab = fast.backend_tokenizer.get_vocab(with_added_tokens=True)
    tokens = [token for token, _ in sorted(vocab.items(), key=lambda pair: pair[1])]
    assert [vocab[t] for t in tokens] == list(range(len(tokens))), "token ids must run 0..n-1"
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(vocab_size=len(tokens), hidden_size=HIDDEN, intermediate_size=2 * HIDDEN,
                                      num_hidden_layers=LAYERS, num_attention_heads=HEADS, num_key_value_heads=HEADS,
                                      max_position_embeddings=CONTEXT, bos_token_id=fast.bos_token_id,
                                      eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id)
    model = transformers.LlamaForCausalLM(config)
    checkpoint = folder / "checkpoint"
    model.save_pretrained(checkpoint)
    fast.save_pretrained(checkpoint)

    path = folder / "tiny-llama.F32.gguf"
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("tiny-llama")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(2 * HIDDEN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(HIDDEN // HEADS)
    writer.add_rope_freq_base(float(config.rope_parameters["rope_theta"]))
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_vocab_size(len(tokens))
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(tokens)
    specials = set(fast.all_special_tokens) | set(QWEN_MARKERS)
    writer.add_token_types([gguf.TokenType.CONTROL if t in specials else gguf.TokenType.NORMAL for t in tokens])
    writer.add_token_merges([f"{left} {right}" for left, right in merges_of(LABELS + WORDS)])
    writer.add_bos_token_id(fast.bos_token_id)
    writer.add_eos_token_id(fast.eos_token_id)
    writer.add_pad_token_id(fast.pad_token_id)
    writer.add_add_bos_token(False)
    writer.add_chat_template(QWEN_TEMPLATE)
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, LAYERS)
    for name, tensor in model.state_dict().items():
        weights = tensor.detach().float().numpy()
        if name.endswith(("q_proj.weight", "k_proj.weight")):
            weights = llama_cpp_permute(weights, HEADS)
        target = names.get_name(name, try_suffixes=(".weight", ".bias"))
        assert target is not None, f"no GGUF name for {name}"
        writer.add_tensor(target, np.ascontiguousarray(weights))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return TinyGGUF(path, checkpoint)

