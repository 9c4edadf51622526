"""hatecheck (layer B): is this test case hateful or non-hateful?

Source: ``test_suite_cases.csv`` (HateCheck, 3,728 test cases in file order; the first column has an
empty header, a pandas index). Item: the ``test_case`` text as state (verbatim, trailing spaces
kept); options hateful / non-hateful from ``label_gold``; domain = the ``functionality`` (one of 29
functional tests, e.g. ``derog_neg_emote_h``); group = the template id ``templ_id``, so cases filled
from one template resample together.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "test_suite_cases.csv"
LABELS = ("hateful", "non-hateful")


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    for number, row in enumerate(source.csv(FILE), start=2):
        where = f"{source.path(FILE)}:{number}"
        if row.get("label_gold") not in LABELS:
            raise SourceError(f"{where}: label_gold {row.get('label_gold')!r}, expected one of {list(LABELS)}")
        if not row.get("test_case") or not row.get("functionality"):
            raise SourceError(f"{where}: empty test_case or functionality")
        items.append(reference_item(card, row["test_case"], row["label_gold"], domain=row["functionality"],
                                    group=f"templ{row['templ_id']}" if row.get("templ_id") else None))
    return items
