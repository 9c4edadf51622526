"""Independent solver for clause_change: decide the point under each version, then compare.

Reads only the rendered state. The point at issue names its matter in parentheses; in each version
the clauses whose heading is that matter (or starts with it followed by a comma) set the limits. Each
limit is a comparator phrase with a figure; the fact line whose quantity the limit clauses talk about
gives the value. A version says yes when the value meets all of its limits.
"""

from __future__ import annotations

import re

from decisionpivot.items import Item

FAMILY = "clause_change"

_COMPARATORS = {
    "no less than": ">=", "not less than": ">=", "at least": ">=", "more than": ">",
    "no more than": "<=", "not more than": "<=", "at most": "<=", "less than": "<",
}
# longest phrases first, so 'no more than' is not read as 'more than'
_LIMIT = re.compile("(" + "|".join(sorted(_COMPARATORS, key=len, reverse=True)) + r") (\d[\d,]*)")
_POINT = re.compile(r"^Point at issue \((?P<matter>[^)]+)\): ")
_FACT = re.compile(r"^- (?P<label>[^:(]+?)(?: \([^)]*\))?: (?P<value>\d[\d,]*) ")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


_VERSION_HEAD = re.compile(r"^Version [AB]\b")
_NUMBERED = re.compile(r"^\d+\. ")


def _versions(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"A": [], "B": []}
    current: str | None = None
    for line in lines:
        if _VERSION_HEAD.match(line):
            current = line[8]
        elif not line.strip():
            current = None
        elif current and _NUMBERED.match(line):
            out[current].append(line.split(". ", 1)[1])
    return out


def _meets(value: int, comparator: str, figure: int) -> bool:
    if comparator == ">=":
        return value >= figure
    if comparator == ">":
        return value > figure
    if comparator == "<=":
        return value <= figure
    return value < figure


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("clause_change states are text")
    lines = item.state.splitlines()
    point = next(m for line in lines if (m := _POINT.match(line)))
    matter = point.group("matter")
    says_yes: dict[str, bool] = {}
    for version, clauses in _versions(lines).items():
        governing = [c for c in clauses
                     if c.startswith(matter + ". ") or c.startswith(matter + ", ")]
        if len(governing) < 1:
            raise ValueError(f"version {version}: no clause on {matter!r}")
        text = " ".join(governing).lower()
        facts = [m for line in lines if (m := _FACT.match(line)) and m.group("label").lower() in text]
        if len(facts) != 1:
            raise ValueError(f"expected one fact on {matter!r}, found {len(facts)}")
        value = _number(facts[0].group("value"))
        limits = [(_COMPARATORS[m.group(1)], _number(m.group(2))) for c in governing
                  for m in [_LIMIT.search(c.split(". ", 1)[1])] if m]
        if len(limits) != len(governing):
            raise ValueError(f"version {version}: a clause on {matter!r} has no limit")
        says_yes[version] = all(_meets(value, comp, fig) for comp, fig in limits)
    if says_yes["A"] == says_yes["B"]:
        return "same"
    return "yes_only_A" if says_yes["A"] else "yes_only_B"
