"""Capability-boundary labels: grade sampled chat answers and derive per-question success rates.

The capability-boundary tasks (``capb_gsm8k``, ``capb_nq_open``) ask a decision model whether a chat
model will answer a public question correctly. Their label is the success rate ``s`` of sampled
answers of public chat models, graded automatically:

* GSM8K: the final number after ``####`` in the gold solution against the LAST number in the
  sampled answer text (commas, ``$`` and trailing zero decimals such as ``.0`` are normalised; the
  numbers are compared as decimals, so ``18``, ``18.0``, ``$18`` and ``18.00`` agree).
* NQ-open: normalised exact match of the whole answer text against ANY gold answer, with the SQuAD
  normalisation (lower-case, strip punctuation, drop the articles a/an/the, collapse whitespace;
  after Unicode NFD, as the NQ-open evaluation script does).

The sampled answers are an input file (JSON Lines, optionally gzip-compressed) with one record per
sample: ``{"question_id": ..., "model": ..., "answer": ...}``. Question ids are the 0-based line
index in the official question file with a task prefix: ``gsm8k-0007`` is line 7 (counting from 0)
of GSM8K ``test.jsonl``; ``nq_open-0007`` is line 7 of ``NQ-open.dev.jsonl``. One file may carry
answers for both tasks; each task reads the ids with its own prefix and ignores the rest.

The answers are not released; the derived success rates are (as ``extra.success_rate`` with the
number of samples in ``extra.samples``). The metric is the Brier skill ``1 - Brier`` of predicted
P(success) against ``s``, with chance baseline ``1 - Var(s)`` (the Brier score of always predicting
the mean success rate).
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import MissingInputError, ReconstructionError, reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

NUMBER = re.compile(r"(?:(?<![\w.])-)?(?:\d[\d,]*(?:\.\d+)?|\.\d+)")
"""A number in free text: optional sign (not after a word character, so ``2-3`` gives ``3``),
digits with thousands commas, optional decimals."""

ARTICLES = re.compile(r"\b(a|an|the)\b")
PUNCTUATION = frozenset(string.punctuation)


# ---------------------------------------------------------------- grading

def normalize_number(text: str) -> str | None:
    """A number string without ``$``, thousands commas, surrounding space or trailing zero decimals.

    ``"$1,450,000"`` -> ``"1450000"``, ``"18.0"`` -> ``"18"``, ``"-0.50"`` -> ``"-0.5"``; None when the
    text is not a number.
    """
    cleaned = text.strip().replace("\u2212", "-").replace("$", "").replace(",", "").strip()
    cleaned = cleaned.rstrip(".")
    if not cleaned:
        return None
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def gsm8k_gold(solution: str) -> str:
    """The final answer of a GSM8K gold solution: the number after the last ``####``, normalised."""
    if "####" not in solution:
        raise ValueError("GSM8K solution has no '####' final answer")
    final = solution.rsplit("####", 1)[1]
    number = normalize_number(final)
    if number is None:
        raise ValueError(f"GSM8K final answer {final.strip()!r} is not a number")
    return number


def last_number(text: str) -> str | None:
    """The last number in free text, normalised (None when the text holds no number)."""
    text = text.replace("\u2212", "-")
    for match in reversed(NUMBER.findall(text)):
        number = normalize_number(match)
        if number is not None:
            return number
    return None


def grade_gsm8k(answer: str, gold: str) -> bool:
    """Whether the last number of a sampled answer equals the gold final number (``gsm8k_gold``)."""
    predicted = last_number(answer)
    return predicted is not None and Decimal(predicted) == Decimal(gold)


def normalize_answer(text: str) -> str:
    """SQuAD answer normalisation: lower-case, drop punctuation and articles, collapse whitespace.

    As in the NQ-open evaluation script (ORQA ``eval_utils.normalize_answer``), the text is first put in
    Unicode NFD form, so composed and decomposed accents compare equal.
    """
    text = unicodedata.normalize("NFD", text).lower()
    text = "".join(ch for ch in text if ch not in PUNCTUATION)
    text = ARTICLES.sub(" ", text)
    return " ".join(text.split())


def grade_nq_open(answer: str, golds: Sequence[str]) -> bool:
    """Normalised exact match of the whole answer against any gold answer."""
    predicted = normalize_answer(answer)
    return any(predicted == normalize_answer(gold) for gold in golds)


# ---------------------------------------------------------------- sampled answers

@dataclass(frozen=True)
class Sample:
    """One sampled answer of one model to one question."""

    question: int
    """0-based line index of the question in the official file."""
    model: str
    """Model that produced the answer."""
    answer: str
    """Answer text as sampled."""


def question_id(prefix: str, index: int) -> str:
    """``gsm8k-0007`` style id of the question on 0-based line ``index``."""
    return f"{prefix}-{index:04d}"


def require_sampled_answers(task: str, inputs: dict[str, Any]) -> Path:
    """The sampled-answers path from the converter inputs; MissingInputError (task skipped) when absent."""
    value = inputs.get("sampled_answers")
    if not value:
        raise MissingInputError(
            f"{task} needs a sampled-answers file (JSON Lines: question_id, model, answer); "
            "pass it with --sampled-answers FILE. The official files hold only the questions.")
    path = Path(value)
    if not path.is_file():
        raise ReconstructionError(f"{task}: sampled-answers file {path} not found")
    return path


def read_samples(path: Path, prefix: str, questions: int) -> list[Sample]:
    """The samples in ``path`` whose question id has ``prefix``, in file order (others are ignored)."""
    pattern = re.compile(rf"{re.escape(prefix)}-(\d+)")
    folder = SourceFolder(path.parent)
    text = folder.text(path.name)
    samples = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SourceError(f"{where}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise SourceError(f"{where}: expected a JSON object with question_id, model, answer")
        qid, model, answer = record.get("question_id"), record.get("model"), record.get("answer")
        if not isinstance(qid, str):
            raise SourceError(f"{where}: field 'question_id' should be a string, found {qid!r}")
        match = pattern.fullmatch(qid)
        if match is None:
            if qid.startswith(f"{prefix}-"):
                raise SourceError(f"{where}: question id {qid!r} is not {prefix}-<line index>")
            continue
        if not isinstance(model, str) or not model:
            raise SourceError(f"{where}: field 'model' should be a non-empty string, found {model!r}")
        if not isinstance(answer, str):
            raise SourceError(f"{where}: field 'answer' should be a string, found {answer!r}")
        index = int(match.group(1))
        if index >= questions:
            raise SourceError(f"{where}: question id {qid!r} is beyond the {questions} questions of the file")
        samples.append(Sample(index, model, answer))
    return samples


def success_rates(samples: Sequence[Sample], grade: Callable[[Sample], bool]) -> dict[int, tuple[float, int]]:
    """Per question index: (share of correct samples, number of samples), in question order."""
    correct: dict[int, int] = {}
    total: dict[int, int] = {}
    for sample in samples:
        total[sample.question] = total.get(sample.question, 0) + 1
        correct[sample.question] = correct.get(sample.question, 0) + int(grade(sample))
    return {q: (correct[q] / total[q], total[q]) for q in sorted(total)}


PROVENANCE_KEYS = ("models", "samples_per_question", "temperature", "date")


def sampling_provenance(path: Path) -> dict[str, Any] | None:
    """Who sampled the answers (models, samples per question, temperature, date), from the
    ``<file>.meta.json`` that ``dp sample`` writes beside a sampled-answers file; None without one."""
    meta = path.with_name(path.name + ".meta.json")
    if not meta.is_file():
        return None
    try:
        record = json.loads(meta.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise SourceError(f"{meta}: not valid JSON") from None
    if not isinstance(record, dict) or any(key not in record for key in PROVENANCE_KEYS):
        raise SourceError(f"{meta}: expected the keys {list(PROVENANCE_KEYS)} (as `dp sample` writes them)")
    return {key: record[key] for key in PROVENANCE_KEYS}


def capability_items(card: TaskCard, questions: Sequence[str], rates: dict[int, tuple[float, int]],
                     prefix: str, provenance: dict[str, Any] | None = None) -> list[Item]:
    """One item per question with at least one sample: the question as state, the success rate as label
    (and, when known, who sampled the answers as ``extra.sampled_by``)."""
    items = []
    for index, (rate, n) in rates.items():
        extra: dict[str, Any] = {"question_id": question_id(prefix, index), "samples": n, "success_rate": rate}
        if provenance is not None:
            extra["sampled_by"] = provenance
        items.append(reference_item(card, questions[index], None, extra=extra))
    return items


def brier_skill_chance(rates: Sequence[float]) -> float:
    """The chance baseline ``1 - Var(s)`` (population variance) of success rates."""
    if not rates:
        raise ValueError("no success rates")
    mean = sum(rates) / len(rates)
    return 1.0 - sum((s - mean) ** 2 for s in rates) / len(rates)
