"""Soak: 2,400 items against the fault-injecting server, two kill -9s, one record per id, equal to a clean run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.generate.run import write_family_files
from tests.evaluate.conftest import TIMING
from tests.evaluate.fake_openai_server import FakeOpenAI

FAMILIES = ["fact_answerable", "policy_case", "log_claim", "clause_change"]
TRANSIENT = ("429", "500", "stall", "malformed_once")
FINAL = ("not_completion", "missing_key", "truncated", "unnormalised")
"""``not_completion`` (a 200 that is no chat completion, every time) ends transient: no answer of the model; the
other three are the model's own failed answers, final error records."""


def plan(digest: str) -> str:
    """About 15% faults that pass, 2% that persist (transient records) and 6% that end in a final error record, by
    the request's digest."""
    roll = int(digest[:4], 16) % 100
    if roll < 15:
        return TRANSIENT[roll % 4]
    if roll < 23:
        return FINAL[roll % 4]
    return "ok"


@pytest.mark.slow
def test_soak_with_two_kill_9s(tmp_path: Path) -> None:
    items = tmp_path / "items"
    write_family_files(items, RELEASE_SEED, FAMILIES)
    with FakeOpenAI(plan=plan, latency_s=0.004, stall_s=1.5, retry_after="0") as server:
        config = tmp_path / "systems.yaml"
        config.write_text(json.dumps({"systems": {"soak": {
            "kind": "chat", "base_url": server.base_url, "model": "fake", "concurrency": 24, "timeout_s": 0.5,
            "max_attempts": 12, "backoff_base_s": 0.01, "retry_budget": 100000}}}))
        args = [sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "soak", "--config", str(config),
                "--items", str(items)]
        soaked = tmp_path / "soaked"
        written = soaked / "soak"
        for stop_after in (500, 1500):  # kill -9 mid-way, twice
            proc = subprocess.Popen([*args, "--runs", str(soaked)], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and proc.poll() is None:
                lines = sum(p.read_bytes().count(b"\n") for p in written.glob("*.jsonl")
                            if not p.name.endswith(".raw.jsonl")) if written.is_dir() else 0
                if lines >= stop_after:
                    break
                time.sleep(0.01)
            assert proc.poll() is None, "the run should still be going when it is killed"
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        finished = subprocess.run([*args, "--runs", str(soaked)], capture_output=True, text=True, timeout=600)
        assert finished.returncode == 1 and "not a chat completion" in finished.stderr, finished.stderr[-2000:]
        clean = subprocess.run([*args, "--runs", str(tmp_path / "clean")], capture_output=True, text=True,
                               timeout=600)
        assert clean.returncode == 1 and "not a chat completion" in clean.stderr, clean.stderr[-2000:]

    def by_id(folder: Path, family: str) -> dict[str, dict]:
        records = [json.loads(line) for line in (folder / "soak" / f"{family}.jsonl").read_text().splitlines()]
        assert len(records) == len({r["id"] for r in records}) == 600, "exactly one record per id"
        assert all("not a chat completion" in r["error"] for r in records if r.get("transient")), "only the persistent"
        return {r["id"]: {k: v for k, v in r.items() if k not in TIMING} for r in records}

    for family in FAMILIES:
        assert by_id(soaked, family) == by_id(tmp_path / "clean", family)
