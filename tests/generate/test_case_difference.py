"""``case_difference`` descends only where two cases differ; it must give exactly the paths the definition
gives: flatten both cases and compare them path by path (``_flat_difference``)."""

from __future__ import annotations

import copy
import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from decisionpivot.generate.family import _flat_difference, _plain_case, case_difference, flatten
from tests.conftest import FAMILY_NAMES, built_groups

NAN = math.nan

LEAVES = st.sampled_from([0, 1, 1.0, True, False, 0.0, -0.0, None, "", "x", "1", "a/b", NAN, (1,), (NAN,), 2.5])
KEYS = st.sampled_from(["a", "b", "c", "0", "1", "", "a/b", "/", 0, 1, 1.0, True, (1,)])
"""Plain keys, and every kind that spells a path another key can spell: "" and "/" keys, 1 == 1.0 == True."""


def definition(a: Any, b: Any) -> set[str]:
    """The paths at which two cases differ, as the contract defines them."""
    return _flat_difference(flatten(a), flatten(b))


values = st.recursive(
    LEAVES | st.just({}) | st.just([]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


PLAIN_KEYS = st.sampled_from(["a", "b", "c", "0"])


def _pairs(inner: st.SearchStrategy[tuple[Any, Any]], keys: st.SearchStrategy[Any] = KEYS) -> st.SearchStrategy[
    tuple[Any, Any]
]:
    """Two containers built from pairs of entries: equal entries, entries on one side only, other orders."""
    entries = st.lists(st.tuples(keys, inner, st.sampled_from(["both", "a", "b"])), max_size=4)

    def dicts(rows: list[tuple[Any, tuple[Any, Any], str]]) -> tuple[Any, Any]:
        a = {key: pair[0] for key, pair, side in rows if side != "b"}
        b = {key: pair[1] for key, pair, side in reversed(rows) if side != "a"}
        return a, b

    def lists(rows: list[tuple[Any, tuple[Any, Any], str]]) -> tuple[Any, Any]:
        a = [pair[0] for _, pair, side in rows if side != "b"]
        b = [pair[1] for _, pair, side in rows if side != "a"]
        return a, b

    return entries.map(dicts) | entries.map(lists)


same = values.map(lambda v: (v, copy.deepcopy(v))) | values.map(lambda v: (v, v))
pairs = st.recursive(same | st.tuples(values, values), _pairs, max_leaves=10)
plain_pairs = st.recursive(
    st.recursive(
        st.sampled_from([0, 1, 1.0, True, None, "x", "y", 2.5]) | st.just({}) | st.just([]),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(PLAIN_KEYS, inner, max_size=3),
        max_leaves=8,
    ).map(lambda v: (v, copy.deepcopy(v))),
    lambda inner: _pairs(inner, PLAIN_KEYS),
    max_leaves=10,
)


@settings(max_examples=500, deadline=None)
@given(pairs)
@example(({"0": 1, "1": 2}, [1, 2]))  # a dict and a list with the same flattened paths
@example(({"0": 1}, [1, 3]))
@example(({"a": {}}, {"a": []}))  # empty containers are leaves, and {} != []
@example(({"a": {}}, {"a": {"b": 1}}))
@example(({"a": [1]}, {"a": []}))
@example(({"a": 1}, {"b": 1}))  # keys on one side only
@example(({"a": 1}, {"a": 1.0}))  # 1 == 1.0 == True leaves are the same leaf
@example(({"a": [True]}, {"a": [1.0]}))
@example(({"x": {1: "v"}}, {"x": {1.0: "v"}}))  # equal subtrees whose keys spell other paths
@example(({"x": {1: "v"}}, {"x": {True: "v"}}))
@example(({"x": {"a/b": 1, "a": {"b": 2}}}, {"x": {"a": {"b": 2}, "a/b": 1}}))  # equal, collide in other orders
@example(({"": {"a": 1}, "a": 2}, {"a": 2, "": {"a": 1}}))
@example(({"x": [NAN]}, {"x": [NAN]}))  # the same NaN object: equal lists, unequal leaves
@example(({"x": NAN}, {"x": NAN}))
@example(({"x": {"y": 1}, "z": [1, 2]}, {"x": {"y": 1, "": 3}, "z": [1, 2]}))  # a key in b only that is not plain
@example(({"a": 1}, {"a": 1, 1: 2}))
@example((1, 1.0))
@example(([], {}))
@example(({}, {}))
def test_case_difference_is_the_flattened_comparison(pair: tuple[Any, Any]) -> None:
    a, b = pair
    assert case_difference(a, b) == definition(a, b)
    assert case_difference(b, a) == definition(b, a)


@settings(max_examples=300, deadline=None)
@given(plain_pairs)
def test_case_difference_is_the_flattened_comparison_on_plain_cases_with_shared_parts(pair: tuple[Any, Any]) -> None:
    a, b = pair
    assert _plain_case(a)
    assert case_difference(a, b) == definition(a, b)


def test_what_is_plain() -> None:
    assert _plain_case({"a": [1, {"b": "x", "c": None}], "d": {}, "e": [], "f": 1.5})
    for not_plain in ({1: 0}, {"": 0}, {"a/b": 0}, {"a": [{"b": NAN}]}, [NAN], {"a": {True: 1}}):
        assert not _plain_case(not_plain)


def test_case_difference_is_the_flattened_comparison_on_every_family_case() -> None:
    for name in FAMILY_NAMES:
        for _, group in built_groups(name)[:40]:
            base = group.members[0].case
            assert _plain_case(base)
            for member in group.members:
                assert case_difference(base, member.case) == definition(base, member.case)
