"""rewardbench (layer C): which of two responses to a prompt is better? (RewardBench v1, filtered split).

An item is one row of ``data/filtered-00000-of-00001.parquet`` (columns prompt, chosen,
chosen_model, rejected, rejected_model, subset, id). The state shows the prompt and the two
responses; the chosen response is placed at a position drawn from a stable seed of (task, card
seed, row id), so the order is reproducible and independent of the sample. Answer: response_1 or
response_2, whichever holds the chosen response. The domain is the subset; ``extra`` carries the
official section (Chat, Chat Hard, Safety, Reasoning) and the row id for section-weighted scoring.
"""

from __future__ import annotations

import random
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder
from decisionpivot.reconstruct.tasks._parquet import parquet_rows, require_columns

PATH = "data/filtered-00000-of-00001.parquet"

SECTIONS = {
    "Chat": ("alpacaeval-easy", "alpacaeval-length", "alpacaeval-hard", "mt-bench-easy", "mt-bench-med"),
    "Chat Hard": ("mt-bench-hard", "llmbar-natural", "llmbar-adver-neighbor", "llmbar-adver-GPTInst",
                  "llmbar-adver-GPTOut", "llmbar-adver-manual"),
    "Safety": ("refusals-dangerous", "refusals-offensive", "xstest-should-refuse", "xstest-should-respond",
               "donotanswer"),
    "Reasoning": ("math-prm", "hep-cpp", "hep-go", "hep-java", "hep-js", "hep-python", "hep-rust"),
}
SECTION_OF = {subset: section for section, subsets in SECTIONS.items() for subset in subsets}


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    rows = parquet_rows(source, PATH)
    require_columns(source, PATH, rows, ("prompt", "chosen", "rejected", "subset", "id"))
    items = []
    for i, row in enumerate(rows):
        if row["subset"] not in SECTION_OF:
            raise SourceError(f"{source.path(PATH)}: row {i} has subset {row['subset']!r}, not in the section map")
        for column in ("prompt", "chosen", "rejected"):
            if not isinstance(row[column], str):
                raise SourceError(f"{source.path(PATH)}: row {i} has {column} {row[column]!r}, expected text")
        chosen_first = random.Random(stable_seed("reference", card.id, card.seed, "position", row["id"])).random() < 0.5
        first, second = (row["chosen"], row["rejected"]) if chosen_first else (row["rejected"], row["chosen"])
        state = {"prompt": row["prompt"], "response_1": first, "response_2": second}
        items.append(reference_item(card, state, "response_1" if chosen_first else "response_2",
                                    domain=row["subset"],
                                    extra={"section": SECTION_OF[row["subset"]], "source_id": row["id"]}))
    return items
