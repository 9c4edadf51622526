"""The chat runner against a real local HTTP server that injects every fault a real API throws."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.prompt import user_message
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fake_openai_server import FAULTS, FakeOpenAI, digest_of

N_ITEMS = 45


def plan(digest: str) -> str:
    return FAULTS[int(digest[:8], 16) % len(FAULTS)]


def chat_config(tmp_path: Path, url: str, **extra: object) -> Path:
    settings = {"kind": "chat", "base_url": url, "model": "fake", "concurrency": 8, "timeout_s": 3.0,
                "max_attempts": 4, "backoff_base_s": 0.05, **extra}
    path = tmp_path / "systems.yaml"
    path.write_text(json.dumps({"systems": {"fake": settings}}))
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_fault_ends_in_exactly_one_record(tmp_path: Path, items_dir: Path) -> None:
    items = read_items(items_dir / f"{FAMILY}.jsonl")[:N_ITEMS]
    expected = {item.id: plan(digest_of(user_message(item))) for item in items}
    assert set(expected.values()) == set(FAULTS), "the sample should meet every fault"
    with FakeOpenAI(plan=plan, stall_s=4.0, retry_after="1") as server:
        system = get_system("fake", chat_config(tmp_path, server.base_url))
        [run] = evaluate_system(system, items_dir, tmp_path / "runs", limit=N_ITEMS, progress=False)
    got = records(run.path)
    assert Counter(r["id"] for r in got) == Counter(list(expected))  # each id exactly once
    by_id = {r["id"]: r for r in got}
    for item_id, fault in expected.items():
        record = by_id[item_id]
        if fault in ("ok", "429", "500", "stall"):
            assert "p" in record, (fault, record)
            assert record["closed"] is True and isinstance(record["tokens"], int)
        else:
            assert "error" in record, (fault, record)
    reasons = {expected[i]: r["error"] for i, r in by_id.items() if "error" in r}
    assert "malformed response body" in reasons["malformed"]
    assert "misses option key" in reasons["missing_key"]
    assert "cut off at max_tokens" in reasons["truncated"]
    assert "(gave up after 4 attempts)" in reasons["always_500"]
    assert all(by_id[i]["closed"] is False for i, f in expected.items() if f == "truncated")
    # probabilities three times too large are no distribution: the model's own failed answer, final
    assert "not a probability in [0, 1]" in reasons["unnormalised"]
    assert not any(by_id[i].get("transient") for i, f in expected.items() if f == "unnormalised")
    # raw text of unreadable replies is kept in a side log
    raw = records(run.path.with_name(f"{FAMILY}.raw.jsonl"))
    assert {expected[r["id"]] for r in raw} >= {"malformed", "missing_key", "truncated"}
    # Retry-After was honoured: the second attempt of a 429 item came >= 1 s after the first
    for item in items:
        digest = digest_of(user_message(item))
        if expected[item.id] == "429":
            first, second = server.attempts[digest][:2]
            assert second - first >= 0.95
    meta = json.loads(run.path.with_name(f"{FAMILY}.meta.json").read_text())
    transient = sum(1 for f in expected.values() if f in ("429", "500", "stall"))
    always = sum(1 for f in expected.values() if f == "always_500")
    # every retry is one more request at the server; a loaded machine may add a timeout or two
    assert meta["retries"] == sum(len(v) for v in server.attempts.values()) - N_ITEMS
    assert meta["retries"] >= transient + 3 * always
    assert meta["answers"] + meta["errors"] == N_ITEMS and meta["finished"]


def test_retry_budget_limits_retries(tmp_path: Path, items_dir: Path) -> None:
    with FakeOpenAI(plan=lambda d: "always_500") as server:
        system = get_system("fake", chat_config(tmp_path, server.base_url, retry_budget=3, max_attempts=6))
        [run] = evaluate_system(system, items_dir, tmp_path / "runs", limit=10, progress=False)
    got = records(run.path)
    assert len(got) == 10 and all("error" in r for r in got)
    assert sum("retry budget" in r["error"] for r in got) >= 7
    assert run.retries == 3


def test_request_carries_the_declared_settings(tmp_path: Path, items_dir: Path) -> None:
    with FakeOpenAI() as server:
        config = chat_config(tmp_path, server.base_url, temperature=0.7, max_tokens=321, reasoning_effort="low")
        evaluate_system(get_system("fake", config), items_dir, tmp_path / "runs", limit=2, progress=False)
    assert server.requests[0] == {"model": "fake", "temperature": 0.7, "max_tokens": 321, "reasoning_effort": "low"}


def test_inputs_longer_than_the_context_are_recorded_as_errors(tmp_path: Path, items_dir: Path) -> None:
    with FakeOpenAI() as server:
        config = chat_config(tmp_path, server.base_url, context_tokens=100)
        [run] = evaluate_system(get_system("fake", config), items_dir, tmp_path / "runs", limit=3, progress=False)
    assert all("input longer than the declared context" in r["error"] for r in records(run.path))
    assert server.requests == []


def test_missing_api_key_variable_is_a_clear_error(tmp_path: Path, items_dir: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DP_TEST_KEY", raising=False)
    config = chat_config(tmp_path, "http://127.0.0.1:9/v1", api_key_env="DP_TEST_KEY")
    with pytest.raises(DecisionPivotError, match="DP_TEST_KEY is not set"):
        evaluate_system(get_system("fake", config), items_dir, tmp_path / "runs", limit=1, progress=False)


def test_proxy_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from decisionpivot.evaluate.http import proxy_for

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    for name in ("https_proxy", "no_proxy", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert proxy_for("https://api.example/v1/chat/completions") == "http://proxy.example:3128"
    assert proxy_for("https://internal.example/v1/chat/completions") is None
    assert proxy_for("http://api.example/v1/chat/completions") is None


def test_requests_go_through_the_environment_proxy(tmp_path: Path, items_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The "proxy" is the fake server itself: it receives the absolute-form request line for an
    # endpoint that does not resolve, so every answer proves the request went through the proxy.
    for name in ("https_proxy", "no_proxy", "http_proxy", "HTTPS_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with FakeOpenAI() as server:
        monkeypatch.setenv("HTTP_PROXY", server.base_url.removesuffix("/v1"))
        config = chat_config(tmp_path, "http://endpoint.invalid/v1", max_attempts=1)
        [run] = evaluate_system(get_system("fake", config), items_dir, tmp_path / "runs", limit=3, progress=False)
    got = records(run.path)
    assert len(got) == 3 and all("p" in r for r in got), got
    assert len(server.requests) == 3
