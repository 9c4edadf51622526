"""``pick`` draws with ``rng.choice``: the same variant and the same stream as the ``randrange`` index it replaced."""

from __future__ import annotations

import random

import pytest

from decisionpivot.generate.common.wording import pick


def test_pick_draws_what_the_randrange_index_drew_and_leaves_the_stream_where_it_left_it() -> None:
    for seed in range(200):
        new, old = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1000, 2**20 + 3):
            variants = range(n)
            assert pick(new, variants) == variants[old.randrange(len(variants))]
        assert new.getstate() == old.getstate()


def test_pick_takes_tuples_lists_and_strings_and_refuses_an_empty_sequence() -> None:
    rng = random.Random(5)
    assert pick(rng, ("a",)) == "a" and pick(rng, ["b"]) == "b" and pick(rng, "c") == "c"
    with pytest.raises(ValueError, match="at least one variant"):
        pick(rng, ())
