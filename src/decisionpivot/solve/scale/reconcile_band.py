"""Independent solver for reconcile_band: read the team's rules and both sides' lines, find the difference's band.

Reads only the rendered state. Each line is "date, kind reference: signed amount"; amounts are read as whole cents
(``Decimal``, never floats). The rules say whether lines after the statement date are left out and how many days a
payment may be in transit; a ledger payment whose reference the statement lacks is left out when it is that recent
(and not dated after the statement date, which the first rule already removes). The difference is the statement's
sum less the ledger's; each band line is read as a condition on its size ("less than", "or more", "up to", "more
than"), and exactly one must hold.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from decisionpivot.items import Item
from decisionpivot.solve.scale import key_of_level

FAMILY = "reconcile_band"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DATE = r"(\d{1,2}) ([A-Z][a-z]+) (\d{4})"
_LINE = re.compile(rf"^- {_DATE}, (invoice|payment|credit note) (\S+): (-?[\d,]+\.\d\d)$")
_BAND = re.compile(r"^  - ([A-Z][a-z]+): a difference of (.+)$")
_AMOUNT = r"([\d,]+\.\d\d)"
_CONDITIONS = (
    (re.compile(rf"^less than {_AMOUNT}$"), lambda v, a, b: v < a),
    (re.compile(rf"^{_AMOUNT} or more, but less than {_AMOUNT}$"), lambda v, a, b: a <= v < b),
    (re.compile(rf"^{_AMOUNT} or more$"), lambda v, a, b: v >= a),
    (re.compile(rf"^up to {_AMOUNT}$"), lambda v, a, b: v <= a),
    (re.compile(rf"^more than {_AMOUNT}, up to {_AMOUNT}$"), lambda v, a, b: a < v <= b),
    (re.compile(rf"^more than {_AMOUNT}$"), lambda v, a, b: v > a),
)


def _day(day: str, month: str, year: str) -> dt.date:
    return dt.date(int(year), _MONTHS.index(month) + 1, int(day))


def _money(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _holds(condition: str, size: Decimal) -> bool:
    for pattern, test in _CONDITIONS:
        if m := pattern.match(condition):
            amounts = [_money(g) for g in m.groups()]
            return bool(test(size, amounts[0], amounts[-1]))
    raise ValueError(f"unrecognised band condition: {condition!r}")


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("reconcile_band states are text")
    text = item.state
    at = re.search(rf"in the ledger, at {_DATE}\.", text)
    if at is None:
        raise ValueError("no statement date")
    statement_date = _day(*at.groups())
    cutoff = "- Lines dated after the statement date are left out on both sides." in text
    transit = re.search(r"dated at most (\d+) days before the statement date that the statement does not show is in "
                        r"transit", text)
    sides: dict[str, list[tuple[dt.date, str, str, Decimal]]] = {"statement": [], "ledger": []}
    side = ""
    for line in text.splitlines():
        if line.startswith("Statement from "):
            side = "statement"
        elif line.startswith("Ledger account of the supplier"):
            side = "ledger"
        elif side and (m := _LINE.match(line)):
            sides[side].append((_day(m.group(1), m.group(2), m.group(3)), m.group(4), m.group(5), _money(m.group(6))))
    on_statement = {ref for _, _, ref, _ in sides["statement"]}
    totals = {}
    for name, lines in sides.items():
        total = Decimal(0)
        for day, kind, ref, amount in lines:
            if cutoff and day > statement_date:
                continue
            if (name == "ledger" and transit and kind == "payment" and ref not in on_statement
                    and (statement_date - day).days <= int(transit.group(1))):
                continue
            total += amount
        totals[name] = total
    size = abs(totals["statement"] - totals["ledger"])
    chosen = [m.group(1) for m in map(_BAND.match, text.splitlines()) if m and _holds(m.group(2), size)]
    if len(chosen) != 1:
        raise ValueError(f"a difference of {size} falls in {len(chosen)} bands")
    return key_of_level(item, chosen[0])
