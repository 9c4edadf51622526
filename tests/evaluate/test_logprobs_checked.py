"""The ``logprobs`` kind's numbers go through the one probability check (issue 37 case 6).

A served model's log-probability of +0.7 was accepted and flipped the decision (p(yes) 0.20 -> 0.51) while
``dp import lm-eval`` refused the same value. Here a small server echoes log-probabilities of its choosing for a
character tokenizer (no model, no torch): a positive one is no answer - retried, then transient - and the
ordinary ones give the softmax.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.evaluate import logprobs
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.evaluate.conftest import FAMILY

YES, NO = math.log(0.2), math.log(0.8)
"""The log-likelihoods of the keys ``yes`` and ``no`` the server means: p(yes) = 0.2."""


class CharTokenizer:
    """One token per character (a BOS of 1 before a text): enough for the plain prompt and whole-key readout."""

    chat_template = None

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        return {"input_ids": ([1] if add_special_tokens else []) + [ord(c) for c in text]}

    def decode(self, ids: list[int]) -> str:
        return "".join(chr(i) for i in ids)


@pytest.fixture
def echo_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """``POST /v1/completions`` echoing each sequence with its last token's log-probability set so that the key
    ``yes`` (`` yes``) sums to ``plan["yes"]`` and ``no`` to ``plan["no"]``; every other token -0.5."""
    plan: dict[str, Any] = {"yes": YES, "no": NO}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            choices = []
            for index, ids in enumerate(body["prompt"]):
                key = "yes" if ids[-3:] == [ord(c) for c in "yes"] else "no"
                width = len(key)
                values: list[float | None] = [None, *[-0.5] * (len(ids) - 1)]
                values[-width:] = [0.0] * (width - 1) + [plan[key]]
                choices.append({"index": index, "text": "", "logprobs": {"token_logprobs": values}})
            data = json.dumps({"choices": choices, "usage": {"prompt_tokens": 10}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", plan
    finally:
        server.shutdown()
        server.server_close()


def run(tmp_path: Path, items_dir: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    monkeypatch.setattr(logprobs, "load_tokenizer", lambda name, path: CharTokenizer())
    config = tmp_path / "s.yaml"
    config.write_text(json.dumps({"systems": {"lp": {"kind": "logprobs", "base_url": url, "model": "m",
                                                     "max_attempts": 2, "backoff_base_s": 0.01}}}))
    [result] = evaluate_system(get_system("lp", config), items_dir, tmp_path / "runs", limit=3, progress=False)
    return {r["id"]: r for r in map(json.loads, result.path.read_text().splitlines())}


def test_a_positive_log_probability_is_no_answer(tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                 echo_server: tuple[str, dict[str, Any]]) -> None:
    url, plan = echo_server
    plan["yes"] = 0.7  # read as a log-probability, p(yes) 0.20 would become 0.72
    records = run(tmp_path, items_dir, url, monkeypatch)
    assert len(records) == 3
    for record in records.values():
        assert "p" not in record and record["transient"] is True, record
        assert "0.7, impossible for the log of a probability" in record["error"], record


def test_log_probabilities_of_a_probability_give_the_softmax(tmp_path: Path, items_dir: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             echo_server: tuple[str, dict[str, Any]]) -> None:
    url, _ = echo_server
    records = run(tmp_path, items_dir, url, monkeypatch)
    items = {item.id: item for item in read_items(items_dir / f"{FAMILY}.jsonl")[:3]}
    assert set(records) == set(items)
    for record in records.values():
        assert record["p"]["yes"] == pytest.approx(0.2) and record["p"]["no"] == pytest.approx(0.8)
