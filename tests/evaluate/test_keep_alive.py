"""decisionpivot.evaluate.keep_alive: sparrow-decider's real server on persistent connections, the same replies."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from decisionpivot.evaluate import keep_alive
from decisionpivot.evaluate.served import free_port
from decisionpivot.evaluate.systems import get_system

pytest.importorskip("sparrow_decider", reason="sparrow-decider is in the pipeline and test extras")
MODEL = "sparrow-nano-robot-v1.2"
BODIES = [
    {"state": "The invoice total is 1,204.50 EUR; the approval limit is 1,200.00 EUR.",
     "questions": {"q": {"type": "noul", "instructions": "Is the invoice within the approval limit?"}}},
    {"state": "Ticket 4411: the checkout page returns error 500 for every customer since 09:12.",
     "questions": {"q": {"type": "choice", "instructions": "Which priority does the ticket get?",
                         "criteria": {"p1": "outage for all customers", "p3": "a cosmetic defect"}}}},
    {"state": "The build passed 212 of 212 tests.",
     "questions": {"q": {"type": "score", "instructions": "How healthy is the build?",
                         "criteria": ["poor", "fair", "good"]}}},
]


@contextmanager
def sparrow_server(launcher: list[str]) -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, *launcher, "sparrow_decider.cli", "--model", MODEL, "serve",
                                "--host", "127.0.0.1", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/")
                connection.getresponse().read()
                connection.close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def _ask(connection: http.client.HTTPConnection, body: dict, path: str = "/v1/systemone"
         ) -> tuple[http.client.HTTPResponse, dict]:
    connection.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    return response, json.loads(response.read())


def test_one_connection_carries_every_request_and_the_answers_are_the_plain_servers() -> None:
    with sparrow_server(["-m"]) as port:  # sparrow-decider's own server, HTTP/1.0
        plain = []
        for body in BODIES:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            response, reply = _ask(connection, body)
            assert response.status == 200 and response.will_close  # HTTP/1.0: a connection per request
            plain.append(reply["answers"])
            connection.close()
    with sparrow_server(["-m", "decisionpivot.evaluate.keep_alive"]) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        kept, sockets = [], set()
        for body in BODIES * 2:
            response, reply = _ask(connection, body)
            assert response.status == 200 and response.version == 11 and not response.will_close
            sockets.add(id(connection.sock))
            kept.append(reply["answers"])
        connection.close()
    assert len(sockets) == 1, "every request went over the one connection"
    assert kept == plain * 2


@pytest.mark.parametrize("path, body, status", [
    ("/v1/systemone", {"state": "no questions"}, 422),  # the handler read the body
    ("/v1/elsewhere", BODIES[0], 404),  # the handler answers without reading the body
])
def test_an_error_reply_closes_its_connection_and_the_next_request_is_answered(path: str, body: dict,
                                                                               status: int) -> None:
    with sparrow_server(["-m", "decisionpivot.evaluate.keep_alive"]) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        response, _ = _ask(connection, body, path)
        assert response.status == status
        assert response.getheader("Connection") == "close" and response.will_close
        response, reply = _ask(connection, BODIES[0])  # http.client opens a new connection
        assert response.status == 200 and "q" in reply["answers"]


def test_the_built_in_sparrow_systems_are_served_through_it() -> None:
    for model in ("sparrow-nano-general-v1.1", MODEL):
        serve = get_system(model).settings["serve"]
        assert serve[1:4] == ["-m", "decisionpivot.evaluate.keep_alive", "sparrow_decider.cli"]


def test_without_a_module_it_prints_its_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert keep_alive.main([]) == 2
    assert keep_alive.main(["--help"]) == 2
    assert "usage: python -m decisionpivot.evaluate.keep_alive MODULE" in capsys.readouterr().err
