"""log_claim (layer C): is the claim correct for this log?

Story. The state is a one-day event log of an invented platform: reading notes (one line = one
event; time HH:MM:SS, service, level, message; levels DEBUG/INFO/WARN/ERROR; a time window includes
BOTH of its edges; words inside a message change neither the service nor the level), then 30, 60 or
90 log lines in time order, then a claim such as "Between 09:14:07 and 11:02:45, the billing
service logged exactly 4 ERROR events."

Groups. Both members show the same log; only the claim differs, in one field of a true claim:

* ``count_1`` / ``count_2``: the claimed count differs by one / two. The pair of counts is drawn as
  {x, x + d} and either one is the true count (half the pairs claim one more than the truth in the
  negative, half one less), so yes and no claims have the same count distribution;
* ``window``: one edge of the window moves by one second. An event of the claimed service and level
  sits exactly on the edge in one member (inside, edges are inclusive) and one second outside it in
  the other; in half of these pairs the on-edge member is the true one, in the other half the
  off-edge member is;
* ``service``: the claim names another service whose count in the window differs; which of the two
  services is the true one is random, and both get the same kinds of near misses.

Near misses appear in the shared log: events of the claimed service at other levels inside the
window, other services at the claimed level inside the window, matching events a few seconds (often
one second) outside the window and far outside it, matching events exactly on an edge (inclusive;
in 85% of cases, so that reading the edges as exclusive fails on most pairs), messages that mention
another service or the word "error" at another level.

Levels: 30, 60, 90 log lines with 4, 6, 8 services. Claimed counts come from the same range (1-9)
at every level, so the log size does not predict them. 300 pairs, 75 per variation (25 per level).

Version history:
* 1.0 - first release.
* 1.1 - text revision for core 1.2: service names are English words ("login", "releases",
  "identity", "telemetry", "catalogue", "alerts" instead of "auth", "api", "kyc", "scada", "catalog",
  "notify"), the ERROR message "unhandled exception" reads "uncaught exception", and the intro no
  longer glues the domain's business phrase before "platform"/"systems" ("the X software services
  systems"), and organisation names end in words that fit every domain (no "X Logistics, a software
  services firm"). The rules that draw the log, the claim and the answer are unchanged; the new
  organisation name uses the random stream differently, so what is drawn after it (day, line layout,
  claim phrasing, member order) differs in some items of a seed.
* 1.2 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.formatting import clock_seconds, weekday_date
from decisionpivot.generate.common.names import NameForge, drawn_organisation
from decisionpivot.generate.common.wording import a_or_an, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member, yes_no
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "log_claim"
VERSION = "1.2"
QUESTION = "Is the claim correct for this log?"
OPTIONS = (
    Option("yes", "the claim is correct for this log"),
    Option("no", "the claim is not correct for this log"),
)
VARIATIONS = ("count_1", "count_2", "window", "service")
LEVEL_NAMES = ("DEBUG", "INFO", "WARN", "ERROR")
LEVEL_WEIGHTS = (0.2, 0.45, 0.2, 0.15)

SERVICES = {
    "logistics": ("dispatch", "tracking", "customs", "fleet", "billing", "routing", "gateway", "labels",
                  "scheduler", "alerts"),
    "healthcare": ("admissions", "pharmacy", "lab", "imaging", "billing", "scheduler", "records", "gateway",
                   "alerts", "triage"),
    "retail": ("checkout", "inventory", "pricing", "returns", "loyalty", "billing", "search", "gateway",
               "alerts", "catalogue"),
    "software": ("login", "releases", "search", "builds", "billing", "queue", "storage", "gateway", "alerts",
                 "scheduler"),
    "finance": ("payments", "ledger", "fraud", "statements", "identity", "billing", "gateway", "alerts", "risk",
                "treasury"),
    "education": ("enrolment", "grading", "timetable", "library", "billing", "portal", "gateway", "alerts",
                  "exams", "records"),
    "energy": ("metering", "outages", "tariffs", "billing", "telemetry", "dispatch", "gateway", "alerts",
               "forecast", "trading"),
    "hospitality": ("bookings", "housekeeping", "kitchen", "billing", "concierge", "events", "gateway",
                    "alerts", "keys", "loyalty"),
}
MESSAGES = {
    "DEBUG": ("retrying connection to {host} (attempt {k})", "payload of {n} bytes accepted",
              "lock {id} acquired", "query plan cached for {host}", "error handler registered for {svc}",
              "worker {k} idle", "heartbeat from {host}"),
    "INFO": ("request {id} completed in {ms} ms", "job {id} started", "cache refreshed with {n} entries",
             "session {id} opened", "batch {id} processed, {n} records", "health check passed",
             "configuration reloaded", "forwarded {n} records to {svc}",
             "recovered after an error in job {id}", "scheduled run {id} finished"),
    "WARN": ("slow response from {host}: {ms} ms", "queue depth {n} above soft limit",
             "retry {k} for job {id}", "certificate of {host} expires in {k} days",
             "error rate at {k}% for calls to {svc}", "disk usage at {pct}% on {host}"),
    "ERROR": ("job {id} failed: timeout", "connection to {host} refused", "write to {host} failed",
              "uncaught exception in worker {k}", "validation failed for record {id}",
              "call to {svc} returned status 500"),
}
INTRO = (
    "Event log of the platform run by {org} ({business}) for {date}.",
    "Combined service log, {date}: {org} ({business}).",
    "One day of events from the systems of {org}, {a_business} firm ({date}).",
)
NOTE_LINES = (
    ("Each line is one event: time (HH:MM:SS, 24-hour clock), service, level, message.",
     "Every line records a single event with its time (HH:MM:SS), its service, its level and a message."),
    ("All times are from the same day and time zone, and the lines are in time order.",
     "The log covers one day in one time zone; lines are sorted by time."),
    ("The levels are DEBUG, INFO, WARN and ERROR; a claim about one level counts only events of exactly "
     "that level.",
     "Each event has exactly one level (DEBUG, INFO, WARN or ERROR), and a count of one level includes no "
     "other level."),
    ("A time window includes both of its edges: an event logged exactly at the start time or exactly at "
     "the end time is inside the window.",
     "Both ends of a time window are inclusive: events stamped exactly at the first or at the last time "
     "of the window count as inside it."),
    ("The service and the level are the fields of the line; a service name or a word such as \"error\" "
     "inside the message does not change them.",
     "Only the service and level fields count: words in the message (another service's name, \"error\", "
     "...) do not change an event's service or level."),
)
CLAIMS = (
    "Between {start} and {end}, the {service} service logged exactly {count} {level} {events}.",
    "From {start} to {end}, exactly {count} {level} {events} {were} logged by the {service} service.",
    "The {service} service wrote exactly {count} {events} at level {level} between {start} and {end}.",
)
ORG_KINDS = ("Group", "Partners", "Holdings", "Cooperative", "Works")
"""Organisation name endings that fit every domain (the shared list has "Logistics", "Foundry", "Studio",
which read oddly next to "a hotels and events firm")."""
LINE_STYLES = ("plain", "bracket", "pipe")
EDGE_EVENT_SHARE = 0.85
"""How often a claimed service with events in the window has one exactly on a window edge (counted,
edges are inclusive), so that reading the edges as exclusive fails on most pairs."""


@dataclass(frozen=True)
class LogClaimConfig(FamilyConfig):
    """Sizes of the logs per level (index 0 = level 1)."""

    lines: tuple[int, int, int] = (30, 60, 90)
    """Log lines."""
    services: tuple[int, int, int] = (4, 6, 8)
    """Services that write to the log."""
    max_count: int = 9
    """Largest claimed count (claimed counts run from 1 to this at every level)."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        if (self.items_per_level // 2) % len(VARIATIONS):
            raise ValueError(f"pairs per level must split evenly over {len(VARIATIONS)} variation types")
        if self.max_count < 3:
            raise ValueError(f"max_count must be at least 3 (count_2 pairs need room), got {self.max_count}")
        for level, (lines, services) in enumerate(zip(self.lines, self.services, strict=True), start=1):
            if services < 3 or services > min(len(s) for s in SERVICES.values()):
                raise ValueError(f"level {level}: services must be 3-10, got {services}")
            if lines < 2 * self.max_count + 12:
                raise ValueError(f"level {level}: {lines} lines cannot hold {self.max_count} matching events "
                                 "for two services with their near misses")


# --- case sampling -----------------------------------------------------------------------------


def _message(rng: random.Random, level: str, services: list[str], own: str, hosts: list[str]) -> str:
    template = pick(rng, MESSAGES[level])
    return template.format(
        host=pick(rng, hosts), k=rng.randrange(2, 9), n=rng.randrange(10, 5000),
        id=rng.randrange(1000, 99999), ms=rng.randrange(120, 9000), pct=rng.randrange(81, 99),
        svc=pick(rng, [s for s in services if s != own]),
    )


def _sample_case(rng: random.Random, level: int, variation: str, params: dict[str, Any],
                 config: LogClaimConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """The shared log and the two claims (true first). Returns the case of the true claim and the
    false claim's changed field."""
    i = level - 1
    domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    services = rng.sample(SERVICES[domain.name], config.services[i])
    hosts = [f"{forge.word()}-{rng.randrange(1, 10)}" for _ in range(4)]
    claim_level = pick(rng, LEVEL_NAMES)
    service, other_service = services[0], services[1]
    top = config.max_count

    # The day and the window (seconds after midnight).
    day_start = 5 * 3600 + rng.randrange(2 * 3600)
    day_end = 20 * 3600 + rng.randrange(3 * 3600 + 1800)
    length = rng.randrange(75 * 60, 6 * 3600)
    start = rng.randrange(day_start + 1800, day_end - length - 1800)
    end = start + length

    # Counts per variation (true count of the claimed service inside the window, and so on).
    edge = ""
    true_count = 0
    other_count = 0
    false_field: dict[str, Any] = {}
    claim_count: int
    if variation in ("count_1", "count_2"):
        d = 1 if variation == "count_1" else 2
        x = rng.randint(1, top - d)
        true_count, wrong = (x, x + d) if params["sign"] > 0 else (x + d, x)
        claim_count = true_count
        false_field = {"count": wrong}
    elif variation == "service":
        claim_count = rng.randint(1, top)
        nearby = range(max(0, claim_count - 3), min(top, claim_count + 3) + 1)
        other_count = pick(rng, [c for c in nearby if c != claim_count])
        true_count = claim_count
        false_field = {"service": other_service}
    else:
        edge = params["edge"]
        claim_count = rng.randint(1, top)
        # inside: matching events strictly inside both windows; the pivot event adds one when on the edge
        true_count = claim_count - 1 if params["on_edge_true"] else claim_count

    used: set[int] = set()
    events: list[dict[str, Any]] = []

    def add(t: int, svc: str, lvl: str) -> None:
        used.add(t)
        message = _message(rng, lvl, services, svc, hosts)
        events.append({"t": t, "service": svc, "level": lvl, "message": message})

    def free(lo: int, hi: int) -> int:
        for _ in range(1000):
            t = rng.randint(lo, hi)
            if t not in used and t - 1 not in used and t + 1 not in used:
                return t
        raise RuntimeError("no free second in the window")

    # The window variation: pivot event exactly on one edge of the "on" window (the other window
    # starts one second later or ends one second earlier, so the same event is just outside it).
    claim_window: dict[str, int] = {}
    if variation == "window":
        pivot = start if edge == "start" else end
        used.update((pivot - 1, pivot + 1))
        add(pivot, service, claim_level)
        on = {edge: pivot}
        off = {edge: pivot + 1 if edge == "start" else pivot - 1}
        if params["on_edge_true"]:
            claim_window, false_field = on, off
        else:
            claim_window, false_field = off, on
    relevant = [service, other_service] if variation == "service" else [service]
    other_levels = [lv for lv in LEVEL_NAMES if lv != claim_level]
    bystanders = [s for s in services if s not in relevant]
    inside_lo, inside_hi = start + 2, end - 2

    # Matching events inside the window; sometimes one sits exactly on an edge (edges are inclusive).
    counts = {service: true_count}
    if variation == "service":
        counts[other_service] = other_count
    for svc, n in counts.items():
        placed = 0
        if n and rng.random() < EDGE_EVENT_SHARE:
            free_edges = [t for t in (start, end) if not {t - 1, t, t + 1} & used]
            if free_edges:
                add(pick(rng, free_edges), svc, claim_level)
                used.update((events[-1]["t"] - 1, events[-1]["t"] + 1))
                placed = 1
        for _ in range(n - placed):
            add(free(inside_lo, inside_hi), svc, claim_level)

    # Near misses: same service at other levels inside, other services at the level inside, the same
    # service and level just outside (often by one second) and far outside the window.
    budget = config.lines[i] - len(events) - 4
    near: list[tuple[int, str, str]] = []
    for svc in relevant:
        for _ in range(rng.randint(1, 3)):
            near.append((free(inside_lo, inside_hi), svc, pick(rng, other_levels)))
        gap = 1 if rng.random() < 0.4 else rng.randint(2, 90)
        side = pick(rng, ("before", "after"))
        t = start - gap if side == "before" else end + gap
        if variation == "window" and side == ("before" if edge == "start" else "after"):
            t = t - 1 if side == "before" else t + 1  # keep clear of the pivot's one-second neighbour
        if t not in used:
            near.append((t, svc, claim_level))
            used.add(t)
        for _ in range(rng.randint(1, 2)):
            lo, hi = pick(rng, ((day_start, start - 300), (end + 300, day_end)))
            near.append((free(lo, hi), svc, claim_level))
    for _ in range(rng.randint(1, 3)):
        near.append((free(inside_lo, inside_hi), pick(rng, bystanders), claim_level))
    rng.shuffle(near)
    for t, svc, lvl in near[:max(budget, 0)]:
        add(t, svc, lvl)

    # Filler: anything, except the claimed level of a relevant service inside the (widest) window.
    while len(events) < config.lines[i]:
        t = rng.randint(day_start, day_end)
        if t in used:
            continue
        svc = pick(rng, services)
        lvl = rng.choices(LEVEL_NAMES, weights=LEVEL_WEIGHTS)[0]
        if start - 1 <= t <= end + 1 and svc in relevant and lvl == claim_level:
            continue
        add(t, svc, lvl)
    events.sort(key=lambda e: e["t"])

    claim = {"start": start, "end": end, "service": service, "level": claim_level, "count": claim_count}
    claim.update(claim_window)
    org = forge.claim(drawn_organisation(rng, domain.name, ORG_KINDS))
    day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(330))
    case = {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(org=org, business=domain.business, a_business=a_or_an(domain.business),
                                          date=weekday_date(day)),
        "notes": [pick(rng, variants) for variants in NOTE_LINES],
        "style": pick(rng, LINE_STYLES),
        "events": events,
        "claim": claim,
        "claim_template": pick(rng, CLAIMS),
    }
    return case, false_field


# --- answer ------------------------------------------------------------------------------------


def count_in_window(case: dict[str, Any], service: str | None = None) -> int:
    """Events of the claimed (or given) service at the claimed level inside the window, edges included."""
    c = case["claim"]
    svc = c["service"] if service is None else service
    return sum(1 for e in case["events"]
               if e["service"] == svc and e["level"] == c["level"] and c["start"] <= e["t"] <= c["end"])


def answer(case: dict[str, Any]) -> str:
    """yes when the claimed count equals the number of matching events in the inclusive window."""
    return "yes" if count_in_window(case) == case["claim"]["count"] else "no"


# --- rendering ---------------------------------------------------------------------------------


def _line(style: str, event: dict[str, Any]) -> str:
    t = clock_seconds(event["t"])
    if style == "plain":
        return f"{t} {event['service']} {event['level']} {event['message']}"
    if style == "bracket":
        return f"[{t}] {event['level']} {event['service']}: {event['message']}"
    return f"{t} | {event['service']} | {event['level']} | {event['message']}"


def render_claim(case: dict[str, Any]) -> str:
    c = case["claim"]
    one = c["count"] == 1
    return case["claim_template"].format(
        start=clock_seconds(c["start"]), end=clock_seconds(c["end"]), service=c["service"], level=c["level"],
        count=c["count"], events="event" if one else "events", were="was" if one else "were",
    )


def render(case: dict[str, Any]) -> str:
    lines = [case["intro"], "", "Reading the log:"]
    lines += [f"- {note}" for note in case["notes"]]
    lines += ["", "Log:"]
    lines += [_line(case["style"], e) for e in case["events"]]
    lines += ["", f"Claim: {render_claim(case)}"]
    return "\n".join(lines)


# --- contrast group ----------------------------------------------------------------------------


def plan(config: LogClaimConfig) -> list[GroupPlan]:
    """25 pairs per variation and level (for 200 items a level); signs, edges and which window member
    is true alternate over the family so each splits evenly."""
    pairs = config.items_per_level // 2
    seen = dict.fromkeys(VARIATIONS, 0)
    plans = []
    for level in (1, 2, 3):
        for index in range(pairs):
            variation = VARIATIONS[index % len(VARIATIONS)]
            k = seen[variation]
            seen[variation] += 1
            params = {"sign": 1 if k % 2 == 0 else -1, "on_edge_true": k % 2 == 0,
                      "edge": "start" if (k // 2) % 2 == 0 else "end"}
            plans.append(GroupPlan(level=level, index=index, variation=variation, params=params))
    return plans


def build_group(plan: GroupPlan, rng: random.Random, config: LogClaimConfig) -> Group:
    case, false_field = _sample_case(rng, plan.level, plan.variation, dict(plan.params), config)
    false_case = {**case, "claim": {**case["claim"], **false_field}}
    members = [
        Member(case=case, state=render(case), answer=answer(case), options=OPTIONS, variation=None),
        Member(case=false_case, state=render(false_case), answer=answer(false_case), options=OPTIONS,
               variation=plan.variation),
    ]
    if members[0].answer != "yes" or members[1].answer != "no":
        raise RuntimeError(f"{NAME}: pair answers came out {members[0].answer}/{members[1].answer}")
    expected_lines = config.lines[plan.level - 1]
    if len(case["events"]) != expected_lines:
        raise RuntimeError(f"{NAME}: {len(case['events'])} log lines, expected {expected_lines}")
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                 decisive=frozenset(f"claim/{key}" for key in false_field))


# --- partial-information heuristics -------------------------------------------------------------


def _parse(item: Item) -> tuple[list[tuple[int, str, str]], dict[str, Any]] | None:
    """(time, service, level) per log line and the claim fields, read back from the rendered state."""
    text = item.state if isinstance(item.state, str) else ""
    events = []
    for line in text.splitlines():
        m = (re.match(r"^\[?(\d\d):(\d\d):(\d\d)\]? (?:\| )?(\S+?):? (?:\| )?(\S+?):? ", line))
        if not m:
            continue
        a, b = m.group(4), m.group(5)
        lvl, svc = (a, b) if a in LEVEL_NAMES else (b, a)
        if lvl not in LEVEL_NAMES:
            continue
        events.append((int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)), svc, lvl))
    claim_line = next((ln for ln in text.splitlines() if ln.startswith("Claim: ")), "")
    times = re.findall(r"(\d\d):(\d\d):(\d\d)", claim_line)
    count = re.search(r"exactly (\d+)", claim_line)
    level = re.search(r"\b(DEBUG|INFO|WARN|ERROR)\b", claim_line)
    service = re.search(r"the (\S+) service", claim_line)
    if len(times) != 2 or not (count and level and service):
        return None
    start, end = (int(h) * 3600 + int(m) * 60 + int(s) for h, m, s in times)
    return events, {"start": start, "end": end, "count": int(count.group(1)), "level": level.group(1),
                    "service": service.group(1)}



def heuristic_ignore_window(item: Item) -> dict[str, float]:
    """Count the service's events of the level over the whole day, ignoring the window."""
    parsed = _parse(item)
    if parsed is None:
        return {"yes": 0.5, "no": 0.5}
    events, c = parsed
    return yes_no(sum(1 for _, s, lv in events if s == c["service"] and lv == c["level"]) == c["count"])


def heuristic_ignore_level(item: Item) -> dict[str, float]:
    """Count the service's events in the window at any level."""
    parsed = _parse(item)
    if parsed is None:
        return {"yes": 0.5, "no": 0.5}
    events, c = parsed
    return yes_no(sum(1 for t, s, _ in events if s == c["service"] and c["start"] <= t <= c["end"])
                    == c["count"])


def heuristic_exclusive_edges(item: Item) -> dict[str, float]:
    """Count correctly but treat the window edges as exclusive."""
    parsed = _parse(item)
    if parsed is None:
        return {"yes": 0.5, "no": 0.5}
    events, c = parsed
    return yes_no(sum(1 for t, s, lv in events if s == c["service"] and lv == c["level"]
                        and c["start"] < t < c["end"]) == c["count"])


register(FamilySpec(
    name=NAME,
    layer="C",
    version=VERSION,
    question=QUESTION,
    config_type=LogClaimConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=lambda plan: ("no", "yes"),
    heuristics={"ignore_window": heuristic_ignore_window, "ignore_level": heuristic_ignore_level,
                "exclusive_edges": heuristic_exclusive_edges},
))
