"""Reading answer files: normalisation, failures, ties, coverage, hashes, and errors naming file and line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisionpivot.evaluate.kinds import RECORD_FIELDS
from decisionpivot.items import Item, Option, write_items
from decisionpivot.score.answers import AnswerFileError, coverage_shortfall, read_task_answers
from decisionpivot.score.layout import TaskLayout, read_layout
from decisionpivot.score.pipeline import load_runs
from tests.score.synthetic import write_answers

KEYS = ("approve", "deny", "escalate")


def make_items(count: int = 6) -> list[Item]:
    return [
        Item(
            id=f"policy_case:{i:05d}",
            family="policy_case",
            layer="B",
            version="1.1",
            group=f"policy_case:g{i // 3:04d}",
            level=1,
            variation=None,
            domain=None,
            state=f"case {i}",
            question="What does the policy require?",
            options=tuple(Option(k, k) for k in KEYS),
            answer=KEYS[i % 3],
        )
        for i in range(count)
    ]


@pytest.fixture
def layout(tmp_path: Path) -> TaskLayout:
    write_items(tmp_path / "items" / "policy_case.jsonl", make_items())
    return read_layout(tmp_path / "items" / "policy_case.jsonl")


def answer_file(tmp_path: Path, layout: TaskLayout, records: list[dict], sha: str | None = None) -> Path:
    return write_answers(tmp_path / "runs" / "sys", "policy_case", sha or layout.items_sha256, records)


def read(tmp_path: Path, layout: TaskLayout, records: list[dict]):
    return read_task_answers(answer_file(tmp_path, layout, records), layout, "sys")


def test_probabilities_are_normalised_over_listed_options_and_unknown_keys_ignored(
    tmp_path: Path, layout: TaskLayout
) -> None:
    a = read(
        tmp_path,
        layout,
        [
            {"id": "policy_case:00000", "p": {"approve": 0.5, "deny": 0.26, "escalate": 0.25}},  # sum 1.01: rounding
            {
                "id": "policy_case:00001",
                "p": {"deny": 1.0, "maybe": 5.0, "other": 1},
            },  # approve, escalate missing -> 0
            *[{"id": f"policy_case:{i:05d}", "p": {"approve": 1}} for i in range(2, 6)],
        ],
    )
    np.testing.assert_allclose(a.probabilities[0], [0.5 / 1.01, 0.26 / 1.01, 0.25 / 1.01])
    np.testing.assert_allclose(a.probabilities[1], [0.0, 1.0, 0.0])
    assert a.ignored_keys == 2
    assert a.correct[:2].tolist() == [True, True]


def test_invalid_probabilities_fail_and_count_as_uniform_and_incorrect(
    tmp_path: Path, layout: TaskLayout
) -> None:
    a = read(
        tmp_path,
        layout,
        [
            {"id": "policy_case:00000", "p": {"approve": 0.9, "deny": -0.1}},
            {"id": "policy_case:00001", "p": {"approve": 0.0, "deny": 0.0, "escalate": 0.0}},
            {"id": "policy_case:00002", "p": {"approve": 0.5, "deny": "0.5"}},
            {"id": "policy_case:00003", "p": {"approve": 0.5, "deny": True}},
            {"id": "policy_case:00004", "error": "context length exceeded"},
        ],
    )
    path = tmp_path / "runs" / "sys" / "policy_case.jsonl"
    path.write_text(
        path.read_text().replace('"deny": -0.1', '"deny": NaN', 0) + '{"id": "policy_case:00005", '
        '"p": {"approve": NaN, "deny": 1}}\n'
    )
    a = read_task_answers(path, layout, "sys")
    assert a.failed.tolist() == [True] * 6
    assert a.invalid_records == 5 and a.error_records == 1
    np.testing.assert_allclose(a.probabilities, np.full((6, 3), 1 / 3))
    np.testing.assert_allclose(a.confidence, 1 / 3)
    assert not a.correct.any()  # item 0's gold is the first option: the uniform argmax, still incorrect


def test_argmax_ties_go_to_the_first_listed_option(tmp_path: Path, layout: TaskLayout) -> None:
    a = read(
        tmp_path,
        layout,
        [
            {"id": "policy_case:00000", "p": {"approve": 0.4, "deny": 0.4, "escalate": 0.2}},
            {"id": "policy_case:00001", "p": {"approve": 0.2, "deny": 0.4, "escalate": 0.4}},
        ]
        + [{"id": f"policy_case:{i:05d}", "p": {"deny": 1}} for i in range(2, 6)],
    )
    assert a.predicted[:2].tolist() == [0, 1]
    assert a.correct[:2].tolist() == [True, True]


def test_missing_records_are_failed_and_coverage_needs_99_percent(tmp_path: Path) -> None:
    items = [
        Item(
            id=f"t:{i:05d}",
            family="t",
            layer="A",
            version="1",
            group=None,
            level=1,
            variation=None,
            domain=None,
            state="s",
            question="q",
            options=(Option("yes", ""), Option("no", "")),
            answer="yes",
        )
        for i in range(200)
    ]
    write_items(tmp_path / "t.jsonl", items)
    layout = read_layout(tmp_path / "t.jsonl")
    records = [{"id": f"t:{i:05d}", "p": {"yes": 1}} for i in range(200)]
    a = read_task_answers(write_answers(tmp_path / "r", "t", layout.items_sha256, records[:198]), layout, "s")
    assert coverage_shortfall(a) is None  # 198/200 = 99%: included
    assert a.failed[198:].all() and not a.correct[198:].any() and a.correct[:198].all()
    b = read_task_answers(write_answers(tmp_path / "r", "t", layout.items_sha256, records[:197]), layout, "s")
    assert coverage_shortfall(b) == "records for 197 of 200 items (98.5%), below the 99% a task needs"
    errors = [{"id": r["id"], "error": "timeout"} for r in records]
    c = read_task_answers(write_answers(tmp_path / "r", "t", layout.items_sha256, errors), layout, "s")
    assert coverage_shortfall(c) is None and c.failed.all()  # explicit errors are records


def test_optional_fields_are_read(tmp_path: Path, layout: TaskLayout) -> None:
    a = read(
        tmp_path,
        layout,
        [
            {"id": "policy_case:00000", "p": {"approve": 1}, "tokens": 120, "closed": True, "latency_s": 1.5},
            {"id": "policy_case:00001", "p": {"deny": 1}, "tokens": 80, "closed": False, "latency_s": None},
        ],
    )
    assert a.tokens[:2].tolist() == [120, 80] and a.closed[:2].tolist() == [1.0, 0.0]
    assert a.latency_s[0] == 1.5 and math.isnan(a.latency_s[1]) and math.isnan(a.tokens[2])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "policy_case:00000", "p": {"approve": 1}', "not valid JSON"),
        ('["policy_case:00000"]', "expected a JSON object, found list"),
        ('{"p": {"approve": 1}}', "missing or non-string 'id'"),
        (
            '{"id": "policy_case:00099", "p": {"approve": 1}}',
            "unknown id 'policy_case:00099' (not an item of",
        ),
        (
            '{"id": "policy_case:00001", "p": {"approve": 1}}',
            "duplicate id 'policy_case:00001' (first on line 1)",
        ),
        ('{"id": "policy_case:00000"}', "needs 'p' (an object of option probabilities) or 'error'"),
        ('{"id": "policy_case:00000", "p": [0.5, 0.5]}', "needs 'p'"),
        ('{"id": "policy_case:00000", "p": {"approve": 1}, "tokens": -3}', "field 'tokens' must be"),
        ('{"id": "policy_case:00000", "p": {"approve": 1}, "closed": "yes"}', "field 'closed' must be"),
        ("", "not valid JSON"),
    ],
)
def test_malformed_lines_are_errors_naming_file_and_line(
    tmp_path: Path, layout: TaskLayout, line: str, message: str
) -> None:
    path = answer_file(tmp_path, layout, [{"id": "policy_case:00001", "p": {"deny": 1}}])
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(AnswerFileError) as error:
        read_task_answers(path, layout, "sys")
    assert str(error.value).startswith(f"{path}:2: ")
    assert message in str(error.value)


def test_a_hash_mismatch_names_both_hashes(tmp_path: Path, layout: TaskLayout) -> None:
    path = answer_file(tmp_path, layout, [], sha="ab" * 32)
    with pytest.raises(AnswerFileError) as error:
        read_task_answers(path, layout, "sys")
    text = str(error.value)
    assert "ab" * 32 in text and layout.items_sha256 in text and str(layout.items_path) in text


def test_a_missing_or_broken_meta_file_is_an_error(tmp_path: Path, layout: TaskLayout) -> None:
    path = answer_file(tmp_path, layout, [])
    meta = path.with_name("policy_case.meta.json")
    meta.write_text("{not json")
    with pytest.raises(AnswerFileError, match=r"policy_case\.meta\.json:1: not valid JSON"):
        read_task_answers(path, layout, "sys")
    meta.write_text(json.dumps({"items": "x"}))
    with pytest.raises(AnswerFileError, match="no 'items_sha256' string"):
        read_task_answers(path, layout, "sys")
    meta.unlink()
    with pytest.raises(AnswerFileError, match=r"policy_case\.meta\.json: missing"):
        read_task_answers(path, layout, "sys")


def test_loading_runs_excludes_tasks_with_reasons_and_collects_warnings(tmp_path: Path) -> None:
    items = make_items(300)
    sha = write_items(tmp_path / "items" / "policy_case.jsonl", items)
    full = [{"id": it.id, "p": {"approve": 0.5, "deny": 0.5, "extra": 1}} for it in items]
    write_answers(tmp_path / "runs" / "complete", "policy_case", sha, full)
    write_answers(tmp_path / "runs" / "partial", "policy_case", sha, full[:290])
    write_answers(tmp_path / "runs" / "partial", "unknown_task", sha, full[:1])
    (tmp_path / "runs" / "nothing").mkdir()
    loaded = load_runs(tmp_path / "runs", tmp_path / "items", allow_modified_items=True)  # synthetic items
    assert loaded.systems == ("complete", "nothing", "partial")
    assert set(loaded.answers) == {("complete", "policy_case")}
    reasons = {(x.system, x.task): x.reason for x in loaded.exclusions}
    assert reasons == {
        ("nothing", "policy_case"): "no answer file",
        ("partial", "policy_case"): "records for 290 of 300 items (96.7%), below the 99% a task needs",
    }
    assert any("300 probabilities for keys that are not listed options" in w for w in loaded.warnings)
    assert any("unknown_task.jsonl: no items for task 'unknown_task'" in w for w in loaded.warnings)
    with pytest.raises(AnswerFileError, match="unknown system 'ghost'"):
        load_runs(tmp_path / "runs", tmp_path / "items", systems=["ghost"], allow_modified_items=True)


def test_values_that_are_no_distribution_are_failed_records(tmp_path: Path, layout: TaskLayout) -> None:
    """The one probability check (decisionpivot.probability): weights, huge values and sums far from 1 are no answer
    (issue 29's 1e308 once summed to infinity; issue 37: every source goes through one function)."""
    a = read(tmp_path, layout, [
        {"id": "policy_case:00000", "p": {"approve": 1e308, "deny": 1e308, "escalate": 0}},
        {"id": "policy_case:00001", "p": {"approve": 2, "deny": 1, "escalate": 1}},
        {"id": "policy_case:00002", "p": {"approve": 5e-324, "deny": 0, "escalate": 0}},
        *[{"id": f"policy_case:{i:05d}", "p": {"approve": 1}} for i in range(3, 6)],
    ])
    assert a.failed[:3].all() and not a.failed[3:].any() and a.invalid_records == 3
    np.testing.assert_allclose(a.probabilities[:3], np.full((3, 3), 1 / 3))  # uniform, as for any failed record


def test_normalised_rows_equals_its_loop_definition() -> None:
    from decisionpivot.score.answers import normalised_rows

    rng = np.random.default_rng(7)
    raw = rng.random((50, 4)) * 10.0 ** rng.integers(-300, 308, size=(50, 1))
    raw[::7, 1:] = 0.0
    raw[::5] = 1.7e308  # sums to infinity
    usable = np.ones(50, dtype=bool)
    usable[3] = False
    got = normalised_rows(raw, usable)
    for row, values in enumerate(raw.tolist()):
        if not usable[row]:
            assert got[row].tolist() == [0.0] * 4
            continue
        total = 0.0
        for value in values:
            total += value
        if math.isinf(total):  # the sum overflows: scaled by the largest value first
            peak = max(values)
            values = [v / peak for v in values]
            total = sum(values)
        np.testing.assert_allclose(got[row], [v / total for v in values], rtol=1e-12)


def test_a_transient_record_is_no_answer_whatever_else_it_holds(tmp_path: Path, layout: TaskLayout) -> None:
    """Red team, wave 5: a record marked ``"transient": true`` that also held ``p`` was scored as the model's answer
    (a server outage turned into answers by hand). Transient means asked again, never scored; a flag that is not a
    boolean is refused."""
    gold = {item.id: item.answer for item in make_items()}
    first = "policy_case:00001"
    answers = read(tmp_path, layout, [{"id": first, "p": {gold[first]: 1.0}, "transient": True}])
    assert answers.transient == 1 and not answers.answered.any()
    assert not answers.correct.any()
    for flag in ("yes", 1, 0):
        path = answer_file(tmp_path, layout, [{"id": first, "p": {gold[first]: 1.0}, "transient": flag}])
        with pytest.raises(AnswerFileError, match="'transient' must be true or false"):
            read_task_answers(path, layout, "sys")
    assert read(tmp_path, layout, [{"id": first, "p": {gold[first]: 1.0}, "transient": False}]).answered.sum() == 1


@pytest.mark.parametrize("line", ['{"id": "policy_case:00002", "p": {"deny": 1.0, "deny": 0.0, "allow": 1.0}}',
                                  '{"id": "policy_case:00002", "p": {"deny": 1.0}, "p": {"allow": 1.0}}',
                                  '{"id": "policy_case:00002", "id": "policy_case:00003", "p": {"deny": 1.0}}'])
def test_a_key_given_twice_in_a_record_is_refused(tmp_path: Path, layout: TaskLayout, line: str) -> None:
    """Red team, wave 5: JSON keeps the last of two equal keys, so a hand-edited record answered what its last
    value said; the reader refuses it, naming the line and the key, as the user-file schemas do."""
    path = answer_file(tmp_path, layout, [{"id": "policy_case:00001", "p": {"deny": 1}}])
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(AnswerFileError, match=r":2: key '(p|id|deny)' given twice"):
        read_task_answers(path, layout, "sys")


VALID_FIELDS = {"error": "timeout", "transient": False, "closed": True, "tokens": 3, "input_tokens": 5,
                "latency_s": 0.5, "queued_s": 0.1, "label_mass": 0.9, "interface_score": 1.5,
                "interface_confidence": 0.7, "request_sha256": "ab" * 32, "same_request_as": "policy_case:00000"}
"""A value a writer writes for each optional field of RECORD_FIELDS (``id`` and ``p`` are in every answer)."""
INVALID_FIELDS = {"queued_s": -1, "label_mass": 1.5, "interface_score": "high", "interface_confidence": math.inf,
                  "same_request_as": 3}
"""A value no writer writes for each field the runners keep and the scorer does not read."""


@pytest.mark.parametrize(("key", "nearest"), [("bogus", None), ("transiant", "transient"), ("erorr", "error"),
                                              ("latency", "latency_s"), ("P", None), ("", None)])
def test_a_key_no_writer_writes_is_refused_naming_the_line_the_key_and_the_nearest_field(
        tmp_path: Path, layout: TaskLayout, key: str, nearest: str | None) -> None:
    """A misspelt field was read as if absent: ``"transiant": true`` scored a server outage as the model's answer,
    ``"erorr"`` an error as a record without probabilities. Only the fields some writer writes are read."""
    path = answer_file(tmp_path, layout, [{"id": "policy_case:00001", "p": {"deny": 1}},
                                          {"id": "policy_case:00002", "p": {"deny": 1}, key: True}])
    with pytest.raises(AnswerFileError) as error:
        read_task_answers(path, layout, "sys")
    message = str(error.value)
    assert message.startswith(f"{path}:2: unknown field {key!r}")
    assert (f"(did you mean {nearest}?)" in message) if nearest else "did you mean" not in message
    assert message.endswith(", ".join(sorted(RECORD_FIELDS)))


@pytest.mark.parametrize("field", sorted(RECORD_FIELDS - {"id", "p"}))
def test_every_field_a_writer_writes_is_read_and_the_kept_ones_are_checked(
        tmp_path: Path, layout: TaskLayout, field: str) -> None:
    assert VALID_FIELDS.keys() | {"id", "p"} == RECORD_FIELDS and INVALID_FIELDS.keys() <= RECORD_FIELDS
    record = {"id": "policy_case:00000", "p": {"approve": 1.0}, field: VALID_FIELDS[field]}
    answers = read(tmp_path, layout, [record])
    assert answers.records == 1 and answers.failed[0] == (field == "error")
    if field in INVALID_FIELDS:
        path = answer_file(tmp_path, layout, [{**record, field: INVALID_FIELDS[field]}])
        with pytest.raises(AnswerFileError, match=rf"{re.escape(str(path))}:1: field '{field}' must be "):
            read_task_answers(path, layout, "sys")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.text(max_size=30).filter(lambda key: key not in RECORD_FIELDS),
       allowed=st.dictionaries(st.sampled_from(sorted(VALID_FIELDS)), st.just(None), max_size=4),
       at=st.integers(0, 4))
def test_any_other_key_is_refused_wherever_it_stands(tmp_path: Path, layout: TaskLayout, key: str,
                                                     allowed: dict[str, None], at: int) -> None:
    fields = [("id", "policy_case:00003"), ("p", {"deny": 1.0}), *((name, VALID_FIELDS[name]) for name in allowed)]
    fields.insert(min(at, len(fields)), (key, 0))
    path = answer_file(tmp_path, layout, [{"id": "policy_case:00001", "p": {"deny": 1}}])
    path.write_text(path.read_text() + json.dumps(dict(fields)) + "\n")
    with pytest.raises(AnswerFileError) as error:
        read_task_answers(path, layout, "sys")
    assert str(error.value).startswith(f"{path}:2: unknown field {repr(key)[:50]}")  # a long key is cut short
