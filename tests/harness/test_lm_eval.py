"""lm-evaluation-harness runs the exported tasks and its samples come back equal to the ``hf`` kind's answers.

End to end with the real packages: ``dp export lm-eval DIR``, then the ``lm_eval`` command with its
``hf`` model on a tiny GPT-2 built here (no download) - once without a chat template (``--tasks
decisionpivot``), once with one (``--tasks decisionpivot_chat --apply_chat_template``) - then ``dp
import lm-eval``, compared with ``dp evaluate`` of an ``hf`` system on the same checkpoint and items.

Tolerance 1e-5 on each probability: both read the same float32 weights on the CPU, but lm-eval
batches, pads and sums the continuation's log-probabilities in float32 while the ``hf`` kind sums them
in float64, so the last bits differ (measured here: 1.1e-7 plain, 7.1e-7 chat). ``dp score --partial`` (the runs
are ``--limit``-ed to keep the test short) gives the same figures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers
import yaml
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.prompt import SYSTEM_MESSAGE
from decisionpivot.harness.lm_eval_export import MARKER, export_lm_eval
from decisionpivot.harness.lm_eval_import import import_lm_eval_samples
from decisionpivot.items import read_items
from tests.harness.conftest import FAMILIES

LIMIT = 24
TOLERANCE = 1e-5
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")


def build_tiny_gpt2(folder: Path, items: Path, chat: bool) -> Path:
    """A two-layer GPT-2 with a byte-level BPE trained on the items (every text tokenises), optionally a chat one.

    Prompts are about 800 (policy_case) to 1,200 (fact_answerable) tokens with this vocabulary.
    """
    corpus = [str(item.state) for family in FAMILIES for item in read_items(items / f"{family}.jsonl")[:40]]
    corpus += ["yes no approve deny escalate Answer with one option key."] * 5
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2000, special_tokens=["[UNK]", "[PAD]", "[EOS]"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator(corpus, trainer)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]", pad_token="[PAD]",
                                                eos_token="[EOS]")
    if chat:
        fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(folder)
    torch.manual_seed(1 if chat else 0)
    config = transformers.GPT2Config(vocab_size=len(fast), n_positions=16384, n_embd=32, n_layer=2, n_head=2,
                                     bos_token_id=fast.eos_token_id, eos_token_id=fast.eos_token_id)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


def lm_eval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    cli = Path(sys.executable).with_name("lm_eval")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([str(cli), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def answers(runs: Path, system: str, task: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in map(json.loads, (runs / system / f"{task}.jsonl").read_text().splitlines())}


def partial_rows(out: Path, system: str) -> list[dict[str, Any]]:
    rows = [line.split(",") for line in (out / "partial.csv").read_text().splitlines()]
    header = rows[0]
    return [{k: v for k, v in zip(header, row, strict=True) if k != "system"} for row in rows[1:]
            if dict(zip(header, row, strict=True))["system"] == system]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, release_items: Path) -> Path:
    folder = tmp_path_factory.mktemp("lm-eval-tasks") / "decisionpivot-tasks"
    main(["export", "lm-eval", str(folder), "--items", str(release_items)])
    return folder


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "chat"])
def lm_eval_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, exported: Path,
                release_items: Path) -> tuple[bool, Path, Path]:
    """(chat, checkpoint, lm-eval output folder) of one lm_eval run over both families, --limit-ed.

    The plain run (a model without a chat template) also runs ``decisionpivot_chat_policy_case`` -
    without ``--apply_chat_template``, a wrong combination the import must refuse.
    """
    chat = bool(request.param)
    root = tmp_path_factory.mktemp("chat" if chat else "plain")
    model = build_tiny_gpt2(root / "model", release_items, chat)
    tasks = (["--tasks", "decisionpivot_chat", "--apply_chat_template"] if chat
             else ["--tasks", "decisionpivot,decisionpivot_chat_policy_case"])
    done = lm_eval("--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--device", "cpu",
                   "--batch_size", "8", "--include_path", str(exported), *tasks, "--limit", str(LIMIT),
                   "--log_samples", "--output_path", str(root / "out"), cwd=root)
    assert done.returncode == 0, done.stderr[-4000:]
    return chat, model, root / "out"


def samples_file(out: Path, task: str) -> Path:
    [path] = sorted(out.rglob(f"samples_{task}_20*.jsonl"))
    return path


def test_export_writes_a_task_per_family_and_the_two_groups(exported: Path, release_items: Path) -> None:
    names = sorted(p.name for p in exported.glob("*.yaml"))
    assert names == sorted(["decisionpivot.yaml", "decisionpivot_chat.yaml",
                            *(f"decisionpivot_{f}.yaml" for f in FAMILIES),
                            *(f"decisionpivot_chat_{f}.yaml" for f in FAMILIES)])
    group = yaml.safe_load((exported / "decisionpivot.yaml").read_text())
    assert group["group"] == "decisionpivot" and group["task"] == [f"decisionpivot_{f}" for f in FAMILIES]
    docs = [json.loads(line) for line in (exported / "docs" / "policy_case.jsonl").read_text().splitlines()]
    items = read_items(release_items / "policy_case.jsonl")
    assert [d["id"] for d in docs] == [i.id for i in items]
    assert all(d["choices"][d["gold"]] == i.answer and d["system_message"] == SYSTEM_MESSAGE
               for d, i in zip(docs, items, strict=True))
    marker = json.loads((exported / MARKER).read_text())
    assert marker["tasks"]["policy_case"]["items_check"] == f"released core {BENCHMARK_VERSION}"


def test_export_refuses_a_foreign_folder_and_refreshes_its_own(tmp_path: Path, release_items: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(DecisionPivotError, match="not empty and not an earlier `dp export lm-eval` folder"):
        export_lm_eval(tmp_path / "busy", release_items)
    assert sorted(p.name for p in (tmp_path / "busy").iterdir()) == ["notes.txt"]
    again = tmp_path / "again"
    export_lm_eval(again, release_items)
    export_lm_eval(again, release_items, ["policy_case"])
    assert not (again / "decisionpivot_fact_answerable.yaml").exists() and not (again / "docs" /
                                                                                "fact_answerable.jsonl").exists()
    assert yaml.safe_load((again / "decisionpivot.yaml").read_text())["task"] == ["decisionpivot_policy_case"]


def test_export_checks_the_items_first(tmp_path: Path, release_items: Path) -> None:
    items = tmp_path / "items"
    shutil.copytree(release_items, items)
    path = items / "policy_case.jsonl"
    path.write_text(path.read_text().replace("approve", "approved", 1))
    with pytest.raises(DecisionPivotError, match=r"policy_case\.jsonl: SHA-256 \w+ is not \w+, the policy_case "
                                                 r"items the package's released core"):
        export_lm_eval(tmp_path / "out", items)
    assert not (tmp_path / "out").exists()


def test_lm_eval_answers_equal_the_hf_kind_and_score_the_same(tmp_path: Path, release_items: Path,
                                                              lm_eval_run: tuple[bool, Path, Path]) -> None:
    chat, model, out = lm_eval_run
    runs = tmp_path / "runs"
    config = tmp_path / "systems.yaml"
    config.write_text(f"systems:\n  native: {{kind: hf, model: '{model}', device: cpu, batch_size: 8}}\n")
    main(["evaluate", "--system", "native", "--config", str(config), "--items", str(release_items), "--runs",
          str(runs), "--limit", str(LIMIT)])
    if chat:  # the folder of the run
        main(["import", "lm-eval", str(out), "--system", "harnessed", "--items", str(release_items), "--runs",
              str(runs)])
    else:  # its samples files one by one (the folder also holds the chat task run without a template)
        for family in FAMILIES:
            main(["import", "lm-eval", str(samples_file(out, f"decisionpivot_{family}")), "--system", "harnessed",
                  "--items", str(release_items), "--runs", str(runs)])
    worst = 0.0
    for task in FAMILIES:
        native, imported = answers(runs, "native", task), answers(runs, "harnessed", task)
        assert len(imported) == LIMIT and imported.keys() == native.keys()
        for item_id, record in imported.items():
            assert record["p"].keys() == native[item_id]["p"].keys()
            worst = max(worst, *(abs(v - native[item_id]["p"][k]) for k, v in record["p"].items()))
    print(f"largest difference from the hf kind ({'chat' if chat else 'plain'}): {worst:.1e}")
    assert worst <= TOLERANCE
    meta = json.loads((runs / "harnessed" / "policy_case.meta.json").read_text())
    assert meta["kind"] == "lm-eval" and meta["readout"] == "hf/key-logits" == \
        json.loads((runs / "native" / "policy_case.meta.json").read_text())["readout"]
    assert meta["system"]["tasks"] == ("decisionpivot_chat" if chat else "decisionpivot")
    assert (meta["system"]["chat_template_sha"] is not None) is chat
    assert meta["harness"]["name"] == "lm-evaluation-harness" and meta["harness"]["version"]
    assert meta["harness"]["logs"][0]["limit"] == LIMIT
    reports = tmp_path / "reports"
    main(["score", "--runs", str(runs), "--items", str(release_items), "--reference", "", "--out", str(reports),
          "--resamples", "20", "--nofigures", "--partial"])
    assert partial_rows(reports, "harnessed") == partial_rows(reports, "native") != []


def edited_run(out: Path, tmp_path: Path, task: str, edit: Any) -> Path:
    """A copy of an lm-eval output folder with only ``task``'s samples file, each sample through ``edit``."""
    copy = tmp_path / "edited"
    shutil.copytree(out, copy)
    for path in copy.rglob("samples_*.jsonl"):
        if not path.name.startswith(f"samples_{task}_20"):
            path.unlink()
            continue
        lines = [json.dumps(edit(json.loads(line))) for line in path.read_text().splitlines()]
        path.write_text("\n".join(lines) + "\n")
    return copy


def test_samples_of_other_items_or_prompts_are_refused(tmp_path: Path, release_items: Path,
                                                       lm_eval_run: tuple[bool, Path, Path]) -> None:
    chat, _, out = lm_eval_run

    def other_item(sample: dict[str, Any]) -> dict[str, Any]:
        if sample["doc"]["id"] == "policy_case:00005":
            sample["doc"]["item_sha256"] = "f" * 64
        return sample

    def other_prompt(sample: dict[str, Any]) -> dict[str, Any]:  # e.g. --system_instruction or an edited YAML
        for request in sample["arguments"].values():
            request["arg_0"] = "Be brief.\n\n" + request["arg_0"].replace("STATE", "CASE", 1)
        return sample

    def other_keys(sample: dict[str, Any]) -> dict[str, Any]:
        first = sample["arguments"]["gen_args_0"]
        first["arg_1"] = first["arg_1"].upper()
        return sample

    runs = tmp_path / "runs"
    task = "decisionpivot_chat_policy_case" if chat else "decisionpivot_policy_case"
    for edit, message in ((other_item, r"policy_case:00005.*the run answered other items"),
                          (other_prompt, r"the context is not"), (other_keys, r"are not the option keys")):
        with pytest.raises(DecisionPivotError, match=message):
            import_lm_eval_samples(edited_run(out, tmp_path, task, edit), "edited", runs, release_items)
        shutil.rmtree(tmp_path / "edited")
    assert not runs.exists(), "a refused run writes nothing"
    one = samples_file(out, task)
    [written] = import_lm_eval_samples(one, "one-file", runs, release_items)
    assert written.task == "policy_case" and written.in_log == LIMIT


@pytest.mark.parametrize("lm_eval_run", [False], ids=["plain"], indirect=True)
def test_the_chat_tasks_without_a_chat_template_are_refused(tmp_path: Path, release_items: Path,
                                                            lm_eval_run: tuple[bool, Path, Path]) -> None:
    """The plain run holds ``decisionpivot_chat_policy_case`` run without --apply_chat_template."""
    _, _, out = lm_eval_run
    with pytest.raises(DecisionPivotError, match="holds both decisionpivot and decisionpivot_chat tasks"):
        import_lm_eval_samples(out, "both", tmp_path / "runs", release_items)
    with pytest.raises(DecisionPivotError, match="decisionpivot_chat was run without --apply_chat_template"):
        import_lm_eval_samples(samples_file(out, "decisionpivot_chat_policy_case"), "wrong", tmp_path / "runs",
                               release_items)
    assert not (tmp_path / "runs").exists()


def test_a_folder_of_two_runs_or_no_samples_is_a_clear_error(tmp_path: Path, release_items: Path,
                                                             lm_eval_run: tuple[bool, Path, Path],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    _, _, out = lm_eval_run
    twice = tmp_path / "twice"
    shutil.copytree(out, twice)
    for path in list(twice.rglob("*_20*")):
        shutil.copyfile(path, path.with_name(path.name.replace("_20", "_19", 1)))
    with pytest.raises(DecisionPivotError, match="holds 2 lm-eval runs"):
        import_lm_eval_samples(twice, "x", tmp_path / "runs", release_items)
    with pytest.raises(SystemExit) as caught:
        main(["import", "lm-eval", str(tmp_path / "runs"), "--system", "x", "--items", str(release_items)])
    assert caught.value.code == 2 and "no such samples file or folder" in capsys.readouterr().err


# Issue 29 case 7 and "Hangs and tracebacks": runs that are not DecisionPivot's 0-shot prompt, and damaged numbers.
# These build the samples lm-eval writes by hand (its format, as the real runs above write it): no lm_eval run.

RUN_TIME = "2026-12-03T01-00-00.000000"
UNCHANGED = object()


def handmade_run(folder: Path, release_items: Path, *, chat: bool = False, results: dict[str, Any] | None = None,
                 context: Any = None, log_likelihood: Any = UNCHANGED, count: int = 6) -> Path:
    """A folder holding one lm-eval run of ``decisionpivot[_chat]_policy_case`` as lm-eval writes it.

    ``context(item)`` replaces the item's context; ``log_likelihood`` replaces the first sample's first value.
    """
    from decisionpivot.evaluate.hf import key_body, plain_prompt
    from decisionpivot.harness.release_items import item_sha256

    task = "decisionpivot_chat_policy_case" if chat else "decisionpivot_policy_case"
    folder.mkdir(parents=True)
    lines = []
    for number, item in enumerate(read_items(release_items / "policy_case.jsonl")[:count]):
        if context is not None:
            text = context(item)
        elif chat:
            text = f"<|system|>\n{SYSTEM_MESSAGE}\n<|user|>\n{key_body(item)}\n<|assistant|>\n"
        else:
            text = plain_prompt(item)
        keys = list(item.option_keys) if chat else [" " + key for key in item.option_keys]
        values: list[Any] = [-1.0 - 0.5 * k for k in range(len(keys))]
        if number == 0 and log_likelihood is not UNCHANGED:
            values[0] = log_likelihood
        lines.append(json.dumps({
            "doc": {"id": item.id, "item_sha256": item_sha256(item)},
            "arguments": {f"gen_args_{k}": {"arg_0": text, "arg_1": key} for k, key in enumerate(keys)},
            "filtered_resps": [[value, False] for value in values]}))
    (folder / f"samples_{task}_{RUN_TIME}.jsonl").write_text("\n".join(lines) + "\n")
    base = {"config": {"model": "hf", "model_args": "pretrained=tiny"}, "n-shot": {task: 0},
            "configs": {task: {"num_fewshot": 0}}, "system_instruction": None, "system_instruction_sha": None,
            "chat_template": "{{ messages }}" if chat else None, "fewshot_as_multiturn": chat}
    (folder / f"results_{RUN_TIME}.json").write_text(json.dumps({**base, **(results or {})}))
    return folder


def test_a_handmade_zero_shot_run_imports(tmp_path: Path, release_items: Path) -> None:
    for chat in (False, True):
        run = handmade_run(tmp_path / f"run-{chat}", release_items, chat=chat)
        [written] = import_lm_eval_samples(run, f"zero-shot-{chat}", tmp_path / "runs", release_items)
        assert written.in_log == 6


@pytest.mark.parametrize("results", [
    {"n-shot": {"decisionpivot_policy_case": 3}},
    {"configs": {"decisionpivot_policy_case": {"num_fewshot": 3}}},
    {"system_instruction": "Be brief.", "system_instruction_sha": "ab12"}], ids=["n-shot", "num_fewshot", "system"])
def test_few_shot_and_system_instruction_runs_are_refused(tmp_path: Path, release_items: Path,
                                                          results: dict[str, Any]) -> None:
    run = handmade_run(tmp_path / "run", release_items, results=results)
    with pytest.raises(DecisionPivotError, match=r"few-shot examples \(--num_fewshot\)|system instruction"):
        import_lm_eval_samples(run, "shots", tmp_path / "runs", release_items)
    assert not (tmp_path / "runs").exists()


def test_few_shot_turns_in_a_chat_context_are_refused_whatever_the_results_say(tmp_path: Path,
                                                                                release_items: Path) -> None:
    """``--num_fewshot 3 --fewshot_as_multiturn``: three release items and their gold answers as chat turns."""
    from decisionpivot.evaluate.hf import key_body

    examples = read_items(release_items / "policy_case.jsonl")[100:103]
    turns = "".join(f"<|user|>\n{key_body(e)}\n<|assistant|>\n{e.answer}\n" for e in examples)

    def few_shot(item: Any) -> str:
        return f"<|system|>\n{SYSTEM_MESSAGE}\n{turns}<|user|>\n{key_body(item)}\n<|assistant|>\n"

    run = handmade_run(tmp_path / "run", release_items, chat=True, context=few_shot)
    with pytest.raises(DecisionPivotError, match=r"holds 4 items' prompts.*few-shot examples"):
        import_lm_eval_samples(run, "shots", tmp_path / "runs", release_items)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), "NaN", "-Infinity", 50.0, True, None],
                         ids=["nan", "inf", "-inf", "nan-text", "-inf-text", "+50", "true", "null"])
def test_impossible_log_likelihoods_are_refused_before_a_byte_is_written(tmp_path: Path, release_items: Path,
                                                                        value: Any) -> None:
    run = handmade_run(tmp_path / "run", release_items, log_likelihood=value)
    with pytest.raises(DecisionPivotError, match=r"samples_decisionpivot_policy_case_.*\.jsonl:1: log-likelihood"):
        import_lm_eval_samples(run, "damaged", tmp_path / "runs", release_items)
    assert not (tmp_path / "runs").exists(), "no empty answer file"
