"""breach_severity (layer B): which severity does the office's rubric give this incident?

Story. The data-protection office of an invented organisation (a clinic group, a home-goods shop, an adult-education
college, a software firm, an electricity supplier, a hotel, a freight forwarder) rates every personal-data incident
reported to it with a points rubric, and the severity decides who is told and how fast. Points come from the people
affected (one point for every full 5 ... 500 people), from each kind of data exposed (contact details 1 ... health
information 4) and from the time the data was exposed (one point for every full 24 hours, at most 3); from level 2
on, a mitigation takes points off (encrypted: 3, every copy deleted or returned: 2), and at level 3 people under 18
among those affected add 2. The severity is the band the total falls in; the bands are written as ranges of whole
points whose round number either opens a band ("10 to 14 points") or closes one ("up to 10 points"), drawn per case.

Levels (difficulty):

1. 4 severities; the people affected are two lists with no one on both, the hours exposed a number;
2. 5 severities; the two lists share some people, the time exposed runs between two moments, and a mitigation may
   apply;
3. 6 severities; as level 2, with people under 18 adding points.

Groups. One decisive count moves by one person at a time: one of the two lists or (from level 2) the people on
both. The members' people affected are the last count before a full unit and the unit itself (199 and 200 with a
point for every full 50: 3 and 4 points), placed so that the total crosses one band edge
(:mod:`decisionpivot.scale.boundary`). Only the people affected depend on the group's boundary: the data, the
time and the adjustments are drawn without regard to it and give at most 9 points, below every band's first edge,
so no fact but the lists says where on the scale a case lies; the points per person range from 5 to 500, so a
list's size says little either; and no count shown is the round number the rubric divides by (the people affected
are always a sum). Every case has at least a day of exposure, so a reading that drops the time misses, and the
people affected are never a whole number of units on the lower side, so counting started units misses too.

Version history:
* 1.0 - first release (scale suite 1.0).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.formatting import MONTHS, WEEKDAYS, clock, grouped
from decisionpivot.generate.common.wording import join_words, pick
from decisionpivot.generate.family import FamilySpec, Group, GroupPlan, Member
from decisionpivot.items import Item
from decisionpivot.scale.boundary import Boundary, ScaleConfig, expected_answers, offset, scale_plans, variation
from decisionpivot.scale.names import PLACE_WORDS, NameBook
from decisionpivot.scale.registry import register
from decisionpivot.score_questions import level_key, level_options

NAME = "breach_severity"
VERSION = "1.0"
QUESTION = "Which severity does the office's rubric give this incident?"

SEVERITIES = (
    ("Negligible", "recorded in the incident log only"),
    ("Low", "recorded, and the team lead is told"),
    ("Moderate", "the data-protection officer reviews it within a week"),
    ("Significant", "the data-protection officer reviews it within two working days"),
    ("High", "the people affected are told"),
    ("Severe", "reported to the supervisory authority within 72 hours"),
)
SCALES = {4: (1, 2, 4, 5), 5: (1, 2, 3, 4, 5), 6: (0, 1, 2, 3, 4, 5)}
"""Which of :data:`SEVERITIES` a scale of each size uses, lowest first."""

EDGES = {
    1: ((10, 15, 20), (10, 20, 30), (15, 20, 25)),
    2: ((10, 15, 20, 25), (10, 20, 30, 40), (15, 20, 25, 30)),
    3: ((10, 15, 20, 25, 30), (10, 20, 30, 40, 50), (15, 20, 25, 30, 35)),
}
"""Band edges in points at each difficulty level: the round numbers the severity bands are written around."""

UNITS = (5, 10, 20, 25, 50, 100, 200, 250, 500)
"""People per point: a wide range, so that the size of a list says little about its points."""
DAY_CAP = 3
"""Largest number of points for the time exposed."""
OTHER_POINTS_MAX = 9
"""Most points anything but the people affected gives a case (below every band's first edge, 10)."""

KINDS = (
    ("contact details", 1), ("postal addresses", 1), ("dates of birth", 2), ("login credentials", 2),
    ("bank or card details", 3), ("identity document numbers", 3), ("health information", 4),
)
"""Kinds of personal data and their points."""
KIND_POINTS = dict(KINDS)

ENCRYPTED, RECOVERED = "encrypted", "recovered"
MITIGATIONS = {
    ENCRYPTED: (3, "the data was encrypted and the key was not exposed with it"),
    RECOVERED: (2, "every copy was deleted or returned, and whoever received it confirmed this in writing"),
}
"""Mitigation -> (points taken off, how the rubric describes it)."""
UNDER_18_POINTS = 2

DECISIVE = (("first_list", "second_list"), ("first_list", "second_list", "overlap"),
            ("first_list", "second_list", "overlap"))
"""The decisive count at each difficulty level, taken in turn: one of the two lists, or the people on both."""

FROM, UP_TO = "from", "up_to"


@dataclass(frozen=True)
class Incident:
    """What happened, as the report tells it."""

    text: str
    """The report's account ('A referral letter was e-mailed to the wrong clinic.')."""
    kinds: tuple[str, ...]
    """Kinds of data the incident exposes in every case (from :data:`KINDS`): the ones its account names."""
    optional: tuple[str, ...]
    """Kinds it may expose as well."""
    lists: tuple[str, str]
    """Who the two lists of people affected hold (level 2-3: 'patients', 'staff')."""
    mitigations: tuple[str, ...]
    """Mitigations that fit the incident."""


@dataclass(frozen=True)
class Setting:
    """A domain's organisation and the incidents it reports."""

    domain: str
    """Item domain."""
    about: str
    """What the organisation is, with its article."""
    trades: tuple[str, ...]
    """Name endings of the organisation; empty: a place word and ``suffix``."""
    suffix: str
    """For a place-named organisation."""
    reporters: tuple[str, ...]
    """Who reports incidents."""
    under_18: bool
    """Whether people under 18 can be among those affected."""
    incidents: tuple[Incident, ...]
    """The incidents."""


SETTINGS = (
    Setting("healthcare", "a group of outpatient clinics", (), "Clinics", ("practice manager", "nurse", "receptionist"),
            True, (
                Incident("A batch of referral letters was e-mailed to the wrong clinic.",
                         ("contact details", "health information"), ("dates of birth",), ("patients", "relatives"),
                         (RECOVERED,)),
                Incident("A laptop with an export of the appointment system was stolen from a car.",
                         ("contact details", "dates of birth"), ("postal addresses", "health information"),
                         ("patients", "staff"), (ENCRYPTED,)),
                Incident("Appointment reminders were sent with every recipient's address visible.",
                         ("contact details",), (), ("patients", "carers"), ()),
            )),
    Setting("retail", "an online home-goods shop", ("Home Goods", "Interiors", "Living"), "",
            ("customer service lead", "web shop manager", "warehouse supervisor"), False, (
                Incident("A marketing e-mail showed every recipient's address to all the others.",
                         ("contact details",), (), ("customers", "newsletter subscribers"), ()),
                Incident("An export of loyalty-card members was left on a file share open to the internet.",
                         ("contact details", "postal addresses"), ("dates of birth",), ("members", "staff"),
                         (ENCRYPTED,)),
                Incident("Order confirmations showing card details were sent to the wrong customers.",
                         ("contact details", "bank or card details"), ("postal addresses",),
                         ("customers", "gift recipients"), (RECOVERED,)),
            )),
    Setting("education", "an adult-education college", (), "College", ("course administrator", "exams officer",
                                                                      "head of department"), True, (
        Incident("A list of exam results was saved in a folder every student could open.",
                 ("contact details",), ("dates of birth",), ("students", "former students"), (RECOVERED,)),
        Incident("Scanned enrolment forms with passport copies were shared with a printing supplier.",
                 ("contact details", "identity document numbers"), ("postal addresses", "dates of birth"),
                 ("students", "applicants"), (RECOVERED,)),
        Incident("A memory stick with course records and support needs was lost on a train.",
                 ("contact details", "health information"), ("dates of birth",), ("students", "tutors"),
                 (ENCRYPTED,)),
    )),
    Setting("software", "a firm that runs hosted accounting software", ("Software", "Systems", "Digital"), "",
            ("support lead", "security engineer", "operations manager"), False, (
                Incident("A test database copied from production was reachable without a password.",
                         ("contact details", "login credentials"), ("postal addresses", "bank or card details"),
                         ("customer users", "customer contacts"), (ENCRYPTED,)),
                Incident("Support ticket attachments with bank statements were visible to other customers' users.",
                         ("contact details", "bank or card details"), ("identity document numbers",),
                         ("customer users", "client contacts"), ()),
                Incident("A batch of password reset e-mails went to the wrong addresses.",
                         ("contact details", "login credentials"), (), ("customer users", "trial users"),
                         (RECOVERED,)),
            )),
    Setting("energy", "a regional electricity supplier", ("Energy", "Power", "Utilities"), "",
            ("billing team lead", "field service manager", "customer service lead"), False, (
                Incident("Meter-reading letters were put in the wrong envelopes.",
                         ("contact details", "postal addresses"), (), ("household customers", "business customers"),
                         (RECOVERED,)),
                Incident("A contractor's laptop with account records was stolen.",
                         ("contact details", "postal addresses"), ("bank or card details",),
                         ("household customers", "business customers"), (ENCRYPTED,)),
                Incident("A direct debit file was uploaded to the wrong bank's portal.",
                         ("contact details", "bank or card details"), ("postal addresses",),
                         ("household customers", "business customers"), (RECOVERED,)),
            )),
    Setting("hospitality", "a hotel with conference rooms", (), "Hotel",
            ("front office manager", "events manager", "night manager"), True, (
                Incident("Guest registration cards with passport numbers were left in an unlocked office.",
                         ("contact details", "identity document numbers"), ("postal addresses",),
                         ("guests", "event delegates"), ()),
                Incident("A booking export was sent to the wrong events agency.",
                         ("contact details",), ("postal addresses", "dates of birth"), ("guests", "event delegates"),
                         (RECOVERED,)),
                Incident("Card details taken by phone were kept in a shared spreadsheet.",
                         ("contact details", "bank or card details"), (), ("guests", "event organisers"),
                         (ENCRYPTED,)),
            )),
    Setting("logistics", "a freight forwarder", ("Freight", "Logistics", "Forwarding"), "",
            ("operations manager", "depot manager", "customer desk lead"), False, (
                Incident("A delivery list with customer addresses was shared with the wrong subcontractor.",
                         ("contact details", "postal addresses"), (), ("consignees", "shippers"), (RECOVERED,)),
                Incident("A driver's tablet with the day's delivery details was stolen.",
                         ("contact details", "postal addresses"), (), ("consignees", "drivers"), (ENCRYPTED,)),
                Incident("Customs papers with passport numbers were e-mailed to the wrong broker.",
                         ("contact details", "identity document numbers"), (), ("consignees", "drivers"),
                         (RECOVERED,)),
            )),
)


@dataclass(frozen=True)
class BreachSeverityConfig(ScaleConfig):
    """Scale sizes of the three difficulty levels."""

    levels: tuple[int, int, int] = (4, 5, 6)
    """Severities at each difficulty level (4 to 6 of :data:`SEVERITIES`)."""

    def validate(self) -> None:
        super().validate()
        for level, n in enumerate(self.levels, start=1):
            if n not in SCALES or any(len(edges) != n - 1 for edges in EDGES[level]):
                raise ValueError(f"level {level}: the rubric's bands make {len(EDGES[level][0]) + 1} severities, "
                                 f"not {n}")


# --- answer -------------------------------------------------------------------------------------


def people_affected(facts: dict[str, Any]) -> int:
    """The people affected: the two lists less the people on both."""
    people = facts["people"]
    return int(people["lists"][0][1]) + int(people["lists"][1][1]) - int(people["overlap"])


def hours_exposed(facts: dict[str, Any]) -> int:
    """Whole hours the data was exposed (the moments of a level 2-3 report are on the same minute of the hour)."""
    exposure = facts["exposure"]
    if "hours" in exposure:
        return int(exposure["hours"])
    span = dt.datetime.fromisoformat(exposure["end"]) - dt.datetime.fromisoformat(exposure["start"])
    return int(span.total_seconds()) // 3600


def points(case: dict[str, Any]) -> int:
    """The rubric's total for the case."""
    rules, facts = case["rules"], case["facts"]
    total = people_affected(facts) // rules["unit"]
    total += sum(KIND_POINTS[kind] for kind in facts["kinds"])
    total += min(rules["day_cap"], hours_exposed(facts) // 24)
    if facts.get("mitigation"):
        total -= MITIGATIONS[facts["mitigation"]][0]
    if rules["under_18"] and facts.get("under_18"):
        total += UNDER_18_POINTS
    return total


def band(total: int, edges: list[int], style: str) -> int:
    """The index of the severity band of ``total``."""
    return sum(1 for e in edges if (total >= e if style == FROM else total > e))


def answer(case: dict[str, Any]) -> str:
    """The gold level key: the band of the rubric's total."""
    return level_key(band(points(case), case["rules"]["edges"], case["rules"]["style"]))


# --- case sampling ------------------------------------------------------------------------------


def _try_case(rng: random.Random, level: int, kind: str, boundary: Boundary) -> dict[str, Any] | None:
    """One attempt at the case of the group's lower_1 member.

    Everything but the people affected is drawn without regard to the plan (and kept to at most
    :data:`OTHER_POINTS_MAX` points, which every band's first edge exceeds), then the people affected make up the
    planned total: the group's boundary shows in no fact but the one count that decides it.
    """
    setting = pick(rng, SETTINGS)
    incident = pick(rng, setting.incidents)
    book = NameBook(rng)
    organisation = book.business(setting.trades) if setting.trades else f"{pick(rng, PLACE_WORDS)} {setting.suffix}"
    style = pick(rng, (FROM, UP_TO))
    edges = list(pick(rng, EDGES[level]))
    rules = {"unit": pick(rng, UNITS), "day_cap": DAY_CAP, "mitigations": level >= 2, "under_18": level == 3,
             "edges": edges, "style": style, "names": [SEVERITIES[i][0] for i in SCALES[boundary.levels]]}
    extra = rng.sample(incident.optional, rng.randint(0, len(incident.optional)))
    kinds = sorted([*incident.kinds, *extra], key=list(KIND_POINTS).index)
    hours = rng.randrange(24, 5 * 24)
    facts: dict[str, Any] = {"kinds": kinds, "mitigation": None, "under_18": False}
    if level >= 2 and incident.mitigations and rng.random() < 0.5:
        facts["mitigation"] = pick(rng, incident.mitigations)
    if level == 3 and setting.under_18:
        facts["under_18"] = rng.random() < 0.5
    other = sum(KIND_POINTS[k] for k in kinds) + min(DAY_CAP, hours // 24) + (
        UNDER_18_POINTS if facts["under_18"] else 0) - (MITIGATIONS[facts["mitigation"]][0] if facts["mitigation"]
                                                         else 0)
    if not 0 <= other <= OTHER_POINTS_MAX:
        return None
    first_upper = edges[boundary.edge - 1] + (0 if style == FROM else 1)
    people = (first_upper - other) * rules["unit"] - 1  # lower_1: one person short of the last full unit
    overlap = rng.randrange(3, 60) if level >= 2 else 0
    first = rng.randrange(people // 5, people * 4 // 5 + 1) + overlap
    second = people + overlap - first
    if min(first, second) - overlap < 3:
        return None
    facts["people"] = {"lists": [[incident.lists[0], first], [incident.lists[1], second]], "overlap": overlap}
    if level == 1:
        facts["exposure"] = {"hours": hours}
    else:
        start = dt.datetime(2025, 1, 6) + dt.timedelta(days=rng.randrange(320), minutes=rng.randrange(360, 1260))
        facts["exposure"] = {"start": start.isoformat(), "end": (start + dt.timedelta(hours=hours)).isoformat()}
    facts["reporter"] = f"{book.person()} ({pick(rng, setting.reporters)})"
    facts["reference"] = f"DP-{rng.randrange(100, 1000)}"
    case = {"domain": setting.domain, "organisation": organisation, "about": setting.about, "incident": incident.text,
            "rules": rules, "facts": facts}
    if points(case) != first_upper - 1:
        raise RuntimeError(f"{NAME}: the sampled case has {points(case)} points, planned {first_upper - 1}")
    return case


DECISIVE_PATHS = {"first_list": "facts/people/lists/0/1", "second_list": "facts/people/lists/1/1",
                  "overlap": "facts/people/overlap"}


def _shifted(case: dict[str, Any], kind: str, more: int) -> dict[str, Any]:
    """The case with the decisive count moved so that ``more`` more people are affected."""
    people = {"lists": [list(pair) for pair in case["facts"]["people"]["lists"]],
              "overlap": case["facts"]["people"]["overlap"]}
    if kind == "overlap":
        people["overlap"] -= more  # fewer people on both lists: more people affected
    else:
        people["lists"][0 if kind == "first_list" else 1][1] += more
    return {**case, "facts": {**case["facts"], "people": people}}


# --- rendering ----------------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{grouped(n)} {word}" + ("" if n == 1 else "s")


def _moment(iso: str) -> str:
    moment = dt.datetime.fromisoformat(iso)
    return (f"{WEEKDAYS[moment.weekday()]} {moment.day} {MONTHS[moment.month - 1]} {moment.year}, "
            f"{clock(moment.hour * 60 + moment.minute)}")


def severity_lines(rules: dict[str, Any]) -> list[str]:
    """One line per severity, lowest first: ranges of whole points around the round edges."""
    edges, names = rules["edges"], rules["names"]
    lines = []
    for i, name in enumerate(names):
        if rules["style"] == FROM:
            lo = 0 if i == 0 else edges[i - 1]
            text = f"{lo} points or more" if i == len(names) - 1 else f"{lo} to {edges[i] - 1} points"
        elif i == 0:
            text = f"up to {edges[0]} points"
        elif i == len(names) - 1:
            text = f"more than {edges[-1]} points"
        else:
            text = f"{edges[i - 1] + 1} to {edges[i]} points"
        lines.append(f"  - {name}: {text}")
    return lines


def render(case: dict[str, Any]) -> str:
    rules, facts = case["rules"], case["facts"]
    lines = [f"Incident report {facts['reference']} to the data-protection office of {case['organisation']}, "
             f"{case['about']}.", "", "How the office rates an incident:",
             f"- People affected: 1 point for every full {rules['unit']} people.",
             "- Data exposed: points for each kind of data, each kind counted once:"]
    lines += [f"  - {kind}: {_plural(value, 'point')}" for kind, value in KINDS]
    lines.append(f"- Time exposed: 1 point for every full 24 hours, at most {rules['day_cap']} points.")
    if rules["mitigations"]:
        lines += [f"- Take off {value} points if {text}." for value, text in MITIGATIONS.values()]
    if rules["under_18"]:
        lines.append(f"- Add {UNDER_18_POINTS} points if anyone affected is under 18.")
    lines.append("- Severity by total points:")
    lines += severity_lines(rules)
    lines += ["", "What happened:", case["incident"]]
    people = facts["people"]
    (a, n), (b, m) = people["lists"]
    overlap = people["overlap"]
    on_both = ("no one is on both lists" if overlap == 0 else "1 person is on both lists" if overlap == 1
               else f"{grouped(overlap)} people are on both lists")
    lines.append(f"People affected: the data covered {grouped(n)} {a} and {grouped(m)} {b}; {on_both}.")
    if rules["under_18"]:
        lines.append(f"Anyone under 18 among them: {'yes' if facts['under_18'] else 'no'}")
    lines.append(f"Data exposed: {join_words(facts['kinds'])}")
    exposure = facts["exposure"]
    if "hours" in exposure:
        lines.append(f"Time exposed: {grouped(exposure['hours'])} hours")
    else:
        lines.append(f"Exposed from {_moment(exposure['start'])} until {_moment(exposure['end'])}")
    if rules["mitigations"]:
        mitigation = facts["mitigation"]
        lines.append(f"Mitigation: {MITIGATIONS[mitigation][1] if mitigation else 'none'}")
    lines.append(f"Reported by: {facts['reporter']}")
    return "\n".join(lines)


# --- contrast group -----------------------------------------------------------------------------


def plan(config: BreachSeverityConfig) -> list[GroupPlan]:
    """Boundaries spread so every severity is gold about equally often; the decisive count taken in turn."""
    return scale_plans(config.levels, config.items_per_level, DECISIVE)


def build_group(plan: GroupPlan, rng: random.Random, config: BreachSeverityConfig) -> Group:
    boundary = Boundary.of(plan)
    for _ in range(2000):
        case = _try_case(rng, plan.level, plan.variation, boundary)
        if case is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no case for level {plan.level} group {plan.index}")
    options = level_options([SEVERITIES[i] for i in SCALES[boundary.levels]])
    members = []
    for side, steps in boundary.members():
        member_case = _shifted(case, plan.variation, offset(side, steps) + 1)
        members.append(Member(case=member_case, state=render(member_case), answer=answer(member_case),
                              options=options, variation=variation(side, steps)))
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                 decisive=frozenset({DECISIVE_PATHS[plan.variation]}))


# --- partial-information heuristics -------------------------------------------------------------

_UNIT = re.compile(r"1 point for every full (\d+) people\.")
_DAYS = re.compile(r"1 point for every full 24 hours, at most (\d+) points")
_BAND = re.compile(r"^  - (\w+): (?:(\d+) to (\d+) points|(\d+) points or more|up to (\d+) points|"
                   r"more than (\d+) points)$")
_LISTS = re.compile(r"^People affected: the data covered ([\d,]+) .+ and ([\d,]+) .+; (no one|[\d,]+) ")
_HOURS = re.compile(r"^Time exposed: ([\d,]+) hours$")
_SPAN = re.compile(r"^Exposed from \w+ (\d+) (\w+) (\d{4}), (\d\d):(\d\d) "
                   r"until \w+ (\d+) (\w+) (\d{4}), (\d\d):(\d\d)$")


def read_total(item: Item, *, started_units: bool = False, time: bool = True) -> int | None:
    """The rubric's total read back from the rendered state, optionally with one of two misreadings: units of people
    and days counted when started rather than full, or the time exposed left out."""
    text = item.state if isinstance(item.state, str) else ""
    lines = text.splitlines()
    unit, days = _UNIT.search(text), _DAYS.search(text)
    if unit is None or days is None:
        return None
    people = hours = None
    for line in lines:
        if m := _LISTS.match(line):
            a, b = (int(m.group(i).replace(",", "")) for i in (1, 2))
            people = a + b - (0 if m.group(3) == "no one" else int(m.group(3).replace(",", "")))
        elif m := _HOURS.match(line):
            hours = int(m.group(1).replace(",", ""))
        elif m := _SPAN.match(line):
            start = dt.datetime(int(m.group(3)), MONTHS.index(m.group(2)) + 1, int(m.group(1)), int(m.group(4)),
                                int(m.group(5)))
            end = dt.datetime(int(m.group(8)), MONTHS.index(m.group(7)) + 1, int(m.group(6)), int(m.group(9)),
                              int(m.group(10)))
            hours = int((end - start).total_seconds()) // 3600
    if people is None or hours is None:
        return None

    def units(amount: int, size: int) -> int:
        return -(-amount // size) if started_units else amount // size

    total = units(people, int(unit.group(1)))
    data = next((line for line in lines if line.startswith("Data exposed: ")), "")
    total += sum(value for kind, value in KINDS if kind in data)
    if time:
        total += min(int(days.group(1)), units(hours, 24))
    mitigation = next((line for line in lines if line.startswith("Mitigation: ")), "Mitigation: none")
    total -= sum(value for value, description in MITIGATIONS.values() if description in mitigation)
    if "Anyone under 18 among them: yes" in text:
        total += UNDER_18_POINTS
    return total


def _band_ranges(item: Item) -> list[tuple[int, float]]:
    """The severity bands as inclusive ranges of points, lowest first."""
    text = item.state if isinstance(item.state, str) else ""
    ranges: list[tuple[int, float]] = []
    for m in filter(None, map(_BAND.match, text.splitlines())):
        if m.group(2):
            ranges.append((int(m.group(2)), int(m.group(3))))
        elif m.group(4):
            ranges.append((int(m.group(4)), float("inf")))
        elif m.group(5):
            ranges.append((0, int(m.group(5))))
        else:
            ranges.append((int(m.group(6)) + 1, float("inf")))
    return ranges


def _level_of(item: Item, total: int | None) -> dict[str, float]:
    ranges = _band_ranges(item)
    if total is None or not ranges:
        return {key: 1 / len(item.options) for key in item.option_keys}
    index = next((i for i, (lo, hi) in enumerate(ranges) if lo <= total <= hi), 0)
    return {key: float(key == level_key(index)) for key in item.option_keys}


def heuristic_started_units(item: Item) -> dict[str, float]:
    """Count a point for every started unit of people and every started day, not every full one."""
    return _level_of(item, read_total(item, started_units=True))


def heuristic_ignore_time(item: Item) -> dict[str, float]:
    """Add up people and data but leave out the time the data was exposed."""
    return _level_of(item, read_total(item, time=False))


register(FamilySpec(
    name=NAME,
    layer="B",
    version=VERSION,
    question=QUESTION,
    config_type=BreachSeverityConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={"started_units": heuristic_started_units, "ignore_time": heuristic_ignore_time},
))
