"""What makes the members of a contrast group differ: declared decisive paths and the rendered difference.

Two views of one fact, both shown by the group browser:

* the **declared decisive paths**: every family's generator builds a group's members from one structured
  case and declares the JSON paths at which they may differ (``Group.decisive``; the framework checks
  that they differ nowhere else). Those paths live in the generator's case, not in the items file, so
  they are recovered by drawing the family again with the seed its ``MANIFEST.json`` records and
  checking that the redrawn members are exactly the items in the file (states, answers, ids in order).
  A folder that does not match (edited items, another generator edition, no manifest) gets no declared
  paths, and the site says why;
* the **rendered difference**: the character ranges of each member's rendered state (text, or
  structured states as indented JSON) that differ from another member's, found by a line diff refined
  to words inside changed lines. These are what the browser highlights.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decisionpivot.items import Item, render_state

CHANGED_LEAVES_SHOWN = 12
"""At most this many differing case values are listed per group (record_rule groups can differ in more)."""
VALUE_CHARACTERS = 160
"""Case values longer than this are cut (with an ellipsis) in the browser."""
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True)
class DecisivePaths:
    """A group's declared decisive paths and the case values that differ under them."""

    group: str
    """Group id (``<family>:g<4 digits>``)."""
    paths: tuple[str, ...]
    """Declared decisive JSON paths of the generator's case, sorted."""
    values: tuple[tuple[str, tuple[str, ...]], ...]
    """(leaf path, the value of every member in item order) for leaves that differ between members."""


@dataclass(frozen=True)
class FamilyDecisive:
    """The declared decisive paths of one family's groups, or why there are none."""

    family: str
    """Family name."""
    groups: Mapping[str, DecisivePaths]
    """Group id -> its paths; empty when unavailable."""
    note: str
    """One sentence for the site: where the paths come from, or why they are missing."""


def _shown(value: Any) -> str:
    text = "(absent)" if value is _ABSENT else repr(value) if not isinstance(value, str) else value
    return text if len(text) <= VALUE_CHARACTERS else text[: VALUE_CHARACTERS - 1] + "\u2026"


_ABSENT = object()


def decisive_of(group_id: str, decisive: frozenset[str], cases: Sequence[Mapping[str, Any]]) -> DecisivePaths:
    """The declared paths of one group and the leaves under them whose values differ between members."""
    from decisionpivot.generate.family import flatten

    flat = [flatten(case) for case in cases]
    leaves = sorted(set().union(*flat))
    changed = []
    for leaf in leaves:
        values = [f.get(leaf, _ABSENT) for f in flat]
        if any(v != values[0] or (v is _ABSENT) != (values[0] is _ABSENT) for v in values[1:]):
            changed.append((leaf, tuple(_shown(v) for v in values)))
    return DecisivePaths(group_id, tuple(sorted(decisive)), tuple(changed[:CHANGED_LEAVES_SHOWN]))


def _same_members(items: Sequence[Item], members: Sequence[Any]) -> bool:
    return len(items) == len(members) and all(
        item.state == member.state and item.answer == member.answer and item.options == member.options
        for item, member in zip(items, members, strict=True)
    )


def family_decisive(family: str, items: Sequence[Item], manifest: Mapping[str, Any] | None) -> FamilyDecisive:
    """Redraw ``family`` with its manifest's seed and keep the groups' decisive paths if the draw is the file.

    Only the current generator edition is redrawn (``manifest["version"]`` equal to this package's core
    version); the check compares every member with the file's items, group by group, in order.
    """
    from decisionpivot import BENCHMARK_VERSION

    entry = (manifest or {}).get("families", {}).get(family) if isinstance(manifest, Mapping) else None
    if not isinstance(entry, Mapping) or not isinstance(entry.get("seed"), int):
        return FamilyDecisive(family, {}, "No declared decisive paths: the items folder has no MANIFEST.json "
                                          "seed for this family; the highlighted text is the rendered difference.")
    version = manifest.get("version") if manifest else None
    if version != BENCHMARK_VERSION:
        return FamilyDecisive(family, {}, f"No declared decisive paths: these are core {version} items and this "
                                          f"package draws core {BENCHMARK_VERSION}; the highlighted text is the "
                                          "rendered difference.")
    from decisionpivot.errors import DecisionPivotError
    from decisionpivot.generate.run import draw_groups

    seed = int(entry["seed"])
    by_group: dict[str, list[Item]] = {}
    for item in items:
        by_group.setdefault(item.group or item.id, []).append(item)
    found: dict[str, DecisivePaths] = {}
    mismatch = f"No declared decisive paths: the items differ from what seed {seed} draws (edited or " \
               "another generator); the highlighted text is the rendered difference."
    try:
        drawn = list(draw_groups(family, seed))
    except DecisionPivotError:
        return FamilyDecisive(family, {}, f"No declared decisive paths: {family} is not a family of this package.")
    if len(drawn) != len(by_group):
        return FamilyDecisive(family, {}, mismatch)
    for group_id, group in drawn:
        members = by_group.get(group_id)
        if members is None or not _same_members(members, group.members):
            return FamilyDecisive(family, {}, mismatch)
        found[group_id] = decisive_of(group_id, group.decisive, [m.case for m in group.members])
    return FamilyDecisive(family, found, f"Declared decisive paths from the generator (seed {seed}, redrawn and "
                                         "checked against every item); values are the generator's case, in its "
                                         "own units.")


def _tokens(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for line in text.splitlines(keepends=True):
        spans.append((start, start + len(line)))
        start += len(line)
    return spans


def _word_ranges(a: str, b: str, a_offset: int, b_offset: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    ta, tb = _tokens(a), _tokens(b)
    matcher = difflib.SequenceMatcher(None, [a[s:e] for s, e in ta], [b[s:e] for s, e in tb], autojunk=False)
    ranges_a, ranges_b = [], []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            ranges_a.append((a_offset + ta[i1][0], a_offset + ta[i2 - 1][1]))
        if j2 > j1:
            ranges_b.append((b_offset + tb[j1][0], b_offset + tb[j2 - 1][1]))
    return ranges_a, ranges_b


def difference_ranges(a: str, b: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character ranges of ``a`` and of ``b`` that differ: changed lines, narrowed to the changed words."""
    lines_a, lines_b = a.splitlines(keepends=True), b.splitlines(keepends=True)
    spans_a, spans_b = _line_spans(a), _line_spans(b)
    matcher = difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False)
    ranges_a: list[tuple[int, int]] = []
    ranges_b: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start_a = spans_a[i1][0] if i1 < len(spans_a) else len(a)
        end_a = spans_a[i2 - 1][1] if i2 > i1 else start_a
        start_b = spans_b[j1][0] if j1 < len(spans_b) else len(b)
        end_b = spans_b[j2 - 1][1] if j2 > j1 else start_b
        if tag == "replace":
            words_a, words_b = _word_ranges(a[start_a:end_a], b[start_b:end_b], start_a, start_b)
            ranges_a += words_a
            ranges_b += words_b
        else:
            if end_a > start_a:
                ranges_a.append((start_a, end_a))
            if end_b > start_b:
                ranges_b.append((start_b, end_b))
    return ranges_a, ranges_b


def merge_ranges(ranges: Sequence[tuple[int, int]], text: str = "") -> list[tuple[int, int]]:
    """Sorted, non-overlapping ranges covering the same characters: overlapping or touching ranges are
    joined, and so are ranges of ``text`` separated only by spaces or tabs (one mark per changed phrase)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        gap = text[merged[-1][1]:start] if merged and start > merged[-1][1] else ""
        if merged and (start <= merged[-1][1] or (gap and not gap.strip(" \t"))):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def member_differences(states: Sequence[str]) -> list[list[tuple[int, int]]]:
    """For each member's rendered state, the ranges that differ from at least one other member.

    Each member is compared with member 0 (and member 0 with all of them): groups are built from one
    base case, so every member's difference is a difference from the base.
    """
    marks: list[list[tuple[int, int]]] = [[] for _ in states]
    for i in range(1, len(states)):
        base, other = difference_ranges(states[0], states[i])
        marks[0] += base
        marks[i] += other
    return [merge_ranges(m, state) for m, state in zip(marks, states, strict=True)]


def rendered_states(items: Sequence[Item]) -> list[str]:
    return [render_state(item.state) for item in items]
