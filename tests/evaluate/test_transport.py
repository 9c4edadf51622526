"""What the network and a careless config do never becomes a model's score (issue 21).

Against :mod:`tests.evaluate.fault_server` (faults after the status line, redirects) and
:mod:`tests.evaluate.fake_openai_server` (a provider's config errors): a body that fails to arrive is
retried and, if it never does, transient - never a wrong answer; no credential leaves its origin; a
server that is gone stops the run; a request parameter the provider refuses stops it too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisionpivot.evaluate.http import StopRun
from decisionpivot.evaluate.outcome import Verdict, status_verdict
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import SystemConfigError, get_system
from decisionpivot.items import read_items
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fake_decision_server import expected_probabilities, state_digest
from tests.evaluate.fake_openai_server import FakeOpenAI
from tests.evaluate.fault_server import BODY_FAULTS, FaultServer

KEY = "sk-test-transport-0123456789abcdef"
ORG_SECRET = "org-secret-value-42"


def config(tmp_path: Path, base_url: str, name: str = "s1", **settings_: Any) -> Path:
    path = tmp_path / f"{name}.yaml"
    system = {"kind": "systemone", "base_url": base_url, "model": "fake-decider", "timeout_s": 0.4,
              "backoff_base_s": 0.01, "concurrency": 4, **settings_}
    path.write_text(json.dumps({"systems": {name: system}}))
    return path


def answers(path: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in (json.loads(line) for line in path.read_text().splitlines())}


def clean_answer(item_state: Any, options: list[str]) -> dict[str, float]:
    """What the fault server means to say for an item (fact_answerable is yes/no: asked as noul)."""
    p_true = expected_probabilities(state_digest(item_state), ["true", "false"])["true"]
    return dict(zip(options, (p_true, 1 - p_true), strict=True)) if options[0] == "yes" else \
        dict(zip(options, (1 - p_true, p_true), strict=True))


@pytest.mark.parametrize("fault", BODY_FAULTS)
def test_a_body_that_fails_after_200_is_retried_not_scored(tmp_path: Path, items_dir: Path, fault: str) -> None:
    with FaultServer(lambda digest, attempt: fault if attempt == 1 else "ok", slow_s=1.0) as server:
        [run] = evaluate_system(get_system("s1", config(tmp_path, server.base_url)), items_dir, tmp_path / "runs",
                                limit=6, progress=False)
    got = answers(run.path)
    assert len(got) == 6 and all("p" in r for r in got.values()), got
    assert set(server.attempts.values()) == {2}, "each item: the broken body, then one retry"
    for item in read_items(items_dir / f"{FAMILY}.jsonl")[:6]:
        expected = clean_answer(item.state, list(item.option_keys))
        assert got[item.id]["p"] == pytest.approx(expected, abs=1e-9)


def test_a_body_that_never_arrives_is_transient_and_the_run_says_so(tmp_path: Path, items_dir: Path) -> None:
    with FaultServer(lambda digest, attempt: "reset") as server:
        path = config(tmp_path, server.base_url, max_attempts=2)
        result = subprocess.run(
            [sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "s1", "--config", str(path),
             "--items", str(items_dir), "--runs", str(tmp_path / "runs"), "--limit", "3"],
            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.getcwd()})
    records = answers(tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl")
    assert all(r.get("transient") is True and "while reading the body" in r["error"] for r in records.values())
    assert result.returncode == 1 and "3 item(s) unanswered" in result.stderr and "Traceback" not in result.stderr


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(faults=st.lists(st.sampled_from((*BODY_FAULTS, "ok")), min_size=1, max_size=3), spare=st.booleans())
def test_any_sequence_of_body_faults_ends_in_the_answer_or_a_transient_error(
        tmp_path_factory: pytest.TempPathFactory, items_dir: Path, faults: list[str], spare: bool) -> None:
    """Fuzzing the transport, not only the body's contents: never a final error, never another answer."""
    tmp = tmp_path_factory.mktemp("fuzz-transport")
    attempts = len(faults) + (1 if spare else 0)
    with FaultServer(lambda digest, attempt: faults[attempt - 1] if attempt <= len(faults) else "ok",
                     slow_s=0.6) as server:
        [run] = evaluate_system(get_system("s1", config(tmp, server.base_url, max_attempts=attempts,
                                                        timeout_s=0.3)), items_dir, tmp / "runs", limit=1,
                                progress=False)
    [record] = answers(run.path).values()
    item = read_items(items_dir / f"{FAMILY}.jsonl")[0]
    answered = "ok" in faults or spare
    if answered:
        assert record["p"] == pytest.approx(clean_answer(item.state, list(item.option_keys)), abs=1e-9)
    else:
        assert record["transient"] is True and "p" not in record


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_no_credential_follows_a_redirect_to_another_origin(tmp_path: Path, items_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch, status: int) -> None:
    monkeypatch.setenv("S1_KEY", KEY)
    with FaultServer() as elsewhere:
        target = f"{elsewhere.base_url}/v1/systemone"
        with FaultServer(lambda digest, attempt: f"redirect:{status}:{target}") as server:
            for policy in ("refuse", "same-origin"):
                path = config(tmp_path, server.base_url, name=f"s-{policy}", api_key_env="S1_KEY",
                              auth_header="x-api-key", auth_scheme="none", headers={"X-Org": ORG_SECRET},
                              redirects=policy)
                [run] = evaluate_system(get_system(f"s-{policy}", path), items_dir, tmp_path / "runs", limit=1,
                                        progress=False)
                [record] = answers(run.path).values()
                assert f"HTTP {status} redirect to {target} not followed" in record["error"]
            assert elsewhere.seen == [], "a refused redirect sends nothing anywhere"
            path = config(tmp_path, server.base_url, name="s-follow", api_key_env="S1_KEY", auth_header="x-api-key",
                          auth_scheme="none", headers={"X-Org": ORG_SECRET}, redirects="follow")
            [run] = evaluate_system(get_system("s-follow", path), items_dir, tmp_path / "runs", limit=2,
                                    progress=False)
    assert all("p" in r for r in answers(run.path).values())
    assert len(elsewhere.seen) == 2
    for headers in elsewhere.seen:  # followed, but the key and headers: stayed with their origin
        assert KEY not in json.dumps(headers) and ORG_SECRET not in json.dumps(headers)
    assert all(h.get("x-api-key") == KEY and h.get("x-org") == ORG_SECRET for h in server.seen)


def test_a_same_origin_redirect_is_followed_with_the_key(tmp_path: Path, items_dir: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("S1_KEY", KEY)
    moved: list[str] = []

    def plan(digest: str, attempt: int) -> str:
        moved.append(digest)
        return f"redirect:307:{server.base_url}/v2/systemone" if len(moved) % 2 else "ok"

    with FaultServer(plan) as server:
        path = config(tmp_path, server.base_url, api_key_env="S1_KEY", redirects="same-origin", concurrency=1)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=2, progress=False)
    assert all("p" in r for r in answers(run.path).values())
    assert all(h.get("authorization") == f"Bearer {KEY}" for h in server.seen)


def test_every_tenth_connection_cut_slow_bodies_and_redirects_score_as_a_clean_run(
        tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's soak: 100.0 on a clean network must stay 100.0 when the network misbehaves."""
    monkeypatch.setenv("S1_KEY", KEY)
    counter = [0]

    def hostile(digest: str, attempt: int) -> str:
        counter[0] += 1
        if counter[0] % 10 == 0:
            return BODY_FAULTS[(counter[0] // 10) % len(BODY_FAULTS)]
        if counter[0] % 25 == 0:
            return f"redirect:308:{mirror.base_url}/v1/systemone"
        return "ok"

    runs = {}
    with FaultServer() as mirror, FaultServer(hostile, slow_s=0.8) as server, FaultServer() as clean:
        for name, url, extra in (("hostile", server.base_url, {"redirects": "follow"}), ("clean", clean.base_url, {})):
            path = config(tmp_path, url, name=name, api_key_env="S1_KEY", headers={"X-Org": ORG_SECRET},
                          max_attempts=8, **extra)
            [run] = evaluate_system(get_system(name, path), items_dir, tmp_path / "runs", progress=False)
            runs[name] = {i: r["p"] for i, r in answers(run.path).items()}
    assert len(runs["hostile"]) == 600 and runs["hostile"] == runs["clean"]
    assert any(f in server.faults for f in BODY_FAULTS) and mirror.seen, "the faults and the redirect happened"
    assert not any(KEY in json.dumps(h) or ORG_SECRET in json.dumps(h) for h in mirror.seen)
    from decisionpivot.score.pipeline import score_runs

    scoring = score_runs(tmp_path / "runs", items_dir, None, tmp_path / "reports", tasks=(), resamples=20,
                         figures=False)
    for metric in ("item_accuracy", "pair_accuracy", "coverage_at_5"):
        hostile, clean = (scoring.get(n, "core", "macro", metric) for n in ("hostile", "clean"))
        assert hostile is not None and clean is not None and hostile.value == clean.value


def test_a_server_that_is_gone_stops_the_run_with_one_line(tmp_path: Path, items_dir: Path) -> None:
    dead = socket_port_without_server()
    path = config(tmp_path, f"http://127.0.0.1:{dead}", concurrency=1, backoff_base_s=1.0)
    with pytest.raises(StopRun, match="not running or not reachable") as caught:
        evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=50, progress=False)
    assert "\n" not in str(caught.value) and "8 attempts in a row" in str(caught.value)
    written = answers(tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl")
    assert len(written) <= 2 and all(r.get("transient") for r in written.values())
    with FaultServer() as server:  # the server is back: a re-run answers everything
        path = config(tmp_path, server.base_url)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=50, progress=False)
    assert len(answers(run.path)) == 50 and all("p" in r for r in answers(run.path).values())


def socket_port_without_server() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


MAX_TOKENS_REFUSAL = (b'{"error": {"message": "Unsupported parameter: \'max_tokens\' is not supported with this '
                      b'model. Use \'max_completion_tokens\' instead.", "type": "invalid_request_error", '
                      b'"param": "max_tokens", "code": "unsupported_parameter"}}')


def test_a_refused_request_parameter_stops_the_run_and_max_completion_tokens_fixes_it(tmp_path: Path,
                                                                                      items_dir: Path) -> None:
    def refuse(payload: dict[str, Any]) -> tuple[int, bytes] | None:
        return (400, MAX_TOKENS_REFUSAL) if "max_tokens" in payload else None

    with FakeOpenAI(refuse=refuse) as server:
        path = tmp_path / "chat.yaml"
        system = {"kind": "chat", "base_url": server.base_url, "model": "fake", "concurrency": 2}
        path.write_text(json.dumps({"systems": {"o": system}}))
        with pytest.raises(StopRun, match=r"refused a request parameter with HTTP 400: Unsupported parameter"):
            evaluate_system(get_system("o", path), items_dir, tmp_path / "runs", limit=30, progress=False)
        assert (tmp_path / "runs" / "o" / f"{FAMILY}.jsonl").read_text() == "", "nothing recorded for it"
        refused = len(server.requests)
        assert refused <= 2, "one request per worker, then the run stops"
        path.write_text(json.dumps({"systems": {"o": {**system, "max_tokens_field": "max_completion_tokens"}}}))
        [run] = evaluate_system(get_system("o", path), items_dir, tmp_path / "runs", limit=30, progress=False)
    assert len(answers(run.path)) == 30 and all("p" in r for r in answers(run.path).values())
    fixed = server.requests[refused:]
    assert len(fixed) == 30 and all("max_completion_tokens" in r and "max_tokens" not in r for r in fixed)


RESTRICTIONS = [
    (422, "body.questions.decision: this model reads at most 26 options for a choice question"),  # transformers
    (400, "the prompt has 40123 tokens, more than the context of 32768"),  # SGLang
    (400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."),
    (413, "Request body exceeds 1 MiB"),
    (422, "state size exceeds the limit of 32k tokens"),
    (400, "Question 'decision' has too many options (30 > 26)"),  # vLLM
    (400, "Invalid 'messages[1].content': string too long. Expected a string with maximum length 1048576, "
          "but got a string with length 2000000 instead.".replace("string too long", "input is too long")),
]
CONFIG_ERRORS = [
    (400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
          "instead."),
    (422, "body.temperatur: Extra inputs are not permitted"),  # pydantic extra=forbid
    (400, "Unrecognized request argument supplied: max_tokenz"),
    (400, "Unknown parameter: 'reasoning_effort'."),
    (422, "body.extra_field: extra_forbidden"),
]
NEITHER = [
    (400, "Server is pinned to 'a'; requested 'b'."),
    (400, "The model `gpt-nope` does not exist"),
    (422, "body.state: Input should be a valid string"),
]


@pytest.mark.parametrize(("status", "message"), RESTRICTIONS)
def test_input_restrictions_are_the_item_too_large_for_the_server(status: int, message: str) -> None:
    assert status_verdict(status, message) is Verdict.INPUT_RESTRICTION


@pytest.mark.parametrize(("status", "message"), CONFIG_ERRORS)
def test_a_message_naming_a_request_parameter_is_a_configuration_error(status: int, message: str) -> None:
    assert status_verdict(status, message) is Verdict.STOP


@pytest.mark.parametrize(("status", "message"), NEITHER)
def test_other_refusals_are_transient(status: int, message: str) -> None:
    assert status_verdict(status, message) is Verdict.TRANSIENT


def test_secrets_in_headers_and_base_url_never_reach_a_file(tmp_path: Path, items_dir: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("S1_KEY", KEY + "\r")  # a key file saved on Windows
    with FaultServer(lambda digest, attempt: "ok" if attempt > 1 else "reset") as server:
        path = config(tmp_path, f"{server.base_url}/?api_key={ORG_SECRET}x&api-version=7".replace("/?", "?"),
                      api_key_env="S1_KEY", headers={"X-Org": ORG_SECRET}, path="/v1/systemone")
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=2, progress=False)
    assert all(h["authorization"] == f"Bearer {KEY}" for h in server.seen), "the key is sent without its \\r"
    for written in (tmp_path / "runs").rglob("*"):
        if written.is_file():
            text = written.read_text()
            assert KEY not in text and ORG_SECRET not in text, written
    meta = json.loads(run.path.with_name(f"{FAMILY}.meta.json").read_text())
    assert meta["system"]["headers"]["X-Org"].startswith("scrypt:"), "a header value is written as its hash"
    assert meta["system"]["base_url"].endswith("?api_key=[REDACTED]&api-version=[REDACTED]"), "no query value"


@pytest.mark.parametrize("value", ["a\nb", "x\r\nInjected: 1"])
def test_a_header_value_with_a_line_break_is_a_config_error(tmp_path: Path, value: str) -> None:
    path = config(tmp_path, "http://127.0.0.1:9", headers={"X-Org": value})
    with pytest.raises(SystemConfigError, match=r"headers: header X-Org: a value without line breaks"):
        get_system("s1", path)
