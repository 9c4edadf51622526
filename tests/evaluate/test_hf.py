"""The hf runner with a tiny randomly initialised GPT-2 and a tokenizer trained in the test (no download)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the hf runner needs torch (installed by the test extra)")
transformers = pytest.importorskip("transformers")

from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

from decisionpivot.evaluate.hf import HFRunner, shared_prefixes  # noqa: E402
from decisionpivot.evaluate.kinds import RunCounters  # noqa: E402
from decisionpivot.evaluate.run import evaluate_system  # noqa: E402
from decisionpivot.evaluate.systems import get_system  # noqa: E402
from decisionpivot.items import Item, Option, read_items  # noqa: E402
from tests.evaluate.conftest import FAMILY  # noqa: E402


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory, items_dir: Path) -> Path:
    folder = tmp_path_factory.mktemp("tiny-lm")
    corpus = [str(item.state) for item in read_items(items_dir / f"{FAMILY}.jsonl")[:50]]
    corpus += ["yes no yes_only_A yes_only_B same approve deny escalate"] * 5
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=400, special_tokens=["[UNK]", "[PAD]", "[EOS]"],
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                                eos_token="[EOS]")
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(fast), n_positions=4096, n_embd=32, n_layer=2, n_head=2)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


def system_file(tmp_path: Path, model_dir: Path, **extra: object) -> Path:
    path = tmp_path / "s.yaml"
    extras = "".join(f", {k}: {v}" for k, v in extra.items())
    path.write_text(f"systems:\n  tiny: {{kind: hf, model: '{model_dir}', device: cpu, batch_size: 3{extras}}}\n")
    return path


def reference_scores(runner: HFRunner, item: Item) -> list[float]:
    """Unbatched, unpadded, full-logit computation of each key's log-probability."""
    prompt, continuations = runner.prompt_and_continuations(item)
    out = []
    for cont in continuations:
        ids = torch.tensor([prompt + cont])
        with torch.no_grad():
            logprobs = torch.log_softmax(runner.model(ids).logits[0].float(), dim=-1)
        out.append(sum(float(logprobs[len(prompt) + i - 1, t]) for i, t in enumerate(cont)))
    return out


def test_batched_readout_equals_the_direct_computation(tmp_path: Path, tiny_model_dir: Path, items_dir: Path) -> None:
    runner = HFRunner(get_system("tiny", system_file(tmp_path, tiny_model_dir)))
    items = read_items(items_dir / f"{FAMILY}.jsonl")[:4]
    shared = Item("x:1", "x", "E", "1", None, None, None, None, "Two versions differ.", "Which?",
                  (Option("same", "s"), Option("yes_only_A", "a"), Option("yes_only_B", "b")), "same")
    _, conts = runner.prompt_and_continuations(shared)
    assert conts[1][0] == conts[2][0] and conts[1] != conts[2], "keys should share a first token here"
    for item in [*items, shared]:
        [record] = runner.answer([item])
        expected = reference_scores(runner, item)
        top = max(expected)
        weights = [math.exp(v - top) for v in expected]
        for key, w in zip(item.option_keys, weights, strict=True):
            assert record["p"][key] == pytest.approx(w / sum(weights), abs=1e-4)
    batch = runner.answer([*items, shared])
    assert [r["id"] for r in batch] == [i.id for i in [*items, shared]]
    assert all(sum(r["p"].values()) == pytest.approx(1.0) for r in batch)


def test_hf_system_end_to_end_and_context_limit(tmp_path: Path, tiny_model_dir: Path, items_dir: Path) -> None:
    [run] = evaluate_system(get_system("tiny", system_file(tmp_path, tiny_model_dir)), items_dir,
                            tmp_path / "runs", limit=4, progress=False)
    assert run.answered == 4 and run.errors == 0
    [short] = evaluate_system(get_system("tiny", system_file(tmp_path, tiny_model_dir, context_tokens=50)),
                              items_dir, tmp_path / "runs2", limit=2, progress=False)
    assert short.errors == 2


def test_one_pass_per_item_equals_one_pass_per_key_within_1e_5(tmp_path: Path, tiny_model_dir: Path,
                                                                 items_dir: Path) -> None:
    """The shared-prompt readout (one prompt pass, later key tokens from the cache) against today's: each key
    its own unpadded pass over prompt + key. Batches mix single-token and multi-token keys and different lengths."""
    runner = HFRunner(get_system("tiny", system_file(tmp_path, tiny_model_dir)))
    shared = Item("x:1", "x", "E", "1", None, None, None, None, "Two versions differ.", "Which?",
                  (Option("same", "s"), Option("yes_only_A", "a"), Option("yes_only_B", "b")), "same")
    items = [*read_items(items_dir / f"{FAMILY}.jsonl")[:5], shared]
    _, conts = runner.prompt_and_continuations(shared)
    assert max(len(c) for c in conts) > 1
    records = runner.answer(items)
    for item, record in zip(items, records, strict=True):
        expected = reference_scores(runner, item)
        weights = [math.exp(v - max(expected)) for v in expected]
        for key, w in zip(item.option_keys, weights, strict=True):
            assert abs(record["p"][key] - w / sum(weights)) < 1e-5


def test_records_say_what_they_cost(tmp_path: Path, tiny_model_dir: Path, items_dir: Path) -> None:
    runner = HFRunner(get_system("tiny", system_file(tmp_path, tiny_model_dir)))
    item = read_items(items_dir / f"{FAMILY}.jsonl")[0]
    [record] = runner.answer([item])
    prompt, conts = runner.prompt_and_continuations(item)
    assert record["input_tokens"] == len(prompt) + sum(len(c) - 1 for c in conts)
    assert record["latency_s"] > 0


def llama2_style_tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A SentencePiece-like tokenizer as Llama 2 has: spaces become '▁' and a text's first word gets one too."""
    from tokenizers import decoders

    corpus = ["Answer: A B C yes no yes_only_A yes_only_B same assistant user system"] * 20
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<s>", "</s>"]))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                                eos_token="</s>")
    return fast


def test_keys_are_tokenized_with_the_prompt_not_alone() -> None:
    """On a Llama-2-style tokenizer the key alone is not the key after the prompt; the kind uses the joint split."""
    from decisionpivot.evaluate.hf import key_prompt, key_tokens

    fast = llama2_style_tokenizer()
    item = Item("x:2", "x", "E", "1", None, None, None, None, "A case.", "Which?",
                (Option("A", "a"), Option("B", "b")), "A")
    differs = []
    for template in (None, "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}assistant:"):
        fast.chat_template = template
        text, join, lead = key_prompt(fast, item)
        prompt, conts = key_tokens(fast, item)
        bare = fast(text, add_special_tokens=False)["input_ids"]
        assert prompt == lead + bare
        for key, cont in zip(item.option_keys, conts, strict=True):
            joint = fast(text + join + key, add_special_tokens=False)["input_ids"]
            assert cont == joint[len(bare):]
            differs.append(cont != fast(join + key, add_special_tokens=False)["input_ids"])
    assert differs == [False, False, True, True], "after 'assistant:' the key is 'A', alone it is '▁A'"


def test_prompts_are_grouped_by_the_prefix_they_share() -> None:
    base = list(range(100))
    prompts = [[*base, 7, 1], [5] * 40, [*base, 7, 2, 3], base[:30] + [9] * 70, [*base, 8], [5] * 41]
    groups = shared_prefixes(prompts)
    assert sorted(i for _, members in groups for i in members) == list(range(len(prompts)))
    by_members = {tuple(sorted(members)): length for length, members in groups}
    assert by_members[(0, 2, 4)] == 100  # what all three share; the 30 shared with prompt 3 are under half its 99
    assert by_members[(3,)] == len(prompts[3]) - 1
    assert by_members[(1, 5)] == 39  # a prefix leaves every prompt its last token
    for length, members in groups:
        assert all(length < len(prompts[i]) for i in members)
        assert all(prompts[i][:length] == prompts[members[0]][:length] for i in members)
    assert [members for _, members in shared_prefixes([[1] * 10, [1] * 12], least=16)] == [[0], [1]]


def test_a_run_reads_shared_prefixes_once_and_equals_one_pass_per_key(tmp_path: Path, tiny_model_dir: Path,
                                                                       items_dir: Path) -> None:
    """Contrast-group members share most of their prompt: `run` batches them by shared prefix (batches of 3
    items here, so some groups are cut) and every probability still equals each key's own unpadded pass."""
    runner = HFRunner(get_system("tiny", system_file(tmp_path, tiny_model_dir)))
    items = read_items(items_dir / f"{FAMILY}.jsonl")[:10]
    prompts = [runner.prompt_and_continuations(item)[0] for item in items]
    assert any(len(members) > 1 and length > len(prompts[members[0]]) // 2
               for length, members in shared_prefixes(prompts))
    fed: list[int] = []
    forward = runner.model.forward
    runner.model.forward = lambda *a, **k: (fed.append(int(k["input_ids"].numel())), forward(*a, **k))[1]
    records: dict[str, dict] = {}
    runner.run(items, lambda record: records.__setitem__(record["id"], record), RunCounters(), lambda entry: None)
    runner.model.forward = forward
    assert sum(fed) < sum(len(p) for p in prompts), "the shared prefixes should be read once"
    for item in items:
        expected = reference_scores(runner, item)
        weights = [math.exp(v - max(expected)) for v in expected]
        for key, w in zip(item.option_keys, weights, strict=True):
            assert abs(records[item.id]["p"][key] - w / sum(weights)) < 1e-5


def test_a_run_records_items_over_the_context_limit_and_answers_the_rest(tmp_path: Path, tiny_model_dir: Path,
                                                                         items_dir: Path) -> None:
    """Items longer than ``context_tokens`` become error records and the others are batched and answered as
    :meth:`HFRunner.answer` answers them: every item exactly once."""
    items = read_items(items_dir / f"{FAMILY}.jsonl")[:10]
    probe = HFRunner(get_system("tiny", system_file(tmp_path, tiny_model_dir)))
    lengths = sorted(len(p) + max(len(c) for c in cs) for p, cs in map(probe.prompt_and_continuations, items))
    limit = lengths[len(lengths) // 2]
    assert lengths[0] <= limit < lengths[-1]
    (tmp_path / "limited").mkdir()
    runner = HFRunner(get_system("tiny", system_file(tmp_path / "limited", tiny_model_dir, context_tokens=limit)),
                      model=probe.model, tokenizer=probe.tokenizer)
    emitted: list[dict] = []
    runner.run(items, emitted.append, RunCounters(), lambda entry: None)
    assert sorted(r["id"] for r in emitted) == sorted(item.id for item in items)
    errors = {r["id"] for r in emitted if "error" in r}
    assert errors and len(errors) < len(items)
    answered = {r["id"]: r for r in emitted if "error" not in r}
    for item, expected in zip(items, runner.answer(items), strict=True):
        if item.id in answered:
            assert answered[item.id]["p"] == pytest.approx(expected["p"], abs=1e-6)
        else:
            assert "input longer than the model context" in expected["error"]


def test_key_tails_are_read_in_their_prompts_row(tmp_path: Path, tiny_model_dir: Path, items_dir: Path) -> None:
    """The later tokens of multi-token keys are read in one pass whose rows are the prompts, not the keys (a row
    per key copied the prompt's whole cache once per key: a fifth of the readout's time on five-option items),
    and every probability still equals each key's own unpadded pass."""
    runner = HFRunner(get_system("tiny", system_file(tmp_path, tiny_model_dir)))
    assert runner.packed_tails, "GPT-2 reads its key tails packed"
    shared = Item("x:1", "x", "E", "1", None, None, None, None, "Two versions differ.", "Which?",
                  (Option("same", "s"), Option("yes_only_A", "a"), Option("yes_only_B", "b")), "same")
    items = [*read_items(items_dir / f"{FAMILY}.jsonl")[:2], shared]
    tails = [len(c) for c in runner.prompt_and_continuations(shared)[1] if len(c) > 1]
    assert len(tails) >= 2
    shapes: list[tuple[int, int]] = []
    forward = runner.model.forward
    runner.model.forward = lambda *a, **k: (shapes.append(tuple(k["input_ids"].shape)), forward(*a, **k))[1]
    records = runner.answer(items)
    runner.model.forward = forward
    assert (1, sum(tails) - len(tails)) in shapes, f"one row for the item's {len(tails)} key tails: {shapes}"
    assert max(rows for rows, _ in shapes) <= 2, f"no pass has more rows than its group has items: {shapes}"
    for item, record in zip(items, records, strict=True):
        expected = reference_scores(runner, item)
        weights = [math.exp(v - max(expected)) for v in expected]
        for key, w in zip(item.option_keys, weights, strict=True):
            assert abs(record["p"][key] - w / sum(weights)) < 1e-5


@pytest.mark.parametrize(("architecture", "packed"), [("llama", True), ("qwen2", True), ("qwen3", True),
                                                      ("gemma3_text", False)])
def test_each_architecture_reads_whole_keys_as_one_pass_per_key_does(architecture: str, packed: bool,
                                                                     checkpoints: dict[str, Path],
                                                                     tmp_path: Path, items_dir: Path) -> None:
    """The packed key tails on every model type that takes them, and a row per key on one whose sliding-window
    layers would not see a custom mask's whole context (Gemma 3): the same probabilities as each key's own pass,
    in batches that mix shared prefixes, multi-token keys and prompts of different lengths."""
    runner = HFRunner(get_system("tiny", system_file(tmp_path, checkpoints[architecture])))
    assert runner.packed_tails is packed
    shared = Item("x:1", "x", "E", "1", None, None, None, None, "Two versions differ.", "Which?",
                  (Option("same", "s"), Option("yes_only_A", "a"), Option("yes_only_B", "b")), "same")
    items = [*read_items(items_dir / f"{FAMILY}.jsonl")[:4], shared]
    records: dict[str, dict] = {}
    runner.run(items, lambda record: records.__setitem__(record["id"], record), RunCounters(), lambda entry: None)
    for item in items:
        expected = reference_scores(runner, item)
        weights = [math.exp(v - max(expected)) for v in expected]
        for key, w in zip(item.option_keys, weights, strict=True):
            assert abs(records[item.id]["p"][key] - w / sum(weights)) < 1e-5, (architecture, item.id, key)
