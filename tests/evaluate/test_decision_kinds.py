"""The decision-API kinds against a local server speaking their three wire shapes, faults included."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.evaluate.http import StopRun
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import write_family_files
from decisionpivot.items import Item, read_items
from tests.evaluate.fake_decision_server import FAULTS, FakeDecisions, expected_probabilities, state_digest

FAMILIES = ("fact_answerable", "policy_case")  # yes/no and a three-option choice
N = 60


@pytest.fixture(scope="module")
def mixed_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mixed-items")
    write_family_files(folder, RELEASE_SEED, list(FAMILIES))
    return folder


def plan(digest: str) -> str:
    return FAULTS[int(digest[:8], 16) % len(FAULTS)]


def config(tmp_path: Path, kind: str, url: str, **extra: object) -> Path:
    settings = {"kind": kind, "base_url": url, "model": "fake-decider", "concurrency": 4, "timeout_s": 5.0,
                "max_attempts": 3, "backoff_base_s": 0.01, **extra}
    path = tmp_path / "systems.yaml"
    path.write_text(json.dumps({"systems": {"decider": settings}}))
    return path


def records(path: Path) -> dict[str, dict]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == len({r["id"] for r in lines}), "one record per id"
    return {r["id"]: r for r in lines}


def server_options(item: Item, shape_yes_no: str) -> list[str]:
    if shape_yes_no == "noul" and sorted(item.option_keys) == ["no", "yes"]:
        return ["true", "false"]
    return list(item.option_keys)


def expected_p(item: Item, yes_no: str) -> dict[str, float]:
    probs = expected_probabilities(state_digest(item.state), server_options(item, yes_no))
    if "true" in probs:
        return {"yes": probs["true"], "no": 1 - probs["true"]}
    return probs


def run(tmp_path: Path, items: Path, kind: str, server: FakeDecisions, **extra: object) -> dict[str, dict]:
    system = get_system("decider", config(tmp_path, kind, server.base_url, **extra))
    results = evaluate_system(system, items, tmp_path / "runs", limit=N, progress=False)
    merged: dict[str, dict] = {}
    for result in results:
        merged.update(records(result.path))
    return merged


@pytest.mark.parametrize("kind", ["systemone", "openai_decisions", "sglang_decisions"])
def test_every_difference_and_fault_ends_in_the_right_record(tmp_path: Path, mixed_items: Path, kind: str) -> None:
    with FakeDecisions(kind, plan=plan) as server:
        got = run(tmp_path, mixed_items, kind, server)
    items = {i.id: i for f in FAMILIES for i in read_items(mixed_items / f"{f}.jsonl")[:N]}
    assert set(got) == set(items)
    seen = Counter()
    for item_id, record in got.items():
        item = items[item_id]
        fault = plan(state_digest(item.state))
        choice = item.family == "policy_case"
        seen[fault] += 1
        if fault in ("ok", "529_once", "diagnostics"):
            assert record["p"] == pytest.approx(expected_p(item, "noul"), abs=1e-9), (fault, record)
        elif fault in ("rounded", "off_by_001"):
            assert math.fsum(record["p"].values()) == pytest.approx(1.0)
            assert record["p"] == pytest.approx(expected_p(item, "noul"), abs=0.011), (fault, record)
        elif fault == "refusal" and kind == "openai_decisions":  # the one interface that documents refusals
            assert record["error"].startswith("refusal: I can't help") and "transient" not in record, record
        elif fault == "refusal" and kind == "systemone":  # System One defines none: not an answer
            assert "does not define" in record["error"] and record["transient"] is True, record
        elif fault == "missing_answer":
            assert "no answer" in record["error"], record
        elif fault in ("413", "422_list", "422_string"):
            assert record["error"].startswith("input restriction: HTTP 4"), record
        elif fault == "unknown_option" and (choice or kind == "sglang_decisions"):
            assert "does not offer" in record["error"], record
        elif fault == "bad_sum" and (choice or kind == "sglang_decisions"):
            assert "sum to" in record["error"] or "not a probability in" in record["error"], record
        if "p" in record:
            assert set(record["p"]) == set(item.option_keys)
            assert record["input_tokens"] in (120, 150) and isinstance(record["latency_s"], float)
        if fault == "diagnostics" and kind == "systemone":
            assert record["label_mass"] == 0.93
        if kind == "sglang_decisions" and "p" in record:
            assert record["label_mass"] == 0.87
    assert set(seen) == set(FAULTS), "the sample should meet every fault"
    assert "detail" not in json.dumps(got)  # server messages are read out of their wrapping


def test_systemone_requests_carry_the_item_as_a_typed_question(tmp_path: Path, mixed_items: Path) -> None:
    with FakeDecisions("systemone") as server:
        run(tmp_path, mixed_items, "systemone", server)
    items = {state_digest(i.state): i for f in FAMILIES for i in read_items(mixed_items / f"{f}.jsonl")[:N]}
    assert set(server.paths) == {"/v1/systemone"}
    for body in server.requests:
        item = items[state_digest(body["state"])]
        assert body["state"] == item.state  # structured states stay objects
        [(qid, question)] = body["questions"].items()
        assert qid == "decision" and question["instructions"] == item.question
        if item.family == "fact_answerable":
            meanings = {o.key: o.meaning for o in item.options}
            assert question == {"type": "noul", "instructions": item.question,
                                "criteria": {"true": meanings["yes"], "false": meanings["no"]}}
        else:
            assert question["type"] == "choice"
            assert list(question["criteria"].items()) == [(o.key, o.meaning) for o in item.options]  # item order


def test_yes_no_as_choice_is_a_recorded_setting(tmp_path: Path, mixed_items: Path) -> None:
    with FakeDecisions("systemone") as server:
        got = run(tmp_path, mixed_items, "systemone", server, yes_no="choice")
    assert {q["type"] for b in server.requests for q in b["questions"].values()} == {"choice"}
    yes_no = [r for i, r in got.items() if i.startswith("fact_answerable")]
    items = {i.id: i for i in read_items(mixed_items / "fact_answerable.jsonl")[:N]}
    for record in yes_no:
        assert record["p"] == pytest.approx(expected_p(items[record["id"]], "choice"), abs=1e-9)
    meta = json.loads((tmp_path / "runs" / "decider" / "fact_answerable.meta.json").read_text())
    assert meta["readout"] == "systemone/choice" and meta["system"]["yes_no"] == "choice"


def test_openai_shape_reads_answers_by_name_and_states_as_text(tmp_path: Path, mixed_items: Path) -> None:
    with FakeDecisions("openai_decisions") as server:
        got = run(tmp_path, mixed_items, "openai_decisions", server, yes_no="noul")
    assert all(isinstance(b["input"], str) and isinstance(b["questions"], list) for b in server.requests)
    predicate = next(q for b in server.requests for q in b["questions"] if q["type"] == "predicate")
    assert "True means:" in predicate["instructions"] and predicate["name"] == "decision"
    assert all("p" in r for r in got.values())  # the decoy answer listed first is never read


def test_max_options_is_enforced_before_sending(tmp_path: Path, mixed_items: Path) -> None:
    with FakeDecisions("systemone") as server:
        got = run(tmp_path, mixed_items, "systemone", server, max_options=2)
    choice = [r for i, r in got.items() if i.startswith("policy_case")]
    assert choice and all(r["error"] == "input restriction: 3 options, the system takes at most 2" for r in choice)
    assert all(q["type"] == "noul" for b in server.requests for q in b["questions"].values())


def test_a_config_error_stops_the_run_and_records_nothing(tmp_path: Path, mixed_items: Path) -> None:
    with FakeDecisions("systemone", model="the-real-name") as server:
        system = get_system("decider", config(tmp_path, "systemone", server.base_url, concurrency=1))
        with pytest.raises(StopRun, match=r"first 8 requests all failed with HTTP 400: Server is pinned"):
            evaluate_system(system, mixed_items, tmp_path / "runs", tasks=["fact_answerable"], progress=False)
        assert len(server.requests) == 8
        answers = tmp_path / "runs" / "decider" / "fact_answerable.jsonl"
        assert answers.read_text() == ""
        fixed = get_system("decider", config(tmp_path, "systemone", server.base_url, model="the-real-name"))
        [done] = evaluate_system(fixed, mixed_items, tmp_path / "runs", tasks=["fact_answerable"], limit=10,
                                 progress=False)  # nothing recorded under the old config: nothing to mix
    assert done.answered == 10


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_stops_at_once_with_the_servers_message(tmp_path: Path, mixed_items: Path, status: int,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DP_DECIDER_KEY", "sk-live-1234567890")
    body = {"detail": {"error_type": "auth", "message": "bad key sk-live-1234567890"}}
    with FakeDecisions("systemone", refuse=(status, body)) as server:
        system = get_system("decider", config(tmp_path, "systemone", server.base_url, api_key_env="DP_DECIDER_KEY"))
        with pytest.raises(StopRun, match=f"HTTP {status}: bad key \\*\\*\\*") as err:
            evaluate_system(system, mixed_items, tmp_path / "runs", limit=5, progress=False)
        assert len(server.requests) <= 4  # stopped at once: only what was already in flight
    assert "sk-live" not in str(err.value)
    raw = "".join(p.read_text() for p in (tmp_path / "runs").rglob("*.raw.jsonl"))
    assert "sk-live" not in raw


def test_auth_header_and_scheme_are_per_provider(tmp_path: Path, mixed_items: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABRICKS_TOKEN", "dapi-secret")
    with FakeDecisions("systemone") as server:
        run(tmp_path, mixed_items, "systemone", server, api_key_env="DATABRICKS_TOKEN", auth_scheme="Basic",
            headers={"TypeSafe-Danger-Zone-Images": "true"}, path="/v1/decisions")
    import base64

    sent = server.headers[0]
    assert sent["Authorization"] == "Basic " + base64.b64encode(b"token:dapi-secret").decode()
    assert sent["TypeSafe-Danger-Zone-Images"] == "true"
    assert set(server.paths) == {"/v1/decisions"}  # the System One body on another path (Perplexity)
    stored = "".join(p.read_text() for p in (tmp_path / "runs").rglob("*.json*"))
    assert "dapi-secret" not in stored and "DATABRICKS_TOKEN" not in stored, "only clear settings are written"


def test_a_read_window_is_accepted_recorded_and_changes_nothing_sent(tmp_path: Path, mixed_items: Path) -> None:
    """``read_window_tokens`` (the sparrow models read 512 word pieces) is a declaration, not a limit: the systems file
    takes it, every request is sent as without it, the meta records it for `dp score --invariance` to read, and the
    run's fingerprint is the same (a run resumed after declaring it keeps its answers)."""
    with FakeDecisions("systemone") as server:
        got = run(tmp_path, mixed_items, "systemone", server, read_window_tokens=512)
    assert len(got) == N * len(FAMILIES) and all("p" in r for r in got.values())
    meta = json.loads((tmp_path / "runs" / "decider" / "fact_answerable.meta.json").read_text())
    assert meta["system"]["read_window_tokens"] == 512
    declared = get_system("decider", config(tmp_path, "systemone", "http://127.0.0.1:1", read_window_tokens=512))
    bare = get_system("decider", config(tmp_path, "systemone", "http://127.0.0.1:1"))
    assert declared.fingerprint() == bare.fingerprint()
    for name in ("sparrow-nano-general-v1.1", "sparrow-nano-robot-v1.2"):
        assert get_system(name).public()["read_window_tokens"] == 512, name


@pytest.mark.parametrize("value", [0, -5, "512", 1.5, True])
def test_a_bad_read_window_is_an_error_naming_the_key(tmp_path: Path, value: object) -> None:
    with pytest.raises(Exception, match="read_window_tokens"):
        get_system("decider", config(tmp_path, "systemone", "http://127.0.0.1:1", read_window_tokens=value))
