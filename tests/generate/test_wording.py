"""``pick`` draws its index with getrandbits as CPython's ``randrange``/``choice`` do: the same variant and the
same stream as the ``randrange`` index it replaced."""

from __future__ import annotations

import random

import pytest

from decisionpivot.generate.common.wording import pick


def test_pick_draws_what_the_randrange_index_and_choice_drew_and_leaves_the_stream_where_they_left_it() -> None:
    for seed in range(200):
        new, old, chosen = random.Random(seed), random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 1000, 2**20 + 3):
            variants = range(n)
            drawn = pick(new, variants)
            assert drawn == variants[old.randrange(len(variants))] == chosen.choice(variants)
        assert new.getstate() == old.getstate() == chosen.getstate()


def test_pick_takes_tuples_lists_and_strings_and_refuses_an_empty_sequence() -> None:
    rng = random.Random(5)
    assert pick(rng, ("a",)) == "a" and pick(rng, ["b"]) == "b" and pick(rng, "c") == "c"
    with pytest.raises(ValueError, match="at least one variant"):
        pick(rng, ())
