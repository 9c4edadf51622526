"""Infrastructure faults are never a model's answer, and never a hang (issue 29, cases 5 and "Hangs").

Against :mod:`tests.evaluate.fault_server` (statuses, a server that accepts and never answers, the request
target it saw): every status a gateway, proxy or overloaded server gives is retried and, when retries run
out, a *transient* record - asked again by a re-run, counted by the run as unfinished.
"""

from __future__ import annotations

import hashlib
import json
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.http import StopRun, endpoint_url, proxy_for
from decisionpivot.evaluate.outcome import Verdict, asks_to_wait, status_verdict
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fault_server import FaultServer
from tests.evaluate.test_transport import answers, clean_answer, config

STOPPING = {401, 403, 407, 413}
"""Statuses with their own meaning: 401/403/407 stop the run (a credential), 413 is an input restriction."""
LIMIT = 200
"""Items of the soak: one first attempt per status from 400 to 599."""


def soak_plan(seed: str) -> Any:
    """Per (state, attempt): a status from 400-599 on every first attempt (each status in turn, so every one is
    met) and on a third of the later ones (at random), else the answer. Bodies are what proxies send: the
    status's phrase, nothing, or an HTML page."""
    statuses = [s for s in range(400, 600) if s not in STOPPING]
    served = {"n": 0}

    def plan(digest: str, attempt: int) -> str:
        roll = hashlib.sha256(f"{seed}:{digest}:{attempt}".encode()).digest()
        if attempt > 1 and roll[0] >= 85:
            return "ok"
        status = statuses[served["n"] % len(statuses)] if attempt == 1 else \
            statuses[int.from_bytes(roll[1:3], "big") % len(statuses)]
        served["n"] += attempt == 1
        phrase = HTTPStatus(status).phrase if status in {s.value for s in HTTPStatus} else ""
        body = (phrase, "", f"<html><body><h1>{status} {phrase}</h1>nginx</body></html>")[roll[3] % 3]
        return f"status:{status}:{body}"

    return plan


def test_no_status_from_400_to_599_becomes_a_final_record(tmp_path: Path, items_dir: Path) -> None:
    """The soak test of issue 29: every status 400-599 (but the credential's and 413) at random on a third to a
    half of the attempts; each final record is the clean answer, every other record is transient."""
    items = read_items(items_dir / f"{FAMILY}.jsonl")[:LIMIT]
    with FaultServer(soak_plan("soak")) as server:
        path = config(tmp_path, server.base_url, max_attempts=4, retry_budget=1000, concurrency=4)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=LIMIT, progress=False)
    statuses = {int(f.split(":")[1]) for f in server.faults if f.startswith("status:")}
    assert statuses == set(range(400, 600)) - STOPPING, "the soak met every status"
    written = answers(run.path)
    assert len(written) == LIMIT
    transient = [r for r in written.values() if "p" not in r]
    assert all(r.get("transient") is True for r in transient), [r["error"] for r in transient if not r.get("transient")]
    for item in items:
        if "p" in written[item.id]:
            assert written[item.id]["p"] == pytest.approx(clean_answer(item.state, list(item.option_keys)))
    assert run.transient == len(transient) > 0 and run.errors == len(transient), "the run says what is unfinished"
    # a re-run against a healthy server asks exactly the transient ones again
    with FaultServer() as server:
        path = config(tmp_path, server.base_url)
        [again] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=LIMIT, progress=False)
    assert len(server.faults) == len(transient) and again.transient == 0
    assert all("p" in r for r in answers(again.path).values())


@pytest.mark.parametrize("status", [507, 530, 520, 502, 408, 425, 429, 421, 499])
def test_an_infrastructure_status_on_every_seventh_request_changes_no_answer(tmp_path: Path, items_dir: Path,
                                                                              status: int) -> None:
    counter = {"n": 0}

    def plan(digest: str, attempt: int) -> str:
        counter["n"] += 1
        return f"status:{status}" if counter["n"] % 7 == 0 else "ok"

    with FaultServer(plan) as server:
        path = config(tmp_path, server.base_url, concurrency=1)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=30, progress=False)
    written = answers(run.path)
    assert run.errors == 0 and all("p" in r for r in written.values()) and len(written) == 30


def test_a_generic_404_after_answers_is_retried_not_the_models_failure(tmp_path: Path, items_dir: Path) -> None:
    """A server restarting behind a proxy: 404 Not Found for a while, after the first requests succeeded."""
    counter = {"n": 0}

    def plan(digest: str, attempt: int) -> str:
        counter["n"] += 1
        return "status:404:Not Found" if 5 <= counter["n"] < 10 else "ok"

    with FaultServer(plan) as server:
        path = config(tmp_path, server.base_url, concurrency=1)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=20, progress=False)
    assert run.errors == 0 and all("p" in r for r in answers(run.path).values())


def test_a_wrong_path_still_stops_the_run_naming_the_url(tmp_path: Path, items_dir: Path) -> None:
    """Every request 404 from the start: a configuration error, stopped early, the URL named (#32 item 6)."""
    with FaultServer(lambda digest, attempt: "status:404:Not Found") as server:
        path = config(tmp_path, server.base_url, path="/v2/nothing")
        with pytest.raises(StopRun, match=r"all failed with HTTP 404: Not Found - .* at http://127\.0\.0\.1:\d+/v2/nothing,"):
            evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=30, progress=False)
    assert (tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl").read_text() == ""


def test_a_short_run_of_generic_errors_is_transient(tmp_path: Path, items_dir: Path) -> None:
    """Fewer attempts than the early stop needs, all 404: never recorded as the model's failures."""
    with FaultServer(lambda digest, attempt: "status:404") as server:
        path = config(tmp_path, server.base_url, max_attempts=2)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=3, progress=False)
    assert run.transient == 3 and all(r.get("transient") for r in answers(run.path).values())


def test_a_server_that_accepts_and_never_answers_stops_the_run_early(tmp_path: Path, items_dir: Path) -> None:
    with FaultServer(lambda digest, attempt: "hang") as server:
        path = config(tmp_path, server.base_url, timeout_s=0.3, concurrency=4, max_attempts=6)
        started = time.monotonic()
        with pytest.raises(StopRun, match="accepts connections but answers nothing"):
            evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=50, progress=False)
        elapsed = time.monotonic() - started
        asked = len(server.faults)
    assert elapsed < 20 and asked <= 8 * 4 + 4, (elapsed, asked)


def test_loopback_traffic_never_goes_to_a_proxy(tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    assert proxy_for("http://127.0.0.1:8000/v1") is None and proxy_for("http://localhost:8000/") is None
    assert proxy_for("http://[::1]:8000/") is None and proxy_for("http://127.8.0.1/") is None
    assert proxy_for("http://api.example/v1") == "http://127.0.0.1:9"
    with FaultServer() as server:
        path = config(tmp_path, server.base_url)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=5, progress=False)
    assert all("p" in r for r in answers(run.path).values()) and len(server.faults) == 5


def test_a_key_file_with_a_byte_order_mark_sends_the_key_alone(tmp_path: Path, items_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("S1_KEY", "\ufeffsk-bom-0123456789abcdef\r\n")
    with FaultServer() as server:
        path = config(tmp_path, server.base_url, api_key_env="S1_KEY")
        evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=2, progress=False)
    assert {h["authorization"] for h in server.seen} == {"Bearer sk-bom-0123456789abcdef"}


def test_user_info_in_base_url_and_a_key_is_a_config_error(tmp_path: Path, items_dir: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("S1_KEY", "sk-0123456789abcdef")
    path = config(tmp_path, "http://user:pw@127.0.0.1:9", api_key_env="S1_KEY")
    started = time.monotonic()
    with pytest.raises(DecisionPivotError, match=r"user name or password .* keep one") as caught:
        evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=2, progress=False)
    assert time.monotonic() - started < 5 and "pw" not in str(caught.value)


def test_a_query_string_of_base_url_stays_a_query(tmp_path: Path, items_dir: Path) -> None:
    assert endpoint_url("https://h.example/openai?api-version=7", "/chat/completions") == \
        "https://h.example/openai/chat/completions?api-version=7"
    with FaultServer() as server:
        path = config(tmp_path, f"{server.base_url}/deployments/x/?api-version=2024-10-01")
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=2, progress=False)
    assert set(server.paths) == {"/deployments/x/v1/systemone?api-version=2024-10-01"}
    assert all("p" in r for r in answers(run.path).values())


@pytest.mark.parametrize(("status", "waits"), [
    (500, True), (507, True), (530, True), (599, True), (408, True), (420, True), (425, True), (429, True),
    (499, True), (400, False), (404, False), (422, False), (498, False), (202, False), (302, False), (600, False)])
def test_statuses_that_ask_to_wait_only_pace_the_retries(status: int, waits: bool) -> None:
    """Whether a status asks to come back later decides the pace of its retries, never whether it is an answer."""
    assert asks_to_wait(status, None) is waits and asks_to_wait(status, 3.0)
    assert status_verdict(status, "Not Found") is Verdict.TRANSIENT


@pytest.mark.parametrize(("status", "message"), [
    (404, "Not Found"), (404, ""), (400, "Bad Request"), (404, "<html><h1>404</h1></html>"), (400, "error"),
    (400, "Server is pinned to 'a'; requested 'b'."), (404, "The model `gpt-nope` does not exist"),
    (422, "body.state: Input should be a valid string")])
def test_a_4xx_no_interface_documents_is_transient_whatever_it_says(status: int, message: str) -> None:
    """Generic page or specific message alike: not the model's answer (the early stop catches a wrong config)."""
    assert status_verdict(status, message) is Verdict.TRANSIENT


def test_records_of_a_soak_hold_no_status_as_an_answer(tmp_path: Path, items_dir: Path) -> None:
    """The meta file counts what the records say: no error is counted as answered, transients are marked."""
    with FaultServer(soak_plan("meta")) as server:
        path = config(tmp_path, server.base_url, max_attempts=2, retry_budget=1000)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=40, progress=False)
        del server
    meta = json.loads(run.path.with_name(f"{FAMILY}.meta.json").read_text())
    written = answers(run.path)
    assert meta["answers"] == sum("p" in r for r in written.values())
    assert meta["errors"] == sum("error" in r for r in written.values()) == run.transient


def test_restart_against_a_dead_server_keeps_the_answers_it_says_it_keeps(tmp_path: Path, items_dir: Path) -> None:
    """Issue 29: ``--restart`` moved the answers aside, then the dead server stopped the run: an empty answer file
    under a message saying "answers so far are kept"."""
    runs = tmp_path / "runs"
    with FaultServer() as server:
        [first] = evaluate_system(get_system("s1", config(tmp_path, server.base_url)), items_dir, runs, limit=5,
                                  progress=False)
    before = first.path.read_bytes()
    meta_before = first.path.with_name(f"{FAMILY}.meta.json").read_bytes()
    dead = config(tmp_path, "http://127.0.0.1:9", concurrency=1)
    with pytest.raises(StopRun, match="Answers so far are kept"):
        evaluate_system(get_system("s1", dead), items_dir, runs, limit=5, progress=False, restart=True)
    assert first.path.read_bytes() == before and first.path.with_name(f"{FAMILY}.meta.json").read_bytes() == meta_before
    assert not list(first.path.parent.glob("*.bak*")), "nothing moved aside"
    with FaultServer() as server:  # the server is back: the restart happens, the old answers kept as .bak
        [again] = evaluate_system(get_system("s1", config(tmp_path, server.base_url)), items_dir, runs, limit=5,
                                  progress=False, restart=True)
    assert again.answered == 5 and first.path.with_name(f"{FAMILY}.jsonl.bak").read_bytes() == before


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_disk_names_the_answer_file(tmp_path: Path, items_dir: Path) -> None:
    """ENOSPC from the kernel (/dev/full), not a traceback: the error names the file it could not write."""
    from decisionpivot.evaluate.answers import AnswerFileError, AnswerWriter

    path, meta = tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl", tmp_path / "runs" / "s1" / f"{FAMILY}.meta.json"
    items = items_dir / f"{FAMILY}.jsonl"
    writer, _ = AnswerWriter.open(path, meta, task=FAMILY, items_file=items,
                                  items_sha256=hashlib.sha256(items.read_bytes()).hexdigest(),
                                  system=get_system("s1", config(tmp_path, "http://127.0.0.1:9")), shard=None)
    writer._handle.close()
    writer._handle = open("/dev/full", "ab")  # noqa: SIM115 - closed by the writer
    with pytest.raises(AnswerFileError, match=rf"cannot write {path}: No space left on device"):
        writer.write({"id": f"{FAMILY}:00000", "p": {"yes": 1.0, "no": 0.0}})
    writer._handle = path.open("ab")
    writer.close(items=1, retries=0, finished=False)


def test_a_refused_proxy_credential_stops_the_run_at_once(tmp_path: Path, items_dir: Path) -> None:
    """407 (the proxy wants a credential) is no more the model's answer than 401: the run stops, nothing recorded."""
    with FaultServer(lambda digest, attempt: "status:407") as server:
        path = config(tmp_path, server.base_url, concurrency=1)
        with pytest.raises(StopRun, match=r"HTTP 407: Proxy Authentication Required - check the proxy's credential"):
            evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=10, progress=False)
        assert len(server.faults) == 1
    assert (tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl").read_text() == ""
