"""capb_gsm8k (layer A): will a chat model's sampled answer to this GSM8K test question be correct?

Item: one question of GSM8K ``test.jsonl`` (the question text as state) that has sampled answers in
the sampled-answers file (``--sampled-answers``, ids ``gsm8k-<0-based line index>``, see
``reconstruct/capability.py``). Options success / failure; no gold option (answer None): the label
is ``extra.success_rate`` = share of samples whose last number equals the number after ``####`` in
the gold solution, with ``extra.samples`` (count) and ``extra.question_id``. Without a
sampled-answers file the task raises MissingInputError (skipped by ``dp reconstruct --all``).
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.capability import (
    Sample,
    capability_items,
    grade_gsm8k,
    gsm8k_gold,
    read_samples,
    require_sampled_answers,
    sampling_provenance,
    success_rates,
)
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import MissingInputError
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "test.jsonl"
PREFIX = "gsm8k"


def convert(source: SourceFolder, card: TaskCard, **inputs: Any) -> list[Item]:
    path = require_sampled_answers(card.id, inputs)
    questions: list[str] = []
    golds: list[str] = []
    for number, record in enumerate(source.jsonl(FILE), start=1):
        if not isinstance(record, dict) or not isinstance(record.get("question"), str) \
                or not isinstance(record.get("answer"), str):
            raise SourceError(f"{source.path(FILE)}: record {number} lacks string 'question' and 'answer'")
        try:
            golds.append(gsm8k_gold(record["answer"]))
        except ValueError as exc:
            raise SourceError(f"{source.path(FILE)}: record {number}: {exc}") from None
        questions.append(record["question"])
    samples = read_samples(path, PREFIX, len(questions))
    if not samples:
        raise MissingInputError(f"{card.id} needs sampled answers: {path} has none with ids {PREFIX}-<line index>")

    def grade(sample: Sample) -> bool:
        return grade_gsm8k(sample.answer, golds[sample.question])

    return capability_items(card, questions, success_rates(samples, grade), PREFIX, sampling_provenance(path))
