"""Independent solver for listing_match: check each requirement of the brief against the listing, add up the points.

Reads only the rendered state. A requirement is "<figure>: <comparison> <limit>" with an optional "(n points)";
"at least" and "at most" and "or earlier" include the limit, "more than", "less than" and "before" do not. The
listing's lines give each figure, or two parts of it that a scoring rule says to add, to subtract, or to count the
first of. Figures are compared as exact numbers (``Decimal``; dates as dates). Each grade line is read as a range of
points ("no points", "up to n", "n to m", "n points or more"), and exactly one must hold the total.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from decisionpivot.items import Item
from decisionpivot.solve.scale import key_of_level

FAMILY = "listing_match"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_REQUIREMENT = re.compile(r"^- (?P<figure>[^:]+): (?:(?P<op>at least|at most|more than|less than|before) (?P<limit>.+?)"
                          r"|(?P<date>.+?) or earlier)(?: \((?P<points>\d+) points?\))?$")
_PART_RULE = re.compile(r"^- (?P<figure>[^:]+): (?P<how>the two parts the listing gives are added|the second part the "
                        r"listing gives is taken off the first|only the first part the listing gives counts) "
                        r"\((?P<first>.+), (?P<second>.+)\)\.$")
_GRADE = re.compile(r"^  - (?P<name>[A-Z][a-z]+): (?:no points|up to (?P<upto>\d+) points?|(?P<lo>\d+) to (?P<hi>\d+) "
                    r"points|(?P<one>\d+) points?|(?P<more>\d+) points or more)$")


def _quantity(text: str) -> Decimal | dt.date:
    """A figure or a limit: a date, or the number at its start (thousands separators dropped, decimals kept)."""
    date = re.fullmatch(r"(\d{1,2}) ([A-Z][a-z]+) (\d{4})", text)
    if date:
        return dt.date(int(date.group(3)), _MONTHS.index(date.group(2)) + 1, int(date.group(1)))
    number = re.match(r"[\d,]+(?:\.\d+)?", text)
    if number is None:
        raise ValueError(f"no number in {text!r}")
    return Decimal(number.group(0).replace(",", ""))


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("listing_match states are text")
    lines = item.state.splitlines()
    brief_at = lines.index("The brief:")
    listing_at = next(i for i, line in enumerate(lines) if line.startswith("The listing, "))
    shown = {}
    for line in lines[listing_at + 1:]:
        label, _, text = line.removeprefix("- ").partition(": ")
        shown[label.lower()] = _quantity(text)
    figures = dict(shown)
    for line in lines[:brief_at]:
        if m := _PART_RULE.match(line):
            first, second = shown[m.group("first")], shown[m.group("second")]
            if m.group("how").endswith("added"):
                figures[m.group("figure").lower()] = first + second  # type: ignore[operator]
            elif m.group("how").endswith("first"):
                figures[m.group("figure").lower()] = first - second  # type: ignore[operator]
            else:
                figures[m.group("figure").lower()] = first
    total = 0
    for line in lines[brief_at + 1:listing_at]:
        m = _REQUIREMENT.match(line)
        if m is None:
            continue
        figure = figures[m.group("figure").lower()]
        op = m.group("op") or "or earlier"
        limit = _quantity(m.group("limit") or m.group("date"))
        met = {"at least": figure >= limit, "more than": figure > limit, "at most": figure <= limit,  # type: ignore[operator]
               "less than": figure < limit, "or earlier": figure <= limit, "before": figure < limit}[op]  # type: ignore[operator]
        if met:
            total += int(m.group("points") or 1)
    chosen = []
    for m in filter(None, map(_GRADE.match, lines)):
        if m.group("upto"):
            lo, hi = 0, int(m.group("upto"))
        elif m.group("lo"):
            lo, hi = int(m.group("lo")), int(m.group("hi"))
        elif m.group("one"):
            lo = hi = int(m.group("one"))
        elif m.group("more"):
            lo, hi = int(m.group("more")), None
        else:
            lo = hi = 0
        if total >= lo and (hi is None or total <= hi):
            chosen.append(m.group("name"))
    if len(chosen) != 1:
        raise ValueError(f"{total} points fall in {len(chosen)} grades")
    return key_of_level(item, chosen[0])
