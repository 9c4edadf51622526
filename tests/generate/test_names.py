"""Invented organisation names with endings that suit the domain, drawn without changing the random stream."""

from __future__ import annotations

import random

import pytest

from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.names import (
    CODAS,
    NUCLEI,
    ONSETS,
    ORG_ENDINGS,
    REAL_NAME_BLOCKLIST,
    NameForge,
    invented_stem,
    suited,
)
from decisionpivot.generate.common.wording import pick


@pytest.mark.parametrize("domain", [d.name for d in DOMAINS])
def test_an_organisation_of_a_domain_has_an_ending_that_suits_it(domain: str) -> None:
    forge = NameForge(random.Random(3))
    for _ in range(200):
        assert forge.organisation(domain).rsplit(" ", 1)[1] in ORG_ENDINGS[domain]


def test_the_ending_depends_on_the_stem_only_so_the_stream_is_unchanged() -> None:
    plain, suited_forge = NameForge(random.Random(11)), NameForge(random.Random(11))
    for _ in range(50):
        name = plain.organisation()
        assert suited_forge.organisation("healthcare") == suited(name, ORG_ENDINGS["healthcare"])
    assert plain.rng.random() == suited_forge.rng.random()


def test_every_domain_has_endings_and_no_industry_word_leaks_into_another_business() -> None:
    assert set(ORG_ENDINGS) == {d.name for d in DOMAINS}
    assert "Foundry" not in {e for endings in ORG_ENDINGS.values() for e in endings}
    assert "Logistics" not in ORG_ENDINGS["healthcare"] and "Institute" not in ORG_ENDINGS["logistics"]


def _definition_stem(rng: random.Random, syllables: int | None = None) -> str:
    """invented_stem as it read with a helper per syllable: the loop version must draw the same."""

    def syllable(coda: bool) -> str:
        return pick(rng, ONSETS) + pick(rng, NUCLEI) + (pick(rng, CODAS) if coda else "")

    for _ in range(1000):
        n = syllables if syllables is not None else pick(rng, (2, 2, 2, 3))
        word = "".join([syllable((i == n - 1) or rng.random() < 0.3) for i in range(n)])
        if 4 <= len(word) <= 11 and word.lower() not in REAL_NAME_BLOCKLIST:
            return word[0].upper() + word[1:]
    raise RuntimeError("could not invent a name")


def test_invented_stems_are_the_definitions_draw_for_draw() -> None:
    for seed in range(300):
        new, old = random.Random(seed), random.Random(seed)
        for syllables in (None, 2, 3, None, 1, 4):
            assert invented_stem(new, syllables) == _definition_stem(old, syllables)
        assert new.getstate() == old.getstate()
