"""toxicchat (layer B): is this user prompt to a chatbot toxic? (ToxicChat 0124 test split).

An item is one row of ``data/0124/toxic-chat_annotation_test.csv`` (columns conv_id, user_input,
model_output, human_annotation, toxicity, jailbreaking, openai_moderation); the state is the
``user_input`` text exactly as published. Label: ``toxicity`` 1 -> toxic, 0 -> non_toxic.
``conv_id`` and ``jailbreaking`` (0/1) go to ``extra``; model_output and openai_moderation are not shown.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

PATH = "data/0124/toxic-chat_annotation_test.csv"
LABELS = {"1": "toxic", "0": "non_toxic"}


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for number, row in enumerate(source.csv(PATH), start=2):
        for column in ("conv_id", "user_input", "toxicity", "jailbreaking"):
            if row.get(column) is None:
                raise SourceError(f"{source.path(PATH)}:{number}: missing column {column!r}")
        if row["toxicity"] not in LABELS:
            raise SourceError(f"{source.path(PATH)}:{number}: toxicity {row['toxicity']!r}, expected 0 or 1")
        if row["jailbreaking"] not in ("0", "1"):
            raise SourceError(f"{source.path(PATH)}:{number}: jailbreaking {row['jailbreaking']!r}, expected 0 or 1")
        items.append(reference_item(card, row["user_input"], LABELS[row["toxicity"]],
                                    extra={"conv_id": row["conv_id"], "jailbreaking": int(row["jailbreaking"])}))
    return items
