"""Independent solver for policy_case: read the policy and the case record, then apply the rules.

Reads only the rendered state. The case record gives label -> value; each numbered rule is split
into its outcome, its conditions (joined by "and", each naming a record label) and an optional
exception; the reading guide gives the conflict rule and the default. A rule applies when all its
conditions hold and its exception does not; if applicable rules disagree, the conflict rule picks
one; if none applies, the default decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from decisionpivot.items import Item

FAMILY = "policy_case"

_KEY_OF_WORD = {
    "approve": "approve", "approved": "approve",
    "deny": "deny", "denied": "deny",
    "escalate": "escalate", "escalated": "escalate",
}
_OUTCOME_WORDS = "approve|deny|escalate"
_PAST_WORDS = "approved|denied|escalated"

_RECORD_HEAD = re.compile(r"^(?:Case record|Facts of request|Case file) \S+:$")
_NUMBERED = re.compile(r"^(\d+)\. (.+)$")
_EXCEPTION_MARK = re.compile(r"(?:, unless |, except where |; this rule does not apply if )")
_EXCEPTION_TAIL = r"(?P<rest>(?:, unless |, except where |; this rule does not apply if ).+)?"
_FRAMES = (
    re.compile(rf"^If (?P<cond>.+), the [a-z ]+ is (?P<out>{_PAST_WORDS})(?P<rest>.*)\.$"),
    re.compile(rf"^An? [a-z ]+ is (?P<out>{_PAST_WORDS}) when (?P<cond>.+?){_EXCEPTION_TAIL}\.$"),
    re.compile(rf"^(?P<out>Approve|Deny|Escalate) the [a-z ]+? if (?P<cond>.+?){_EXCEPTION_TAIL}\.$"),
    re.compile(rf"^Where (?P<cond>.+), (?P<out>{_OUTCOME_WORDS}) the [a-z ]+?{_EXCEPTION_TAIL}\.$"),
)
_COMPARE = (
    (re.compile(r"^(?:is more than|exceeds|is above) (.+)$"), "gt"),
    (re.compile(r"^(?:is at least) (.+)$"), "ge"),
    (re.compile(r"^is (.+) or more$"), "ge"),
    (re.compile(r"^(?:is less than|is below|is under) (.+)$"), "lt"),
    (re.compile(r"^(?:is at most|does not exceed) (.+)$"), "le"),
    (re.compile(r"^is (.+) or less$"), "le"),
)


@dataclass
class _Rule:
    number: int
    outcome: str
    conditions: list[str]
    exception: str | None


def _number(text: str) -> float:
    token = text.strip().split(" ")[0].replace(",", "")
    return float(token)


_NUMBER_START = re.compile(r"^-?[\d,]+(?:\.\d+)?(?: |$)")


def _is_number(text: str) -> bool:
    return _NUMBER_START.match(text.strip()) is not None


def _read_record(lines: list[str]) -> dict[str, str]:
    start = next(i for i, line in enumerate(lines) if _RECORD_HEAD.match(line))
    record: dict[str, str] = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0] in ("Field", "---") or set(cells[0]) <= {"-"}:
                continue
            record[cells[0].lower()] = cells[1]
            continue
        body = line[2:] if line.startswith("- ") else line
        label, sep, value = body.partition(": ")
        if sep:
            record[label.lower()] = value.strip()
    return record


def _read_rules(lines: list[str]) -> list[_Rule]:
    rules = []
    for line in lines:
        m = _NUMBERED.match(line)
        if not m:
            continue
        text = m.group(2)
        for frame in _FRAMES:
            hit = frame.match(text)
            if hit:
                break
        else:
            raise ValueError(f"unrecognised rule: {text!r}")
        cond = hit.group("cond")
        rest = hit.group("rest") or ""
        exception = None
        if rest:
            parts = _EXCEPTION_MARK.split(rest, maxsplit=1)
            exception = parts[1]
        rules.append(_Rule(int(m.group(1)), _KEY_OF_WORD[hit.group("out").lower()], [cond], exception))
    return rules


@lru_cache(maxsize=256)
def _condition_break(labels: tuple[str, ...]) -> re.Pattern[str]:
    """" and " where the next condition starts: before "the <label> " of one of ``labels``. Built once per set of
    record labels (a draw repeats about 130 sets over 600 items), not once per item. The labels come longest first
    as before, equal lengths alphabetically: whether a lookahead holds does not depend on the order of its
    alternatives."""
    alternation = "|".join(re.escape(lab) for lab in labels)
    return re.compile(rf" and (?=the (?:{alternation}) )")


def _split_conditions(cond: str, labels: list[str]) -> list[str]:
    return _condition_break(tuple(sorted(set(labels), key=lambda lab: (-len(lab), lab)))).split(cond)


_VALUE_SEPARATOR = re.compile(r",\s*|\s+or\s+")
_ARTICLE = re.compile(r"^(?:an?|the) ")


def _bare(value: str) -> str:
    """A value as the record writes it: core 1.3 rules give it its article ("the entry day is a public holiday",
    "the zone is not the server room"), the record does not ("Entry day: public holiday"); 1.2 wrote none."""
    return _ARTICLE.sub("", value.strip())


def _condition_true(text: str, record: dict[str, str]) -> bool:
    subject = None
    for label in sorted(record, key=len, reverse=True):
        if text.startswith(f"the {label} "):
            subject = label
            break
    if subject is None:
        raise ValueError(f"condition names no record field: {text!r}")
    fact = record[subject]
    predicate = text[len(subject) + 5:]
    if _is_number(fact):
        for pattern, op in _COMPARE:
            m = pattern.match(predicate)
            if m and _is_number(m.group(1)):
                a, b = _number(fact), _number(m.group(1))
                return {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[op]
    for negation in ("is anything other than ", "is not "):
        if predicate.startswith(negation):
            return fact != _bare(predicate[len(negation):])
    if not predicate.startswith("is "):
        raise ValueError(f"unrecognised condition: {text!r}")
    listed = predicate[3:]
    for lead in ("one of ", "either "):
        if listed.startswith(lead):
            listed = listed[len(lead):]
    allowed = [_bare(v) for v in _VALUE_SEPARATOR.split(listed) if v.strip()]
    return fact in allowed


_RANKING_PRECEDENCE = re.compile(
    rf"({_OUTCOME_WORDS}) rules take precedence over ({_OUTCOME_WORDS}) rules, and "
    rf"\2 rules take precedence over ({_OUTCOME_WORDS}) rules"
)
_RANKING_BEATS = re.compile(
    rf"an? ({_OUTCOME_WORDS}) rule beats an? ({_OUTCOME_WORDS}) rule, "
    rf"and an? \2 rule beats an? ({_OUTCOME_WORDS}) rule"
)


def _conflict_rule(text: str) -> tuple[str, list[str]]:
    if "more conditions" in text:
        return "specific", []
    if "lower-numbered rule wins" in text or "comes first in the numbered list prevails" in text:
        return "first", []
    if "higher-numbered rule wins" in text or "comes later in the numbered list overrides" in text:
        return "last", []
    m = _RANKING_PRECEDENCE.search(text)
    if m is None:
        m = _RANKING_BEATS.search(text)
    if m is None:
        raise ValueError("no conflict rule found")
    return "ranking", [m.group(1), m.group(2), m.group(3)]


_DEFAULTS = (
    re.compile(rf"If no rule applies, the [a-z ]+ is ({_PAST_WORDS})\."),
    re.compile(rf"that no rule covers is ({_PAST_WORDS})\."),
    re.compile(rf"Where none of the rules applies, ({_OUTCOME_WORDS}) the "),
)


def _default(text: str) -> str:
    for pattern in _DEFAULTS:
        m = pattern.search(text)
        if m:
            return _KEY_OF_WORD[m.group(1)]
    raise ValueError("no default outcome found")


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("policy_case states are text")
    text = item.state
    lines = text.splitlines()
    record = _read_record(lines)
    labels = list(record)
    rules = _read_rules(lines)
    applicable = []
    for rule in rules:
        conditions = _split_conditions(rule.conditions[0], labels)
        if not all(_condition_true(c, record) for c in conditions):
            continue
        if rule.exception is not None and _condition_true(rule.exception, record):
            continue
        applicable.append((rule, len(conditions)))
    if not applicable:
        return _default(text)
    outcomes = {rule.outcome for rule, _ in applicable}
    if len(outcomes) == 1:
        return applicable[0][0].outcome
    kind, ranking = _conflict_rule(text)
    if kind == "first":
        return min(applicable, key=lambda x: x[0].number)[0].outcome
    if kind == "last":
        return max(applicable, key=lambda x: x[0].number)[0].outcome
    if kind == "specific":
        return max(applicable, key=lambda x: (x[1], -x[0].number))[0].outcome
    return min(outcomes, key=ranking.index)
