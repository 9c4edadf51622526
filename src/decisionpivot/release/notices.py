"""The ``LICENSES/`` folder of the release: full licence texts and one attribution notice per reference task."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from decisionpivot.licenses.fulltext import (
    CANONICAL_URLS,
    CORE_ITEMS_SPDX,
    copyright_line,
    has_text,
    licence_text,
    mit_text,
)
from decisionpivot.reconstruct.card import LABEL_SOURCES, TaskCard


def _text_pointer(card: TaskCard) -> str:
    spdx = card.license.spdx
    if spdx == "MIT":
        return "below (the MIT notice with the source's copyright line)"
    if spdx and has_text(spdx):
        return f"`LICENSES/{spdx}.txt` ({CANONICAL_URLS[spdx]})"
    return f"not shipped; see the source repository ({card.url})"


def task_notice(card: TaskCard, items: int) -> str:
    """Attribution and licence notice of one redistributed reference task, including what was changed."""
    lic = card.license
    lines = [
        f"# {card.id}: {card.title}", "",
        f"- Source: {card.url} (`{card.repository}`, version `{card.version}`)",
        f"- Citation: {card.citation}",
        f"- Licence: {lic.name}" + (f" (SPDX `{lic.spdx}`)" if lic.spdx else ""),
        f"- Terms as stated by the source: {lic.stated or 'see the source'}",
        f"- Attribution: {lic.attribution}",
        f"- Full licence text: {_text_pointer(card)}",
        f"- Labels: {LABEL_SOURCES[card.label_source]} (as published by the source)",
        "",
        "## Changes", "",
        f"The official files were converted to DecisionPivot items (converter version {card.converter_version}): "
        f"each record became an item with the question \"{card.question}\", the options "
        f"{', '.join('`' + o.key + '`' for o in card.options)} and the source's label as gold answer; "
        f"{items} items were kept (target {card.target}, sampling seed {card.seed}).",
    ]
    if card.caveats:
        lines += ["", "## Caveats", "", *[f"- {c}" for c in card.caveats]]
    if lic.spdx == "MIT":
        lines += ["", "## Licence text", "", "```", mit_text(copyright_line(lic.attribution)).rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"


def licence_files(cards: Sequence[TaskCard], item_counts: Mapping[str, int]) -> dict[str, str]:
    """Path inside the release -> text: the core licence, shipped texts of the tasks' licences, task notices."""
    files = {f"LICENSES/{CORE_ITEMS_SPDX}.txt": licence_text(CORE_ITEMS_SPDX)}
    for card in cards:
        spdx = card.license.spdx
        if spdx and spdx != "MIT" and has_text(spdx):
            files[f"LICENSES/{spdx}.txt"] = licence_text(spdx)
        files[f"LICENSES/{card.id}.md"] = task_notice(card, item_counts[card.id])
    return dict(sorted(files.items()))
