"""clause_change (layer E): do the two versions give the same answer to the point at issue, or only one a yes?

Story. The state holds interpretation rules, two versions (A, the agreement in force, and B, the
revision) of an invented agreement between two invented organisations, the facts of a case and a
point at issue, a yes/no question ("Is order 4411 priced from the standard price list?"). The point
turns on one quantity of the case (an order quantity, a notice period, a storage temperature, ...)
that two clauses of the agreement bound from both sides: a lower-limit clause ("the order quantity
must be at least 40 units") and an upper-limit clause ("... no more than 600 units"). Between the
versions both limits move in the same direction: one version is the stricter (its window of
allowed values lies strictly inside the other's), the other the looser. Everything else in the
agreement is distractor text: clauses on payment, liability, confidentiality and so on, and at
higher levels also irrelevant changes of figures and rewordings between the versions.

Answer (computed from the structured case): each version says yes when the quantity meets both of
its limits; ``same`` when the versions agree, ``yes_only_A`` / ``yes_only_B`` when only one says
yes. The options are always ``same``, ``yes_only_A``, ``yes_only_B`` in this order.

Groups. A group shares the whole case and differs only in the value of the decisive quantity
(one decisive path, ``fact/value``). Its members place the value

* ``lower_gap`` - between the old and new lower limits (only the looser version says yes),
* ``upper_gap`` - between the old and new upper limits (only the looser version says yes),
* ``outside`` - outside both gaps: inside the stricter window (both yes) or outside the looser
  window (both no), so the answer is ``same``.

Most values sit on a boundary: exactly at a limit (the lower or upper limit of either version) or
one unit past it; "exactly at a limit" and "one unit past" occur about equally often in the gap
members and in the ``outside`` members, so matching a figure of the facts with a figure of the
clauses does not give the answer away. A reader who ignores the facts and answers "yes only under
the looser version" gets two of three members of a group right but solves no group.

Layout per level (200 items): levels 1 and 2 have 66 groups of three (lower gap, upper gap,
outside) and one pair (a lower-gap member at level 1, an upper-gap member at level 2, and an
outside member); level 3 has 64 groups of three and two groups of four (a second member in the
lower gap, or in the upper gap). That is 200 groups and exactly 200 items per answer class (same
67/67/66, yes_only_A 67/66/67, yes_only_B 66/67/67 at levels 1/2/3) and 200 items per placement.
Groups of three only cannot give 200 items per level with 200 per class: a level with 67 'same'
members needs one pair, a level with 66 needs two groups of four. The looser version goes to A or
B, whichever has fewer yes_only items so far, so both yes_only classes get 200 items.

Levels: 8 clauses per version at level 1 (no other change between the versions), 10-11 at level 2
(one irrelevant change of figures and one rewording), 12-14 at level 3 (two irrelevant changes, two
rewordings, and a limit may switch between inclusive and exclusive wording, e.g. "at least 45" in
one version and "more than 39" in the other).

Version history:
* 1.0 - first release.
* 1.1 - boundary values balanced between gap and outside members, irrelevant changes and rewordings
  at levels 2-3, exclusive/inclusive wording switches at level 3.
* 1.2 - text revision (issue 14): "Events beyond control" for "Force majeure", "1 person",
  "an inverter" (wording.a_or_an), no "stay at at most"; plausible pairings: storage temperatures
  only for freight, clinics and hotels (not kettles), deposits and group bookings only in hotels and
  education, invoices quote records they can quote (a waybill, not a syllabus), departments that
  consent and name contacts (no kitchen or front desk), warranties on hardware (no "support plan"),
  party names that suit their role, and the point at issue names the customer where only the
  customer can be meant (orders, deposits, events, credits). Layout, boundaries and answers unchanged.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took; the provider's name ends in its
  business ("Hoekstra Freight"), the customer's in its legal form ("Wouters B.V.", "Quinn Ltd"). The
  question names all three options without presupposing a difference ("Do versions A and B answer the
  point at issue the same way, or does only one of them answer yes?"; 1.2 asked the yes/no "Does the
  change between the two versions alter the answer ...?" over same / yes_only_A / yes_only_B). Payment
  terms are 15, 30, 45 or 60 days and audits need 7, 14, 21 or 28 days' warning (1.2: any day count, "32
  days", "19 days' warning"); a credit agreement fixes its interest rate where others warrant goods, and
  its complaints concern statements and schedules (1.2: a card reader in a credit agreement). The limits,
  placements and answers are drawn as before; the solver never read the question.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.domains import DOMAIN_BY_NAME, DOMAINS
from decisionpivot.generate.common.formatting import grouped, long_date
from decisionpivot.generate.common.names import NameForge
from decisionpivot.generate.common.wording import a_or_an, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "clause_change"
VERSION = "1.3"
QUESTION = "Do versions A and B answer the point at issue the same way, or does only one of them answer yes?"
"""1.2 asked "Does the change between the two versions alter the answer to the point at issue?", a yes/no question
over the options same / yes_only_A / yes_only_B; this one names all three without presupposing a difference."""
OPTIONS = (
    Option("same", "both versions give the same answer to the point at issue"),
    Option("yes_only_A", "only version A answers the point at issue with yes"),
    Option("yes_only_B", "only version B answers the point at issue with yes"),
)
PLACEMENTS = ("lower_gap", "upper_gap", "outside")

# Comparator wording: the condition a value must meet for the point to be answered yes.
LOWER_WORDS = {">=": ("at least {n}", "no less than {n}", "not less than {n}"), ">": ("more than {n}",)}
UPPER_WORDS = {"<=": ("no more than {n}", "at most {n}", "not more than {n}"), "<": ("less than {n}",)}


@dataclass(frozen=True)
class Topic:
    """A quantity that two clauses bound from both sides, and how a case talks about it."""

    key: str
    matter: str
    """Heading of the lower-limit clause; the point at issue names it."""
    upper_heading: str
    """Heading of the upper-limit clause (starts with the matter)."""
    quantity: str
    """Name of the quantity in clauses and facts ('order quantity')."""
    unit: str
    """Unit written after the number ('units', 'days')."""
    lower: tuple[str, ...]
    """Lower-limit clause variants; {limit} is the comparator, number and unit."""
    upper: tuple[str, ...]
    """Upper-limit clause variants."""
    points: tuple[str, ...]
    """Point-at-issue variants ({party}, {other}, {ref}, {date}, {person}, {place})."""
    context: str
    """Context of the fact line ('notice served by {party}')."""
    lower_range: tuple[int, int]
    upper_range: tuple[int, int]
    step: int
    """Grid of the printed limits."""
    domains: tuple[str, ...]


TOPICS = (
    Topic("notice", "Termination notice", "Termination notice, latest date", "notice period", "days",
          ("Either party may end this agreement by written notice; the notice period must be {limit}.",
           "A termination notice takes effect only if its notice period is {limit}."),
          ("A termination notice is valid only if its notice period is {limit}; an earlier notice has no "
           "effect.",
           "The notice period of a termination notice must be {limit}."),
          ("Does the notice served by {party} validly end the agreement on {date}?",
           "Is the agreement ended on {date} by the notice {party} served?"),
          "notice served by {party} for {date}", (14, 60), (60, 180), 5,
          tuple(d.name for d in DOMAINS)),
    Topic("order", "Standard price list", "Standard price list, large orders", "order quantity", "units",
          ("Prices from the standard price list apply to an order only if its order quantity is {limit}.",
           "The standard price list covers orders with an order quantity of {limit}."),
          ("The standard price list covers an order only if its order quantity is {limit}; other orders "
           "are quoted separately.",
           "Orders priced from the standard price list must have an order quantity of {limit}."),
          ("Is order {ref} priced from the standard price list?",
           "Does the standard price list apply to order {ref} placed by {party}?"),
          "order {ref} placed by {party}", (20, 200), (300, 2000), 10,
          ("logistics", "healthcare", "retail", "energy")),
    Topic("deposit", "Deposit", "Deposit, maximum", "deposit", "percent of the price",
          ("A booking is secured only by a deposit of {limit}.",
           "To secure a booking the customer pays a deposit of {limit}."),
          ("The deposit may amount to {limit}; a larger payment is a prepayment, which is not allowed.",
           "A deposit is accepted only if it is {limit}."),
          ("Does the deposit paid by {party} secure the booking under the agreement?",
           "Is the booking of {party} secured by the deposit it paid?"),
          "paid by {party}", (5, 25), (30, 60), 5,
          ("hospitality", "education")),
    Topic("storage", "Storage conditions", "Storage conditions, upper temperature", "storage temperature",
          "degrees Celsius",
          ("Goods must be kept at a storage temperature of {limit}.",
           "The storage temperature of the goods may not drop: it must be {limit}."),
          ("The storage temperature may not rise: it must be {limit}.",
           "Goods count as properly stored only at a storage temperature of {limit}."),
          ("Was consignment {ref} stored as the agreement requires?",
           "Did {other} store consignment {ref} in line with the agreement?"),
          "consignment {ref}, as logged", (1, 6), (8, 16), 1,
          ("logistics", "healthcare", "hospitality")),
    Topic("shift", "Standard rate", "Standard rate, long shifts", "shift length", "hours",
          ("A shift is billed at the standard rate only if its shift length is {limit}.",
           "The standard rate applies to shifts with a shift length of {limit}."),
          ("The standard rate covers a shift length of {limit}; other shifts follow the overtime schedule.",
           "A shift billed at the standard rate must have a shift length of {limit}."),
          ("Is the shift worked by {person} on {date} billed at the standard rate?",
           "Does the standard rate apply to {person}'s shift on {date}?"),
          "shift of {person} on {date}", (3, 6), (8, 14), 1,
          ("healthcare", "hospitality", "energy", "logistics")),
    Topic("lead", "Group bookings", "Group bookings, advance limit", "booking lead time", "days",
          ("The provider's duty to accept a group booking applies only if its booking lead time is {limit}.",
           "Group bookings must be accepted only when their booking lead time is {limit}."),
          ("A group booking is accepted only with a booking lead time of {limit}; requests made earlier "
           "need not be accepted.",
           "The booking lead time of a group booking must be {limit}."),
          ("Must the group booking made by {party} be accepted under the agreement?",
           "Is {other} bound to accept the group booking of {party}?"),
          "group booking of {party} for {date}", (7, 30), (90, 360), 5,
          ("hospitality", "education")),
    Topic("term", "Reduced rate", "Reduced rate, longest term", "contract term", "months",
          ("The reduced rate applies to contracts with a contract term of {limit}.",
           "A contract qualifies for the reduced rate only if its contract term is {limit}."),
          ("The reduced rate is limited to contracts with a contract term of {limit}.",
           "For the reduced rate the contract term must be {limit}."),
          ("Does the reduced rate apply to the contract of {party}?",
           "Is {party} entitled to the reduced rate for its contract?"),
          "contract of {party}", (6, 24), (36, 96), 3,
          ("software", "finance", "energy", "education")),
    Topic("consumption", "Fixed tariff", "Fixed tariff, upper band", "annual consumption", "MWh",
          ("The fixed tariff applies to a site whose annual consumption is {limit}.",
           "A site qualifies for the fixed tariff only with an annual consumption of {limit}."),
          ("The fixed tariff is limited to sites with an annual consumption of {limit}.",
           "A site on the fixed tariff must have an annual consumption of {limit}."),
          ("Does the fixed tariff apply to the site at {place}?",
           "Is the site at {place} supplied on the fixed tariff?"),
          "site at {place}, last calendar year", (50, 400), (600, 3000), 50,
          ("energy",)),
    Topic("guests", "Package price", "Package price, large events", "guest count", "guests",
          ("The package price applies to events with a guest count of {limit}.",
           "An event is charged at the package price only if its guest count is {limit}."),
          ("The package price covers events with a guest count of {limit}; other events are priced "
           "individually.",
           "An event charged at the package price must have a guest count of {limit}."),
          ("Is the event of {party} on {date} charged at the package price?",
           "Does the package price apply to the event {party} holds on {date}?"),
          "event of {party} on {date}", (10, 60), (80, 400), 10,
          ("hospitality", "education")),
    Topic("outage", "Service credit", "Service credit, long outages", "outage duration", "minutes",
          ("A service credit is owed for an outage whose outage duration is {limit}.",
           "An outage earns a service credit only if its outage duration is {limit}."),
          ("Service credits cover outages with an outage duration of {limit}; longer outages fall under "
           "the termination clause instead.",
           "For a service credit the outage duration must be {limit}."),
          ("Is {party} owed a service credit for the outage on {date}?",
           "Does the outage on {date} entitle {party} to a service credit?"),
          "outage on {date}", (15, 60), (120, 480), 15,
          ("software", "energy")),
    Topic("loan", "Fast-track approval", "Fast-track approval, largest amount", "loan amount", "{currency}",
          ("A loan request qualifies for fast-track approval only if its loan amount is {limit}.",
           "Fast-track approval is open to requests with a loan amount of {limit}."),
          ("Fast-track approval is limited to a loan amount of {limit}.",
           "For fast-track approval the loan amount must be {limit}."),
          ("Does the loan request of {party} qualify for fast-track approval?",
           "Is the loan request of {party} handled by fast-track approval?"),
          "request of {party}", (1000, 10000), (20000, 100000), 500,
          ("finance",)),
)
TOPIC_BY_KEY = {t.key: t for t in TOPICS}

AGREEMENTS = {
    "logistics": "freight services agreement", "healthcare": "clinic services agreement",
    "retail": "supply agreement", "software": "subscription agreement", "finance": "credit agreement",
    "education": "training services agreement", "energy": "energy supply agreement",
    "hospitality": "venue and catering agreement",
}

# Distractor clauses: heading and two wordings; {n} is a figure that may change between versions.
DISTRACTORS: tuple[tuple[str, tuple[str, str], tuple[int, int, int] | None], ...] = (
    ("Payment terms", ("Invoices are payable within {n} days of the invoice date.",
                       "Payment is due {n} days after the invoice date."), (15, 60, 15)),
    ("Late payment", ("Late payments bear interest of {n} percent per year.",
                      "Interest of {n} percent a year accrues on overdue amounts."), (3, 12, 1)),
    ("Liability", ("Each party's liability is capped at {n} {currency} per year.",
                   "Neither party is liable for more than {n} {currency} in any year."),
     (20000, 500000, 10000)),
    ("Confidentiality", ("Confidential information stays confidential for {n} years after the agreement "
                         "ends.",
                         "The duty of confidentiality lasts {n} years beyond the end of the agreement."),
     (2, 10, 1)),
    ("Price review", ("Prices may be reviewed once every {n} months.",
                      "A price review may take place at most once in {n} months."), (6, 24, 6)),
    ("Audit", ("Each party may audit the other's {document} records with {n} days' warning.",
               "An audit of the {document} records may be held after {n} days' warning."), (7, 28, 7)),
    ("Insurance", ("The provider keeps liability insurance of at least {n} {currency}.",
                   "Liability insurance of no less than {n} {currency} is kept by the provider."),
     (100000, 2000000, 50000)),
    ("Subcontracting", ("Work may be subcontracted only with the prior written consent of the {department} "
                        "department.",
                        "Subcontracting needs prior written consent from the {department} department."),
     None),
    ("Warranty", ("Each {good} supplied under this agreement carries a warranty of {n} months.",
                  "The warranty on every {good} supplied runs for {n} months."), (6, 36, 6)),
    ("Data protection", ("Personal data is deleted within {n} days after the agreement ends.",
                         "Within {n} days of the end of the agreement all personal data is deleted."),
     (30, 180, 10)),
    ("Disputes", ("Disputes go to mediation first; court proceedings may start {n} days after mediation "
                  "began.",
                  "Court proceedings may start only {n} days after a mediation has begun."), (15, 90, 5)),
    ("Invoices", ("Each invoice must quote the {document} number.",
                  "The {document} number must appear on every invoice."), None),
    ("Events beyond control", ("A party hindered by events beyond its control for more than {n} days may suspend "
                       "performance.",
                       "Performance may be suspended once events beyond a party's control last more than {n} "
                       "days."), (10, 60, 5)),
    ("Assignment", ("Neither party may transfer this agreement without the other's written consent.",
                    "This agreement may be transferred only with the written consent of the other party."),
     None),
    ("Complaints", ("Complaints about {a_good} are answered within {n} working days.",
                    "A complaint about {a_good} receives an answer within {n} working days."), (2, 10, 1)),
    ("Contacts", ("Each party names a contact person in its {department} department.",
                  "Both parties appoint a contact person in their {department} departments."), None),
    ("Records", ("Each party keeps its {document} records for {n} years.",
                 "{Document} records are kept by each party for {n} years."), (3, 10, 1)),
    ("Amendments", ("Amendments are valid only in writing and signed by both parties.",
                    "Changes to this agreement must be written and signed by both parties."), None),
)

OWN_CLAUSES = {
    ("finance", "Warranty"): ("Fixed rate", ("The interest rate stays fixed for the first {n} months.",
                                             "For the first {n} months the interest rate does not change.")),
}
"""A credit agreement warrants no goods (1.2: "Each card reader supplied under this agreement carries a
warranty"): its clause with the warranty's figure (6-36 months) fixes the interest rate instead."""

GOODS = {
    "logistics": ("pallet jack", "cargo strap", "shipping crate", "handheld scanner"),
    "healthcare": ("infusion stand", "examination lamp", "wheelchair", "thermometer"),
    "retail": ("kettle", "desk lamp", "storage box", "wool blanket"),
    "software": ("development board", "network switch", "server rack", "laptop"),
    "finance": ("loan statement", "repayment schedule", "account statement", "direct debit"),
    "education": ("projector", "lab kit", "textbook set", "tablet"),
    "energy": ("smart meter", "inverter", "cable drum", "transformer"),
    "hospitality": ("banquet table", "espresso machine", "room safe", "linen set"),
}
"""Things supplied under each agreement that carry a warranty and draw complaints: the domains' goods,
except that software supplies hardware here (a warranty on a "support plan" or "license seat" is no
contract a reader believes) and a lender's customers complain about statements and schedules, not about card
readers (1.3; the lender's warranty clause is :data:`OWN_CLAUSES`)."""
DOCUMENTS = {
    "logistics": ("waybill", "delivery note"), "healthcare": ("referral", "lab order"),
    "retail": ("purchase order", "delivery note"), "software": ("ticket", "purchase order"),
    "finance": ("loan file", "payment order"), "education": ("enrolment form", "course booking"),
    "energy": ("work order", "meter"), "hospitality": ("reservation", "event order"),
}
"""Records that an invoice quotes by number and that parties keep and audit ("Each invoice must quote the
waybill number"); the domains' lists also hold a syllabus, a price list and an audit memo, which no
invoice quotes."""
DEPARTMENTS = {
    "logistics": ("dispatch", "customs", "fleet"), "healthcare": ("admissions", "billing", "pharmacy"),
    "retail": ("purchasing", "returns", "stores"), "software": ("platform", "security", "sales"),
    "finance": ("lending", "compliance", "treasury"), "education": ("admissions", "exams", "facilities"),
    "energy": ("grid operations", "metering", "field service"), "hospitality": ("events", "sales", "purchasing"),
}
"""Departments that consent to subcontracting and name contact persons for an agreement (not a kitchen or
a front desk)."""


INTRO = (
    "Two versions of the {agreement} between {provider} (provider) and {customer} (customer).",
    "{provider} and {customer} are revising their {agreement}; both versions follow.",
    "The {agreement} of {provider} (provider) with {customer} (customer), in two versions.",
)
VERSION_TITLES = (
    ("Version A (in force since {start})", "Version B (revision proposed on {revised})"),
    ("Version A - signed {start}", "Version B - draft of {revised}"),
)
RULE_VERSIONS = (
    "Version A is the agreement in force and version B the revision. Decide the point at issue under "
    "each version separately, using only that version's clauses.",
    "Read each version on its own: the answer under A uses only A's clauses, the answer under B only "
    "B's clauses.",
)
RULE_INCLUSIVE = (
    "'At least N', 'no less than N', 'not less than N', 'no more than N', 'not more than N' and 'at most "
    "N' include N itself; 'more than N' and 'less than N' exclude N.",
    "Limits written as 'at least', 'no less than', 'not less than', 'no more than', 'not more than' or "
    "'at most' N are met by exactly N; limits written as 'more than' or 'less than' N are not.",
)
RULE_ALL = (
    "Where a point depends on several clauses, the answer is yes only if every one of them is met.",
    "If more than one clause governs the point, all of them must be satisfied for a yes.",
)
RULE_HEADINGS = (
    "A clause governs only the matter named in its heading.",
    "Each clause applies to the matter its heading names and to nothing else.",
)
RULE_EXACT = (
    "Figures in the facts are exact and are not rounded.",
    "Take the figures in the facts as exact; do not round them.",
)
RULE_REWORDED = (
    "A clause reworded without a change of figures keeps its meaning.",
    "Rewording a clause without changing its figures does not change what it requires.",
)
FACT_EXTRAS = (
    "Invoice amount for {month}: {money} {currency}",
    "Open complaints at the time: {small}",
    "Contact person at {customer}: {person}",
    "Agreement start date: {start}",
    "Warranty claims this year: {small}",
    "Staff of the {department} department assigned to the agreement: {staff}",
    "Last audit of the {document} records: {day}",
    "Time since the last price review: {days} days",
)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


@dataclass(frozen=True)
class ClauseChangeConfig(FamilyConfig):
    """Clause counts and distractor changes per level."""

    clauses: tuple[tuple[int, int], ...] = ((8, 8), (10, 11), (12, 14))
    """Clauses per version (smallest, largest) at levels 1, 2, 3."""
    irrelevant_changes: tuple[int, int, int] = (0, 1, 2)
    """Distractor clauses whose figures differ between the versions, per level."""
    rewordings: tuple[int, int, int] = (0, 1, 2)
    """Distractor clauses worded differently (same meaning) in the two versions, per level."""
    extra_facts: tuple[int, int, int] = (3, 5, 7)
    """Distractor fact lines per level."""
    exclusive_switch: tuple[float, float, float] = (0.0, 0.0, 0.3)
    """Chance per limit clause that the two versions differ in inclusive/exclusive wording."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level < 6:
            raise ValueError("items_per_level must be at least 6 (one group of each answer class)")
        for low, high in self.clauses:
            if not 6 <= low <= high <= 2 + len(DISTRACTORS):
                top = 2 + len(DISTRACTORS)
                raise ValueError(f"clauses per version must satisfy 6 <= low <= high <= {top}")
        for level in range(3):
            changes = self.irrelevant_changes[level] + self.rewordings[level]
            numbered = sum(1 for d in DISTRACTORS if d[2] is not None)
            if self.irrelevant_changes[level] > numbered or changes > self.clauses[level][0] - 2:
                raise ValueError(f"level {level + 1}: too many changed distractor clauses")
            if not 0 <= self.exclusive_switch[level] <= 1:
                raise ValueError("exclusive_switch must be a probability")
            if self.extra_facts[level] > len(FACT_EXTRAS):
                raise ValueError(f"at most {len(FACT_EXTRAS)} extra facts")


# --- case -------------------------------------------------------------------------------------


def _bounds(op: str, n: int) -> int:
    """The smallest (lower limit) or largest (upper limit) integer value meeting the condition."""
    return {">=": n, ">": n + 1, "<=": n, "<": n - 1}[op]


def _printed(op: str, bound: int) -> int:
    return {">=": bound, ">": bound - 1, "<=": bound, "<": bound + 1}[op]


def _window(limits: dict[str, Any]) -> tuple[int, int]:
    return _bounds(limits["lower_op"], limits["lower"]), _bounds(limits["upper_op"], limits["upper"])


def _sample_limits(rng: random.Random, topic: Topic, loose: str, switch: float) -> dict[str, dict[str, Any]]:
    """Printed limits of both versions; the looser version's window strictly contains the other's."""
    step = topic.step
    for _ in range(200):
        lo_t = rng.randrange(topic.lower_range[0] // step + 1, topic.lower_range[1] // step + 1) * step
        lo_l = lo_t - step * rng.randint(1, 3)
        hi_t = rng.randrange(topic.upper_range[0] // step, topic.upper_range[1] // step) * step
        hi_l = hi_t + step * rng.randint(1, 3)
        if lo_l <= 0:
            continue
        ops = {}
        for side, words in (("lower", (">=", ">")), ("upper", ("<=", "<"))):
            first = words[0] if rng.random() < 0.75 else words[1]
            second = (words[1] if first == words[0] else words[0]) if rng.random() < switch else first
            ops[side] = (first, second)
        tight = {"lower_op": ops["lower"][0], "lower": lo_t, "upper_op": ops["upper"][0], "upper": hi_t}
        slack = {"lower_op": ops["lower"][1], "lower": lo_l, "upper_op": ops["upper"][1], "upper": hi_l}
        # an exclusive limit keeps its printed figure on the grid and moves the bound by one
        (tl, th), (ll, lh) = _window(tight), _window(slack)
        if ll <= tl - 2 and lh >= th + 2 and th - tl >= 4 and ll >= 1:
            strict = "B" if loose == "A" else "A"
            return {loose: slack, strict: tight}
    raise RuntimeError(f"{NAME}: no limits found for {topic.key}")


def _value(rng: random.Random, placement: str, loose: tuple[int, int], tight: tuple[int, int],
           avoid: set[int], step: int) -> int:
    """A value of the decisive quantity for one placement, mostly on a boundary."""
    (ll, lh), (tl, th) = loose, tight
    if placement == "lower_gap":
        inner = [(0.2, rng.randint(ll + 1, tl - 2))] if tl - 2 >= ll + 1 else []
        choices = [(0.4, ll), (0.4, tl - 1), *inner]
    elif placement == "upper_gap":
        inner = [(0.2, rng.randint(th + 2, lh - 1))] if lh - 1 >= th + 2 else []
        choices = [(0.4, lh), (0.4, th + 1), *inner]
    else:
        far = max(1, step)
        choices = [(0.2, tl), (0.2, th), (0.2, ll - 1), (0.2, lh + 1), (0.1, rng.randint(tl + 1, th - 1)),
                   (0.1, pick(rng, (max(0, ll - far * rng.randint(2, 4)), lh + far * rng.randint(2, 4))))]
    choices = [(w, v) for w, v in choices if v not in avoid and v >= 1]
    if not choices:
        raise RuntimeError(f"{NAME}: no value left for {placement}")
    total = sum(w for w, _ in choices)
    r = rng.random() * total
    for w, v in choices:
        r -= w
        if r <= 0:
            return v
    return choices[-1][1]


def _sample_case(rng: random.Random, level: int, loose: str, config: ClauseChangeConfig) -> dict[str, Any]:
    topic = pick(rng, TOPICS)
    domain = DOMAIN_BY_NAME[pick(rng, topic.domains)]
    forge = NameForge(rng, domain.name)
    provider, customer = forge.organisation(), forge.company()
    party = pick(rng, (provider, customer))
    if topic.key != "notice":  # the customer places orders, pays deposits, holds events, is owed credits
        party = customer
    other = customer if party == provider else provider
    currency = domain.currency
    limits = _sample_limits(rng, topic, loose, config.exclusive_switch[level - 1])
    start = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(500))
    revised = start + dt.timedelta(days=rng.randrange(200, 600))
    event_day = revised + dt.timedelta(days=rng.randrange(10, 200))
    words = {
        "party": party, "other": other, "ref": str(rng.randrange(1000, 10000)),
        "date": long_date(event_day), "person": forge.person(), "place": forge.place(),
    }
    n_clauses = rng.randint(*config.clauses[level - 1])
    picks = rng.sample(range(len(DISTRACTORS)), n_clauses - 2)
    numbered = [i for i in picks if DISTRACTORS[i][2] is not None]
    changed = set(rng.sample(numbered, min(len(numbered), config.irrelevant_changes[level - 1])))
    rest = [i for i in picks if i not in changed]
    reworded = set(rng.sample(rest, min(len(rest), config.rewordings[level - 1])))
    good = pick(rng, GOODS[domain.name])
    fill = {"good": good, "a_good": a_or_an(good), "document": pick(rng, DOCUMENTS[domain.name]),
            "department": pick(rng, DEPARTMENTS[domain.name]), "currency": currency}
    clauses: list[dict[str, Any]] = []
    for i in picks:
        heading, variants, figure = DISTRACTORS[i]
        heading, variants = OWN_CLAUSES.get((domain.name, heading), (heading, variants))
        wording = {"A": rng.randrange(2)}
        wording["B"] = 1 - wording["A"] if i in reworded else wording["A"]
        figures = {"A": None, "B": None}
        if figure is not None:
            low, high, fstep = figure
            figures["A"] = figures["B"] = rng.randrange(low // fstep, high // fstep + 1) * fstep
            while i in changed and figures["B"] == figures["A"]:
                figures["B"] = rng.randrange(low // fstep, high // fstep + 1) * fstep
        # distractor clauses never change between members: store them rendered (fewer leaves to compare)
        clauses.append({"kind": "other", "text": {
            v: f"{heading}. " + variants[wording[v]].format(
                n=None if figures[v] is None else grouped(figures[v]),
                Document=fill["document"].capitalize(), **fill)
            for v in ("A", "B")}})
    lower_at, upper_at = sorted(rng.sample(range(n_clauses), 2))
    if rng.random() < 0.3:
        lower_at, upper_at = upper_at, lower_at
    for side, at in sorted((("lower", lower_at), ("upper", upper_at)), key=lambda x: x[1]):
        variants = topic.lower if side == "lower" else topic.upper
        wording = rng.randrange(len(variants))
        clause = {"kind": side, "heading": topic.matter if side == "lower" else topic.upper_heading,
                  "wording": {"A": wording, "B": wording if level < 3 or rng.random() < 0.5
                              else (wording + 1) % len(variants)},
                  "op": {v: limits[v][f"{side}_op"] for v in ("A", "B")},
                  "limit": {v: limits[v][side] for v in ("A", "B")},
                  "phrase": {v: rng.randrange(len((LOWER_WORDS if side == "lower" else UPPER_WORDS)
                                                  [limits[v][f"{side}_op"]])) for v in ("A", "B")}}
        clauses.insert(at, clause)
    if level < 3:
        for clause in clauses:
            if clause["kind"] != "other":
                clause["phrase"]["B"] = clause["phrase"]["A"]
    rules = [pick(rng, RULE_VERSIONS), pick(rng, RULE_INCLUSIVE), pick(rng, RULE_ALL),
             pick(rng, RULE_HEADINGS)]
    if level >= 2:
        rules += [pick(rng, RULE_EXACT), pick(rng, RULE_REWORDED)]
    elif rng.random() < 0.5:
        rules.append(pick(rng, RULE_EXACT))
    extras = rng.sample(FACT_EXTRAS, config.extra_facts[level - 1])
    staff = rng.randint(1, 12)
    extra_lines = [e.format(month=pick(rng, MONTHS), money=grouped(rng.randrange(500, 90000)),
                            currency=currency, small=rng.randint(1, 12), customer=customer,
                            staff="1 person" if staff == 1 else f"{staff} people",
                            person=forge.person(),
                            start=long_date(start), department=fill["department"], document=fill["document"],
                            day=long_date(start + dt.timedelta(days=rng.randrange(30, 400))),
                            days=rng.randint(20, 400)) for e in extras]
    fact_at = rng.randrange(len(extra_lines) + 1)
    return {
        "domain": domain.name,
        "level": level,
        "topic": topic.key,
        "intro": pick(rng, INTRO).format(agreement=AGREEMENTS[domain.name], provider=provider,
                                         customer=customer),
        "titles": [t.format(start=long_date(start), revised=long_date(revised))
                   for t in pick(rng, VERSION_TITLES)],
        "rules": rules,
        "fill": fill,
        "clauses": clauses,
        "facts": extra_lines,
        "fact_at": fact_at,
        "fact": {"context": topic.context.format(**words), "value": 0},
        "point": pick(rng, topic.points).format(**words),
    }


# --- answer -----------------------------------------------------------------------------------


def version_says_yes(case: dict[str, Any], version: str) -> bool:
    """Whether the value meets every limit clause of one version."""
    value = case["fact"]["value"]
    for clause in case["clauses"]:
        if clause["kind"] == "other":
            continue
        op, n = clause["op"][version], clause["limit"][version]
        if not {">=": value >= n, ">": value > n, "<=": value <= n, "<": value < n}[op]:
            return False
    return True


def answer(case: dict[str, Any]) -> str:
    a, b = version_says_yes(case, "A"), version_says_yes(case, "B")
    if a == b:
        return "same"
    return "yes_only_A" if a else "yes_only_B"


# --- rendering --------------------------------------------------------------------------------


SINGULAR = {"days": "day", "units": "unit", "degrees Celsius": "degree Celsius", "hours": "hour",
            "months": "month", "guests": "guest", "minutes": "minute"}


def _amount(topic: Topic, n: int, currency: str) -> str:
    number = grouped(n)
    unit = topic.unit.format(currency=currency)
    return f"{number} {SINGULAR.get(unit, unit) if n == 1 else unit}"


def _clause_text(clause: dict[str, Any], version: str, case: dict[str, Any]) -> str:
    if clause["kind"] == "other":
        return str(clause["text"][version])
    fill = case["fill"]
    wording = clause["wording"][version]
    topic = TOPIC_BY_KEY[case["topic"]]
    side = clause["kind"]
    words = (LOWER_WORDS if side == "lower" else UPPER_WORDS)[clause["op"][version]]
    limit = words[clause["phrase"][version] % len(words)].format(
        n=_amount(topic, clause["limit"][version], fill["currency"]))
    variants = topic.lower if side == "lower" else topic.upper
    return f"{clause['heading']}. {variants[wording].format(limit=limit)}"


def render(case: dict[str, Any]) -> str:
    topic = TOPIC_BY_KEY[case["topic"]]
    lines = [case["intro"], "", "Interpretation rules:"]
    lines += [f"{i}. {rule}" for i, rule in enumerate(case["rules"], start=1)]
    for version, title in zip(("A", "B"), case["titles"], strict=True):
        lines += ["", f"{title}:"]
        lines += [f"{i}. {_clause_text(c, version, case)}" for i, c in enumerate(case["clauses"], start=1)]
    fact = (f"{topic.quantity.capitalize()} ({case['fact']['context']}): "
            f"{_amount(topic, case['fact']['value'], case['fill']['currency'])}")
    facts = [*case["facts"][: case["fact_at"]], fact, *case["facts"][case["fact_at"] :]]
    lines += ["", "Facts of the case:"] + [f"- {f}" for f in facts]
    lines += ["", f"Point at issue ({topic.matter}): {case['point']}"]
    return "\n".join(lines)


# --- contrast group ---------------------------------------------------------------------------


def _layout(items: int, same: int, level: int) -> list[tuple[str, ...]]:
    """Placements of the groups of one level: ``same`` outside members, the rest in the gaps."""
    yes = items - same
    quads = max(0, yes - 2 * same)
    triples = yes - same - 2 * quads
    pairs = 2 * same - yes + quads
    if min(triples, pairs) < 0:
        raise ValueError(f"cannot lay out {items} items with {same} 'same' answers")
    groups: list[tuple[str, ...]] = [("lower_gap", "upper_gap", "outside")] * triples
    groups += [("lower_gap" if (i + level) % 2 else "upper_gap", "outside") for i in range(pairs)]
    groups += [("lower_gap", "upper_gap", "lower_gap" if i % 2 == 0 else "upper_gap", "outside")
               for i in range(quads)]
    return groups


def plan(config: ClauseChangeConfig) -> list[GroupPlan]:
    n = config.items_per_level
    plans: list[GroupPlan] = []
    totals = {"A": 0, "B": 0}
    for level in (1, 2, 3):
        same = n // 3 + (1 if level <= n % 3 else 0)
        layout = _layout(n, same, level)
        # spread the odd-sized groups over the level instead of putting them last
        order = sorted(range(len(layout)), key=lambda i: ((i * 37) % len(layout), i))
        for index, g in enumerate(order):
            placements = layout[g]
            gaps = sum(p != "outside" for p in placements)
            loose = "A" if totals["A"] <= totals["B"] else "B"
            totals[loose] += gaps
            plans.append(GroupPlan(level=level, index=index, variation=f"loose_{loose}",
                                   params={"placements": placements, "loose": loose}))
    return plans


def expected_answers(plan: GroupPlan) -> list[str]:
    loose = plan.params["loose"]
    return ["same" if p == "outside" else f"yes_only_{loose}" for p in plan.params["placements"]]


def build_group(plan: GroupPlan, rng: random.Random, config: ClauseChangeConfig) -> Group:
    loose = plan.params["loose"]
    strict = "B" if loose == "A" else "A"
    case = _sample_case(rng, plan.level, loose, config)
    topic = TOPIC_BY_KEY[case["topic"]]
    lower = next(c for c in case["clauses"] if c["kind"] == "lower")
    upper = next(c for c in case["clauses"] if c["kind"] == "upper")

    def window(version: str) -> tuple[int, int]:
        return (_bounds(lower["op"][version], lower["limit"][version]),
                _bounds(upper["op"][version], upper["limit"][version]))

    used: set[int] = set()
    members = []
    for placement in plan.params["placements"]:
        value = _value(rng, placement, window(loose), window(strict), used, topic.step)
        used.add(value)
        member = {**case, "fact": {**case["fact"], "value": value}}
        members.append(Member(case=member, state=render(member), answer=answer(member), options=OPTIONS,
                              variation=placement))
    rng.shuffle(members)
    return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                 decisive=frozenset({"fact/value"}))


# --- partial-information heuristics ------------------------------------------------------------

_LIMIT = re.compile(r"(at least|no less than|not less than|more than|no more than|not more than|at most"
                    r"|less than) ([\d,]+)")


def _limit_clauses(state: str) -> dict[str, list[tuple[str, int]]]:
    """Per version, the (comparator, figure) of the clauses whose heading starts with the point's matter."""
    lines = state.splitlines()
    matter = re.search(r"^Point at issue \((.+?)\):", lines[-1])
    out: dict[str, list[tuple[str, int]]] = {"A": [], "B": []}
    if not matter:
        return out
    version = None
    for line in lines:
        if line.startswith("Version A"):
            version = "A"
        elif line.startswith("Version B"):
            version = "B"
        elif line.startswith("Facts of the case"):
            version = None
        elif version and re.match(rf"^\d+\. {re.escape(matter.group(1))}[.,]", line):
            found = _LIMIT.search(line)
            if found:
                out[version].append((found.group(1), int(found.group(2).replace(",", ""))))
    return out


def heuristic_ignore_facts(item: Item) -> dict[str, float]:
    """Read only the changed limits: 'yes only under the looser version', whatever the facts say.

    Right for the two gap members of a group, wrong for the outside member: 2/3 of the items, no group.
    """
    keys = list(item.option_keys)
    limits = _limit_clauses(item.state if isinstance(item.state, str) else "")
    windows = {}
    for version, found in limits.items():
        low, high = -(10**12), 10**12
        for phrase, n in found:
            if phrase in ("at least", "no less than", "not less than"):
                low = max(low, n)
            elif phrase == "more than":
                low = max(low, n + 1)
            elif phrase == "less than":
                high = min(high, n - 1)
            else:
                high = min(high, n)
        windows[version] = (low, high)
    a, b = windows["A"], windows["B"]
    if a[0] <= b[0] and a[1] >= b[1] and a != b:
        return {k: 1.0 if k == "yes_only_A" else 0.0 for k in keys}
    if b[0] <= a[0] and b[1] >= a[1] and a != b:
        return {k: 1.0 if k == "yes_only_B" else 0.0 for k in keys}
    return {k: 1.0 / len(keys) for k in keys}


register(FamilySpec(
    name=NAME,
    layer="E",
    version=VERSION,
    question=QUESTION,
    config_type=ClauseChangeConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={"ignore_facts": heuristic_ignore_facts},
))
