"""Invented organisation names with endings that suit the domain, drawn without changing the random stream."""

from __future__ import annotations

import random

import pytest

from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.names import ORG_ENDINGS, NameForge, suited


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
