"""Independent solver for fact_answerable: read the glossary, the facts and the question, then look up.

Reads only the rendered state. The glossary tells which row label answers which kind of question;
the question under review names (kind, organisation) pairs; the answer is yes when a row with that
exact organisation and that exact label exists for every pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from decisionpivot.items import Item

FAMILY = "fact_answerable"

_GLOSSARY = re.compile(r'^- "(?P<label>[^"]+)": .*?(?:Answers questions about the (?P<p1>.+?)\.'
                       r"|This is the (?P<p2>.+?)\.)$")
_LIST_QUERIES = (
    r"^What is the combined (?P<p>{P}) of (?P<o>.+)\?$",
    r"^Add up the (?P<p>{P}) of (?P<o>.+): what is the total\?$",
    r"^Which of (?P<o>.+) has the (?:largest|larger) (?P<p>{P})\?$",
    r"^(?:Among|Of) (?P<o>.+), whose (?P<p>{P}) is the (?:largest|larger)\?$",
    r"^Do (?P<o>.+) (?:all|both) have the same (?P<p>{P})\?$",
    r"^Is the (?P<p>{P}) the same for (?P<o>.+)\?$",
)
_PROFILE = re.compile(r"^(?:For a briefing note, give|State) (?P<x>.+)\.$")


def _split_names(text: str) -> list[str]:
    head, _, last = text.rpartition(" and ")
    return [*(p.strip() for p in head.split(", ") if p.strip()), last.strip()] if head else [text.strip()]


def _rows(lines: list[str]) -> set[tuple[str, str]]:
    rows = set()
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] in ("Organisation", "---"):
                continue
            rows.add((cells[0], cells[1]))
        elif line.startswith("- ") and " — " in line:
            org, _, rest = line[2:].partition(" — ")
            rows.add((org, rest.rsplit(": ", 1)[0]))
        elif line.count("; ") == 2 and line != "Organisation; Attribute; Value":
            org, label, _ = line.split("; ")
            rows.add((org, label))
    return rows


@dataclass(frozen=True)
class _QueryPatterns:
    """The question patterns of one glossary, which name its phrases."""

    lists: tuple[re.Pattern[str], ...]
    """``_LIST_QUERIES`` with the phrases in place of ``{P}``, in that order."""
    phrase: re.Pattern[str]
    """One phrase after "the", captured."""
    facts_of: re.Pattern[str]
    """"the A, the B and the C of X": the phrases (group 1) and the organisation (group 2)."""


def _longest_first(phrases: list[str]) -> tuple[str, ...]:
    """The distinct phrases, longest first, equal lengths alphabetically: the alternatives of the phrase patterns.
    Longest first, so a phrase is not cut short by one it starts with. Among phrases of one length the order
    does not matter to a match (two different strings of one length never both match at one place), so one
    glossary shuffled differently gets the same tuple - and the patterns built for it before."""
    return tuple(sorted(set(phrases), key=lambda p: (-len(p), p)))


@lru_cache(maxsize=64)
def _query_patterns(phrases: tuple[str, ...]) -> _QueryPatterns:
    """The compiled question patterns for phrases given by :func:`_longest_first`. A draw has a few glossaries
    (one per domain) and hundreds of items: the patterns are built once per glossary, not once per item."""
    alternation = "|".join(re.escape(p) for p in phrases)
    group = rf"the (?:{alternation})"
    return _QueryPatterns(
        lists=tuple(re.compile(pattern.replace("{P}", alternation)) for pattern in _LIST_QUERIES),
        phrase=re.compile(rf"the ({alternation})"),
        facts_of=re.compile(rf"((?:{group}(?:, | and ))*{group}) of (.+?)(?=, the |, and the | and the |$)"),
    )


def _needs(query: str, phrases: list[str]) -> list[tuple[str, str]]:
    patterns = _query_patterns(_longest_first(phrases))
    for pattern in patterns.lists:
        m = pattern.match(query)
        if m:
            return [(m.group("p"), org) for org in _split_names(m.group("o"))]
    m = _PROFILE.match(query)
    if not m:
        raise ValueError(f"unrecognised question under review: {query!r}")
    x = m.group("x")
    needs: list[tuple[str, str]] = []
    if x.startswith("these facts: "):  # core 1.2: "these facts: for X, the A and the B; for Y, the C"
        for chunk in x.removeprefix("these facts: ").split("; "):
            org, _, facts = chunk.removeprefix("for ").partition(", ")
            needs += [(p, org) for p in patterns.phrase.findall(facts)]
    else:  # "the A of X, the B of Y" (1.1) and "the A and the B of X" (1.2)
        for facts, org in patterns.facts_of.findall(x):
            needs += [(p, org) for p in patterns.phrase.findall(facts)]
    if not needs:
        raise ValueError(f"no facts recognised in {query!r}")
    return needs


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("fact_answerable states are text")
    lines = item.state.splitlines()
    phrase_to_label: dict[str, str] = {}
    for line in lines:
        m = _GLOSSARY.match(line)
        if m:
            phrase_to_label[m.group("p1") or m.group("p2")] = m.group("label")
    facts_at = lines.index("Facts:")
    query_line = next(line for line in lines if line.startswith("Question under review: "))
    rows = _rows(lines[facts_at + 1 : lines.index(query_line)])
    needs = _needs(query_line.removeprefix("Question under review: "), list(phrase_to_label))
    return "yes" if all((org, phrase_to_label[p]) in rows for p, org in needs) else "no"
