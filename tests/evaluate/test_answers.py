"""Answer files: resume, torn lines, changed items refused, shards and merge, kill -9 safety."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import (
    AnswerFileError,
    AnswerWriter,
    Shard,
    answer_paths,
    merge_shards,
    read_answer_lines,
)
from decisionpivot.evaluate.kinds import RECORD_FIELDS, SAMPLE_FIELDS, SystemConfig
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import rebuild_manifest
from decisionpivot.items import read_items, sha256_file, write_items
from decisionpivot.sample.run import TASKS, SampleWire
from decisionpivot.scale.run import write_suite
from tests.evaluate.conftest import FAMILY, TIMING
from tests.evaluate.fake_decision_server import FakeDecisions, state_digest
from tests.evaluate.fake_openai_server import FakeOpenAI
from tests.evaluate.fault_server import FaultServer

UNIFORM = get_system("uniform")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_rerun_answers_only_what_is_missing(tmp_path: Path, items_dir: Path) -> None:
    runs = tmp_path / "runs"
    [first] = evaluate_system(UNIFORM, items_dir, runs, limit=10, progress=False)
    [second] = evaluate_system(UNIFORM, items_dir, runs, progress=False)
    assert (first.answered, second.already, second.answered) == (10, 10, 600)
    ids = [r["id"] for r in lines(second.path)]
    assert len(ids) == len(set(ids)) == 600
    meta = json.loads(second.path.with_name(f"{FAMILY}.meta.json").read_text())
    assert meta["runs"] == 2 and meta["items"] == 600 and meta["system"]["name"] == "uniform"


def test_torn_last_line_is_dropped_and_reanswered(tmp_path: Path, items_dir: Path) -> None:
    runs = tmp_path / "runs"
    [run] = evaluate_system(UNIFORM, items_dir, runs, limit=5, progress=False)
    with run.path.open("ab") as handle:
        handle.write(b'{"id": "fact_answerable:00005", "p": {"yes": 0.')
    assert [r["id"] for r in read_answer_lines(run.path, repair=False)][-1] == "fact_answerable:00004"
    [again] = evaluate_system(UNIFORM, items_dir, runs, limit=8, progress=False)
    assert [r["id"] for r in lines(again.path)] == [f"fact_answerable:{i:05d}" for i in range(8)]


def test_changed_items_file_is_refused_with_both_hashes(tmp_path: Path, items_dir: Path) -> None:
    runs = tmp_path / "runs"
    evaluate_system(UNIFORM, items_dir, runs, limit=3, progress=False)
    meta_path = runs / "uniform" / f"{FAMILY}.meta.json"
    meta = json.loads(meta_path.read_text())
    meta["items_sha256"] = "0" * 64
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(AnswerFileError, match=r"SHA-256 0{64}, but .* now has SHA-256 [0-9a-f]{64}"):
        evaluate_system(UNIFORM, items_dir, runs, limit=3, progress=False)


def test_duplicate_and_malformed_lines_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": "x", "p": {}}\n{"id": "x", "p": {}}\n')
    with pytest.raises(AnswerFileError, match=r"a\.jsonl:2: duplicate id 'x'"):
        read_answer_lines(path, repair=False)
    path.write_text('{"id": "x"}\nnot json\n')
    with pytest.raises(AnswerFileError, match=r"a\.jsonl:2: not valid JSON"):
        read_answer_lines(path, repair=False)


def test_shards_cover_every_item_once_and_merge(tmp_path: Path, items_dir: Path) -> None:
    runs = tmp_path / "runs"
    for i in range(3):
        evaluate_system(UNIFORM, items_dir, runs, shard=Shard(i, 3), progress=False)
    order = {FAMILY: [item.id for item in read_items(items_dir / f"{FAMILY}.jsonl")]}
    [(task, count, missing)] = merge_shards(runs, "uniform", order)
    assert (task, count, missing) == (FAMILY, 600, [])
    merged = lines(runs / "uniform" / f"{FAMILY}.jsonl")
    assert [r["id"] for r in merged] == order[FAMILY]
    meta = json.loads((runs / "uniform" / f"{FAMILY}.meta.json").read_text())
    assert meta["answers"] == 600 and len(meta["merged_from"]) == 3


@pytest.mark.parametrize("broken", ["{not json", "[]", '{"task": "x"}'])
def test_merge_with_a_broken_meta_file_is_one_error(tmp_path: Path, items_dir: Path, broken: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from decisionpivot.cli import main

    runs = tmp_path / "runs"
    for i in range(2):
        evaluate_system(UNIFORM, items_dir, runs, shard=Shard(i, 2), limit=4, progress=False)
    evaluate_system(UNIFORM, items_dir, runs, limit=2, progress=False)
    (runs / "uniform" / f"{FAMILY}.meta.json").write_text(broken)
    with pytest.raises(SystemExit) as stopped:
        main(["merge", "--system", "uniform", "--items", str(items_dir), "--runs", str(runs)])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("broken", ["not UTF-8", "a folder", "not JSON"])
def test_a_resume_over_a_broken_meta_file_is_one_error_naming_it(tmp_path: Path, items_dir: Path,
                                                                 broken: str) -> None:
    """The meta file beside earlier answers, broken in any way, is one error that names it and says how to go
    on (a folder or a non-UTF-8 file was a traceback)."""
    runs = tmp_path / "runs"
    evaluate_system(UNIFORM, items_dir, runs, limit=2, progress=False)
    meta = runs / "uniform" / f"{FAMILY}.meta.json"
    if broken == "a folder":
        meta.unlink()
        meta.mkdir()
        expected = "is a folder, expected a file"
    else:
        meta.write_bytes(b'{"task": "\xff"}' if broken == "not UTF-8" else b"{not json")
        expected = "not valid UTF-8 (byte 10" if broken == "not UTF-8" else ":1: not valid JSON"
    with pytest.raises(AnswerFileError) as caught:
        evaluate_system(UNIFORM, items_dir, runs, progress=False)
    message = str(caught.value)
    assert message.startswith(str(meta)) and expected in message
    assert message.endswith("; start over with --restart (the old answers are kept as .bak)")


def test_merge_names_a_missing_shard_meta_file(tmp_path: Path, items_dir: Path) -> None:
    runs = tmp_path / "runs"
    for i in range(2):
        evaluate_system(UNIFORM, items_dir, runs, shard=Shard(i, 2), limit=4, progress=False)
    [shard_meta, *_] = sorted((runs / "uniform" / "shards").glob("*.meta.json"))
    shard_meta.unlink()
    order = {FAMILY: [item.id for item in read_items(items_dir / f"{FAMILY}.jsonl")]}
    with pytest.raises(AnswerFileError, match=rf"^{shard_meta}: not found \(without it, which items .* answers is "
                                              r"unknown\)$"):
        merge_shards(runs, "uniform", order)


def test_shard_syntax_is_checked() -> None:
    assert Shard.parse("2/4") == Shard(2, 4)
    for bad in ("4/4", "a/b", "3", "-1/2"):
        with pytest.raises(AnswerFileError):
            Shard.parse(bad)


def test_plugin_errors_are_recorded_per_item(tmp_path: Path, items_dir: Path) -> None:
    module = tmp_path / "bad_plugin.py"
    module.write_text(
        "def decide(items):\n"
        "    out = []\n"
        "    for i, item in enumerate(items):\n"
        "        out.append([{'yes': 1.0, 'no': 0.0}, {'yes': float('nan'), 'no': 1.0}, None,\n"
        "                    ValueError('boom'), {'yes': 1.0}][i % 5])\n"
        "    return out\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        config = tmp_path / "s.yaml"
        config.write_text("systems:\n  bad: {kind: python, callable: 'bad_plugin:decide'}\n")
        [run] = evaluate_system(get_system("bad", config), items_dir, tmp_path / "runs", limit=5, progress=False)
    finally:
        sys.path.remove(str(tmp_path))
    got = lines(run.path)
    assert "p" in got[0]
    assert "not a finite number" in got[1]["error"] and "no answer" in got[2]["error"]
    assert "ValueError: boom" in got[3]["error"] and "misses option(s) ['no']" in got[4]["error"]


def test_plugin_that_cannot_be_imported_is_a_clear_error(tmp_path: Path, items_dir: Path) -> None:
    config = tmp_path / "s.yaml"
    config.write_text("systems:\n  bad: {kind: python, callable: 'no_such_module:decide'}\n")
    with pytest.raises(DecisionPivotError, match="cannot import 'no_such_module'"):
        evaluate_system(get_system("bad", config), items_dir, tmp_path / "runs", limit=1, progress=False)


def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path: Path, items_dir: Path) -> None:
    limit = 120
    with FakeOpenAI(latency_s=0.03) as server:
        config = tmp_path / "systems.yaml"
        config.write_text(json.dumps({"systems": {"fake": {"kind": "chat", "base_url": server.base_url,
                                                           "model": "fake", "concurrency": 4}}}))
        args = [sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "fake", "--config", str(config),
                "--items", str(items_dir), "--limit", str(limit)]
        killed_runs = tmp_path / "killed"
        answers = killed_runs / "fake" / f"{FAMILY}.jsonl"
        proc = subprocess.Popen([*args, "--runs", str(killed_runs)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if answers.exists() and answers.read_bytes().count(b"\n") >= 30:
                break
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = answers.read_bytes().count(b"\n")
        assert 30 <= partial < limit, "the run should have been killed mid-way"
        resumed = subprocess.run([*args, "--runs", str(killed_runs)], capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        clean_runs = tmp_path / "clean"
        clean = subprocess.run([*args, "--runs", str(clean_runs)], capture_output=True, text=True, timeout=120)
        assert clean.returncode == 0, clean.stderr

    def answers_by_id(path: Path) -> dict[str, dict]:
        recs = lines(path)
        assert len(recs) == len({r["id"] for r in recs}) == limit
        return {r["id"]: {k: v for k, v in r.items() if k not in TIMING} for r in recs}

    assert answers_by_id(answers) == answers_by_id(clean_runs / "fake" / f"{FAMILY}.jsonl")


def test_the_writer_never_writes_a_record_the_scorer_would_refuse(tmp_path: Path, items_dir: Path) -> None:
    """Every runner and importer writes through AnswerWriter: a record holding a key that is not a field of the
    format (RECORD_FIELDS) is refused there, naming the file, the item and the key, and nothing of it is written.
    ``dp sample``'s writer takes its own fields (a sampled ``text``, no ``p``)."""
    items = items_dir / f"{FAMILY}.jsonl"
    first, second = (item.id for item in read_items(items)[:2])

    def writer(name: str, fields: frozenset[str] = RECORD_FIELDS) -> AnswerWriter:
        path, meta = answer_paths(tmp_path / "runs", name, FAMILY)
        opened, _ = AnswerWriter.open(path, meta, task=FAMILY, items_file=items, items_sha256=sha256_file(items),
                                      system=UNIFORM, shard=None, fields=fields)
        return opened

    answers = writer("uniform")
    try:
        with pytest.raises(AnswerFileError, match=rf"uniform/{FAMILY}\.jsonl: the record of '{first}' was not "
                                                  r"written: unknown field 'transiant' \(did you mean transient\?\)"):
            answers.write({"id": first, "error": "HTTP 503", "transiant": True})
        with pytest.raises(AnswerFileError, match="unknown field 'text'"):
            answers.write({"id": first, "text": "42"})
        answers.write({"id": second, "p": {"yes": 0.5, "no": 0.5}, "latency_s": 0.1})
    finally:
        answers.close(items=2, retries=0, finished=False)
    assert [r["id"] for r in lines(answers.path)] == [second]
    samples = writer("sampler", SAMPLE_FIELDS)
    try:
        samples.write({"id": first, "text": "42", "closed": True})
        with pytest.raises(AnswerFileError, match="unknown field 'p'"):
            samples.write({"id": second, "p": {"yes": 1.0}})
    finally:
        samples.close(items=2, retries=0, finished=False)
    assert lines(samples.path) == [{"id": first, "text": "42", "closed": True}]


def test_the_writers_write_every_record_field_and_no_other(tmp_path: Path, items_dir: Path) -> None:
    """RECORD_FIELDS is what the runners write, no more and no less: a baseline, the chat kind, System One on score
    questions with vLLM's diagnostics, and an HTTP kind asking each request once with a transient failure together
    write every field of the allow-list, and nothing else (dp sample's wire: its own fields)."""
    written: dict[str, str] = {}

    def keep(label: str, path: Path) -> None:
        for record in lines(path):
            for key in record:
                written.setdefault(key, label)

    [run] = evaluate_system(UNIFORM, items_dir, tmp_path / "runs", limit=2, progress=False)
    keep("baseline", run.path)
    with FakeOpenAI() as server:
        chat = _declared(tmp_path, "chat", {"kind": "chat", "base_url": server.base_url, "model": "fake"})
        [run] = evaluate_system(chat, items_dir, tmp_path / "runs", limit=3, progress=False)
    keep("chat", run.path)
    scale = tmp_path / "scale"
    write_suite(scale, names=["support_priority"])
    with FakeDecisions("systemone", plan=lambda digest: "diagnostics") as server:
        decider = _declared(tmp_path, "decider", {"kind": "systemone", "base_url": server.base_url,
                                                  "model": "fake-decider"})
        [run] = evaluate_system(decider, scale, tmp_path / "runs", limit=3, progress=False)
    keep("systemone", run.path)
    repeated = tmp_path / "repeated"
    repeated.mkdir()
    first = read_items(items_dir / f"{FAMILY}.jsonl")[:3]
    write_items(repeated / f"{FAMILY}.jsonl", [*first, *(replace(item, id=f"{item.id}~again") for item in first)])
    rebuild_manifest(repeated, RELEASE_SEED, [FAMILY])
    failing = state_digest(first[0].state)
    with FaultServer(lambda digest, attempt: "status:500" if digest == failing and attempt == 1 else "ok") as server:
        once = _declared(tmp_path, "once", {"kind": "systemone", "base_url": server.base_url, "model": "fake-decider",
                                            "ask_each_request_once": True, "max_attempts": 1,
                                            "stop_after_failures": 1000, "backoff_base_s": 0.01})
        [run] = evaluate_system(once, repeated, tmp_path / "runs", progress=False, allow_modified_items=True)
    keep("ask once", run.path)
    assert set(written) == RECORD_FIELDS, {key: written.get(key) for key in set(written) ^ RECORD_FIELDS}
    reply = {"choices": [{"message": {"content": "42"}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 30, "completion_tokens": 2}}
    sampled = SampleWire(chat, TASKS["capb_gsm8k"]).parse(first[0], reply)
    assert sampled.keys() <= SAMPLE_FIELDS and sampled["text"] == "42"


def _declared(tmp_path: Path, name: str, settings: dict[str, object]) -> SystemConfig:
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps({"systems": {name: settings}}))
    return get_system(name, path)


def test_the_documented_record_fields_are_the_allow_list() -> None:
    """docs/evaluate-faults.md's table of what a record holds names every field of RECORD_FIELDS and no other."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "evaluate-faults.md").read_text(encoding="utf-8")
    section = text.split("## What a record holds", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    assert {name for row in rows for name in re.findall(r"`([a-z_0-9]+)`", row)} == RECORD_FIELDS
