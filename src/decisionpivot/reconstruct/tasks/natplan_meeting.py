"""natplan_meeting (layer G): which candidate plan meets the most friends? (NATURAL PLAN meeting planning).

Official file: ``meeting_planning.json`` (google-deepmind/natural-plan ``data/``) - a JSON object
``{"meeting_planning_example_N": {"num_people", "constraints", "dist_matrix", "prompt_0shot",
"prompt_5shot", "golden_plan", "pred_5shot_pro"}, ...}``. ``constraints[0]`` is ``[start location,
start time]``; every further entry is ``[name, location, "H:MMAM to H:MMPM", minutes]``;
``dist_matrix[a][b]`` is the travel time in minutes; ``golden_plan`` is a list of steps ("You start
at ...", "You travel to X in N minutes and arrive at T.", "You wait until T.", "You meet P for N
minutes from T to T."). The official evaluator replays a plan step by step and counts the valid
meetings, stopping at the first invalid step; a prediction is correct when its count equals the
golden plan's.

Candidate construction: the golden plan is read as a route (the sequence of (location, person)
meetings). Perturbed routes are built deterministically - drop one meeting, swap two meetings,
replace one meeting by a person the golden plan does not meet (at that person's location) - and
every route, the golden one included, is rendered in the official step wording with times replayed
from ``dist_matrix`` (waiting until the person's window opens when arriving early). A perturbation
is kept only if the official replay rule gives it fewer valid meetings than the golden plan, so the
golden plan is the unique best option. Up to ``CANDIDATES - 1`` kept perturbations are drawn with a
per-item seed derived from the card's sampling seed and shuffled with the golden plan into options
A, B, ... Examples whose golden plan meets nobody admit no worse plan and are skipped. The state is
``prompt_0shot`` verbatim; the official golden plan text is kept in ``extra``.
"""

from __future__ import annotations

import datetime
import random
import string
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item, Option
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "meeting_planning.json"
CANDIDATES = 4
Route = list[tuple[str, str]]


def _time(text: str) -> datetime.datetime:
    return datetime.datetime.strptime(text.strip(), "%I:%M%p")


def _fmt(t: datetime.datetime) -> str:
    return f"{t.hour % 12 or 12}:{t.minute:02d}{'AM' if t.hour < 12 else 'PM'}"


def _people(constraints: list[Any]) -> dict[str, dict[str, Any]]:
    people = {}
    for name, location, window, minutes in constraints[1:]:
        start, end = window.split("to")
        people[name] = {"location": location, "start": _time(start), "end": _time(end), "minutes": int(minutes)}
    return people


def score(plan: list[str], people: dict[str, dict[str, Any]], start: str, t0: str,
          dist: dict[str, dict[str, int]]) -> int:
    """Valid meetings of a text plan under the official replay rule (stops at the first invalid step)."""
    met: set[str] = set()
    count, here, now = 0, start, _time(t0)
    for step in plan:
        step = step.strip()
        if step.startswith("You start"):
            continue
        if step.startswith("You travel"):
            target = step.split("travel to ")[1].split(" in")[0].strip()
            if target not in dist.get(here, {}):
                break
            now += datetime.timedelta(minutes=dist[here][target])
            here = target
        elif step.startswith("You wait"):
            until = _time(step.split("wait until ")[1].split(".")[0])
            if until <= now:
                break
            now = until
        elif step.startswith("You meet"):
            person = step.split("meet ")[1].split(" for")[0].strip()
            info = people.get(person)
            if info is None or person in met:
                break
            met.add(person)
            end = now + datetime.timedelta(minutes=info["minutes"])
            if here != info["location"] or now < info["start"] or end > info["end"]:
                break
            count, now = count + 1, end
        else:
            break
    return count


def render(route: Route, people: dict[str, dict[str, Any]], start: str, t0: str,
           dist: dict[str, dict[str, int]]) -> list[str]:
    """A route in the official step wording, with times replayed from the distance matrix."""
    here, now = start, _time(t0)
    steps = [f"You start at {start} at {_fmt(now)}."]
    for location, person in route:
        if location != here:
            minutes = dist[here][location]
            now += datetime.timedelta(minutes=minutes)
            steps.append(f"You travel to {location} in {minutes} minutes and arrive at {_fmt(now)}.")
            here = location
        info = people[person]
        if now < info["start"]:
            now = info["start"]
            steps.append(f"You wait until {_fmt(now)}.")
        end = now + datetime.timedelta(minutes=info["minutes"])
        steps.append(f"You meet {person} for {info['minutes']} minutes from {_fmt(now)} to {_fmt(end)}.")
        now = end
    return steps


def _route(plan: list[str], people: dict[str, dict[str, Any]], start: str) -> Route:
    route, here = [], start
    for step in plan:
        if step.startswith("You travel"):
            here = step.split("travel to ")[1].split(" in")[0].strip()
        elif step.startswith("You meet"):
            person = step.split("meet ")[1].split(" for")[0].strip()
            if person not in people:
                raise KeyError(person)
            route.append((here, person))
    return route


def _perturbations(route: Route, people: dict[str, dict[str, Any]]) -> list[Route]:
    out = [route[:k] + route[k + 1:] for k in range(len(route))]
    for j in range(len(route)):
        for k in range(j + 1, len(route)):
            swapped = list(route)
            swapped[j], swapped[k] = swapped[k], swapped[j]
            out.append(swapped)
    unmet = [p for p in people if p not in {person for _, person in route}]
    for k in range(len(route)):
        for person in unmet:
            out.append([*route[:k], (people[person]["location"], person), *route[k + 1:]])
    return out


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    data = source.json(FILE)
    if not isinstance(data, dict):
        raise SourceError(f"{source.path(FILE)}: expected a JSON object of examples")
    items = []
    for key, record in data.items():
        where = f"{source.path(FILE)}: example {key!r}"
        try:
            start, t0 = record["constraints"][0]
            people = _people(record["constraints"])
            dist = record["dist_matrix"]
            golden = [str(s).strip() for s in record["golden_plan"]]
            gold_score = score(golden, people, start, t0, dist)
            route = _route(golden, people, start)
            gold_text = render(route, people, start, t0, dist)
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            raise SourceError(f"{where}: malformed constraints, distances or golden plan ({exc!r})") from None
        if gold_score == 0:
            continue
        seen = {" ".join(gold_text)}
        worse: list[list[str]] = []
        for candidate in _perturbations(route, people):
            text = render(candidate, people, start, t0, dist)
            joined = " ".join(text)
            if joined not in seen and score(text, people, start, t0, dist) < gold_score:
                seen.add(joined)
                worse.append(text)
        rng = random.Random(stable_seed(card.id, card.seed, key))
        plans = [gold_text, *rng.sample(worse, min(CANDIDATES - 1, len(worse)))]
        order = list(range(len(plans)))
        rng.shuffle(order)
        options = [Option(string.ascii_uppercase[k], " ".join(plans[i])) for k, i in enumerate(order)]
        answer = string.ascii_uppercase[order.index(0)]
        items.append(reference_item(card, {"prompt": record["prompt_0shot"]}, answer, options=options,
                                    domain=f"{record.get('num_people')} people",
                                    extra={"source_id": key, "golden_plan": golden, "golden_meetings": gold_score}))
    return items
