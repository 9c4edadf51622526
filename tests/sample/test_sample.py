"""`dp sample` end to end: scripted chat answers of known correctness -> sampled answers -> capb items."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.reconstruct.capability import gsm8k_gold
from tests.evaluate.fake_openai_server import FakeOpenAI

OFFICIAL = Path(__file__).resolve().parent / "fixtures" / "capb_gsm8k"
"""GSM8K's official test.jsonl (MIT, its LICENSE beside it), gzipped: the card checks the file's SHA-256, so
the test needs the whole official file - and the licence lets the repository ship it."""
QUESTIONS = 12
N = 4


def source_folder(tmp_path: Path) -> Path:
    """A source folder holding the official GSM8K test file, as `dp reconstruct --source` expects."""
    folder = tmp_path / "source" / "capb_gsm8k"
    folder.mkdir(parents=True)
    with gzip.open(OFFICIAL / "test.jsonl.gz", "rb") as packed, (folder / "test.jsonl").open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    shutil.copy(OFFICIAL / "LICENSE", folder / "LICENSE")
    return tmp_path / "source"


def test_sampled_success_rates_are_the_scripted_ones(tmp_path: Path) -> None:
    source = source_folder(tmp_path)
    records = [json.loads(line) for line in (source / "capb_gsm8k" / "test.jsonl").read_text().splitlines()]
    questions = min(QUESTIONS, len(records))
    gold = {r["question"]: gsm8k_gold(r["answer"]) for r in records[:questions]}
    index = {r["question"]: i for i, r in enumerate(records[:questions])}
    # model "strong" is right on samples k < (i % 5) capped at N, "weak" only on sample 0 of even questions
    def correct(model: str, i: int, k: int) -> bool:
        return k < min(i % 5, N) if model == "strong" else (k == 0 and i % 2 == 0)

    def respond(payload: dict) -> dict:
        question = payload["messages"][-1]["content"]
        i, k = index[question], payload["seed"]
        assert payload["temperature"] == 0.9 and "final answer" in payload["messages"][0]["content"]
        answer = f"Step by step... so the answer is {gold[question] if correct(payload['model'], i, k) else -7}."
        return {"choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 80, "completion_tokens": 12}}

    with FakeOpenAI(respond=respond) as server:
        config = tmp_path / "systems.yaml"
        config.write_text(json.dumps({"systems": {
            name: {"kind": "chat", "base_url": server.base_url, "model": name, "concurrency": 4}
            for name in ("strong", "weak")}}))
        out = tmp_path / "sampled" / "gsm8k.jsonl"
        args = ["sample", "capb_gsm8k", "--systems", "strong,weak", "--config", str(config), "--source", str(source),
                "--n", str(N), "--temperature", "0.9", "--out", str(out), "--runs", str(tmp_path / "runs"),
                "--limit", str(questions)]
        main(args)
        first = out.read_bytes()
        main(args)  # a re-run resumes: nothing asked again, the same file
        assert out.read_bytes() == first
    samples = [json.loads(line) for line in first.decode().splitlines()]
    assert len(samples) == 2 * questions * N
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text())
    assert meta["models"] == ["strong", "weak"] and meta["samples_per_question"] == N and meta["temperature"] == 0.9
    built = tmp_path / "reference"
    main(["reconstruct", "capb_gsm8k", "--source", str(source), "--out", str(built), "--sampled-answers", str(out)])
    items = [json.loads(line) for line in (built / "capb_gsm8k.jsonl").read_text().splitlines()]
    assert len(items) == questions
    for item in items:
        i = int(item["question_id"].split("-")[1])
        expected = sum(correct(m, i, k) for m in ("strong", "weak") for k in range(N)) / (2 * N)
        assert item["success_rate"] == pytest.approx(expected) and item["samples"] == 2 * N
        assert item["sampled_by"]["models"] == ["strong", "weak"]


def test_sample_refuses_a_system_that_cannot_generate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = source_folder(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["sample", "capb_gsm8k", "--systems", "uniform", "--source", str(source), "--out",
              str(tmp_path / "o.jsonl")])
    assert exit_.value.code == 2 and "samples need a chat system" in capsys.readouterr().err


def test_a_changed_config_is_refused_and_restart_starts_afresh(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal names --restart, and dp sample has that flag (it once advised one it did not have)."""
    source = source_folder(tmp_path)

    def respond(payload: dict) -> dict:
        return {"choices": [{"message": {"role": "assistant", "content": "so the answer is 3."},
                             "finish_reason": "stop"}]}

    with FakeOpenAI(respond=respond) as server:
        config = tmp_path / "systems.yaml"
        config.write_text(json.dumps({"systems": {"m": {"kind": "chat", "base_url": server.base_url, "model": "m"}}}))
        args = ["sample", "capb_gsm8k", "--systems", "m", "--config", str(config), "--source", str(source),
                "--n", "2", "--out", str(tmp_path / "s.jsonl"), "--runs", str(tmp_path / "runs"), "--limit", "2"]
        main([*args, "--temperature", "0.9"])
        with pytest.raises(SystemExit) as refused:
            main([*args, "--temperature", "0.5"])
        assert refused.value.code == 2 and "--restart" in capsys.readouterr().err
        main([*args, "--temperature", "0.5", "--restart"])
    meta = json.loads((tmp_path / "s.jsonl.meta.json").read_text())
    assert meta["temperature"] == 0.5 and meta["samples"] == 4
    assert (tmp_path / "runs" / "m" / "samples" / "capb_gsm8k.jsonl.bak").exists()


@pytest.mark.parametrize(("task", "line", "message"), [
    ("capb_gsm8k", '{"question": "How many?"}', ":2: missing key 'answer'"),
    ("capb_gsm8k", '{"question": "How many?", "answer": "#### 3", "qustion": "x"}',
     ":2: unknown key 'qustion' (did you mean question?)"),
    ("capb_gsm8k", '{"question": "", "answer": "#### 3"}', ":2: question: expected the question's text"),
    ("capb_nq_open", '{"question": "who?", "answer": "Ada"}', ":2: answer: expected a non-empty list of answers"),
    ("capb_nq_open", '{"question": "who?", "answer": []}', ":2: answer: expected a non-empty list of answers"),
])
def test_question_files_are_read_by_their_schema(tmp_path: Path, task: str, line: str, message: str) -> None:
    """A line `dp reconstruct` cannot grade (no answer, a misspelled key, an empty question) was sampled - and
    paid for - before the grading refused it; dp sample refuses it first, naming the line."""
    from decisionpivot.errors import DecisionPivotError
    from decisionpivot.sample.run import TASKS, read_questions

    good = ('{"question": "How many?", "answer": "#### 3"}' if task == "capb_gsm8k"
            else '{"question": "who?", "answer": ["Ada"]}')
    path = tmp_path / TASKS[task].file
    path.write_text(f"{good}\n{line}\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=f"^{path}{message}".replace("?", r"\?").replace("(", r"\(")
                       .replace(")", r"\)")):
        read_questions(tmp_path, task)
    path.write_text(f"{good}\n\n{good}\n", encoding="utf-8")
    assert len(read_questions(tmp_path, task)) == 2
    path.write_text(f"\ufeff{good}\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match="starts with a byte-order mark"):
        read_questions(tmp_path, task)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match="no questions"):
        read_questions(tmp_path, task)
