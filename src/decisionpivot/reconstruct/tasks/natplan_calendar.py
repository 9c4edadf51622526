"""natplan_calendar (layer G): which candidate slot is the meeting time? (NATURAL PLAN calendar scheduling).

Official file: ``calendar_scheduling.json`` (google-deepmind/natural-plan ``data/``) - a JSON object
``{"calendar_scheduling_example_N": {"num_people", "num_days", "duration", "prompt_0shot",
"prompt_5shot", "golden_plan", "pred_5shot_pro"}, ...}``. The golden plan reads
``"Here is the proposed time: Monday, 14:30 - 15:30 "``; the official evaluator compares
(day, start, end) parsed with the pattern ``Day, H:MM - H:MM``.

Candidate construction: the task sentence of ``prompt_0shot`` (the last ``TASK:`` section) states
the work hours and days (``between the work hours of 9:00 to 17:00 on Monday, Tuesday or
Wednesday``). The meeting length is the golden slot's length. Every slot of that length starting
on the half-hour grid inside the work hours on one of those days is a candidate; the item offers the
golden slot plus up to ``CANDIDATES - 1`` other grid slots drawn with a per-item seed derived from
the card's sampling seed, listed chronologically (day order, then start) as options A, B, ... The
answer is the golden slot (exact match, as the official solve rate). Other candidates may satisfy
the hard constraints but not the stated preference; the official metric counts them wrong too.
The state is ``prompt_0shot`` verbatim; ``pred_5shot_pro`` (a model answer) is not used. Chance is
the mean of 1/n_i.
"""

from __future__ import annotations

import random
import re
import string
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item, Option
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

FILE = "calendar_scheduling.json"
CANDIDATES = 8
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
SLOT = re.compile(r"([A-Za-z]+), ([0-9]+):([0-9]+) - ([0-9]+):([0-9]+)")
HOURS = re.compile(r"work hours of ([0-9]+):([0-9]+) to ([0-9]+):([0-9]+) on ([^.]*)")


def _clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def _slot_text(day: str, start: int, end: int) -> str:
    return f"{day}, {_clock(start)} - {_clock(end)}"


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    data = source.json(FILE)
    if not isinstance(data, dict):
        raise SourceError(f"{source.path(FILE)}: expected a JSON object of examples")
    items = []
    for key, record in data.items():
        where = f"{source.path(FILE)}: example {key!r}"
        gold_match = SLOT.search(str(record.get("golden_plan", "")))
        if gold_match is None:
            raise SourceError(f"{where}: golden_plan has no 'Day, H:MM - H:MM' slot")
        prompt = record.get("prompt_0shot")
        if not isinstance(prompt, str) or "TASK:" not in prompt:
            raise SourceError(f"{where}: prompt_0shot lacks a TASK section")
        hours = HOURS.search(prompt[prompt.rfind("TASK:"):])
        if hours is None:
            raise SourceError(f"{where}: the task sentence states no work hours")
        day, sh, sm, eh, em = gold_match.groups()
        gold = (day, int(sh) * 60 + int(sm), int(eh) * 60 + int(em))
        days = [d for d in DAYS if re.search(rf"\b{d}\b", hours.group(5))]
        if day not in days or gold[2] <= gold[1]:
            raise SourceError(f"{where}: golden slot {gold_match.group(0)!r} is outside the stated days or empty")
        work_start = int(hours.group(1)) * 60 + int(hours.group(2))
        work_end = int(hours.group(3)) * 60 + int(hours.group(4))
        length = gold[2] - gold[1]
        grid = [(d, s, s + length) for d in days for s in range(work_start, work_end - length + 1, 30)]
        others = [slot for slot in grid if slot != gold]
        rng = random.Random(stable_seed(card.id, card.seed, key))
        chosen = [gold, *rng.sample(others, min(CANDIDATES - 1, len(others)))]
        chosen.sort(key=lambda s: (DAYS.index(s[0]), s[1]))
        options = [Option(string.ascii_uppercase[k], _slot_text(*s)) for k, s in enumerate(chosen)]
        answer = string.ascii_uppercase[chosen.index(gold)]
        items.append(reference_item(card, {"prompt": prompt}, answer, options=options,
                                    domain=f"{record.get('num_people')} people, {record.get('num_days')} days",
                                    extra={"source_id": key, "golden_plan": record["golden_plan"]}))
    return items
