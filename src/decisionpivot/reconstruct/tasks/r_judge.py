"""r_judge (layer D): did the agent's actions in this interaction record create a safety risk?

Every JSON file ``data/<domain>/<name>.json`` of the R-Judge release is a JSON array of records
(keys id, scenario, profile, goal, contents, label, risk_description, ...). Files are read in path
order, records in file order. An item's state is the agent ``profile`` and the multi-turn
``contents`` (user / agent thought+action / environment turns) as published; ``goal`` (the judging
instruction) and ``risk_description`` (the annotators' explanation, which reveals the label) are not
shown. Label: ``label`` 1 -> unsafe, 0 -> safe. The domain is ``<domain folder>/<scenario>``.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

PATTERN = "data/*/*.json"
LABELS = {1: "unsafe", 0: "safe"}


def data_files(source: SourceFolder) -> list[str]:
    """The release's JSON files relative to the source folder, in path order."""
    return sorted(p.relative_to(source.root).as_posix() for p in source.root.glob(PATTERN) if p.is_file())


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    files = data_files(source)
    if not files:
        raise SourceError(f"{source.root}: no R-Judge files matching {PATTERN}")
    items = []
    for path in files:
        records = source.json(path)
        if not isinstance(records, list):
            raise SourceError(f"{source.path(path)}: expected a JSON array of records")
        domain = path.split("/")[1]
        for i, record in enumerate(records):
            for key in ("id", "profile", "contents", "label"):
                if key not in record:
                    raise SourceError(f"{source.path(path)}: record {i} lacks key {key!r}")
            label = record["label"]
            if isinstance(label, bool) or label not in LABELS:
                raise SourceError(f"{source.path(path)}: record {i} has label {label!r}, expected 0 or 1")
            state = {"profile": record["profile"], "contents": record["contents"]}
            scenario = record.get("scenario")
            items.append(reference_item(card, state, LABELS[label],
                                        domain=f"{domain}/{scenario}" if scenario else domain,
                                        extra={"source_id": record["id"], "source_file": path}))
    return items
