"""booking_check (layer D): can the requested booking be confirmed as it stands?

Story. An organisation's room-booking sheet lists its rooms (seats, equipment with quantities,
opening hours, which department may book them), a staff directory, the booking conventions in
force (exclusive end times, a changeover gap of N minutes between two bookings of the same room,
nobody in two overlapping bookings, whether the attendee count includes the organiser, opening
hours, equipment, who may book), the confirmed bookings, and one booking request (room, date,
start, end, attendee count, organiser, other named attendees, equipment needed).

Groups. Every group is a pair built at a limit: the positive member lies exactly at the limit and
the negative member crosses it by one unit, changing one field of the case (the decisive path):

* ``overlap``: a booking of the same room ends exactly ``N`` minutes before the request starts
  (or starts exactly ``N`` minutes after it ends); the negative is one minute closer, moving either
  the confirmed booking's time (``bookings/i/end``) or the request's (``request/start``).
* ``person``: the organiser or a named attendee has another booking (another room) that ends
  exactly when the request starts (or starts when it ends); the negative overlaps it by one minute.
* ``capacity``: attendees exactly fill the room; the negative has one attendee more
  (``request/count``) or one seat less (``rooms/i/capacity``). Half of the capacity pairs use the
  convention "the count excludes the organiser": there the positive's stated count is one below
  the seats and the negative's stated count equals them, so "stated count equals seats, so yes"
  is wrong on both members (the shortcut the paper measured at 0.665 stays at 0.5).
* ``equipment``: the request needs exactly the quantity the room has (the negative one more, or
  the room one fewer), or an item the room has (the negative an item it lacks, or the room holds
  another item in that slot).
* ``hours``: the request starts exactly at opening time or ends exactly at closing time; the
  negative half an hour earlier or later (one minute until 1.3, when rooms opened at odd minutes).

Both members share every other booking, including non-decisive bookings placed exactly at a limit
(a same-room booking exactly N minutes away on the other side, a person's back-to-back booking,
a same-time booking of the room on another day, a booking of a look-alike of a named person at
the requested time), so "a booking touches the requested times, so no" and "a named person is
busy that day, so no" stay at 0.5 by construction. The negative's changed time is the positive's
plus or minus one minute, so the positive's must be spread evenly over the 5-minute cycle for the
clock minutes to carry no answer: for overlap and person pivots the limit time lies a uniform 0-4
minutes off the grid (each member is round one time in five), and rooms open and close at times
drawn to the minute (an hours positive starts or ends exactly then). The request's other time is
off the grid about one time in three and about a fifth of all other times are off the grid.

Levels: 2 rooms, 6-8 confirmed bookings, one day (level 1); 3-4 rooms, 12-17 bookings, 1-2 days
(level 2); 5-6 rooms, 20-28 bookings, 2-3 days (level 3). 300 pairs: overlap 112, person 77,
capacity 37, equipment 37, hours 37 (the paper's split), spread evenly over the levels.
``variation`` is the limit type, on the negative member.

Version history:
* 1.0 - first release.
* 1.1 - organiser-inclusion convention, round-value die on time pivots, limit-exact distractors.
* 1.2 - clock minutes no longer mark the negative (issue #7). The 1.1 die gave the two members of a
  time pivot disjoint minute residues (the negative one minute past the positive's), and round
  opening and closing times put every hours negative on :59, :29, :14, :01 or :31; a bag-of-bigrams
  probe scored +6 points on fresh draws. Now the limit time is uniform over the 5-minute cycle and
  room hours are drawn to the minute, so both members show each minute equally often.
* 1.3 - text revision (core 1.2, issue 14): the sheet is kept by a facilities-type team instead of a
  domain department (a radiology office keeping room bookings, "maintained by front desk"); no
  article before the business ("a adult education organisation"); a booking line with nobody else
  named says "no other named attendees" instead of a dash. Cases and answers are unchanged.
* 1.4 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before. Rooms open
  and close on the hour or half hour (07:00-08:30, 17:00-20:00; 1.2: "open 08:02-19:03"), so an hours
  negative starts half an hour before opening or ends half an hour after closing, on the same grid (1.2: one
  minute, which with round hours would mark the negative by its odd minute, the leak 1.2 closed).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.formatting import clock, weekday_date
from decisionpivot.generate.common.names import NameForge, has_lookalike, lookalike
from decisionpivot.generate.common.numbers import on_the_half_hour
from decisionpivot.generate.common.wording import join_words, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member, yes_no
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "booking_check"
VERSION = "1.4"
QUESTION = "Can the requested booking be confirmed as it stands?"
OPTIONS = (
    Option("yes", "the request meets every booking convention and can be confirmed as it stands"),
    Option("no", "at least one booking convention stops the request from being confirmed as it stands"),
)
VARIATIONS = ("overlap", "person", "capacity", "equipment", "hours")
PAPER_PAIRS = {"overlap": 112, "person": 77, "capacity": 37, "equipment": 37, "hours": 37}
"""Pairs per limit type in the paper's 300 pairs; other sizes are scaled by largest remainder."""

COUNTABLE = {
    "wireless microphone": "wireless microphones",
    "laptop": "laptops",
    "flip chart": "flip charts",
    "display screen": "display screens",
    "webcam": "webcams",
    "tablet": "tablets",
}
SINGLE = (
    "projector",
    "whiteboard",
    "video-conference bar",
    "speakerphone",
    "document camera",
    "hearing loop",
    "PA system",
    "smart board",
    "lectern",
    "sound bar",
)
ROOM_KINDS = ("Room", "Suite", "Studio", "Hall", "Lounge", "Chamber")
BUFFERS = (5, 8, 10, 12, 15, 20, 25, 30)
OPENING = (420, 510)
"""Earliest and latest opening time (minutes after midnight), drawn to the minute and moved down to the half hour."""
CLOSING = (1020, 1200)
"""Earliest and latest closing time (minutes after midnight), drawn to the minute and moved up to the half hour."""
HOURS_STEP = 30
"""How far an hours negative starts before opening (ends after closing): one step of the half-hour grid the
opening hours are on, so both members of an hours pair show a time on the hour or half hour (a negative 1 or 5
minutes off a round opening time is the only request at :59 or :55 there: bag-of-bigrams probes rose to +5.5
and +4.5 points on the release; with 30 minutes, +1.2)."""

INTRO = (
    "Room bookings of {org} ({business}), kept by the {keeper} team.",
    "Booking sheet for the meeting rooms of {org}, an organisation in {business}; maintained by the {keeper} team.",
    "{org} ({business}) - shared rooms and their bookings, as held by the {keeper} team.",
)
KEEPERS = ("facilities", "office services", "reception", "workplace services")
"""Teams that keep a room-booking sheet (not a domain department such as radiology or the kitchen)."""
CONVENTIONS: dict[str, tuple[str, ...]] = {
    "end": (
        "Times are on the 24-hour clock and every end time is exclusive: a booking from 09:00 to 10:00 "
        "and one from 10:00 to 11:00 do not overlap.",
        "End times are exclusive (24-hour clock): a slot from 13:00 to 14:00 is over at 14:00, so a slot "
        "starting at 14:00 does not overlap it.",
    ),
    "buffer": (
        "Two bookings of the same room must be at least {n} minutes apart for changeover: a booking may "
        "start no earlier than {n} minutes after the previous booking of that room ends.",
        "Each room needs a changeover gap of {n} minutes: from the end of one booking of a room to the "
        "start of the next booking of the same room there must be {n} minutes or more.",
    ),
    "person": (
        "A person (organiser or named attendee) cannot be in two bookings whose times overlap, in any "
        "room; back-to-back bookings are fine for people.",
        "Nobody can be in two places at once: the organiser and the named attendees of a booking must "
        "not be part of another booking that overlaps it in time, whatever the room. People need no gap "
        "between their bookings.",
    ),
    "count_included": (
        "The attendee count of a booking is everybody in the room, the organiser included; it may not "
        "exceed the room's seats.",
        "Attendee counts include the organiser, and a room cannot take more attendees than it has seats.",
    ),
    "count_excluded": (
        "The attendee count of a booking does not include the organiser, who takes a seat as well: the "
        "count plus one may not exceed the room's seats.",
        "Attendee counts cover the guests only; the organiser needs a seat too, so the count plus one "
        "must fit within the room's seats.",
    ),
    "hours": (
        "A booking must lie within its room's opening hours: it may start at the opening time and must "
        "end no later than the closing time.",
        "Rooms can be used only while open: a booking may not start before the opening time nor end "
        "after the closing time.",
    ),
    "equipment": (
        "Every piece of equipment a booking needs must be in the room, at least in the number needed; "
        "equipment is never moved between rooms.",
        "Requested equipment must be available in the room itself, in the quantity requested; nothing "
        "is brought in from other rooms.",
    ),
    "who": (
        "A room reserved for a department may be booked only by an organiser from that department; "
        "other rooms may be booked by anyone in the staff directory.",
        "Rooms reserved for a department can be booked only by that department's staff; open rooms by "
        "any staff member.",
    ),
}
ROOM_STYLES = ("list", "prose", "table")
STAFF_STYLES = ("list", "inline")
BOOKING_STYLES = ("table", "grouped", "lines")
REQUEST_STYLES = ("form", "prose")
REF_LETTERS = "BKMRTV"


@dataclass(frozen=True)
class BookingCheckConfig(FamilyConfig):
    """Sizes of the booking sheets per level (inclusive ranges)."""

    rooms: tuple[tuple[int, int], ...] = ((2, 2), (3, 4), (5, 6))
    """Rooms at levels 1, 2, 3."""
    bookings: tuple[tuple[int, int], ...] = ((6, 8), (12, 17), (20, 28))
    """Confirmed bookings at levels 1, 2, 3."""
    days: tuple[tuple[int, int], ...] = ((1, 1), (1, 2), (2, 3))
    """Days the confirmed bookings span at levels 1, 2, 3."""
    people: tuple[tuple[int, int], ...] = ((8, 10), (12, 14), (16, 20))
    """Staff in the directory at levels 1, 2, 3."""
    named: tuple[int, int, int] = (2, 3, 4)
    """Most other named attendees on the request at levels 1, 2, 3."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        for label, ranges in (
            ("rooms", self.rooms),
            ("bookings", self.bookings),
            ("days", self.days),
            ("people", self.people),
        ):
            if len(ranges) != 3:
                raise ValueError(f"{label} needs one (low, high) range per level, got {ranges}")
            for low, high in ranges:
                if low > high:
                    raise ValueError(f"{label}: range ({low}, {high}) is empty")
        if min(low for low, _ in self.rooms) < 2:
            raise ValueError("a person's conflicting booking needs a second room: at least 2 rooms")
        if min(low for low, _ in self.days) < 1 or max(high for _, high in self.days) > 5:
            raise ValueError("days must lie between 1 and 5")
        if min(low for low, _ in self.bookings) < 4:
            raise ValueError("at least 4 confirmed bookings are needed for the limit and distractors")
        for (low_b, _), (_, high_r), (_, high_d) in zip(self.bookings, self.rooms, self.days, strict=True):
            if low_b > 5 * high_r * high_d:
                raise ValueError(f"{low_b} bookings do not fit {high_r} rooms over {high_d} days")
        for (low_p, _), named in zip(self.people, self.named, strict=True):
            if named < 1 or low_p < named + 5:
                raise ValueError(f"{low_p} people are too few for {named} named attendees and distractors")


# --- plan ---------------------------------------------------------------------------------------


def _type_totals(pairs: int) -> dict[str, int]:
    """Pairs per limit type for ``pairs`` pairs in all: the paper's split, scaled by largest remainder."""
    scale = pairs / sum(PAPER_PAIRS.values())
    raw = {t: PAPER_PAIRS[t] * scale for t in VARIATIONS}
    totals = {t: int(raw[t]) for t in VARIATIONS}
    for t in sorted(VARIATIONS, key=lambda t: (-(raw[t] - totals[t]), VARIATIONS.index(t))):
        if sum(totals.values()) == pairs:
            break
        totals[t] += 1
    return totals


def plan(config: BookingCheckConfig) -> list[GroupPlan]:
    """Deal the limit types round-robin over the levels, so each level gets its share of every type.

    Sub-choices alternate within each type and level: the side of the limit (before/after the
    request, or start/end), which record carries the change, and for capacity the count convention.
    """
    pairs = config.items_per_level // 2
    slots = [t for t in VARIATIONS for _ in range(_type_totals(3 * pairs)[t])]
    per_level: dict[int, list[str]] = {1: [], 2: [], 3: []}
    for i, variation in enumerate(slots):
        per_level[i % 3 + 1].append(variation)
    plans = []
    for level in (1, 2, 3):
        seen: dict[str, int] = {}
        for index, variation in enumerate(per_level[level]):
            k = seen.get(variation, 0) + (level - 1)
            seen[variation] = seen.get(variation, 0) + 1
            params: dict[str, Any] = {
                "side": ("before", "after")[k % 2],
                "field": ("record", "request")[k // 2 % 2],
            }
            if variation == "capacity":
                params = {"included": k % 2 == 0, "field": ("request", "room")[k // 2 % 2]}
            elif variation == "equipment":
                params = {"kind": ("count", "item")[k % 2], "field": ("request", "room")[k // 2 % 2]}
            elif variation == "hours":
                params = {"side": ("start", "end")[k % 2]}
            plans.append(GroupPlan(level=level, index=index, variation=variation, params=params))
    return plans


# --- answer -------------------------------------------------------------------------------------


def _room(case: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in case["rooms"] if r["name"] == name)


def failures(case: dict[str, Any]) -> list[str]:
    """The limit types the request breaks (empty when it can be confirmed), computed from the case."""
    req = case["request"]
    room = _room(case, req["room"])
    out = []
    buffer = case["buffer"]
    if any(
        b["room"] == req["room"]
        and b["date"] == req["date"]
        and b["start"] < req["end"] + buffer
        and req["start"] < b["end"] + buffer
        for b in case["bookings"]
    ):
        out.append("overlap")
    people = {req["organiser"], *req["attendees"]}
    if any(
        b["date"] == req["date"]
        and b["start"] < req["end"]
        and req["start"] < b["end"]
        and people & {b["organiser"], *b["attendees"]}
        for b in case["bookings"]
    ):
        out.append("person")
    seats_needed = req["count"] + (0 if case["count_includes_organiser"] else 1)
    if seats_needed > room["capacity"]:
        out.append("capacity")
    held = {e["item"]: e["count"] for e in room["equipment"]}
    if any(held.get(e["item"], 0) < e["count"] for e in req["equipment"]):
        out.append("equipment")
    if req["start"] < room["open"] or req["end"] > room["close"]:
        out.append("hours")
    dept = next(p["dept"] for p in case["people"] if p["name"] == req["organiser"])
    if room["reserved_for"] is not None and room["reserved_for"] != dept:
        out.append("who")
    return out


def answer(case: dict[str, Any]) -> str:
    """yes when the request breaks no convention."""
    return "no" if failures(case) else "yes"


# --- case sampling ------------------------------------------------------------------------------


class _Retry(Exception):
    """The random layout did not fit; draw again from the same stream."""


def _grid_time(rng: random.Random, low: int, high: int) -> int:
    """A time in [low, high] on the 5-minute grid, or (one time in five) off the grid."""
    if high < low:
        raise _Retry
    first = -(-low // 5) * 5
    if first > high:
        return low
    value = first + 5 * rng.randrange((high - first) // 5 + 1)
    if rng.random() < 0.2:
        value = min(high, max(low, value + pick(rng, (-3, -2, -1, 1, 2, 3))))
    return value


def _people_of(b: dict[str, Any]) -> set[str]:
    return {b["organiser"], *b["attendees"]}


class _Sheet:
    """Mutable draft of a booking sheet while the case is laid out."""

    def __init__(self, rng: random.Random, case: dict[str, Any], margin: int = 2) -> None:
        self.rng = rng
        self.case = case
        self.margin = margin
        self.refs: set[str] = set()
        self.busy: dict[str, list[tuple[str, int, int]]] = {}

    def room_free(self, room: str, date: str, start: int, end: int, ignore: int = -1) -> bool:
        """No booking of ``room`` on ``date`` within the changeover gap plus the safety margin."""
        gap = self.case["buffer"] + self.margin
        for i, b in enumerate(self.case["bookings"]):
            if (
                i != ignore
                and b["room"] == room
                and b["date"] == date
                and b["start"] < end + gap
                and start < b["end"] + gap
            ):
                return False
        return True

    def person_free(self, person: str, date: str, start: int, end: int, margin: int | None = None) -> bool:
        m = self.margin if margin is None else margin
        return not any(d == date and s < end + m and start < e + m for d, s, e in self.busy.get(person, ()))

    def ref(self) -> str:
        while True:
            ref = f"{self.case['ref_prefix']}-{self.rng.randrange(100, 1000)}"
            if ref not in self.refs:
                self.refs.add(ref)
                return ref

    def add(
        self, room: str, date: str, start: int, end: int, organiser: str, attendees: list[str], count: int
    ) -> int:
        self.case["bookings"].append(
            {
                "ref": self.ref(),
                "room": room,
                "date": date,
                "start": start,
                "end": end,
                "organiser": organiser,
                "attendees": attendees,
                "count": count,
            }
        )
        for person in (organiser, *attendees):
            self.busy.setdefault(person, []).append((date, start, end))
        return len(self.case["bookings"]) - 1

    def allowed(self, room: dict[str, Any]) -> list[str]:
        return [
            p["name"]
            for p in self.case["people"]
            if room["reserved_for"] is None or p["dept"] == room["reserved_for"]
        ]

    def seats_for(self, room: dict[str, Any], named: int) -> int:
        """A count that fits the room for a booking with ``named`` other named attendees."""
        extra = 0 if self.case["count_includes_organiser"] else 1
        low = max(2, named + (1 if self.case["count_includes_organiser"] else 0))
        high = room["capacity"] - extra
        return self.rng.randint(min(low, high), high)

    def crew(
        self,
        room: dict[str, Any],
        date: str,
        start: int,
        end: int,
        avoid: set[str],
        must: str | None = None,
        max_named: int = 3,
    ) -> tuple[str, list[str]] | None:
        """Organiser and other named attendees who are free then (``must`` among them)."""
        free = [
            p["name"]
            for p in self.case["people"]
            if p["name"] not in avoid and self.person_free(p["name"], date, start, end)
        ]
        organisers = [n for n in self.allowed(room) if n in free]
        if must is not None:
            if must not in free:
                return None
            if must in organisers and self.rng.random() < 0.5:
                organiser = must
            else:
                options = [n for n in organisers if n != must]
                if not options:
                    if must not in organisers:
                        return None
                    organiser = must
                else:
                    organiser = pick(self.rng, options)
        else:
            if not organisers:
                return None
            organiser = pick(self.rng, organisers)
        others = [n for n in free if n not in (organiser, must)]
        named = self.rng.sample(others, min(len(others), self.rng.randint(0, max_named)))
        if must is not None and must != organiser:
            named = [must, *named[: max_named - 1]]
            self.rng.shuffle(named)
        return organiser, named


def _make_rooms(
    rng: random.Random, forge: NameForge, n: int, depts: list[str], level: int
) -> list[dict[str, Any]]:
    rooms = []
    for _ in range(n):
        singles = rng.sample(SINGLE, rng.randint(1, 3))
        countables = rng.sample(sorted(COUNTABLE), rng.randint(1, 2))
        equipment = [{"item": s, "count": 1} for s in singles]
        equipment += [{"item": c, "count": rng.randint(2, 8)} for c in countables]
        rng.shuffle(equipment)
        rooms.append(
            {
                "name": f"{forge.place()} {pick(rng, ROOM_KINDS)}",
                "capacity": rng.randint(6, 16 + 8 * level),
                # on the hour or half hour, as rooms are opened (1.2 drew them to the minute, "08:02-19:03", so
                # that an hours negative one minute off showed no odd minute; it is now 5 minutes off)
                "open": on_the_half_hour(rng.randint(*OPENING), up=False),
                "close": on_the_half_hour(rng.randint(*CLOSING), up=True),
                "equipment": equipment,
                "reserved_for": pick(rng, depts) if rng.random() < 0.35 else None,
            }
        )
    return rooms


def _dates(rng: random.Random, n: int) -> list[str]:
    day = dt.date(2026, 1, 5) + dt.timedelta(days=rng.randrange(320))
    out = []
    while len(out) < n:
        if day.weekday() < 5:
            out.append(day.isoformat())
        day += dt.timedelta(days=1)
    return out


def _sample_case(
    rng: random.Random, plan: GroupPlan, config: BookingCheckConfig
) -> tuple[dict[str, Any], str, Any]:
    """The positive case, the decisive path and the negative's value at that path."""
    for _ in range(200):
        try:
            positive, path, neg_value = _try_case(rng, plan, config)
        except _Retry:
            continue
        if plan.variation == "hours" and failures(_set_path(positive, path, neg_value)) != ["hours"]:
            continue  # half an hour outside the room's hours, the request met another booking as well
        return positive, path, neg_value
    raise RuntimeError(f"{NAME}: could not lay out a case for {plan}")


def _try_case(
    rng: random.Random, plan: GroupPlan, config: BookingCheckConfig
) -> tuple[dict[str, Any], str, Any]:
    level, variation, params = plan.level, plan.variation, plan.params
    li = level - 1
    domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    depts = list(domain.departments)
    n_people = rng.randint(*config.people[li])
    dept_of = [depts[i % len(depts)] for i in range(n_people)]
    rng.shuffle(dept_of)
    people = [{"name": forge.person(), "dept": d} for d in dept_of]
    buffer = pick(rng, BUFFERS)
    included = params["included"] if variation == "capacity" else rng.random() < 0.5
    case: dict[str, Any] = {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(
            org=forge.organisation(domain.name), business=domain.business, keeper=pick(rng, KEEPERS)
        ),
        "conventions": [],
        "buffer": buffer,
        "count_includes_organiser": included,
        "styles": {
            "rooms": pick(rng, ROOM_STYLES),
            "staff": pick(rng, STAFF_STYLES),
            "bookings": pick(rng, BOOKING_STYLES),
            "request": pick(rng, REQUEST_STYLES),
        },
        "ref_prefix": pick(rng, REF_LETTERS) + pick(rng, REF_LETTERS),
        "rooms": _make_rooms(rng, forge, rng.randint(*config.rooms[li]), depts, level),
        "people": people,
        "dates": _dates(rng, rng.randint(*config.days[li])),
        "bookings": [],
        "request": {},
    }
    keys = [
        "end",
        "buffer",
        "person",
        "count_included" if included else "count_excluded",
        "hours",
        "equipment",
        "who",
    ]
    order = keys[1:]
    rng.shuffle(order)
    case["conventions"] = [pick(rng, CONVENTIONS[k]).format(n=buffer) for k in ["end", *order]]
    sheet = _Sheet(rng, case)
    rooms = case["rooms"]
    r_index = rng.randrange(len(rooms))
    room = rooms[r_index]
    date = pick(rng, case["dates"])
    o, c = room["open"], room["close"]

    # request people: organiser allowed to book the room, other named attendees
    allowed = sheet.allowed(room)
    if not allowed:
        raise _Retry
    organiser = pick(rng, allowed)
    n_named = rng.randint(1, config.named[li])
    named = rng.sample([p["name"] for p in people if p["name"] != organiser], n_named)
    req_people = [organiser, *named]
    seats_extra = 0 if included else 1
    if room["capacity"] < n_named + 3:
        raise _Retry

    # request times
    duration = pick(rng, (30, 45, 60, 60, 75, 90, 90, 120))

    def loose(t: int) -> int:
        """A request time: on the 5-minute grid, or (about one time in three) a few minutes off it."""
        return t + pick(rng, (-3, -2, -1, 1, 2, 3)) if rng.random() < 0.35 else t

    if variation == "hours" and params["side"] == "start":
        start, end = o, loose(5 * round((o + duration) / 5))
    elif variation == "hours":
        start, end = loose(5 * round((c - duration) / 5)), c
    else:
        low, high = -(-(o + buffer + 45) // 5), (c - buffer - 45 - duration) // 5
        if high < low:
            raise _Retry
        grid_start = 5 * rng.randint(low, high)
        start, end = loose(grid_start), loose(grid_start + duration)
    path, neg_value = "", None
    side = params.get("side", pick(rng, ("before", "after")))
    anchor = -1

    def other_room() -> dict[str, Any]:
        return pick(rng, [r for r in rooms if r is not room])

    if variation in ("overlap", "person"):
        # The positive's changed time (the limit) gets a uniform minute offset from the 5-minute grid,
        # shared by the times built from it (the limit booking, the limit-exact distractors). The
        # negative's time is one minute further, so its minute is uniform over the cycle as well: both
        # members are round one time in five and show the same minute tokens equally often.
        record = params["field"] == "record"
        offset = rng.randrange(5)
        gap = (buffer if variation == "overlap" else 0) if record else 0
        if side == "before":
            start = 5 * round((start - gap) / 5) + offset + gap
        else:
            end = 5 * round((end + gap) / 5) + offset - gap
        if end - start < 25:
            raise _Retry
        length = pick(rng, (30, 45, 60, 75, 90))
        if variation == "overlap":
            a_start, a_end = (
                (start - buffer - length, start - buffer)
                if side == "before"
                else (end + buffer, end + buffer + length)
            )
            if a_start < o or a_end > c:
                raise _Retry
            crew = sheet.crew(room, date, a_start - 3, a_end + 3, avoid=set())
            if crew is None:
                raise _Retry
            anchor = sheet.add(
                room["name"], date, a_start, a_end, crew[0], crew[1], sheet.seats_for(room, len(crew[1]))
            )
        else:
            target = pick(rng, req_people)
            other = other_room()
            a_start, a_end = (start - length, start) if side == "before" else (end, end + length)
            if a_start < other["open"] or a_end + 1 > other["close"]:
                raise _Retry
            crew = sheet.crew(other, date, a_start, a_end, avoid=set(req_people) - {target}, must=target)
            if crew is None:
                raise _Retry
            anchor = sheet.add(
                other["name"], date, a_start, a_end, crew[0], crew[1], sheet.seats_for(other, len(crew[1]))
            )
        if record:
            path = f"bookings/{anchor}/{'end' if side == 'before' else 'start'}"
            neg_value = (a_end + 1) if side == "before" else (a_start - 1)
        else:
            path = f"request/{'start' if side == 'before' else 'end'}"
            neg_value = (start - 1) if side == "before" else (end + 1)
    elif variation == "hours":
        path = f"request/{params['side']}"
        neg_value = start - HOURS_STEP if params["side"] == "start" else end + HOURS_STEP

    # attendee count
    if variation == "capacity":
        count = room["capacity"] - seats_extra
        if params["field"] == "request":
            path, neg_value = "request/count", count + 1
        else:
            path, neg_value = f"rooms/{r_index}/capacity", room["capacity"] - 1
    else:
        low = max(2, n_named + 1 - seats_extra)
        count = (
            room["capacity"] - seats_extra
            if rng.random() < 0.5
            else rng.randint(low, room["capacity"] - seats_extra)
        )

    # equipment needs
    held = room["equipment"]
    needs: list[dict[str, Any]] = []
    if variation == "equipment":
        kind, on_room = params["kind"], params["field"] == "room"
        pool = [i for i, e in enumerate(held) if (e["count"] >= 2) == (kind == "count")]
        k = pick(rng, pool)
        item = held[k]
        needs.append({"item": item["item"], "count": item["count"]})
        if kind == "count":
            neg = ("count", item["count"] - 1) if on_room else ("count", item["count"] + 1)
        else:
            missing = [s for s in SINGLE if all(e["item"] != s for e in held)]
            neg = ("item", pick(rng, missing))
    extra_needs = [e for e in held if all(n["item"] != e["item"] for n in needs)]
    for e in rng.sample(extra_needs, min(len(extra_needs), rng.randint(0, 2))):
        needs.append(
            {"item": e["item"], "count": e["count"] if rng.random() < 0.5 else rng.randint(1, e["count"])}
        )
    rng.shuffle(needs)
    if variation == "equipment":
        j = next(i for i, n in enumerate(needs) if n["item"] == held[k]["item"])
        if params["field"] == "room":
            path = f"rooms/{r_index}/equipment/{k}/{neg[0]}"
        else:
            path = f"request/equipment/{j}/{neg[0]}"
        neg_value = neg[1]

    case["request"] = {
        "room": room["name"],
        "date": date,
        "start": start,
        "end": end,
        "count": count,
        "organiser": organiser,
        "attendees": named,
        "equipment": needs,
    }
    pivot_side = {"overlap": side, "person": side}.get(variation)
    if variation == "hours":
        pivot_side = "before" if params["side"] == "start" else "after"
    free_side = {"before": "after", "after": "before"}.get(pivot_side or "", pick(rng, ("before", "after")))

    # limit-exact distractors on the side away from the pivot
    if rng.random() < 0.5:
        length = pick(rng, (30, 45, 60))
        n_start, n_end = (
            (start - buffer - length, start - buffer)
            if free_side == "before"
            else (end + buffer, end + buffer + length)
        )
        if n_start >= o and n_end <= c and sheet.room_free(room["name"], date, n_start, n_end):
            crew = sheet.crew(room, date, n_start - 3, n_end + 3, avoid=set())
            if crew is not None:
                sheet.add(
                    room["name"], date, n_start, n_end, crew[0], crew[1], sheet.seats_for(room, len(crew[1]))
                )
    if rng.random() < 0.5:
        length = pick(rng, (30, 45, 60))
        other = other_room()
        n_start, n_end = (start - length, start) if free_side == "before" else (end, end + length)
        target = pick(rng, req_people)
        if (
            n_start >= other["open"]
            and n_end <= other["close"]
            and sheet.room_free(other["name"], date, n_start, n_end)
            and sheet.person_free(target, date, n_start, n_end, 0)
        ):
            crew = sheet.crew(other, date, n_start, n_end, avoid=set(req_people) - {target}, must=target)
            if crew is not None:
                sheet.add(
                    other["name"],
                    date,
                    n_start,
                    n_end,
                    crew[0],
                    crew[1],
                    sheet.seats_for(other, len(crew[1])),
                )
    # same room, same time, another day
    other_dates = [d for d in case["dates"] if d != date]
    if other_dates and rng.random() < 0.7:
        d2 = pick(rng, other_dates)
        if o <= start - 10 and end + 10 <= c and sheet.room_free(room["name"], d2, start - 10, end + 10):
            crew = sheet.crew(room, d2, start - 10, end + 10, avoid=set())
            if crew is not None:
                sheet.add(
                    room["name"],
                    d2,
                    start - 10 + 5 * rng.randrange(3),
                    end + 5 * rng.randrange(3),
                    crew[0],
                    crew[1],
                    sheet.seats_for(room, len(crew[1])),
                )
    # a look-alike of a named person booked elsewhere at the requested time
    if level >= 2 and rng.random() < 0.6:
        twin_of = pick(rng, req_people)
        twin = None
        for _ in range(20):
            words = twin_of.split()
            at = rng.randrange(len(words))
            if not has_lookalike(words[at]):
                at = len(words) - 1 - at
            candidate = " ".join([*words[:at], lookalike(words[at], rng), *words[at + 1 :]])
            if candidate not in forge.used:
                twin = forge.claim(candidate)
                break
        other = other_room()
        if (
            twin is not None
            and sheet.room_free(other["name"], date, start - 5, end + 5)
            and other["open"] <= start - 5
            and end + 5 <= other["close"]
        ):
            people.insert(rng.randrange(len(people) + 1), {"name": twin, "dept": pick(rng, depts)})
            crew = sheet.crew(other, date, start - 5, end + 5, avoid=set(req_people) | {twin})
            if crew is not None:
                sheet.add(
                    other["name"],
                    date,
                    start - 5,
                    end + 5,
                    crew[0],
                    [twin, *crew[1][:2]],
                    sheet.seats_for(other, len(crew[1][:2]) + 1),
                )

    # fillers
    target_count = rng.randint(*config.bookings[li])
    attempts = 0
    while len(case["bookings"]) < target_count:
        attempts += 1
        if attempts > 400:
            raise _Retry
        r = pick(rng, rooms)
        d = pick(rng, case["dates"])
        length = pick(rng, (30, 45, 60, 60, 90, 90, 120, 150))
        s = _grid_time(rng, r["open"], r["close"] - length)
        e = s + length
        if not sheet.room_free(r["name"], d, s, e):
            continue
        if r is room and d == date and not (e + buffer + 2 <= start or end + buffer + 2 <= s):
            continue
        touches_request = d == date and s < end + 2 and start < e + 2
        crew = sheet.crew(r, d, s, e, avoid=set(req_people) if touches_request else set())
        if crew is None:
            continue
        sheet.add(r["name"], d, s, e, crew[0], crew[1], sheet.seats_for(r, len(crew[1])))

    # list bookings by date and time; the decisive index follows its booking
    order = sorted(
        range(len(case["bookings"])),
        key=lambda i: (
            case["bookings"][i]["date"],
            case["bookings"][i]["start"],
            case["bookings"][i]["room"],
        ),
    )
    case["bookings"] = [case["bookings"][i] for i in order]
    if anchor >= 0 and path.startswith("bookings/"):
        path = path.replace(f"bookings/{anchor}/", f"bookings/{order.index(anchor)}/")
    return case, path, neg_value


def _set_path(case: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(case))
    node: Any = out
    parts = path.split("/")
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[parts[-1]] = value
    return out


# --- rendering ----------------------------------------------------------------------------------


def _equipment_text(items: list[dict[str, Any]], article: bool) -> str:
    words = []
    for e in items:
        if e["item"] in COUNTABLE:
            words.append(f"{e['count']} {e['item'] if e['count'] == 1 else COUNTABLE[e['item']]}")
        else:
            words.append(("an " if e["item"][0] in "aeiou" else "a ") + e["item"] if article else e["item"])
    return join_words(words) if article else ", ".join(words)


def _who(room: dict[str, Any]) -> str:
    dept = room["reserved_for"]
    return "open to all staff" if dept is None else f"reserved for the {dept} department"


def _date(iso: str) -> str:
    return weekday_date(dt.date.fromisoformat(iso))


def _span(start: int, end: int) -> str:
    return f"{clock(start)}-{clock(end)}"


def render(case: dict[str, Any]) -> str:
    styles = case["styles"]
    lines = [case["intro"], "", "Rooms:"]
    if styles["rooms"] == "table":
        lines += ["| Room | Seats | Open | Equipment | Booking |", "|---|---|---|---|---|"]
    for r in case["rooms"]:
        if styles["rooms"] == "list":
            lines.append(
                f"- {r['name']}: {r['capacity']} seats; open {_span(r['open'], r['close'])}; "
                f"equipment: {_equipment_text(r['equipment'], False)}; {_who(r)}."
            )
        elif styles["rooms"] == "prose":
            lines.append(
                f"- {r['name']} seats {r['capacity']} people and is open from {clock(r['open'])} to "
                f"{clock(r['close'])}. It has {_equipment_text(r['equipment'], True)}. "
                f"It is {_who(r)}."
            )
        else:
            lines.append(
                f"| {r['name']} | {r['capacity']} | {_span(r['open'], r['close'])} | "
                f"{_equipment_text(r['equipment'], False)} | {_who(r)} |"
            )
    lines += ["", "Staff directory:"]
    if styles["staff"] == "list":
        lines += [f"- {p['name']} ({p['dept']})" for p in case["people"]]
    else:
        lines.append("; ".join(f"{p['name']} ({p['dept']})" for p in case["people"]) + ".")
    lines += ["", "Booking conventions:"]
    lines += [f"{i}. {text}" for i, text in enumerate(case["conventions"], start=1)]
    lines += ["", "Confirmed bookings:"]
    lines += _render_bookings(case)
    lines += ["", "Booking request:"]
    req = case["request"]
    others = ", ".join(req["attendees"])
    if styles["request"] == "form":
        lines += [
            f"- Room: {req['room']}",
            f"- Date: {_date(req['date'])}",
            f"- Time: {_span(req['start'], req['end'])}",
            f"- Organiser: {req['organiser']}",
            f"- Other named attendees: {others}",
            f"- Attendee count: {req['count']}",
            f"- Equipment needed: {_equipment_text(req['equipment'], False) if req['equipment'] else 'none'}",
        ]
    else:
        needs = (
            f"The booking needs {_equipment_text(req['equipment'], True)}."
            if req["equipment"]
            else "No equipment is needed."
        )
        lines.append(
            f"{req['organiser']} asks to book {req['room']} on {_date(req['date'])} from "
            f"{clock(req['start'])} to {clock(req['end'])} for {req['count']} attendees, naming "
            f"{join_words(req['attendees'])} as attendees. {needs}"
        )
    return "\n".join(lines)


def _render_bookings(case: dict[str, Any]) -> list[str]:
    style = case["styles"]["bookings"]
    lines: list[str] = []
    if style == "table":
        lines += [
            "| Ref | Date | Time | Room | Organiser | Other named attendees | Attendees |",
            "|---|---|---|---|---|---|---|",
        ]
    current = ""
    for b in case["bookings"]:
        others = ", ".join(b["attendees"]) if b["attendees"] else "-"
        if style == "table":
            lines.append(
                f"| {b['ref']} | {_date(b['date'])} | {_span(b['start'], b['end'])} | {b['room']} | "
                f"{b['organiser']} | {others} | {b['count']} |"
            )
        elif style == "grouped":
            if b["date"] != current:
                current = b["date"]
                lines.append(f"{_date(b['date'])}:")
            who = f" with {join_words(b['attendees'])}" if b["attendees"] else ""
            lines.append(
                f"- {_span(b['start'], b['end'])} {b['room']}: organised by {b['organiser']}{who}; "
                f"{b['count']} attendees (ref {b['ref']})"
            )
        else:
            named = f"other named attendees: {others}" if b["attendees"] else "no other named attendees"
            lines.append(
                f"{b['ref']}: {b['room']}, {_date(b['date'])}, {clock(b['start'])} to {clock(b['end'])}, "
                f"organiser {b['organiser']}, {named}, {b['count']} attendees."
            )
    return lines


# --- contrast group -----------------------------------------------------------------------------


def build_group(plan: GroupPlan, rng: random.Random, config: BookingCheckConfig) -> Group:
    positive, path, neg_value = _sample_case(rng, plan, config)
    negative = _set_path(positive, path, neg_value)
    if failures(positive) or failures(negative) != [plan.variation]:
        raise RuntimeError(f"{NAME}: {plan} built failures {failures(positive)} / {failures(negative)}")
    members = [
        Member(case=positive, state=render(positive), answer="yes", options=OPTIONS, variation=None),
        Member(case=negative, state=render(negative), answer="no", options=OPTIONS, variation=plan.variation),
    ]
    if rng.random() < 0.5:
        members.reverse()
    return Group(
        level=plan.level, domain=positive["domain"], members=tuple(members), decisive=frozenset({path})
    )


# --- partial-information heuristics -------------------------------------------------------------

_TIME = r"(\d\d):(\d\d)"


def _minutes(hh: str, mm: str) -> int:
    return int(hh) * 60 + int(mm)


def _request(state: str) -> dict[str, Any]:
    """Room, date, times and count of the request, read from the rendered text (heuristics only)."""
    text = state.rpartition("Booking request:")[2]
    m = re.search(r"- Room: (.+)\n- Date: (.+)\n- Time: " + _TIME + "-" + _TIME, text)
    if m:
        room, date, s, e = m.group(1), m.group(2), _minutes(m[3], m[4]), _minutes(m[5], m[6])
        count = int(re.search(r"- Attendee count: (\d+)", text)[1])  # type: ignore[index]
        people_line = re.search(r"- Organiser: (.+)\n- Other named attendees: (.+)", text)
        people = [people_line[1], *people_line[2].split(", ")] if people_line else []
    else:
        m = re.search(
            r"\n(.+?) asks to book (.+?) on (.+?) from "
            + _TIME
            + " to "
            + _TIME
            + r" for (\d+) attendees, naming (.+?) as attendees\.",
            text,
        )
        if m is None:
            return {}
        room, date = m.group(2), m.group(3)
        s, e, count = _minutes(m[4], m[5]), _minutes(m[6], m[7]), int(m[8])
        named = re.split(r", | and ", m.group(9))
        people = [m.group(1), *named]
    return {"room": room, "date": date, "start": s, "end": e, "count": count, "people": people}


def _booking_lines(state: str) -> list[str]:
    body = state.partition("Confirmed bookings:")[2].partition("Booking request:")[0]
    return [line for line in body.splitlines() if line.strip()]



def heuristic_room_exactly_full(item: Item) -> dict[str, float]:
    """'The room is exactly full, so yes': yes when the stated attendee count equals the room's seats."""
    state = item.state if isinstance(item.state, str) else ""
    req = _request(state)
    if not req:
        return {"yes": 0.5, "no": 0.5}
    rooms = state.partition("Rooms:")[2].partition("Staff directory:")[0]
    name = re.escape(req["room"])
    m = re.search(rf"{name}: (\d+) seats|{name} seats (\d+) people|\| {name} \| (\d+) \|", rooms)
    seats = int(next(g for g in m.groups() if g)) if m else -1
    return yes_no(req["count"] == seats)


def heuristic_touching_booking(item: Item) -> dict[str, float]:
    """'A booking of the room touches the requested times, so no': no when any booking of the same room
    on the same day ends or starts within the changeover gap of the request (or overlaps it)."""
    state = item.state if isinstance(item.state, str) else ""
    req = _request(state)
    gap_match = re.search(r"(\d+) minutes", state.partition("Booking conventions:")[2])
    if not req or gap_match is None:
        return {"yes": 0.5, "no": 0.5}
    gap = int(gap_match[1])
    day = ""
    for line in _booking_lines(state):
        if line.endswith(":") and not line.startswith("-"):
            day = line[:-1]
        if req["room"] not in line or (req["date"] not in line and day != req["date"]):
            continue
        times = re.findall(_TIME, line)
        if len(times) >= 2:
            s, e = _minutes(*times[0]), _minutes(*times[1])
            if s <= req["end"] + gap and req["start"] <= e + gap:
                return yes_no(False)
    return yes_no(True)


def heuristic_person_busy_that_day(item: Item) -> dict[str, float]:
    """'A named person has another booking that day, so no' (ignores the times)."""
    state = item.state if isinstance(item.state, str) else ""
    req = _request(state)
    if not req:
        return {"yes": 0.5, "no": 0.5}
    day = ""
    for line in _booking_lines(state):
        if line.endswith(":") and not line.startswith("-"):
            day = line[:-1]
        if req["date"] in line or day == req["date"]:
            names = set(re.findall(r"[A-Z][a-z]+ [A-Z][a-z]+", line))
            if names & set(req["people"]):
                return yes_no(False)
    return yes_no(True)


register(
    FamilySpec(
        name=NAME,
        layer="D",
        version=VERSION,
        question=QUESTION,
        config_type=BookingCheckConfig,
        plan=plan,
        build_group=build_group,
        expected_answers=lambda plan: ("no", "yes"),
        heuristics={
            "room_exactly_full": heuristic_room_exactly_full,
            "touching_booking": heuristic_touching_booking,
            "person_busy_that_day": heuristic_person_busy_that_day,
        },
    )
)
