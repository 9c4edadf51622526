"""capb_nq_open (layer A): will a chat model's sampled answer to this NQ-open dev question be correct?

Item: one question of ``NQ-open.dev.jsonl`` (the question text as state) that has sampled answers in
the sampled-answers file (``--sampled-answers``, ids ``nq_open-<0-based line index>``, see
``reconstruct/capability.py``). Options success / failure; no gold option (answer None): the label
is ``extra.success_rate`` = share of samples whose SQuAD-normalised text exactly matches any gold
answer, with ``extra.samples`` (count) and ``extra.question_id``. Without a sampled-answers file the
task raises MissingInputError (skipped by ``dp reconstruct --all``).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.capability import (
    Sample,
    capability_items,
    grade_nq_open,
    read_samples,
    require_sampled_answers,
    sampling_provenance,
    success_rates,
)
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import MissingInputError
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "NQ-open.dev.jsonl"
PREFIX = "nq_open"


def convert(source: SourceFolder, card: TaskCard, **inputs: Any) -> list[Item]:
    path = require_sampled_answers(card.id, inputs)
    questions: list[str] = []
    golds: list[list[str]] = []
    for number, record in enumerate(source.jsonl(FILE), start=1):
        answers = record.get("answer") if isinstance(record, dict) else None
        if not isinstance(record, dict) or not isinstance(record.get("question"), str) \
                or not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
            raise SourceError(f"{source.path(FILE)}: record {number} lacks a string 'question' "
                              "and a non-empty list of string answers")
        questions.append(record["question"])
        golds.append(answers)
    samples = read_samples(path, PREFIX, len(questions))
    if not samples:
        raise MissingInputError(f"{card.id} needs sampled answers: {path} has none with ids {PREFIX}-<line index>")

    def grade(sample: Sample) -> bool:
        return grade_nq_open(sample.answer, golds[sample.question])

    return capability_items(card, questions, success_rates(samples, grade), PREFIX, sampling_provenance(path))
