"""Independent solver for triage_order: read the board, apply the numbered rules, count to the position.

Reads only the rendered state. It recognises each ordering rule by what it says (class order, moves
up after waiting more than N minutes, a further move, key accounts, cases awaiting reply, the
deadline window, cases on hold, tie-breaks), reads every case from whichever layout the board uses
(table, list or blocks), and serves the cases: first those whose deadline is within the window, by
deadline; then by adjusted class, arrival time and ticket number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from decisionpivot.items import Item

FAMILY = "triage_order"

_TIME = r"(\d{2}):(\d{2})"
_NOW = re.compile(rf"(?:Current time:|The time now is|It is now) {_TIME}\.$")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")


@dataclass
class _Case:
    ticket: str
    cls: str
    arrived: int
    deadline: int | None
    account: str
    status: str


@dataclass
class _Rules:
    classes: list[str]
    up_after: list[int]
    window: int | None = None
    key_up: bool = False
    awaiting_down: bool = False
    skip_hold: bool = False


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


_CLASS_ORDER = re.compile(r"(?:by class|to last|this order): (.+?)[.;]")


def _class_list(text: str) -> list[str]:
    m = _CLASS_ORDER.search(text)
    if not m:
        raise ValueError(f"no class order in {text!r}")
    body = m.group(1)
    parts = body.split(" > ") if " > " in body else body.split(", then ")
    return [p.replace(" first", "").strip() for p in parts]


_NUMBERED = re.compile(r"^\d+\. ")
_MINUTES = re.compile(r"(\d+) minutes")
_UP_AFTER = re.compile(r"(?:more|longer) than (\d+) minutes")


def _rules(lines: list[str]) -> _Rules:
    numbered = [line.split(". ", 1)[1] for line in lines if _NUMBERED.match(line)]
    rules = _Rules(classes=_class_list(numbered[0]), up_after=[])
    for text in numbered[1:]:
        low = text.lower()
        if "deadline" in low and "minutes" in low:
            rules.window = int(_MINUTES.search(text).group(1))  # type: ignore[union-attr]
        elif "on hold" in low:
            rules.skip_hold = True
        elif "key account" in low or "key-account" in low:
            rules.key_up = True
        elif "awaiting reply" in low:
            rules.awaiting_down = True
        elif _UP_AFTER.search(text):
            rules.up_after.append(int(_UP_AFTER.search(text).group(1)))  # type: ignore[union-attr]
        elif "arrival" not in low:
            raise ValueError(f"unrecognised rule: {text!r}")
    return rules


def _fields_from_pairs(ticket: str, pairs: dict[str, str]) -> _Case:
    deadline = pairs.get("deadline", "none")
    return _Case(
        ticket=ticket,
        cls=pairs["class"],
        arrived=_minutes(pairs["arrived"]),
        deadline=None if deadline == "none" else _minutes(deadline),
        account=pairs.get("account", "standard"),
        status=pairs.get("status", "open"),
    )


_FIELD_NAMES = ("class", "arrived", "deadline", "account", "status", "channel", "customer")


def _split_fields(text: str, separator: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for chunk in text.split(separator):
        chunk = chunk.strip()
        for name in _FIELD_NAMES:
            if chunk.startswith(name + ": ") or chunk.startswith(name + " "):
                out[name] = chunk[len(name):].lstrip(": ").strip()
                break
    return out


_TICKET_LINE = re.compile(r"^T-\d+ - ")


def _cases(lines: list[str]) -> list[_Case]:
    cases: list[_Case] = []
    header: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("| Ticket |"):
            header = [c.strip().lower() for c in line.strip().strip("|").split("|")]
        elif line.startswith("| T-"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            cases.append(_fields_from_pairs(cells[0], dict(zip(header, cells, strict=True))))
        elif line.startswith("- T-"):
            ticket, _, rest = line[2:].partition(": ")
            rest = rest[: rest.rindex(" (")]
            cases.append(_fields_from_pairs(ticket, _split_fields(rest, ", ")))
        elif _TICKET_LINE.match(line):
            ticket = line.split(" - ", 1)[0]
            cases.append(_fields_from_pairs(ticket, _split_fields(lines[i + 1], "; ")))
    return cases


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("triage_order states are text")
    lines = item.state.splitlines()
    now = next(_minutes(f"{m.group(1)}:{m.group(2)}") for line in lines if (m := _NOW.search(line)))
    rules = _rules(lines[lines.index("Ordering rules:") + 1 :])
    cases = _cases(lines)
    # the last line naming a position (text an irrelevant framing appends after it carries no digit)
    position = int(next(found for line in reversed(lines) if (found := _ORDINAL.findall(line)))[-1])
    top, bottom = 0, len(rules.classes) - 1

    def sort_key(case: _Case) -> tuple[int, int, int, int, int]:
        level = rules.classes.index(case.cls)
        moves = -sum(1 for limit in rules.up_after if now - case.arrived > limit)
        if rules.key_up and case.account == "key":
            moves -= 1
        if rules.awaiting_down and case.status == "awaiting reply":
            moves += 1
        level = max(top, min(bottom, level + moves))
        due = rules.window is not None and case.deadline is not None and case.deadline <= now + rules.window
        return (0 if due else 1, case.deadline if due and case.deadline is not None else 0, level,
                case.arrived, int(case.ticket.removeprefix("T-")))

    waiting = [c for c in cases if not (rules.skip_hold and c.status == "on hold")]
    served = sorted(waiting, key=sort_key)
    return served[position - 1].ticket
