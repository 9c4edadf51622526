"""Independent solver for breach_severity: read the office's rubric and the report, add up the points, find the band.

Reads only the rendered state. Every number of the rubric is read from its text - the people per point, the points
of each kind of data, the cap on days, what each mitigation takes off, what people under 18 add - and every band
as an inclusive range of whole points. The report's kinds of data are split at commas and "and"; the people
affected are the two lists less the people on both; the time exposed is the given hours or the span between the
two moments in whole hours (``datetime``, calendar days and clock times). Units are full units (integer division).
"""

from __future__ import annotations

import datetime as dt
import re

from decisionpivot.items import Item
from decisionpivot.solve.scale import key_of_level

FAMILY = "breach_severity"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_PEOPLE_RULE = re.compile(r"^- People affected: 1 point for every full (\d+) people\.$")
_DAY_RULE = re.compile(r"^- Time exposed: 1 point for every full 24 hours, at most (\d+) points\.$")
_KIND_RULE = re.compile(r"^  - ([a-z ]+): (\d+) points?$")
_OFF_RULE = re.compile(r"^- Take off (\d+) points if (.+)\.$")
_UNDER_RULE = re.compile(r"^- Add (\d+) points if anyone affected is under 18\.$")
_RANGES = (
    (re.compile(r"^  - (\w+): (\d+) to (\d+) points$"), lambda m: (int(m.group(2)), int(m.group(3)))),
    (re.compile(r"^  - (\w+): (\d+) points or more$"), lambda m: (int(m.group(2)), None)),
    (re.compile(r"^  - (\w+): up to (\d+) points$"), lambda m: (None, int(m.group(2)))),
    (re.compile(r"^  - (\w+): more than (\d+) points$"), lambda m: (int(m.group(2)) + 1, None)),
)
_MOMENT = r"\w+ (\d{1,2}) (\w+) (\d{4}), (\d\d):(\d\d)"


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _moment(m: re.Match[str], first: int) -> dt.datetime:
    return dt.datetime(int(m.group(first + 2)), _MONTHS.index(m.group(first + 1)) + 1, int(m.group(first)),
                       int(m.group(first + 3)), int(m.group(first + 4)))


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("breach_severity states are text")
    lines = item.state.splitlines()
    rubric_end = lines.index("What happened:")
    rubric, report = lines[:rubric_end], lines[rubric_end:]
    per_people = per_days = None
    kind_points: dict[str, int] = {}
    off: dict[str, int] = {}
    under_18 = 0
    bands: list[tuple[str, int | None, int | None]] = []
    for line in rubric:
        if m := _PEOPLE_RULE.match(line):
            per_people = int(m.group(1))
        elif m := _DAY_RULE.match(line):
            per_days = int(m.group(1))
        elif m := _OFF_RULE.match(line):
            off[m.group(2)] = int(m.group(1))
        elif m := _UNDER_RULE.match(line):
            under_18 = int(m.group(1))
        elif m := _KIND_RULE.match(line):
            kind_points[m.group(1)] = int(m.group(2))
        else:
            for pattern, bounds in _RANGES:
                if m := pattern.match(line):
                    bands.append((m.group(1), *bounds(m)))
    if per_people is None or per_days is None or not bands:
        raise ValueError("the rubric lacks its people, time or severity lines")
    facts = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in report if ": " in line}
    people_text = facts["People affected"]
    lists = re.match(r"the data covered ([\d,]+) .+ and ([\d,]+) .+; "
                     r"(?:no one is|([\d,]+) (?:people are|person is)) on both lists\.$", people_text)
    if lists is None:
        raise ValueError(f"unrecognised people line: {people_text!r}")
    people = _number(lists.group(1)) + _number(lists.group(2)) - (_number(lists.group(3)) if lists.group(3) else 0)
    if "Time exposed" in facts:
        hours = _number(facts["Time exposed"].removesuffix(" hours"))
    else:
        line = next(line for line in report if line.startswith("Exposed from "))
        span = re.match(rf"^Exposed from {_MOMENT} until {_MOMENT}$", line)
        if span is None:
            raise ValueError(f"unrecognised exposure line: {line!r}")
        hours = int((_moment(span, 6) - _moment(span, 1)).total_seconds() // 3600)
    kinds = re.split(r", | and ", facts["Data exposed"])
    total = people // per_people + min(per_days, hours // 24)
    total += sum(kind_points[kind] for kind in kinds)
    mitigation = facts.get("Mitigation", "none")
    total -= sum(points for description, points in off.items() if mitigation == description)
    if facts.get("Anyone under 18 among them") == "yes":
        total += under_18
    chosen = [name for name, lo, hi in bands if (lo is None or total >= lo) and (hi is None or total <= hi)]
    if len(chosen) != 1:
        raise ValueError(f"a total of {total} points falls in {len(chosen)} severity bands")
    return key_of_level(item, chosen[0])
