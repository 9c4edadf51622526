"""Independent solver for ledger_reconcile: parse both ledgers and the conventions, then tick off.

Reads only the rendered state. From the numbered conventions it takes the date tolerance and every
processor's fee; from the tables, ledger A's entries and ledger B's lines. Each ledger B line is
read for the references it quotes. Then every ledger A entry is ticked off against the lines that
quote its reference: a line quoting several references must carry their total, lines quoting only
this reference must add up to the A amount (less the processor fee for card receipts), and every
line must be dated from the A date to the A date plus the tolerance. The one entry that is not
ticked off is the answer; ``none`` when all are.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict

from decisionpivot.items import Item

FAMILY = "ledger_reconcile"

_MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
        start=1,
    )
}
_TOLERANCE = re.compile(r"(\d+) calendar days?")
_FEE = re.compile(
    r"(?:through (?P<a>\S+) are paid out net of a fee of|(?P<b>\S+) deducts a fee of) "
    r"(?P<fee>[\d,]+\.\d\d) [A-Z]{3}"
)
_REF = re.compile(r"\b[A-Z]{2,3}-\d{4,5}\b")
_CARD = re.compile(r"^card via (\S+)$")


def _cents(text: str) -> int:
    text = text.strip()
    sign = -1 if text.startswith("-") else 1
    return sign * int(text.lstrip("+-").replace(",", "").replace(".", ""))


_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def _day(text: str) -> dt.date:
    text = text.strip()
    if _ISO_DATE.fullmatch(text):
        return dt.date.fromisoformat(text)
    d, month, y = text.split()
    return dt.date(int(y), _MONTHS[month], int(d))


def _cells(line: str) -> list[str] | None:
    """Cells of a table row (pipe or semicolon style); None for headers, rules and prose."""
    if line.startswith("|"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
    elif "; " in line:
        cells = [c.strip() for c in line.split("; ")]
    else:
        return None
    if not cells or cells[0] in ("Entry", "Date") or set(cells[0]) <= {"-"}:
        return None
    return cells


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("ledger_reconcile states are text")
    text = item.state
    head, _, rest = text.partition("\nLedger A (")
    a_part, _, b_part = rest.partition("\nLedger B (")
    tolerances = {int(m) for m in _TOLERANCE.findall(head)}
    if len(tolerances) != 1:
        raise ValueError(f"expected one date tolerance, found {sorted(tolerances)}")
    tolerance = tolerances.pop()
    fees = {(m.group("a") or m.group("b")): _cents(m.group("fee")) for m in _FEE.finditer(head)}

    entries: dict[str, tuple[str, dt.date, int, int]] = {}  # ref -> (id, date, amount, fee)
    for line in a_part.splitlines()[1:]:
        cells = _cells(line)
        if cells is None:
            continue
        entry_id, date, _party, ref, channel, amount = cells
        card = _CARD.match(channel)
        fee = fees[card.group(1)] if card else 0
        entries[ref] = (entry_id, _day(date), _cents(amount), fee)

    quoted: dict[str, list[tuple[dt.date, int, tuple[str, ...]]]] = defaultdict(list)
    for line in b_part.splitlines()[1:]:
        cells = _cells(line)
        if cells is None:
            continue
        date, description, amount = cells
        refs = tuple(r for r in _REF.findall(description) if r in entries)
        for ref in refs:
            quoted[ref].append((_day(date), _cents(amount), refs))

    failing = []
    for ref, (entry_id, _a_date, amount, fee) in entries.items():
        lines = quoted.get(ref, [])
        ok = bool(lines)
        for b_date, _, refs in lines:
            for r in refs:
                if not 0 <= (b_date - entries[r][1]).days <= tolerance:
                    ok = False
        shared = [ln for ln in lines if len(ln[2]) > 1]
        if shared:
            ok = ok and len(lines) == 1 and shared[0][1] == sum(entries[r][2] for r in shared[0][2])
        else:
            ok = ok and len(lines) <= 2 and sum(ln[1] for ln in lines) == amount - fee
        if not ok:
            failing.append(entry_id)
    if len(failing) > 1:
        raise ValueError(f"more than one entry fails: {failing}")
    answer = failing[0] if failing else "none"
    if answer not in item.option_keys:
        raise ValueError(f"{answer} is not an option")
    return answer
