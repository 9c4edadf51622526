"""Independent solver for supplier_risk: read the policy's thresholds and the supplier's figures, take the highest tier.

Reads only the rendered state. Each policy line gives one figure's thresholds as "<tier> below|above <n>" (the
threshold itself stays in the tier below) or "<tier> at <n> or lower|or more" (it reaches the tier); each figure is
computed exactly with ``Fraction`` from what the supplier's lines give (a rate, or deliveries and those on time,
units and those defective, a due date and the review date, findings raised and closed). A figure reaches every
tier whose threshold it passes; the supplier's tier is the highest reached by any figure, the lowest when none is.
An on-time rate over fewer deliveries than the policy's minimum reaches none.
"""

from __future__ import annotations

import datetime as dt
import re
from fractions import Fraction

from decisionpivot.items import Item
from decisionpivot.solve.scale import key_of_level

FAMILY = "supplier_risk"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_THRESHOLD = re.compile(r"([A-Z][a-z]+) (?:(below|above) (\d+)|at (\d+)(?:%| per 1,000)? or (lower|more))")
_LOWEST = re.compile(r"leaves the supplier in the lowest tier, ([A-Z][a-z]+)\.")
_MINIMUM = re.compile(r"With fewer than (\d+) deliveries in the period, the rate of on-time deliveries does not count")
_FIGURES = {
    "On-time delivery rate over the last 12 months": "on_time",
    "Defective units per 1,000 received": "defects",
    "Days the oldest open corrective action is overdue": "overdue",
    "Open major audit findings": "findings",
}


def _date(day: str, month: str, year: str) -> dt.date:
    return dt.date(int(year), _MONTHS.index(month) + 1, int(day))


def _count(text: str) -> int:
    return int(text.replace(",", ""))


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("supplier_risk states are text")
    text = item.state
    review_match = re.search(r", on (\d{1,2}) ([A-Z][a-z]+) (\d{4})\.\n", text)
    lowest = _LOWEST.search(text)
    if review_match is None or lowest is None:
        raise ValueError("no review date or lowest tier")
    review = _date(*review_match.groups())
    policy: dict[str, list[tuple[str, bool, Fraction, str]]] = {}
    values: dict[str, Fraction] = {}
    too_few = False
    minimum = _MINIMUM.search(text)
    for line in text.splitlines():
        label, _, rest = line.removeprefix("- ").partition(": ")
        if label in _FIGURES and line.startswith("- ") and rest.endswith("."):
            policy[_FIGURES[label]] = [
                (m.group(1), m.group(2) is not None, Fraction(int(m.group(3) or m.group(4))), m.group(2) or m.group(5))
                for m in _THRESHOLD.finditer(rest)]
        elif label in _FIGURES:
            values[_FIGURES[label]] = Fraction(rest.rstrip("%"))
        elif m := re.match(r"^- Deliveries in the last 12 months: ([\d,]+), of which ([\d,]+) on time$", line):
            deliveries = _count(m.group(1))
            values["on_time"] = Fraction(100 * _count(m.group(2)), deliveries)
            too_few = minimum is not None and deliveries < int(minimum.group(1))
        elif m := re.match(r"^- Units received: ([\d,]+), of which ([\d,]+) defective$", line):
            values["defects"] = Fraction(1000 * _count(m.group(2)), _count(m.group(1)))
        elif m := re.match(r"^- Oldest open corrective action: due on (\d{1,2}) ([A-Z][a-z]+) (\d{4}), still open$",
                           line):
            values["overdue"] = Fraction((review - _date(*m.groups())).days)
        elif m := re.match(r"^- Major audit findings: (\d+) raised, (\d+|none|all) of them closed since$", line):
            raised = int(m.group(1))
            closed = 0 if m.group(2) == "none" else raised if m.group(2) == "all" else int(m.group(2))
            values["findings"] = Fraction(raised - closed)
        elif line == "- Major audit findings: none raised":
            values["findings"] = Fraction(0)
    if set(values) != set(policy) or not policy:
        raise ValueError(f"figures {sorted(values)} do not match the policy's {sorted(policy)}")
    names = [lowest.group(1)]
    for thresholds in policy.values():
        for name, *_ in thresholds:
            if name not in names:
                names.append(name)
    reached = 0
    for figure, thresholds in policy.items():
        if figure == "on_time" and too_few:
            continue
        value = values[figure]
        for name, strict, threshold, direction in thresholds:
            worse_when_lower = direction in ("below", "lower")
            if worse_when_lower:
                passes = value < threshold if strict else value <= threshold
            else:
                passes = value > threshold if strict else value >= threshold
            if passes:
                reached = max(reached, names.index(name))
    return key_of_level(item, names[reached])
