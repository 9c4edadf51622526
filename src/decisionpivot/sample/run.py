"""`dp sample`: draw N answers per question from chat systems for the capability-boundary tasks.

The capability-boundary tasks (``capb_gsm8k``, ``capb_nq_open``) ask a decision model whether a chat
model will answer a public question correctly; their label is the success rate of sampled answers
(:mod:`decisionpivot.reconstruct.capability`). This verb makes those samples with the same runner as
``dp evaluate`` - concurrency, adaptive in-flight limit, retries, rate limits, the answer-file lock and
fingerprint, resume after a crash - from one or more systems of kind ``chat`` declared like any other:

1. the questions are read from the official file in ``--source`` (GSM8K ``test.jsonl``, NQ-open
   ``NQ-open.dev.jsonl``; ``--limit`` takes the first Q);
2. each question is asked ``n`` times per system at ``temperature`` (request ``seed`` = sample number,
   for servers that honour it), with the task's instruction (GSM8K: end with the final number; NQ-open:
   a short answer only, since it is graded by exact match); records go to
   ``runs/<system>/samples/<task>.jsonl`` (resumable) and unusable replies are error records;
3. the sampled-answers file (``--out``; JSON Lines ``{question_id, model, answer}``, the format ``dp
   reconstruct --sampled-answers`` reads) is written atomically with ``<out>.meta.json`` beside it:
   the models, ``n``, the temperature, the date and the counts, which the reconstructed items carry as
   ``extra.sampled_by``.

Then ``dp reconstruct capb_gsm8k --source DIR --sampled-answers OUT`` grades them (GSM8K final number,
NQ-open normalised exact match) into items whose ``success_rate`` is the share of correct samples.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from decisionpivot.data_file import read_text_file
from decisionpivot.errors import DecisionPivotError, check_names
from decisionpivot.evaluate.answers import AnswerWriter, answer_paths, now
from decisionpivot.evaluate.chat import ChatWire, completion_message, content_text
from decisionpivot.evaluate.http import HttpRunner
from decisionpivot.evaluate.kinds import SAMPLE_FIELDS, Record, RunCounters, SystemConfig
from decisionpivot.evaluate.prompt import ReplyError
from decisionpivot.items import Item, Option, atomic_write_bytes, sha256_file
from decisionpivot.user_files import check_schema, listing, no_bom, nonempty_text, question_schema


@dataclass(frozen=True)
class SampleTask:
    """What to ask for one capability-boundary task."""

    file: str
    """Official question file inside the source folder."""
    prefix: str
    """Question-id prefix (``gsm8k-0007``: line 7, counting from 0)."""
    instruction: str
    """System message of every request."""
    answer: Mapping[str, Any]
    """JSON Schema of a line's ``answer`` (what `dp reconstruct` grades the samples against)."""


TASKS = {
    "capb_gsm8k": SampleTask("test.jsonl", "gsm8k", "Solve the math word problem. Think step by step if you "
                             "like, then end your reply with the final answer as a plain number.",
                             nonempty_text("the worked solution, ending in '#### <number>'")),
    "capb_nq_open": SampleTask("NQ-open.dev.jsonl", "nq_open", "Answer the question with a short answer only: "
                               "a few words, no sentence, no explanation.",
                               listing(nonempty_text("an answer"), "a non-empty list of answers", min_items=1)),
}


@dataclass(frozen=True)
class SampledSystem:
    """What one system's sampling gave."""

    system: str
    """System name."""
    model: str
    """The model name recorded in the sampled-answers file."""
    samples: int
    """Samples with an answer text."""
    errors: int
    """Samples that ended as error records."""
    path: Path
    """The system's resumable samples file (runs/<system>/samples/<task>.jsonl)."""


def read_questions(source: Path, task: str) -> list[str]:
    """The questions of the task's official file, one JSON object per line, each read by
    :func:`~decisionpivot.user_files.question_schema` (``question`` and the task's ``answer``, no other key: a line
    `dp reconstruct` could not grade is refused before a sample is paid for); blank lines are skipped."""
    spec = TASKS[task]
    folder = source / task if (source / task / spec.file).exists() else source
    path = folder / spec.file
    if not path.is_file():
        raise DecisionPivotError(f"{path}: no such file (the official question file of {task})")
    schema = question_schema(spec.answer)
    questions = []
    content = no_bom(read_text_file(path, f"the official question file of {task}"), path)
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise DecisionPivotError(f"{path}:{number}: not valid JSON") from None
        except RecursionError:
            raise DecisionPivotError(f"{path}:{number}: not valid JSON (nested too deeply)") from None
        check_schema(schema, record, f"{path}:{number}", None)
        questions.append(record["question"])
    if not questions:
        raise DecisionPivotError(f"{path}: no questions (expected one JSON object per line)")
    return questions


def sample_id(prefix: str, index: int, k: int) -> str:
    return f"{prefix}-{index:04d}/{k}"


class SampleWire(ChatWire):
    """A chat request for one sample of one question; the reply's whole text is the answer."""

    def __init__(self, system: SystemConfig, task: SampleTask) -> None:
        super().__init__(system)
        self.task = task

    def refused(self, item: Item) -> str | None:
        return None  # a question alone: no limit to check

    def request(self, item: Item) -> dict[str, Any]:
        s = self.settings
        return {"model": s["model"], "temperature": s["temperature"], "max_tokens": s["max_tokens"],
                "seed": int(item.id.rsplit("/", 1)[1]),
                "messages": [{"role": "system", "content": self.task.instruction},
                             {"role": "user", "content": str(item.state)}]}

    def parse(self, item: Item, body: Any) -> Record:
        message, extra = completion_message(body)
        try:
            text = content_text(message.get("content"))
        except ReplyError as exc:
            return {"id": item.id, "error": str(exc), **extra}
        if not text.strip():
            return {"id": item.id, "error": "empty reply", **extra}
        if not extra["closed"]:
            return {"id": item.id, "error": "reply cut off at max_tokens", **extra}
        return {"id": item.id, "text": text, **extra}


def _questions_as_items(task: str, questions: Sequence[str], n: int) -> list[Item]:
    prefix = TASKS[task].prefix
    option = (Option("answer", "the sampled answer"),)
    return [Item(id=sample_id(prefix, i, k), family=task, layer="A", version="sample", group=None, level=None,
                 variation=None, domain=None, state=question, question="", options=option, answer=None)
            for i, question in enumerate(questions) for k in range(n)]


def _sample_system(system: SystemConfig, task: str, items: list[Item], question_file: Path, n: int,
                   temperature: float, runs: Path, progress: bool | None,
                   restart: bool = False) -> tuple[SampledSystem, list[str]]:
    """One system's samples (resuming its samples file) and its lines of the sampled-answers file."""
    sampler = replace(system, settings={**system.settings, "temperature": float(temperature)})
    path, meta = answer_paths(runs, system.name, task)
    path, meta = path.parent / "samples" / path.name, meta.parent / "samples" / meta.name
    writer, done = AnswerWriter.open(path, meta, task=task, items_file=question_file,
                                     items_sha256=sha256_file(question_file), system=sampler, shard=None,
                                     restart=restart, extra_meta={"samples_per_question": n}, fields=SAMPLE_FIELDS)
    todo = [item for item in items if item.id not in done]
    counters = RunCounters()
    finished = False
    raw = path.with_name(f"{task}.raw.jsonl")

    def raw_log(entry: Record) -> None:
        with raw.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")

    try:
        with tqdm(total=len(todo), desc=f"{system.name} {task}", unit="sample", leave=False,
                  disable=True if progress is False else None) as bar:

            def emit(record: Record) -> None:
                writer.write(record)
                bar.update(1)

            HttpRunner(sampler, SampleWire(sampler, TASKS[task])).run(todo, emit, counters, raw_log)
        finished = True
    finally:
        writer.close(items=len(items), retries=counters.retries, finished=finished)
    wanted = {item.id for item in items}
    records = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if r["id"] in wanted}
    model = str(system.settings["model"])
    lines = []
    for item in items:  # question order, then sample number: the file's bytes do not depend on timing
        record = records.get(item.id, {})
        if "text" in record:
            lines.append(json.dumps({"question_id": item.id.rsplit("/", 1)[0], "model": model,
                                     "answer": record["text"]}, ensure_ascii=False))
    return SampledSystem(system.name, model, len(lines), len(items) - len(lines), path), lines


def sample_answers(task: str, source: str | Path, systems: Sequence[SystemConfig], n: int, temperature: float,
                   out: str | Path, runs: str | Path = "runs", limit: int | None = None,
                   progress: bool | None = None, restart: bool = False) -> list[SampledSystem]:
    """Sample, resume, and write the sampled-answers file (see the module docstring).

    ``restart`` starts each system's samples afresh (the old ones kept as a backup), as ``dp evaluate
    --restart`` does; needed when a system's config changed since its samples were made.
    """
    if task not in TASKS:
        check_names("task", [task], sorted(TASKS), where="dp sample makes samples for the capability-boundary tasks")
    if n < 1:
        raise DecisionPivotError(f"--n must be at least 1, got {n}")
    if temperature < 0:
        raise DecisionPivotError(f"--temperature must be 0 or more, got {temperature}")
    if not systems:
        raise DecisionPivotError("name at least one chat system with --systems")
    for system in systems:
        if system.kind != "chat":
            raise DecisionPivotError(f"system {system.name!r} is {system.kind}: samples need a chat system")
    source = Path(source)
    questions = read_questions(source, task)
    if limit is not None:
        if limit < 1:
            raise DecisionPivotError(f"--limit must be at least 1, got {limit}")
        questions = questions[:limit]
    items = _questions_as_items(task, questions, n)
    spec = TASKS[task]
    question_file = source / task / spec.file if (source / task / spec.file).exists() else source / spec.file
    results = []
    lines: list[str] = []
    for system in systems:
        result, answered = _sample_system(system, task, items, question_file, n, temperature, Path(runs), progress,
                                          restart)
        results.append(result)
        lines += answered
    out = Path(out)
    atomic_write_bytes(out, ("".join(line + "\n" for line in lines)).encode("utf-8"))
    provenance = {"task": task, "models": [r.model for r in results], "systems": [r.system for r in results],
                  "samples_per_question": n, "temperature": float(temperature), "date": now(),
                  "questions": len(questions), "samples": sum(r.samples for r in results),
                  "errors": sum(r.errors for r in results)}
    atomic_write_bytes(out.with_name(out.name + ".meta.json"),
                       (json.dumps(provenance, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return results
