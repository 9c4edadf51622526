"""r_judge (layer D): did the agent's actions in this interaction record create a safety risk?

Every JSON file ``data/<domain>/<name>.json`` of the R-Judge release is a JSON array of records
(keys id, scenario, profile, goal, contents, label, risk_description, ...). Files are read in path
order, records in file order. An item's state is the agent ``profile`` and the multi-turn
``contents`` (user / agent thought+action / environment turns) as published; ``goal`` (the judging
instruction) and ``risk_description`` (the annotators' explanation, which reveals the label) are not
shown. Label: ``label`` 1 -> unsafe, 0 -> safe. The domain is ``<domain folder>/<scenario>``.

The release has ``harmful.json`` (every label 1) and ``benign.json`` (every label 0) per domain
folder, so the file name is not kept in the item (it would give the label away); the label is read
from each record and checked against the file name when the file is named that way. A record whose
state (profile and contents) repeats an earlier record's with the same label is dropped as a
duplicate (the third-party copy checked here holds two: 571 records give 569 items, the count the
paper reports); the same state with two different labels is an error.
"""

from __future__ import annotations

import json
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

PATTERN = "data/*/*.json"
LABELS = {1: "unsafe", 0: "safe"}
FILE_LABELS = {"harmful.json": 1, "benign.json": 0}
"""Release file names and the label every record in them carries."""


def data_files(source: SourceFolder) -> list[str]:
    """The release's JSON files relative to the source folder, in path order."""
    return sorted(p.relative_to(source.root).as_posix() for p in source.root.glob(PATTERN) if p.is_file())


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    files = data_files(source)
    if not files:
        raise SourceError(f"{source.root}: no R-Judge files matching {PATTERN}")
    items = []
    first_seen: dict[str, tuple[str, int]] = {}
    for path in files:
        records = source.json(path)
        if not isinstance(records, list):
            raise SourceError(f"{source.path(path)}: expected a JSON array of records")
        domain = path.split("/")[1]
        for i, record in enumerate(records):
            where = f"{source.path(path)}: record {i}"
            if not isinstance(record, dict):
                raise SourceError(f"{where}: expected a JSON object")
            for key in ("id", "profile", "contents", "label"):
                if key not in record:
                    raise SourceError(f"{where} lacks key {key!r}")
            label = record["label"]
            if isinstance(label, bool) or label not in LABELS:
                raise SourceError(f"{where} has label {label!r}, expected 0 or 1")
            named = FILE_LABELS.get(path.rsplit("/", 1)[-1])
            if named is not None and label != named:
                raise SourceError(f"{where} has label {label} in a file of label-{named} records")
            state = {"profile": record["profile"], "contents": record["contents"]}
            key = json.dumps(state, sort_keys=True, ensure_ascii=False)
            if key in first_seen:
                earlier, earlier_label = first_seen[key]
                if earlier_label != label:
                    raise SourceError(f"{where} repeats the state of {earlier} with the other label")
                continue
            first_seen[key] = (f"{path} record {i}", label)
            scenario = record.get("scenario")
            items.append(reference_item(card, state, LABELS[label],
                                        domain=f"{domain}/{scenario}" if scenario else domain,
                                        extra={"source_id": record["id"]}))
    return items
