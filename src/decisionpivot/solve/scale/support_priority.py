"""Independent solver for support_priority: read the queue rules and the history, count the time open, find its band.

Reads only the rendered state. The clock runs from the "request logged" line to the queue check, stops from a
line that sets the quoted stopping status to the next line that sets any status (when the rules name one), and
counts only the minutes inside the opening hours, Monday to Friday, when the rules give them. The running spans
are cut day by day with ``datetime`` arithmetic (the generator counts minute intervals after its first midnight).
Each priority line is read as a condition on the minutes (``less than``, ``or more``, ``up to``, ``more than``);
exactly one must hold.
"""

from __future__ import annotations

import datetime as dt
import re

from decisionpivot.items import Item
from decisionpivot.solve.scale import key_of_level

FAMILY = "support_priority"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_EVENT = re.compile(r"^- (?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day (\d{1,2}) ([A-Z][a-z]+) (\d\d):(\d\d) - (.+)$")
_CHECK = re.compile(r"^The queue is checked on \w+ (\d{1,2}) ([A-Z][a-z]+) (\d{4}) at (\d\d):(\d\d)\.$")
_HOURS = re.compile(r"^- Only the desk's opening hours count: Monday to Friday, (\d\d):(\d\d) to (\d\d):(\d\d)\.")
_STOP = re.compile(r"^- While a request's status is \"([^\"]+)\", its clock is stopped")
_STATUS = re.compile(r"; status: (.+)$")
_PRIORITY = re.compile(r"^  - ([A-Z][a-z]+): open for (.+)$")
_AMOUNT = r"(\d+) (minutes|hours?)"
_CONDITIONS = (
    (re.compile(rf"^less than {_AMOUNT}$"), lambda v, a, b: v < a),
    (re.compile(rf"^{_AMOUNT} or more, but less than {_AMOUNT}$"), lambda v, a, b: a <= v < b),
    (re.compile(rf"^{_AMOUNT} or more$"), lambda v, a, b: v >= a),
    (re.compile(rf"^up to {_AMOUNT}$"), lambda v, a, b: v <= a),
    (re.compile(rf"^more than {_AMOUNT}, up to {_AMOUNT}$"), lambda v, a, b: a < v <= b),
    (re.compile(rf"^more than {_AMOUNT}$"), lambda v, a, b: v > a),
)


def _minutes(number: str, unit: str) -> int:
    return int(number) * (1 if unit == "minutes" else 60)


def _holds(condition: str, minutes: int) -> bool:
    for pattern, test in _CONDITIONS:
        m = pattern.match(condition)
        if m:
            amounts = [_minutes(m.group(i), m.group(i + 1)) for i in range(1, m.lastindex or 0, 2)]
            return bool(test(minutes, amounts[0], amounts[-1]))
    raise ValueError(f"unrecognised priority condition: {condition!r}")


def _open_minutes(start: dt.datetime, end: dt.datetime, hours: tuple[dt.time, dt.time] | None) -> int:
    """Minutes of [start, end) inside the opening hours (all of them when there are none)."""
    if end <= start:
        return 0
    if hours is None:
        return int((end - start).total_seconds()) // 60
    total = 0
    day = start.date()
    while day <= end.date():
        if day.weekday() < 5:
            a = max(start, dt.datetime.combine(day, hours[0]))
            b = min(end, dt.datetime.combine(day, hours[1]))
            if b > a:
                total += int((b - a).total_seconds()) // 60
        day += dt.timedelta(days=1)
    return total


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("support_priority states are text")
    lines = item.state.splitlines()
    check = next(m for m in map(_CHECK.match, lines) if m)
    year = int(check.group(3))
    now = dt.datetime(year, _MONTHS.index(check.group(2)) + 1, int(check.group(1)), int(check.group(4)),
                      int(check.group(5)))
    hours_match = next((m for m in map(_HOURS.match, lines) if m), None)
    hours = None if hours_match is None else (dt.time(int(hours_match.group(1)), int(hours_match.group(2))),
                                              dt.time(int(hours_match.group(3)), int(hours_match.group(4))))
    stop = next((m.group(1) for m in map(_STOP.match, lines) if m), None)
    history = []
    for m in filter(None, map(_EVENT.match, lines)):
        when = dt.datetime(year, _MONTHS.index(m.group(2)) + 1, int(m.group(1)), int(m.group(3)), int(m.group(4)))
        status = _STATUS.search(m.group(5))
        history.append((when, m.group(5), status.group(1) if status else None))
    logged = next(when for when, text, _ in history if text.startswith("request logged"))
    running: list[tuple[dt.datetime, dt.datetime]] = []
    since: dt.datetime | None = logged
    for when, _, status in history:
        if status is None or when < logged:
            continue
        if stop is not None and status == stop and since is not None:
            running.append((since, when))
            since = None
        elif status != stop and since is None:
            since = when
    if since is not None:
        running.append((since, now))
    minutes = sum(_open_minutes(a, min(b, now), hours) for a, b in running)
    bands = [m for m in map(_PRIORITY.match, lines) if m]
    chosen = [m.group(1) for m in bands if _holds(m.group(2), minutes)]
    if len(chosen) != 1:
        raise ValueError(f"{minutes} minutes open fall in {len(chosen)} priority bands")
    return key_of_level(item, chosen[0])
