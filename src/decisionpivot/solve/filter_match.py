"""Independent solver for filter_match: read each constraint sentence, compute, compare exactly.

Reads only the rendered item: the state is ``{"request": {..., "constraints": [...]}, "record": {...}}``.
Each constraint sentence is recognised by what it talks about (shipping fee, pack, weight, discount,
order date, litres, exchange rate, VAT, warranty in years or months, reviews, colour, brand, expert
rating, stock, material, length, release year, certification, origin) and by its comparison words
(the request's conventions say which include the limit). The numbers come from the sentence and
the record; money is read as whole cents and every quantity is a ``Fraction``, so a one-cent
boundary is decided exactly. The answer is yes when every sentence holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any

from decisionpivot.items import Item

FAMILY = "filter_match"

# Comparison phrases, longest and most specific first ("no more than" before "more than").
_COMPARISONS: tuple[tuple[str, str], ...] = (
    ("no more than", "<="), ("not more than", "<="), ("does not exceed", "<="), ("at most", "<="),
    ("or less", "<="), ("within", "<="), ("no longer than", "<="),
    ("no fewer than", ">="), ("no lower than", ">="), ("no earlier than", ">="), ("no shorter than", ">="),
    ("not below", ">="), ("at least", ">="), ("or more", ">="), ("or higher", ">="), ("or longer", ">="),
    ("or later", ">="),
    ("fewer than", "<"), ("less than", "<"), ("shorter than", "<"), ("below", "<"), ("under", "<"),
    ("more than", ">"), ("higher than", ">"), ("longer than", ">"), ("later than", ">"), ("above", ">"),
    ("exceeds", ">"), ("over", ">"), ("after", ">"),
)
_COMPARISON_PATTERNS = tuple((p, re.compile(rf"\b{re.escape(p)}\b"), op) for p, op in _COMPARISONS)
_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december"]


_DIGIT = re.compile(r"\d")


def _comparison(sentence: str) -> str:
    """The comparison that governs the sentence's limit.

    Longer phrases are matched first and masked ('no longer than' is not 'longer than'); of what is
    left, the phrase nearest the last number wins ('Averaged over all reviews, ... 4.2 stars or more').
    """
    text = sentence.lower()
    found: list[tuple[int, int, str]] = []
    for phrase, pattern, op in _COMPARISON_PATTERNS:
        if phrase not in text:
            continue
        for m in pattern.finditer(text):
            found.append((m.start(), m.end(), op))
            text = text[: m.start()] + "#" * (m.end() - m.start()) + text[m.end() :]
    if not found:
        raise ValueError(f"no comparison found in {sentence!r}")
    numbers = list(_DIGIT.finditer(sentence))
    anchor = numbers[-1].start() if numbers else len(sentence)
    return min(found, key=lambda f: min(abs(anchor - f[0]), abs(anchor - f[1])))[2]


def _decimal(text: str) -> Fraction:
    return Fraction(Decimal(text.replace(",", "")))


_MONEY = re.compile(rf"\s*{_NUMBER}\s+([A-Z]{{3}})\s*")


def _money(text: str) -> tuple[Fraction, str]:
    """'4,157.70 SEK' -> (415770 cents, 'SEK')."""
    m = _MONEY.fullmatch(text)
    if not m:
        raise ValueError(f"not a money amount: {text!r}")
    return _decimal(m.group(1)) * 100, m.group(2)


_MONEY_IN_TEXT = re.compile(rf"{_NUMBER} ([A-Z]{{3}})\b")


def _last_money(sentence: str) -> tuple[Fraction, str]:
    found = _MONEY_IN_TEXT.findall(sentence)
    if not found:
        raise ValueError(f"no amount in {sentence!r}")
    number, code = found[-1]
    return _decimal(number) * 100, code


_A_NUMBER = re.compile(_NUMBER)


def _numbers(sentence: str) -> list[Fraction]:
    return [_decimal(n) for n in _A_NUMBER.findall(sentence)]


def _compare(value: Fraction, op: str, limit: Fraction) -> bool:
    if op == "<=":
        return value <= limit
    if op == "<":
        return value < limit
    if op == ">=":
        return value >= limit
    return value > limit


_LISTING_VERB = re.compile(r"\b(?:is none of|originates from|colour is)\b")
_VALUE_SEPARATOR = re.compile(r",\s*|\s+or\s+")


def _listed(sentence: str) -> list[str]:
    """The values of 'X is one of: a, b, c.' or 'X is a, b or c.' (text after the colon or the verb)."""
    body = sentence.rstrip(".")
    body = body.split(":", 1)[1] if ":" in body else _LISTING_VERB.split(body, maxsplit=1)[-1]
    parts = _VALUE_SEPARATOR.split(body.strip())
    return [p.strip() for p in parts if p.strip()]


def _long_date(text: str) -> date:
    day, month, year = text.split()
    return date(int(year), _MONTH_NAMES.index(month.lower()) + 1, int(day))


# --- one checker per kind of sentence -----------------------------------------------------------

Record = dict[str, Any]


def _price(record: Record) -> Fraction:
    return _money(record["price"])[0]


def _shipping(s: str, r: Record) -> bool:
    limit, _ = _last_money(s)
    return _compare(_price(r) + _money(r["shipping_fee"])[0], _comparison(s), limit)


def _per_unit(s: str, r: Record) -> bool:
    limit, _ = _last_money(s)
    return _compare(_money(r["pack_price"])[0] / int(r["units_per_pack"]), _comparison(s), limit)


_UNITS_AND_WEIGHT = re.compile(rf"(\d+) units\b.*?{_NUMBER} kg")


def _weight(s: str, r: Record) -> bool:
    m = _UNITS_AND_WEIGHT.search(s)
    if not m:
        raise ValueError(f"cannot read the weight constraint {s!r}")
    grams = int(r["unit_weight_g"]) * int(m.group(1))
    return _compare(Fraction(grams), _comparison(s), _decimal(m.group(2)) * 1000)


_DISCOUNT = re.compile(rf"{_NUMBER} % discount")


def _discount(s: str, r: Record) -> bool:
    m = _DISCOUNT.search(s)
    if not m:
        raise ValueError(f"cannot read the discount in {s!r}")
    limit, _ = _last_money(s)
    return _compare(_price(r) * (100 - _decimal(m.group(1))) / 100, _comparison(s), limit)


_DELIVERY = re.compile(r"(?:ordered on|placed on) (\d{1,2} [A-Za-z]+ \d{4}),.*?(\d+) days", re.IGNORECASE)


def _delivery(s: str, r: Record) -> bool:
    m = _DELIVERY.search(s)
    if not m:
        raise ValueError(f"cannot read the delivery constraint {s!r}")
    days = (date.fromisoformat(r["estimated_delivery"]) - _long_date(m.group(1))).days
    return _compare(Fraction(days), _comparison(s), Fraction(int(m.group(2))))


_LITRES = re.compile(rf"{_NUMBER} litres")


def _volume(s: str, r: Record) -> bool:
    m = _LITRES.search(s)
    if not m:
        raise ValueError(f"cannot read the volume limit in {s!r}")
    dims = r["dimensions_cm"]
    cm3 = int(dims["length"]) * int(dims["width"]) * int(dims["height"])
    return _compare(Fraction(cm3), _comparison(s), _decimal(m.group(1)) * 1000)


_RATE_EQUALS = re.compile(rf"1 ([A-Z]{{3}}) = {_NUMBER} ([A-Z]{{3}})")
_RATE_PER = re.compile(rf"{_NUMBER} ([A-Z]{{3}}) (?:per|to the) ([A-Z]{{3}})")


def _converted(s: str, r: Record) -> bool:
    rate = _RATE_EQUALS.search(s)
    if rate:
        foreign, per, home = rate.group(1), _decimal(rate.group(2)), rate.group(3)
    else:
        rate = _RATE_PER.search(s)
        if not rate:
            raise ValueError(f"cannot read the exchange rate in {s!r}")
        per, home, foreign = _decimal(rate.group(1)), rate.group(2), rate.group(3)
    price, code = _money(r["price"])
    if code != home:
        raise ValueError(f"rate is quoted in {home}, the record is in {code}")
    limit, limit_code = _last_money(s)
    if limit_code != foreign:
        raise ValueError(f"limit in {limit_code}, expected {foreign}")
    return _compare(price / per, _comparison(s), limit)


def _vat(s: str, r: Record) -> bool:
    limit, _ = _last_money(s)
    rate = Fraction(int(r["vat_rate_percent"]))
    return _compare(_price(r) * (100 + rate) / 100, _comparison(s), limit)


_YEARS = re.compile(rf"{_NUMBER} years?\b")
_MONTHS = re.compile(rf"{_NUMBER} months")


def _warranty(s: str, r: Record) -> bool:
    months = Fraction(int(r["warranty_months"]))
    years = _YEARS.search(s)
    if years:
        return _compare(months, _comparison(s), _decimal(years.group(1)) * 12)
    limit = _MONTHS.search(s)
    if not limit:
        raise ValueError(f"cannot read the warranty limit in {s!r}")
    return _compare(months, _comparison(s), _decimal(limit.group(1)))


def _average(s: str, r: Record) -> bool:
    counts = r["review_counts"]
    reviews = sum(int(n) for n in counts.values())
    stars = sum(int(_DIGIT.match(key).group()) * int(n) for key, n in counts.items())  # type: ignore[union-attr]
    return _compare(Fraction(stars, reviews), _comparison(s), _numbers(s)[-1])


_EXPERT_SCORE = re.compile(rf"{_NUMBER}(?: out of 10|/10)")


def _expert(s: str, r: Record) -> bool:
    m = _EXPERT_SCORE.search(s)
    if not m:
        raise ValueError(f"cannot read the expert rating limit in {s!r}")
    value = Fraction(Decimal(str(r["expert_rating"])))
    return _compare(value, _comparison(s), _decimal(m.group(1)))


def _stock(s: str, r: Record) -> bool:
    return _compare(Fraction(int(r["units_in_stock"])), _comparison(s), _numbers(s)[-1])


_CENTIMETRES = re.compile(rf"{_NUMBER} cm")


def _length(s: str, r: Record) -> bool:
    m = _CENTIMETRES.search(s)
    if not m:
        raise ValueError(f"cannot read the length limit in {s!r}")
    return _compare(Fraction(int(r["dimensions_cm"]["length"])), _comparison(s), _decimal(m.group(1)))


_YEAR = re.compile(r"\b(\d{4})\b")


def _release(s: str, r: Record) -> bool:
    year = _YEAR.search(s)
    if not year:
        raise ValueError(f"cannot read the year in {s!r}")
    return _compare(Fraction(int(r["release_year"])), _comparison(s), Fraction(int(year.group(1))))


def _colour(s: str, r: Record) -> bool:
    return r["colour"] in _listed(s)


def _brand(s: str, r: Record) -> bool:
    return r["brand"] not in _listed(s)


_MATERIAL = re.compile(r"(?:made of|material is|Material required:) (.+?)\.$")


def _material(s: str, r: Record) -> bool:
    m = _MATERIAL.search(s)
    if not m:
        raise ValueError(f"cannot read the material in {s!r}")
    return r["material"] == m.group(1)


_CERTIFICATION = re.compile(r"\b([A-Z]+-\d+)\b")


def _certification(s: str, r: Record) -> bool:
    m = _CERTIFICATION.search(s)
    if not m:
        raise ValueError(f"cannot read the certification in {s!r}")
    return m.group(1) in r["certifications"]


def _origin(s: str, r: Record) -> bool:
    return r["country_of_origin"] in _listed(s)


# What a sentence is about, checked in this order (specific topics before generic words).
_TOPICS: tuple[tuple[str, Callable[[str, Record], bool]], ...] = (
    (r"shipping fee", _shipping),
    (r"\bpack\b", _per_unit),
    (r"\bweigh", _weight),
    (r"% discount", _discount),
    (r"(?i:ordered|placed) on", _delivery),
    (r"litres", _volume),
    (r"exchange rate|1 [A-Z]{3} = |to the [A-Z]{3}", _converted),
    (r"\bVAT\b", _vat),
    (r"warranty", _warranty),
    (r"customer rating|customer reviews", _average),
    (r"expert rating", _expert),
    (r"in stock|stock level", _stock),
    (r"(?i:colour)", _colour),
    (r"[Bb]rand", _brand),
    (r"made of|(?i:material)", _material),
    (r"(?i:\blength\b)|\blonger than\b|\bshorter than\b", _length),
    (r"released|release year|came out", _release),
    (r"(?i:certification)", _certification),
    (r"(?i:origin)", _origin),
)


_TOPIC_PATTERNS = tuple((re.compile(topic), check) for topic, check in _TOPICS)


def constraint_holds(sentence: str, record: Record) -> bool:
    for topic, check in _TOPIC_PATTERNS:
        if topic.search(sentence):
            return check(sentence, record)
    raise ValueError(f"unrecognised constraint: {sentence!r}")


def solve(item: Item) -> str:
    state = item.state
    if not isinstance(state, dict):
        raise ValueError("filter_match states are JSON objects")
    record = state["record"]
    sentences = state["request"]["constraints"]
    return "yes" if all(constraint_holds(s, record) for s in sentences) else "no"
