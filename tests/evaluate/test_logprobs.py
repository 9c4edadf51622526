"""The ``logprobs`` kind: key probabilities from a served model equal the ``hf`` kind's on the same weights.

The server here is :mod:`tests.evaluate.logprob_server`, which computes the log-probabilities from the same
tiny Llama in process (the real vLLM comparison is ``test_logprobs_vllm.py``); ``transformers serve``, which
accepts ``logprobs`` and returns none, is started for real for the stop-early path.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the logprobs kind's tokenizer and its stand-in server need torch")
transformers = pytest.importorskip("transformers")

from decisionpivot import RELEASE_SEED  # noqa: E402
from decisionpivot.evaluate.http import StopRun  # noqa: E402
from decisionpivot.evaluate.kinds import RunCounters, SystemConfig  # noqa: E402
from decisionpivot.evaluate.run import evaluate_system  # noqa: E402
from decisionpivot.evaluate.systems import get_system  # noqa: E402
from decisionpivot.generate.run import write_family_files  # noqa: E402
from decisionpivot.items import Item, read_items  # noqa: E402
from tests.evaluate.logprob_server import logprob_server  # noqa: E402
from tests.evaluate.tiny_decider import build_tiny_decider  # noqa: E402

FAMILIES = ("fact_answerable", "policy_case", "clause_change", "triage_order")
TOLERANCE = 1e-5
"""Served and in-process probabilities of the same checkpoint agree within this (float32, other batch shapes)."""


@pytest.fixture(scope="module")
def families(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logprob-items")
    write_family_files(folder, RELEASE_SEED, list(FAMILIES))
    return folder


@pytest.fixture(scope="module", params=["chat-template", "plain"])
def checkpoint(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny Llama with its chat template, and the same weights without one (the plain prompt)."""
    folder = build_tiny_decider(tmp_path_factory.mktemp("tiny-llama"))
    if request.param == "plain":
        plain = tmp_path_factory.mktemp("tiny-llama-plain")
        for path in folder.iterdir():
            if path.name != "chat_template.jinja":
                shutil.copy(path, plain / path.name)
        assert not transformers.AutoTokenizer.from_pretrained(plain).chat_template
        return plain
    return folder


def sample(folder: Path, per_family: int = 2) -> list[Item]:
    return [item for family in FAMILIES for item in read_items(folder / f"{family}.jsonl")[:per_family]]


def system(tmp_path: Path, name: str, **settings: Any) -> SystemConfig:
    path = tmp_path / f"{name}.yaml"
    body = ", ".join(f"{k}: {v!r}" if isinstance(v, str) else f"{k}: {v}" for k, v in settings.items())
    path.write_text(f"systems:\n  {name}: {{{body}}}\n")
    return get_system(name, path)


def answers(config: SystemConfig, items: Sequence[Item]) -> dict[str, dict[str, Any]]:
    records: list[dict[str, Any]] = []
    runner = config.spec.make_runner(config)
    runner.run(items, records.append, RunCounters(), lambda entry: None)
    assert len(records) == len(items)
    return {r["id"]: r for r in records}


def test_whole_keys_from_echoed_logprobs_equal_the_hf_kind(tmp_path: Path, checkpoint: Path, families: Path) -> None:
    items = sample(families)
    local = answers(system(tmp_path, "local", kind="hf", model=str(checkpoint), device="cpu"), items)
    with logprob_server(checkpoint) as url:
        served = answers(system(tmp_path, "served", kind="logprobs", base_url=url, model=str(checkpoint),
                                concurrency=2), items)
    multi = [i for i in items if any(k in ("yes_only_A", "T-1053") or k.startswith("T-") for k in i.option_keys)]
    assert multi, "the sample holds multi-token keys and keys sharing a first token"
    for item in items:
        assert "p" in served[item.id], served[item.id]
        for key in item.option_keys:
            assert abs(served[item.id]["p"][key] - local[item.id]["p"][key]) < TOLERANCE
        assert served[item.id]["input_tokens"] > 0


def test_first_tokens_from_top_logprobs(tmp_path: Path, families: Path, tmp_path_factory: pytest.TempPathFactory
                                        ) -> None:
    """Single-token keys equal the hf kind; shared first tokens and top-k cut-offs are error records, never zeros."""
    checkpoint = build_tiny_decider(tmp_path_factory.mktemp("tiny-llama-chat"))
    items = sample(families)
    local = answers(system(tmp_path, "local", kind="hf", model=str(checkpoint), device="cpu"), items)
    with logprob_server(checkpoint) as url:
        served = answers(system(tmp_path, "served", kind="logprobs", base_url=url, model=str(checkpoint),
                                readout="chat", top_logprobs=400), items)
        cut = answers(system(tmp_path, "cut", kind="logprobs", base_url=url, model=str(checkpoint),
                             readout="chat", top_logprobs=1), items[:2])
    readable = 0
    for item in items:
        record = served[item.id]
        if "p" in record:
            readable += 1
            for key in item.option_keys:
                assert abs(record["p"][key] - local[item.id]["p"][key]) < TOLERANCE
        else:
            assert "readout completions" in record["error"], record
    assert readable == 2, "yes and no are one token each in this tokenizer"
    assert [i.family for i in items if "error" in served[i.id]] == ["policy_case"] * 2 + ["clause_change"] * 2 + \
        ["triage_order"] * 2
    for record in cut.values():
        assert record["error"].startswith("top-k cut-off: key(s) ['") and "top 1 " in record["error"]
        assert "p" not in record


def test_a_reasoning_first_token_is_said(tmp_path: Path, families: Path, tmp_path_factory: pytest.TempPathFactory
                                         ) -> None:
    checkpoint = build_tiny_decider(tmp_path_factory.mktemp("tiny-llama-thinks"))
    items = sample(families, 1)[:1]
    with logprob_server(checkpoint, quirk="thinks") as url:
        [record] = answers(system(tmp_path, "thinker", kind="logprobs", base_url=url, model=str(checkpoint),
                                  readout="chat", top_logprobs=1), items).values()
    assert "opens a reasoning block ('<think>')" in record["error"]


@pytest.mark.parametrize("readout", ["completions", "chat"])
def test_a_server_without_logprobs_stops_the_run_at_once(tmp_path: Path, families: Path, readout: str,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    checkpoint = build_tiny_decider(tmp_path_factory.mktemp("tiny-llama-none"))
    with logprob_server(checkpoint, quirk="no-logprobs") as url:
        config = system(tmp_path, "mute", kind="logprobs", base_url=url, model=str(checkpoint), readout=readout,
                        concurrency=1)
        with pytest.raises(StopRun, match="answered without log-probabilities"):
            evaluate_system(config, families, tmp_path / "runs", tasks=["fact_answerable"], limit=5, progress=False)
    written = (tmp_path / "runs" / "mute" / "fact_answerable.jsonl").read_text()
    assert written.count("\n") == 0, "nothing recorded: a re-run against a right server asks every item"


def test_the_meta_names_the_readout(tmp_path: Path, families: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    import json

    checkpoint = build_tiny_decider(tmp_path_factory.mktemp("tiny-llama-meta"))
    with logprob_server(checkpoint) as url:
        config = system(tmp_path, "served", kind="logprobs", base_url=url, model=str(checkpoint))
        [run] = evaluate_system(config, families, tmp_path / "runs", tasks=["fact_answerable"], limit=3,
                                progress=False)
    assert run.answered == 3
    meta = json.loads(run.path.with_name("fact_answerable.meta.json").read_text())
    assert meta["readout"] == "logprobs/whole-key"
    assert config.readout == "logprobs/whole-key"


def test_transformers_serve_accepts_logprobs_and_sends_none_so_the_run_stops(
        tmp_path: Path, families: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The real ``transformers serve`` (installed with transformers): one clear line, nothing recorded."""
    from tests.evaluate.test_systemone_serve import transformers_serve

    checkpoint = build_tiny_decider(tmp_path_factory.mktemp("tiny-llama-serve"))
    with transformers_serve(tmp_path / "serve.log", str(checkpoint)) as url:
        config = system(tmp_path, "tserve", kind="logprobs", base_url=url + "/v1", model=str(checkpoint),
                        readout="chat", concurrency=1, timeout_s=60)
        with pytest.raises(StopRun, match=r"answered without log-probabilities \(it accepted") as stopped:
            evaluate_system(config, families, tmp_path / "runs", tasks=["fact_answerable"], limit=3, progress=False)
    assert "\n" not in str(stopped.value)
    assert (tmp_path / "runs" / "tserve" / "fact_answerable.jsonl").read_text() == ""
