"""clinc150_oos (layer A): is this user request in scope for the assistant's 150 intents, or out of scope?

Source: ``data_full.json`` (CLINC150, "full" variant), a JSON object of splits holding
``[utterance, intent]`` pairs. Items: the ``test`` split (4,500 in-scope utterances, 30 per intent)
then ``oos_test`` (1,000 out-of-scope utterances, intent ``oos``), in file order. The state is the
utterance text; options in_scope / out_of_scope (intent ``oos`` -> out_of_scope, any of the 150
intents -> in_scope); domain = the gold intent. The routing question lists the 150 supported intents
(their names as they appear in the ``train`` split, in order of first appearance), so a decision model
can tell in-scope requests from out-of-scope ones.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "data_full.json"
SPLITS = ("test", "oos_test")
OOS = "oos"


def pairs(source: SourceFolder, data: Any, split: str) -> list[tuple[str, str]]:
    records = data.get(split) if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise SourceError(f"{source.path(FILE)}: split {split!r} missing or not a list")
    out = []
    for i, record in enumerate(records):
        if not (isinstance(record, list) and len(record) == 2 and all(isinstance(x, str) and x for x in record)):
            raise SourceError(f"{source.path(FILE)}: {split}[{i}] is {record!r}, expected [utterance, intent]")
        out.append((record[0], record[1]))
    return out


def intents(train: list[tuple[str, str]]) -> list[str]:
    """The in-scope intents in order of first appearance in the train split."""
    seen: dict[str, None] = {}
    for _, intent in train:
        if intent != OOS:
            seen.setdefault(intent, None)
    return list(seen)


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    data = source.json(FILE)
    supported = intents(pairs(source, data, "train"))
    known = frozenset(supported)
    question = f"{card.question} Supported intents: {', '.join(supported)}."
    items = []
    for split in SPLITS:
        for i, (utterance, intent) in enumerate(pairs(source, data, split)):
            if split == "oos_test" and intent != OOS:
                raise SourceError(f"{source.path(FILE)}: oos_test[{i}] has intent {intent!r}, expected 'oos'")
            if intent != OOS and intent not in known:
                raise SourceError(f"{source.path(FILE)}: {split}[{i}] has intent {intent!r}, not a train intent")
            answer = "out_of_scope" if intent == OOS else "in_scope"
            items.append(reference_item(card, utterance, answer, domain=intent, question=question))
    return items
