"""The scale suite's names read like names: dictionary words the text audit knows, never a well-known name."""

from __future__ import annotations

import random

import pytest

from decisionpivot.audit.text import known_word, misspelled
from decisionpivot.scale import names


@pytest.mark.parametrize("words", [names.GIVEN_NAMES, names.SURNAMES, names.PLACE_WORDS, names.STREET_KINDS])
def test_every_part_is_a_word_the_audit_dictionary_knows(words: tuple[str, ...]) -> None:
    assert [w for w in words if not known_word(w)] == []
    assert len(set(words)) == len(words)


def test_a_book_never_repeats_a_name_or_a_surname_and_avoids_known_ones() -> None:
    for seed in range(200):
        book = names.NameBook(random.Random(seed))
        people = [book.person() for _ in range(6)]
        shops = [book.business(("Freight", "Packaging")) for _ in range(4)]
        made = people + shops + [book.street()]
        assert len(set(made)) == len(made)
        assert len({p.split()[1] for p in people}) == len(people)
        assert not set(made) & names.AVOIDED
        assert misspelled(" ".join(made)) == []

