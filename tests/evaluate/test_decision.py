"""The in-process ``decision`` kind: any chat checkpoint loaded as ``transformers serve`` loads it; threads; errors.

The checkpoints are tiny random models of each architecture in ``tests/evaluate/tiny_decider.py``, built here.
Comparing the answers with ``transformers serve`` on the same files is ``test_systemone_serve.py``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the decision kind needs torch (installed by the test extra)")
transformers = pytest.importorskip("transformers")

from safetensors import safe_open  # noqa: E402

from decisionpivot import RELEASE_SEED  # noqa: E402
from decisionpivot.errors import DecisionPivotError  # noqa: E402
from decisionpivot.evaluate.decision import DEFAULT_THREADS, DecisionPipelineRunner  # noqa: E402
from decisionpivot.evaluate.kinds import RunCounters, kinds  # noqa: E402
from decisionpivot.evaluate.run import evaluate_system  # noqa: E402
from decisionpivot.evaluate.systems import SystemConfig, get_system  # noqa: E402
from decisionpivot.generate.run import write_family_files  # noqa: E402
from decisionpivot.items import Item, read_items  # noqa: E402
from tests.evaluate.tiny_decider import ARCHITECTURES, build_tiny_decider  # noqa: E402

FAMILIES = ("fact_answerable", "policy_case")


@pytest.fixture(scope="module")
def two_families(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("decision-items")
    write_family_files(folder, RELEASE_SEED, list(FAMILIES))
    return folder


@pytest.fixture
def torch_threads() -> Iterator[None]:
    """Puts torch's thread count back as it was (the kind sets it for the whole process)."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def system_file(tmp_path: Path, model: Path, **extra: object) -> Path:
    path = tmp_path / "systems.yaml"
    path.write_text(json.dumps({"systems": {"local": {"kind": "decision", "model": str(model), "device": "cpu",
                                                      **extra}}}))
    return path


def runner_for(tmp_path: Path, model: Path, **extra: object) -> DecisionPipelineRunner:
    return DecisionPipelineRunner(get_system("local", system_file(tmp_path, model, **extra)))


def some_items(folder: Path, per_family: int) -> list[Item]:
    return [item for family in FAMILIES for item in read_items(folder / f"{family}.jsonl")[:per_family]]


def answer(runner: DecisionPipelineRunner, items: list[Item]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    runner.run(items, records.append, RunCounters(), lambda entry: None)
    return records


def weights_in_file(folder: Path) -> int:
    with safe_open(str(folder / "model.safetensors"), "pt") as weights:
        return sum(math.prod(weights.get_slice(name).get_shape()) for name in weights.keys())  # noqa: SIM118


@pytest.mark.parametrize("architecture", list(ARCHITECTURES))
def test_every_chat_architecture_loads_as_itself_and_answers(tmp_path: Path, checkpoints: dict[str, Path],
                                                             two_families: Path, architecture: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Never the default-size ``JevForDecision`` that ``pipeline("decision", model=PATH)`` builds for qwen2,
    qwen3_5 and gemma4 configs (the spy refuses to build one, so an old loader fails here instead of
    filling the memory)."""
    from transformers.models.jev import modeling_jev

    built: list[str] = []

    def refuse(self: Any, config: Any) -> None:
        built.append(type(config).__name__)
        raise RuntimeError("a JevForDecision was built for a plain chat checkpoint")

    monkeypatch.setattr(modeling_jev.JevForDecision, "__init__", refuse)
    model = checkpoints[architecture]
    runner = runner_for(tmp_path, model)
    assert built == []
    declared = json.loads((model / "config.json").read_text())["architectures"]
    assert [type(runner.pipe.model).__name__] == declared
    assert sum(p.numel() for p in runner.pipe.model.parameters()) <= weights_in_file(model)
    records = answer(runner, some_items(two_families, 3))
    assert all("p" in r and r["input_tokens"] > 100 and r["tokens"] == 0 for r in records), records
    assert len({json.dumps(r["p"], sort_keys=True) for r in records}) == len(records), "each item its own answer"


def test_a_text_only_export_without_a_processor_is_read_with_its_tokenizer(tmp_path: Path,
                                                                           two_families: Path) -> None:
    """A Gemma 4 checkpoint whose processor cannot be built (no image/video processor files) still answers."""
    model = build_tiny_decider(tmp_path / "gemma4-text-only", "gemma4", processor_class=False)
    with pytest.raises(OSError):
        transformers.AutoProcessor.from_pretrained(model)
    runner = runner_for(tmp_path, model)
    assert runner.pipe.processor is None
    assert all("p" in r for r in answer(runner, some_items(two_families, 2)))


@pytest.mark.usefixtures("torch_threads")
def test_threads_are_set_and_do_not_change_the_answers(tmp_path: Path, checkpoints: dict[str, Path],
                                                       two_families: Path) -> None:
    """One and two threads give bit-identical probabilities on these checkpoints (measured: the README's
    1e-6 tolerance is never used here)."""
    items = some_items(two_families, 4)
    by_threads = {}
    for threads in (1, 2):
        runner = runner_for(tmp_path, checkpoints["qwen2"], threads=threads)
        assert torch.get_num_threads() == threads
        by_threads[threads] = [r["p"] for r in answer(runner, items)]
    assert by_threads[1] == by_threads[2]
    torch.set_num_threads(3)
    runner_for(tmp_path, checkpoints["qwen2"], threads=0)
    assert torch.get_num_threads() == 3, "threads: 0 leaves torch's setting alone"
    runner_for(tmp_path, checkpoints["qwen2"])
    assert torch.get_num_threads() == DEFAULT_THREADS == 1, "without a threads setting: one thread (measured best)"


@pytest.mark.usefixtures("torch_threads")
def test_threads_are_recorded_and_a_resume_may_change_them(tmp_path: Path, checkpoints: dict[str, Path],
                                                           two_families: Path) -> None:
    runs = tmp_path / "runs"
    default = get_system("local", system_file(tmp_path, checkpoints["llama"]))
    [first] = evaluate_system(default, two_families, runs, tasks=["policy_case"], limit=2, progress=False)
    meta_path = runs / "local" / "policy_case.meta.json"
    assert json.loads(meta_path.read_text())["system"]["threads"] == DEFAULT_THREADS
    two = get_system("local", system_file(tmp_path, checkpoints["llama"], threads=2))
    assert two.fingerprint() == default.fingerprint(), "threads do not change the answers"
    [resumed] = evaluate_system(two, two_families, runs, tasks=["policy_case"], limit=4, progress=False)
    assert (first.answered, resumed.already, resumed.answered) == (2, 2, 4)  # 2 kept, 2 more asked
    assert json.loads(meta_path.read_text())["system"]["threads"] == 2


class FailingPipeline:
    """A pipeline whose model cannot run (what a broken checkpoint or an exhausted memory looks like)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def preprocess(self, request: dict[str, Any]) -> Any:
        raise self.error


def test_a_model_that_cannot_run_stops_with_one_line_and_a_rejected_item_is_recorded(two_families: Path) -> None:
    items = some_items(two_families, 1)
    settings = {key: setting.default for key, setting in kinds()["decision"].settings.items()}
    system = SystemConfig("local", "decision", {**settings, "model": "unused: the pipeline is given"})
    broken = DecisionPipelineRunner(system, pipe=FailingPipeline(RuntimeError("mat1 and mat2 shapes\ncannot be "
                                                                               "multiplied (1x16 and 4096x24)")))
    with pytest.raises(DecisionPivotError) as err:
        answer(broken, items)
    assert str(err.value) == (f"system 'local': the model failed on {items[0].id}: RuntimeError: mat1 and mat2 "
                              "shapes cannot be multiplied (1x16 and 4096x24)")
    rejected = DecisionPipelineRunner(system, pipe=FailingPipeline(ValueError("The labels ['Yes', 'No'] are not\n"
                                                                              "distinct single tokens")))
    records = answer(rejected, items)
    assert [r["error"] for r in records] == ["pipeline: The labels ['Yes', 'No'] are not distinct single tokens"] * 2
