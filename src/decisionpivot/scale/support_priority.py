"""support_priority (layer A): which priority do the desk's queue rules give this request?

Story. A support desk (a college's IT service desk, a home-goods shop's customer service, a software firm's
support desk, a hotel's events office, an electricity supplier's customer service, a freight forwarder's
customer desk) routes every open request by how long it has been open: the longer it waits, the higher its
priority. The state gives the desk's queue rules (what counts as time open, the priority bands), one request
with its history (logged, notes, status changes) and the moment the queue is checked. The gold level is the
band the request's time open falls in.

Levels (difficulty):

1. a scale of 3 priorities; the desk counts every minute from logging to the check, all on one day; the
   history holds notes that change nothing;
2. 4 priorities; the request spans up to three days; the clock stops while the status is "waiting for
   requester" (one such wait);
3. 5 priorities; only the desk's opening hours count (Monday to Friday), the clock also stops while waiting
   for the requester, and a wait for a third party, which does not stop it, may come too; the request may be
   logged outside opening hours and span a weekend.

Groups. One decisive time moves by one minute at a time: when the request was logged, when the queue is
checked, or (levels 2-3) when the requester replied. The members' times open are the last minute of a band
and the first of the next (and one minute further on one side, :mod:`decisionpivot.scale.boundary`). Band
edges are round (30 minutes to 48 hours); each case's rules say either "4 hours or more" (the edge opens the
upper band) or "more than 4 hours" (it closes the lower one), drawn apart from the group's plan. The decisive
minute always counts (it lies in opening hours and outside any wait), so each step moves the time open by
exactly one minute.

Version history:
* 1.0 - first release (scale suite 1.0).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from decisionpivot.generate.common.formatting import MONTHS, WEEKDAYS, clock
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilySpec, Group, GroupPlan, Member
from decisionpivot.items import Item
from decisionpivot.scale.boundary import (
    Boundary,
    ScaleConfig,
    expected_answers,
    offset,
    scale_plans,
    variation,
)
from decisionpivot.scale.names import PLACE_WORDS, NameBook
from decisionpivot.scale.registry import register
from decisionpivot.score_questions import level_key, level_options

NAME = "support_priority"
VERSION = "1.0"
QUESTION = "Which priority do the desk's queue rules give this request?"

PRIORITIES = (
    ("Routine", "handled in turn from the shared queue"),
    ("Raised", "moved to the top of the shared queue"),
    ("High", "assigned to a named agent at once"),
    ("Urgent", "taken over by the shift lead"),
    ("Critical", "the desk manager is called in"),
)
SCALES = {3: (0, 1, 3), 4: (0, 1, 2, 3), 5: (0, 1, 2, 3, 4)}
"""Which of :data:`PRIORITIES` a scale of each size uses, lowest first."""

EDGES = {
    1: ((60, 240), (120, 240), (120, 480), (30, 120), (240, 480), (60, 180)),
    2: ((240, 480, 1440), (120, 480, 1440), (60, 240, 720), (480, 1440, 2880), (240, 720, 1440)),
    3: ((60, 240, 480, 960), (120, 240, 600, 1200), (240, 480, 960, 1440), (120, 480, 960, 1800),
        (60, 120, 480, 1200)),
}
"""Band edges in minutes at each difficulty level (level 3: minutes of opening hours); all round."""

OPENING = ((480, 1080), (450, 1050), (540, 1020), (480, 1200))
"""Opening hours at level 3 (minutes after midnight): 08:00-18:00, 07:30-17:30, 09:00-17:00, 08:00-20:00."""

DECISIVE = (("logged", "checked"), ("logged", "checked", "reply"), ("logged", "checked", "reply"))
"""The decisive time's kind at each difficulty level, taken in turn."""

FROM, UP_TO = "from", "up_to"
"""Rule styles: an edge opens the upper band ("4 hours or more") or closes the lower one ("up to 4 hours")."""

WAITING = "waiting for requester"
THIRD = "waiting for third party"
OPEN = "open"


@dataclass(frozen=True)
class Desk:
    """A domain's desk: who runs it and what its requests are about."""

    domain: str
    """Item domain."""
    kind: str
    """'the IT service desk', 'the customer service team'."""
    about: str
    """What the organisation is, with its article ('an adult-education college')."""
    trades: tuple[str, ...]
    """Name endings of the organisation; empty: a place word and ``suffix``."""
    suffix: str
    """For a place-named organisation ('College', 'Hotel')."""
    roles: tuple[str, ...]
    """Who raises requests."""
    requests: tuple[tuple[str, str, str], ...]
    """Per request: its subject, what an agent asks the requester for, the third party the desk may wait for."""
    channels: tuple[str, ...]
    """How requests arrive."""
    prefix: str
    """Request number prefix."""


DESKS = (
    Desk("education", "the IT service desk", "an adult-education college", (), "College",
         ("lecturer", "student", "exams officer", "librarian", "course administrator"),
         (("Projector in room B2.14 shows no picture", "the make of the projector", "the audio-visual contractor"),
          ("Cannot log in to the course platform after a password change", "the user name", "the platform vendor"),
          ("Printer on the second floor jams on every job", "the printer's asset tag", "the printer supplier"),
          ("Exam room laptops need the statistics software", "the exam date", "the software vendor"),
          ("Student e-mail account locked after too many attempts", "the student number", "the e-mail provider"),
          ("No network in the library reading room", "the desk numbers affected", "the network contractor"),
          ("Course registration form gives an error on submit", "a screenshot of the error", "the platform vendor"),
          ("Classroom speakers crackle during lectures", "the room number", "the audio-visual contractor")),
         ("e-mail", "the self-service portal", "phone"), "IT"),
    Desk("retail", "the customer service team", "an online home-goods shop", ("Home Goods", "Interiors", "Living"),
         "", ("customer",),
         (("Kettle delivered with a cracked lid", "a photo of the lid", "the warehouse"),
          ("Order not delivered on the promised day", "the order number", "the courier"),
          ("Refund for a returned blanket not received", "the return receipt", "the payment provider"),
          ("Wrong colour of storage boxes delivered", "a photo of the boxes", "the warehouse"),
          ("Discount code rejected at checkout", "the discount code", "the web shop provider"),
          ("Invoice shows the wrong delivery address", "the correct address", "the web shop provider"),
          ("Desk lamp arrived without its plug", "a photo of the lamp", "the manufacturer"),
          ("Parcel marked as delivered but not received", "the delivery address", "the courier")),
         ("e-mail", "the contact form", "phone", "chat"), "CS"),
    Desk("software", "the support desk", "a firm that runs hosted accounting software for small businesses",
         ("Software", "Systems", "Digital"), "", ("customer administrator", "finance manager", "office manager"),
         (("Nightly report export fails with a timeout", "the time of the failed run", "the hosting provider"),
          ("Users cannot reset their passwords", "the user names affected", "the identity provider"),
          ("Licence seats not released after staff left", "the names of the leavers", "the licensing partner"),
          ("Single sign-on fails for the new office", "the error message", "the identity provider"),
          ("Bank feed stopped importing transactions", "the bank account affected", "the bank's feed service"),
          ("Invoices print with the old company address", "a sample invoice", "the document service provider"),
          ("Month-end close report shows no totals", "a screenshot of the report", "the hosting provider")),
         ("e-mail", "the support portal", "phone"), "SUP"),
    Desk("hospitality", "the events office", "a hotel with conference rooms", (), "Hotel",
         ("corporate client", "event organiser", "wedding planner", "travel agent"),
         (("Event booking shows the wrong number of guests", "the event order", "the catering partner"),
          ("Conference invoice charges parking twice", "the invoice number", "the car park operator"),
          ("Projector missing from the booked meeting room", "the meeting room and date",
           "the audio-visual contractor"),
          ("Group booking needs ten more rooms in May", "the arrival date", "the partner hotel"),
          ("Banquet menu for Friday not confirmed", "the number of vegetarian guests", "the catering partner"),
          ("Deposit for the summer party not shown on the statement", "the payment date", "the payment provider"),
          ("Room block released too early", "the booking reference", "the booking platform")),
         ("phone", "e-mail", "the booking portal"), "EV"),
    Desk("energy", "the customer service team", "a regional electricity supplier", ("Energy", "Power", "Utilities"),
         "", ("household customer", "business customer"),
         (("Smart meter shows no reading since Monday", "a photo of the meter display", "the metering contractor"),
          ("Bill based on an estimated reading", "a current meter reading", "the metering contractor"),
          ("Request to move the meter for a kitchen renovation", "a sketch of the new position",
           "the network operator"),
          ("Direct debit taken twice this month", "the bank statement line", "the payment provider"),
          ("Meter reading submitted online not accepted", "a photo of the meter", "the metering contractor"),
          ("Final bill after moving house not received", "the new address", "the print and post service"),
          ("Solar export payments missing from the statement", "the export meter number", "the network operator")),
         ("phone", "e-mail", "the customer portal"), "CS"),
    Desk("logistics", "the customer desk", "a freight forwarder", ("Freight", "Logistics", "Forwarding"), "",
         ("shipper", "consignee", "warehouse manager"),
         (("Shipment held at customs without a reason given", "the customs reference", "the customs broker"),
          ("Delivery note missing from a pallet delivery", "the waybill number", "the haulier"),
          ("Tracking shows no update since the last depot", "the waybill number", "the haulier"),
          ("Pallet delivered to the wrong warehouse gate", "the gate number", "the receiving warehouse"),
          ("Invoice charges a surcharge that was not agreed", "the quote reference", "the haulier"),
          ("Collection booked but the driver did not arrive", "the collection reference", "the haulier"),
          ("Two cartons missing from a delivery of twelve", "the delivery note", "the receiving warehouse"),
          ("Proof of delivery not uploaded", "the waybill number", "the haulier")),
         ("e-mail", "phone", "the shipper portal"), "FR"),
)

ARRIVALS = {
    "e-mail": "e-mail from the requester arrived", "phone": "voicemail left by the requester",
    "chat": "chat message from the requester arrived", "the contact form": "contact form sent by the requester",
    "the self-service portal": "form submitted on the self-service portal",
    "the support portal": "form submitted on the support portal",
    "the booking portal": "form submitted on the booking portal",
    "the customer portal": "form submitted on the customer portal",
    "the shipper portal": "form submitted on the shipper portal",
}
"""What arrives before an agent logs it, by channel."""

AGENT_NOTES = ("{agent} added an internal note", "{agent} took over the request", "{agent} linked a similar request")
REQUESTER_NOTES = ("the requester sent a reminder", "the requester added an attachment")
"""Events that change no status: agents write theirs in opening hours, requesters at any time."""


@dataclass(frozen=True)
class SupportPriorityConfig(ScaleConfig):
    """Scale sizes of the three difficulty levels."""

    levels: tuple[int, int, int] = (3, 4, 5)
    """Priorities at each difficulty level (a scale of 3 to 5 of :data:`PRIORITIES`)."""

    def validate(self) -> None:
        super().validate()
        for level, n in enumerate(self.levels, start=1):
            if n not in SCALES:
                raise ValueError(f"level {level}: the desk has scales of {sorted(SCALES)} priorities, got {n}")
            if any(len(edges) != n - 1 for edges in EDGES[level]):
                raise ValueError(f"level {level}: the band edges of this level make {len(EDGES[level][0]) + 1} "
                                 f"priorities, not {n}")


# --- time ---------------------------------------------------------------------------------------
# Times are whole minutes after midnight of the case's first day; an interval [a, b) holds minutes a .. b - 1.


def _moment(case: dict[str, Any], minute: int) -> dt.datetime:
    return dt.datetime.fromisoformat(case["day"]) + dt.timedelta(minutes=minute)


def _opening(case: dict[str, Any], lo: int, hi: int) -> list[tuple[int, int]]:
    """The opening-hour intervals that meet [lo, hi), clipped to it (all of it when every minute counts)."""
    hours = case["rules"]["hours"]
    if hours is None:
        return [(lo, hi)] if lo < hi else []
    first = dt.date.fromisoformat(case["day"]).weekday()
    out = []
    for day in range(lo // 1440, (hi - 1) // 1440 + 1):
        if (first + day) % 7 < 5:
            a, b = max(lo, day * 1440 + hours[0]), min(hi, day * 1440 + hours[1])
            if a < b:
                out.append((a, b))
    return out


def _waits(case: dict[str, Any]) -> list[tuple[int, int]]:
    """The requester waits as [start, end) (the clock stops in them when the rules say so)."""
    if not case["rules"]["pauses"]:
        return []
    out, start = [], None
    for event in case["events"]:
        if event["status"] == WAITING:
            start = event["t"]
        elif event["status"] is not None and start is not None:
            out.append((start, event["t"]))
            start = None
    if start is not None:
        out.append((start, case["checked"]))
    return out


def _counting(case: dict[str, Any], lo: int, hi: int, waits: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The intervals of [lo, hi) in which the clock runs: opening hours less the waits, in order."""
    out = []
    for a, b in _opening(case, lo, hi):
        pieces = [(a, b)]
        for wa, wb in waits:
            pieces = [p for x, y in pieces for p in ((x, min(y, wa)), (max(x, wb), y)) if p[0] < p[1]]
        out += pieces
    return out


def _counts(case: dict[str, Any], minute: int, waits: list[tuple[int, int]]) -> bool:
    """Whether the clock runs in ``minute``."""
    return bool(_counting(case, minute, minute + 1, waits))


def _in_hours(case: dict[str, Any], minute: int) -> bool:
    return bool(_opening(case, minute, minute + 1))


def _logged(case: dict[str, Any]) -> int:
    """When the request was logged (its time open starts there, not when the message arrived)."""
    return next(e["t"] for e in case["events"] if e["kind"] == "logged")


def time_open(case: dict[str, Any]) -> int:
    """Minutes the request has been open when the queue is checked, as the rules count them."""
    logged, checked = _logged(case), case["checked"]
    return sum(b - a for a, b in _counting(case, logged, checked, _waits(case)))


def _walk(case: dict[str, Any], start: int, counted: int, waits: list[tuple[int, int]], limit: int) -> int | None:
    """The minute after the ``counted``-th counting minute from ``start`` (None if not reached by ``limit``)."""
    for a, b in _counting(case, start, limit, waits):
        if b - a >= counted:
            return a + counted
        counted -= b - a
    return None


# --- answer -------------------------------------------------------------------------------------


def band(minutes: int, edges: list[int], style: str) -> int:
    """The index of the band ``minutes`` falls in: edges open the upper band (from) or close the lower (up_to)."""
    return sum(1 for e in edges if (minutes >= e if style == FROM else minutes > e))


def answer(case: dict[str, Any]) -> str:
    """The gold level key: the band of the request's time open."""
    rules = case["rules"]
    return level_key(band(time_open(case), rules["edges"], rules["style"]))


# --- case sampling ------------------------------------------------------------------------------


def _first_value(edge_minutes: int, style: str) -> int:
    """The first time open (in minutes) of the band an edge opens."""
    return edge_minutes if style == FROM else edge_minutes + 1


def _organisation(desk: Desk, book: NameBook, rng: random.Random) -> str:
    if desk.trades:
        return book.business(desk.trades)
    return f"{pick(rng, PLACE_WORDS)} {desk.suffix}"


def _try_case(rng: random.Random, level: int, kind: str, boundary: Boundary) -> dict[str, Any] | None:
    """One attempt at the case of the group's lower_1 member (time open: the last minute of the lower band)."""
    desk = pick(rng, DESKS)
    subject, detail, party = pick(rng, desk.requests)
    book = NameBook(rng)
    organisation = _organisation(desk, book, rng)
    agents = [book.person() for _ in range(2)]
    style = pick(rng, (FROM, UP_TO))
    edges = list(pick(rng, EDGES[level]))
    target = _first_value(edges[boundary.edge - 1], style) - 1
    hours = list(pick(rng, OPENING)) if level == 3 else None
    day = dt.date(2025, 1, 13) + dt.timedelta(days=rng.randrange(320))
    case: dict[str, Any] = {
        "domain": desk.domain, "organisation": organisation, "desk": desk.kind, "about": desk.about,
        "day": day.isoformat(),
        "rules": {"pauses": level >= 2, "hours": hours, "edges": edges, "style": style,
                  "names": [PRIORITIES[i][0] for i in SCALES[boundary.levels]]},
        "request": {"number": f"{desk.prefix}-{rng.randrange(10000, 99999)}", "subject": subject,
                    "requester": f"{book.person()} ({pick(rng, desk.roles)})", "channel": pick(rng, desk.channels)},
        "events": [], "checked": 0,
    }
    # When the request was logged (minutes after the first day's midnight).
    if level == 1:
        logged = rng.randrange(6 * 60, max(6 * 60 + 1, 23 * 60 - target - 60))
    elif level == 2:
        logged = rng.randrange(6 * 60, 23 * 60)
    else:
        assert hours is not None
        in_hours = kind == "logged" or rng.random() < 0.75
        logged = rng.randrange(hours[0] + 5, hours[1] - 5) if in_hours else pick(
            rng, (rng.randrange(hours[1] + 10, 23 * 60), rng.randrange(6 * 60, hours[0] - 10)))
        if in_hours and day.weekday() >= 5:
            return None
    channel = case["request"]["channel"]
    events: list[dict[str, Any]] = []
    if (level == 1 or rng.random() < 0.5) and _in_hours(case, logged):  # an agent logged a message that came in
        received = logged - rng.randrange(5, 91)
        events.append({"t": received, "kind": "received", "status": None, "text": ARRIVALS[channel]})
        events.append({"t": logged, "kind": "logged", "status": None, "text": f"request logged by {agents[1]}"})
    else:
        how = f"by {channel}" if channel in ("e-mail", "phone", "chat") else f"through {channel}"
        events.append({"t": logged, "kind": "logged", "status": None, "text": f"request logged, received {how}"})
    case["events"] = events
    limit = logged + 14 * 1440
    # The requester wait (levels 2-3) starts after some counted time and lasts from 20 minutes to two days.
    waits: list[tuple[int, int]] = []
    if level >= 2:
        before = rng.randrange(10, max(11, target - 10))
        start = _walk(case, logged, before, [], limit)
        if start is None:
            return None
        start += rng.randrange(0, 3)
        length = rng.randrange(20, 18 * 60) if level == 2 or rng.random() < 0.5 else rng.randrange(18 * 60, 2 * 1440)
        reply = start + length
        if kind == "reply" and not all(_in_hours(case, m) for m in range(reply - 3, reply + 3)):
            return None
        events.append({"t": start, "kind": "wait", "status": WAITING,
                       "text": f"{agents[0]} asked the requester for {detail}; status: {WAITING}"})
        events.append({"t": reply, "kind": "reply", "status": OPEN,
                       "text": f"the requester sent {detail}; status: {OPEN}"})
        waits.append((start, reply))
    checked = _walk(case, logged, target, waits, limit)
    if checked is None:
        return None
    if not _counts(case, checked, waits):  # the clock is stopped: the check may come later in the same stop
        later = checked
        while later < checked + 180 and not _counts(case, later, waits):
            later += 1
        checked = rng.randrange(checked, later + 1) if kind != "checked" else checked
    case["checked"] = checked
    # Notes and (level 3, half the cases) a wait for a third party, which does not stop the clock: as many
    # whatever the time open, or a short request would show fewer lines than a long one.
    if level == 3 and rng.random() < 0.5:
        stamps = sorted([*(e["t"] for e in events), checked])
        gaps = [(a, b) for a, b in pairwise(stamps) if b - a >= 20 and not any(wa <= a < wb for wa, wb in waits)]
        if not gaps:
            return None
        for _attempt in range(100):
            a, b = pick(rng, gaps)
            start = rng.randrange(a + 5, b - 9)
            end = rng.randrange(start + 3, b - 4)
            if _in_hours(case, start) and _in_hours(case, end):
                break
        else:
            return None
        events.append({"t": start, "kind": "third", "status": THIRD,
                       "text": f"{agents[1]} asked {party} for help; status: {THIRD}"})
        events.append({"t": end, "kind": "resume", "status": OPEN, "text": f"{party} answered; status: {OPEN}"})
    for _ in range(rng.randint(1, 2)):
        for _attempt in range(100):
            t = rng.randrange(logged + 5, max(logged + 6, checked - 4))
            if all(abs(t - e["t"]) > 4 for e in events) and not any(a <= t < b for a, b in waits):
                break
        else:
            return None
        by_agent = _in_hours(case, t) and rng.random() < 0.6
        note = pick(rng, AGENT_NOTES).format(agent=pick(rng, agents)) if by_agent else pick(rng, REQUESTER_NOTES)
        events.append({"t": t, "kind": "note", "status": None, "text": note})
    events.sort(key=lambda e: e["t"])
    # The decisive minute must count, with room for two steps either way, and no other event next to it.
    decisive = _decisive_time(case, kind)
    if any(abs(e["t"] - decisive) < 4 for e in events if e["t"] != decisive):
        return None
    if abs(checked - decisive) < 4 and kind != "checked":
        return None
    if kind == "reply":
        if not all(_in_hours(case, m) for m in range(decisive - 3, decisive + 3)):
            return None
    elif not all(_counts(case, m, waits) for m in range(decisive - 2, decisive + 2)):
        return None
    if time_open(case) != target or (level == 1 and _moment(case, checked).date() != day):
        return None
    return case


def _decisive_index(case: dict[str, Any], kind: str) -> int:
    """The index of the decisive event: the logging (kind ``logged``) or the requester's reply (``reply``)."""
    return next(i for i, e in enumerate(case["events"]) if e["kind"] == kind)


def _decisive_time(case: dict[str, Any], kind: str) -> int:
    return case["checked"] if kind == "checked" else case["events"][_decisive_index(case, kind)]["t"]


def _decisive_path(case: dict[str, Any], kind: str) -> str:
    return "checked" if kind == "checked" else f"events/{_decisive_index(case, kind)}/t"


def _shifted(case: dict[str, Any], kind: str, more: int) -> dict[str, Any]:
    """The case with the decisive time moved so that the request has been open ``more`` minutes longer."""
    if kind == "checked":
        return {**case, "checked": case["checked"] + more}
    index = _decisive_index(case, kind)
    events = [dict(e) for e in case["events"]]
    events[index]["t"] -= more  # logged earlier, or the requester replied earlier
    return {**case, "events": events}


# --- rendering ----------------------------------------------------------------------------------


def duration(minutes: int) -> str:
    """'30 minutes', '1 hour', '4 hours', '90 minutes'."""
    if minutes % 60:
        return f"{minutes} minutes"
    hours = minutes // 60
    return "1 hour" if hours == 1 else f"{hours} hours"


def _when(case: dict[str, Any], minute: int) -> str:
    moment = _moment(case, minute)
    return (f"{WEEKDAYS[moment.weekday()]} {moment.day} {MONTHS[moment.month - 1]} "
            f"{clock(moment.hour * 60 + moment.minute)}")


def priority_lines(rules: dict[str, Any]) -> list[str]:
    """One line per priority, lowest first, in the case's style."""
    edges, names, style = rules["edges"], rules["names"], rules["style"]
    lines = []
    for i, name in enumerate(names):
        if style == FROM:
            if i == 0:
                text = f"open for less than {duration(edges[0])}"
            elif i == len(names) - 1:
                text = f"open for {duration(edges[-1])} or more"
            else:
                text = f"open for {duration(edges[i - 1])} or more, but less than {duration(edges[i])}"
        elif i == 0:
            text = f"open for up to {duration(edges[0])}"
        elif i == len(names) - 1:
            text = f"open for more than {duration(edges[-1])}"
        else:
            text = f"open for more than {duration(edges[i - 1])}, up to {duration(edges[i])}"
        lines.append(f"  - {name}: {text}")
    return lines


def render(case: dict[str, Any]) -> str:
    rules = case["rules"]
    lines = [f"Request in the queue of {case['desk']} of {case['organisation']}, {case['about']}.", "",
             "Queue rules:",
             "- A request's priority depends only on how long it has been open.",
             "- Time open runs from the moment the request is logged (not from when a message arrived) to the "
             "moment the queue is checked."]
    if rules["hours"] is None:
        lines.append("- Every minute counts, nights and weekends included.")
    else:
        lines.append(f"- Only the desk's opening hours count: Monday to Friday, {clock(rules['hours'][0])} to "
                     f"{clock(rules['hours'][1])}. Time outside them does not count.")
    if rules["pauses"]:
        lines.append(f"- While a request's status is \"{WAITING}\", its clock is stopped; it runs again when the "
                     "status changes. No other status stops the clock.")
    lines.append("- Priorities:")
    lines += priority_lines(rules)
    request = case["request"]
    lines += ["", f"Request {request['number']}", f"Subject: {request['subject']}",
              f"Requested by: {request['requester']}", "History:"]
    lines += [f"- {_when(case, e['t'])} - {e['text']}" for e in case["events"]]
    moment = _moment(case, case["checked"])
    lines += ["", f"The queue is checked on {WEEKDAYS[moment.weekday()]} {moment.day} {MONTHS[moment.month - 1]} "
                  f"{moment.year} at {clock(moment.hour * 60 + moment.minute)}."]
    return "\n".join(lines)


# --- contrast group -----------------------------------------------------------------------------


def plan(config: SupportPriorityConfig) -> list[GroupPlan]:
    """Boundaries spread so every priority is gold about equally often; the decisive time taken in turn."""
    return scale_plans(config.levels, config.items_per_level, DECISIVE)


def build_group(plan: GroupPlan, rng: random.Random, config: SupportPriorityConfig) -> Group:
    boundary = Boundary.of(plan)
    for _ in range(500):
        case = _try_case(rng, plan.level, plan.variation, boundary)
        if case is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no case for level {plan.level} group {plan.index}")
    options = level_options([PRIORITIES[i] for i in SCALES[boundary.levels]])
    members = []
    for side, steps in boundary.members():
        more = offset(side, steps) + 1  # lower_1 is the sampled case
        member_case = _shifted(case, plan.variation, more)
        members.append(Member(case=member_case, state=render(member_case), answer=answer(member_case),
                              options=options, variation=variation(side, steps)))
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                 decisive=frozenset({_decisive_path(case, plan.variation)}))


# --- partial-information heuristics -------------------------------------------------------------

_WHEN = r"(\w+day) (\d{1,2}) (\w+) (\d\d):(\d\d)"
_EVENT = re.compile(rf"^- {_WHEN} - (.*)$")
_CHECK = re.compile(r"^The queue is checked on \w+day (\d{1,2}) (\w+) (\d{4}) at (\d\d):(\d\d)\.$")
_HOURS = re.compile(r"Monday to Friday, (\d\d):(\d\d) to (\d\d):(\d\d)")
_BAND = re.compile(r"^  - (\w+): open for (.*)$")
_SPAN = re.compile(r"(\d+) (minutes|hours?)")


def read_case(item: Item) -> dict[str, Any] | None:
    """The case as far as the rendered state gives it back (None when it does not parse)."""
    text = item.state if isinstance(item.state, str) else ""
    lines = text.splitlines()
    check = next((m for m in map(_CHECK.match, lines) if m), None)
    if check is None:
        return None
    year = int(check.group(3))
    stamps = []
    for m in filter(None, map(_EVENT.match, lines)):
        moment = dt.datetime(year, MONTHS.index(m.group(3)) + 1, int(m.group(2)), int(m.group(4)), int(m.group(5)))
        status = re.search(r"; status: (.+)$", m.group(6))
        kind = "logged" if m.group(6).startswith("request logged") else "other"
        stamps.append((moment, status.group(1) if status else None, kind))
    if not stamps:
        return None
    first = dt.datetime.combine(stamps[0][0].date(), dt.time())
    checked = dt.datetime(year, MONTHS.index(check.group(2)) + 1, int(check.group(1)), int(check.group(4)),
                          int(check.group(5)))
    hours = _HOURS.search(text)
    bands = [m for m in map(_BAND.match, lines) if m]
    edges = []
    for m in bands[1:]:
        span = _SPAN.search(m.group(2))
        if span is None:
            return None
        edges.append(int(span.group(1)) * (1 if span.group(2) == "minutes" else 60))
    return {
        "day": first.date().isoformat(),
        "rules": {"pauses": "No other status stops the clock" in text,
                  "hours": [int(hours.group(1)) * 60 + int(hours.group(2)),
                            int(hours.group(3)) * 60 + int(hours.group(4))] if hours else None,
                  "edges": edges, "style": FROM if "or more" in bands[-1].group(2) else UP_TO},
        "events": [{"t": int((t - first).total_seconds()) // 60, "status": s, "kind": k} for t, s, k in stamps],
        "checked": int((checked - first).total_seconds()) // 60,
    }


def _one_hot(item: Item, level: int) -> dict[str, float]:
    return {key: float(key == level_key(level)) for key in item.option_keys}


def heuristic_clock_time(item: Item) -> dict[str, float]:
    """Take time open as the plain time from the first line of the history to the check: no stopped clock, no
    opening hours, and from the message's arrival when it came in before it was logged."""
    case = read_case(item)
    if case is None:
        return {key: 1 / len(item.options) for key in item.option_keys}
    rules = case["rules"]
    return _one_hot(item, band(case["checked"] - case["events"][0]["t"], rules["edges"], rules["style"]))


def heuristic_edge_other_side(item: Item) -> dict[str, float]:
    """Count time open correctly but put a time exactly on an edge into the other band."""
    case = read_case(item)
    if case is None:
        return {key: 1 / len(item.options) for key in item.option_keys}
    rules = case["rules"]
    other = UP_TO if rules["style"] == FROM else FROM
    return _one_hot(item, band(time_open(case), rules["edges"], other))


register(FamilySpec(
    name=NAME,
    layer="A",
    version=VERSION,
    question=QUESTION,
    config_type=SupportPriorityConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={"clock_time": heuristic_clock_time, "edge_other_side": heuristic_edge_other_side},
))
