"""Invented names that read like names: people, businesses and streets for the scale suite's cases.

The core's names (``generate/common/names.py``) are random syllables ("Zhilkstuk", "Kvourylk Dvygatluv"),
which the reviewers of core 1.2 found the main giveaway of generated text. The scale suite's names are made
of ordinary given names, English surnames that are also words (trades and places: Archer, Fletcher,
Marsh) and place words (Riverside, Linden): "Helen Archer", "Fletcher Packaging", "Linden Road". Each part is
a word the British English dictionary of the text audit knows (tests/scale/test_names.py), so the audit's
spelling check needs no exemption for them; no combination is a well-known person or company
(:data:`AVOIDED` is checked, and a business name always carries its trade).

A :class:`NameBook` hands out names for one case and never the same one twice.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from decisionpivot.generate.common.wording import pick

GIVEN_NAMES = (
    "Helen", "Grace", "Nadia", "Lena", "Ruth", "Daniel", "Maria", "Sofia", "Jonas", "Ingrid", "Marta", "Aisha",
    "Elena", "Hugo", "Clara", "Felix", "Nora", "Leon", "Omar", "Greta", "Zoe", "Joan", "Edith", "Martin", "Tomas",
    "Anna", "Rosa", "Vera", "Peter", "Simon", "Paul", "Mark", "Adam", "Laura", "Julia", "Emma", "Alice", "Irene",
    "Victor", "Oliver", "Isaac", "Naomi", "Esther", "Henry", "Walter", "Frances", "Agnes", "Diana", "Carl",
)
"""Given names (of several languages) the dictionary knows."""

SURNAMES = (
    "Archer", "Fletcher", "Mason", "Carter", "Turner", "Walker", "Cooper", "Fisher", "Porter", "Thatcher",
    "Weaver", "Shepherd", "Miller", "Baker", "Harper", "Hunter", "Sawyer", "Brewer", "Chandler", "Glover",
    "Tanner", "Slater", "Draper", "Mercer", "Marsh", "Heath", "Brook", "Wren", "Hollis", "Linden", "Rowan",
    "Hazel", "Fielding", "Underwood", "Lambert", "Barlow", "Bradley", "Chapman", "Dalton", "Fowler", "Garner",
    "Hayward", "Kemp", "Lowe", "Nash", "Pike", "Reeve", "Stone", "Webb", "Wilde",
)
"""Surnames that are English words (trades, places, plants)."""

PLACE_WORDS = (
    "Riverside", "Hillside", "Harbour", "Meadow", "Orchard", "Linden", "Alder", "Rowan", "Kestrel", "Heath",
    "Beacon", "Willow", "Cedar", "Maple", "Quarry", "Ferry", "Bramble", "Larch", "Hawthorn", "Eastwood",
    "Holly", "Laurel", "Poplar", "Birch", "Chestnut", "Sycamore", "Beech", "Thistle", "Heron", "Osprey",
    "Lakeside", "Woodland", "Crescent", "Lantern", "Compass", "Harvest",
)
"""Words a business or a building takes its name from."""

STREET_KINDS = ("Street", "Road", "Lane", "Way", "Row", "Place")
"""What a street is called."""

AVOIDED = frozenset({
    "Juniper Networks", "Cedar Fair", "Riverside Health", "Harbour Energy", "Beacon Hill", "Stone Island",
    "Heath Robinson", "Fisher Price", "Baker Hughes", "Porter Novelli", "Walker Books", "Marsh McLennan",
})
"""Names of well-known companies, brands and figures that the parts could spell; never handed out."""


class NameBook:
    """Hands out names for one case, never the same one twice, from the case's own random stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.used_surnames: set[str] = set()

    def _fresh(self, make: Callable[[], str]) -> str:
        for _ in range(1000):
            name = make()
            if name not in self.used and name not in AVOIDED:
                self.used.add(name)
                return name
        raise RuntimeError("name space exhausted")

    def surname(self) -> str:
        """A surname not yet used in the case (two people of one case never share one)."""
        name = self._fresh(lambda: pick(self.rng, [s for s in SURNAMES if s not in self.used_surnames]))
        self.used_surnames.add(name)
        return name

    def person(self) -> str:
        """'Helen Archer'."""
        given = pick(self.rng, GIVEN_NAMES)
        return self._fresh(lambda: f"{given} {self.surname()}")

    def given_name(self) -> str:
        """'Helen' (a first name not yet used in the case)."""
        return self._fresh(lambda: pick(self.rng, GIVEN_NAMES))

    def business(self, trades: Sequence[str]) -> str:
        """'Fletcher Packaging' or 'Riverside Packaging': a surname or a place word, then one of ``trades``."""
        def make() -> str:
            first = pick(self.rng, SURNAMES) if self.rng.random() < 0.5 else pick(self.rng, PLACE_WORDS)
            return f"{first} {pick(self.rng, trades)}"

        return self._fresh(make)

    def street(self) -> str:
        """'Linden Road'."""
        return self._fresh(lambda: f"{pick(self.rng, PLACE_WORDS)} {pick(self.rng, STREET_KINDS)}")
