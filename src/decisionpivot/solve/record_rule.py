"""Independent solver for record_rule: turn every rule sentence into a check and run it on the batch.

Reads only the rendered state: the numbered rules (``R1. ...``), the reference lists (approved and
withdrawn codes, the register of ids) and the batch table (pipe or semicolon style; an empty cell
is an unfilled field). Each rule sentence is recognised by its wording and compiled into a
predicate over the rows; a format description (``two capital letters, a hyphen and four digits``)
is translated into a regular expression word by word. The answer is the only rule some row
breaks, or ``none``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from decisionpivot.items import Item

FAMILY = "record_rule"

Row = dict[str, str]
Check = Callable[[list[Row]], bool]  # True when the batch breaks the rule

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_UNITS = {"capital letter": "[A-Z]", "digit": "[0-9]", "hyphen": "-", "slash": "/"}


_GROUPS_FORMAT = re.compile(r"(\w+) groups of (\w+) (\w+?)s? joined by an? (\w+)")
_FORMAT_PART_SEPARATOR = re.compile(r", | and | followed by ")
_FORMAT_PART = re.compile(r"(\w+) (capital letter|digit|hyphen|slash)s?")


def _format_regex(description: str) -> str:
    """'two capital letters, a hyphen and four digits' -> '[A-Z]{2}-[0-9]{4}'."""
    groups = _GROUPS_FORMAT.fullmatch(description)
    if groups:
        count, size, unit, joiner = groups.groups()
        one = f"{_UNITS[unit]}{{{_NUMBERS[size]}}}"
        return _UNITS[joiner].join([one] * _NUMBERS[count])
    parts = _FORMAT_PART_SEPARATOR.split(description)
    out = []
    for part in parts:
        m = _FORMAT_PART.fullmatch(part.strip())
        if not m:
            raise ValueError(f"cannot read format part {part!r} of {description!r}")
        out.append(f"{_UNITS[m.group(2)]}{{{_NUMBERS[m.group(1)]}}}")
    return "".join(out)


@lru_cache(maxsize=256)
def _format_pattern(description: str) -> re.Pattern[str]:
    """:func:`_format_regex` compiled, once per description (a draw uses a handful, in hundreds of rules)."""
    return re.compile(_format_regex(description))


def _values(text: str) -> list[str]:
    head, sep, last = text.rpartition(" or ")
    return [*head.split(", "), last] if sep else [text]


def _int(v: str) -> int:
    return int(v)


def _cents(v: str) -> int:
    whole, frac = v.split(".")
    return int(whole) * 100 + int(frac)


def _repeats(values: list[object]) -> bool:
    return any(c > 1 for c in Counter(values).values())


_MANDATORY = re.compile(r"Every record must have a value in (\w+)\.|(\w+) is mandatory and may not be left empty\.")
_FORMAT = re.compile(
    r"(\w+) must consist of (.+) \(for example \S+\)\.|Format of (\w+): (.+), nothing else "
    r"\(for example \S+\)\."
)
_RANGE = re.compile(
    r"(\w+) must be between (\d+) and (\d+), both included\.|(\w+) may not be below (\d+) or "
    r"above (\d+)\."
)
_UNIQUE = re.compile(
    r"(\w+) must be unique within the batch\.|No two records of the batch may share the same "
    r"(\w+)\."
)
_APPROVED = re.compile(r"(\w+) must be one of the approved (.+) of the reference list\.")
_APPROVED_ONLY = re.compile(r"Only codes on the list of approved (.+) may appear in (\w+)\.")
_NOT_ABOVE_FIELD = re.compile(
    r"(\w+) may not exceed (\w+)\.|(\w+) must be less than or equal to (\w+) of the same "
    r"record\."
)
_FILLED_IF = re.compile(
    r'If (\w+) is "([^"]+)", (\w+) must be filled\.|Records whose (\w+) is "([^"]+)" need a '
    r"value in (\w+)\."
)
_SUM = re.compile(r"(\w+) must equal (\w+) plus (\w+), to the cent\.")
_SUM_HOLDS = re.compile(r"(\w+) \+ (\w+) = (\w+) must hold exactly for every record\.")
_NOT_EARLIER = re.compile(r"(\w+) may not be earlier than (\w+)\.")
_ON_OR_BEFORE = re.compile(r"(\w+) must be on or before (\w+)\.")
_ONE_OF = re.compile(r"(\w+) must be one of: (.+)\.|Allowed values of (\w+): (.+) \(no others\)\.")
_MAX_LENGTH = re.compile(
    r"(\w+) may hold at most (\d+) characters, spaces included\.|(\w+) is limited to (\d+) "
    r"characters \(spaces count\)\."
)
_REGISTER_ID = re.compile(
    r"(\w+) must be the id of an entry of the (.+)\.|Every (\w+) must refer to an existing \w+ "
    r"in the (.+)\."
)
_PAIR_UNIQUE = re.compile(
    r"No two records may have the same combination of (\w+) and (\w+)\.|The pair \((\w+), "
    r"(\w+)\) must not repeat within the batch\."
)


def _compile(text: str, lists: dict[str, list[str]]) -> Check:
    """A predicate for one rule sentence."""
    m = _MANDATORY.fullmatch(text)
    if m:
        f = m.group(1) or m.group(2)
        return lambda rows: any(r[f] == "" for r in rows)
    m = _FORMAT.fullmatch(text)
    if m:
        f, rx = (m.group(1) or m.group(3)), _format_pattern(m.group(2) or m.group(4))
        return lambda rows: any(not rx.fullmatch(r[f]) for r in rows)
    m = _RANGE.fullmatch(text)
    if m:
        f = m.group(1) or m.group(4)
        lo, hi = int(m.group(2) or m.group(5)), int(m.group(3) or m.group(6))
        return lambda rows: any(not lo <= _int(r[f]) <= hi for r in rows)
    m = _UNIQUE.fullmatch(text)
    if m:
        f = m.group(1) or m.group(2)
        return lambda rows: _repeats([r[f] for r in rows])
    m = _APPROVED.fullmatch(text)
    m2 = _APPROVED_ONLY.fullmatch(text)
    if m or m2:
        f, what = (m.group(1), m.group(2)) if m else (m2.group(2), m2.group(1))  # type: ignore[union-attr]
        allowed = set(lists[f"approved {what}"])
        return lambda rows: any(r[f] not in allowed for r in rows)
    m = _NOT_ABOVE_FIELD.fullmatch(text)
    if m:
        a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return lambda rows: any(_int(r[a]) > _int(r[b]) for r in rows)
    m = _FILLED_IF.fullmatch(text)
    if m:
        f, v, g = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
        return lambda rows: any(r[f] == v and r[g] == "" for r in rows)
    m = _SUM.fullmatch(text)
    m2 = _SUM_HOLDS.fullmatch(text)
    if m or m2:
        total, p1, p2 = m.groups() if m else (m2.group(3), m2.group(1), m2.group(2))  # type: ignore[union-attr]
        return lambda rows: any(_cents(r[p1]) + _cents(r[p2]) != _cents(r[total]) for r in rows)
    m = _NOT_EARLIER.fullmatch(text)
    m2 = _ON_OR_BEFORE.fullmatch(text)
    if m or m2:
        end, start = m.groups() if m else (m2.group(2), m2.group(1))  # type: ignore[union-attr]
        return lambda rows: any(dt.date.fromisoformat(r[end]) < dt.date.fromisoformat(r[start]) for r in rows)
    m = _ONE_OF.fullmatch(text)
    if m:
        f, allowed = (m.group(1) or m.group(3)), set(_values(m.group(2) or m.group(4)))
        return lambda rows: any(r[f] not in allowed for r in rows)
    m = _MAX_LENGTH.fullmatch(text)
    if m:
        f, n = (m.group(1) or m.group(3)), int(m.group(2) or m.group(4))
        return lambda rows: any(len(r[f]) > n for r in rows)
    m = _REGISTER_ID.fullmatch(text)
    if m:
        f, register = (m.group(1) or m.group(3)), (m.group(2) or m.group(4))
        ids = set(lists[register])
        return lambda rows: any(r[f] not in ids for r in rows)
    m = _PAIR_UNIQUE.fullmatch(text)
    if m:
        f, g = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return lambda rows: _repeats([(r[f], r[g]) for r in rows])
    raise ValueError(f"unrecognised rule: {text!r}")


_REGISTER_LIST = re.compile(r"- (.+?) \(id and name\): (.+)")
_APPROVED_LIST = re.compile(r"- (Approved .+?): (.+)")


def _lists(lines: list[str]) -> dict[str, list[str]]:
    """Reference lists by lower-cased title: 'approved depots' -> codes, 'shipper register' -> ids."""
    out: dict[str, list[str]] = {}
    for line in lines:
        m = _REGISTER_LIST.fullmatch(line)
        if m:
            out[m.group(1).lower()] = [entry.split(" ", 1)[0] for entry in m.group(2).split("; ")]
            continue
        m = _APPROVED_LIST.fullmatch(line)
        if m:
            out[m.group(1).lower()] = m.group(2).split(", ")
    return out


def _rows(lines: list[str]) -> list[Row]:
    if lines[0].startswith("|"):
        cells = [[c.strip() for c in ln.strip()[1:-1].split("|")] for ln in lines]
        header, body = cells[0], cells[2:]
    else:
        cells = [ln.split("; ") for ln in lines]
        header, body = cells[0], cells[1:]
    rows = []
    for c in body:
        if len(c) != len(header):
            raise ValueError(f"row with {len(c)} cells under a header of {len(header)}")
        rows.append(dict(zip(header, c, strict=True)))
    return rows


_RULE_LINE = re.compile(r"(R\d+)\. (.+)")
_BATCH_HEAD = re.compile(r"Batch \(\d+ records\):")


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
        raise ValueError("record_rule states are text")
    lines = item.state.split("\n")
    rules = [(m.group(1), m.group(2)) for ln in lines if (m := _RULE_LINE.fullmatch(ln))]
    lists = _lists(lines)
    start = next(k for k, ln in enumerate(lines) if _BATCH_HEAD.fullmatch(ln))
    rows = _rows(_until_blank(lines[start + 1 :]))
    broken = [rid for rid, text in rules if _compile(text, lists)(rows)]
    if len(broken) > 1:
        raise ValueError(f"more than one rule is broken: {broken}")
    return broken[0] if broken else "none"
