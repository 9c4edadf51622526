"""Typos and look-alike letters (suite 1.1) never touch what decides: digits, names, keys, the group's decisive values,
or anything the solvers parse - on the whole released suite and on generated texts (hypothesis)."""

from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from decisionpivot.frame.framings import (
    CHANGED_WORDS,
    HOMOGLYPHS,
    HOMOGLYPHS_OF,
    TYPOS,
    changed_state,
    is_prose,
    solver_words,
)
from decisionpivot.items import Item
from decisionpivot.solve import solvers
from tests.frame.test_framings import decisive_strings

CHANGED = (TYPOS, HOMOGLYPHS)


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|[^\w\s]", text)


def _strings(state: str | dict) -> list[str]:
    if isinstance(state, str):
        return [state]
    values = state.values() if isinstance(state, dict) else state
    return [s for v in values if isinstance(v, str | dict | list) for s in _strings(v)]


def _keys(state: object) -> list[str]:
    if isinstance(state, dict):
        return [k for key, value in state.items() for k in (key, *_keys(value))]
    if isinstance(state, list):
        return [k for value in state for k in _keys(value)]
    return []


def test_typos_and_homoglyphs_keep_every_decisive_value(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    seen = {framing: 0 for framing in CHANGED}
    for family, items in suite.items():
        for item in items:
            framing = item.extra["framing"]
            if framing not in CHANGED:
                continue
            seen[framing] += 1
            base = core[item.extra["base"]]
            assert item.state != base.state, item.id
            assert _keys(item.state) == _keys(base.state), item.id  # keys of structured states untouched
            before, after = "\n".join(_strings(base.state)), "\n".join(_strings(item.state))
            assert re.findall(r"\d+", after) == re.findall(r"\d+", before), item.id  # every figure
            assert re.findall(r"\b[A-Z]\w*", after) == re.findall(r"\b[A-Z]\w*", before), item.id  # names, headings
            for value in decisive_strings(family, item.group or ""):  # as a whole word or phrase, as the case has it
                pattern = rf"(?<!\w){re.escape(value)}(?!\w)"
                assert len(re.findall(pattern, after)) == len(re.findall(pattern, before)), (item.id, value)
            changed = {a for a, b in zip(_tokens(before), _tokens(after), strict=True) if a != b}
            assert 0 < len(changed) <= CHANGED_WORDS, item.id  # one token for one token: no word split or merged
            assert not changed & solver_words(family), item.id
            lines = zip(before.splitlines(), after.splitlines(), strict=True)
            assert all(is_prose(a) for a, b in lines if a != b), item.id  # prose lines only
            if framing == HOMOGLYPHS:
                assert set(after) - set(before) <= set(HOMOGLYPHS_OF.values()), item.id
            assert solvers()[family](item) == item.answer, item.id
    assert all(seen.values()), seen


def test_members_of_a_group_get_the_same_changes(suite: dict[str, list[Item]], core: dict[str, Item]) -> None:
    """A word two members share is changed the same way in both: the pivot stays the only difference."""
    for family, items in suite.items():
        by_group: dict[tuple[str, str], list[dict[str, str]]] = {}
        for item in items:
            if item.extra["framing"] in CHANGED:
                base = core[item.extra["base"]]
                before, after = "\n".join(_strings(base.state)), "\n".join(_strings(item.state))
                pairs = {a: b for a, b in zip(_tokens(before), _tokens(after), strict=True) if a != b}
                by_group.setdefault((item.group or "", item.extra["framing"]), []).append(pairs)
        for (group, framing), changes in by_group.items():
            merged: dict[str, str] = {}
            for pairs in changes:
                for word, new in pairs.items():
                    assert merged.setdefault(word, new) == new, (family, group, framing, word)


WORD = st.text(string.ascii_lowercase, min_size=1, max_size=12)
NAME = st.builds(lambda w: w.capitalize(), st.text(string.ascii_lowercase, min_size=2, max_size=9))
FIGURE = st.integers(0, 10**6).map(str)


@st.composite
def states(draw: st.DrawFn) -> tuple[str, frozenset[str]]:
    """A text of prose sentences and record lines mixing words, names and figures, and some decisive words."""
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        words = draw(st.lists(st.one_of(WORD, WORD, WORD, NAME, FIGURE), min_size=1, max_size=16))
        if draw(st.booleans()):  # a prose sentence
            lines.append(draw(NAME) + " " + " ".join(words) + ".")
        else:  # a record line
            lines.append("- " + ": ".join(words))
    text = "\n".join(lines)
    decisive = draw(st.lists(st.sampled_from(re.findall(r"[a-z]{6,}", text) or ["nothing"]), max_size=4))
    return text, frozenset(decisive)


@settings(max_examples=300, deadline=None)
@given(states(), st.integers(0, 2**32), st.sampled_from(CHANGED))
def test_changes_touch_only_free_prose_words(case: tuple[str, frozenset[str]], seed: int, framing: str) -> None:
    text, decisive = case
    changed, changes = changed_state(text, framing, seed, "g", decisive)
    assert isinstance(changed, str)
    assert changed.count("\n") == text.count("\n")
    assert re.findall(r"\d+", changed) == re.findall(r"\d+", text)
    assert re.findall(r"\b[A-Z]\w*", changed) == re.findall(r"\b[A-Z]\w*", text)
    for word in decisive:
        assert len(re.findall(rf"\b{word}\b", changed)) == len(re.findall(rf"\b{word}\b", text)), word
    assert len(changes) <= CHANGED_WORDS and not set(changes) & decisive
    for before, after in zip(text.splitlines(), changed.splitlines(), strict=True):
        if before != after:
            assert is_prose(before)
            assert len(_tokens(before)) == len(_tokens(after))
    again, _ = changed_state(text, framing, seed, "g", decisive)
    assert again == changed  # deterministic
