"""Shared converter of the entity-matching tasks in Ditto's serialisation (em_abt_buy, em_walmart_amazon).

File: ``test.txt``, one pair per line: ``<left entity>\\t<right entity>\\t<label 0/1>``. Ditto writes
an entity as ``"".join(f"COL {attribute} VAL {value} " for ...)``, so every entity ends with one
space and an empty value shows as ``VAL`` followed by two spaces. Parsing reverses exactly that:
the attributes are the ``COL <name> VAL`` markers at the start or after a space, a value is the text
up to the space before the next marker (or the final space), unchanged. Every entity of a file must
carry the same attribute names in the same order (a value that happened to contain a marker would
break this and is reported), and each parsed entity must re-serialise to exactly its text. The
structured state is ``{"left": {...}, "right": {...}}``.

One item per line, in file order; label 1 -> ``match``, 0 -> ``no_match``.
"""

from __future__ import annotations

import re
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "test.txt"
LABELS = {"1": "match", "0": "no_match"}
_MARKER = re.compile(r"(?:^| )COL (\S+) VAL ")


def parse_entity(text: str, where: str) -> dict[str, str]:
    """One Ditto-serialised entity -> attribute -> value (values unchanged, order kept)."""
    markers = list(_MARKER.finditer(text))
    if not markers or markers[0].start() != 0 or not text.endswith(" "):
        raise SourceError(f"{where}: not a Ditto entity ('COL <attr> VAL <value> ...' ending in a space): "
                          f"{text[:60]!r}")
    entity: dict[str, str] = {}
    for k, marker in enumerate(markers):
        name = marker.group(1)
        if name in entity:
            raise SourceError(f"{where}: attribute {name!r} appears twice")
        # a later marker's match starts at its leading space, which is the separator after this value
        end = markers[k + 1].start() if k + 1 < len(markers) else len(text) - 1
        entity[name] = text[marker.end():end]
    if "".join(f"COL {name} VAL {value} " for name, value in entity.items()) != text:
        raise SourceError(f"{where}: entity does not re-serialise to the same text: {text[:60]!r}")
    return entity


def convert_pairs(source: SourceFolder, card: TaskCard) -> list[Item]:
    items = []
    attributes: list[str] | None = None
    path = source.path(FILE)
    for number, line in enumerate(source.text(FILE).split("\n"), start=1):
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[2] not in LABELS:
            raise SourceError(f"{path}:{number}: expected 'left<TAB>right<TAB>0|1', found {len(parts)} fields"
                              f" ending {parts[-1][-20:]!r}")
        left = parse_entity(parts[0], f"{path}:{number} left entity")
        right = parse_entity(parts[1], f"{path}:{number} right entity")
        for side, entity in (("left", left), ("right", right)):
            if attributes is None:
                attributes = list(entity)
            elif list(entity) != attributes:
                raise SourceError(f"{path}:{number}: {side} entity has attributes {list(entity)}, "
                                  f"expected {attributes}")
        items.append(reference_item(card, {"left": left, "right": right}, LABELS[parts[2]]))
    return items


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    return convert_pairs(source, card)
