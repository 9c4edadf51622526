"""`dp show`: find one item by id and format it for a person to read.

An item records the version of the generator that made it (``version``: a family's generator may stay
at 1.1 while the benchmark is at 1.2); the benchmark version it belongs to is its folder's
``MANIFEST.json``'s. The header says both, by name, so a 1.2 item is never labelled "v1.1".
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from decisionpivot.errors import DecisionPivotError, check_names
from decisionpivot.items import Item, iter_items, render_state


def find_item(folder: str | Path, item_id: str) -> Item:
    """The item with ``item_id`` from ``<folder>/<family>.jsonl``; a clear error if absent."""
    folder = Path(folder)
    family, sep, _ = item_id.partition(":")
    if not sep or not family:
        raise DecisionPivotError(f"item id {item_id!r} should look like '<family>:<index>'")
    path = folder / f"{family}.jsonl"
    if not path.exists():
        check_names("family", [family], sorted(p.stem for p in folder.glob("*.jsonl")),
                    where=f"item {item_id!r} ({folder} has no {path.name})")
    for item in iter_items(path):
        if item.id == item_id:
            return item
    raise DecisionPivotError(f"{path}: no item with id {item_id!r}")


def benchmark_version(folder: str | Path) -> str | None:
    """The benchmark version of the items in ``folder``, from its MANIFEST.json (None: no manifest)."""
    if not (Path(folder) / "MANIFEST.json").exists():
        return None
    from decisionpivot.generate.run import read_manifest

    version = read_manifest(folder).get("version")
    return str(version) if version is not None else None


def format_item(item: Item, benchmark: str | None = None) -> str:
    """A readable page: header line, STATE, QUESTION, OPTIONS (gold marked), group facts. ``benchmark``: the
    benchmark version the item belongs to (:func:`benchmark_version`), said before its generator's."""
    width = 100
    rule = "=" * width
    belongs = f"benchmark {benchmark}, " if benchmark else ""
    header = f"{item.id}  family {item.family} (layer {item.layer}, {belongs}generator {item.version})"
    facts = [f"level {item.level}" if item.level else None, f"group {item.group}" if item.group else None,
             f"domain {item.domain}" if item.domain else None,
             f"variation {item.variation}" if item.variation else None]
    lines = [rule, header, "  ".join(f for f in facts if f), rule, "STATE"]
    for line in render_state(item.state).splitlines():
        wrapped = textwrap.wrap(line, width=width - 2, subsequent_indent="    ") or [""]
        lines.extend("  " + w for w in wrapped)
    lines += ["", "QUESTION", "  " + item.question, "", "OPTIONS"]
    for option in item.options:
        mark = "  <- gold" if option.key == item.answer else ""
        lines.append(f"  {option.key}: {option.meaning}{mark}")
    for key, value in item.extra.items():
        lines.append(f"{key}: {value}")
    lines.append(rule)
    return "\n".join(lines)
