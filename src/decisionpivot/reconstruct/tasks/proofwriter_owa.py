"""proofwriter_owa (layer E): does the theory prove, refute, or leave open the statement? (ProofWriter OWA, depth 5).

Official file: ``meta-test.jsonl`` of ``OWA/depth-5`` in the ProofWriter release (V2020.12.3) - one
JSON object per theory: ``{"id", "maxD", "NFact", "NRule", "theory", "triples", "rules",
"questions": {"Q1": {"question", "answer", "QDep", "QLen", "strategy", "proofs", ...}, ...}}``.
One item per question, in file order and then in the order of the ``questions`` object. The state
is the theory text and the question (a statement); the answer maps ``true`` -> ``true``, ``false``
-> ``false``, ``"Unknown"`` -> ``unknown`` (booleans or the strings True/False/Unknown are both
accepted). The theory id is the item's group (questions of one theory are resampled together), and
the question depth ``QDep`` is kept in ``extra``.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "meta-test.jsonl"
LABELS = {"true": "true", "false": "false", "unknown": "unknown"}


def _label(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return LABELS.get(value.strip().lower())
    return None


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for line, record in enumerate(source.jsonl(FILE), start=1):
        if not isinstance(record, dict) or not isinstance(record.get("questions"), dict) \
                or not isinstance(record.get("theory"), str):
            raise SourceError(f"{source.path(FILE)}:{line}: expected an object with 'theory' and 'questions'")
        theory_id = str(record.get("id", line))
        for key, question in record["questions"].items():
            answer = _label(question.get("answer")) if isinstance(question, dict) else None
            if answer is None:
                raise SourceError(f"{source.path(FILE)}:{line}: question {key!r} of {theory_id} has no "
                                  "True/False/Unknown answer")
            state = {"theory": record["theory"], "statement": question["question"]}
            items.append(reference_item(card, state, answer, group=theory_id,
                                        extra={"source_id": f"{theory_id}-{key}", "qdep": question.get("QDep")}))
    return items
