"""The two real decision models of the main job, end to end through sparrow-decider's own server (issue 22).

`sparrow-decider` (PyPI, Apache-2.0) bundles two trained models and a System One server no one here wrote;
the built-in systems start it with ``serve:`` on a free loopback port. These tests go through that real
server: the records are what the model computes for our questions, the same bytes on every run and thread
setting, and no server outlives the evaluation - not even a ``kill -9`` of dp.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from decisionpivot.evaluate.kinds import RunCounters
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systemone import SystemOneWire
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.conftest import write_release_sample

sparrow = pytest.importorskip("sparrow_decider", reason="sparrow-decider is in the pipeline and test extras")
MODELS = ("sparrow-nano-general-v1.1", "sparrow-nano-robot-v1.2")
FAMILIES = ["fact_answerable", "policy_case", "record_rule"]


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tenth of the three families' release groups, every level (the whole 1,800 items, asked three times by
    one test and again after a kill, took minutes on two busy cores; the main job asks the real models all)."""
    return write_release_sample(tmp_path_factory.mktemp("sparrow-items"), FAMILIES)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("model", MODELS)
def test_the_served_answers_are_what_the_model_computes(items: Path, model: str) -> None:
    """Our question for each item, asked of the model in process, gives the probabilities the server sent."""
    system = get_system(model)
    runner = system.spec.make_runner(system)
    chosen = [item for family in FAMILIES for item in read_items(items / f"{family}.jsonl")[:8]]
    got: dict[str, dict] = {}
    try:
        runner.run(chosen, lambda record: got.__setitem__(record["id"], record), RunCounters(), lambda entry: None)
        process = runner.server.process
        assert runner.server.info == {"status": "ok", "model": model, "version": sparrow.__version__}
    finally:
        runner.close()
    assert process.poll() is not None, "the server is stopped with the evaluation"
    decider = sparrow.Decider.load(model)
    wire = SystemOneWire(system.settings)
    for item in chosen:
        body = wire.request(item)
        # what reached the model, byte for byte: the body as sent (the scorer tells framings that sent the same
        # bytes as their plain member by it)
        sent = json.dumps(body, ensure_ascii=False).encode("utf-8")
        assert got[item.id]["request_sha256"] == hashlib.sha256(sent).hexdigest(), item.id
        [(qid, question)] = body["questions"].items()
        answer = decider.ask(body["state"], {qid: question})[qid]
        if answer["type"] == "noul":
            expected = {"yes": answer["noul"], "no": 1 - answer["noul"]}
        else:  # rounded to 4 decimals by the model: the reader renormalises the sum (within its tolerance) to 1
            total = sum(answer["probabilities"].values())
            expected = {key: value / total for key, value in answer["probabilities"].items()}
        # 2e-4: one step of the 4-decimal rounding, which the server's pinned BLAS kernel may take the other way
        assert got[item.id]["p"] == pytest.approx(expected, abs=2e-4), item.id


def test_the_same_bytes_on_every_run_and_thread_setting(items: Path, tmp_path: Path) -> None:
    """serve_env pins one BLAS thread and one OpenBLAS kernel in the server; the pipeline sets SOURCE_DATE_EPOCH."""
    outputs = []
    for n, threads in enumerate(("1", "2", "2")):
        env = {**os.environ, "SOURCE_DATE_EPOCH": "0", "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads}
        if n == 2:
            env["OPENBLAS_CORETYPE"] = "Sandybridge"  # what an older CPU would pick: the server's own setting wins
        runs = tmp_path / f"runs-{n}"
        done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", MODELS[1],
                               "--items", str(items), "--runs", str(runs), "--allow-modified-items"], env=env,
                              capture_output=True, text=True,
                              timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append({p.name: p.read_bytes() for p in sorted((runs / MODELS[1]).iterdir())})
    assert outputs[0] == outputs[1] == outputs[2]
    records = _records(runs / MODELS[1] / "policy_case.jsonl")
    assert [r["id"] for r in records] == [i.id for i in read_items(items / "policy_case.jsonl")], "items' order"
    assert all("latency_s" not in r for r in records), "a reproducible run holds no time"
    meta = json.loads(outputs[0]["policy_case.meta.json"])
    assert meta["server"]["model"] == MODELS[1] and meta["readout"] == "systemone/noul"


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc (Linux)")
def test_a_killed_evaluation_leaves_no_server_behind(items: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", MODELS[0],
                             "--items", str(items), "--runs", str(runs), "--allow-modified-items"],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    answers = runs / MODELS[0] / f"{FAMILIES[0]}.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not answers.exists() or answers.read_text().count("\n") < 20):
        time.sleep(0.05)
    servers = _children(proc.pid)
    assert servers, "dp evaluate started the model's server"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() and
                                              "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
                                              for pid in servers):
        time.sleep(0.1)
    alive = [pid for pid in servers if Path(f"/proc/{pid}").exists()
             and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"]
    assert not alive, "the server ends with the dp that started it"
    # and the next run resumes where the killed one stopped
    [run, *_] = evaluate_system(get_system(MODELS[0]), items, runs, tasks=[FAMILIES[0]], progress=False,
                                allow_modified_items=True)
    assert run.already >= 20 and run.answered == len(read_items(items / f"{FAMILIES[0]}.jsonl"))


def test_a_server_that_will_not_start_is_one_error_line(tmp_path: Path, items: Path) -> None:
    config = tmp_path / "s.yaml"
    config.write_text(json.dumps({"systems": {"broken": {
        "kind": "systemone", "model": "no-such-model", "serve_ready_s": 20,
        "serve": ["{python}", "-m", "sparrow_decider.cli", "--model", "no-such-model", "serve", "--port", "{port}"]}}}))
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "broken", "--config",
                           str(config), "--items", str(items), "--limit", "2", "--allow-modified-items"],
                          capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: system 'broken': its server exited with status") and \
        "no model 'no-such-model'" in done.stderr and done.stderr.count("\n") == 1, done.stderr
