"""Names that read like names of their place and kind (core 1.3, issue #38), chosen by the draws of the 1.2
syllable names so that every case is drawn from the same random stream."""

from __future__ import annotations

import random

import pytest

from decisionpivot.audit import text
from decisionpivot.generate.common import names
from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.names import (
    CODAS,
    COUNTRIES,
    NUCLEI,
    ONSETS,
    ORG_ENDINGS,
    REAL_NAME_BLOCKLIST,
    REGIONS,
    VARIANTS,
    NameForge,
    invented_stem,
    lookalike,
    region,
)
from decisionpivot.generate.common.wording import pick

DOMAIN_NAMES = [d.name for d in DOMAINS]


@pytest.mark.parametrize("domain", DOMAIN_NAMES)
def test_people_organisations_and_places_come_from_the_domains_region(domain: str) -> None:
    forge = NameForge(random.Random(3), domain)
    where = region(domain)
    for _ in range(40):
        given, family = forge.person().split(" ")
        assert given in where.given and family in where.family
        stem, ending = forge.organisation().split(" ")
        assert stem in where.family + where.towns and ending in ORG_ENDINGS[domain]
    for _ in range(20):
        assert forge.place() in where.towns and forge.given_name() in where.given
    stem, form = forge.company().rsplit(" ", 1)
    assert stem in where.family + where.towns and form == names.LEGAL_FORMS[where.name]


def test_every_domain_has_a_region_and_endings_and_no_ending_serves_two_businesses() -> None:
    assert set(DOMAIN_NAMES) <= set(names.REGION_OF_DOMAIN) and set(DOMAIN_NAMES) <= set(ORG_ENDINGS)
    endings = [e for kinds in ORG_ENDINGS.values() for e in kinds]
    assert len(endings) == len(set(endings))
    assert "Foundry" not in endings and "Hotels" not in ORG_ENDINGS["healthcare"]


def test_no_syllable_name_is_shown() -> None:
    forge = NameForge(random.Random(8), "software")
    shown = [forge.person(), forge.organisation(), forge.place(), forge.product(), forge.word(), forge.country()]
    assert all(part in names.NAME_WORDS or part.isdigit() for name in shown for part in name.split()), shown


def _stems_1_2(rng: random.Random, kind: str) -> None:
    """What NameForge took from the stream in 1.2 for one name of ``kind`` (no collision)."""
    if kind in ("organisation", "company"):
        invented_stem(rng), pick(rng, names.ORG_SUFFIXES)
    elif kind == "person":
        invented_stem(rng, 2), invented_stem(rng, pick(rng, (2, 3)))
    elif kind == "product":
        invented_stem(rng), pick(rng, names.PRODUCT_SERIES), rng.randrange(100, 1000)
    elif kind in ("place", "country"):
        invented_stem(rng, pick(rng, (2, 3)))
    elif kind == "given_name":
        invented_stem(rng, 2)
    else:
        invented_stem(rng)


@pytest.mark.parametrize("kind", ["organisation", "company", "person", "product", "place", "country", "given_name",
                                  "word"])
def test_each_name_takes_exactly_the_draws_of_its_1_2_counterpart(kind: str) -> None:
    """Collisions (frequent with lists of a few dozen names) move to the next choice, not to another draw."""
    for seed in range(30):
        forge, then = NameForge(random.Random(seed), "hospitality"), random.Random(seed)
        count = 6 if kind == "country" else 12  # 8 pairs of countries, one of each pair per case
        for _ in range(count):
            getattr(forge, kind)()
            _stems_1_2(then, kind)
        assert forge.rng.getstate() == then.getstate(), (kind, seed)
        assert len(forge.used) == count


def test_a_well_known_person_is_never_handed_out() -> None:
    """The blocklist guard: where the draws select a famous combination, the forge hands out another name."""
    seen = 0
    for seed in range(3000):
        rng = random.Random(seed)
        first, last = invented_stem(rng, 2), invented_stem(rng, pick(rng, (2, 3)))
        where = region("hospitality")
        raw = f"{names._chosen(where.given, 'given', first, 0)} {names._chosen(where.family, 'family', last, 0)}"
        if raw.lower() in names.FAMOUS_PEOPLE:
            seen += 1
            assert NameForge(random.Random(seed), "hospitality").person() != raw
    assert seen, "no draw selected a blocked name: the test checks nothing"


def test_no_real_company_is_handed_out() -> None:
    for domain in DOMAIN_NAMES:
        forge = NameForge(random.Random(1), domain)
        for _ in range(300):
            organisation = forge.organisation()
            assert not names._blocked(organisation)
            assert not set(organisation.lower().split()) & names.REAL_COMPANIES


def test_every_family_name_has_a_lookalike_on_the_lists() -> None:
    for where in REGIONS.values():
        for family_name in where.family:
            assert VARIANTS.get(family_name), family_name
    rng = random.Random(4)
    for name in ("Hansen Hotels", "Bakker Freight", "Karin", "Jensen", "Austria", "Kestrel"):
        for _ in range(20):
            twin = lookalike(name, rng)
            assert twin != name and all(part in names.NAME_WORDS for part in twin.split()), (name, twin)
    assert lookalike("Austria", rng) == "Australia" and {lookalike(c, rng) for c in COUNTRIES} == set(COUNTRIES)
    with pytest.raises(ValueError, match="no look-alike"):
        lookalike("Zhilkstuk", rng)


def test_a_country_whose_twin_is_used_is_not_handed_out() -> None:
    """filter_match claims the twin of a record's country as its look-alike: it must still be free."""
    for seed in range(200):
        forge = NameForge(random.Random(seed), "retail")
        countries = [forge.country() for _ in range(5)]
        assert not {names.COUNTRY_TWIN[c] for c in countries} & set(countries)


@pytest.mark.parametrize("domain", DOMAIN_NAMES)
def test_every_name_passes_the_audits_text_check(domain: str) -> None:
    rng = random.Random(5)
    for _ in range(150):
        forge = NameForge(rng, domain)
        organisation = forge.organisation()
        for name in (organisation, forge.person(), forge.place(), forge.product(), forge.word(),
                     lookalike(organisation, rng)):
            assert text.misspelled(name) == [], name


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
