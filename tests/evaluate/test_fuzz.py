"""Property-based fuzzing of what users and servers send: replies, response bodies, answer files, configs.

Each property: whatever comes in, the outcome is a value or the package's own error - never another
exception, so the CLI prints one `error:` line - and a failed command changes no existing answer file.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import AnswerWriter, answer_paths
from decisionpivot.evaluate.prompt import ReplyError, parse_reply
from decisionpivot.evaluate.systems import get_system, load_systems
from decisionpivot.items import Item, read_items
from decisionpivot.probability import distribution
from tests.evaluate.conftest import FAMILY

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**500), max_value=10**500)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
keys = st.sampled_from(["yes", "no", "approve", "deny", "p", "answers", "decision", "choices", "probabilities",
                        "noul", "type", "message", "content", "usage", "name", "refusal"])
structured = st.recursive(
    json_values,
    lambda children: st.dictionaries(keys, children, max_size=5) | st.lists(children, max_size=3),
    max_leaves=30,
)


@FUZZ
@given(text=st.text(max_size=300) | st.builds(lambda v: json.dumps(v, default=str), structured))
def test_any_reply_gives_probabilities_or_a_reply_error(text: str) -> None:
    try:
        probs = parse_reply(text, ("yes", "no"))
    except ReplyError:
        return
    assert set(probs) == {"yes", "no"}
    distribution(probs, ("yes", "no"))  # what the scorer reads passes the one probability check


@pytest.fixture(scope="module")
def sample_items(items_dir: Path) -> list[Item]:
    return read_items(items_dir / f"{FAMILY}.jsonl")[:3]


@pytest.mark.parametrize("kind", ["chat", "systemone", "openai_decisions", "sglang_decisions"])
def test_any_response_body_gives_one_record(tmp_path_factory: pytest.TempPathFactory, sample_items: list[Item],
                                            kind: str) -> None:
    folder = tmp_path_factory.mktemp(f"fuzz-{kind}")
    config = folder / "s.yaml"
    config.write_text(json.dumps({"systems": {"s": {"kind": kind, "base_url": "http://127.0.0.1:9", "model": "m"}}}))
    system = get_system("s", config)
    runner = system.spec.make_runner(system)

    @FUZZ
    @given(body=structured, raw=st.text(max_size=80), as_json=st.booleans())
    def check(body: object, raw: str, as_json: bool) -> None:
        text = json.dumps(body, default=str) if as_json else raw
        for item in sample_items:
            record = runner._read(item, text, {"latency_s": 0.1, "queued_s": 0.0}, lambda entry: None)
            if not isinstance(record, dict):  # not an answer: retried, transient if it persists, never scored
                continue
            assert record["id"] == item.id and (("p" in record) != ("error" in record))
            if "p" in record:
                assert set(record["p"]) == set(item.option_keys)
                distribution(record["p"], item.option_keys)
            elif kind != "chat":  # a decision API's final error is only the refusal its interface documents
                assert kind == "openai_decisions" and record["error"].startswith("refusal: "), record
            json.dumps(record, allow_nan=False)  # always writable

    check()


@FUZZ
@given(raw=st.dictionaries(st.sampled_from(["kind", "base_url", "model", "concurrency", "timeout_s", "extra_body",
                                            "temperature", "max_attempts", "requests_per_minute", "yes_no",
                                            "max_options", "callable", "baseline", "batch_size", "path", "x"]),
                           json_values, max_size=6))
def test_any_system_declaration_loads_or_is_a_config_error(tmp_path_factory: pytest.TempPathFactory,
                                                           raw: dict) -> None:
    path = tmp_path_factory.mktemp("cfg") / "s.yaml"
    try:
        path.write_text(yaml.safe_dump({"systems": {"s": raw}}, allow_unicode=True))
    except (yaml.YAMLError, ValueError):
        return
    with contextlib.suppress(DecisionPivotError):  # any other exception fails the property
        load_systems(path)


@FUZZ
@given(lines=st.lists(st.binary(max_size=60) | st.builds(lambda v: json.dumps(v, default=str).encode(), structured),
                      max_size=6))
def test_any_answer_file_is_resumed_or_refused_unchanged(tmp_path_factory: pytest.TempPathFactory, items_dir: Path,
                                                         lines: list[bytes]) -> None:
    runs = tmp_path_factory.mktemp("runs")
    path, meta = answer_paths(runs, "uniform", FAMILY)
    path.parent.mkdir(parents=True)
    data = b"\n".join(lines)
    path.write_bytes(data)
    meta.write_text(json.dumps({"items_sha256": "0" * 64}))
    system = get_system("uniform")
    try:
        writer, done = AnswerWriter.open(path, meta, task=FAMILY, items_file=items_dir / f"{FAMILY}.jsonl",
                                         items_sha256="0" * 64, system=system, shard=None)
    except DecisionPivotError:
        assert path.read_bytes() == data, "a refused answer file is left as it was"
        return
    writer.close(items=0, retries=0, finished=False)
    assert all(isinstance(i, str) for i in done)
