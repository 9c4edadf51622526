"""inspect's own ``hf/`` provider on our tasks: it samples unless told ``-M do_sample=False`` (docs/served-readout.md).

The provider defaults to ``do_sample=True``, and transformers refuses sampling at the task's temperature 0
("temperature (=0.0) has to be a strictly positive float ... set do_sample=False"), so without the model
argument every sample fails; with it, decoding is greedy (what temperature 0 asks) and every sample is scored.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402

from decisionpivot.harness.inspect_tasks import decisionpivot_task  # noqa: E402
from tests.evaluate.tiny_decider import build_tiny_decider  # noqa: E402


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_decider(tmp_path_factory.mktemp("inspect-hf-llama"))


def run(tiny_llama: Path, release_items: Path, logs: Path, **model_args: object) -> object:
    task = decisionpivot_task(("fact_answerable",), None, str(release_items))
    [log] = inspect_eval(task, model=f"hf/{tiny_llama}", model_args={"device": "cpu", **model_args}, limit=2,
                         max_tokens=4, log_dir=str(logs), display="none", fail_on_error=False)
    return log


def test_the_hf_provider_needs_do_sample_false_and_then_scores_every_sample(
        tmp_path: Path, tiny_llama: Path, release_items: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    failed = run(tiny_llama, release_items, tmp_path / "logs1")
    errors = [str(s.error.message) for s in failed.samples if s.error is not None]  # type: ignore[attr-defined]
    assert len(errors) == 2 and all("do_sample" in e for e in errors), errors
    greedy = run(tiny_llama, release_items, tmp_path / "logs2", do_sample=False)
    assert greedy.status == "success"  # type: ignore[attr-defined]
    samples = greedy.samples  # type: ignore[attr-defined]
    assert len(samples) == 2 and all(s.error is None and s.scores for s in samples)
    assert greedy.eval.model_args["do_sample"] is False  # type: ignore[attr-defined]
