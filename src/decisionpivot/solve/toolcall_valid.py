"""Independent solver for toolcall_valid: rebuild the correct call from the text, then compare.

Reads only the rendered state. It decodes the two JSON blocks (schema and proposed call), reads each
property's description for its label and rules, reads today's date and the earlier messages, parses
every sentence of the current request into (label, phrase), turns each phrase into the value the
rules ask for (relative dates, unit conversions, references, limits), adds what the description
rules require (totals, threshold flags), checks that this call itself satisfies the schema and the
described ranges, and answers yes only when the proposed arguments equal it, type for type.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from decisionpivot.items import Item

FAMILY = "toolcall_valid"

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                 "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                 "nineteen", "twenty"]
# small unit -> (big unit names, how many small units in one big unit)
_CONVERSIONS = {
    "grams": (("kilogram", "kilograms"), 1000),
    "minutes": (("hour", "hours"), 60),
    "millilitres": (("litre", "litres"), 1000),
    "metres": (("kilometre", "kilometres"), 1000),
    "megabytes": (("gigabyte", "gigabytes"), 1000),
    "centimetres": (("metre", "metres"), 100),
}


@dataclass
class Prop:
    key: str
    json_type: str
    description: str
    enum: list[str] | None
    required: bool
    label: str = ""
    kind: str = ""
    rules: dict[str, Any] = field(default_factory=dict)


def _num(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


_LONG_DATE = re.compile(r"(?:[A-Za-z]+day )?(\d{1,2}) ([A-Za-z]+) (\d{4})")


def _long_date(text: str) -> dt.date:
    m = _LONG_DATE.fullmatch(text.strip())
    if not m:
        raise ValueError(f"not a date: {text!r}")
    return dt.date(int(m.group(3)), _MONTHS.index(m.group(2).lower()) + 1, int(m.group(1)))


_PROPERTY_NAME = re.compile(r"The (.+?)(?:,|\.|:|;| in | as )")
_TRUE_WHEN_AT_LEAST = re.compile(r"true when the (.+?) is (.+?) or more;")
_TRUE_IF_AT_LEAST = re.compile(r"true if the (.+?) is at least (.+?), and leave")
_MIN_DAYS_AHEAD = re.compile(r"at least (\d+) days? after today|fall (\d+) or more days after today")
_MAX_DAYS_AHEAD = re.compile(r"no more than (\d+) days? after today|at most (\d+) days? after today")
_AFTER_FIELD = re.compile(r"later than the (.+?)\.|fall after the (.+?)\.")
_EARLIEST = re.compile(r"Not earlier than (\d\d:\d\d)|The earliest allowed is (\d\d:\d\d)")
_LATEST = re.compile(r"Not later than (\d\d:\d\d)|The latest allowed is (\d\d:\d\d)")
_CODE_PREFIX = re.compile(r"([A-Z]+)-####")
_MONEY_LIMIT = re.compile(r"(?:may not exceed|no more than) ([\d,]+\.\d\d) ([A-Z]{3})")
_SUM_OF = re.compile(r"equal to the (.+?) plus the (.+?)\.$|equal the (.+?) plus the (.+?)\.$")
_INT_RANGE = re.compile(r"from ([\d,]+) to ([\d,]+)|at least ([\d,]+) and at most ([\d,]+)")
_WHOLE_UNIT = re.compile(r" in ([a-z]+), a whole number| given in ([a-z]+) as a whole number")


def _read_prop(key: str, spec: dict[str, Any], required: bool) -> Prop:
    prop = Prop(key, spec["type"], spec["description"], spec.get("enum"), required)
    d = prop.description
    m = _PROPERTY_NAME.match(d)
    if not m:
        raise ValueError(f"no label in description of {key}: {d!r}")
    prop.label = m.group(1)
    r = prop.rules
    if prop.json_type == "boolean":
        m = _TRUE_WHEN_AT_LEAST.search(d) or _TRUE_IF_AT_LEAST.search(d)
        if m:
            prop.kind = "flag"
            r["src_label"], r["threshold"] = m.group(1), m.group(2)
        else:
            prop.kind = "bool"
    elif prop.json_type == "string":
        if prop.enum is not None:
            prop.kind = "enum"
        elif "YYYY-MM-DD" in d:
            prop.kind = "date"
            m = _MIN_DAYS_AHEAD.search(d)
            if m:
                r["min_days"] = int(m.group(1) or m.group(2))
            m = _MAX_DAYS_AHEAD.search(d)
            if m:
                r["max_days"] = int(m.group(1) or m.group(2))
            m = _AFTER_FIELD.search(d)
            if m:
                r["after_label"] = m.group(1) or m.group(2)
        elif "HH:MM" in d:
            prop.kind = "time"
            m = _EARLIEST.search(d)
            if m:
                r["earliest"] = m.group(1) or m.group(2)
            m = _LATEST.search(d)
            if m:
                r["latest"] = m.group(1) or m.group(2)
        else:
            m = _CODE_PREFIX.search(d)
            if not m:
                raise ValueError(f"unknown string property {key}: {d!r}")
            prop.kind = "code"
            r["prefix"] = m.group(1)
    elif prop.json_type == "number":
        prop.kind = "money"
        m = _MONEY_LIMIT.search(d)
        if not m:
            raise ValueError(f"no limit for amount {key}: {d!r}")
        r["max_cents"] = int(_num(m.group(1)) * 100)
        r["currency"] = m.group(2)
    else:
        m = _SUM_OF.search(d)
        if m:
            prop.kind = "total"
            r["part_labels"] = [m.group(1) or m.group(3), m.group(2) or m.group(4)]
        else:
            m = _INT_RANGE.search(d)
            if not m:
                raise ValueError(f"no range for {key}: {d!r}")
            lo, hi = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            r["min"], r["max"] = int(_num(lo)), int(_num(hi))
            unit = _WHOLE_UNIT.search(d)
            if unit:
                prop.kind = "measure"
                r["unit"] = unit.group(1) or unit.group(2)
            else:
                prop.kind = "count"
    return prop


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_BREAK.split(text.strip()) if s]


_CLAUSE_PATTERNS = tuple(re.compile(p) for p in (
    r"(?P<label>[^:]+?): (?P<phrase>.+)\.",
    r"the (?P<label>.+?) should be (?P<phrase>.+)\.",
    r"for the (?P<label>.+?), use (?P<phrase>.+)\.",  # 1.2
    r"i'd like the (?P<label>.+?) to be (?P<phrase>.+)\.",  # 1.3
    r"please set the (?P<label>.+?) to (?P<phrase>.+)\.",
    r"i want (?P<label>.+)\.(?P<yes>)",
    r"i don't want (?P<label>.+)\.(?P<no>)",
    r"with (?P<label>.+), please\.(?P<yes>)",
    r"without (?P<label>.+), please\.(?P<no>)",
))


_ARTICLE = re.compile(r"^(?:a|an) ")


def _parse_clauses(text: str, labels: list[str]) -> dict[str, str]:
    """label -> phrase for every sentence of a message that sets a property."""
    known = set(labels)
    found: dict[str, str] = {}
    for sentence in _sentences(text):
        lowered = sentence[0].lower() + sentence[1:]
        for pattern in _CLAUSE_PATTERNS:
            m = pattern.fullmatch(lowered)
            if not m:
                continue
            label = m.group("label")
            if label not in known:  # yes/no clauses name a countable thing with its article (1.2)
                label = _ARTICLE.sub("", label)
                if label not in known:
                    continue
            groups = m.groupdict()
            if groups.get("yes") is not None:
                phrase = "yes"
            elif groups.get("no") is not None:
                phrase = "no"
            else:
                phrase = groups["phrase"]
            if label in found:
                raise ValueError(f"{label!r} set twice in one message")
            found[label] = phrase
            break
    return found


_SAME_AS_MESSAGE = re.compile(r"the same as in my message of (.+)")
_LIMIT_LOW = re.compile(
    r"the (?:minimum|smallest|earliest) (?:the tool allows|number allowed|"
    r"amount allowed|date allowed|time allowed)"
)
_LIMIT_HIGH = re.compile(
    r"the (?:maximum|largest|highest|latest) (?:the tool allows|number allowed|"
    r"amount allowed|date allowed|time allowed)"
)
_CLOCK_12H = re.compile(r"(\d{1,2}):(\d\d) (am|pm)")
_CLOCK_24H = re.compile(r"\d\d:\d\d")
_AMOUNT_UNIT = re.compile(r"([\d.,]+) ([a-z]+)")
_MONEY = re.compile(r"([\d,]+\.\d\d) ([A-Z]{3})")
_ISO_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_IN_DAYS = re.compile(r"in (\d+) days?")
_NEXT_WEEKDAY = re.compile(r"next ([A-Za-z]+)")
_DAYS_AFTER = re.compile(r"(\d+) days? after the (.+)")


class _Context:
    def __init__(self, props: dict[str, Prop], today: dt.date, history: list[tuple[dt.date, dict[str, str]]],
                 request: dict[str, str]) -> None:
        self.props = props
        self.by_label = {p.label: p for p in props.values()}
        self.today = today
        self.history = history
        self.request = request
        self.cache: dict[str, Any] = {}

    def value_of(self, label: str) -> Any:
        if label not in self.cache:
            self.cache[label] = self._value(self.by_label[label], self.request[label])
        return self.cache[label]

    def _reference(self, prop: Prop, phrase: str) -> Any | None:
        if phrase == "the same as last time":
            day, clauses = self.history[-1]
        else:
            m = _SAME_AS_MESSAGE.fullmatch(phrase)
            if not m:
                return None
            wanted = _long_date(m.group(1))
            day, clauses = next(h for h in self.history if h[0] == wanted)
        if prop.label not in clauses:
            raise ValueError(f"the message of {day} does not state the {prop.label}")
        return self._value(prop, clauses[prop.label])

    def _value(self, prop: Prop, phrase: str) -> Any:
        ref = self._reference(prop, phrase)
        if ref is not None:
            return ref
        r = prop.rules
        limit_low = _LIMIT_LOW.fullmatch(phrase)
        limit_high = _LIMIT_HIGH.fullmatch(phrase)
        if prop.kind == "date":
            if limit_low:
                return (self.today + dt.timedelta(days=r["min_days"])).isoformat()
            if limit_high:
                return (self.today + dt.timedelta(days=r["max_days"])).isoformat()
            return self._date(phrase).isoformat()
        if prop.kind == "time":
            if limit_low:
                return r["earliest"]
            if limit_high:
                return r["latest"]
            m = _CLOCK_12H.fullmatch(phrase)
            if m:
                hour = int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0)
                return f"{hour:02d}:{m.group(2)}"
            if not _CLOCK_24H.fullmatch(phrase):
                raise ValueError(f"unreadable time {phrase!r}")
            return phrase
        if prop.kind in ("count", "measure"):
            if limit_low:
                return r["min"]
            if limit_high:
                return r["max"]
            if prop.kind == "count":
                if phrase in _NUMBER_WORDS:
                    return _NUMBER_WORDS.index(phrase)
                return int(_num(phrase))
            m = _AMOUNT_UNIT.fullmatch(phrase)
            if not m:
                raise ValueError(f"unreadable quantity {phrase!r}")
            amount, unit = _num(m.group(1)), m.group(2)
            if unit == r["unit"] or unit + "s" == r["unit"]:
                return int(amount)
            big_names, factor = _CONVERSIONS[r["unit"]]
            if unit not in big_names:
                raise ValueError(f"cannot convert {unit} to {r['unit']}")
            converted = amount * factor
            if converted != int(converted):
                raise ValueError(f"{phrase} is not a whole number of {r['unit']}")
            return int(converted)
        if prop.kind == "money":
            if limit_high:
                return Decimal(r["max_cents"]) / 100
            m = _MONEY.fullmatch(phrase)
            if not m or m.group(2) != r["currency"]:
                raise ValueError(f"unreadable amount {phrase!r}")
            return _num(m.group(1))
        if prop.kind == "bool":
            return {"yes": True, "no": False}[phrase]
        if prop.kind == "enum":
            if prop.enum is None or phrase not in prop.enum:
                raise ValueError(f"{phrase!r} is not one of {prop.enum}")
            return phrase
        return phrase

    def _date(self, phrase: str) -> dt.date:
        t = self.today
        if _ISO_DATE.fullmatch(phrase):
            return dt.date.fromisoformat(phrase)
        fixed = {"tomorrow": 1, "the day after tomorrow": 2, "a week from today": 7,
                 "two weeks from today": 14}
        if phrase in fixed:
            return t + dt.timedelta(days=fixed[phrase])
        m = _IN_DAYS.fullmatch(phrase)
        if m:
            return t + dt.timedelta(days=int(m.group(1)))
        m = _NEXT_WEEKDAY.fullmatch(phrase)
        if m:
            wanted = _WEEKDAYS.index(m.group(1).lower())
            for ahead in range(1, 8):
                if (t + dt.timedelta(days=ahead)).weekday() == wanted:
                    return t + dt.timedelta(days=ahead)
        m = _DAYS_AFTER.fullmatch(phrase)
        if m:
            return dt.date.fromisoformat(self.value_of(m.group(2))) + dt.timedelta(days=int(m.group(1)))
        return _long_date(phrase)


def _json_after(state: str, start: int) -> Any:
    return json.JSONDecoder().raw_decode(state, state.index("{", start))[0]


def _same(prop: Prop, given: Any, wanted: Any) -> bool:
    if prop.kind == "money":
        return isinstance(given, int | float) and not isinstance(given, bool) \
            and Decimal(str(given)) * 100 == wanted * 100
    return type(given) is type(wanted) and given == wanted


def _check_expected(prop: Prop, value: Any, today: dt.date) -> None:
    """The call the solver built must itself obey the described ranges (else the item is broken)."""
    r = prop.rules
    if prop.kind in ("count", "measure") and not r["min"] <= value <= r["max"]:
        raise ValueError(f"{prop.key}={value} outside {r['min']}..{r['max']}")
    if prop.kind == "money" and not 0 < value * 100 <= r["max_cents"]:
        raise ValueError(f"{prop.key}={value} above the limit")
    if prop.kind == "date":
        days = (dt.date.fromisoformat(value) - today).days
        if days < r.get("min_days", days) or days > r.get("max_days", days):
            raise ValueError(f"{prop.key}={value} outside the allowed days")
    if prop.kind == "time" and not r.get("earliest", value) <= value <= r.get("latest", value):
        raise ValueError(f"{prop.key}={value} outside the allowed times")


_TODAY = re.compile(r"^Today is (.+)\.$", re.M)
_MESSAGE_LINE = re.compile(r'^- (\d{1,2} [A-Za-z]+ \d{4}): "(.*)"$', re.M)


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("toolcall_valid states are text")
    state = item.state
    schema = _json_after(state, state.index("Tool schema:"))
    call = _json_after(state, state.rindex("\n{\n"))
    params = schema["parameters"]
    required = set(params.get("required", []))
    props = {k: _read_prop(k, v, k in required) for k, v in params["properties"].items()}
    labels = [p.label for p in props.values()]

    today = _long_date(_TODAY.search(state).group(1))  # type: ignore[union-attr]
    history = [
        (_long_date(m.group(1)), _parse_clauses(m.group(2), labels))
        for m in _MESSAGE_LINE.finditer(state)
    ]
    history.sort(key=lambda h: h[0])
    lines = state.splitlines()
    request_text = lines[lines.index("Current request:") + 1].strip('"')
    request = _parse_clauses(request_text, labels)
    ctx = _Context(props, today, history, request)

    expected: dict[str, Any] = {}
    for key, prop in props.items():
        if prop.label in request:
            expected[key] = ctx.value_of(prop.label)
    for key, prop in props.items():
        if prop.kind == "total":
            parts = [ctx.by_label[label].key for label in prop.rules["part_labels"]]
            expected[key] = sum(expected[p] for p in parts)
        elif prop.kind == "flag":
            src = ctx.by_label[prop.rules["src_label"]]
            if src.key in expected:
                threshold = prop.rules["threshold"]
                limit = _num(threshold.split()[0])
                if Decimal(str(expected[src.key])) >= limit:
                    expected[key] = True
    for key, prop in props.items():
        if prop.required and key not in expected:
            raise ValueError(f"the request leaves the required {key} open")
        if key in expected:
            _check_expected(prop, expected[key], today)

    args = call.get("arguments", {})
    if set(args) != set(expected):
        return "no"
    return "yes" if all(_same(props[k], args[k], expected[k]) for k in expected) else "no"
