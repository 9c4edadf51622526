"""``serve:`` against a hostile machine (issue 29 cases 6 and 9, "Hangs"; issue 32 item 6).

The served process is a real server, :mod:`tests.evaluate.fake_openai_server` run as its own process (an
aiohttp server answering OpenAI chat completions under ``/v1``): dp starts it, checks it owns its port,
gives it only its configured environment, records no secret of its command line, and ends it - and any
shell wrapped around it - with dp, ``kill -9`` included.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.evaluate import served
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.served import ServeError, start_server
from decisionpivot.evaluate.systems import get_system
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fake_openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
LINUX = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads sockets and processes from /proc")
SERVE = ["{python}", "-m", "tests.evaluate.fake_openai_server", "{port}"]


def chat_config(tmp_path: Path, serve: list[str], file: str = "served.yaml", **settings: Any) -> Path:
    path = tmp_path / file
    system = {"kind": "chat", "model": "fake", "serve": serve, "serve_ready_s": 60, "concurrency": 2, **settings}
    path.write_text(json.dumps({"systems": {"served": system}}))
    return path


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """The served module is found as ``tests.evaluate...`` from the repository root (the child's working folder)."""
    monkeypatch.chdir(ROOT)


def test_a_served_chat_server_is_reached_under_v1(tmp_path: Path, items_dir: Path) -> None:
    """#32 item 6: servers mount the OpenAI API under /v1; ``serve:`` with the chat kind posted to /chat/completions."""
    path = chat_config(tmp_path, SERVE)
    [run] = evaluate_system(get_system("served", path), items_dir, tmp_path / "runs", limit=4, progress=False)
    assert run.answered == 4 and all("p" in r for r in records(run.path))


def squatter_ports(monkeypatch: pytest.MonkeyPatch, squatted: int, then: list[int]) -> list[int]:
    chosen: list[int] = []
    ports = iter([squatted, *then])

    def free_port() -> int:
        chosen.append(next(ports))
        return chosen[-1]

    monkeypatch.setattr(served, "free_port", free_port)
    return chosen


def a_free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@LINUX
def test_a_squatted_port_is_never_asked(tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holds the chosen port: dp's server cannot bind it, the squatter answers ``GET /`` - and is
    never sent an item; dp moves to another port and its own server answers."""
    with FakeOpenAI() as squatter:
        squatted = int(squatter.base_url.split(":")[2].split("/")[0])
        chosen = squatter_ports(monkeypatch, squatted, [a_free_port()])
        path = chat_config(tmp_path, SERVE)
        [run] = evaluate_system(get_system("served", path), items_dir, tmp_path / "runs", limit=4, progress=False)
        assert squatter.requests == [], "the squatter was asked"
    assert len(chosen) == 2 and run.answered == 4


@LINUX
def test_a_port_squatted_every_time_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI() as squatter:
        squatted = int(squatter.base_url.split(":")[2].split("/")[0])
        monkeypatch.setattr(served, "free_port", lambda: squatted)
        with pytest.raises(ServeError, match=rf"another process was listening .* \({squatted}, {squatted}, "):
            start_server("served", [sys.executable, "-m", "tests.evaluate.fake_openai_server", "{port}"],
                         ready_timeout_s=30)
        assert squatter.requests == []


def test_the_served_process_gets_only_its_configured_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    monkeypatch.setenv("SHELL_SECRET_TOKEN", "shell-secret-value-123")
    monkeypatch.setenv("WANTED_TOKEN", "wanted-value-456")
    monkeypatch.setenv("LC_TIME", "C")
    report = tmp_path / "report.json"
    server = start_server("served", [*(p.replace("{python}", sys.executable) for p in SERVE), str(report)],
                          {"OMP_NUM_THREADS": "1", "WANTED_TOKEN": "${WANTED_TOKEN}"}, 60)
    try:
        deadline = time.monotonic() + 30
        while not report.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        env = json.loads(report.read_text())["env"]
    finally:
        server.stop()
    assert "SHELL_SECRET_TOKEN" not in env and env["WANTED_TOKEN"] == "wanted-value-456"
    assert env["OMP_NUM_THREADS"] == "1" and env["LC_TIME"] == "C" and env["PATH"] == os.environ["PATH"]
    assert set(env) <= set(served.BASE_ENVIRONMENT) | {"WANTED_TOKEN", "OMP_NUM_THREADS", "LC_TIME", "LC_CTYPE"}


def test_secrets_of_serve_and_serve_env_are_recorded_as_hashes(tmp_path: Path, items_dir: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    secret_arg, secret_env, secret_inline = "arg-secret-0123456789", "env-secret-0123456789", "inline-secret-987"
    path = chat_config(tmp_path, [*SERVE, "--api-key", secret_arg, f"--hf-token={secret_inline}", "--threads", "2"],
                       serve_env={"HF_TOKEN": secret_env, "OMP_NUM_THREADS": "1", "OTHER_KEY": "${OTHER_KEY}"})
    system = get_system("served", path)
    monkeypatch.setenv("OTHER_KEY", "other-secret-value-0123")
    [run] = evaluate_system(system, items_dir, tmp_path / "runs", limit=2, progress=False)
    for written in (tmp_path / "runs").rglob("*"):
        if written.is_file():
            text = written.read_text()
            assert secret_arg not in text and secret_env not in text and secret_inline not in text, written
            assert "other-secret-value-0123" not in text, written
    meta = json.loads(run.path.with_name(f"{FAMILY}.meta.json").read_text())
    env = meta["identity"]["serve_env"]
    assert env["OMP_NUM_THREADS"].startswith("scrypt:") and env["HF_TOKEN"].startswith("scrypt:"), "every value hashed"
    assert env["OTHER_KEY"] == "${OTHER_KEY}", "a reference names no secret"
    serve = meta["identity"]["serve"]
    assert [w if not w.startswith("scrypt:") else "#" for w in serve] == \
        ["{python}", "-m", "#", "{port}", "--api-key", "#", serve[6], "--threads", "#"], "option names and placeholders"
    assert serve[6].startswith("--hf-token=scrypt:")
    # another secret is another fingerprint (a changed secret may change answers), the same one the same
    other = chat_config(tmp_path, [*SERVE, "--api-key", "another-secret-0000", f"--hf-token={secret_inline}",
                                   "--threads", "2"], "other.yaml", serve_env={"HF_TOKEN": secret_env,
                                                                               "OMP_NUM_THREADS": "1",
                                                                               "OTHER_KEY": "${OTHER_KEY}"})
    assert get_system("served", other).fingerprint() != system.fingerprint()
    assert get_system("served", path).fingerprint() == system.fingerprint()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@LINUX
@pytest.mark.parametrize("ending", ["kill -9", "finished"])
def test_a_shell_wrapped_server_ends_with_dp(tmp_path: Path, items_dir: Path, ending: str) -> None:
    """``sh -c '...; true'`` forks the server (no exec): PR_SET_PDEATHSIG alone would not reach it."""
    report = tmp_path / "report.json"
    shell = f"{sys.executable} -m tests.evaluate.fake_openai_server {{port}} {report}; true"
    config = chat_config(tmp_path, ["sh", "-c", shell])
    limit = "400" if ending == "kill -9" else "3"
    dp = subprocess.Popen([sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "served", "--config",
                           str(config), "--items", str(items_dir), "--runs", str(tmp_path / "runs"), "--limit", limit],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p])})
    deadline = time.monotonic() + 60
    while not report.exists() and time.monotonic() < deadline and dp.poll() is None:
        time.sleep(0.05)
    assert report.exists(), dp.communicate()[1].decode()[-2000:]
    server_pid = json.loads(report.read_text())["pid"]
    if ending == "kill -9":
        dp.send_signal(signal.SIGKILL)
    dp.wait(timeout=120)
    deadline = time.monotonic() + 30
    while _alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    survived = _alive(server_pid)
    if survived:  # leave nothing behind when the test fails
        os.kill(server_pid, signal.SIGKILL)
    assert not survived, f"the served process outlived dp ({ending})"


@LINUX
@pytest.mark.parametrize(("mode", "ending"), [("wait", "kill -9"), ("wait", "finished"), ("exit", "finished"),
                                              ("exit", "kill -9")])
def test_a_server_that_leaves_the_group_with_setsid_ends_with_dp(tmp_path: Path, items_dir: Path, mode: str,
                                                                  ending: str) -> None:
    """Issue 37: a ``serve:`` child that detaches with ``setsid`` outlived dp (its process group was all dp ended).
    ``exit``: the wrapper returns at once and the server, an orphan in a session of its own, answers for dp."""
    report = tmp_path / "report.json"
    config = chat_config(tmp_path, ["{python}", "-m", "tests.evaluate.detaching_server", mode, "{port}", str(report)])
    limit = "400" if ending == "kill -9" else "3"
    dp = subprocess.Popen([sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "served", "--config",
                           str(config), "--items", str(items_dir), "--runs", str(tmp_path / "runs"), "--limit", limit],
                          cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p])})
    deadline = time.monotonic() + 60
    while not report.exists() and time.monotonic() < deadline and dp.poll() is None:
        time.sleep(0.05)
    assert report.exists(), dp.communicate()[1].decode()[-2000:]
    server_pid = json.loads(report.read_text())["pid"]
    assert os.getsid(server_pid) == server_pid, "the server runs in a session of its own"
    if ending == "kill -9":
        dp.send_signal(signal.SIGKILL)
    _, err = dp.communicate(timeout=120)
    if ending == "finished":
        assert dp.returncode == 0, err.decode()[-2000:]
        answers = records(tmp_path / "runs" / "served" / f"{FAMILY}.jsonl")
        assert len(answers) == 3 and all("p" in r for r in answers), "the detached server answered for dp"
    deadline = time.monotonic() + 30
    while _alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    survived = _alive(server_pid)
    if survived:  # leave nothing behind when the test fails
        os.kill(server_pid, signal.SIGKILL)
    assert not survived, f"the detached server outlived dp ({mode}, {ending})"


def test_a_reference_to_an_unset_variable_is_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    with pytest.raises(ServeError, match=r"serve_env refers to \$\{NOT_SET_ANYWHERE\}, which is not set"):
        start_server("served", [sys.executable, "-c", "pass"], {"X": "${NOT_SET_ANYWHERE}"})
