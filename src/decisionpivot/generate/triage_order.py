"""triage_order (layer E): which waiting case do the rules put at the position asked for?

Story. A service desk of an invented organisation shows its queue board: the current time,
numbered ordering rules, the waiting cases (ticket number, class, arrival time, and at higher
levels a deadline, account type, status, channel, customer and a short summary) and the position
somebody asks about ("which case is served 3rd?"). The rules are built from a small catalogue:

* ``class_order`` - classes are served in the listed order (always rule 1);
* ``escalate`` - a case that has waited more than W minutes moves up one class;
* ``escalate2`` / ``key_account`` / ``awaiting_down`` - a second class adjustment (level 3): a
  further escalation after W2 minutes, key accounts up one class, or cases awaiting the customer's
  reply down one class; adjustments add up and are clamped to the listed classes;
* ``deadline`` - a case whose deadline is at most D minutes after the current time (or already
  past) goes before every other case, earliest deadline first;
* ``tie`` - within a class, earlier arrival first, then lower ticket number (at level 1 this may be
  folded into rule 1);
* ``hold`` - cases on hold are left out of the order (levels 2-3, half of the cases).

The answer is computed from the structured case by sorting the waiting cases on
(urgent first, deadline if urgent, adjusted class, arrival, ticket number) and reading off the
requested position.

Groups. Every contrast group shares one queue board; its members differ in exactly one element
(the decisive path), and each member has a different gold ticket:

* ``arrival`` - the arrival time of one ticket (its waiting time crosses an escalation limit or
  ties another ticket);
* ``current_time`` - the current time (waiting times and deadline windows of all tickets move);
* ``deadline`` - the deadline of one ticket (in or out of the deadline window, or removed);
* ``class`` - the listed class of one ticket;
* ``threshold`` - the minutes of one rule (escalation limit or deadline window).

Members are chosen by trying candidate values of the decisive element and keeping values whose
gold tickets differ. Candidates at a limit are preferred: a waiting time exactly at the escalation
limit (no move) and one minute past it (moves up), a deadline exactly D minutes away (urgent) and
one minute further (not urgent), a threshold equal to a ticket's waiting time. Values for which the
naive order ("listed class, then earliest arrival") gives the gold ticket are avoided, so that
shortcut stays below chance.

All members of a group show the same five options in the same order: the members' gold tickets
plus distractors (the naive pick, the cases just before or after the requested position). The gold
option position is balanced by construction: each level assigns position sets to groups so that
every position holds the gold of exactly 40 of the 200 items.

Levels: level 1 has 6 cases, 3-4 classes and 2-3 rules (one time rule); level 2 has 9-10 cases,
4 classes and 4-5 rules (one class adjustment, deadlines); level 3 has 12-14 cases, 4-5 classes,
5-6 rules with two class adjustments. Each level has 67 groups: 66 of three members and one pair
(201 groups, 600 items; exactly 200 groups of three cannot give 200 items per level).
Variation counts (items): arrival 217, current_time 119, deadline 90, class 87, threshold 87.

Version history:
* 1.0 - first release.
* 1.1 - boundary candidates preferred, shared option sets per group, gold positions balanced by
  construction, naive-order shortcut kept below chance.
* 1.2 - text revision (core 1.2, issue 14): the queue is kept by a customer-facing desk per domain
  (customer service, patient services, support, ...) instead of a domain department ("front desk
  desk", "field service service queue", a radiology queue); summaries use the family's own goods,
  machines and documents per domain so that only machines stop working and only physical goods
  arrive late ("Development board not working", never "Support plan making a noise"); no article
  before the business ("a adult education firm"). Queues, rules and answers are built as before.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took. The question says it as the writer would
  ("Under the rules, which waiting case is served at the position asked for?"; 1.2: "... at the position
  asked for in the state"). The desk's own customers queue: patients, shoppers, students, guests and
  households are people, in a column named for them ("Patient", "Student", "Guest"), shippers, software
  clients and card merchants companies with their legal form ("Hodgson Ltd"; 1.2: "Kennedy Academy" at
  student services). Summaries are what a customer raises ("Callback requested about an enrolment form",
  "Cannot open the course certificate sent by email", "Copy of a loan agreement requested"; 1.2:
  "Exams asks for a callback", "Facilities cannot open a course certificate", "Access request for the
  loan agreement archive"), drawn with the same draws. Queues, rules and answers are built as before.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.formatting import clock
from decisionpivot.generate.common.names import NameForge
from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "triage_order"
VERSION = "1.3"
QUESTION = "Under the rules, which waiting case is served at the position asked for?"
"""1.2 asked for "the position asked for in the state": the benchmark's word, not the writer's."""
VARIATIONS = ("arrival", "current_time", "deadline", "class", "threshold")
N_OPTIONS = 5

CLASS_SETS = (
    ("P1", "P2", "P3", "P4", "P5"),
    ("Critical", "High", "Medium", "Low", "Minimal"),
    ("Red", "Orange", "Yellow", "Green", "Blue"),
    ("Urgent", "Priority", "Standard", "Routine", "Deferred"),
    ("A", "B", "C", "D", "E"),
)
CHANNELS = ("phone", "email", "chat", "web form", "walk-in")
STATUSES = ("open", "awaiting reply", "on hold")
SUMMARIES = (
    "{good} sent to the wrong site", "damaged {good} reported", "question about a {document}",
    "{document} missing", "wrong {document} received", "callback requested about a {document}",
    "refund for a {good}", "{machine} not working", "copy of a {document} requested",
    "duplicate {document}", "{machine} keeps switching off", "change to a {document}", "{good} out of stock",
    "complaint about a {document}", "{document} needs correcting", "second {good} requested",
    "cannot open the {document} sent by email", "{good} arrived late",
)
"""What a customer raises. 1.2 let the organisation's own departments ask and fail ("Exams asks for a callback",
"Facilities cannot open a course certificate") and customers ask for "the loan agreement archive"; every summary
is now the customer's (the department is still drawn, so the stream is as in 1.2)."""


@dataclass(frozen=True)
class Setting:
    """What the service desk of one domain handles: its name, and goods and documents its customers raise."""

    desk: str
    """The customer-facing desk that keeps the queue ('patient services')."""
    goods: tuple[str, ...]
    """Physical goods customers order: they can arrive late, be damaged or be sent to the wrong site."""
    machines: tuple[str, ...]
    """The goods among them that run on power (they can stop working or keep switching off)."""
    documents: tuple[str, ...]
    """Documents customers send or receive (each can be missing, duplicated, changed or corrected)."""
    customer: str = "customer"
    """What the desk calls the people it serves, the heading of their column ("patient", "student", "guest")."""
    people: bool = True
    """True when they are people (shoppers, patients, students, guests, households), False for companies."""


SETTINGS = {
    "logistics": Setting("customer service", ("pallet jack", "cargo strap", "shipping crate", "handheld scanner"),
                         ("handheld scanner",), ("waybill", "delivery note", "customs declaration"), people=False),
    "healthcare": Setting("patient services", ("infusion stand", "examination lamp", "wheelchair", "thermometer"),
                          ("examination lamp", "thermometer"), ("referral", "discharge note", "consent form"),
                          "patient"),
    "retail": Setting("customer service", ("kettle", "desk lamp", "storage box", "wool blanket"),
                      ("kettle", "desk lamp"), ("receipt", "delivery note", "returns form")),
    "software": Setting("support", ("development board", "test phone", "laptop", "security key"),
                        ("development board", "test phone", "laptop"),
                        ("service agreement", "incident report", "order form"), people=False),
    "finance": Setting("customer service", ("card reader", "cash counter", "PIN pad", "safe deposit box"),
                       ("card reader", "cash counter", "PIN pad"),
                       ("statement", "loan agreement", "direct debit form"), people=False),
    "education": Setting("student services", ("projector", "lab kit", "textbook set", "tablet"),
                         ("projector", "tablet"), ("transcript", "enrolment form", "course certificate"), "student"),
    "energy": Setting("customer service", ("smart meter", "inverter", "cable drum", "transformer"),
                      ("smart meter", "inverter"), ("meter reading", "work order", "tariff sheet")),
    "hospitality": Setting("guest services", ("banquet table", "espresso machine", "room safe", "linen set"),
                           ("espresso machine", "room safe"), ("reservation", "invoice", "event order"), "guest"),
}
"""The family's own settings per domain: the queue is kept by a customer-facing desk (not by radiology
or the kitchen), and what customers raise fits it (no support plan that arrives late or makes a noise)."""

INTRO = (
    "Queue board of the {desk} desk at {org} ({business}).",
    "{org}, {desk} queue ({business}).",
    "Waiting list of the {desk} team at {org}, which works in {business}.",
)
READING = (
    "Times are on a 24-hour clock on the same day. A case's waiting time is the current time minus "
    "its arrival time, in whole minutes. Only the numbered rules decide the order; the other fields "
    "are for information.",
    "All times are today's, on a 24-hour clock; the waiting time of a case is the number of minutes "
    "from its arrival to the current time. The order follows the numbered rules alone; fields no rule "
    "mentions do not matter.",
)
NOW_LINES = ("Current time: {t}.", "The time now is {t}.", "It is now {t}.")
POSITION_LINES = (
    "Requested position: which case is served {ord}?",
    "The shift lead asks which waiting case will be handled {ord}.",
    "Position asked for: {ord} in the serving order (counting from the case served first).",
)

# Rule wording: one list of variants per rule kind. Placeholders: {order} {top} {bottom} {w} {d} {ref}.
CLASS_ORDER = (
    "Cases are served by class: {order}.",
    "Class order, from first served to last: {order}.",
    "Serve the classes in this order: {order}; a case in an earlier class goes before any case in a "
    "later class.",
)
CLAMP = (
    " Class moves made by the rules below are added together, and no case goes above {top} or below "
    "{bottom}.",
    " Moves up or down from the other rules are summed; the result stays between {top} and {bottom}.",
)
MERGED_TIE = (
    " Within a class, the earlier arrival goes first, and cases that arrived in the same minute go by "
    "ticket number, lower first.",
    " Inside one class, earliest arrival first; same arrival minute: lower ticket number first.",
)
TIE = (
    "Within the same class, the earlier arrival goes first; cases that arrived in the same minute go "
    "by ticket number, lower first.",
    "Ties are broken by arrival time (earliest first) and then by ticket number (lowest first).",
)
ESCALATE = (
    "A case that has waited more than {w} minutes at the current time moves up one class.",
    "Waiting-time escalation: once a case has been waiting for more than {w} minutes, it is treated "
    "as one class higher.",
    "Any case waiting longer than {w} minutes is raised by one class.",
)
ESCALATE2 = (
    "A case that has waited more than {w} minutes moves up one further class, on top of rule {ref}.",
    "Second escalation: after more than {w} minutes of waiting a case is raised by another class, in "
    "addition to rule {ref}.",
)
KEY_ACCOUNT = (
    "A case from a key account moves up one class.",
    "Key-account cases are treated as one class higher.",
)
AWAITING_DOWN = (
    "A case whose status is 'awaiting reply' (waiting for the customer) moves down one class.",
    "Cases with status 'awaiting reply' are treated as one class lower.",
)
DEADLINE = (
    "A case whose deadline is at most {d} minutes after the current time (or already past) is served "
    "before every other case; several such cases go by deadline, earliest first, and equal deadlines "
    "by the other rules.",
    "Deadline rule: a case whose deadline is {d} minutes or less away (a deadline already passed "
    "counts too) goes to the front; among such cases the earliest deadline leads, and equal deadlines "
    "are ordered by the other rules.",
)
HOLD = (
    "Cases with status 'on hold' are not served in this round; leave them out when counting positions.",
    "A case on hold is skipped entirely: it takes no position in the order.",
)
RULE_TEXTS = {
    "escalate": ESCALATE, "escalate2": ESCALATE2, "key_account": KEY_ACCOUNT,
    "awaiting_down": AWAITING_DOWN, "deadline": DEADLINE, "hold": HOLD, "tie": TIE,
}
TIME_RULES = ("escalate", "escalate2", "deadline")
ADJUSTMENTS = ("escalate", "escalate2", "key_account", "awaiting_down")
TABLE_STYLES = ("table", "list", "blocks")
NOTES = (
    "Cases already served today: {served}; they are no longer on the board.",
    "Average handling time this week: {minutes} minutes per case.",
    "Agents on shift: {agents}; the shift lead today is {agent}.",
    "The board is refreshed every minute; a case leaves it as soon as an agent picks it up.",
    "Cases are picked up by the next free agent, one at a time.",
)


@dataclass(frozen=True)
class TriageOrderConfig(FamilyConfig):
    """Queue sizes, classes and the variation layout per level."""

    cases: tuple[tuple[int, int], ...] = ((6, 6), (9, 10), (12, 14))
    """Smallest and largest number of listed cases at levels 1, 2, 3."""
    classes: tuple[tuple[int, int], ...] = ((3, 4), (4, 4), (4, 5))
    """Smallest and largest number of classes at levels 1, 2, 3."""
    variation_weights: tuple[tuple[int, ...], ...] = (
        (24, 13, 10, 10, 10), (24, 13, 10, 10, 10), (25, 14, 10, 9, 9),
    )
    """Groups per variation (in VARIATIONS order) at each level, rescaled to the level's group count."""
    pair_variation: tuple[str, str, str] = ("arrival", "arrival", "current_time")
    """Variation of the level's two-member groups (when items_per_level is not a multiple of 3)."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level < 4:
            raise ValueError("items_per_level must be at least 4 (groups of two and three members)")
        for name in ("cases", "classes", "variation_weights"):
            if len(getattr(self, name)) != 3:
                raise ValueError(f"{name} needs one entry per level")
        for low, high in self.cases:
            if not 6 <= low <= high <= 16:
                raise ValueError(f"cases per queue must satisfy 6 <= low <= high <= 16, got {(low, high)}")
        for low, high in self.classes:
            if not 3 <= low <= high <= 5:
                raise ValueError(f"classes must satisfy 3 <= low <= high <= 5, got {(low, high)}")
        for weights in self.variation_weights:
            if len(weights) != len(VARIATIONS) or min(weights) < 0 or sum(weights) <= 0:
                raise ValueError(f"variation_weights need {len(VARIATIONS)} non-negative weights per level")
        for level, variation in enumerate(self.pair_variation, start=1):
            if variation not in VARIATIONS:
                raise ValueError(f"pair_variation: unknown variation {variation!r}")
            if self.variation_weights[level - 1][VARIATIONS.index(variation)] == 0:
                raise ValueError(f"pair_variation {variation!r} has no groups at level {level}")


# --- case -------------------------------------------------------------------------------------


def _rules_for(rng: random.Random, level: int, variation: str) -> list[dict[str, Any]]:
    """The rule list (kinds, minutes and wording) of one queue."""
    w = pick(rng, (60, 75, 90, 105, 120))
    d = pick(rng, (15, 20, 30, 45))
    middle: list[dict[str, Any]] = []
    merged_tie = False
    if level == 1:
        time_rule = "deadline" if variation == "deadline" else pick(rng, ("escalate", "deadline"))
        middle.append({"kind": time_rule, "minutes": w if time_rule == "escalate" else d})
        merged_tie = rng.random() < 0.5
        if merged_tie and rng.random() < 0.5:
            other = "deadline" if time_rule == "escalate" else "escalate"
            middle.append({"kind": other, "minutes": w if other == "escalate" else d})
    else:
        middle.append({"kind": "escalate", "minutes": w})
        if level == 3:
            second = pick(rng, ("escalate2", "key_account", "awaiting_down"))
            entry: dict[str, Any] = {"kind": second}
            if second == "escalate2":
                entry["minutes"] = w + pick(rng, (45, 60, 90))
            middle.append(entry)
        middle.append({"kind": "deadline", "minutes": d})
        if rng.random() < 0.5:
            middle.append({"kind": "hold"})
    rng.shuffle(middle)
    # a second escalation always follows the first so that it can refer to it
    kinds = [r["kind"] for r in middle]
    if "escalate2" in kinds and kinds.index("escalate2") < kinds.index("escalate"):
        i, j = kinds.index("escalate2"), kinds.index("escalate")
        middle[i], middle[j] = middle[j], middle[i]
    rules: list[dict[str, Any]] = [{"kind": "class_order", "merged_tie": merged_tie}, *middle]
    if not merged_tie:
        rules.append({"kind": "tie"})
    for rule in rules:
        texts = CLASS_ORDER if rule["kind"] == "class_order" else RULE_TEXTS[rule["kind"]]
        rule["wording"] = rng.randrange(len(texts))
    rules[0]["clamp_wording"] = rng.randrange(len(CLAMP))
    rules[0]["tie_wording"] = rng.randrange(len(MERGED_TIE))
    return rules


def _sample_queue(rng: random.Random, level: int, variation: str,
                  config: TriageOrderConfig) -> dict[str, Any]:
    """The part of a case the answer depends on: time, classes, rules and the tickets' ordering fields."""
    n = rng.randint(*config.cases[level - 1])
    n_classes = rng.randint(*config.classes[level - 1])
    classes = list(pick(rng, CLASS_SETS)[:n_classes])
    rules = _rules_for(rng, level, variation)
    kinds = {r["kind"]: r for r in rules}
    now = rng.randrange(10 * 60, 17 * 60)
    w = kinds["escalate"]["minutes"] if "escalate" in kinds else 90
    d = kinds["deadline"]["minutes"] if "deadline" in kinds else 30
    tickets: list[dict[str, Any]] = []
    for i, number in enumerate(rng.sample(range(1000, 10000), n)):
        wait = rng.randint(3, int(2.2 * w))
        if rng.random() < 0.25:
            wait = w + rng.randint(-2, 2)
        tickets.append({
            "ticket": f"T-{number}",
            "class": classes[rng.randrange(n_classes)] if i >= n_classes else classes[i],
            "arrival": now - wait,
            "deadline": None,
            "account": "key" if rng.random() < 0.3 else "standard",
            "status": "open",
        })
    rng.shuffle(tickets)
    if rng.random() < 0.5:  # an arrival tie to exercise the ticket-number tie-break
        a, b = rng.sample(range(n), 2)
        tickets[b]["arrival"] = tickets[a]["arrival"]
    if level >= 2 or "deadline" in kinds:
        for t in tickets:
            if rng.random() < 0.4:
                offset = rng.randint(-10, 150) if rng.random() < 0.6 else d + rng.randint(-3, 3)
                t["deadline"] = max(now + offset, t["arrival"] + 15)
    if level >= 2:
        for t in tickets:
            r = rng.random()
            t["status"] = "awaiting reply" if r < 0.2 else ("on hold" if r < 0.3 else "open")
    tickets.sort(key=lambda t: t["ticket"])
    return {"level": level, "now": now, "classes": classes, "rules": rules, "tickets": tickets, "position": 1}


def _department(name: str) -> str:
    """A department as a summary names it: 'radiology', but 'the front desk' (a desk takes its article)."""
    return f"the {name}" if name.endswith("desk") else name


def _dress(queue: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Add the setting and wording that do not change the answer: domain, names, summaries, notes."""
    domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    tickets = queue["tickets"]
    summaries: list[str] = []
    setting = SETTINGS[domain.name]
    while len(summaries) < len(tickets):
        text = pick(rng, SUMMARIES).format(good=pick(rng, setting.goods), machine=pick(rng, setting.machines),
                                           document=pick(rng, setting.documents),
                                           department=_department(pick(rng, domain.departments)))
        text = re.sub(r"\ba (?=[aeiou])", "an ", text)
        text = text[0].upper() + text[1:]
        if text not in summaries:
            summaries.append(text)
    # the desk's own customers: patients, shoppers, students, guests and households are people; shippers, software
    # clients and card merchants are companies (1.2 listed "Kennedy Academy" as a student of student services)
    customers = [forge.client(setting.people) for _ in range(max(3, len(tickets) // 2))]
    dressed = [{**t, "channel": pick(rng, CHANNELS), "customer": pick(rng, customers), "summary": summary}
               for t, summary in zip(tickets, summaries, strict=True)]
    notes = rng.sample(NOTES, 2)
    return {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(desk=SETTINGS[domain.name].desk, org=forge.organisation(domain.name),
                                         business=domain.business),
        "reading": rng.randrange(len(READING)),
        "now_wording": rng.randrange(len(NOW_LINES)),
        "position_wording": rng.randrange(len(POSITION_LINES)),
        "style": pick(rng, TABLE_STYLES),
        "notes": [note.format(served=rng.randint(8, 60), minutes=rng.randint(6, 25), agents=rng.randint(2, 7),
                              agent=forge.person()) for note in notes],
        **queue,
        "tickets": dressed,
        "options": [],
    }


# --- answer -----------------------------------------------------------------------------------


def serve_order(case: dict[str, Any]) -> list[str]:
    """Ticket ids of the waiting cases in serving order."""
    rank_of = {c: i for i, c in enumerate(case["classes"])}
    bottom = len(rank_of) - 1
    rules = {r["kind"]: r.get("minutes") for r in case["rules"]}
    now = case["now"]
    hold = "hold" in rules
    escalate, escalate2, window = rules.get("escalate"), rules.get("escalate2"), rules.get("deadline")
    key_account, awaiting_down = "key_account" in rules, "awaiting_down" in rules
    keyed = []
    for t in case["tickets"]:
        if hold and t["status"] == "on hold":
            continue
        wait = now - t["arrival"]
        shift = 0
        if escalate is not None and wait > escalate:
            shift -= 1
        if escalate2 is not None and wait > escalate2:
            shift -= 1
        if key_account and t["account"] == "key":
            shift -= 1
        if awaiting_down and t["status"] == "awaiting reply":
            shift += 1
        rank = min(max(rank_of[t["class"]] + shift, 0), bottom)
        deadline = t["deadline"]
        urgent = window is not None and deadline is not None and deadline - now <= window
        keyed.append((0, deadline, rank, t["arrival"], t["ticket"]) if urgent
                     else (1, 0, rank, t["arrival"], t["ticket"]))
    return [key[-1] for key in sorted(keyed)]


def naive_order(case: dict[str, Any]) -> list[str]:
    """The shortcut order: listed class, then earliest arrival, then ticket number; every listed case."""
    rank_of = {c: i for i, c in enumerate(case["classes"])}
    keys = sorted((rank_of[t["class"]], t["arrival"], t["ticket"]) for t in case["tickets"])
    return [key[-1] for key in keys]


def answer(case: dict[str, Any]) -> str:
    """The ticket at the requested position of the serving order."""
    return serve_order(case)[case["position"] - 1]


# --- rendering --------------------------------------------------------------------------------


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _class_sequence(classes: Sequence[str], wording: int) -> str:
    if wording == 1:
        return " > ".join(classes)
    return f"{classes[0]} first, " + ", ".join(f"then {c}" for c in classes[1:])


def _rule_text(rule: dict[str, Any], case: dict[str, Any], numbers: dict[str, int]) -> str:
    classes = case["classes"]
    kind = rule["kind"]
    if kind == "class_order":
        text = CLASS_ORDER[rule["wording"]].format(order=_class_sequence(classes, rule["wording"]))
        if any(r["kind"] in ADJUSTMENTS for r in case["rules"]):
            text += CLAMP[rule["clamp_wording"]].format(top=classes[0], bottom=classes[-1])
        if rule["merged_tie"]:
            text += MERGED_TIE[rule["tie_wording"]]
        return text
    return RULE_TEXTS[kind][rule["wording"]].format(
        w=rule.get("minutes"), d=rule.get("minutes"), ref=numbers.get("escalate"))


def _columns(case: dict[str, Any]) -> list[str]:
    kinds = {r["kind"] for r in case["rules"]}
    columns = ["class", "arrived"]
    if case["level"] >= 2 or "deadline" in kinds:
        columns.append("deadline")
    if case["level"] >= 2:
        columns += ["account", "status"]
    return [*columns, "channel", SETTINGS[case["domain"]].customer]


def _cell(ticket: dict[str, Any], column: str) -> str:
    if column in ("patient", "student", "guest"):
        return str(ticket["customer"])
    if column == "arrived":
        return clock(ticket["arrival"])
    if column == "deadline":
        return "none" if ticket["deadline"] is None else clock(ticket["deadline"])
    return str(ticket[column])


def _ticket_lines(case: dict[str, Any]) -> list[str]:
    columns = _columns(case)
    style = case["style"]
    if style == "table":
        header = ["Ticket", *(c.capitalize() for c in columns), "Summary"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for t in case["tickets"]:
            cells = [t["ticket"], *(_cell(t, c) for c in columns), t["summary"]]
            lines.append("| " + " | ".join(cells) + " |")
        return lines
    if style == "list":
        return [f"- {t['ticket']}: " + ", ".join(f"{c} {_cell(t, c)}" for c in columns) + f" ({t['summary']})"
                for t in case["tickets"]]
    lines = []
    for t in case["tickets"]:
        lines.append(f"{t['ticket']} - {t['summary']}")
        lines.append("    " + "; ".join(f"{c}: {_cell(t, c)}" for c in columns))
    return lines


def render(case: dict[str, Any]) -> str:
    numbers = {r["kind"]: i for i, r in enumerate(case["rules"], start=1)}
    lines = [case["intro"], READING[case["reading"]], *case["notes"],
             NOW_LINES[case["now_wording"]].format(t=clock(case["now"])), "", "Ordering rules:"]
    lines += [f"{i}. {_rule_text(r, case, numbers)}" for i, r in enumerate(case["rules"], start=1)]
    lines += ["", f"Waiting cases ({len(case['tickets'])}, listed by ticket number):"]
    lines += _ticket_lines(case)
    lines += ["", POSITION_LINES[case["position_wording"]].format(ord=ordinal(case["position"]))]
    return "\n".join(lines)


# --- contrast group ---------------------------------------------------------------------------


def _apportion(weights: Sequence[int], total: int) -> list[int]:
    """Largest-remainder split of ``total`` in proportion to ``weights``."""
    raw = [total * w / sum(weights) for w in weights]
    counts = [int(r) for r in raw]
    order = sorted(range(len(weights)), key=lambda i: (-(raw[i] - counts[i]), i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _sizes(items: int) -> tuple[int, int]:
    """Groups of three and of two giving ``items`` (as few pairs as possible)."""
    pairs = {0: 0, 1: 2, 2: 1}[items % 3]
    return (items - 2 * pairs) // 3, pairs


def plan(config: TriageOrderConfig) -> list[GroupPlan]:
    plans: list[GroupPlan] = []
    for level in (1, 2, 3):
        triples, pairs = _sizes(config.items_per_level)
        counts = _apportion(config.variation_weights[level - 1], triples + pairs)
        pair_index = VARIATIONS.index(config.pair_variation[level - 1])
        if counts[pair_index] < pairs:
            raise ValueError(f"level {level}: too few {VARIATIONS[pair_index]} groups for the pairs")
        # interleave the variations so that neighbouring groups differ
        slots = sorted(((j + 0.5) / c, v, j) for v, c in enumerate(counts) for j in range(c))
        layout = [(VARIATIONS[v], 2 if v == pair_index and j < pairs else 3) for _, v, j in slots]
        # gold positions: every group takes the least used positions (random among ties)
        used = [0] * N_OPTIONS
        prng = random.Random(stable_seed(NAME, "positions", level, config.items_per_level))
        for index, (variation, size) in enumerate(layout):
            ranked = sorted(range(N_OPTIONS), key=lambda p: (used[p], prng.random()))
            positions = tuple(sorted(ranked[:size]))
            for p in positions:
                used[p] += 1
            plans.append(GroupPlan(level=level, index=index, variation=variation,
                                   params={"size": size, "positions": positions}))
    return plans


def _time_rules(case: dict[str, Any]) -> dict[str, int]:
    return {r["kind"]: r["minutes"] for r in case["rules"] if r["kind"] in TIME_RULES}


def _candidates(case: dict[str, Any], variation: str,
                rng: random.Random) -> tuple[str, list[tuple[Any, str]]]:
    """The decisive path and candidate values, each tagged limit / past / tie / plain."""
    now = case["now"]
    tickets = case["tickets"]
    limits = _time_rules(case)
    waits = [w for k, w in limits.items() if k != "deadline"]
    window = limits.get("deadline")
    out: list[tuple[Any, str]] = []
    if variation == "arrival":
        i = rng.randrange(len(tickets))
        target = tickets[i]
        latest = now - 1 if target["deadline"] is None else min(now - 1, target["deadline"] - 15)
        for w in waits:
            out += [(now - w, f"limit:w{w}"), (now - w - 1, f"past:w{w}")]
        for j, t in enumerate(tickets):
            if j != i:
                out += [(t["arrival"], "tie"), (t["arrival"] + pick(rng, (-1, 1)), "plain")]
        out += [(rng.randint(now - 250, now - 2), "plain") for _ in range(8)]
        out = [(v, tag) for v, tag in out if 7 * 60 <= v <= latest]
        return f"tickets/{i}/arrival", out
    if variation == "current_time":
        earliest = max(t["arrival"] for t in tickets) + 1
        for t in tickets:
            for w in waits:
                ident = f"{t['ticket']}w{w}"
                out += [(t["arrival"] + w, f"limit:{ident}"), (t["arrival"] + w + 1, f"past:{ident}")]
            if window is not None and t["deadline"] is not None:
                ident = f"{t['ticket']}d"
                due = t["deadline"] - window
                out += [(due, f"limit:{ident}"), (due - 1, f"past:{ident}")]
        out += [(now + rng.randint(-45, 45), "plain") for _ in range(8)]
        out = [(v, tag) for v, tag in out if earliest <= v <= 23 * 60 and abs(v - now) <= 75]
        return "now", out
    if variation == "deadline":
        i = rng.randrange(len(tickets))
        target = tickets[i]
        assert window is not None
        out += [(now + window, "limit:d"), (now + window + 1, "past:d"), (None, "plain")]
        for j, t in enumerate(tickets):
            if j != i and t["deadline"] is not None and t["deadline"] - now <= window:
                out += [(t["deadline"], "tie"), (t["deadline"] - 1, "plain"), (t["deadline"] + 1, "plain")]
        out += [(now + rng.randint(-10, 150), "plain") for _ in range(6)]
        out = [(v, tag) for v, tag in out if v is None or v >= target["arrival"] + 15]
        return f"tickets/{i}/deadline", out
    if variation == "class":
        i = rng.randrange(len(tickets))
        return f"tickets/{i}/class", [(c, "plain") for c in case["classes"]]
    # threshold: the minutes of one time rule
    index = pick(rng, [k for k, r in enumerate(case["rules"]) if r["kind"] in TIME_RULES])
    rule = case["rules"][index]
    if rule["kind"] == "deadline":
        offsets = {t["deadline"] - now for t in tickets if t["deadline"] is not None}
        values = range(10, 95, 5)
    else:
        offsets = {now - t["arrival"] for t in tickets}
        low = limits["escalate"] + 5 if rule["kind"] == "escalate2" else 30
        high = limits["escalate2"] - 5 if rule["kind"] == "escalate" and "escalate2" in limits else 240
        values = range(low, high + 1, 5)
    out = [(v, "limit" if v in offsets else "plain") for v in values]
    return f"rules/{index}/minutes", out


def _set_path(case: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``case`` with the leaf at ``path`` replaced (the copied branch only)."""
    parts = path.split("/")
    new = dict(case)
    node: Any = new
    for part in parts[:-1]:
        key: Any = int(part) if isinstance(node, list) else part
        child = node[key]
        child = list(child) if isinstance(child, list) else dict(child)
        node[key] = child
        node = child
    node[parts[-1]] = value
    return new


@dataclass(frozen=True)
class _Trial:
    """One candidate value of the decisive element with the orders it gives."""

    value: Any
    tag: str
    order: tuple[str, ...]
    naive: tuple[str, ...]


def _trials(queue: dict[str, Any], path: str, candidates: list[tuple[Any, str]]) -> list[_Trial]:
    out: list[_Trial] = []
    seen: set[Any] = set()
    for value, tag in candidates:
        if value in seen:
            continue
        seen.add(value)
        member = _set_path(queue, path, value)
        out.append(_Trial(value, tag, tuple(serve_order(member)), tuple(naive_order(member))))
    return out


TAG_SCORE = {"limit": 3.0, "past": 2.5, "tie": 1.5, "plain": 0.0}


def _choose(trials: list[_Trial], k: int, size: int, needs_boundary: bool,
            rng: random.Random) -> list[_Trial] | None:
    """``size`` trials with different gold tickets at position ``k`` (1-based), boundary values first.

    Tags are ``limit:<id>`` (a value exactly at a limit), ``past:<id>`` (one minute past the same
    limit), ``tie`` or ``plain``. A limit/past pair with different golds is taken first when there is
    one; the other members are the best-scoring values with further golds. Values whose gold is also
    the naive-order pick are avoided.
    """
    def naive_hit(trial: _Trial) -> bool:
        return trial.naive[k - 1] == trial.order[k - 1]

    by_limit: dict[str, dict[str, _Trial]] = {}
    for trial in trials:
        kind, _, ident = trial.tag.partition(":")
        if kind in ("limit", "past") and not naive_hit(trial):
            by_limit.setdefault(ident, {})[kind] = trial
    pairs = [(p["limit"], p["past"]) for _, p in sorted(by_limit.items())
             if len(p) == 2 and p["limit"].order[k - 1] != p["past"].order[k - 1]]
    chosen: list[_Trial] = list(pick(rng, pairs)) if pairs and size >= 2 else []
    best: dict[str, tuple[float, _Trial]] = {}
    for trial in trials:
        gold = trial.order[k - 1]
        score = TAG_SCORE[trial.tag.partition(":")[0]] + rng.random() - (6.0 if naive_hit(trial) else 0.0)
        if gold not in best or score > best[gold][0]:
            best[gold] = (score, trial)
    taken = {t.order[k - 1] for t in chosen}
    rest = sorted((s for g, s in best.items() if g not in taken), key=lambda s: -s[0])
    chosen += [t for _, t in rest[: size - len(chosen)]]
    if len(chosen) < size:
        return None
    naive_hits = sum(naive_hit(t) for t in chosen)
    if naive_hits > 1 or (naive_hits == 1 and rng.random() < NAIVE_REJECT):
        return None
    if needs_boundary and not any(t.tag.startswith("limit") for t in chosen):
        return None
    return chosen


NAIVE_REJECT = 0.75
"""Share of otherwise good member sets refused because one member's gold is the naive-order pick."""


def build_group(plan: GroupPlan, rng: random.Random, config: TriageOrderConfig) -> Group:
    size = plan.params["size"]
    positions = plan.params["positions"]
    for _ in range(300):
        queue = _sample_queue(rng, plan.level, plan.variation, config)
        path, candidates = _candidates(queue, plan.variation, rng)
        trials = _trials(queue, path, candidates)
        n_waiting = len(trials[0].order) if trials else 0
        ks = list(range(2, n_waiting))
        rng.shuffle(ks)
        if rng.random() < 0.15:
            ks.insert(0, pick(rng, (1, n_waiting)))
        chosen = None
        for k in ks:
            chosen = _choose(trials, k, size, plan.variation != "class", rng)
            if chosen is not None:
                queue["position"] = k
                break
        if chosen is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no group found for level {plan.level} {plan.variation}")
    k = queue["position"]
    golds = [t.order[k - 1] for t in chosen]
    pool: list[str] = []
    for t in chosen:
        pool.append(t.naive[k - 1])
        pool += [t.order[j] for j in (k - 2, k) if 0 <= j < len(t.order)]
    pool = [t for t in dict.fromkeys(pool) if t not in golds]
    rng.shuffle(pool)
    others = [t["ticket"] for t in queue["tickets"] if t["ticket"] not in golds and t["ticket"] not in pool]
    rng.shuffle(others)
    distractors = (pool + others)[: N_OPTIONS - size]
    slots: list[str | None] = [None] * N_OPTIONS
    shuffled = list(golds)
    rng.shuffle(shuffled)
    for p, gold in zip(positions, shuffled, strict=True):
        slots[p] = gold
    rest = iter(distractors)
    base = _dress(queue, rng)
    base["options"] = [s if s is not None else next(rest) for s in slots]
    summary = {t["ticket"]: t["summary"] for t in base["tickets"]}
    options = tuple(Option(t, summary[t]) for t in base["options"])
    members = []
    for trial, gold in zip(chosen, golds, strict=True):
        case = _set_path(base, path, trial.value)
        if answer(case) != gold:
            raise RuntimeError(f"{NAME}: dressing changed the answer")
        members.append(Member(case=case, state=render(case), answer=gold, options=options,
                              variation=plan.variation))
    rng.shuffle(members)
    return Group(level=plan.level, domain=base["domain"], members=tuple(members), decisive=frozenset({path}))


# --- partial-information heuristics ------------------------------------------------------------

_TICKET = re.compile(r"T-\d{4}")
_CLASS_CELL = re.compile(r"class:? (\S+?)[,;]? ")
_ARRIVED = re.compile(r"arrived:? (\d\d):(\d\d)")


def _read_board(state: str) -> tuple[list[str], list[tuple[str, str, int]], int]:
    """(class order, [(ticket, class, arrival)], requested position) from a rendered board."""
    lines = state.splitlines()
    rule1 = next(line for line in lines if line.startswith("1. "))
    found = re.search(r"(?:class|last|order): (.+?)[.;]", rule1)
    assert found is not None
    classes = [c.removesuffix(" first").strip() for c in re.split(r" > |, then ", found.group(1))]
    tickets: list[tuple[str, str, int]] = []
    header: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("| Ticket"):
            header = [c.strip().lower() for c in line.strip("|").split("|")]
        elif line.startswith("| T-"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            hh, mm = cells[header.index("arrived")].split(":")
            tickets.append((cells[0], cells[header.index("class")], int(hh) * 60 + int(mm)))
        elif line.startswith("- T-") or (_TICKET.match(line) and i + 1 < len(lines)
                                         and lines[i + 1].startswith("    class")):
            text = line if line.startswith("- ") else lines[i + 1] + " "
            cls = _CLASS_CELL.search(text + " ")
            arr = _ARRIVED.search(text)
            if cls and arr:
                ticket = _TICKET.search(line)
                assert ticket is not None
                tickets.append((ticket.group(), cls.group(1), int(arr.group(1)) * 60 + int(arr.group(2))))
    position = int(re.findall(r"(\d+)(?:st|nd|rd|th)\b", lines[-1])[0])
    return classes, tickets, position


def heuristic_class_then_arrival(item: Item) -> dict[str, float]:
    """The naive order: lowest listed class, then earliest arrival (then ticket number), every case.

    Ignores escalations, deadlines, holds and other adjustments; puts all probability on the case at
    the requested position of that order (uniform over the options if it is not among them).
    """
    keys = list(item.option_keys)
    state = item.state if isinstance(item.state, str) else ""
    classes, tickets, position = _read_board(state)
    rank = {c: i for i, c in enumerate(classes)}
    ordered = sorted(tickets, key=lambda t: (rank.get(t[1], len(rank)), t[2], int(t[0][2:])))
    pick_ = ordered[position - 1][0] if position <= len(ordered) else None
    if pick_ in keys:
        return {k: 1.0 if k == pick_ else 0.0 for k in keys}
    return {k: 1.0 / len(keys) for k in keys}


register(FamilySpec(
    name=NAME,
    layer="E",
    version=VERSION,
    question=QUESTION,
    config_type=TriageOrderConfig,
    plan=plan,
    build_group=build_group,
    heuristics={"class_then_arrival": heuristic_class_then_arrival},
))

