"""Score questions through every kind: each asks the item as its interface defines a score question and records
the per-level probabilities keyed by the item's option keys (issue 40, item 3).

The real sparrow-decider server answers score questions (System One ``type: score``); the repo's fake decision
server speaks the OpenAI and SGLang shapes; the ``decision`` kind runs a tiny random checkpoint in process.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot.evaluate.chat import ChatWire
from decisionpivot.evaluate.hf import key_body
from decisionpivot.evaluate.kinds import INPUT_RESTRICTION, RunCounters
from decisionpivot.evaluate.openai_decisions import OpenAIDecisionsWire
from decisionpivot.evaluate.outcome import NotAnAnswer
from decisionpivot.evaluate.prompt import SCALE_HEADING, user_message
from decisionpivot.evaluate.questions import as_question
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.sglang_decisions import SGLangDecisionsWire
from decisionpivot.evaluate.systemone import SystemOneWire
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import Item, Option, read_items
from decisionpivot.scale.run import write_suite
from decisionpivot.score_questions import level_name
from tests.evaluate.fake_decision_server import FakeDecisions, expected_probabilities, state_digest

FAMILY = "support_priority"
N = 12


@pytest.fixture(scope="module")
def scale_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release's support_priority file of the scale suite (re-derived, so every verb accepts it)."""
    folder = tmp_path_factory.mktemp("scale-items")
    write_suite(folder, names=[FAMILY])
    return folder


@pytest.fixture(scope="module")
def item(scale_items: Path) -> Item:
    """A five-level item (difficulty 3)."""
    return next(i for i in read_items(scale_items / f"{FAMILY}.jsonl") if len(i.options) == 5)


def config(tmp_path: Path, kind: str, url: str, **extra: object) -> Path:
    settings = {"kind": kind, "base_url": url, "model": "fake-decider", "concurrency": 2, "timeout_s": 5.0,
                "max_attempts": 2, "backoff_base_s": 0.01, **extra}
    path = tmp_path / "systems.yaml"
    path.write_text(json.dumps({"systems": {"decider": settings}}))
    return path


def _system(tmp_path: Path, kind: str, **extra: object):
    return get_system("decider", config(tmp_path, kind, "http://127.0.0.1:9", **extra))


def test_each_kind_asks_a_score_question_as_its_interface_defines_one(tmp_path: Path, item: Item,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Prints each kind's request for one score item (``pytest -s`` shows them) and checks its shape."""
    meanings = [o.meaning for o in item.options]
    names = [level_name(o) for o in item.options]
    requests: dict[str, object] = {}
    systemone = SystemOneWire(_system(tmp_path, "systemone").settings).request(item)
    requests["systemone (and decision: the same body, in process)"] = systemone
    assert systemone["questions"] == {"decision": {"type": "score", "instructions": item.question,
                                                   "criteria": meanings}}
    openai = OpenAIDecisionsWire(_system(tmp_path, "openai_decisions").settings).request(item)
    requests["openai_decisions"] = openai
    [question] = openai["questions"]
    assert question["type"] == "score" and question["name"] == "decision"
    assert [level["label"] for level in question["levels"]] == names
    assert all(level["description"] and " - " not in level["label"] for level in question["levels"])
    sglang = SGLangDecisionsWire(_system(tmp_path, "sglang_decisions").settings).request(item)
    requests["sglang_decisions"] = sglang
    [question] = sglang["questions"]
    assert question["type"] == "score" and [level["name"] for level in question["levels"]] == names
    chat = ChatWire(_system(tmp_path, "chat")).request(item)
    requests["chat (verbalised probability per level)"] = chat["messages"]
    assert SCALE_HEADING in chat["messages"][1]["content"]
    assert '{"0": <probability>, "1": <probability>, "2": <probability>, "3": <probability>, "4": <probability>}' \
        in chat["messages"][1]["content"]
    requests["hf and logprobs (each level key scored after this prompt)"] = {"user": key_body(item),
                                                                            "keys": list(item.option_keys)}
    assert key_body(item).endswith("Answer with one option key.") and SCALE_HEADING in key_body(item)
    for kind, request in requests.items():
        print(f"--- {kind}\n{json.dumps(request, indent=1, ensure_ascii=False)[:3000]}")
    out = capsys.readouterr().out
    assert out.count("--- ") == len(requests)


def test_a_core_item_keeps_its_prompt(item: Item) -> None:
    """Only score items get the scale heading: a core item's prompt is unchanged."""
    plain = replace(item, extra={})
    assert "OPTIONS (key: meaning)\n" in user_message(plain) and SCALE_HEADING not in user_message(plain)
    assert as_question(plain, "noul").type == "choice" and as_question(item, "noul").type == "score"


def _reversed(item: Item) -> Item:
    """The item with its levels listed highest first, each keeping its key (as a framing may list them)."""
    return replace(item, options=tuple(reversed(item.options)))


def test_a_score_answer_maps_to_the_listed_keys_by_level_index(tmp_path: Path, item: Item) -> None:
    """System One names a level by its index in the criteria sent; the record is keyed by the listed option keys, so a
    scale listed highest first reads index 0 as the highest level's key."""
    wire = SystemOneWire(_system(tmp_path, "systemone").settings)
    flipped = _reversed(item)
    sent = wire.request(flipped)["questions"]["decision"]["criteria"]
    assert sent == [o.meaning for o in reversed(item.options)]
    answer = {"type": "score", "score": 0.3, "confidence": 0.7,
              "probabilities": {"0": 0.7, "1": 0.1, "2": 0.1, "3": 0.05, "4": 0.05}}
    record = wire.parse(flipped, {"answers": {"decision": answer}, "usage": {"input_tokens": 5}})
    assert record["p"] == pytest.approx({"4": 0.7, "3": 0.1, "2": 0.1, "1": 0.05, "0": 0.05})
    assert record["interface_score"] == 0.3 and record["interface_confidence"] == 0.7
    for bad in ({"0": 0.5, "1": 0.5, "7": 0.0}, {"0": 0.5, "1": 0.5}, {"zero": 1.0}):
        with pytest.raises(NotAnAnswer):
            wire.parse(item, {"answers": {"decision": {**answer, "probabilities": bad}}})


def test_an_openai_level_is_read_by_its_index_and_its_label_must_agree(tmp_path: Path, item: Item) -> None:
    wire = OpenAIDecisionsWire(_system(tmp_path, "openai_decisions").settings)
    names = [level_name(o) for o in item.options]
    listed = [{"label": names[i], "value": i, "probability": p} for i, p in enumerate((0.1, 0.2, 0.4, 0.2, 0.1))]
    body = {"answers": [{"name": "decision", "type": "score", "score": 2.0, "confidence": 0.4,
                         "probabilities": listed[::-1]}]}
    record = wire.parse(item, body)
    assert record["p"] == pytest.approx({"0": 0.1, "1": 0.2, "2": 0.4, "3": 0.2, "4": 0.1})
    assert record["interface_score"] == 2.0
    swapped = [{**entry, "label": names[(entry["value"] + 1) % 5]} for entry in listed]
    for wrong in (swapped, [*listed, listed[0]], [{**listed[0], "value": 9}, *listed[1:]]):
        with pytest.raises(NotAnAnswer):
            wire.parse(item, {"answers": [{"name": "decision", "probabilities": wrong}]})


def test_a_scale_over_the_interfaces_cap_is_an_input_restriction(tmp_path: Path, item: Item) -> None:
    """DECISION-APIS.md section 2: TypeSafe, OpenAI and SGLang take at most 10 levels (the default of each kind);
    a scale over a declared cap is recorded, not sent."""
    for kind, wire in (("systemone", SystemOneWire), ("openai_decisions", OpenAIDecisionsWire),
                       ("sglang_decisions", SGLangDecisionsWire)):
        settings = _system(tmp_path, kind).settings
        assert settings["max_levels"] == 10
        assert wire(settings).refused(item) is None
        capped = wire(_system(tmp_path, kind, max_levels=4).settings).refused(item)
        assert capped == f"{INPUT_RESTRICTION}: a scale of 5 levels, the system takes at most 4"
    eleven = replace(item, options=tuple(Option(str(i), f"L{i} - level {i}") for i in range(11)), answer="3")
    assert SystemOneWire(_system(tmp_path, "systemone").settings).refused(eleven).startswith(INPUT_RESTRICTION)


@pytest.mark.parametrize("kind", ["systemone", "openai_decisions", "sglang_decisions"])
def test_the_decision_apis_record_every_level_of_the_scale(tmp_path: Path, scale_items: Path, kind: str) -> None:
    with FakeDecisions(kind) as server:
        system = get_system("decider", config(tmp_path, kind, server.base_url))
        [result] = evaluate_system(system, scale_items, tmp_path / "runs", limit=N, progress=False)
        sent = server.requests
    assert len(sent) == N and all(r["questions"]["decision" if kind == "systemone" else 0]["type"] == "score"
                                  for r in sent)
    items = {i.id: i for i in read_items(scale_items / f"{FAMILY}.jsonl")[:N]}
    records = [json.loads(line) for line in result.path.read_text().splitlines()]
    assert {r["id"] for r in records} == set(items)
    for record in records:
        item = items[record["id"]]
        assert isinstance(item.state, str)  # sent as it is: the server's digest is the state's
        expected = expected_probabilities(state_digest(item.state), list(item.option_keys))
        assert record["p"] == pytest.approx(expected)
        assert record["interface_score"] == pytest.approx(sum(int(k) * v for k, v in expected.items()))


sparrow = pytest.importorskip("sparrow_decider", reason="sparrow-decider is in the pipeline and test extras")


@pytest.mark.parametrize("model", ["sparrow-nano-general-v1.1", "sparrow-nano-robot-v1.2"])
def test_sparrow_answers_score_questions_through_its_own_server(scale_items: Path, model: str) -> None:
    """The real server: our score question for each item, asked of the model in process, gives the record's
    probabilities (keyed by the level keys) and the interface's own score and confidence."""
    system = get_system(model)
    runner = system.spec.make_runner(system)
    chosen = [i for i in read_items(scale_items / f"{FAMILY}.jsonl") if i.level in (1, 3)][:: 40]
    got: dict[str, dict] = {}
    try:
        runner.run(chosen, lambda record: got.__setitem__(record["id"], record), RunCounters(), lambda entry: None)
    finally:
        runner.close()
    decider = sparrow.Decider.load(model)
    wire = SystemOneWire(system.settings)
    for item in chosen:
        body = wire.request(item)
        assert body["questions"]["decision"]["type"] == "score"
        answer = decider.ask(body["state"], body["questions"])["decision"]
        assert answer["type"] == "score" and set(answer["probabilities"]) == set(item.option_keys)
        total = sum(answer["probabilities"].values())
        expected = {key: value / total for key, value in answer["probabilities"].items()}
        record = got[item.id]
        assert record["p"] == pytest.approx(expected, abs=2e-4), item.id
        assert record["interface_score"] == pytest.approx(answer["score"], abs=2e-4)
        assert record["interface_confidence"] == pytest.approx(answer["confidence"], abs=2e-4)


def test_the_decision_pipeline_answers_a_score_question_in_process(tmp_path: Path, item: Item) -> None:
    """``pipeline("decision")`` (transformers 5.24) takes the System One score body: a tiny random Llama reads the
    five levels by their label logits; the record is keyed by the level keys and keeps transformers' own score and
    confidence (computed by its ``Question.answer``)."""
    pytest.importorskip("torch", reason="the decision kind needs torch (installed by the test extra)")
    pytest.importorskip("transformers")
    from decisionpivot.evaluate.decision import DecisionPipelineRunner
    from tests.evaluate.tiny_decider import build_tiny_decider

    model = build_tiny_decider(tmp_path / "llama", "llama")
    path = tmp_path / "systems.yaml"
    path.write_text(json.dumps({"systems": {"local": {"kind": "decision", "model": str(model), "device": "cpu"}}}))
    runner = DecisionPipelineRunner(get_system("local", path))
    got: list[dict] = []
    runner.run([item], got.append, RunCounters(), lambda entry: None)
    [record] = got
    assert set(record["p"]) == set(item.option_keys) and sum(record["p"].values()) == pytest.approx(1)
    expected_score = sum(int(k) * v for k, v in record["p"].items())
    assert record["interface_score"] == pytest.approx(expected_score, abs=1e-6)
    assert 0 <= record["interface_confidence"] <= 1


def test_a_level_index_written_otherwise_is_no_answer() -> None:
    """Red team, wave 5: a reply keyed "0" and "00" (or " 1", "01") folded both onto level 0, the later value
    overwriting the earlier, and a sum of 1.5 became a certain answer. Only the indices as System One writes them,
    ``str(i)``, name a level; anything else is no distribution (the record is transient, never an answer)."""
    import pytest as _pytest

    from decisionpivot.evaluate.questions import DecisionQuestion, from_levels
    from decisionpivot.probability import ProbabilityError

    question = DecisionQuestion("score", "state", "How severe?", (("0", "Low"), ("1", "Mid"), ("2", "High")))
    assert from_levels(question, {"0": 0.2, "1": 0.3, "2": 0.5}, 1e-6) == {"0": 0.2, "1": 0.3, "2": 0.5}
    for reply in ({"0": 0.5, "1": 0, "2": 0, "00": 1.0}, {"01": 1.0, "0": 0.0, "2": 0.0}, {" 1": 1.0},
                  {"²": 1.0, "0": 0.0}, {"0": 0.0, "1": 0.0, "2": 1.0, "3": 0.0}):
        with _pytest.raises(ProbabilityError):
            from_levels(question, reply, 1e-6)
