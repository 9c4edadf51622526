"""What the scorer needs to know about one items file, as arrays: ids, options, gold, groups, pairs.

A :class:`TaskLayout` is built once per task (core family or reference task) and shared by every
system's answers, so all systems are aligned item by item and resampled with the same indices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, read_items, sha256_file

POSITIVE_KEY = "yes"
"""Option whose probability defines pair direction (p+ and p-) when it is one of a pair's two keys."""


@dataclass(frozen=True)
class TaskLayout:
    """One task's items as aligned arrays (item order = file order)."""

    task: str
    """Family or reference task name (the items file stem and the answer file stem)."""
    layer: str
    """Decision layer A-G of the task's items."""
    items_path: Path
    """Items file the layout was read from."""
    items_sha256: str
    """SHA-256 of the items file; answer files must name the same hash."""
    item_ids: tuple[str, ...]
    """Item ids in file order."""
    option_keys: tuple[tuple[str, ...], ...]
    """Listed option keys of each item, in listed order."""
    option_count: np.ndarray
    """``(n,)`` number of options of each item."""
    gold_index: np.ndarray
    """``(n,)`` column of the gold option in the item's listed order; -1 when an item has no gold."""
    group_index: np.ndarray
    """``(n,)`` contrast group number 0..G-1 (an item without a group is a group of its own)."""
    level: np.ndarray
    """``(n,)`` difficulty level 1-3; 0 for items without a level."""
    pairs: np.ndarray
    """``(P, 2)`` item positions of binary pairs: [member with gold = positive key, the other member]."""
    pair_positive_column: np.ndarray
    """``(P,)`` column of the positive option (``yes`` or else the first listed key) in each pair."""
    items: tuple[Item, ...]
    """The items themselves (reference metrics read extra keys such as ``success_rate``)."""

    @property
    def size(self) -> int:
        return len(self.item_ids)

    @property
    def groups(self) -> int:
        return int(self.group_index.max()) + 1 if self.size else 0

    @property
    def max_options(self) -> int:
        return int(self.option_count.max()) if self.size else 0

    @property
    def grouped(self) -> bool:
        """True when some group has more than one item (then groups are the resampling unit)."""
        return self.groups < self.size

    def position(self) -> dict[str, int]:
        """Item id -> position in the file."""
        return {item_id: i for i, item_id in enumerate(self.item_ids)}


def _binary_pairs(items: Sequence[Item], group_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Groups of exactly two items with the same two option keys and different gold answers."""
    members: dict[int, list[int]] = {}
    for position, group in enumerate(group_index.tolist()):
        members.setdefault(group, []).append(position)
    pairs, columns = [], []
    for positions in members.values():
        if len(positions) != 2:
            continue
        a, b = (items[p] for p in positions)
        keys = a.option_keys
        if len(keys) != 2 or b.option_keys != keys or a.answer is None or b.answer is None:
            continue
        if a.answer == b.answer:
            continue
        positive = POSITIVE_KEY if POSITIVE_KEY in keys else keys[0]
        plus, minus = (positions[0], positions[1]) if a.answer == positive else (positions[1], positions[0])
        pairs.append((plus, minus))
        columns.append(keys.index(positive))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2), np.array(columns, dtype=np.int64)


def layout_from_items(task: str, items: Sequence[Item], path: Path, sha256: str) -> TaskLayout:
    """Build the arrays of one task from its items (all items must share one layer)."""
    if not items:
        raise DecisionPivotError(f"{path}: no items")
    layers = sorted({item.layer for item in items})
    if len(layers) != 1:
        raise DecisionPivotError(f"{path}: items of one task must share a layer, found {', '.join(layers)}")
    group_numbers: dict[str, int] = {}
    for item in items:
        key = item.group if item.group is not None else f"\x00{item.id}"
        group_numbers.setdefault(key, len(group_numbers))
    group_index = np.array(
        [group_numbers[item.group if item.group is not None else f"\x00{item.id}"] for item in items],
        dtype=np.int64,
    )
    gold = np.array(
        [item.option_keys.index(item.answer) if item.answer is not None else -1 for item in items],
        dtype=np.int64,
    )
    pairs, columns = _binary_pairs(items, group_index)
    return TaskLayout(
        task=task,
        layer=layers[0],
        items_path=path,
        items_sha256=sha256,
        item_ids=tuple(item.id for item in items),
        option_keys=tuple(item.option_keys for item in items),
        option_count=np.array([len(item.options) for item in items], dtype=np.int64),
        gold_index=gold,
        group_index=group_index,
        level=np.array([item.level or 0 for item in items], dtype=np.int64),
        pairs=pairs,
        pair_positive_column=columns,
        items=tuple(items),
    )


def read_layout(path: str | Path, task: str | None = None) -> TaskLayout:
    """Read and validate an items file (``<task>.jsonl``) and build its layout."""
    path = Path(path)
    return layout_from_items(task or path.stem, read_items(path), path, sha256_file(path))
