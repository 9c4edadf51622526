"""Several questions in one request (issue 30, framing ``together``): the decision-API kinds send an item's
``companions`` with its question and record the item's answer; every other kind asks the question alone and its
meta says ``questions_per_request: one``."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.openai_decisions import OpenAIDecisionsWire
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.sglang_decisions import SGLangDecisionsWire
from decisionpivot.evaluate.systemone import SystemOneWire
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import Item, read_items
from decisionpivot.score.invariance import score_invariance
from decisionpivot.score.layout import read_layout
from decisionpivot.score.pipeline import load_runs
from decisionpivot.score.results import MACRO
from tests.conftest import cached_draw
from tests.score.framed import COMPANION, framed_family, write_suite

FAMILIES = ("fact_answerable", "policy_case")


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_suite(tmp_path_factory.mktemp("together") / "suite",
                       {f: framed_family(cached_draw(f).items, 2) for f in FAMILIES})


def _together(suite: Path) -> list[Item]:
    return [i for f in FAMILIES for i in read_items(suite / f"{f}.jsonl") if i.extra["framing"] == "together"]


SETTINGS = {"model": "m", "yes_no": "noul", "sum_tolerance": 0.02}


def test_each_decision_wire_sends_the_companions_beside_the_items_question(suite: Path) -> None:
    item = next(i for i in _together(suite) if i.family == "fact_answerable")
    systemone = SystemOneWire(SETTINGS).request(item)["questions"]
    assert list(systemone) == ["decision", "companion-c1"]
    assert systemone["companion-c1"] == {"type": "noul", "instructions": COMPANION["question"],
                                         "criteria": {"true": "it does", "false": "it does not"}}
    openai = OpenAIDecisionsWire(SETTINGS).request(item)["questions"]
    assert [q["name"] for q in openai] == ["decision", "companion-c1"] and openai[1]["type"] == "predicate"
    sglang = SGLangDecisionsWire({**SETTINGS, "yes_no": "choice"}).request(item)["questions"]
    assert [q["id"] for q in sglang] == ["decision", "companion-c1"]
    assert sglang[1]["options"] == [{"name": "yes", "description": "it does"},
                                    {"name": "no", "description": "it does not"}]
    plain = next(i for i in read_items(suite / "fact_answerable.jsonl") if i.id == item.extra["base"] + "~plain")
    assert list(SystemOneWire(SETTINGS).request(plain)["questions"]) == ["decision"]  # no companions: one question


def test_a_malformed_companion_is_an_error_naming_the_item(suite: Path) -> None:
    from dataclasses import replace

    item = _together(suite)[0]
    bad = replace(item, extra={**item.extra, "companions": [{"id": "c1", "question": "?"}]})
    with pytest.raises(DecisionPivotError, match=f"item {item.id}: companion 1 is not"):
        SystemOneWire(SETTINGS).request(bad)


class EveryQuestionServer:
    """Answers every question of a request (openai_decisions and sglang_decisions shapes), each with its own
    distribution from (state, question id), answers listed in reverse order: the item's answer is found by name."""

    def __init__(self, shape: str) -> None:
        self.shape = shape
        self.requests: list[dict[str, Any]] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __enter__(self) -> EveryQuestionServer:
        self.thread.start()

        async def start() -> web.AppRunner:
            app = web.Application()
            app.router.add_post("/{tail:.*}", self.serve)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.SockSite(runner, self.sock).start()
            return runner

        self.runner = asyncio.run_coroutine_threadsafe(start(), self.loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)

    @staticmethod
    def p_first(state: str, name: str) -> float:
        return round((1 + hashlib.sha256(f"{state}|{name}".encode()).digest()[0]) / 258, 4)

    def options(self, q: dict[str, Any]) -> list[str]:
        if q["type"] in ("predicate", "yes_no"):
            return ["yes", "no"]
        return [c["value"] for c in q["choices"]] if self.shape == "openai" else [o["name"] for o in q["options"]]

    async def serve(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append(body)
        answers = []
        for q in body["questions"]:
            name = q["name"] if self.shape == "openai" else q["id"]
            keys = self.options(q)
            first = self.p_first(body["input"], name)
            probs = {k: (first if j == 0 else (1 - first) / (len(keys) - 1)) for j, k in enumerate(keys)}
            if self.shape == "openai":
                answer = ({"name": name, "probability": probs["yes"]} if q["type"] == "predicate" else
                          {"name": name, "probabilities": [{"value": k, "probability": v} for k, v in probs.items()]})
            else:
                answer = {"id": name, "probabilities": probs}
            answers.append(answer)
        answers.reverse()
        if self.shape == "sglang":
            return web.json_response({"answers": {a.pop("id"): a for a in answers}})
        return web.json_response({"answers": answers})


@pytest.mark.parametrize(("kind", "shape"), [("openai_decisions", "openai"), ("sglang_decisions", "sglang")])
def test_decision_apis_ask_together_and_record_the_items_answer(
    tmp_path: Path, suite: Path, kind: str, shape: str
) -> None:
    config = tmp_path / "systems.yaml"
    with EveryQuestionServer(shape) as server:
        config.write_text(json.dumps({"systems": {"api": {"kind": kind, "base_url": server.base_url, "model": "m",
                                                          "max_attempts": 1}}}))
        results = evaluate_system(get_system("api", config), suite, tmp_path / "runs", progress=False,
                                  allow_modified_items=True)  # a hand-framed suite: no draw of this package
    sizes = {len(body["questions"]) for body in server.requests}
    assert sizes == {1, 2}, "together items carry their companion, every other item is asked alone"
    for result in results:
        meta = json.loads(result.path.with_name(f"{result.task}.meta.json").read_text())
        assert meta["questions_per_request"] == "several"
        items = {i.id: i for i in read_items(suite / f"{result.task}.jsonl")}
        for line in result.path.read_text().splitlines():
            record = json.loads(line)
            item = items[record["id"]]
            state = item.state if isinstance(item.state, str) else json.dumps(item.state, indent=2)
            assert record["p"][item.option_keys[0]] == pytest.approx(
                EveryQuestionServer.p_first(state, "decision"), abs=1e-6), "the item's answer, found by name"


def test_the_uniform_baseline_asks_one_question_and_stays_invariant(tmp_path: Path, suite: Path) -> None:
    """The real built-in uniform baseline, through dp evaluate and the scorer: its meta says one question per
    request, and no framing moves it."""
    results = evaluate_system(get_system("uniform"), suite, tmp_path / "runs", progress=False,
                              allow_modified_items=True)
    for result in results:
        meta = json.loads(result.path.with_name(f"{result.task}.meta.json").read_text())
        assert meta["questions_per_request"] == "one"
    loaded = load_runs(tmp_path / "runs", suite, None, ["uniform"], (), allow_modified_items=True)
    scored = {e.metric: e.value for e in score_invariance(loaded.core, loaded.answers, ["uniform"], 20)
              if e.task == MACRO}
    assert scored["flip_rate"] == 0 and scored["negation_coherence"] == 100 and scored["negation_gap"] == 0
    assert "request_interference" not in scored  # asked one question per request: not measured
    assert all(v == 0 for m, v in scored.items() if m.startswith("flip_rate:"))


def test_core_items_record_no_questions_per_request(tmp_path: Path) -> None:
    from decisionpivot.items import write_items

    folder = tmp_path / "core"
    folder.mkdir()
    write_items(folder / "policy_case.jsonl", list(cached_draw("policy_case").items[:3]))
    [result] = evaluate_system(get_system("uniform"), folder, tmp_path / "runs", progress=False,
                               allow_modified_items=True)  # three items of a draw: no draw
    assert "questions_per_request" not in json.loads(result.path.with_name("policy_case.meta.json").read_text())
    assert read_layout(folder / "policy_case.jsonl").size == 3


@pytest.mark.parametrize("model", ["sparrow-nano-general-v1.1"])
def test_sparrow_answers_each_question_of_a_request_on_its_own(tmp_path: Path, suite: Path, model: str) -> None:
    """The real System One server of sparrow-decider takes the item's question and its companion in one request;
    it answers questions independently, so a together item gets exactly its plain item's answer."""
    pytest.importorskip("sparrow_decider")
    results = evaluate_system(get_system(model), suite, tmp_path / "runs", progress=False, allow_modified_items=True)
    for result in results:
        assert json.loads(result.path.with_name(f"{result.task}.meta.json").read_text())[
            "questions_per_request"] == "several"
        records = {json.loads(x)["id"]: json.loads(x) for x in result.path.read_text().splitlines()}
        together = [r for i, r in records.items() if i.endswith("~together")]
        assert together and all("p" in r for r in together)
        for record in together:
            assert record["p"] == records[record["id"].replace("~together", "~plain")]["p"]
