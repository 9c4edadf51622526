"""Independent solver for booking_check: read the sheet, then test the request against each convention.

Reads only the rendered state. It parses the rooms (three layouts), the staff directory (two), the
conventions (the changeover minutes and whether the attendee count includes the organiser), the
confirmed bookings (three layouts) and the request (two layouts). The request is confirmable when
it sits inside the room's hours, fits its seats, finds its equipment in the room, keeps the
changeover gap to every booking of the room that day, shares no person with an overlapping
booking, and its organiser may book the room.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from decisionpivot.items import Item

FAMILY = "booking_check"

_HHMM = r"\d\d:\d\d"


def _mins(text: str) -> int:
    hours, minutes = text.split(":")
    return 60 * int(hours) + int(minutes)


@dataclass
class _Room:
    seats: int
    opens: int
    closes: int
    kit: dict[str, int] = field(default_factory=dict)
    dept: str | None = None


@dataclass
class _Slot:
    room: str
    day: str
    start: int
    end: int
    people: frozenset[str]


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


_LIST_SEPARATOR = re.compile(r", | and ")
_COUNTED_ITEM = re.compile(r"(\d+) (.+)")
_ARTICLE = re.compile(r"^(a|an) ")


def _kit(text: str) -> dict[str, int]:
    """'speakerphone, 7 tablets' or 'a smart board, 8 laptops and 2 flip charts' -> {item: count}."""
    parts = _LIST_SEPARATOR.split(text.strip())
    kit: dict[str, int] = {}
    for part in parts:
        part = part.strip()
        m = _COUNTED_ITEM.fullmatch(part)
        if m:
            kit[_singular(m.group(2)) if int(m.group(1)) != 1 else m.group(2)] = int(m.group(1))
        else:
            kit[_ARTICLE.sub("", part)] = 1
    return kit


_RESERVED_FOR = re.compile(r"reserved for the (.+) department")


def _dept(text: str) -> str | None:
    m = _RESERVED_FOR.search(text)
    return m.group(1) if m else None


def _section(state: str, head: str, tail: str) -> list[str]:
    body = state.split(head, 1)[1].split(tail, 1)[0]
    return [line for line in body.splitlines() if line.strip()]


_ROOM_LIST_FORM = re.compile(rf"- (.+?): (\d+) seats; open ({_HHMM})-({_HHMM}); equipment: (.+?); (.+)\.")
_ROOM_PROSE_FORM = re.compile(
    rf"- (.+?) seats (\d+) people and is open from ({_HHMM}) to ({_HHMM})\. "
    r"It has (.+?)\. It is (.+)\."
)


def _rooms(lines: list[str]) -> dict[str, _Room]:
    rooms: dict[str, _Room] = {}
    for line in lines:
        if line.startswith("| Room |") or line.startswith("|---"):
            continue
        if line.startswith("|"):
            name, seats, hours, kit, who = (c.strip() for c in line.strip("|").split("|"))
            opens, closes = hours.split("-")
            rooms[name] = _Room(int(seats), _mins(opens), _mins(closes), _kit(kit), _dept(who))
            continue
        m = _ROOM_LIST_FORM.fullmatch(line)
        if m:
            rooms[m[1]] = _Room(int(m[2]), _mins(m[3]), _mins(m[4]), _kit(m[5]), _dept(m[6]))
            continue
        m = _ROOM_PROSE_FORM.fullmatch(line)
        if m is None:
            raise ValueError(f"unreadable room line: {line!r}")
        rooms[m[1]] = _Room(int(m[2]), _mins(m[3]), _mins(m[4]), _kit(m[5]), _dept(m[6]))
    return rooms


def _staff(lines: list[str]) -> dict[str, str]:
    entries = [line[2:] for line in lines] if lines[0].startswith("- ") else lines[0].rstrip(".").split("; ")
    out = {}
    for entry in entries:
        name, _, dept = entry.partition(" (")
        out[name] = dept.rstrip(")")
    return out


def _names(text: str) -> list[str]:
    text = text.strip()
    if text in ("-", ""):
        return []
    return [n for n in _LIST_SEPARATOR.split(text) if n]


_BOOKING_LIST_FORM = re.compile(
    rf"- ({_HHMM})-({_HHMM}) (.+?): organised by (.+?)(?: with (.+?))?; \d+ attendees "
    r"\(ref [A-Z]+-\d+\)"
)
_BOOKING_REF_FORM = re.compile(
    rf"[A-Z]+-\d+: (.+?), (\w+day \d+ \w+ \d{{4}}), ({_HHMM}) to ({_HHMM}), organiser (.+?), "
    r"(?:other named attendees: (.+?)|no other named attendees), \d+ attendees\."
)


def _bookings(lines: list[str]) -> list[_Slot]:
    slots = []
    day = ""
    for line in lines:
        if line.startswith("| Ref |") or line.startswith("|---"):
            continue
        if line.startswith("|"):
            _, when, span, room, organiser, others, _ = (c.strip() for c in line.strip("|").split("|"))
            a, b = span.split("-")
            slots.append(_Slot(room, when, _mins(a), _mins(b), frozenset([organiser, *_names(others)])))
            continue
        if not line.startswith("-") and line.endswith(":"):
            day = line[:-1]
            continue
        m = _BOOKING_LIST_FORM.fullmatch(line)
        if m:
            slots.append(_Slot(m[3], day, _mins(m[1]), _mins(m[2]), frozenset([m[4], *_names(m[5] or "")])))
            continue
        m = _BOOKING_REF_FORM.fullmatch(line)
        if m is None:
            raise ValueError(f"unreadable booking line: {line!r}")
        slots.append(_Slot(m[1], m[2], _mins(m[3]), _mins(m[4]), frozenset([m[5], *_names(m[6] or "")])))
    return slots


@dataclass
class _Request:
    room: str
    day: str
    start: int
    end: int
    organiser: str
    others: list[str]
    count: int
    needs: dict[str, int]


_REQUEST = re.compile(
    rf"(.+?) asks to book (.+?) on (\w+day \d+ \w+ \d{{4}}) from ({_HHMM}) to ({_HHMM}) for "
    r"(\d+) attendees, naming (.+?) as attendees\. (?:The booking needs (.+)\.|No equipment is "
    r"needed\.)"
)


def _request(lines: list[str]) -> _Request:
    if lines[0].startswith("- Room: "):
        fields = dict(line[2:].split(": ", 1) for line in lines)
        a, b = fields["Time"].split("-")
        needs = {} if fields["Equipment needed"] == "none" else _kit(fields["Equipment needed"])
        return _Request(
            fields["Room"],
            fields["Date"],
            _mins(a),
            _mins(b),
            fields["Organiser"],
            _names(fields["Other named attendees"]),
            int(fields["Attendee count"]),
            needs,
        )
    text = " ".join(lines)
    m = _REQUEST.fullmatch(text)
    if m is None:
        raise ValueError(f"unreadable request: {text!r}")
    return _Request(
        m[2], m[3], _mins(m[4]), _mins(m[5]), m[1], _names(m[7]), int(m[6]), _kit(m[8]) if m[8] else {}
    )


_MINUTES = re.compile(r"(\d+) minutes")


def _until_blank(lines: list[str]) -> list[str]:
    """A state's last section: its lines up to the first blank line after it begins (what follows is no longer the
    section - e.g. the paragraphs an ``irrelevant-*-after`` framing appends)."""
    begun = False
    out = []
    for line in lines:
        if not line.strip():
            if begun:
                break
            continue
        begun = True
        out.append(line)
    return out


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("booking_check states are text")
    state = item.state
    rooms = _rooms(_section(state, "\nRooms:\n", "\nStaff directory:\n"))
    staff = _staff(_section(state, "\nStaff directory:\n", "\nBooking conventions:\n"))
    rules = _section(state, "\nBooking conventions:\n", "\nConfirmed bookings:\n")
    slots = _bookings(_section(state, "\nConfirmed bookings:\n", "\nBooking request:\n"))
    req = _request(_until_blank(state.split("\nBooking request:\n", 1)[1].splitlines()))

    changeover = next(
        int(_MINUTES.search(r)[1])
        for r in rules  # type: ignore[index]
        if "changeover" in r
    )
    count_rule = next(r for r in rules if "ttendee count" in r)
    organiser_seat = 1 if "plus one" in count_rule else 0

    room = rooms[req.room]
    if req.start < room.opens or room.closes < req.end:
        return "no"
    if req.count + organiser_seat > room.seats:
        return "no"
    if any(room.kit.get(thing, 0) < n for thing, n in req.needs.items()):
        return "no"
    if room.dept is not None and staff[req.organiser] != room.dept:
        return "no"
    mine = {req.organiser, *req.others}
    for slot in slots:
        if slot.day != req.day:
            continue
        gap = max(slot.start - req.end, req.start - slot.end)
        if slot.room == req.room and gap < changeover:
            return "no"
        if gap < 0 and slot.people & mine:
            return "no"
    return "yes"
