"""listing_match (layer G): how well does the listing match the client's brief?

Story. A search team matches listings to a client's brief and grades each match: a freight forwarder's property
team looking for a warehouse unit, an electricity supplier's fleet team choosing a service van, a hotel's events
team finding a venue for a client's conference. The brief lists requirements, each a limit on one figure of the
listing ("floor area: at least 4,000 square metres", "monthly rent: less than 25,000 EUR", "available from: 1 March
2026 or earlier"); every requirement the listing meets earns its points (1 at level 1; from level 2 a must-have
earns more), and the grade is the band the points fall in. Limits are round numbers; each requirement says either
"at least / at most / ... or earlier" (the limit itself meets it) or "more than / less than / before" (it does not),
drawn per requirement.

Levels (difficulty):

1. 5 grades; 6 requirements of 1 point each;
2. 6 grades; 8 requirements, 3 of them must-haves worth 2 points;
3. 7 grades; 10 requirements worth 1, 2 or 3 points, and two figures the listing gives as parts to add or
   subtract (the monthly cost as rent plus service charge, the payload as gross weight less kerb weight, the price
   per guest as menu plus drinks package; the floor area as a ground floor, with a mezzanine the brief does not
   count).

Groups. One figure of the listing, the decisive one, moves one unit at a time (a square metre, a kilogram, a
krone, a day, a tenth of a metre) across its requirement's limit: its last value that misses the requirement and
the first that meets it, and one unit further on one side (:mod:`decisionpivot.scale.boundary`); the points of
the other requirements met put the total on the band edge the decisive requirement's points cross. Every other
figure meets or misses its limit by a clear margin (a tenth of the limit's size or more), drawn without regard to
the boundary, and limits are drawn from wide ranges, so no figure's size says whether it meets its requirement: the
number of requirements met, which places a case on the scale, shows in no word or number of the state.

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
from decisionpivot.scale.boundary import LOWER, Boundary, ScaleConfig, expected_answers, scale_plans, variation
from decisionpivot.scale.names import PLACE_WORDS, NameBook
from decisionpivot.scale.registry import register
from decisionpivot.score_questions import level_key, level_options

NAME = "listing_match"
VERSION = "1.0"
QUESTION = "Which grade does the team's scoring give this listing against the client's brief?"

GRADES = {
    "Unsuitable": "not shown to the client",
    "Poor": "kept on file only",
    "Weak": "shown only if nothing better turns up",
    "Fair": "shown to the client with its gaps listed",
    "Good": "shown to the client",
    "Strong": "shown first, with a viewing offered",
    "Excellent": "booked for a viewing at once",
}
SCALES = {5: ("Poor", "Weak", "Fair", "Good", "Excellent"),
          6: ("Unsuitable", "Poor", "Weak", "Fair", "Good", "Excellent"),
          7: ("Unsuitable", "Poor", "Weak", "Fair", "Good", "Strong", "Excellent")}
"""The grades of a scale of each size, lowest first."""

REQUIREMENTS = (6, 8, 10)
"""Requirements in a brief at each difficulty level."""
WEIGHTS = ((1,) * 6, (2, 2, 2, 1, 1, 1, 1, 1), (3, 3, 2, 2, 2, 1, 1, 1, 1, 1))
"""Points of the requirements at each difficulty level (assigned to the requirements at random)."""
EDGES = {
    1: ((2, 3, 5, 6), (1, 3, 4, 6), (2, 4, 5, 6), (1, 2, 4, 6)),
    2: ((3, 5, 7, 9, 11), (2, 4, 6, 8, 10), (3, 5, 6, 8, 10), (2, 4, 7, 9, 11)),
    3: ((3, 5, 7, 9, 12, 15), (2, 4, 6, 9, 12, 16), (4, 6, 8, 10, 13, 16), (3, 6, 8, 11, 13, 16)),
}
"""The first points of each grade above the lowest, at each difficulty level: a few fixed sets, whatever the
group's boundary."""

AT_LEAST, AT_MOST = "at_least", "at_most"
"""A requirement's direction: the figure must reach the limit, or stay within it."""
INCLUSIVE, STRICT = "inclusive", "strict"
"""Whether the limit itself meets the requirement ("at least 4,000") or not ("more than 4,000")."""
DECISIVE = ((AT_LEAST, AT_MOST),) * 3
"""The decisive requirement's direction, taken in turn."""


@dataclass(frozen=True)
class Figure:
    """One figure a listing gives and a brief can set a limit on."""

    key: str
    """Key in the case."""
    label: str
    """How the brief and the listing name it ('Floor area')."""
    direction: str
    """:data:`AT_LEAST` or :data:`AT_MOST`."""
    limits: tuple[int, int, int]
    """Round limits: first, last and step (in the figure's units: whole units, tenths, or days)."""
    kind: str
    """'int', 'tenths', 'money' (whole currency units) or 'date' (days after the case's first day)."""
    unit: str
    """Written after the value (' square metres'); money takes the case's currency."""
    decisive: bool = True
    """Whether a group may straddle its limit (a figure that comes in round sizes only, such as a lease in whole
    years, may not)."""


@dataclass(frozen=True)
class Setting:
    """A domain's search: who searches, for whom, what a listing is, and its figures."""

    domain: str
    """Item domain."""
    team: str
    """Who grades the match ('the property team of')."""
    about: str
    """What the organisation is, with its article."""
    trades: tuple[str, ...]
    """Name endings of the organisation; empty: a place word and ``suffix``."""
    suffix: str
    """For a place-named organisation."""
    thing: str
    """What a listing offers ('warehouse unit')."""
    client: str
    """Whose brief it is ('the client', 'the field service depot')."""
    currency: str
    """Currency of money figures."""
    figures: tuple[Figure, ...]
    """Its figures, ten of them."""
    parts: dict[str, tuple[str, str, str, tuple[int, int]]]
    """Level 3: a figure given as two parts, by key: (first part's label, second part's label, 'add'|'subtract'|
    'first only', the second part's range in the figure's units)."""


SETTINGS = (
    Setting("logistics", "the property team", "a freight forwarder", ("Freight", "Logistics", "Forwarding"), "",
            "warehouse unit", "the company's new regional hub", "EUR", (
                Figure("area", "Floor area", AT_LEAST, (1500, 8000, 500), "int", " square metres"),
                Figure("doors", "Loading dock doors", AT_LEAST, (4, 12, 1), "int", ""),
                Figure("height", "Clear height", AT_LEAST, (80, 120, 5), "tenths", " m"),
                Figure("cost", "Monthly cost", AT_MOST, (12000, 60000, 1000), "money", ""),
                Figure("motorway", "Distance to the motorway", AT_MOST, (20, 150, 10), "tenths", " km"),
                Figure("yard", "Yard depth", AT_LEAST, (25, 45, 5), "int", " m"),
                Figure("power", "Power supply", AT_LEAST, (100, 400, 50), "int", " kVA"),
                Figure("parking", "Car parking spaces", AT_LEAST, (10, 60, 5), "int", ""),
                Figure("lease", "Shortest lease", AT_MOST, (3, 10, 1), "int", " years", decisive=False),
                Figure("available", "Available from", AT_MOST, (30, 150, 30), "date", ""),
            ), {"cost": ("Rent per month", "Service charge per month", "add", (800, 4000)),
                "area": ("Ground floor", "Mezzanine", "first only", (200, 1200))}),
    Setting("energy", "the fleet team", "a regional electricity supplier", ("Energy", "Power", "Utilities"), "",
            "service van", "the field service depot", "NOK", (
                Figure("payload", "Payload", AT_LEAST, (800, 1400, 50), "int", " kg"),
                Figure("length", "Load length", AT_LEAST, (2400, 3600, 100), "int", " mm"),
                Figure("load_height", "Load height", AT_LEAST, (1300, 1900, 100), "int", " mm"),
                Figure("width", "Load width between the wheel arches", AT_LEAST, (1200, 1400, 50), "int", " mm"),
                Figure("range", "Range on a full tank", AT_LEAST, (500, 900, 50), "int", " km"),
                Figure("price", "Price", AT_MOST, (350000, 700000, 10000), "money", ""),
                Figure("towing", "Towing capacity", AT_LEAST, (1500, 3000, 250), "int", " kg"),
                Figure("delivery", "Delivery time", AT_MOST, (4, 16, 2), "int", " weeks"),
                Figure("emissions", "CO2 emissions", AT_MOST, (150, 250, 10), "int", " g/km"),
                Figure("interval", "Service interval", AT_LEAST, (20000, 40000, 5000), "int", " km", decisive=False),
            ), {"payload": ("Gross vehicle weight", "Kerb weight", "subtract", (1700, 2300)),
                "price": ("List price", "Dealer discount", "subtract", (15000, 60000))}),
    Setting("hospitality", "the events team", "a hotel group", (), "Hotels",
            "conference venue", "the client's annual conference", "DKK", (
                Figure("seats", "Seats in the main hall", AT_LEAST, (80, 400, 20), "int", ""),
                Figure("per_guest", "Price per guest", AT_MOST, (250, 900, 25), "money", ""),
                Figure("walk", "Walk from the station", AT_MOST, (5, 20, 5), "int", " minutes"),
                Figure("parking", "Parking spaces", AT_LEAST, (20, 100, 10), "int", ""),
                Figure("breakout", "Breakout rooms", AT_LEAST, (2, 8, 1), "int", ""),
                Figure("stage", "Stage width", AT_LEAST, (60, 120, 10), "tenths", " m"),
                Figure("hire", "Hire of the hall", AT_MOST, (8000, 40000, 1000), "money", ""),
                Figure("rooms", "Hotel rooms on site", AT_LEAST, (20, 150, 10), "int", ""),
                Figure("ceiling", "Ceiling height", AT_LEAST, (30, 60, 5), "tenths", " m"),
                Figure("airport", "Distance from the airport", AT_MOST, (10, 40, 5), "int", " km"),
            ), {"per_guest": ("Menu per guest", "Drinks package per guest", "add", (60, 180)),
                "hire": ("Hall rental", "Technician fee", "add", (1500, 4000))}),
)


@dataclass(frozen=True)
class ListingMatchConfig(ScaleConfig):
    """Scale sizes of the three difficulty levels."""

    levels: tuple[int, int, int] = (5, 6, 7)
    """Grades at each difficulty level (:data:`SCALES`)."""

    def validate(self) -> None:
        super().validate()
        for level, n in enumerate(self.levels, start=1):
            if n not in SCALES or any(len(edges) != n - 1 for edges in EDGES[level]):
                raise ValueError(f"level {level}: the scoring has {len(EDGES[level][0]) + 1} grades, not {n}")


# --- answer -------------------------------------------------------------------------------------


def value(case: dict[str, Any], key: str) -> int:
    """A figure of the listing as the brief counts it (a level 3 figure given in parts: their sum, difference or
    first part)."""
    shown = case["listing"][key]
    if isinstance(shown, int):
        return shown
    how = case["parts"][key]
    return shown[0] + shown[1] if how == "add" else shown[0] - shown[1] if how == "subtract" else shown[0]


def meets(requirement: dict[str, Any], figure: int) -> bool:
    """Whether a figure meets a requirement."""
    limit, style = requirement["limit"], requirement["style"]
    if requirement["direction"] == AT_LEAST:
        return figure >= limit if style == INCLUSIVE else figure > limit
    return figure <= limit if style == INCLUSIVE else figure < limit


def points(case: dict[str, Any]) -> int:
    """The points of every requirement the listing meets."""
    return sum(r["points"] for r in case["brief"] if meets(r, value(case, r["key"])))


def grade(case: dict[str, Any]) -> int:
    """The index of the grade of the listing's points."""
    return sum(1 for e in case["edges"] if points(case) >= e)


def answer(case: dict[str, Any]) -> str:
    """The gold level key."""
    return level_key(grade(case))


# --- case sampling ------------------------------------------------------------------------------


def _limit(rng: random.Random, figure: Figure) -> int:
    first, last, step = figure.limits
    return rng.randrange(first, last + 1, step)


def _clear_value(rng: random.Random, figure: Figure, limit: int, met: bool) -> int:
    """A value that meets (or misses) its limit by a tenth to a third of the limit's size (at least 2 units)."""
    size = max(2, limit // 10, figure.limits[2])
    margin = rng.randint(size, max(size, limit // 3))
    better = margin if figure.direction == AT_LEAST else -margin
    figure_value = limit + (better if met else -better)
    return figure_value if figure_value > 0 else 0


def _split(rng: random.Random, figure_value: int, how: str, second_range: tuple[int, int]) -> tuple[int, int] | None:
    """Two parts that give ``figure_value`` the way ``how`` says, the second in its usual range (a van's kerb
    weight, a dealer's discount, a service charge)."""
    second = rng.randint(*second_range)
    if how == "add":
        return (figure_value - second, second) if figure_value - second > second else None
    if how == "subtract":
        return (figure_value + second, second)
    return (figure_value, second)


def _listing_name(rng: random.Random, setting: Setting, book: NameBook) -> str:
    """'Willow Park' (a warehouse unit), 'Archer Vans' (the dealer offering a van), 'Heron House' (a venue)."""
    if setting.domain == "logistics":
        return f"{pick(rng, PLACE_WORDS)} {pick(rng, ('Park', 'Point', 'Yard', 'Quay'))}"
    if setting.domain == "energy":
        return book.business(("Motors", "Vans", "Commercials"))
    return f"{pick(rng, PLACE_WORDS)} House"


def listing_title(case: dict[str, Any]) -> str:
    """How the state names the listing."""
    if case["domain"] == "energy":
        return f"the {case['thing']} offered by {case['listing_name']}"
    return f"the {case['thing']} {case['listing_name']}"


def _try_case(rng: random.Random, level: int, direction: str, boundary: Boundary) -> dict[str, Any] | None:
    """One attempt at the case of the group's lower_1 member (the decisive figure one unit short of its limit)."""
    setting = pick(rng, SETTINGS)
    book = NameBook(rng)
    organisation = book.business(setting.trades) if setting.trades else f"{pick(rng, PLACE_WORDS)} {setting.suffix}"
    count = REQUIREMENTS[level - 1]
    figures = rng.sample(setting.figures, count)
    decisive_pool = [f for f in figures if f.decisive and f.direction == direction]
    if not decisive_pool:
        return None
    decisive = pick(rng, decisive_pool)
    weights = list(WEIGHTS[level - 1])
    rng.shuffle(weights)
    edges = list(pick(rng, EDGES[level]))
    lower = boundary.edge - 1
    # The other requirements' points must put the total in the lower grade and, with the decisive one's, in the
    # next: the points met elsewhere, drawn as a subset of the other requirements.
    weight = weights[figures.index(decisive)]
    top = edges[lower + 1] if lower + 1 < len(edges) else 10 ** 6
    others = [i for i in range(count) if figures[i] is not decisive]
    wanted = [p for p in range(max(edges[lower - 1] if lower else 0, edges[lower] - weight), edges[lower])
              if p + weight < top]
    if not wanted:
        return None
    goal = pick(rng, wanted)
    met: set[int] = set()
    for _ in range(200):
        order = rng.sample(others, len(others))
        total, chosen = 0, set()
        for i in order:
            if total + weights[i] <= goal and rng.random() < 0.7:
                chosen.add(i)
                total += weights[i]
        if total == goal:
            met = chosen
            break
    else:
        return None
    day_zero = dt.date(2025, 10, 1) + dt.timedelta(days=rng.randrange(90))
    brief, listing, parts = [], {}, {}
    for i, figure in enumerate(figures):
        limit = _limit(rng, figure)
        style = pick(rng, (INCLUSIVE, STRICT))
        brief.append({"key": figure.key, "label": figure.label, "direction": figure.direction, "limit": limit,
                      "style": style, "points": weights[i], "kind": figure.kind, "unit": figure.unit})
        if figure is decisive:
            first_met = limit if style == INCLUSIVE else limit + (1 if direction == AT_LEAST else -1)
            figure_value = first_met - (1 if direction == AT_LEAST else -1)  # lower_1: one unit short
        elif figure.decisive:
            figure_value = _clear_value(rng, figure, limit, i in met)
        else:  # a figure that comes in round sizes: whole steps from the limit
            step = figure.limits[2] if figure.direction == AT_LEAST else -figure.limits[2]
            figure_value = limit + (1 if i in met else -1) * step * rng.randint(1, 3)
        listing[figure.key] = figure_value
    case: dict[str, Any] = {"domain": setting.domain, "team": setting.team, "organisation": organisation,
                            "about": setting.about, "thing": setting.thing, "client": setting.client,
                            "currency": setting.currency, "day_zero": day_zero.isoformat(),
                            "listing_name": _listing_name(rng, setting, book),
                            "decisive": decisive.key, "edges": edges, "names": list(SCALES[boundary.levels]),
                            "brief": brief, "listing": listing, "parts": {}}
    if level == 3:
        for key, (_, _, how, second_range) in setting.parts.items():
            if key in listing:
                split = _split(rng, listing[key], how, second_range)
                if split is None:
                    return None
                listing[key] = list(split)
                parts[key] = how
        case["parts"] = parts
    for worse in (-1, 0, 1, 2):  # every member's figures must be possible
        member = _shifted(case, worse)
        if any(v <= 0 for v in (value(member, r["key"]) for r in brief)):
            return None
    if grade(case) != lower or grade(_shifted(case, 1)) != lower + 1:
        raise RuntimeError(f"{NAME}: the sampled case grades {grade(case)}, planned {lower}")
    return case


def _path(case: dict[str, Any]) -> str:
    """The decisive fact: the decisive figure, or its first part when the listing gives it in parts."""
    key = case["decisive"]
    return f"listing/{key}/0" if isinstance(case["listing"][key], list) else f"listing/{key}"


def _shifted(case: dict[str, Any], towards: int) -> dict[str, Any]:
    """The case with the decisive figure ``towards`` units nearer to meeting its requirement (and past it)."""
    key = case["decisive"]
    direction = next(r["direction"] for r in case["brief"] if r["key"] == key)
    step = towards if direction == AT_LEAST else -towards
    shown = case["listing"][key]
    listing = dict(case["listing"])
    if isinstance(shown, list):
        listing[key] = [shown[0] + step, shown[1]]  # the first part: added, or the gross weight, or the ground floor
    else:
        listing[key] = shown + step
    return {**case, "listing": listing}


# --- rendering ----------------------------------------------------------------------------------


def _show(case: dict[str, Any], kind: str, unit: str, amount: int) -> str:
    if kind == "tenths":
        return f"{amount // 10}.{amount % 10}{unit}"
    if kind == "money":
        return f"{grouped(amount)} {case['currency']}"
    if kind == "date":
        day = dt.date.fromisoformat(case["day_zero"]) + dt.timedelta(days=amount)
        return f"{day.day} {MONTHS[day.month - 1]} {day.year}"
    if amount == 1 and unit.endswith("s"):
        unit = unit[:-1]  # 1 year, 1 week, 1 minute
    return f"{grouped(amount)}{unit}"


def requirement_line(case: dict[str, Any], requirement: dict[str, Any], weighted: bool) -> str:
    limit = _show(case, requirement["kind"], requirement["unit"], requirement["limit"])
    if requirement["kind"] == "date":
        text = f"{limit} or earlier" if requirement["style"] == INCLUSIVE else f"before {limit}"
    elif requirement["direction"] == AT_LEAST:
        text = f"at least {limit}" if requirement["style"] == INCLUSIVE else f"more than {limit}"
    else:
        text = f"at most {limit}" if requirement["style"] == INCLUSIVE else f"less than {limit}"
    worth = requirement["points"]
    suffix = f" ({worth} point{'s' if worth > 1 else ''})" if weighted else ""
    return f"- {requirement['label']}: {text}{suffix}"


def listing_line(case: dict[str, Any], requirement: dict[str, Any], setting_parts: dict[str, Any]) -> list[str]:
    key = requirement["key"]
    shown = case["listing"][key]
    if not isinstance(shown, list):
        return [f"- {requirement['label']}: {_show(case, requirement['kind'], requirement['unit'], shown)}"]
    first, second, _, _ = setting_parts[key]
    return [f"- {first}: {_show(case, requirement['kind'], requirement['unit'], shown[0])}",
            f"- {second}: {_show(case, requirement['kind'], requirement['unit'], shown[1])}"]


def grade_lines(case: dict[str, Any]) -> list[str]:
    edges, names = case["edges"], case["names"]
    lines = []
    for i, name in enumerate(names):
        lo = 0 if i == 0 else edges[i - 1]
        hi = edges[i] - 1 if i < len(names) - 1 else None
        if hi is None:
            text = f"{lo} points or more"
        elif hi == lo == 0:
            text = "no points"
        elif hi == lo:
            text = f"{lo} point" + ("s" if lo != 1 else "")
        elif lo == 0:
            text = f"up to {hi} point" + ("s" if hi != 1 else "")
        else:
            text = f"{lo} to {hi} points"
        lines.append(f"  - {name}: {text}")
    return lines


def render(case: dict[str, Any]) -> str:
    setting = next(s for s in SETTINGS if s.domain == case["domain"])
    weighted = len({r["points"] for r in case["brief"]}) > 1
    lines = [f"Match check by {case['team']} of {case['organisation']}, {case['about']}: {listing_title(case)} "
             f"against the brief for {case['client']}.", "",
             "How the team scores a match:",
             "- Each requirement of the brief the listing meets earns its points"
             + ("; the others earn none." if weighted else " (1 point each); the others earn none.")]
    if case["parts"]:
        notes = {"add": "the two parts the listing gives are added", "subtract": "the second part the listing gives "
                 "is taken off the first", "first only": "only the first part the listing gives counts"}
        for key, how in case["parts"].items():
            label = next(r["label"] for r in case["brief"] if r["key"] == key)
            first, second, _, _ = setting.parts[key]
            lines.append(f"- {label}: {notes[how]} ({first.lower()}, {second.lower()}).")
    lines.append("- Grades by points:")
    lines += grade_lines(case)
    lines += ["", "The brief:"]
    lines += [requirement_line(case, r, weighted) for r in case["brief"]]
    lines += ["", f"The listing, {listing_title(case)}:"]
    for r in case["brief"]:
        lines += listing_line(case, r, setting.parts)
    return "\n".join(lines)


# --- contrast group -----------------------------------------------------------------------------


def plan(config: ListingMatchConfig) -> list[GroupPlan]:
    """Boundaries spread so every grade is gold about equally often; the decisive requirement's direction in turn."""
    return scale_plans(config.levels, config.items_per_level, DECISIVE)


def build_group(plan: GroupPlan, rng: random.Random, config: ListingMatchConfig) -> Group:
    boundary = Boundary.of(plan)
    for _ in range(3000):
        case = _try_case(rng, plan.level, plan.variation, boundary)
        if case is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no case for level {plan.level} group {plan.index}")
    options = level_options([(name, GRADES[name]) for name in SCALES[boundary.levels]])
    members = []
    for side, steps in boundary.members():
        towards = 1 - steps if side == LOWER else steps  # lower_1 is the sampled case
        member_case = _shifted(case, towards)
        members.append(Member(case=member_case, state=render(member_case), answer=answer(member_case),
                              options=options, variation=variation(side, steps)))
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=case["domain"], members=tuple(members), decisive=frozenset({_path(case)}))


# --- partial-information heuristics -------------------------------------------------------------


def _scored(item: Item, flip: bool = False, slack: bool = False) -> dict[str, float]:
    """The grade with one misreading of every requirement: strictness the other way round (``flip``), or a figure one
    unit short of its limit taken as meeting it (``slack``)."""
    text = item.state if isinstance(item.state, str) else ""
    lines = text.splitlines()
    try:
        brief_at, listing_at = lines.index("The brief:"), next(i for i, ln in enumerate(lines) if ln.startswith(
            "The listing, "))
    except (ValueError, StopIteration):
        return {key: 1 / len(item.options) for key in item.option_keys}
    numbers = {}
    for line in lines[listing_at + 1:]:
        label, _, shown = line.removeprefix("- ").partition(": ")
        numbers[label] = _number(shown)
    combined = {}
    for line in lines:
        m = re.match(r"^- (.+): the two parts the listing gives are added \((.+), (.+)\)\.$", line)
        if m:
            combined[m[1]] = numbers.get(m[2].capitalize(), 0) + numbers.get(m[3].capitalize(), 0)
        m = re.match(r"^- (.+): the second part the listing gives is taken off the first \((.+), (.+)\)\.$", line)
        if m:
            combined[m[1]] = numbers.get(m[2].capitalize(), 0) - numbers.get(m[3].capitalize(), 0)
        m = re.match(r"^- (.+): only the first part the listing gives counts \((.+), (.+)\)\.$", line)
        if m:
            combined[m[1]] = numbers.get(m[2].capitalize(), 0)
    total = 0
    for line in lines[brief_at + 1:listing_at - 1]:
        m = re.match(r"^- (.+): (at least|more than|at most|less than|before)? ?(.+?)( or earlier)?"
                     r"(?: \((\d+) points?\))?$", line)
        if not m:
            continue
        label, how, limit_text = m[1], m[2] or "or earlier", m[3]
        limit = _number(limit_text)
        figure = combined.get(label, numbers.get(label))
        if figure is None or limit is None:
            continue
        inclusive = how in ("at least", "at most", "or earlier")
        if flip:
            inclusive = not inclusive
        up = how in ("at least", "more than")
        unit = 1 if slack else 0
        ok = (figure + unit >= limit if inclusive else figure + unit > limit) if up else (
            figure - unit <= limit if inclusive else figure - unit < limit)
        total += int(m[5] or 1) if ok else 0
    edges = [int(m[1]) for m in re.finditer(r"^  - \w+: (\d+)", text, re.M)]
    index = sum(1 for e in edges if total >= e)
    return {key: float(key == level_key(index)) for key in item.option_keys}


def _number(shown: str) -> int | None:
    """A figure as the integer the case stores: whole units, tenths for a decimal, days for a date (from a fixed
    day: only comparisons between dates matter)."""
    date = re.match(r"^(\d{1,2}) ([A-Z][a-z]+) (\d{4})$", shown)
    if date:
        return (dt.date(int(date[3]), MONTHS.index(date[2]) + 1, int(date[1])) - dt.date(2000, 1, 1)).days
    m = re.match(r"^([\d,]+)(?:\.(\d))?", shown)
    if m is None:
        return None
    whole = int(m[1].replace(",", ""))
    return whole * 10 + int(m[2]) if m[2] else whole


def heuristic_strictness_flipped(item: Item) -> dict[str, float]:
    """Read every limit the other way round: "at least" as "more than", "less than" as "at most"."""
    return _scored(item, flip=True)


def heuristic_near_enough(item: Item) -> dict[str, float]:
    """Count a figure one unit short of its limit as meeting it."""
    return _scored(item, slack=True)


register(FamilySpec(
    name=NAME,
    layer="G",
    version=VERSION,
    question=QUESTION,
    config_type=ListingMatchConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={"strictness_flipped": heuristic_strictness_flipped, "near_enough": heuristic_near_enough},
))
