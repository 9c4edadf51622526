"""policy_case (layer B): what does the policy require for this case?

Story. An invented organisation publishes a numbered policy for one kind of request (expense
claims, refunds, household insurance claims, site access, travel bookings, leave, purchasing or
data sharing). Each rule names an outcome (approve, deny or escalate) and one to three conditions
joined by "and"; many rules carry an exception ("unless ...", "except where ...", "this rule does
not apply if ..."). A short reading guide states that a rule applies only when all its conditions
hold and its exception does not, gives a precedence statement for conflicts between applicable
rules, and names the default outcome for a case that no rule covers. A case record lists the facts
of one request (amounts, day counts, roles, categories, yes/no-like states).

Precedence statements come in four kinds, one per group in turn: an outcome order ("deny rules take
precedence over escalate rules, and escalate rules over approve rules", order drawn per policy),
the lower-numbered rule wins, the higher-numbered rule wins, and the more specific rule (more
conditions; ties go to the lower number) wins.

Groups. 201 policies; every member of a group shares the policy text, the record layout and every
record field except one or two decisive fields (``record/fields/<i>/value``). A group of three has
one member per outcome and one member per required interpretation:

* ``plain`` - exactly one rule's conditions hold, its exception does not, and no other rule's
  conditions hold;
* ``exception`` - a rule's conditions hold but its exception removes it, so another rule or the
  default decides (always a different outcome from the removed rule);
* ``precedence`` - two applicable rules name different outcomes and the precedence statement
  decides (a third rule may match and be removed by its exception).

Which outcome goes with which interpretation follows the six permutations in turn (11 groups each
per level), so outcome and interpretation are independent (every one of the nine cells has 66 or 67
items). The decisive facts come from three focal schemas, each in two forms: the exception member
falls either to another rule (``*_rule``) or to the default (``*_default``):

* ``threshold``: a category and a numeric threshold ("lodging claims are approved unless the amount
  is more than 412.50 EUR"; the conflict is a category rule against the threshold rule or against a
  rule for a group of categories);
* ``state``: a numeric threshold and a state field ("... unless the receipt is missing"; the
  conflict is a threshold rule against the same threshold with one more condition);
* ``category``: a category and a state field, no threshold.

The six forms, the four precedence kinds and the eight domains are spread evenly over the groups.
Thresholds sit on the boundary: the member inside the condition is exactly at the limit (``at
most``, ``at least``) or one unit past it (``more than``, ``less than``), the other member one unit
(cent, day, month, hour, night or count) on the other side. Distractor rules never have all their
conditions met (often one condition of two holds, or a threshold is missed by exactly one unit);
decoy rules match an exception or precedence member but are always switched off by an exception
that holds. The order of the rules that those members match is drawn among the orders that give
the planned answers and in which "first rule whose conditions match, ignoring exceptions and
precedence" is wrong on every exception member (and on the precedence member of the level-3 pair),
so that heuristic solves no group; where possible, "last rule whose conditions match" is also wrong
on at least one member. The default outcome is one member's answer at most.

Levels: 4 rules and 6 record fields, 8 rules and 8 fields, 12 rules and 10 fields. Per level, 66
groups of three and one group of two: level 1 (plain approve, exception deny), level 2 (exception
escalate, precedence deny), level 3 (plain escalate, precedence approve); 200 items per outcome and
per interpretation over the family, 67/67/66 within each level.

Version history:
* 1.0 - first release.
* 1.1 - text revision (core 1.2): the data-sharing field "Anonymisation", a word the British English
  dictionary lacks, is labelled "Redaction of names"; the purchasing field "Payment terms" is "Payment
  schedule", since a rule reads "the payment terms is milestone" (same values, same rules).
* 1.2 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took. Values take their article in the rules
  ("the entry day is a public holiday", "unless the entry day is a weekday", "the zone is not the server
  room"; ``Field.articles``; the record keeps the bare value), and fields whose label read badly with
  their values are relabelled ("Property", "Visitor", "Recipient", "Route", "Purpose of the trip",
  "Period", "Transfer", "Traveller's role"; values "weekend day", "annual leave", "prepaid",
  "milestone-based", "within the region"). Thresholds on money and on counts from 1,000 are round sums
  (``common/numbers.py``: "at most 600.00 GBP" with a fare of 600.01 GBP on the boundary, not 628.99
  against 629.00); a non-decisive threshold is moved to a round sum in the direction that keeps its truth.
  An exception reads with its rule: on a two-valued state field (receipt attached/missing, induction
  completed/outstanding, ...) an approve rule's exception names the unfavourable value and a deny rule's
  the favourable one ("deny ... except where the safety induction is outstanding" is gone): the focal
  rule's two state values are taken in that order, a distractor's exception (which decides nothing)
  names the sensible value, an idle exception that would read against its rule is left out and a decoy
  draws another true exception. The solver and the heuristics read values with or without an article.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.formatting import grouped, long_date, money
from decisionpivot.generate.common.names import NameForge
from decisionpivot.generate.common.numbers import round_amount
from decisionpivot.generate.common.wording import join_words, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "policy_case"
VERSION = "1.2"
QUESTION = "What does the policy require for this case?"
OUTCOMES = ("approve", "deny", "escalate")
OPTIONS = (
    Option("approve", "the policy requires the request to be approved as submitted"),
    Option("deny", "the policy requires the request to be refused"),
    Option("escalate", "the policy requires the request to be referred to a human reviewer for a decision"),
)
VARIATIONS = ("plain", "exception", "precedence")
MODES = ("outcome_order", "lower_number", "higher_number", "specific")
PERMUTATIONS = tuple(itertools.permutations(OUTCOMES))
"""Outcome of the (plain, exception, precedence) members; used in turn by the groups of three."""
PAIR_MEMBERS = {
    1: (("plain", "approve"), ("exception", "deny")),
    2: (("exception", "escalate"), ("precedence", "deny")),
    3: (("plain", "escalate"), ("precedence", "approve")),
}
"""The group of two at each level (present when items_per_level leaves a remainder of 2)."""

PAST = {"approve": "approved", "deny": "denied", "escalate": "escalated"}
VERB = {"approve": "approve", "deny": "deny", "escalate": "escalate"}

# --- domains ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One fact of a case record."""

    key: str
    """Key in the structured record."""
    label: str
    """Record label; rules name the field as ``the <label in lower case>``."""
    kind: str
    """money (cents), days, months, hours, nights, count, or cat."""
    lo: int = 0
    """Smallest plausible value (numeric kinds; cents for money)."""
    hi: int = 0
    """Largest plausible value."""
    values: tuple[str, ...] = ()
    """Possible values of a categorical field."""
    articles: tuple[str, ...] = ()
    """The article each value takes after "is" in a rule ("the entry day is a public holiday", "the zone is the
    server room"; empty: none, "the receipt is missing"), parallel to ``values``; empty for no articles."""
    favourable: str = ""
    """Of a two-valued state field, the value that speaks for approval (``attached``, ``completed``): an
    exception to an approve rule names the other value, one to a deny rule this one (core 1.3)."""

    @property
    def numeric(self) -> bool:
        return self.kind != "cat"


def _num(key: str, label: str, kind: str, lo: int, hi: int) -> Field:
    scale = 100 if kind == "money" else 1
    return Field(key, label, kind, lo * scale, hi * scale)


def _cat(key: str, label: str, *values: str, articles: str | tuple[str, ...] = "", favourable: str = "") -> Field:
    """A categorical field; ``articles`` is one article for every value or one per value."""
    if isinstance(articles, str):
        articles = (articles,) * len(values) if articles else ()
    return Field(key, label, "cat", values=values, articles=articles, favourable=favourable)


def phrase(field: Field, value: str) -> str:
    """How a value of a categorical field reads after "is" in a rule: with its article, if it takes one."""
    if not field.articles:
        return value
    article = field.articles[field.values.index(value)]
    return f"{article} {value}" if article else value


@dataclass(frozen=True)
class PolicyDomain:
    """Setting of one policy: the request type, its wording and its record fields."""

    name: str
    title: str
    noun: str
    article: str
    plural: str
    team: str
    reviewer: str
    prefix: str
    currency: str
    fields: tuple[Field, ...]


DOMAINS: tuple[PolicyDomain, ...] = (
    PolicyDomain(
        "expenses", "Expense reimbursement policy", "claim", "a", "claims", "finance", "finance controller",
        "EXP", "EUR", (
            _num("amount", "Claimed amount", "money", 15, 2400),
            _num("age", "Expense age", "days", 1, 120),
            _num("nights", "Trip length", "nights", 1, 14),
            _num("attendees", "Attendee count", "count", 1, 12),
            _cat("category", "Expense category", "meals", "lodging", "airfare", "taxi fares",
                 "conference fees", "software", "client gifts"),
            _cat("role", "Claimant's role", "intern", "staff member", "team lead", "manager", "director",
                 "contractor"),
            _cat("receipt", "Receipt", "attached", "missing", favourable="attached"),
            _cat("payment", "Payment method", "corporate card", "personal card", "cash", articles=("a", "a", "")),
            _cat("billing", "Client billing", "billable", "non-billable"),
            _cat("centre", "Cost centre", "sales", "research", "operations", "support", "marketing"),
        )),
    PolicyDomain(
        "refunds", "Customer refund policy", "refund request", "a", "refund requests", "customer care",
        "returns supervisor", "RFD", "SEK", (
            _num("value", "Order value", "money", 5, 1500),
            _num("age", "Delivery age", "days", 0, 90),
            _num("refunds", "Refund count this year", "count", 0, 8),
            _num("tenure", "Customer tenure", "months", 0, 120),
            _cat("category", "Product category", "electronics", "clothing", "furniture", "kitchenware",
                 "books", "garden tools", "toys"),
            _cat("condition", "Item condition", "unopened", "opened", "damaged in transit", "defective",
                 "worn"),
            _cat("tier", "Customer tier", "standard", "silver", "gold", "platinum"),
            _cat("proof", "Proof of purchase", "present", "absent", favourable="present"),
            _cat("payment", "Payment method", "card", "store voucher", "bank transfer", "gift card", articles="a"),
            _cat("channel", "Sales channel", "online shop", "retail store", "marketplace partner",
                 articles=("the", "a", "a")),
        )),
    PolicyDomain(
        "insurance", "Household claims handling policy", "claim", "a", "claims", "claims",
        "senior adjuster", "CLM", "CHF", (
            _num("amount", "Claim amount", "money", 100, 25000),
            _num("age", "Incident age", "days", 0, 180),
            _num("policy_age", "Policy age", "months", 1, 240),
            _num("prior", "Prior claim count", "count", 0, 6),
            _cat("type", "Claim type", "water damage", "theft", "fire", "storm damage", "glass breakage",
                 "liability"),
            _cat("report", "Police report", "filed", "absent", favourable="filed"),
            _cat("cover", "Cover level", "basic", "standard", "comprehensive"),
            _cat("property", "Property", "apartment", "house", "holiday home", "commercial unit",
                 articles=("an", "a", "a", "a")),
            _cat("photos", "Photo evidence", "supplied", "missing", favourable="supplied"),
            _cat("adjuster", "Adjuster visit", "completed", "pending", "waived"),
        )),
    PolicyDomain(
        "premises", "Site access policy", "access request", "an", "access requests", "security",
        "duty security officer", "ACC", "", (
            _num("clearance", "Clearance level", "count", 1, 6),
            _num("badge", "Badge validity", "days", 0, 365),
            _num("visit", "Visit length", "hours", 1, 12),
            _num("group", "Group size", "count", 1, 20),
            _cat("visitor", "Visitor", "employee", "contractor", "supplier", "auditor", "guest",
                 "job candidate", articles=("an", "a", "a", "an", "a", "a")),
            _cat("zone", "Zone", "lobby", "office floor", "laboratory", "server room", "archive",
                 "loading dock", articles=("the", "an", "the", "the", "the", "the")),
            _cat("escort", "Escort", "assigned", "unassigned", favourable="assigned"),
            _cat("induction", "Safety induction", "completed", "outstanding", favourable="completed"),
            _cat("day", "Entry day", "weekday", "weekend day", "public holiday", articles="a"),
            _cat("host", "Host department", "facilities", "research", "finance", "security"),
        )),
    PolicyDomain(
        "travel", "Business travel booking policy", "booking", "a", "bookings", "travel desk",
        "travel desk manager", "TRV", "GBP", (
            _num("fare", "Fare", "money", 40, 4000),
            _num("lead", "Booking lead time", "days", 0, 90),
            _num("duration", "Flight duration", "hours", 1, 16),
            _num("nights", "Hotel stay", "nights", 0, 14),
            _cat("cabin", "Cabin class", "economy", "premium economy", "business", "first"),
            _cat("role", "Traveller's role", "staff member", "manager", "director", "contractor",
                 "guest speaker"),
            _cat("region", "Route", "domestic", "regional", "long-haul"),
            _cat("fare_type", "Fare type", "refundable", "non-refundable", "flexible"),
            _cat("purpose", "Purpose of the trip", "client meeting", "conference", "training",
                 "internal workshop", articles=("a", "a", "", "an")),
            _cat("carrier", "Carrier status", "preferred", "non-preferred", favourable="preferred"),
        )),
    PolicyDomain(
        "leave", "Leave approval policy", "leave request", "a", "leave requests", "people",
        "HR partner", "LVR", "", (
            _num("length", "Leave length", "days", 1, 40),
            _num("notice", "Notice given", "days", 0, 90),
            _num("tenure", "Tenure", "months", 0, 240),
            _num("balance", "Remaining balance", "days", 0, 40),
            _cat("type", "Leave type", "annual leave", "sick leave", "parental leave", "unpaid leave",
                 "study leave", "compassionate leave"),
            _cat("cover", "Team cover", "arranged", "missing", favourable="arranged"),
            _cat("season", "Period", "peak season", "low season", "year-end freeze", articles="the"),
            _cat("contract", "Employment type", "permanent", "fixed-term", "probationary"),
            _cat("note", "Medical note", "provided", "missing", favourable="provided"),
            _cat("location", "Work location", "office", "remote", "field site", articles=("the", "", "a")),
        )),
    PolicyDomain(
        "procurement", "Purchasing policy", "purchase request", "a", "purchase requests", "procurement",
        "procurement lead", "PRQ", "DKK", (
            _num("value", "Order value", "money", 100, 250000),
            _num("quotes", "Quote count", "count", 0, 6),
            _num("contract", "Contract length", "months", 1, 60),
            _num("delivery", "Delivery time", "days", 1, 120),
            _cat("category", "Item category", "office supplies", "IT hardware", "consulting",
                 "furniture", "lab chemicals", "cleaning services"),
            _cat("supplier", "Supplier status", "listed", "new", "under review"),
            _cat("budget", "Budget line", "assigned", "unassigned", favourable="assigned"),
            _cat("role", "Requester's role", "team member", "team lead", "department head",
                 "project manager"),
            _cat("funding", "Funding source", "operating budget", "grant", "capital budget",
                 articles=("the", "a", "the")),
            _cat("terms", "Payment schedule", "standard", "prepaid", "milestone-based"),
        )),
    PolicyDomain(
        "data_sharing", "Data sharing policy", "sharing request", "a", "sharing requests",
        "data governance", "data protection officer", "DSR", "", (
            _num("records", "Record count", "count", 10, 500000),
            _num("retention", "Retention period", "months", 1, 120),
            _num("fields", "Field count", "count", 1, 60),
            _num("duration", "Access duration", "days", 1, 365),
            _cat("recipient", "Recipient", "internal team", "research partner", "vendor",
                 "regulator", "marketing agency", articles=("an", "a", "a", "a", "a")),
            _cat("classification", "Data classification", "public", "internal", "confidential",
                 "restricted"),
            _cat("anonymisation", "Redaction of names", "applied", "skipped", favourable="applied"),
            _cat("agreement", "Data agreement", "signed", "unsigned", favourable="signed"),
            _cat("purpose", "Purpose", "research", "marketing", "audit", "customer support",
                 "product testing"),
            _cat("region", "Transfer", "within the country", "within the region", "outside the region"),
        )),
)
NAME_DOMAIN = {"expenses": "logistics", "refunds": "retail", "insurance": "insurance", "premises": "software",
               "travel": "finance", "leave": "education", "procurement": "hospitality", "data_sharing": "healthcare"}
"""Policy setting -> the domain whose region and businesses its names come from (``common/names.py``)."""
DOMAIN_BY_NAME = {d.name: d for d in DOMAINS}
FIELD_BY_KEY = {d.name: {f.key: f for f in d.fields} for d in DOMAINS}
MAX_FIELDS = min(len(d.fields) for d in DOMAINS)

# --- wording ----------------------------------------------------------------------------------

NUM_PREDICATES = {
    "gt": ("is more than {v}", "exceeds {v}", "is above {v}"),
    "ge": ("is at least {v}", "is {v} or more"),
    "lt": ("is less than {v}", "is below {v}", "is under {v}"),
    "le": ("is at most {v}", "does not exceed {v}", "is {v} or less"),
}
CAT_PREDICATES = {
    "eq": ("is {v}",),
    "ne": ("is not {v}", "is anything other than {v}"),
    "in": ("is {v}", "is one of {v}"),
}
PAIR_FORMS = ("is {v}", "is either {v}")
"""Wording of an "in" condition with two values ("is one of a or b" reads oddly)."""
RULE_FORMS = (
    "If {cond}, the {noun} is {past}{exc}.",
    "{Article} {noun} is {past} when {cond}{exc}.",
    "{Verb} the {noun} if {cond}{exc}.",
    "Where {cond}, {verb} the {noun}{exc}.",
)
EXCEPTION_FORMS = (", unless {atom}", ", except where {atom}", "; this rule does not apply if {atom}")
PRECEDENCE_FORMS = {
    "outcome_order": (
        "When rules that apply lead to different outcomes, {a} rules take precedence over {b} rules, "
        "and {b} rules take precedence over {c} rules.",
        "Conflicts between applicable rules are settled by outcome: {an_a} rule beats {an_b} rule, and "
        "{an_b} rule beats {an_c} rule.",
    ),
    "lower_number": (
        "When rules that apply lead to different outcomes, the lower-numbered rule wins.",
        "If applicable rules disagree, the rule that comes first in the numbered list prevails.",
    ),
    "higher_number": (
        "When rules that apply lead to different outcomes, the higher-numbered rule wins.",
        "If applicable rules disagree, the rule that comes later in the numbered list overrides the "
        "earlier one.",
    ),
    "specific": (
        "When rules that apply lead to different outcomes, a more specific rule overrides a more general "
        "one: the rule with more conditions wins (an exception does not count as a condition); between "
        "rules with equally many conditions, the lower-numbered rule wins.",
        "If applicable rules disagree, the more specific rule prevails, meaning the one with more conditions "
        "joined by \"and\" (exceptions are not counted); if they have equally many conditions, the rule "
        "that comes first in the list prevails.",
    ),
}
DEFAULT_FORMS = (
    "If no rule applies, the {noun} is {past}.",
    "{Article} {noun} that no rule covers is {past}.",
    "Where none of the rules applies, {verb} the {noun}.",
)
CONDITION_NOTES = (
    "A rule applies only when every one of its conditions holds; conditions joined by \"and\" must all "
    "be met.",
    "Every condition of a rule must hold for the rule to apply.",
)
EXCEPTION_NOTES = (
    "An exception attached to a rule (introduced by \"unless\", \"except where\" or \"this rule does not "
    "apply if\") switches that rule off whenever the exception holds.",
    "A rule does not apply when its exception (\"unless ...\", \"except where ...\" or \"this rule does not "
    "apply if ...\") holds, even if all of its conditions are met.",
)
BACKGROUND = (
    "This policy governs how the {team} team decides {plural} at {org}. Every {noun} receives exactly one "
    "outcome: it is approved, denied, or escalated to the {reviewer}, who then decides it by hand.",
    "{org} applies this policy to all {plural} handled by its {team} team. The outcome of {article} {noun} "
    "is approval, denial, or escalation to the {reviewer} for a manual decision.",
    "The {team} team of {org} uses the rules below for {plural}. Each {noun} is approved, denied, or "
    "escalated, which means that the {reviewer} reviews it in person.",
)
SCOPE = (
    "Scope: the rules cover every {noun} submitted on or after {effective}; {plural} submitted earlier stay "
    "under revision {previous}. Questions about the wording go to the {team} team, not to the {reviewer}.",
    "This revision applies to {plural} received from {effective} onwards (earlier {plural} follow revision "
    "{previous}). The {team} team maintains the text; the {reviewer} only handles escalated cases.",
    "Revision {revision} replaces revision {previous} for every {noun} received from {effective}. The {team} "
    "team owns this text and answers questions about it.",
)
CHANNELS = ("web form", "email", "service desk", "mobile app", "walk-in desk")
GUIDE_HEADERS = ("How to apply the rules:", "Reading the policy:", "Applying the rules:")
RULES_HEADERS = ("Rules:", "The rules:", "Numbered rules:")
RECORD_HEADERS = ("Case record {ref}:", "Facts of request {ref}:", "Case file {ref}:")
RECORD_STYLES = ("bullet", "plain", "table")
LAYOUTS = ("guide_first", "rules_first")

# --- config -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolicyCaseConfig(FamilyConfig):
    """Policy and record sizes per level."""

    rules: tuple[int, int, int] = (4, 8, 12)
    """Numbered rules at levels 1, 2, 3."""
    fields: tuple[int, int, int] = (6, 8, 10)
    """Decision-relevant record fields at levels 1, 2, 3 (three narrative lines come on top)."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 3 == 1:
            raise ValueError("items_per_level must be a multiple of 3 or leave a remainder of 2 "
                             f"(groups of three plus at most one pair), got {self.items_per_level}")
        if self.items_per_level < 2:
            raise ValueError(f"items_per_level must be at least 2, got {self.items_per_level}")
        if len(self.rules) != 3 or len(self.fields) != 3:
            raise ValueError("rules and fields need one entry per level")
        for rules in self.rules:
            if not 4 <= rules <= 20:
                raise ValueError(f"a policy needs 4 to 20 rules, got {rules}")
        for fields in self.fields:
            if not 5 <= fields <= MAX_FIELDS:
                raise ValueError(f"records hold 5 to {MAX_FIELDS} fields, got {fields}")


# --- atoms and the policy semantics -------------------------------------------------------------

Atom = dict[str, Any]
Rule = dict[str, Any]
Record = dict[str, Any]


def holds(atom: Atom, record: Record) -> bool:
    """Truth of one condition for a record (field key -> value)."""
    value, op, ref = record[atom["field"]], atom["op"], atom["value"]
    if op == "gt":
        return value > ref
    if op == "ge":
        return value >= ref
    if op == "lt":
        return value < ref
    if op == "le":
        return value <= ref
    if op == "eq":
        return value == ref
    if op == "ne":
        return value != ref
    if op == "in":
        return value in ref
    raise ValueError(f"unknown operator {op!r}")


def _main_holds(rule: Rule, record: Record) -> bool:
    return all(holds(a, record) for a in rule["conds"])


def _excepted(rule: Rule, record: Record) -> bool:
    return rule["exc"] is not None and holds(rule["exc"], record)


def resolve(rules: Sequence[Rule], record: Record, default: str,
            precedence: dict[str, Any]) -> tuple[str, str]:
    """(outcome, interpretation) of a record under a policy.

    The interpretation is ``plain`` (one rule matches and applies), ``exception`` (a matching rule
    is removed by its exception and no conflict remains), ``precedence`` (applicable rules conflict)
    or ``other`` (no rule matches, or several agreeing rules apply - never used in items).
    """
    matched = [i for i, r in enumerate(rules) if _main_holds(r, record)]
    applicable = [i for i in matched if not _excepted(rules[i], record)]
    outcomes = {rules[i]["outcome"] for i in applicable}
    if len(outcomes) > 1:
        return _winner(rules, applicable, precedence), "precedence"
    outcome = rules[applicable[0]]["outcome"] if applicable else default
    if len(matched) == 1 and len(applicable) == 1:
        return outcome, "plain"
    if len(applicable) < len(matched) and len(applicable) <= 1:
        return outcome, "exception"
    return outcome, "other"


def _winner(rules: Sequence[Rule], applicable: list[int], precedence: dict[str, Any]) -> str:
    mode = precedence["mode"]
    if mode == "outcome_order":
        order = precedence["order"]
        return min((rules[i]["outcome"] for i in applicable), key=order.index)
    if mode == "lower_number":
        return rules[min(applicable)]["outcome"]
    if mode == "higher_number":
        return rules[max(applicable)]["outcome"]
    best = max(applicable, key=lambda i: (len(rules[i]["conds"]), -i))
    return rules[best]["outcome"]


def answer(case: dict[str, Any]) -> str:
    """The outcome the policy requires for the case's record."""
    return resolve(case["rules"], _record(case), case["default"], case["precedence"])[0]


def interpretation(case: dict[str, Any]) -> str:
    """Which reading the case needs: plain, exception or precedence."""
    return resolve(case["rules"], _record(case), case["default"], case["precedence"])[1]


def _record(case: dict[str, Any]) -> Record:
    return {f["key"]: f["value"] for f in case["record"]["fields"]}


def _first_match(rules: Sequence[Rule], record: Record, default: str, last: bool = False) -> str:
    matched = [r["outcome"] for r in rules if _main_holds(r, record)]
    if not matched:
        return default
    return matched[-1] if last else matched[0]


# --- sampling atoms -----------------------------------------------------------------------------


class _Builder:
    """Draws conditions that hold or fail for every member's value of a field."""

    def __init__(self, rng: random.Random, fields: dict[str, Field], values: dict[str, list[Any]]) -> None:
        self.rng = rng
        self.fields = fields
        self.values = values
        """Field key -> the values the group's members have (one entry for a shared field)."""

    def atom(self, key: str, op: str, value: Any) -> Atom:
        field = self.fields[key]
        forms = NUM_PREDICATES[op] if field.numeric else CAT_PREDICATES[op]
        return {"field": key, "op": op, "value": value, "w": self.rng.randrange(len(forms))}

    def limit_atom(self, key: str, op: str, value: int, wanted: bool) -> Atom:
        """:meth:`atom` of a threshold that holds (``wanted``) or fails for every member; a money threshold is
        moved to a round sum (``round_amount``) in the direction that keeps its truth for every member."""
        field = self.fields[key]
        if _rounded(field, value):
            for up in (True, False):
                rounded = round_amount(value, up)
                if rounded > field.lo and all(holds({"field": key, "op": op, "value": rounded}, {key: v}) == wanted
                                              for v in self.values[key]):
                    value = rounded
                    break
        return self.atom(key, op, value)

    def _gap(self, field: Field, around: int) -> int:
        """A distance for near-miss thresholds: 0 (exact boundary) or a modest step."""
        if self.rng.random() < 0.4:
            return 0
        if field.kind == "money":
            span = max(100, abs(around) // 5)
            return self.rng.randrange(1, max(2, span // 100) + 1) * 100
        return self.rng.randrange(1, max(2, abs(around) // 4 + 2))

    def false_atom(self, key: str) -> Atom | None:
        """A condition on ``key`` that fails for every member, or None when there is none."""
        field, vals = self.fields[key], self.values[key]
        if field.numeric:
            top, bottom = max(vals), min(vals)
            choices: list[tuple[str, int]] = []
            choices.append(("gt", top + self._gap(field, top)))
            choices.append(("ge", top + 1 + self._gap(field, top)))
            if bottom - self._gap(field, bottom) > field.lo:
                choices.append(("lt", bottom - self._gap(field, bottom)))
            if bottom - 1 - self._gap(field, bottom) > field.lo:
                choices.append(("le", bottom - 1 - self._gap(field, bottom)))
            op, ref = pick(self.rng, choices)
            return self.limit_atom(key, op, ref, wanted=False)
        untaken = [v for v in field.values if v not in vals]
        options: list[tuple[str, Any]] = [("eq", v) for v in untaken]
        if len(untaken) >= 3:
            options.append(("in", self._subset(untaken, 2)))
        if len(set(vals)) == 1 and len(field.values) > 2:
            options.append(("ne", vals[0]))
        if not options:
            return None
        op, ref = pick(self.rng, options)
        return self.atom(key, op, ref)

    def true_atom(self, key: str) -> Atom | None:
        """A condition on ``key`` that holds for every member, or None when there is none."""
        field, vals = self.fields[key], self.values[key]
        if field.numeric:
            top, bottom = max(vals), min(vals)
            choices: list[tuple[str, int]] = [("lt", top + 1 + self._gap(field, top)),
                                              ("le", top + self._gap(field, top))]
            if bottom - 1 - self._gap(field, bottom) >= field.lo:
                choices.append(("gt", bottom - 1 - self._gap(field, bottom)))
            if bottom - self._gap(field, bottom) > field.lo:
                choices.append(("ge", bottom - self._gap(field, bottom)))
            op, ref = pick(self.rng, choices)
            return self.limit_atom(key, op, ref, wanted=True)
        taken = sorted(set(vals), key=field.values.index)
        untaken = [v for v in field.values if v not in taken]
        options: list[tuple[str, Any]] = [("ne", v) for v in untaken] if len(field.values) > 2 else []
        if len(taken) == 1:
            options += [("eq", taken[0])] * 2
        if untaken and len(taken) + 1 < len(field.values):
            extra = self._subset(untaken, self.rng.randrange(1, len(untaken)))
            options.append(("in", sorted([*taken, *extra], key=field.values.index)))
        if not options:
            return None
        op, ref = pick(self.rng, options)
        return self.atom(key, op, ref)

    def any_atom(self, key: str) -> Atom | None:
        return self.true_atom(key) if self.rng.random() < 0.5 else self.false_atom(key)

    def _subset(self, values: list[str], k: int) -> list[str]:
        chosen = self.rng.sample(values, k)
        return sorted(chosen, key=values.index)


def _threshold(rng: random.Random, field: Field) -> tuple[str, int, int, int]:
    """(op, limit, inside value, outside value) for a decisive numeric condition on the boundary."""
    op = pick(rng, ("gt", "ge", "lt", "le"))
    lo, hi = field.lo, field.hi
    if field.kind == "money":
        whole = rng.randrange(lo // 100 + 2, hi // 100 - 1)
        pick(rng, (0, 0, 50, rng.randrange(1, 100)))  # 1.2 drew the cents here; a limit is a round sum (1.3)
        limit = round_amount(whole * 100, up=False)
        if limit <= lo:
            limit = round_amount(whole * 100, up=True)
    else:
        limit = rng.randrange(lo + 1, hi)
        if _rounded(field, limit):
            limit = round_amount(limit, up=False)
    inside = {"gt": limit + 1, "ge": limit, "lt": limit - 1, "le": limit}[op]
    outside = {"gt": limit, "ge": limit - 1, "lt": limit, "le": limit + 1}[op]
    return op, limit, inside, outside


COMPLEMENT = {"gt": "le", "ge": "lt", "lt": "ge", "le": "gt"}


def _rounded(field: Field, value: int) -> bool:
    """True for a threshold a policy writes as a round number (core 1.3): every sum of money, and counts from
    1,000 up ("at most 200,000 records", not 213,457); days, hours and small counts are whole numbers already."""
    return field.kind == "money" or (field.kind == "count" and value >= 1000)


def _shared_value(rng: random.Random, field: Field) -> Any:
    if not field.numeric:
        return pick(rng, field.values)
    if field.kind == "money":
        cents = pick(rng, (0, 0, 50, rng.randrange(100)))
        return rng.randrange(field.lo // 100, field.hi // 100 + 1) * 100 + cents
    return rng.randrange(field.lo, field.hi + 1)


# --- focal schemas --------------------------------------------------------------------------------

SCHEMAS = ("threshold_rule", "threshold_default", "state_rule", "state_default", "category_rule",
           "category_default")
"""How the three members are told apart: which fields decide, and whether the exception member
falls to another rule (``_rule``) or to the default (``_default``)."""


@dataclass
class _Focal:
    """The decisive part of a group: member values of the decisive fields and the rules about them."""

    values: dict[str, dict[str, Any]]
    """Member variation -> decisive field key -> value."""
    rules: list[Rule]
    """Rules that decide the members (with a ``role`` entry: main, fallback, winner, loser)."""
    decoys: list[tuple[list[Atom], list[str]]]
    """Candidate decoy conditions and the outcomes they must not name."""
    default: str | None
    """The default outcome the schema needs, or None when any default works."""
    loser_outcome: str


def _rule(outcome: str, conds: list[Atom], exc: Atom | None = None, role: str = "") -> Rule:
    return {"outcome": outcome, "conds": conds, "exc": exc, "role": role}


def _focal(schema: str, rng: random.Random, b: _Builder, keys: dict[str, str], target: dict[str, str],
           mode: str, shared_true: Callable[[], Atom]) -> _Focal:
    """Build the decisive rules of one schema for the target outcomes of plain/exception/precedence."""
    o_p, o_e, o_c = target["plain"], target["exception"], target["precedence"]
    others = [o for o in OUTCOMES if o != o_c]
    fields = b.fields
    if schema.startswith("threshold"):
        n, c = keys["num"], keys["cat"]
        op, limit, inside, outside = _threshold(rng, fields[n])
        c1, c2, c3, *rest = rng.sample(list(fields[c].values), len(fields[c].values))
        by_rule = schema == "threshold_rule"
        values = {
            "plain": {n: outside, c: c1},
            "exception": {n: inside, c: c1},
            "precedence": {n: inside if by_rule else pick(rng, (inside, outside)), c: c2},
        }
        _store(b, values)
        limit_atom = b.atom(n, op, limit)
        main = _rule(o_p, [b.atom(c, "eq", c1)], limit_atom, "main")
        if by_rule:
            loser = _rule(o_e, [b.atom(n, op, limit)], None, "loser")
            extra = [b.atom(n, op, limit)] if mode == "specific" or rng.random() < 0.4 else []
            winner = _rule(o_c, [b.atom(c, "eq", c2), *extra], None, "winner")
            rules = [main, loser, winner]
            decoys = [([b.atom(n, op, limit)], [o_e, o_c]), ([b.atom(c, "eq", c2)], [o_c])]
            return _Focal(values, rules, decoys, None, o_e)
        loser_outcome = pick(rng, others)
        extra = [shared_true()] if mode == "specific" or rng.random() < 0.3 else []
        winner = _rule(o_c, [b.atom(c, "eq", c2), *extra], None, "winner")
        group_values = sorted([c2, c3, *rest[: rng.randrange(0, min(2, len(rest)) + 1)]],
                              key=fields[c].values.index)
        loser = _rule(loser_outcome, [b.atom(c, "in", group_values)], None, "loser")
        decoy_values = sorted([c2, *rest[:1]] if rest else [c2], key=fields[c].values.index)
        decoy_atom = b.atom(c, "in", decoy_values) if len(decoy_values) > 1 else b.atom(c, "eq", c2)
        return _Focal(values, [main, winner, loser], [([decoy_atom], [o_c])], o_e, loser_outcome)
    by_rule = schema.endswith("_rule")
    s = keys["state"]
    s0, s1 = rng.sample(list(fields[s].values), 2)
    if fields[s].favourable and (s1 == fields[s].favourable) != (o_p == "deny") and o_p != "escalate":
        s0, s1 = s1, s0  # approve unless the receipt is missing; deny unless the induction is completed (1.3)
    if schema.startswith("state"):
        n = keys["num"]
        op, limit, inside, outside = _threshold(rng, fields[n])
        values = {
            "plain": {n: outside, s: s0},
            "exception": {n: outside, s: s1},
            "precedence": {n: inside, s: s0},
        }
        _store(b, values)
        main = _rule(o_p, [b.atom(n, COMPLEMENT[op], limit)], b.atom(s, "eq", s1), "main")
        short = _rule("", [b.atom(n, op, limit)], None)
        long = _rule("", [b.atom(n, op, limit), shared_true()], None)
        if mode == "specific" or rng.random() < 0.5:
            winner, loser = long, short
        else:
            winner, loser = short, long
        winner.update(outcome=o_c, role="winner")
        loser.update(outcome=pick(rng, others), role="loser")
        decoys = [([b.atom(n, op, limit)], [o_c]), ([b.atom(s, "eq", s1)], [o_e])]
    else:
        c = keys["cat"]
        c1, c2, c3, *rest = rng.sample(list(fields[c].values), len(fields[c].values))
        values = {
            "plain": {c: c1, s: s0},
            "exception": {c: c1, s: s1},
            "precedence": {c: c2, s: s0},
        }
        _store(b, values)
        main = _rule(o_p, [b.atom(c, "eq", c1)], b.atom(s, "eq", s1), "main")
        extra = [shared_true()] if mode == "specific" or rng.random() < 0.3 else []
        winner = _rule(o_c, [b.atom(c, "eq", c2), *extra], None, "winner")
        group_values = sorted([c2, c3, *rest[:1]], key=fields[c].values.index)
        loser = _rule(pick(rng, others), [b.atom(c, "in", group_values)], None, "loser")
        decoys = [([b.atom(c, "eq", c2)], [o_c]), ([b.atom(s, "eq", s1)], [o_e])]
    rules = [main, winner, loser]
    if by_rule:
        rules.append(_rule(o_e, [b.atom(s, "eq", s1)], None, "fallback"))
    return _Focal(values, rules, decoys, None if by_rule else o_e, loser["outcome"])


def _store(b: _Builder, values: dict[str, dict[str, Any]]) -> None:
    for member_values in values.values():
        for key, value in member_values.items():
            if value not in b.values[key]:
                b.values[key].append(value)
    for key in {k for member_values in values.values() for k in member_values}:
        b.values[key] = sorted(b.values[key], key=lambda v: (str(type(v)), v))


# --- case -------------------------------------------------------------------------------------

LEVEL_STYLE = {
    # (extra conjunct on a focal rule, two-condition distractor, distractor exception, idle focal exception)
    1: (0.0, 0.0, 0.5, 0.0),
    2: (0.25, 0.45, 0.55, 0.3),
    3: (0.35, 0.6, 0.6, 0.45),
}


def _choose_fields(rng: random.Random, domain: PolicyDomain, schema: str,
                   count: int) -> tuple[dict[str, str], list[Field]]:
    """The decisive fields of the schema (role -> key) and the record's fields in record order."""
    numeric = [f for f in domain.fields if f.numeric]
    multi = [f for f in domain.fields if not f.numeric and len(f.values) >= 4]
    cats = [f for f in domain.fields if not f.numeric]
    keys: dict[str, str] = {}
    if schema.startswith(("threshold", "state")):
        keys["num"] = pick(rng, numeric).key
    if schema.startswith(("threshold", "category")):
        keys["cat"] = pick(rng, multi).key
    if schema.startswith(("state", "category")):
        keys["state"] = pick(rng, [f for f in cats if f.key not in keys.values()]).key
    chosen = [f for f in domain.fields if f.key in keys.values()]
    rest = [f for f in domain.fields if f.key not in keys.values()]
    chosen += rng.sample(rest, count - len(chosen))
    rng.shuffle(chosen)
    return keys, chosen


def _distractor(rng: random.Random, b: _Builder, keys: list[str], two: bool, exc_prob: float) -> Rule | None:
    """A rule whose conditions fail for every member (often one of two conditions holds)."""
    false_key = pick(rng, keys)
    false = b.false_atom(false_key)
    if false is None:
        return None
    conds = [false]
    if two:
        other = b.any_atom(pick(rng, [k for k in keys if k != false_key]))
        if other is not None:
            conds.insert(rng.randrange(2), other)
    exc = None
    if rng.random() < exc_prob:
        exc = b.any_atom(pick(rng, [k for k in keys if all(k != a["field"] for a in conds)]))
    outcome = pick(rng, OUTCOMES)
    if exc is not None and not _sensible(exc, outcome, b.fields):
        # a distractor never applies, so its exception's truth decides nothing: name the value that makes sense
        other = next(v for v in b.fields[exc["field"]].values if v != exc["value"])
        exc = {**exc, "value": other}
    return _rule(outcome, conds, exc, "distractor")


def _sensible(exc: Atom, outcome: str, fields: dict[str, Field]) -> bool:
    """False for an exception that reads against its rule: an approve rule "unless the receipt is attached", a deny
    rule "except where the safety induction is outstanding" (a favourable fact lifting an approval, an unfavourable
    one lifting a refusal). Only two-valued state fields with a favourable value are judged."""
    field = fields[exc["field"]]
    if not field.favourable or exc["op"] not in ("eq", "ne") or outcome == "escalate":
        return True
    names_favourable = (exc["value"] == field.favourable) == (exc["op"] == "eq")
    return names_favourable == (outcome == "deny")


def _signature(rule: Rule) -> str:
    return repr(sorted(repr(sorted(a.items())) for a in rule["conds"]))


def _sample_policy(rng: random.Random, level: int, mode: str, domain_name: str, schema: str,
                   members: Sequence[str], target: dict[str, str],
                   config: PolicyCaseConfig) -> tuple[dict[str, Any], dict[str, Record], list[str]] | None:
    """One attempt at a policy, the member records and the decisive field keys; None on failure."""
    domain = DOMAIN_BY_NAME[domain_name]
    n_rules = config.rules[level - 1]
    keys, fields = _choose_fields(rng, domain, schema, config.fields[level - 1])
    by_key = {f.key: f for f in fields}
    decisive = sorted(keys.values())
    shared_keys = [f.key for f in fields if f.key not in decisive]
    b = _Builder(rng, by_key, {f.key: [] for f in fields})
    shared = {k: _shared_value(rng, by_key[k]) for k in shared_keys}
    for k, v in shared.items():
        b.values[k] = [v]

    def shared_true(avoid: Sequence[Atom] = ()) -> Atom:
        """A condition that holds for every member, on a shared field not used by ``avoid``."""
        free = [k for k in shared_keys if all(a["field"] != k for a in avoid)]
        for _ in range(20):
            atom = b.true_atom(pick(rng, free))
            if atom is not None:
                return atom
        raise RuntimeError("no true condition on shared fields")

    focal = _focal(schema, rng, b, keys, target, mode, shared_true)
    extra_p, two_p, exc_p, idle_p = LEVEL_STYLE[level]
    for rule in focal.rules:
        if rule["role"] in ("main", "fallback") and rng.random() < extra_p:
            rule["conds"].append(shared_true(rule["conds"]))
        if rule["exc"] is None and rng.random() < idle_p:
            used = {a["field"] for a in rule["conds"]}
            idle = b.false_atom(pick(rng, [k for k in [*shared_keys, *decisive] if k not in used]))
            rule["exc"] = idle if idle is None or _sensible(idle, rule["outcome"], by_key) else None
        rng.shuffle(rule["conds"])
    if mode == "specific":
        winner = next(r for r in focal.rules if r["role"] == "winner")
        loser = next(r for r in focal.rules if r["role"] == "loser")
        while len(winner["conds"]) <= len(loser["conds"]):
            winner["conds"].append(shared_true(winner["conds"]))
    records = {}
    for m in members:
        records[m] = {**shared, **focal.values[m]}
    default = focal.default if focal.default is not None else pick(rng, OUTCOMES)
    precedence: dict[str, Any] = {"mode": mode}
    if mode == "outcome_order":
        order = list(rng.choice([p for p in PERMUTATIONS
                                 if p.index(target["precedence"]) < p.index(focal.loser_outcome)]))
        precedence["order"] = order

    n_decoys = 0 if level == 1 else rng.randrange(0, len(focal.decoys) + 1)
    ordered: list[Rule] | None = None
    while n_decoys <= len(focal.decoys) and len(focal.rules) + n_decoys <= n_rules:
        decoys = []
        for conds, avoid in rng.sample(focal.decoys, len(focal.decoys))[:n_decoys]:
            outcome = pick(rng, [o for o in OUTCOMES if o not in avoid])
            exc = shared_true()
            for _ in range(5):  # an exception that reads with its rule, where one is at hand (1.3)
                if _sensible(exc, outcome, by_key):
                    break
                exc = shared_true()
            decoys.append(_rule(outcome, conds, exc, "decoy"))
        distractors: list[Rule] = []
        seen = {_signature(r) for r in [*focal.rules, *decoys]}
        for _ in range(200):
            if len(focal.rules) + len(decoys) + len(distractors) == n_rules:
                break
            rule = _distractor(rng, b, [f.key for f in fields], rng.random() < two_p, exc_p)
            if rule is not None and _signature(rule) not in seen:
                seen.add(_signature(rule))
                distractors.append(rule)
        rules = [*focal.rules, *decoys, *distractors]
        if len(rules) == n_rules:
            ordered = _order_rules(rng, rules, records, default, precedence, target, members)
            if ordered is not None:
                break
        n_decoys += 1
    if ordered is None:
        return None
    case = _assemble(rng, domain, schema, fields, ordered, default, precedence, shared)
    return case, records, decisive


def _order_rules(rng: random.Random, rules: list[Rule], records: dict[str, Record], default: str,
                 precedence: dict[str, Any], target: dict[str, str],
                 members: Sequence[str]) -> list[Rule] | None:
    """A rule order that gives every member its target outcome and interpretation and in which
    the first rule that the exception member matches is the one its exception removes (or another
    rule with a wrong outcome), so "first matching rule" fails on every exception member (on the
    precedence member of a group without an exception member).

    Only the relative order of the rules that some exception or precedence member matches can
    change an answer, so every order of those few rules is tried and one valid order is drawn,
    preferring orders in which "last matching rule" also fails on some member; the other rules go
    anywhere.
    """
    matched = {m: [_main_holds(r, records[m]) for r in rules] for m in members}
    excepted = {m: [_excepted(r, records[m]) for r in rules] for m in members}
    for m in members:
        everything = list(range(len(rules)))
        outcome, reading = _resolve_ids(rules, everything, matched[m], excepted[m], default, precedence)
        if reading != m or (m == "plain" and outcome != target[m]):
            return None
    relevant = [i for i in range(len(rules)) if any(matched[m][i] for m in members if m != "plain")]
    checks = []
    for m in members:
        if m == "plain":
            continue
        hits = [i for i in relevant if matched[m][i]]
        live = [i for i in hits if not excepted[m][i]]
        fixed = None
        if m != "precedence" or precedence["mode"] in ("outcome_order", "specific"):
            fixed = _resolve_ids(rules, relevant, matched[m], excepted[m], default, precedence)[0]
        first_wrong = m == "exception" or "exception" not in members
        checks.append((hits, live, fixed, target[m], first_wrong))
    valid: list[tuple[int, ...]] = []
    preferred: list[tuple[int, ...]] = []
    lower = precedence["mode"] == "lower_number"
    for perm in itertools.permutations(relevant):
        pos = {r: k for k, r in enumerate(perm)}
        ok, last_fails = True, False
        for hits, live, fixed, wanted, first_wrong in checks:
            outcome = fixed
            if outcome is None:
                outcome = rules[(min if lower else max)(live, key=pos.__getitem__)]["outcome"]
            first = rules[min(hits, key=pos.__getitem__)]["outcome"]
            if outcome != wanted or (first_wrong and first == outcome):
                ok = False
                break
            last_fails = last_fails or rules[max(hits, key=pos.__getitem__)]["outcome"] != outcome
        if ok:
            (preferred if last_fails else valid).append(perm)
    if not (preferred or valid):
        return None
    perm = pick(rng, preferred or valid)
    slots = list(range(len(rules)))
    rng.shuffle(slots)
    chosen = iter(perm)
    order = [next(chosen) if i in relevant else i for i in slots]
    return [rules[i] for i in order]


def _resolve_ids(rules: list[Rule], order: list[int], matched: list[bool], excepted: list[bool], default: str,
                 precedence: dict[str, Any]) -> tuple[str, str]:
    """:func:`resolve` on precomputed truth tables, for the rules in ``order`` (positions = rule numbers)."""
    hits = [i for i in order if matched[i]]
    live = [i for i in hits if not excepted[i]]
    outcomes = {rules[i]["outcome"] for i in live}
    if len(outcomes) > 1:
        mode = precedence["mode"]
        if mode == "outcome_order":
            return min((rules[i]["outcome"] for i in live), key=precedence["order"].index), "precedence"
        if mode == "lower_number":
            return rules[live[0]]["outcome"], "precedence"
        if mode == "higher_number":
            return rules[live[-1]]["outcome"], "precedence"
        ranked = max(range(len(live)), key=lambda k: (len(rules[live[k]]["conds"]), -k))
        return rules[live[ranked]]["outcome"], "precedence"
    outcome = rules[live[0]]["outcome"] if live else default
    if len(hits) == 1 and len(live) == 1:
        return outcome, "plain"
    if len(live) < len(hits) and len(live) <= 1:
        return outcome, "exception"
    return outcome, "other"


def _assemble(rng: random.Random, domain: PolicyDomain, schema: str, fields: list[Field], rules: list[Rule],
              default: str, precedence: dict[str, Any], shared: dict[str, Any]) -> dict[str, Any]:
    forge = NameForge(rng, NAME_DOMAIN[domain.name])
    org = forge.organisation()
    day = dt.date(2026, 1, 5) + dt.timedelta(days=rng.randrange(330))
    submitted = day + dt.timedelta(days=rng.randrange(20, 200))
    precedence = {**precedence, "form": rng.randrange(len(PRECEDENCE_FORMS[precedence["mode"]]))}
    return {
        "domain": domain.name,
        "schema": schema,
        "org": org,
        "code": f"{domain.prefix}-P{rng.randrange(10, 99)}",
        "revision": rng.randrange(2, 9),
        "effective": long_date(day),
        "background": rng.randrange(len(BACKGROUND)),
        "scope": rng.randrange(len(SCOPE)),
        "layout": pick(rng, LAYOUTS),
        "guide_header": pick(rng, GUIDE_HEADERS),
        "rules_header": pick(rng, RULES_HEADERS),
        "notes": [rng.randrange(len(CONDITION_NOTES)), rng.randrange(len(EXCEPTION_NOTES))],
        "rules": [
            {"outcome": r["outcome"], "conds": r["conds"], "exc": r["exc"],
             "form": rng.randrange(len(RULE_FORMS)), "exc_form": rng.randrange(len(EXCEPTION_FORMS))}
            for r in rules
        ],
        "precedence": precedence,
        "default": default,
        "default_form": rng.randrange(len(DEFAULT_FORMS)),
        "record": {
            "header": pick(rng, RECORD_HEADERS),
            "style": pick(rng, RECORD_STYLES),
            "reference": f"{domain.prefix}-{rng.randrange(10000, 100000)}",
            "submitted_by": forge.person(),
            "submitted_on": long_date(submitted),
            "entered_by": forge.person(),
            "channel": pick(rng, CHANNELS),
            "fields": [{"key": f.key, "value": shared.get(f.key)} for f in fields],
        },
    }


# --- rendering --------------------------------------------------------------------------------


def _unit(n: int, word: str) -> str:
    return f"{grouped(n)} {word}" if n != 1 else f"1 {word[:-1]}"


def format_value(field: Field, value: Any, currency: str) -> str:
    """How a value reads in the record and in the rules."""
    if field.kind == "money":
        return money(value, currency)
    if field.kind in ("days", "months", "hours", "nights"):
        return _unit(value, field.kind)
    if field.kind == "count":
        return grouped(value)
    return str(value)


def render_atom(atom: Atom, domain: PolicyDomain) -> str:
    field = FIELD_BY_KEY[domain.name][atom["field"]]
    subject = f"the {field.label.lower()}"
    if field.numeric:
        shown = format_value(field, atom["value"], domain.currency)
        text = NUM_PREDICATES[atom["op"]][atom["w"]].format(v=shown)
    elif atom["op"] == "in":
        forms = PAIR_FORMS if len(atom["value"]) == 2 else CAT_PREDICATES["in"]
        if field.articles and forms is not PAIR_FORMS:
            forms = ("is {v}",) * len(forms)  # "is one of a client meeting, a conference or ..." reads oddly
        text = forms[atom["w"]].format(v=join_words([phrase(field, v) for v in atom["value"]], "or"))
    else:
        text = CAT_PREDICATES[atom["op"]][atom["w"]].format(v=phrase(field, atom["value"]))
    return f"{subject} {text}"


def render_rule(rule: dict[str, Any], domain: PolicyDomain) -> str:
    cond = " and ".join(render_atom(a, domain) for a in rule["conds"])
    exc = ""
    if rule["exc"]:
        exc = EXCEPTION_FORMS[rule["exc_form"]].format(atom=render_atom(rule["exc"], domain))
    o = rule["outcome"]
    text = RULE_FORMS[rule["form"]].format(cond=cond, noun=domain.noun, past=PAST[o], exc=exc, verb=VERB[o],
                                           Verb=VERB[o].capitalize(), Article=domain.article.capitalize())
    return text


def _an(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def _precedence_text(case: dict[str, Any]) -> str:
    prec = case["precedence"]
    template = PRECEDENCE_FORMS[prec["mode"]][prec["form"]]
    if prec["mode"] == "outcome_order":
        a, b, c = (VERB[o] for o in prec["order"])
        return template.format(a=a, b=b, c=c, an_a=_an(a), an_b=_an(b), an_c=_an(c))
    return template


def render(case: dict[str, Any]) -> str:
    domain = DOMAIN_BY_NAME[case["domain"]]
    fields = {f.key: f for f in domain.fields}
    d = case["default"]
    default_text = DEFAULT_FORMS[case["default_form"]].format(
        noun=domain.noun, past=PAST[d], verb=VERB[d], Article=domain.article.capitalize())
    guide = [case["guide_header"],
             f"- {CONDITION_NOTES[case['notes'][0]]}",
             f"- {EXCEPTION_NOTES[case['notes'][1]]}",
             f"- {_precedence_text(case)}",
             f"- {default_text}"]
    rules = [case["rules_header"]]
    rules += [f"{i}. {render_rule(r, domain)}" for i, r in enumerate(case["rules"], start=1)]
    background = BACKGROUND[case["background"]].format(
        team=domain.team, plural=domain.plural, org=case["org"], noun=domain.noun, reviewer=domain.reviewer,
        article=domain.article)
    scope = SCOPE[case["scope"]].format(
        noun=domain.noun, plural=domain.plural, effective=case["effective"], previous=case["revision"] - 1,
        revision=case["revision"], team=domain.team, reviewer=domain.reviewer)
    lines = [f"{case['org']} — {domain.title}",
             f"Policy {case['code']}, revision {case['revision']}, in force since {case['effective']}.",
             "", background, scope, ""]
    if case["layout"] == "guide_first":
        lines += [*guide, "", *rules]
    else:
        lines += [*rules, "", *guide]
    rec = case["record"]
    entries = [("Submitted by", rec["submitted_by"]), ("Submitted on", rec["submitted_on"]),
               ("Received via", rec["channel"]), ("Entered by", f"{rec['entered_by']} ({domain.team} team)")]
    entries += [(fields[f["key"]].label, format_value(fields[f["key"]], f["value"], domain.currency))
                for f in rec["fields"]]
    lines += ["", rec["header"].format(ref=rec["reference"])]
    if rec["style"] == "table":
        lines += ["| Field | Value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in entries]
    elif rec["style"] == "bullet":
        lines += [f"- {k}: {v}" for k, v in entries]
    else:
        lines += [f"{k}: {v}" for k, v in entries]
    return "\n".join(lines)


# --- contrast groups ----------------------------------------------------------------------------


def plan(config: PolicyCaseConfig) -> list[GroupPlan]:
    """Groups of three cycle through the six outcome permutations and the four precedence kinds."""
    plans = []
    for level in (1, 2, 3):
        triples, rest = divmod(config.items_per_level, 3)
        for i in range(triples):
            perm = PERMUTATIONS[i % len(PERMUTATIONS)]
            plans.append(GroupPlan(level=level, index=i, variation="triple", params={
                "members": dict(zip(VARIATIONS, perm, strict=True)),
                "mode": MODES[(i + level) % len(MODES)],
                "domain": DOMAINS[(i + 3 * level) % len(DOMAINS)].name,
                "schema": SCHEMAS[(i + i // len(PERMUTATIONS)) % len(SCHEMAS)],
            }))
        if rest == 2:
            pair = dict(PAIR_MEMBERS[level])
            missing = [v for v in VARIATIONS if v not in pair]
            spare = [o for o in OUTCOMES if o not in pair.values()]
            plans.append(GroupPlan(level=level, index=triples, variation="pair", params={
                "members": pair, "spare": dict(zip(missing, spare, strict=True)),
                "mode": MODES[(triples + level) % len(MODES)],
                "domain": DOMAINS[(triples + 3 * level) % len(DOMAINS)].name,
                "schema": SCHEMAS[(triples + level) % len(SCHEMAS)],
            }))
    return plans


def expected_answers(plan: GroupPlan) -> tuple[str, ...]:
    return tuple(sorted(plan.params["members"].values()))


def build_group(plan: GroupPlan, rng: random.Random, config: PolicyCaseConfig) -> Group:
    members: dict[str, str] = dict(plan.params["members"])
    target = {**plan.params.get("spare", {}), **members}
    order = [v for v in VARIATIONS if v in members]
    for attempt in range(200):
        schema = plan.params["schema"] if attempt < 40 else pick(rng, SCHEMAS)
        sampled = _sample_policy(rng, plan.level, plan.params["mode"], plan.params["domain"], schema, order,
                                 target, config)
        if sampled is None:
            continue
        case, records, decisive = sampled
        built = []
        for variation in order:
            record = records[variation]
            fields = [{"key": f["key"], "value": record[f["key"]]} for f in case["record"]["fields"]]
            member_case = {**case, "record": {**case["record"], "fields": fields}}
            got = (answer(member_case), interpretation(member_case))
            if got != (members[variation], variation):
                raise RuntimeError(f"{NAME}: member {variation} came out {got}, planned {members[variation]}")
            built.append(Member(case=member_case, state=render(member_case), answer=got[0], options=OPTIONS,
                                variation=variation))
        rng.shuffle(built)
        positions = [i for i, f in enumerate(case["record"]["fields"]) if f["key"] in decisive]
        return Group(level=plan.level, domain=case["domain"], members=tuple(built),
                     decisive=frozenset(f"record/fields/{i}/value" for i in positions))
    raise RuntimeError(f"{NAME}: no policy found for level {plan.level} group {plan.index}")


# --- partial-information heuristics -----------------------------------------------------------
# They read the rendered text only, with patterns built from the wording tables above.

_RULE_LINE = re.compile(r"^\d+\. (.+)$")
_EXC_MARKS = "|".join(re.escape(form.split("{atom}")[0]) for form in EXCEPTION_FORMS)


def _outcome_patterns() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for form in RULE_FORMS:
        for o in OUTCOMES:
            pattern = re.escape(form)
            slots = (("\\{cond\\}", "(?P<cond>.+?)"), ("\\{exc\\}", f"(?P<exc>(?:{_EXC_MARKS}).+)?"),
                     ("\\{noun\\}", "[a-z ]+?"), ("\\{Article\\}", "An?"), ("\\{past\\}", PAST[o]),
                     ("\\{verb\\}", VERB[o]), ("\\{Verb\\}", VERB[o].capitalize()))
            for slot, repl in slots:
                pattern = pattern.replace(slot, repl)
            out.append((re.compile(f"^{pattern}$"), o))
    return out


_RULE_PATTERNS = _outcome_patterns()
_DEFAULT_PATTERNS = [
    (re.compile(re.escape(form).replace("\\{noun\\}", "[a-z ]+?").replace("\\{Article\\}", "An?")
                .replace("\\{past\\}", PAST[o]).replace("\\{verb\\}", VERB[o])), o)
    for form in DEFAULT_FORMS for o in OUTCOMES
]
_RECORD_HEAD = re.compile("|".join(re.escape(h).replace("\\{ref\\}", "[A-Z]+-[0-9]+")
                                   for h in RECORD_HEADERS))


def _parse_for_heuristics(text: str) -> tuple[list[tuple[str, str]], dict[str, str], str]:
    """(rules as (outcome, condition text), record label -> value text, default outcome)."""
    rules: list[tuple[str, str]] = []
    record: dict[str, str] = {}
    default = ""
    in_record = False
    for line in text.splitlines():
        m = _RULE_LINE.match(line)
        if m:
            for pattern, outcome in _RULE_PATTERNS:
                hit = pattern.match(m.group(1))
                if hit:
                    rules.append((outcome, hit.group("cond")))
                    break
            continue
        if _RECORD_HEAD.match(line):
            in_record = True
            continue
        body = line[2:] if line.startswith("- ") else line
        if in_record:
            if body.startswith("| ") and body.endswith(" |"):
                label, _, value = body[2:-2].partition(" | ")
                record[label.lower()] = value
            elif ": " in body:
                label, _, value = body.partition(": ")
                record[label.lower()] = value
            continue
        for pattern, outcome in _DEFAULT_PATTERNS:
            if pattern.fullmatch(body):
                default = outcome
    return rules, record, default


def _number(text: str) -> float:
    return float(text.split()[0].replace(",", ""))


def _atom_holds(text: str, record: dict[str, str]) -> bool:
    label = max((lab for lab in record if text.startswith(f"the {lab} ")), key=len)
    value, rest = record[label], text[len(label) + 5:]
    for op, forms in NUM_PREDICATES.items():
        for form in forms:
            m = re.fullmatch(re.escape(form).replace("\\{v\\}", "(.+)"), rest)
            if m and value[:1].isdigit():
                a, ref = _number(value), _number(m.group(1))
                return {"gt": a > ref, "ge": a >= ref, "lt": a < ref, "le": a <= ref}[op]
    for prefix in ("is anything other than ", "is not "):
        if rest.startswith(prefix):
            return value != _without_article(rest[len(prefix):])
    listed = rest.removeprefix("is one of ").removeprefix("is either ").removeprefix("is ")
    options = [_without_article(v) for v in re.split(r", | or ", listed)]
    return value in options


def _without_article(value: str) -> str:
    """A rule's value as the record writes it (1.3 rules give it its article, the record does not)."""
    return re.sub(r"^(?:an?|the) ", "", value)


def _main_condition_holds(cond: str, record: dict[str, str]) -> bool:
    return all(_atom_holds(part, record) for part in re.split(r" and (?=the )", cond))


def heuristic_default_always(item: Item) -> dict[str, float]:
    """Answer the policy's default outcome whatever the case says."""
    _, _, default = _parse_for_heuristics(str(item.state))
    return {o: 1.0 if o == default else 0.0 for o in OUTCOMES}


def heuristic_first_match(item: Item) -> dict[str, float]:
    """The outcome of the first rule whose conditions hold, ignoring exceptions and precedence."""
    rules, record, default = _parse_for_heuristics(str(item.state))
    chosen = next((o for o, cond in rules if _main_condition_holds(cond, record)), default)
    return {o: 1.0 if o == chosen else 0.0 for o in OUTCOMES}


def heuristic_last_match(item: Item) -> dict[str, float]:
    """The outcome of the last rule whose conditions hold (a "later rules override" reading)."""
    rules, record, default = _parse_for_heuristics(str(item.state))
    matched = [o for o, cond in rules if _main_condition_holds(cond, record)]
    chosen = matched[-1] if matched else default
    return {o: 1.0 if o == chosen else 0.0 for o in OUTCOMES}


register(FamilySpec(
    name=NAME,
    layer="B",
    version=VERSION,
    question=QUESTION,
    config_type=PolicyCaseConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={
        "default_always": heuristic_default_always,
        "first_match": heuristic_first_match,
        "last_match": heuristic_last_match,
    },
))
