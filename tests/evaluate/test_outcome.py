"""An answer only on success (issue 37): the one table of what a reply is, and its neighbours looked for.

Against :mod:`tests.evaluate.fault_server`: a status other than 200 with the very body a 200 would carry (202, 201,
203, 206, 600, 999, 420, 498 - each was a final error record scored as a wrong answer, exit 0), and Hypothesis
generating statuses and bodies: a record holds an answer only for a 200 whose body is the interface's answer;
everything else is transient, or one of the final records the table names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from decisionpivot.cli import main
from decisionpivot.evaluate.http import StopRun
from decisionpivot.evaluate.outcome import (
    BODY_RULES,
    STATUS_RULES,
    SUCCESS_STATUSES,
    Verdict,
    names_parameter,
    says_item_too_large,
    status_verdict,
)
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fault_server import FaultServer
from tests.evaluate.test_transport import answers, config

ROOT = Path(__file__).resolve().parents[2]
LISTED = (202, 201, 203, 206, 600, 999, 420, 498)
"""The statuses issue 37 found final (an answer-shaped body under each: 12.7% of items became wrong answers)."""


@pytest.mark.parametrize("status", LISTED)
def test_an_answer_shaped_body_under_another_status_is_never_an_answer(tmp_path: Path, items_dir: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       status: int) -> None:
    with FaultServer(lambda digest, attempt: f"answer:{status}") as server:
        path = config(tmp_path, server.base_url, max_attempts=2)
        with pytest.raises(SystemExit) as ended:
            main(["evaluate", "--system", "s1", "--config", str(path), "--items", str(items_dir), "--runs",
                  str(tmp_path / "runs"), "--limit", "3"])
    written = answers(tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl")
    assert len(written) == 3 and all(r.get("transient") is True and "p" not in r for r in written.values()), written
    err = capsys.readouterr().err
    assert ended.value.code == 1, "an unanswered run exits non-zero"
    assert "3 item(s) unanswered" in err and f"most often (3 of 3): HTTP {status} (e.g. HTTP {status}: " in err, err


def test_a_server_that_answers_202_to_every_first_request_stops_as_a_configuration_error(tmp_path: Path,
                                                                                         items_dir: Path) -> None:
    """The early stop counts any status that does not ask to wait: a 202 on every attempt is not a model."""
    with FaultServer(lambda digest, attempt: "answer:202") as server:
        path = config(tmp_path, server.base_url, concurrency=2)
        with pytest.raises(StopRun, match=r"the first 8 requests all failed with HTTP 202: .* - not the items"):
            evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=30, progress=False)
    assert (tmp_path / "runs" / "s1" / f"{FAMILY}.jsonl").read_text() == "", "nothing recorded for them"


def test_a_202_then_the_answer_is_retried_into_the_answer(tmp_path: Path, items_dir: Path) -> None:
    """Half the items get a 202 first, the others answer: once the system is heard, the parked items are asked
    again with their retries, so every record is the answer."""
    with FaultServer(lambda digest, attempt: "answer:202" if attempt == 1 and int(digest, 16) % 2 else "ok") as server:
        path = config(tmp_path, server.base_url, concurrency=2)
        [run] = evaluate_system(get_system("s1", path), items_dir, tmp_path / "runs", limit=12, progress=False)
    assert run.answered == 12 and run.transient == 0 and set(server.attempts.values()) == {1, 2}


def test_a_short_run_too_short_to_tell_asks_each_item_once(tmp_path: Path, items_dir: Path) -> None:
    """Fewer requests than the early stop needs, none answered: each item asked once and recorded transient (a
    re-run asks them); none scored."""
    with FaultServer(lambda digest, attempt: "answer:202") as server:
        [run] = evaluate_system(get_system("s1", config(tmp_path, server.base_url)), items_dir, tmp_path / "runs",
                                limit=3, progress=False)
    assert run.transient == 3 and set(server.attempts.values()) == {1}


# ------------------------------------------------------------------------------------------- the table itself

def test_every_status_has_one_verdict_and_only_200_reads_a_body() -> None:
    for status in range(100, 1000):
        for message in ("", "Not Found", "too many options (30 > 26)", "Unsupported parameter: 'max_tokens'"):
            verdict = status_verdict(status, message)
            assert (verdict is Verdict.READ_BODY) == (status in SUCCESS_STATUSES)
            if verdict is Verdict.INPUT_RESTRICTION:
                assert status == 413 or (status in (400, 422) and says_item_too_large(message))
            if verdict is Verdict.STOP:
                assert status in (401, 403, 407) or (status in (400, 422) and names_parameter(message))


def test_the_docs_state_the_table_row_by_row() -> None:
    """docs/evaluate-faults.md shows each row of STATUS_RULES and BODY_RULES with its verdict."""
    text = (ROOT / "docs" / "evaluate-faults.md").read_text()
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in text.splitlines()
            if line.startswith("| ") and line.count("|") >= 4}
    for rule in (*STATUS_RULES, *BODY_RULES):
        assert rows.get(rule.reply) == rule.verdict.value, (rule.reply, rows.get(rule.reply))


# ------------------------------------------------------------------------------------------- neighbours

STATUSES = st.integers(100, 999)
BODIES = st.sampled_from(["answer", "empty", "html", "cut", "object", "error", "too-large", "parameter"])
"""What a body holds: the interface's answer, nothing, an HTML page, the answer cut in half, some other JSON
object, an error object, a message saying the item is too large, one naming a request parameter."""


def body_fault(status: int, body: str) -> str:
    """The fault server's plan for a status and a body."""
    if body == "answer":
        return f"answer:{status}" if status != 200 else "ok"
    text = {"empty": "", "html": f"<html><body><h1>{status}</h1>nginx</body></html>",
            "cut": '{"model": "fake-decider", "answers": {"decision": {"type": "noul", "no',
            "object": '{"data": [], "object": "list"}', "error": '{"error": {"message": "internal"}}',
            "too-large": '{"detail": "input is too long: more than 65536 tokens"}',
            "parameter": '{"detail": "Unsupported parameter: \'questions\'"}'}[body]
    return f"status:{status}:{text}"


@pytest.fixture(scope="module")
def neighbours_server() -> Any:
    current = {"fault": "ok"}
    with FaultServer(lambda digest, attempt: current["fault"]) as server:
        yield server, current


@settings(max_examples=60, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(status=STATUSES, body=BODIES)
def test_a_record_holds_an_answer_only_for_a_200_with_the_interfaces_answer(
        tmp_path_factory: pytest.TempPathFactory, items_dir: Path, neighbours_server: Any, status: int,
        body: str) -> None:
    server, current = neighbours_server
    current["fault"] = body_fault(status, body)
    folder = tmp_path_factory.mktemp("neighbour")
    path = config(folder, server.base_url, max_attempts=2, timeout_s=0.3)
    message = {"too-large": "input is too long: more than 65536 tokens",
               "parameter": "Unsupported parameter: 'questions'"}.get(body, "")
    try:
        [run] = evaluate_system(get_system("s1", path), items_dir, folder / "runs", limit=1, progress=False)
    except StopRun:
        assert status_verdict(status, message) is Verdict.STOP, (status, body)
        return
    [record] = answers(run.path).values()
    if status == 200 and body == "answer":
        assert "p" in record, record
    elif status_verdict(status, message) is Verdict.INPUT_RESTRICTION:
        assert record["error"].startswith("input restriction: ") and "transient" not in record, record
    else:
        assert record.get("transient") is True and "p" not in record, (status, body, record)
