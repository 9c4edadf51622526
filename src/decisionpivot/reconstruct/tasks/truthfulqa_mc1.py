"""truthfulqa_mc1 (layer C): pick the one true answer among the choices (TruthfulQA MC1).

Official file: ``v1/mc_task.json``, the original 817-question release (``data/v1/mc_task.json`` in
sylinrl/TruthfulQA; before commit f6be04e of 2025-01-14 it was ``data/mc_task.json``) - a JSON array
of ``{"question", "mc1_targets": {choice: 0/1, ...}, "mc2_targets": {...}}`` with exactly one choice
marked 1 in ``mc1_targets``. The official order puts the true answer first, so the choices are
shuffled with a per-question seed derived from the card's sampling seed (recorded; the same on every
run). Option keys are letters A, B, ...; meanings are the choice texts. Chance is the mean of 1/n_i
over the sampled items.

The January 2025 revision (``data/mc_task.json`` now: 790 questions, 788 shared with v1, 2 new, with
an added ``mc0_targets`` binary option) is a different test set and is not read.
"""

from __future__ import annotations

import random
import string
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item, Option
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "v1/mc_task.json"
"""The original release; the 790-question ``mc_task.json`` beside it is the 2025 revision, not used."""


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    records = source.json(FILE)
    if not isinstance(records, list):
        raise SourceError(f"{source.path(FILE)}: expected a JSON array of questions")
    items = []
    for i, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("question"), str):
            raise SourceError(f"{source.path(FILE)}: record {i} should be an object with a 'question' string")
        targets = record.get("mc1_targets")
        if not isinstance(targets, dict) or sorted(targets.values()).count(1) != 1:
            raise SourceError(f"{source.path(FILE)}: record {i} needs mc1_targets with exactly one true choice")
        choices = list(targets.items())
        if len(choices) > len(string.ascii_uppercase):
            raise SourceError(f"{source.path(FILE)}: record {i} has more than 26 choices")
        random.Random(stable_seed(card.id, card.seed, i)).shuffle(choices)
        options = [Option(string.ascii_uppercase[k], text) for k, (text, _) in enumerate(choices)]
        gold = next(string.ascii_uppercase[k] for k, (_, mark) in enumerate(choices) if mark == 1)
        items.append(reference_item(card, {"question": record["question"]}, gold, options=options,
                                    extra={"source_index": i}))
    return items
