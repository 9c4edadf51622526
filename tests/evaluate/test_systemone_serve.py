"""The real ``transformers serve`` /v1/systemone endpoint and the ``decision`` kind in process, on the same files.

A tiny random Llama built in the test is served by transformers' own server (FastAPI + uvicorn, the
serving extra from the lock) and evaluated through ``dp evaluate`` with a two-line System One config,
then in process through ``kind: decision`` with a one-line config; both are scored by ``dp score``.
Then one server that loads any model it is asked for answers tiny Llama, Qwen2, Qwen3, Qwen3.5, Gemma 3
and Gemma 4 checkpoints (``tests/evaluate/tiny_decider.py``), each compared with the in-process kind:
"any chat model by label logits", including the qwen2 / qwen3_5 / gemma4 configs that transformers'
own ``pipeline("decision", model=PATH)`` cannot load.

Tolerance between server and pipeline: 1e-6 absolute. Both run the same code (the server's handler
calls ``DecisionPipeline.preprocess/forward/postprocess``, as the kind does) on the same float32 weights
on the CPU, each with one torch thread, and JSON carries Python floats exactly (repr round-trips), so
the values agree to the last bit here (checked: every probability is equal); the margin covers a
different CPU or thread count choosing another reduction order in torch's kernels.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.evaluate.http import StopRun
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.conftest import write_release_sample
from tests.evaluate.tiny_decider import ARCHITECTURES, build_tiny_decider

FAMILIES = ["fact_answerable", "policy_case"]
TOLERANCE = 1e-6


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def tiny_decider(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_decider(tmp_path_factory.mktemp("tiny-decider"))


@pytest.fixture(scope="module")
def two_families(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tenth of the two families' release groups, every level: each item goes through a real server and
    in process (the whole 1,200 items took a quarter of an hour of the test command on two busy cores)."""
    return write_release_sample(tmp_path_factory.mktemp("serve-items"), FAMILIES)


@contextlib.contextmanager
def transformers_serve(log: Path, *model: str) -> Iterator[str]:
    """``transformers serve [MODEL]`` on a free loopback port (pinned to MODEL when given); yields the base URL."""
    port = free_port()
    cli = Path(sys.executable).with_name("transformers")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    with log.open("w") as out:
        process = subprocess.Popen([str(cli), "serve", *model, "--host", "127.0.0.1", "--port", str(port),
                                    "--device", "cpu"], stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"transformers serve did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def served(tiny_decider: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server pinned to the tiny Llama."""
    with transformers_serve(tmp_path_factory.mktemp("serve-log") / "serve.log", str(tiny_decider)) as url:
        yield url


@pytest.fixture(scope="module")
def serves_any(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that loads whichever model a request names (a local path here)."""
    with transformers_serve(tmp_path_factory.mktemp("serve-any-log") / "serve.log") as url:
        yield url


def write_config(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def answers(runs: Path, system: str, task: str) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (runs / system / f"{task}.jsonl").read_text().splitlines())}


def test_served_and_in_process_agree_and_score(tmp_path: Path, served: str, tiny_decider: Path,
                                                two_families: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path / "systems.yaml", (
        "systems:\n"
        f"  served: {{kind: systemone, base_url: '{served}', model: '{tiny_decider}', concurrency: 2,\n"
        "           max_options: 26, price_per_million_input_tokens: 0.5}\n"
        f"  local: {{kind: decision, model: '{tiny_decider}', device: cpu}}\n"
    ))
    runs = tmp_path / "runs"
    for system in ("served", "local"):
        main(["evaluate", "--system", system, "--config", str(config), "--items", str(two_families),
              "--runs", str(runs), "--allow-modified-items"])  # a sample of the release: no draw
    for task in FAMILIES:
        served_answers, local_answers = answers(runs, "served", task), answers(runs, "local", task)
        assert len(served_answers) == len(local_answers) == len(read_items(two_families / f"{task}.jsonl")) >= 60
        assert all("p" in r for r in served_answers.values()), "every item answered by the real server"
        for item_id, record in served_answers.items():
            other = local_answers[item_id]["p"]
            assert record["p"].keys() == other.keys()
            assert max(abs(record["p"][k] - other[k]) for k in other) <= TOLERANCE
            assert record["input_tokens"] > 0 and record["tokens"] == 0
    meta = json.loads((runs / "served" / "fact_answerable.meta.json").read_text())
    assert meta["readout"] == "systemone/noul" and meta["items_check"].startswith("modified (--allow-modified-items)")
    capsys.readouterr()
    out = tmp_path / "reports"
    main(["score", "--runs", str(runs), "--items", str(two_families), "--reference", "", "--out", str(out),
          "--resamples", "50", "--nofigures", "--allow-modified-items"])
    board = (out / "leaderboard.md").read_text()
    assert "served" in board and "local" in board
    scores = json.loads((out / "scores.json").read_text())
    macro = {r["system"]: r["value"] for r in scores
             if r["metric"] == "pair_accuracy" and r["task"] == "macro" and r["level"] is None}
    assert macro["served"] == pytest.approx(macro["local"], abs=1e-9), "the same model scores the same"


def test_a_wrong_model_name_stops_early_then_the_fixed_config_runs(tmp_path: Path, served: str, tiny_decider: Path,
                                                                   two_families: Path) -> None:
    wrong = write_config(tmp_path / "wrong.yaml", f"systems:\n  s1: {{kind: systemone, base_url: '{served}', "
                                                  "model: qwen-typo, concurrency: 1}\n")
    runs = tmp_path / "runs"
    with pytest.raises(StopRun, match=r"HTTP 400: Server is pinned to"):
        evaluate_system(get_system("s1", wrong), two_families, runs, tasks=["fact_answerable"], progress=False,
                        allow_modified_items=True)
    assert (runs / "s1" / "fact_answerable.jsonl").read_text() == ""  # nothing recorded to resume wrongly
    fixed = write_config(tmp_path / "fixed.yaml", f"systems:\n  s1: {{kind: systemone, base_url: '{served}', "
                                                  f"model: '{tiny_decider}'}}\n")
    [run] = evaluate_system(get_system("s1", fixed), two_families, runs, tasks=["fact_answerable"], limit=20,
                            progress=False, allow_modified_items=True)
    assert run.answered == 20


def test_an_unexpected_field_is_a_422_config_error_not_600_records(tmp_path: Path, served: str, tiny_decider: Path,
                                                                    two_families: Path) -> None:
    config = write_config(tmp_path / "s.yaml", f"systems:\n  s2: {{kind: systemone, base_url: '{served}', "
                                               f"model: '{tiny_decider}', extra_body: {{bogus: 1}}}}\n")
    with pytest.raises(StopRun, match=r"HTTP 422: body.bogus: Extra inputs are not permitted"):
        evaluate_system(get_system("s2", config), two_families, tmp_path / "runs", tasks=["policy_case"],
                        progress=False, allow_modified_items=True)


def test_http_400_records_of_a_wrong_model_are_transient_and_asked_again_under_the_fixed_config(
        tmp_path: Path, served: str, tiny_decider: Path, two_families: Path) -> None:
    """Fewer attempts than the early-stop window: the 400s are no answer of the model (transient, never a wrong
    answer), so the fixed config asks them again without --restart (issue 37: a 4xx no interface documents)."""
    runs = tmp_path / "runs"
    wrong = write_config(tmp_path / "wrong.yaml", f"systems:\n  s3: {{kind: systemone, base_url: '{served}', "
                                                  "model: typo-model, max_attempts: 1}\n")
    [first] = evaluate_system(get_system("s3", wrong), two_families, runs, tasks=["policy_case"], limit=5,
                              progress=False, allow_modified_items=True)
    records = [json.loads(line) for line in first.path.read_text().splitlines()]
    assert first.transient == 5 and all(r["transient"] is True and "HTTP 400: Server is pinned" in r["error"]
                                        for r in records)
    text = f"systems:\n  s3: {{kind: systemone, base_url: '{served}', model: '{tiny_decider}'}}\n"
    [again] = evaluate_system(get_system("s3", write_config(tmp_path / "fixed.yaml", text)), two_families, runs,
                              tasks=["policy_case"], limit=5, progress=False, allow_modified_items=True)
    assert again.answered == 5 and again.errors == 0


def assert_same_answers(runs: Path, served: str, local: str, tasks: list[str], count: int) -> None:
    """Both systems answered every item of ``tasks``, with probabilities within TOLERANCE and the same input."""
    for task in tasks:
        served_answers, local_answers = answers(runs, served, task), answers(runs, local, task)
        assert len(served_answers) == len(local_answers) == count
        for item_id, record in served_answers.items():
            other = local_answers[item_id]
            assert "p" in record and "p" in other, (record, other)
            assert record["p"].keys() == other["p"].keys()
            assert max(abs(record["p"][k] - other["p"][k]) for k in other["p"]) <= TOLERANCE, (record, other)
            assert record["input_tokens"] == other["input_tokens"] > 0 and record["tokens"] == other["tokens"] == 0


def evaluate_both(tmp_path: Path, url: str, served_model: Path, local_model: Path, items: Path,
                  *options: str) -> Path:
    """``dp evaluate`` of ``served`` (System One at ``url``) and ``local`` (in process); returns the runs folder."""
    config = write_config(tmp_path / "systems.yaml", (
        "systems:\n"
        f"  served: {{kind: systemone, base_url: '{url}', model: '{served_model}', concurrency: 2, max_options: 26}}\n"
        f"  local: {{kind: decision, model: '{local_model}', device: cpu}}\n"
    ))
    runs = tmp_path / "runs"
    for system in ("served", "local"):
        main(["evaluate", "--system", system, "--config", str(config), "--items", str(items), "--runs", str(runs),
              "--allow-modified-items", *options])  # the sample of tests/conftest.py:write_release_sample
    return runs


@pytest.mark.parametrize("architecture", list(ARCHITECTURES))
def test_each_chat_architecture_in_process_matches_the_server(tmp_path: Path, serves_any: str, architecture: str,
                                                              checkpoints: dict[str, Path], two_families: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    model = checkpoints[architecture]
    runs = evaluate_both(tmp_path, serves_any, model, model, two_families, "--limit", "12")
    assert_same_answers(runs, "served", "local", FAMILIES, 12)
    out = capsys.readouterr().out
    assert "served: 24 of 24 items answered, 0 errors" in out and "local: 24 of 24 items answered, 0 errors" in out


def test_a_checkpoint_without_a_processor_in_process_matches_the_served_one(
        tmp_path: Path, serves_any: str, checkpoints: dict[str, Path], two_families: Path) -> None:
    """The kind falls back to the tokenizer where no processor loads; the same weights with the tokenizer named
    as the processor (what the server needs) answer alike."""
    text_only = build_tiny_decider(tmp_path / "gemma4-text-only", "gemma4", processor_class=False)
    runs = evaluate_both(tmp_path, serves_any, checkpoints["gemma4"], text_only, two_families, "--limit", "5",
                         "--tasks", "policy_case")
    assert_same_answers(runs, "served", "local", ["policy_case"], 5)
