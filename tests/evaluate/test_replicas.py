"""``replicas:``: dp starts several copies of a system's own server and spreads the requests over them (the main
job's sparrow models: their server answers one request at a time in one process). The copies answer the same, so
the answer files are the same bytes as with one copy and the fingerprint does not change; every copy is asked, and
every copy is stopped with the run."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.evaluate import http
from decisionpivot.evaluate.kinds import SettingError
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import SystemConfigError, get_system

ROOT = Path(__file__).resolve().parents[2]
SERVE = ["{python}", "-m", "tests.evaluate.fake_openai_server", "{port}"]


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """The served module is found as ``tests.evaluate...`` from the repository root (the child's working folder)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # no clock in the records: copies compared byte for byte


def config(tmp_path: Path, log: Path, **settings: Any) -> Path:
    path = tmp_path / "served.yaml"
    system = {"kind": "chat", "model": "fake", "serve": SERVE, "serve_ready_s": 60, "concurrency": 2,
              "serve_env": {"DP_FAKE_REQUEST_LOG": str(log)}, **settings}
    path.write_text(json.dumps({"systems": {"served": system}}))
    return path


def _closed(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_two_copies_answer_what_one_answers_and_each_is_asked(tmp_path: Path, items_dir: Path) -> None:
    log = tmp_path / "requests.log"  # the same file for both (serve_env is part of the fingerprint)
    [one] = evaluate_system(get_system("served", config(tmp_path, log, replicas=1)), items_dir,
                            tmp_path / "runs-one", limit=12, progress=False)
    assert len(set(log.read_text().split())) == 1
    log.unlink()
    [two] = evaluate_system(get_system("served", config(tmp_path, log, replicas=2)), items_dir,
                            tmp_path / "runs-two", limit=12, progress=False)
    assert one.answered == two.answered == 12
    assert two.path.read_bytes() == one.path.read_bytes()
    ports = [int(line) for line in log.read_text().split()]
    assert len(ports) == 12 and len(set(ports)) == 2, ports
    assert sorted(ports.count(p) for p in set(ports)) == [6, 6]  # in turn
    assert all(_closed(port) for port in set(ports))  # every copy ended with the run
    metas = [json.loads(run.path.with_name(run.path.name.replace(".jsonl", ".meta.json")).read_text())
             for run in (one, two)]
    assert metas[0]["fingerprint"] == metas[1]["fingerprint"]
    assert (metas[0]["system"]["replicas"], metas[1]["system"]["replicas"]) == (1, 2)


def test_auto_is_one_copy_per_usable_cpu_at_most_eight(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert http.replicas_wanted("auto") == 2 and http.replicas_wanted(3) == 3
    monkeypatch.setattr(http.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert http.replicas_wanted("auto") == http.MAX_REPLICAS


@pytest.mark.parametrize("value", [0, -1, 65, "many", 1.5, True])
def test_a_bad_count_is_refused(value: Any) -> None:
    with pytest.raises(SettingError):
        http.replica_count(value)


def test_the_sparrow_models_run_one_copy_per_cpu() -> None:
    for name in ("sparrow-nano-general-v1.1", "sparrow-nano-robot-v1.2"):
        system = get_system(name)
        assert system.settings["replicas"] == "auto"
        assert "replicas" not in system.identity()


def test_a_bad_count_in_a_systems_file_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(SystemConfigError, match="replicas"):
        get_system("served", config(tmp_path, tmp_path / "log", replicas="many"))


def test_copies_start_together_and_one_that_fails_stops_the_others(tmp_path: Path) -> None:
    """start_copies: both copies up on their own ports; when one copy exits before answering (here the second one
    to take the lock file), the copy that came up is stopped too and the failure is the error."""
    import sys

    from decisionpivot.evaluate.served import ServeError, start_copies

    servers = start_copies(2, "served", [sys.executable, "-m", "tests.evaluate.fake_openai_server", "{port}"],
                           {"PYTHONPATH": str(ROOT)}, 60)
    try:
        assert len({server.base_url for server in servers}) == 2
    finally:
        for server in servers:
            server.stop()
    assert all(_closed(int(server.base_url.rsplit(":", 1)[1])) for server in servers)
    lock = tmp_path / "first"
    second_fails = ("import os, runpy, sys\n"
                    "try:\n    os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL))\n"
                    "except FileExistsError:\n    sys.exit(3)\n"
                    "sys.argv = ['server', sys.argv[2]]\n"
                    "runpy.run_module('tests.evaluate.fake_openai_server', run_name='__main__')\n")
    with pytest.raises(ServeError, match="exited with status 3"):
        start_copies(2, "served", [sys.executable, "-c", second_fails, str(lock), "{port}"],
                     {"PYTHONPATH": str(ROOT)}, 60)
    assert lock.exists()
    assert not [pid for pid in os.listdir("/proc") if pid.isdigit() and _cmdline(pid).count(str(lock))], \
        "the copy that came up was stopped"


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
