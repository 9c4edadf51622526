"""The hf kind on a GGUF file: the same model written as a transformers checkpoint and as a float32 GGUF file
(``tiny_gguf.py``) reads the same prompts and the same probabilities; how a GGUF model is named, and each way
naming one can go wrong, as one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the hf runner needs torch (installed by the test extra)")
pytest.importorskip("transformers")
pytest.importorskip("gguf", reason="GGUF models need the gguf package (installed by the test extra)")

from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.hf import Checkpoint, HFRunner, checkpoint_of, key_prompt
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import SystemConfigError, get_system
from decisionpivot.items import Item, Option, read_items
from tests.evaluate.conftest import FAMILY
from tests.evaluate.tiny_gguf import TinyGGUF, build_tiny_gguf


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyGGUF:
    return build_tiny_gguf(tmp_path_factory.mktemp("tiny-gguf"))


def shared_first_token_item() -> Item:
    return Item("x:1", "x", "E", "1", None, None, None, None, "Two versions differ.", "Which?",
                (Option("same", "s"), Option("yes_only_A", "a"), Option("yes_only_B", "b")), "same")


def test_a_gguf_file_reads_what_its_checkpoint_reads(tiny: TinyGGUF, items_dir: Path) -> None:
    """Named on one line as the file itself, the GGUF model renders the same chat prompt, tokenizes it the same
    and gives the same probabilities as the transformers checkpoint it was written from (float32 both ways)."""
    from_gguf = HFRunner(get_system(f"hf:{tiny.gguf_file}?device=cpu&batch_size=3"))
    from_checkpoint = HFRunner(get_system(f"hf:{tiny.checkpoint}?device=cpu&batch_size=3"))
    assert type(from_gguf.model.config.quantization_config).__name__ == "GgufConfig", "not loaded from the GGUF file"
    items = [*read_items(items_dir / f"{FAMILY}.jsonl")[:5], shared_first_token_item()]
    for item in items:
        text, join, lead = key_prompt(from_gguf.tokenizer, item)
        assert text.endswith("<|im_start|>assistant\n") and join == "" and lead == [], "the chat template's path"
        assert from_gguf.prompt_and_continuations(item) == from_checkpoint.prompt_and_continuations(item)
    for got, want in zip(from_gguf.answer(items), from_checkpoint.answer(items), strict=True):
        assert got["id"] == want["id"] and got["p"] == pytest.approx(want["p"], abs=1e-6)
        assert got["input_tokens"] == want["input_tokens"]


def test_dp_evaluate_runs_a_gguf_spec_and_records_the_file(tiny: TinyGGUF, tmp_path: Path, items_dir: Path) -> None:
    system = get_system(f"hf:{tiny.gguf_file.parent}?gguf_file={tiny.gguf_file.name}&device=cpu&name=tiny-gguf")
    [run] = evaluate_system(system, items_dir, tmp_path / "runs", limit=3, progress=False)
    assert run.answered == 3 and run.errors == 0
    meta = json.loads((tmp_path / "runs" / "tiny-gguf" / f"{FAMILY}.meta.json").read_text())
    assert meta["readout"] == "hf/key-logits"
    assert (meta["system"]["model"], meta["system"]["gguf_file"]) == (str(tiny.gguf_file.parent), tiny.gguf_file.name)


@pytest.mark.parametrize(("model", "gguf_file", "expected"), [
    ("/models/smollm2/SmolLM2.Q4_1.gguf", None, Checkpoint("/models/smollm2", "SmolLM2.Q4_1.gguf")),
    ("QuantFactory/SmolLM2-GGUF/SmolLM2.Q4_1.gguf", None, Checkpoint("QuantFactory/SmolLM2-GGUF", "SmolLM2.Q4_1.gguf")),
    ("SmolLM2.Q4_1.GGUF", None, Checkpoint(".", "SmolLM2.Q4_1.GGUF")),
    ("QuantFactory/SmolLM2-GGUF", "SmolLM2.Q4_1.gguf", Checkpoint("QuantFactory/SmolLM2-GGUF", "SmolLM2.Q4_1.gguf")),
    ("/models/qwen", None, Checkpoint("/models/qwen", None)),
])
def test_where_a_model_is_loaded_from(model: str, gguf_file: str | None, expected: Checkpoint) -> None:
    assert checkpoint_of({"model": model, "gguf_file": gguf_file}) == expected


@pytest.mark.parametrize(("spec", "message"), [
    ("hf:/models/qwen?gguf_file=model.safetensors", "gguf_file: expected the name of a GGUF file (ending in .gguf)"),
    ("hf:/models/a.gguf?gguf_file=b.gguf", "name the file once"),
])
def test_a_gguf_file_named_wrongly_is_refused_when_declared(spec: str, message: str) -> None:
    with pytest.raises(SystemConfigError, match=r"^--system") as caught:
        get_system(spec)
    assert message in str(caught.value)


def test_a_missing_gguf_file_is_one_line_naming_the_files_there(tiny: TinyGGUF, tmp_path: Path, items_dir: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    typo = tiny.gguf_file.parent / "tiny-llama.F23.gguf"
    with pytest.raises(SystemExit) as stopped:
        main(["evaluate", "--system", f"hf:{typo}?device=cpu", "--items", str(items_dir), "--runs",
              str(tmp_path / "runs"), "--limit", "1"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"no GGUF file '{typo}' (did you mean tiny-llama.F32.gguf?)" in err, err
    with pytest.raises(DecisionPivotError, match="no folder '/nonexistent/models'"):
        HFRunner(get_system("hf:/nonexistent/models/x.gguf?device=cpu"))


def test_a_gguf_model_without_the_gguf_package_says_what_to_install(tiny: TinyGGUF,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gguf", None)  # importlib.util.find_spec("gguf") is None: not installed
    with pytest.raises(DecisionPivotError, match=r"needs the gguf package: pip install 'decisionpivot\[hf\]'"):
        HFRunner(get_system(f"hf:{tiny.gguf_file}?device=cpu"))


def test_a_gguf_file_under_the_home_folder_loads(tiny: TinyGGUF, monkeypatch: pytest.MonkeyPatch) -> None:
    """``~`` is the home folder, as a shell would have read it (a YAML file or a quoted spec leaves it as it is)."""
    monkeypatch.setenv("HOME", str(tiny.gguf_file.parent))
    runner = HFRunner(get_system(f"hf:~/{tiny.gguf_file.name}?device=cpu"))
    assert type(runner.model.config.quantization_config).__name__ == "GgufConfig"
