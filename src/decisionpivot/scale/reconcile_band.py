"""reconcile_band (layer F): which band does this statement reconciliation fall in?

Story. At month end the accounts payable team of an invented organisation (a clinic group, a home-goods shop, a
hotel, an electricity supplier, a freight forwarder, a college) compares a supplier's statement with the supplier's
account in its own ledger. The difference is the statement's balance less the ledger's balance (invoices add,
payments and credit notes take off), after the team's rules; its size, whichever way it goes, falls in a band that
decides what happens (filed, noted, queried with the supplier, reviewed, escalated, payments held). The bands'
edges are round amounts (1.00 ... 1,000.00), written either as "up to 50.00" (the edge closes a band) or as
"50.00 or more" (it opens the next), drawn per case.

Levels (difficulty):

1. 3 bands; the two lists of lines, with an invoice amount that differs, or an invoice or a credit note on one side
   only;
2. 4 bands; the ledger also holds lines dated after the statement date, which the rules leave out;
3. 6 bands; as level 2, and a payment the team sent in the last days before the statement date that the statement
   does not show yet is in transit and left out of the ledger's balance (an older payment missing from the
   statement is not: it counts).

Groups. One invoice is on both sides with amounts that differ; one side's amount, the decisive one, moves one cent
at a time, so that the difference's size is the last amount of a band and the first of the next (and one cent
further on one side, :mod:`decisionpivot.scale.boundary`). Everything else - the invoices and payments, one or two
other differences with their own cents, the left-out lines - is drawn without regard to the group's boundary, and
the bands come from a few fixed sets of edges: the decisive invoice's two amounts are thousands, their difference
(the size, less the other differences) shows in no number of the state, and the size is never a round amount on
any line. (A first version let an invoice or credit note on one side alone make the difference up: its amount was
about the size of the difference, and with the edges built around the group's one the content-blind probes read
the level off the amounts and the edges.)

Version history:
* 1.0 - first release (scale suite 1.0).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.formatting import MONTHS, grouped
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilySpec, Group, GroupPlan, Member
from decisionpivot.items import Item
from decisionpivot.scale.boundary import Boundary, ScaleConfig, expected_answers, offset, scale_plans, variation
from decisionpivot.scale.names import PLACE_WORDS, NameBook
from decisionpivot.scale.registry import register
from decisionpivot.score_questions import level_key, level_options

NAME = "reconcile_band"
VERSION = "1.0"
QUESTION = "Which band does this statement reconciliation fall in under the team's rules?"

BANDS = {
    "Agreed": "filed with no further action",
    "Minor": "noted on the reconciliation sheet",
    "Query": "the supplier is asked about the difference",
    "Review": "the accounts payable lead reviews the account",
    "Escalate": "the financial controller is told",
    "Hold": "payments to the supplier are held until the difference is cleared",
}
SCALES = {3: ("Agreed", "Query", "Escalate"), 4: ("Agreed", "Minor", "Query", "Escalate"),
          6: ("Agreed", "Minor", "Query", "Review", "Escalate", "Hold")}
"""The bands of a scale of each size, lowest first."""

EDGES = {
    1: ((100, 5000), (1000, 10000), (500, 2500), (2000, 20000)),
    2: ((100, 1000, 10000), (500, 5000, 25000), (1000, 10000, 50000), (2000, 10000, 100000)),
    3: ((100, 500, 2500, 10000, 50000), (100, 1000, 5000, 25000, 100000), (200, 1000, 5000, 20000, 100000),
        (500, 2000, 10000, 50000, 100000)),
}
"""Band edges in cents at each difficulty level, all round (1.00 ... 1,000.00); a few fixed sets, whatever the
group's boundary, so the edges say nothing about where on the scale a case lies."""
INVOICES = (30000, 900000)
PAYMENTS = (100000, 1500000)
SMALL = (2000, 150000)
"""Ranges in cents of invoices and payments, and of the other differences (an invoice or credit note on one side,
an amount that differs), drawn whatever the boundary."""

INVOICE, PAYMENT, CREDIT = "invoice", "payment", "credit note"
FROM, UP_TO = "from", "up_to"

DECISIVE = (("statement", "ledger"),) * 3
"""The side whose amount of the decisive invoice moves."""

TRANSIT_DAYS = 5
"""Level 3: a payment sent this many days or fewer before the statement date is in transit."""


@dataclass(frozen=True)
class Setting:
    """A domain's buyer and its suppliers."""

    domain: str
    """Item domain."""
    about: str
    """What the buyer is, with its article."""
    trades: tuple[str, ...]
    """Name endings of the buyer; empty: a place word and ``suffix``."""
    suffix: str
    """For a place-named buyer."""
    suppliers: tuple[str, ...]
    """Name endings of its suppliers."""
    currency: str
    """Currency of its accounts."""


SETTINGS = (
    Setting("healthcare", "a group of outpatient clinics", (), "Clinics",
            ("Medical", "Surgical Supplies", "Diagnostics"), "CHF"),
    Setting("retail", "an online home-goods shop", ("Home Goods", "Interiors", "Living"), "",
            ("Textiles", "Furniture", "Lighting", "Ceramics"), "SEK"),
    Setting("hospitality", "a hotel with conference rooms", (), "Hotel",
            ("Linen", "Foods", "Coffee", "Catering Supplies"), "DKK"),
    Setting("energy", "a regional electricity supplier", ("Energy", "Power", "Utilities"), "",
            ("Metering", "Cables", "Electrical"), "NOK"),
    Setting("logistics", "a freight forwarder", ("Freight", "Logistics", "Forwarding"), "",
            ("Pallets", "Packaging", "Fleet Parts"), "EUR"),
    Setting("education", "an adult-education college", (), "College", ("Print", "Laboratory Supplies", "Stationery"),
            "EUR"),
)


@dataclass(frozen=True)
class ReconcileBandConfig(ScaleConfig):
    """Scale sizes of the three difficulty levels."""

    levels: tuple[int, int, int] = (3, 4, 6)
    """Bands at each difficulty level (:data:`SCALES`)."""

    def validate(self) -> None:
        super().validate()
        for level, n in enumerate(self.levels, start=1):
            if n not in SCALES:
                raise ValueError(f"level {level}: the team has scales of {sorted(SCALES)} bands, got {n}")


# --- answer -------------------------------------------------------------------------------------


def _signed(line: dict[str, Any]) -> int:
    """A line's effect on a balance in cents: invoices add, payments and credit notes take off."""
    return line["amount"] if line["kind"] == INVOICE else -line["amount"]


def counted(case: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """The lines of one side (``statement`` or ``ledger``) that the rules count."""
    date = dt.date.fromisoformat(case["date"])
    rules = case["rules"]
    refs = {line["ref"] for line in case["statement"]}
    out = []
    for line in case[side]:
        day = dt.date.fromisoformat(line["date"])
        if rules["cutoff"] and day > date:
            continue
        if (side == "ledger" and rules["transit_days"] and line["kind"] == PAYMENT and line["ref"] not in refs
                and (date - day).days <= rules["transit_days"]):
            continue
        out.append(line)
    return out


def difference(case: dict[str, Any]) -> int:
    """The statement's balance less the ledger's, in cents, as the rules count them."""
    return sum(map(_signed, counted(case, "statement"))) - sum(map(_signed, counted(case, "ledger")))


def band(size: int, edges: list[int], style: str) -> int:
    """The index of the band of a difference of ``size`` cents (without its sign)."""
    return sum(1 for e in edges if (size >= e if style == FROM else size > e))


def answer(case: dict[str, Any]) -> str:
    """The gold level key: the band of the difference's size."""
    return level_key(band(abs(difference(case)), case["rules"]["edges"], case["rules"]["style"]))


# --- case sampling ------------------------------------------------------------------------------


def _amount(rng: random.Random, lo: int, hi: int) -> int:
    """An amount in cents between ``lo`` and ``hi`` with its own cents (never a whole amount)."""
    cents = rng.randrange(lo, hi)
    return cents if cents % 100 else cents + rng.randrange(1, 100)


def _try_case(rng: random.Random, level: int, kind: str, boundary: Boundary) -> dict[str, Any] | None:
    """One attempt at the case of the group's lower_1 member.

    Every line is drawn without regard to the group's boundary; then the one invoice whose two amounts differ (on
    the side ``kind`` names) takes the amount that makes the difference's size the last amount of the lower band.
    Its two amounts are thousands apart from the difference, so the size shows in no number of the state.
    """
    setting = pick(rng, SETTINGS)
    book = NameBook(rng)
    buyer = book.business(setting.trades) if setting.trades else f"{pick(rng, PLACE_WORDS)} {setting.suffix}"
    supplier = book.business(setting.suppliers)
    n = boundary.levels
    style = pick(rng, (FROM, UP_TO))
    edges = list(pick(rng, EDGES[level]))
    target = edges[boundary.edge - 1] - (1 if style == FROM else 0)  # lower_1: the last amount of the lower band
    month_end = dt.date(2025, rng.randrange(2, 12) + 1, 1) - dt.timedelta(days=1)
    start = month_end.replace(day=1) - dt.timedelta(days=30)

    def day() -> str:
        return (start + dt.timedelta(days=rng.randrange((month_end - start).days - 1))).isoformat()

    numbers = rng.sample(range(10000, 99999), 20)
    statement: list[dict[str, Any]] = []
    ledger: list[dict[str, Any]] = []
    for _ in range(rng.randint(3, 5) + (level - 1)):  # invoices on both sides, the same amount
        line = {"ref": f"INV-{numbers.pop()}", "kind": INVOICE, "date": day(), "amount": _amount(rng, *INVOICES)}
        statement.append(line)
        ledger.append(dict(line))
    for _ in range(rng.randint(1, 2)):  # payments on both sides
        line = {"ref": f"PAY-{numbers.pop()}", "kind": PAYMENT, "date": day(), "amount": _amount(rng, *PAYMENTS)}
        statement.append(line)
        ledger.append(dict(line))
    # One or two differences other than the decisive one, each with its own cents.
    for other in rng.sample(("differing", "statement_only", "ledger_credit", "ledger_only"), rng.randint(1, 2)):
        if other == "differing":
            line = pick(rng, [x for x in statement if x["kind"] == INVOICE])
            line["amount"] += pick(rng, (-1, 1)) * _amount(rng, *SMALL)
        elif other == "statement_only":
            statement.append({"ref": f"INV-{numbers.pop()}", "kind": INVOICE, "date": day(),
                              "amount": _amount(rng, *SMALL)})
        else:
            ref = f"CN-{numbers.pop()}" if other == "ledger_credit" else f"INV-{numbers.pop()}"
            ledger.append({"ref": ref, "kind": CREDIT if other == "ledger_credit" else INVOICE, "date": day(),
                           "amount": _amount(rng, *SMALL)})
    rules = {"edges": edges, "style": style, "names": list(SCALES[n]), "cutoff": level >= 2,
             "transit_days": TRANSIT_DAYS if level == 3 else 0}
    case: dict[str, Any] = {"domain": setting.domain, "buyer": buyer, "about": setting.about, "supplier": supplier,
                            "currency": setting.currency, "date": month_end.isoformat(), "rules": rules,
                            "statement": statement, "ledger": ledger}
    if level >= 2:  # lines booked after the statement date: left out
        for _ in range(rng.randint(1, 2)):
            late = month_end + dt.timedelta(days=rng.randrange(1, 6))
            ledger.append({"ref": f"INV-{numbers.pop()}", "kind": INVOICE, "date": late.isoformat(),
                           "amount": _amount(rng, *INVOICES)})
    if level == 3:  # a payment in transit (left out) and, in half the cases, an older one the statement lacks
        sent = month_end - dt.timedelta(days=rng.randrange(0, TRANSIT_DAYS + 1))
        ledger.append({"ref": f"PAY-{numbers.pop()}", "kind": PAYMENT, "date": sent.isoformat(),
                       "amount": _amount(rng, *PAYMENTS)})
        if rng.random() < 0.5:
            old = month_end - dt.timedelta(days=rng.randrange(TRANSIT_DAYS + 1, 20))
            ledger.append({"ref": f"PAY-{numbers.pop()}", "kind": PAYMENT, "date": old.isoformat(),
                           "amount": _amount(rng, *SMALL)})
    # The decisive invoice: matched so far; one side's amount makes the difference's size the target.
    pool = [x for x in statement if x["kind"] == INVOICE and any(
        y["ref"] == x["ref"] and y["amount"] == x["amount"] for y in ledger)]
    if not pool:
        return None
    chosen = pick(rng, pool)
    need = pick(rng, (-1, 1)) * target - difference(case)  # what the decisive amount must add to the difference
    if kind == "statement":
        decisive = chosen
        decisive["amount"] += need
    else:
        decisive = next(y for y in ledger if y["ref"] == chosen["ref"])
        decisive["amount"] -= need
    if need == 0 or any(x["amount"] <= 0 or x["amount"] % 100 == 0 for x in (*statement, *ledger)):
        return None
    if not 3 <= decisive["amount"] % 100 <= 97:  # no member's decisive amount may be a whole one
        return None
    statement.sort(key=lambda x: (x["date"], x["ref"]))
    ledger.sort(key=lambda x: (x["date"], x["ref"]))
    if abs(difference(case)) != target:
        raise RuntimeError(f"{NAME}: the sampled case's difference is {difference(case)}, planned +-{target}")
    side = "statement" if kind == "statement" else "ledger"
    index = next(i for i, line in enumerate(case[side]) if line is decisive)
    case["decisive"] = f"{side}/{index}/amount"
    return case


def _shifted(case: dict[str, Any], more: int) -> dict[str, Any]:
    """The case with the decisive amount moved so that the difference's size grows by ``more`` cents."""
    side, index, _ = case["decisive"].split("/")
    lines = [dict(line) for line in case[side]]
    line = lines[int(index)]
    effect = 1 if side == "statement" else -1  # what a cent more on the line does to the difference
    if line["kind"] != INVOICE:
        effect = -effect
    line["amount"] += more * effect * (1 if difference(case) > 0 else -1)
    return {**case, side: lines}


# --- rendering ----------------------------------------------------------------------------------


def amount_text(cents: int) -> str:
    """'1,284.50', '-2,000.00'."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{grouped(whole)}.{part:02d}"


def _date(iso: str) -> str:
    day = dt.date.fromisoformat(iso)
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def band_lines(rules: dict[str, Any]) -> list[str]:
    """One line per band, lowest first, around the round edges."""
    edges, names = rules["edges"], rules["names"]
    lines = []
    for i, name in enumerate(names):
        if rules["style"] == FROM:
            if i == 0:
                text = f"less than {amount_text(edges[0])}"
            elif i == len(names) - 1:
                text = f"{amount_text(edges[-1])} or more"
            else:
                text = f"{amount_text(edges[i - 1])} or more, but less than {amount_text(edges[i])}"
        elif i == 0:
            text = f"up to {amount_text(edges[0])}"
        elif i == len(names) - 1:
            text = f"more than {amount_text(edges[-1])}"
        else:
            text = f"more than {amount_text(edges[i - 1])}, up to {amount_text(edges[i])}"
        lines.append(f"  - {name}: a difference of {text}")
    return lines


def _line(line: dict[str, Any]) -> str:
    label = {INVOICE: "invoice", PAYMENT: "payment", CREDIT: "credit note"}[line["kind"]]
    return f"- {_date(line['date'])}, {label} {line['ref']}: {amount_text(_signed(line))}"


def render(case: dict[str, Any]) -> str:
    rules = case["rules"]
    lines = [f"Month-end reconciliation at {case['buyer']}, {case['about']}: the statement from {case['supplier']} "
             f"against the supplier's account in the ledger, at {_date(case['date'])}. Amounts in {case['currency']}; "
             "invoices add to a balance, payments and credit notes (shown with a minus sign) take off.", "",
             "The team's rules:",
             "- The difference is the statement's balance less the ledger's balance; its band depends on its size, "
             "whichever way it goes."]
    if rules["cutoff"]:
        lines.append("- Lines dated after the statement date are left out on both sides.")
    if rules["transit_days"]:
        lines.append(f"- A payment in the ledger dated at most {rules['transit_days']} days before the statement date "
                     "that the statement does not show is in transit: it is left out of the ledger's balance. An "
                     "older payment the statement does not show counts.")
    lines.append("- Bands:")
    lines += band_lines(rules)
    lines += ["", f"Statement from {case['supplier']}:"]
    lines += [_line(line) for line in case["statement"]]
    lines += ["", "Ledger account of the supplier:"]
    lines += [_line(line) for line in case["ledger"]]
    return "\n".join(lines)


# --- contrast group -----------------------------------------------------------------------------


def plan(config: ReconcileBandConfig) -> list[GroupPlan]:
    """Boundaries spread so every band is gold about equally often; the decisive amount's kind taken in turn."""
    return scale_plans(config.levels, config.items_per_level, DECISIVE)


def build_group(plan: GroupPlan, rng: random.Random, config: ReconcileBandConfig) -> Group:
    boundary = Boundary.of(plan)
    for _ in range(3000):
        case = _try_case(rng, plan.level, plan.variation, boundary)
        if case is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no case for level {plan.level} group {plan.index}")
    options = level_options([(name, BANDS[name]) for name in SCALES[boundary.levels]])
    members = []
    for side, steps in boundary.members():
        member_case = _shifted(case, offset(side, steps) + 1)  # lower_1 is the sampled case
        members.append(Member(case=member_case, state=render(member_case), answer=answer(member_case),
                              options=options, variation=variation(side, steps)))
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                 decisive=frozenset({case["decisive"]}))


# --- partial-information heuristics -------------------------------------------------------------

_LINE = re.compile(r"^- (\d{1,2}) (\w+) (\d{4}), (invoice|payment|credit note) (\S+): (-?[\d,]+)\.(\d\d)$")
_BAND = re.compile(r"^  - \w+: a difference of (.+)$")
_MONEY = re.compile(r"(-?[\d,]+)\.(\d\d)")


def read_case(item: Item) -> dict[str, Any] | None:
    """The case as far as the rendered state gives it back (None when it does not parse)."""
    text = item.state if isinstance(item.state, str) else ""
    date = re.search(r"in the ledger, at (\d{1,2}) (\w+) (\d{4})\.", text)
    if date is None:
        return None
    sides: dict[str, list[dict[str, Any]]] = {"statement": [], "ledger": []}
    side = None
    for raw in text.splitlines():
        if raw.startswith("Statement from "):
            side = "statement"
        elif raw.startswith("Ledger account"):
            side = "ledger"
        elif side and (m := _LINE.match(raw)):
            kind = {"invoice": INVOICE, "payment": PAYMENT, "credit note": CREDIT}[m[4]]
            cents = abs(int(m[6].replace(",", "")) * 100) + int(m[7])
            sides[side].append({"ref": m[5], "kind": kind, "amount": cents,
                                "date": dt.date(int(m[3]), MONTHS.index(m[2]) + 1, int(m[1])).isoformat()})
    bands = [m[1] for m in map(_BAND.match, text.splitlines()) if m]
    edges = []
    for text_band in bands[1:]:
        money = _MONEY.search(text_band)
        if money is None:
            return None
        edges.append(int(money[1].replace(",", "")) * 100 + int(money[2]))
    transit = re.search(r"dated at most (\d+) days before the statement date", text)
    return {"date": dt.date(int(date[3]), MONTHS.index(date[2]) + 1, int(date[1])).isoformat(),
            "rules": {"edges": edges, "style": FROM if bands and "or more" in bands[-1] else UP_TO,
                      "cutoff": "Lines dated after the statement date" in text,
                      "transit_days": int(transit[1]) if transit else 0}, **sides}


def _one_hot(item: Item, level: int) -> dict[str, float]:
    return {key: float(key == level_key(level)) for key in item.option_keys}


def heuristic_largest_only(item: Item) -> dict[str, float]:
    """Take the difference as the largest single mismatch between the two sides, not the sum of them all."""
    case = read_case(item)
    if case is None:
        return {key: 1 / len(item.options) for key in item.option_keys}
    statement = {x["ref"]: _signed(x) for x in counted(case, "statement")}
    ledger = {x["ref"]: _signed(x) for x in counted(case, "ledger")}
    gaps = [abs(statement.get(ref, 0) - ledger.get(ref, 0)) for ref in statement.keys() | ledger.keys()]
    return _one_hot(item, band(max(gaps, default=0), case["rules"]["edges"], case["rules"]["style"]))


def heuristic_edge_other_side(item: Item) -> dict[str, float]:
    """Find the difference right but put a difference exactly on an edge into the other band."""
    case = read_case(item)
    if case is None:
        return {key: 1 / len(item.options) for key in item.option_keys}
    rules = case["rules"]
    return _one_hot(item, band(abs(difference(case)), rules["edges"], UP_TO if rules["style"] == FROM else FROM))


register(FamilySpec(
    name=NAME,
    layer="F",
    version=VERSION,
    question=QUESTION,
    config_type=ReconcileBandConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={"largest_only": heuristic_largest_only, "edge_other_side": heuristic_edge_other_side},
))
