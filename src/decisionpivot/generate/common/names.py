"""Invented names for organisations, people, products and places.

Names are built from syllables (``Mel`` + ``zim``) so that they read as names but are not words.
Two guards keep them away from real entities: every generated stem is checked against
:data:`REAL_NAME_BLOCKLIST` (well-known companies, brands, products, given names and words that the
syllables can spell), and stems are two or three syllables with at least one rare cluster, which
ordinary English and brand names seldom have. A :class:`NameForge` never hands out the same name
twice within one case.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from decisionpivot.generate.common.wording import pick

ONSETS = (
    "b", "br", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "pr", "r",
    "s", "sk", "st", "t", "tr", "v", "z", "zh", "y", "j", "kv", "sv", "dv", "tl",
)
NUCLEI = ("a", "e", "i", "o", "u", "ae", "ei", "ou", "y")
CODAS = ("", "", "", "n", "m", "r", "l", "s", "k", "t", "x", "rn", "lk", "sk", "v", "z", "m")

ORG_SUFFIXES = (
    "Labs", "Works", "Group", "Collective", "Systems", "Partners", "Holdings", "Cooperative",
    "Logistics", "Analytics", "Foundry", "Trading", "Institute", "Studio", "Supply", "Networks",
)
ORG_ENDINGS = {
    "logistics": ("Logistics", "Supply", "Trading", "Group", "Partners", "Networks"),
    "healthcare": ("Group", "Partners", "Institute", "Collective", "Cooperative"),
    "retail": ("Trading", "Supply", "Studio", "Group", "Collective", "Cooperative"),
    "software": ("Labs", "Systems", "Networks", "Analytics", "Studio", "Works"),
    "finance": ("Partners", "Holdings", "Group", "Analytics", "Trading", "Cooperative"),
    "education": ("Institute", "Collective", "Cooperative", "Group", "Partners"),
    "energy": ("Works", "Systems", "Networks", "Group", "Cooperative", "Partners"),
    "hospitality": ("Group", "Collective", "Partners", "Holdings", "Cooperative"),
}
"""Organisation name endings that suit each domain's business (1.1 let a "Foundry" run clinics)."""

PRODUCT_SERIES = ("Mini", "Pro", "Max", "Air", "Lite", "Core", "Flex", "Duo", "One", "Plus")

REAL_NAME_BLOCKLIST = frozenset(
    w.lower()
    for w in (  # noqa: SIM905 - a word list reads best as text
        # companies and brands
        "Apple Google Amazon Meta Tesla Nike Sony Dell Intel Oracle Cisco Bosch Siemens Philips "
        "Nokia Ikea Lego Volvo Saab Audi Kia Seat Fiat Opel Skoda Lada Mazda Honda Subaru Nissan "
        "Toyota Lexus Acer Asus Lenovo Xiaomi Huawei Oppo Vivo Zara Gap Uber Lyft Visa Sega Atari "
        "Nvidia Amd Arm Ibm Hp Sap Adobe Zoom Slack Stripe Shell Bp Total Eni Ups Dhl Fedex Maersk "
        "Roche Bayer Pfizer Moderna Novartis Sanofi Merck Abbott Canon Nikon Ricoh Kodak Xerox "
        "Casio Seiko Rolex Omega Gucci Prada Dior Chanel Hermes Boss Puma Adidas Reebok Fila Asics "
        "Mars Nestle Danone Kraft Heinz Pepsi Coke Fanta Sprite Lipton Oreo Kit Dove Axe Lux "
        "Tata Wipro Infosys Baidu Tencent Alibaba Rakuten Yandex Naver Kakao Line Viber Skype "
        "Nexus Vertex Zenith Apex Nova Orion Titan Atlas Delta Sigma Alpha Beta Gamma Omega "
        # given names and words the syllables can spell
        "Anna Maria Mia Lena Nina Tina Dana Sara Lara Mara Vera Kira Lina Rosa Rita Eva Ida "
        "Tom Tim Sam Dan Ben Ken Jon Max Leo Teo Ivan Igor Oleg Boris Luka Marko Petra Stan "
        "Bank Data Soft Tech Net Web Link Star Sun Moon Sky Sea Lake Rock Stone Gold Silver "
        "Tron Zara Kodo Sumo Judo Tofu Sake Tuna Puma Lama Yoga Kiwi Mango Dune Mute Rune Tune"
    ).split()
)


def invented_stem(rng: random.Random, syllables: int | None = None) -> str:
    """A capitalised pseudo-word of 2-3 syllables that is not on the blocklist.

    Each syllable is an onset, a nucleus and, on the last syllable or with probability 0.3 (drawn first),
    a coda. Written as one loop (no helper call and list per syllable): stems were a twentieth of a draw;
    the draws, in their order, are the same.
    """
    draw = rng.random
    for _ in range(1000):
        n = syllables if syllables is not None else pick(rng, (2, 2, 2, 3))
        last = n - 1
        word = ""
        for i in range(n):
            coda = i == last or draw() < 0.3
            word += pick(rng, ONSETS) + pick(rng, NUCLEI)
            if coda:
                word += pick(rng, CODAS)
        if 4 <= len(word) <= 11 and word.lower() not in REAL_NAME_BLOCKLIST:
            return word[0].upper() + word[1:]
    raise RuntimeError("could not invent a name (blocklist too strict?)")


def lookalike(name: str, rng: random.Random) -> str:
    """A name a hurried reader could confuse with ``name``: one letter changed, or another suffix.

    ``Melzim Labs`` -> ``Melzin Labs`` or ``Melzim Works``. The result always differs from ``name``.
    """
    words = name.split()
    if len(words) > 1 and rng.random() < 0.5:
        alternatives = [s for s in ORG_SUFFIXES if s != words[-1]]
        return " ".join([*words[:-1], pick(rng, alternatives)])
    stem = words[0]
    for _ in range(100):
        i = rng.randrange(1, len(stem))
        ch = stem[i]
        pool = "aeiou" if ch in "aeiou" else "bdgklmnprstvz"
        new = pick(rng, [c for c in pool if c != ch])
        candidate = stem[:i] + new + stem[i + 1 :]
        if candidate.lower() not in REAL_NAME_BLOCKLIST:
            return " ".join([candidate, *words[1:]])
    raise RuntimeError(f"could not make a look-alike of {name!r}")


def suited(organisation: str, endings: Sequence[str]) -> str:
    """The organisation's invented stem with an ending from ``endings``, chosen by the stem itself, so a
    draw's random stream stays as it was before endings depended on the domain."""
    stem = organisation.rsplit(" ", 1)[0]
    return f"{stem} {endings[sum(map(ord, stem)) % len(endings)]}"


class NameForge:
    """Hands out invented names, never the same one twice (within one forge, i.e. one case)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def _fresh(self, make: object) -> str:
        for _ in range(1000):
            name = make()  # type: ignore[operator]
            if name not in self.used:
                self.used.add(name)
                return name
        raise RuntimeError("name space exhausted")

    def claim(self, name: str) -> str:
        """Mark an externally built name (e.g. a look-alike) as used; error if it already is."""
        if name in self.used:
            raise ValueError(f"name {name!r} already used in this case")
        self.used.add(name)
        return name

    def organisation(self, domain: str | None = None) -> str:
        """'Melzim Labs'; with a domain, an ending that suits its business ('Melzim Institute' teaches)."""
        if domain is None:
            return self._fresh(lambda: f"{invented_stem(self.rng)} {pick(self.rng, ORG_SUFFIXES)}")
        endings = ORG_ENDINGS[domain]
        return self._fresh(lambda: suited(f"{invented_stem(self.rng)} {pick(self.rng, ORG_SUFFIXES)}", endings))

    def person(self) -> str:
        """'Tarin Volsek'."""
        return self._fresh(
            lambda: f"{invented_stem(self.rng, 2)} {invented_stem(self.rng, pick(self.rng, (2, 3)))}"
        )

    def given_name(self) -> str:
        """'Tarin'."""
        return self._fresh(lambda: invented_stem(self.rng, 2))

    def product(self) -> str:
        """'Lumrov Mini-404'."""
        return self._fresh(
            lambda: f"{invented_stem(self.rng)} {pick(self.rng, PRODUCT_SERIES)}-{self.rng.randrange(100, 1000)}"
        )

    def place(self) -> str:
        """'Ostrivel'."""
        return self._fresh(lambda: invented_stem(self.rng, pick(self.rng, (2, 3))))

    def word(self) -> str:
        """A bare invented word (package names, code names)."""
        return self._fresh(lambda: invented_stem(self.rng).lower())
