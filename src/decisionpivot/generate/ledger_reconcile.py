"""ledger_reconcile (layer F): which entry of ledger A does not reconcile with ledger B?

Story. An invented organisation reconciles one month of its bank account. Ledger A is its own cash
book (entry id, date, counterparty, reference, channel, signed amount); ledger B is the bank
statement of the same period (date, description quoting the reference, signed amount) with a few
bank-only lines (charges, interest) that the conventions tell the reader to ignore. Numbered
matching conventions say how a ledger B line settles a ledger A entry:

* reference: a B line belongs to the entry whose reference it quotes;
* amount: to the cent, same sign;
* date tolerance: the bank posts on the A date or up to N calendar days later, never earlier;
* split lines (level 2+): two B lines quoting one reference must add up to the A amount;
* fees netted (level 2+): card receipts through a named processor arrive net of a stated fixed fee;
* batch lines (level 3): one deposit line lists several cheque references and carries their total.

Options are five entries of ledger A (listed in ledger order, keys are the entry ids such as
``A-017``) and ``none``; at most one entry fails, and a failing entry is always an option.

Groups. One base case in which every entry reconciles is drawn per group; every member is the base
case with at most one entry broken by modifying its ledger B line(s) only:

* ``missing_line``: the entry's B line(s) are absent (a cheque is dropped from its batch line,
  whose total drops by that cheque);
* ``changed_amount``: the B amount of a single or fee-netted line is changed (one cent, a round
  sum, a digit transposition, a fee not deducted or deducted twice);
* ``late_date``: the B line sits exactly at the tolerance in the base case (and reconciles) and is
  moved one day past it in the member;
* ``broken_split``: one instalment of a split payment changes amount or is absent, so the
  instalments no longer add up.

The member with no modification (variation None) answers ``none``. Members of a group break
different entries, so every member of a group has a different answer; their cases differ only at
the modified ledger B lines (``b/<i>``). Per level there are 66 groups of three and one pair (67
groups, 201 in all); 100 groups hold the untouched member (``none`` is gold for 100 items).
Variation counts over the 500 breaking members: missing_line 142, changed_amount 140, late_date 110,
broken_split 108 (no splits at level 1). Gold position is balanced by construction: a rotating
counter hands out option positions 1-5 to the breaking members (100 each) and ``none`` is always
the sixth option (100 items).

Levels: ledgers of 8, 14 and 22 entries; level 1 has the date tolerance only, level 2 adds three
split entries and three fee-netted card receipts through one processor, level 3 four splits, four
fee-netted receipts through two processors with different fees and two batch deposit lines of three
cheques each. Wording varies per case (intro, rule phrasing, description templates, table style,
date style); eight domains.

Version history:
* 1.0 - first release.
* 1.1 - members break different entries; boundary dates at exactly the tolerance in the base case;
  bank-only lines; gold position balanced by construction.
* 1.2 - text revision (core 1.2): the cash-book column "Counterparty", a word the British English
  dictionary lacks, is headed "Payer or payee"; the intro's article agrees with the business
  ("an adult education firm", was "a adult education firm"); the reconciliation is done by an
  accounts, finance, bookkeeping or treasury team (was any department of the domain: a front desk,
  kitchen or stores team reconciling the bank account). Cases and answers are unchanged.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before. Payers and
  payees are companies with their region's legal form ("Sandberg AB"; 1.2 named them like the firm's own
  line of business). The question no longer assumes its answer: "Which entry of ledger A, if any, does not
  reconcile with ledger B?" (1.2: "Which entry ... does not reconcile?" with a "none" option).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS, Domain
from decisionpivot.generate.common.formatting import MONTHS, iso_date, long_date
from decisionpivot.generate.common.names import NameForge, company_stem
from decisionpivot.generate.common.wording import a_or_an, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "ledger_reconcile"
VERSION = "1.3"
QUESTION = "Which entry of ledger A, if any, does not reconcile with ledger B?"
"""1.2 asked "Which entry of ledger A does not reconcile ...?", assuming one fails, over options that include
"every entry reconciles" (gold for a sixth of the items)."""
NONE_KEY = "none"
N_OPTIONS = 5
VARIATIONS = ("missing_line", "changed_amount", "late_date", "broken_split")
ENTRY_MEANINGS = (
    "entry {id} does not reconcile with ledger B",
    "entry {id} of ledger A fails to reconcile",
)
NONE_MEANING = "every entry of ledger A reconciles with ledger B"

# Which entry types each variation can break (a batch line settles several entries, so changing its
# amount or date would break all of them; splits break through ``broken_split``).
ELIGIBLE = {
    "missing_line": ("plain", "fee", "split", "batch"),
    "changed_amount": ("plain", "fee"),
    "late_date": ("plain", "fee", "split"),
    "broken_split": ("split",),
}

TEAMS = ("accounts", "finance", "bookkeeping", "treasury")
"""Who reconciles the bank account (four, like every domain's departments, so the draw is unchanged)."""
INTROS = (
    "{company}, {a_business} firm, reconciles its {currency} operating account at {bank} for {month}. "
    "Ledger A is the company's own cash book; ledger B is the bank statement for the same period.",
    "Month-end reconciliation for {month}: the {department} team of {company} ({business}) compares its "
    "own books (ledger A) with the statement that {bank} issued for the account (ledger B).",
    "Reconciliation worksheet of {company}, {month}. Ledger A lists the entries booked by the "
    "{department} department; ledger B lists what {bank} posted to the {currency} account.",
)
RULE_REFERENCE = (
    "A line of ledger B belongs to the entry of ledger A whose reference it quotes. Lines that quote "
    "no reference of ledger A (charges, interest, rentals) are outside the reconciliation.",
    "Every entry of ledger A is settled by the ledger B line or lines quoting its reference; bank-only "
    "lines without a ledger A reference are ignored.",
)
RULE_AMOUNT = (
    "Amounts must agree to the cent, with the same sign (receipts positive, payments negative).",
    "The ledger B amount must equal the ledger A amount exactly, to the cent; both ledgers show "
    "receipts as positive and payments as negative amounts.",
)
RULE_DATE = (
    "The bank posts a line on the date of its ledger A entry or up to {n} calendar {days} later, "
    "never earlier; a line posted later than that does not reconcile.",
    "Date tolerance: {n} calendar {days}. A ledger B line may not be dated before its ledger A entry "
    "nor more than {n} calendar {days} after it.",
)
RULE_SPLIT = (
    "An entry may be paid in two instalments: two ledger B lines quoting its reference, which together "
    "must add up to the ledger A amount; each instalment must meet the date rule.",
    "Split payments: when two ledger B lines quote the same reference, their sum must equal the ledger "
    "A amount and both lines must meet the date rule.",
)
RULE_FEE = (
    "Card receipts collected through {p} are paid out net of a fee of {fee} per payment: the ledger B "
    "line shows the ledger A amount minus {fee}.",
    "{p} deducts a fee of {fee} from each card receipt before paying it out, so its ledger B line is "
    "the ledger A amount less {fee}.",
)
RULE_BATCH = (
    "A batch deposit line lists the references of several cheques; its amount must equal the sum of "
    "their ledger A amounts, and its date must meet the date rule for each of them.",
    "Batch lines settle several entries at once: every reference listed is settled by the line, the "
    "line's amount must be the total of those entries' ledger A amounts, and the date rule applies to "
    "each listed entry.",
)
RULE_FINAL = (
    "An entry reconciles when all of its ledger B lines are present and meet every rule above. At "
    "most one entry of ledger A fails to reconcile.",
    "An entry of ledger A reconciles only if the ledger B lines that settle it are all there and keep "
    "every convention above; no more than one entry fails.",
)
# Descriptions of ledger B lines (no ';' or '|', which separate table cells).
DESC_SINGLE_IN = ("Credit transfer from {party}, ref {ref}", "Incoming payment {party} ref {ref}")
DESC_SINGLE_OUT = ("Transfer to {party}, ref {ref}", "Outgoing payment {party} ref {ref}")
DESC_DEBIT = ("Direct debit by {party}, ref {ref}", "Direct debit {party} ref {ref}")
DESC_CHEQUE = ("Cheque deposit, ref {ref}", "Cheque paid in, ref {ref}")
DESC_FEE = ("{p} payout, ref {ref}, net of fee", "Card settlement {p} ref {ref} (fee deducted)")
DESC_PART = ("{base}, instalment {k} of 2", "{base} (part {k}/2)")
DESC_BATCH = (
    "Batch deposit of {count} {cheques}, refs {refs}",
    "Cheque batch ({count} {cheques}) refs {refs}",
)
BANK_ONLY = (
    ("Account maintenance charge", -1),
    ("Interest credited", 1),
    ("Card terminal rental", -1),
    ("Statement fee", -1),
    ("Overdraft arrangement fee", -1),
    ("Interest on deposit", 1),
)
TABLE_STYLES = ("pipe", "semicolon")
DATE_STYLES = ("iso", "long")
FEES_CENTS = (150, 175, 200, 250, 275, 300, 350, 400, 450)


@dataclass(frozen=True)
class LedgerReconcileConfig(FamilyConfig):
    """Ledger sizes and conventions per level, and how the groups are composed."""

    entries: tuple[int, int, int] = (8, 14, 22)
    """Entries of ledger A at levels 1, 2, 3."""
    splits: tuple[int, int, int] = (0, 3, 4)
    """Entries paid in two instalments."""
    fee_entries: tuple[int, int, int] = (0, 3, 4)
    """Card receipts paid out net of a processor fee."""
    processors: tuple[int, int, int] = (0, 1, 2)
    """Card processors (each with its own fee)."""
    batches: tuple[int, int, int] = (0, 0, 2)
    """Batch deposit lines (three cheques each)."""
    tolerance: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((1, 3), (2, 4), (2, 5))
    """Range of the date tolerance N (calendar days) per level."""
    bank_only: tuple[int, int, int] = (1, 2, 3)
    """Bank-only lines (charges, interest) in ledger B."""
    variation_weights: tuple[tuple[int, int, int, int], ...] = (
        (56, 55, 55, 0),
        (43, 43, 27, 54),
        (43, 42, 28, 54),
    )
    """Weights of missing_line, changed_amount, late_date, broken_split among breaking members per level
    (exact counts for the release's 200 items per level)."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level < 6:
            raise ValueError("items_per_level must be at least 6 (groups of three with a 'none' member)")
        for level in (1, 2, 3):
            i = level - 1
            n, s, f, b = self.entries[i], self.splits[i], self.fee_entries[i], self.batches[i]
            lo, hi = self.tolerance[i]
            weights = self.variation_weights[i]
            if n < N_OPTIONS + 1:
                raise ValueError(f"level {level}: {n} entries cannot give {N_OPTIONS} options")
            if s + f + 3 * b > n - 2:
                raise ValueError(
                    f"level {level}: {s} splits, {f} fee entries and {b} batches need more than {n} entries"
                )
            if f and not self.processors[i]:
                raise ValueError(f"level {level}: fee entries need at least one processor")
            if self.processors[i] > max(f, 0) or self.processors[i] > 3:
                raise ValueError(f"level {level}: {self.processors[i]} processors for {f} fee entries")
            if not 1 <= lo <= hi <= 10:
                raise ValueError(f"level {level}: tolerance range {lo}-{hi} must lie within 1-10 days")
            if b and lo < 2:
                raise ValueError(f"level {level}: batches need a tolerance of at least 2 days")
            if len(weights) != len(VARIATIONS) or min(weights) < 0 or sum(weights) == 0:
                raise ValueError(
                    f"level {level}: variation_weights must be {len(VARIATIONS)} non-negative weights"
                )
            if weights[VARIATIONS.index("broken_split")] and s < 3:
                raise ValueError(f"level {level}: broken splits need at least three split entries per ledger")
            if self.bank_only[i] < 0:
                raise ValueError(f"level {level}: bank_only must not be negative")


# --- case sampling ------------------------------------------------------------------------------


def _signed(cents: int) -> str:
    sign = "-" if cents < 0 else "+"
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{frac:02d}"


def _amount(rng: random.Random) -> int:
    """Cents with a spread of magnitudes (80.00 to about 25,000.00)."""
    exponent = rng.uniform(3.9, 6.4)
    return int(10**exponent) + rng.randrange(100)


def _lag(rng: random.Random, tolerance: int) -> int:
    """Posting delay in days: often exactly at the tolerance, otherwise anywhere inside it."""
    return tolerance if rng.random() < 0.35 else rng.randrange(tolerance + 1)


def _reference(rng: random.Random, prefix: str, used: set[str]) -> str:
    while True:
        ref = f"{prefix}-{rng.randrange(1000, 100000)}"
        if ref not in used:
            used.add(ref)
            return ref


def _sample_base(rng: random.Random, level: int, config: LedgerReconcileConfig) -> dict[str, Any]:
    """A fully reconciling pair of ledgers (no options yet)."""
    i = level - 1
    domain: Domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    tolerance = rng.randint(*config.tolerance[i])
    year, month = 2026, rng.randrange(1, 13)
    start = dt.date(year, month, 1)
    n = config.entries[i]
    company = forge.organisation(domain.name)
    bank = f"{company_stem(rng, domain.name)} Bank"
    processors = []
    for _ in range(config.processors[i]):
        processors.append(
            {
                "name": f"{forge.word().capitalize()}Pay",
                "fee": pick(rng, [f for f in FEES_CENTS if f not in [p["fee"] for p in processors]]),
            }
        )
    parties = [forge.company() for _ in range(max(4, n * 2 // 3))]  # customers and suppliers: "Sandberg AB"
    used_refs: set[str] = set()

    types = (
        ["split"] * config.splits[i]
        + ["fee"] * config.fee_entries[i]
        + ["plain"] * (n - config.splits[i] - config.fee_entries[i] - 3 * config.batches[i])
    )
    raw: list[dict[str, Any]] = []
    for t in types:
        inflow = t == "fee" or rng.random() < 0.55
        cents = _amount(rng)
        if t == "fee":
            processor = pick(rng, processors)
            channel = f"card via {processor['name']}"
        elif t == "split":
            processor = None
            channel = "bank transfer"
        elif inflow:
            processor = None
            channel = pick(rng, ("bank transfer", "bank transfer", "cheque"))
        else:
            processor = None
            channel = pick(rng, ("bank transfer", "direct debit"))
        raw.append(
            {
                "type": t,
                "day": rng.randrange(0, 24),
                "party": pick(rng, parties),
                "ref": _reference(rng, "INV" if inflow else pick(rng, ("PO", "BL")), used_refs),
                "channel": channel,
                "cents": cents if inflow else -cents,
                "processor": processor["name"] if processor else None,
                "batch": None,
            }
        )
    for b in range(config.batches[i]):
        day = rng.randrange(0, 22)
        for k in range(3):
            raw.append(
                {
                    "type": "batch",
                    "day": day + (1 if k == 2 and rng.random() < 0.5 else 0),
                    "party": pick(rng, parties),
                    "ref": _reference(rng, "INV", used_refs),
                    "channel": "cheque",
                    "cents": _amount(rng),
                    "processor": None,
                    "batch": b,
                }
            )
    order = sorted(range(len(raw)), key=lambda k: (raw[k]["day"], rng.random()))
    first_id = rng.randrange(1, 880)
    entries = []
    for pos, k in enumerate(order):
        e = raw[k]
        entries.append(
            {
                "id": f"A-{first_id + pos:03d}",
                "date": iso_date(start + dt.timedelta(days=e["day"])),
                "party": e["party"],
                "ref": e["ref"],
                "channel": e["channel"],
                "cents": e["cents"],
                "type": e["type"],
                "processor": e["processor"],
                "batch": e["batch"],
            }
        )

    fee_of = {p["name"]: p["fee"] for p in processors}
    lines: list[dict[str, Any]] = []
    for e in entries:
        a_date = dt.date.fromisoformat(e["date"])
        base = {
            "refs": [e["ref"]],
            "party": e["party"],
            "label": None,
            "omitted": False,
            "variant": rng.randrange(2),
        }
        if e["type"] == "plain":
            if e["cents"] > 0:
                kind = "cheque" if e["channel"] == "cheque" else "in"
            else:
                kind = "debit" if e["channel"] == "direct debit" else "out"
            lines.append(
                {
                    **base,
                    "kind": kind,
                    "part": 0,
                    "processor": None,
                    "cents": e["cents"],
                    "date": iso_date(a_date + dt.timedelta(days=_lag(rng, tolerance))),
                }
            )
        elif e["type"] == "fee":
            lines.append(
                {
                    **base,
                    "kind": "fee",
                    "part": 0,
                    "processor": e["processor"],
                    "cents": e["cents"] - fee_of[e["processor"]],
                    "date": iso_date(a_date + dt.timedelta(days=_lag(rng, tolerance))),
                }
            )
        elif e["type"] == "split":
            kind = "in" if e["cents"] > 0 else "out"
            share = round(e["cents"] * rng.uniform(0.25, 0.75))
            lags = sorted(_lag(rng, tolerance) for _ in range(2))  # the second instalment never comes first
            for part, cents, lag in ((1, share, lags[0]), (2, e["cents"] - share, lags[1])):
                lines.append(
                    {
                        **base,
                        "kind": kind,
                        "part": part,
                        "processor": None,
                        "cents": cents,
                        "date": iso_date(a_date + dt.timedelta(days=lag)),
                    }
                )
    for b in range(config.batches[i]):
        members = [e for e in entries if e["batch"] == b]
        dates = [dt.date.fromisoformat(e["date"]) for e in members]
        slack = tolerance - (max(dates) - min(dates)).days
        lag = slack if rng.random() < 0.35 else rng.randrange(slack + 1)
        lines.append(
            {
                "refs": [e["ref"] for e in members],
                "party": None,
                "label": None,
                "omitted": False,
                "variant": rng.randrange(2),
                "kind": "batch",
                "part": 0,
                "processor": None,
                "cents": sum(e["cents"] for e in members),
                "date": iso_date(max(dates) + dt.timedelta(days=lag)),
            }
        )
    for label, sign in rng.sample(BANK_ONLY, config.bank_only[i]):
        lines.append(
            {
                "refs": [],
                "party": None,
                "label": label,
                "omitted": False,
                "variant": 0,
                "kind": "bank",
                "part": 0,
                "processor": None,
                "cents": sign * rng.randrange(90, 4000),
                "date": iso_date(start + dt.timedelta(days=rng.randrange(0, 28))),
            }
        )
    lines.sort(key=lambda line: (line["date"], rng.random()))

    wording = {
        "intro": rng.randrange(len(INTROS)),
        "rules": {
            k: rng.randrange(2) for k in ("reference", "amount", "date", "split", "fee", "batch", "final")
        },
        "meaning": rng.randrange(len(ENTRY_MEANINGS)),
        "table": pick(rng, TABLE_STYLES),
        "dates": pick(rng, DATE_STYLES),
    }
    return {
        "domain": domain.name,
        "business": domain.business,
        "currency": domain.currency,
        "department": pick(rng, TEAMS),
        "company": company,
        "bank": bank,
        "month": f"{MONTHS[month - 1]} {year}",
        "tolerance": tolerance,
        "processors": processors,
        "has_splits": config.splits[i] > 0,
        "has_batches": config.batches[i] > 0,
        "wording": wording,
        "a": entries,
        "b": lines,
    }


def _choose_options(
    rng: random.Random, entries: list[dict[str, Any]], needs: dict[int, str]
) -> list[int] | None:
    """Indices of five entries in ledger order such that position p is eligible for needs[p].

    Drawn uniformly among all valid choices (a small DP over positions and ledger indices).
    """
    n = len(entries)

    def ok(p: int, j: int) -> bool:
        return p not in needs or entries[j]["type"] in ELIGIBLE[needs[p]]

    ways = [[0] * (n + 2) for _ in range(N_OPTIONS + 1)]
    for j in range(n + 1):
        ways[N_OPTIONS][j] = 1
    for p in range(N_OPTIONS - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            ways[p][j] = ways[p][j + 1] + (ways[p + 1][j + 1] if ok(p, j) else 0)
    if ways[0][0] == 0:
        return None
    chosen, j = [], 0
    for p in range(N_OPTIONS):
        candidates = [k for k in range(j, n) if ok(p, k) and ways[p + 1][k + 1]]
        weights = [ways[p + 1][k + 1] for k in candidates]
        k = rng.choices(candidates, weights=weights)[0]
        chosen.append(k)
        j = k + 1
    return chosen


# --- member modifications -------------------------------------------------------------------------


def _lines_of(case: dict[str, Any], ref: str) -> list[int]:
    return [k for k, line in enumerate(case["b"]) if ref in line["refs"]]


def _transpose(cents: int, rng: random.Random) -> int | None:
    digits = list(str(abs(cents)))
    spots = [
        k for k in range(len(digits) - 1) if digits[k] != digits[k + 1] and (k > 0 or digits[k + 1] != "0")
    ]
    if not spots:
        return None
    k = pick(rng, spots)
    digits[k], digits[k + 1] = digits[k + 1], digits[k]
    return int("".join(digits)) * (1 if cents > 0 else -1)


def _prepare_late(case: dict[str, Any], entry: dict[str, Any], rng: random.Random) -> int:
    """Put one line of ``entry`` exactly at the tolerance in the base case; return its index.

    For a split entry it is the second instalment, so the instalments stay in order.
    """
    lines = _lines_of(case, entry["ref"])
    k = next(j for j in lines if case["b"][j]["part"] == 2) if entry["type"] == "split" else pick(rng, lines)
    a_date = dt.date.fromisoformat(entry["date"])
    case["b"][k]["date"] = iso_date(a_date + dt.timedelta(days=case["tolerance"]))
    return k


def _modify(
    case: dict[str, Any], entry: dict[str, Any], variation: str, rng: random.Random, late_line: int | None
) -> list[int]:
    """Break ``entry`` in ``case`` (in place) by changing its ledger B line(s); return their indices."""
    lines = _lines_of(case, entry["ref"])
    if variation == "missing_line":
        if entry["type"] == "batch":
            (k,) = lines
            line = case["b"][k]
            line["refs"] = [r for r in line["refs"] if r != entry["ref"]]
            line["cents"] -= entry["cents"]
            return [k]
        for k in lines:
            case["b"][k]["omitted"] = True
        return lines
    if variation == "changed_amount":
        (k,) = lines
        line = case["b"][k]
        how = pick(
            rng,
            ("cent", "cent", "round", "transpose", "fee")
            if entry["type"] == "fee"
            else ("cent", "cent", "round", "transpose"),
        )
        sign = 1 if line["cents"] > 0 else -1
        if how == "fee":
            fee = entry["cents"] - line["cents"]
            line["cents"] = pick(rng, (entry["cents"], entry["cents"] - 2 * fee))
        elif how == "transpose" and (swapped := _transpose(line["cents"], rng)) is not None:
            line["cents"] = swapped
        elif how == "cent":
            line["cents"] += pick(rng, (-1, 1)) * sign
        else:
            step = pick(rng, [s for s in (100, 1000, 10000) if s * 3 < abs(line["cents"])])
            line["cents"] += pick(rng, (-1, 1)) * step
        return [k]
    if variation == "late_date":
        assert late_line is not None
        line = case["b"][late_line]
        line["date"] = iso_date(dt.date.fromisoformat(line["date"]) + dt.timedelta(days=1))
        return [late_line]
    if variation == "broken_split":
        k = pick(rng, lines)
        line = case["b"][k]
        if rng.random() < 0.3:
            line["omitted"] = True
        else:
            step = pick(rng, (1, 1, 100, 1000))
            if step * 3 >= abs(line["cents"]):
                step = 1
            line["cents"] += pick(rng, (-1, 1)) * step
        return [k]
    raise ValueError(f"unknown variation {variation!r}")


# --- answer ---------------------------------------------------------------------------------------


def _entry_reconciles(case: dict[str, Any], entry: dict[str, Any]) -> bool:
    fee_of = {p["name"]: p["fee"] for p in case["processors"]}
    by_ref = {e["ref"]: e for e in case["a"]}
    lines = [b for b in case["b"] if not b["omitted"] and entry["ref"] in b["refs"]]
    if not lines:
        return False
    for line in lines:
        for ref in line["refs"]:
            lag = (dt.date.fromisoformat(line["date"]) - dt.date.fromisoformat(by_ref[ref]["date"])).days
            if not 0 <= lag <= case["tolerance"]:
                return False
    if len(lines) == 1 and len(lines[0]["refs"]) > 1:
        return lines[0]["cents"] == sum(by_ref[r]["cents"] for r in lines[0]["refs"])
    if any(len(line["refs"]) != 1 for line in lines) or len(lines) > 2:
        return False
    expected = entry["cents"] - (fee_of[entry["processor"]] if entry["processor"] else 0)
    return sum(line["cents"] for line in lines) == expected


def answer(case: dict[str, Any]) -> str:
    """The option key of the one entry that fails to reconcile, or ``none``."""
    failing = [e["id"] for e in case["a"] if not _entry_reconciles(case, e)]
    if len(failing) > 1:
        raise ValueError(f"{NAME}: more than one entry fails ({failing})")
    if not failing:
        return NONE_KEY
    if failing[0] not in case["options"]:
        raise ValueError(f"{NAME}: failing entry {failing[0]} is not an option")
    return failing[0]


# --- rendering ------------------------------------------------------------------------------------


def _date(case: dict[str, Any], iso: str) -> str:
    return iso if case["wording"]["dates"] == "iso" else long_date(dt.date.fromisoformat(iso))


def _describe(line: dict[str, Any]) -> str:
    v = line["variant"]
    kind = line["kind"]
    if kind == "bank":
        return str(line["label"])
    if kind == "batch":
        count = len(line["refs"])
        return DESC_BATCH[v].format(
            count=count, cheques="cheque" if count == 1 else "cheques", refs=", ".join(line["refs"])
        )
    ref = line["refs"][0]
    if kind == "fee":
        text = DESC_FEE[v].format(p=line["processor"], ref=ref)
    else:
        templates = {
            "in": DESC_SINGLE_IN,
            "out": DESC_SINGLE_OUT,
            "debit": DESC_DEBIT,
            "cheque": DESC_CHEQUE,
        }[kind]
        text = templates[v].format(party=line["party"], ref=ref)
    if line["part"]:
        text = DESC_PART[v].format(base=text, k=line["part"])
    return text


def _table(style: str, header: list[str], rows: list[list[str]]) -> list[str]:
    if style == "pipe":
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return out + ["| " + " | ".join(r) + " |" for r in rows]
    return ["; ".join(header)] + ["; ".join(r) for r in rows]


def _money_text(cents: int, currency: str) -> str:
    whole, frac = divmod(cents, 100)
    return f"{whole:,}.{frac:02d} {currency}"


def render(case: dict[str, Any]) -> str:
    w = case["wording"]
    r = w["rules"]
    cur = case["currency"]
    n = case["tolerance"]
    rules = [
        RULE_REFERENCE[r["reference"]],
        RULE_AMOUNT[r["amount"]],
        RULE_DATE[r["date"]].format(n=n, days="day" if n == 1 else "days"),
    ]
    if case["has_splits"]:
        rules.append(RULE_SPLIT[r["split"]])
    for p in case["processors"]:
        rules.append(RULE_FEE[r["fee"]].format(p=p["name"], fee=_money_text(p["fee"], cur)))
    if case["has_batches"]:
        rules.append(RULE_BATCH[r["batch"]])
    rules.append(RULE_FINAL[r["final"]])
    lines = [
        INTROS[w["intro"]].format(
            company=case["company"],
            business=case["business"],
            a_business=a_or_an(case["business"]),
            currency=cur,
            bank=case["bank"],
            month=case["month"],
            department=case["department"],
        ),
        "",
        "Matching conventions:",
    ]
    lines += [f"{k}. {rule}" for k, rule in enumerate(rules, start=1)]
    lines += ["", f"Ledger A ({case['company']}, cash book, {len(case['a'])} entries):"]
    lines += _table(
        w["table"],
        ["Entry", "Date", "Payer or payee", "Reference", "Channel", f"Amount ({cur})"],
        [
            [e["id"], _date(case, e["date"]), e["party"], e["ref"], e["channel"], _signed(e["cents"])]
            for e in case["a"]
        ],
    )
    shown = sorted(
        (line for line in case["b"] if not line["omitted"]), key=lambda line: (line["date"], line["part"])
    )  # stable: ties keep the statement's order
    lines += ["", f"Ledger B ({case['bank']}, statement):"]
    lines += _table(
        w["table"],
        ["Date", "Description", f"Amount ({cur})"],
        [[_date(case, b["date"]), _describe(b), _signed(b["cents"])] for b in shown],
    )
    return "\n".join(lines)


def _options(case: dict[str, Any]) -> tuple[Option, ...]:
    meaning = ENTRY_MEANINGS[case["wording"]["meaning"]]
    return (*(Option(key, meaning.format(id=key)) for key in case["options"]), Option(NONE_KEY, NONE_MEANING))


# --- contrast groups ------------------------------------------------------------------------------


def _spread(counts: list[int]) -> list[int]:
    """Indices 0..len(counts)-1, each counts[i] times, interleaved as evenly as possible."""
    total = sum(counts)
    out: list[int] = []
    done = [0] * len(counts)
    for s in range(total):
        k = max(range(len(counts)), key=lambda t: (counts[t] * (s + 1) / total - done[t], -t))
        done[k] += 1
        out.append(k)
    return out


def _quota(weights: tuple[int, ...] | list[int], total: int) -> list[int]:
    """Split ``total`` in proportion to ``weights`` (largest remainder; exact when they already sum to it)."""
    wsum = sum(weights)
    exact = [w * total / wsum for w in weights]
    counts = [int(x) for x in exact]
    for k in sorted(range(len(weights)), key=lambda t: (-(exact[t] - counts[t]), t))[: total - sum(counts)]:
        counts[k] += 1
    return counts


def plan(config: LedgerReconcileConfig) -> list[GroupPlan]:
    """Groups of three (plus one or two pairs per level), ``none`` members spread, positions rotated."""
    per_level = config.items_per_level
    pairs = (3 - per_level % 3) % 3
    triples = (per_level - 2 * pairs) // 3
    n_groups = triples + pairs
    none_total = (3 * per_level) // 6
    none_per_level = [none_total // 3 + (1 if k < none_total % 3 else 0) for k in range(3)]
    plans: list[GroupPlan] = []
    position = 0
    for level in (1, 2, 3):
        n_none = min(none_per_level[level - 1], n_groups)
        # spread the groups holding a 'none' member evenly over the level
        with_none = {round(k * n_groups / n_none) for k in range(n_none)} if n_none else set()
        if len(with_none) != n_none:
            raise ValueError("could not spread the 'none' members")
        sizes = [3] * triples + [2] * pairs
        slots = per_level - n_none
        counts = _quota(config.variation_weights[level - 1], slots)
        sequence = [VARIATIONS[k] for k in _spread(counts)]
        cursor = 0
        for g in range(n_groups):
            members: list[tuple[int, str | None]] = []
            if g in with_none:
                members.append((N_OPTIONS, None))
            for _ in range(sizes[g] - len(members)):
                members.append((position % N_OPTIONS, sequence[cursor]))
                position += 1
                cursor += 1
            name = "+".join(sorted(v or NONE_KEY for _, v in members))
            plans.append(GroupPlan(level=level, index=g, variation=name, params={"members": tuple(members)}))
    return plans


def build_group(plan: GroupPlan, rng: random.Random, config: LedgerReconcileConfig) -> Group:
    specs: tuple[tuple[int, str | None], ...] = plan.params["members"]
    needs = {p: v for p, v in specs if v is not None}
    for _ in range(50):
        base = _sample_base(rng, plan.level, config)
        chosen = _choose_options(rng, base["a"], needs)
        if chosen is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no ledger fits the planned options {needs}")
    base["options"] = [base["a"][k]["id"] for k in chosen]
    late_lines = {p: _prepare_late(base, base["a"][chosen[p]], rng) for p, v in specs if v == "late_date"}
    if answer(base) != NONE_KEY:
        raise RuntimeError(f"{NAME}: the base case does not reconcile")
    members = []
    decisive: set[str] = set()
    for p, variation in specs:
        case = _copy(base)
        if variation is not None:
            entry = case["a"][chosen[p]]
            changed = _modify(case, entry, variation, rng, late_lines.get(p))
            decisive.update(f"b/{k}" for k in changed)
        expected = NONE_KEY if variation is None else base["options"][p]
        got = answer(case)
        if got != expected:
            raise RuntimeError(f"{NAME}: member {variation} answers {got}, planned {expected}")
        members.append(
            Member(case=case, state=render(case), answer=got, options=_options(case), variation=variation)
        )
    rng.shuffle(members)
    return Group(
        level=plan.level, domain=base["domain"], members=tuple(members), decisive=frozenset(decisive)
    )


def _copy(case: dict[str, Any]) -> dict[str, Any]:
    return {**case, "b": [{**line, "refs": list(line["refs"])} for line in case["b"]]}


# --- partial-information heuristics ---------------------------------------------------------------

_AMOUNT = re.compile(r"([+-][\d,]+\.\d{2})")


def _option_amounts(item: Item) -> dict[str, int]:
    state = item.state if isinstance(item.state, str) else ""
    out: dict[str, int] = {}
    for key in item.option_keys:
        if key == NONE_KEY:
            continue
        line = next((ln for ln in state.splitlines() if re.search(rf"(^|[|;] ?){re.escape(key)}\b", ln)), "")
        found = _AMOUNT.findall(line)
        out[key] = abs(int(found[-1].replace(",", "").replace(".", ""))) if found else 0
    return out


def heuristic_largest_amount(item: Item) -> dict[str, float]:
    """Blame the option entry with the largest amount (the 'big items go wrong' shortcut)."""
    amounts = _option_amounts(item)
    best = max(amounts, key=lambda k: amounts[k])
    return {k: 1.0 if k == best else 0.0 for k in item.option_keys}


def heuristic_last_entry(item: Item) -> dict[str, float]:
    """Blame the entry option listed last (latest in ledger A)."""
    last = [k for k in item.option_keys if k != NONE_KEY][-1]
    return {k: 1.0 if k == last else 0.0 for k in item.option_keys}


register(
    FamilySpec(
        name=NAME,
        layer="F",
        version=VERSION,
        question=QUESTION,
        config_type=LedgerReconcileConfig,
        plan=plan,
        build_group=build_group,
        expected_answers=None,
        heuristics={"largest_amount": heuristic_largest_amount, "last_entry": heuristic_last_entry},
    )
)
