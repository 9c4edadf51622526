"""Names of people, organisations, places, products and things that read like names of their place and kind.

Core 1.3 (issue #38): 1.2 wrote every name as random syllables ("Zhilkstuk", "Kvourylk Dvygatluv"), the main
giveaway that an item was generated. Names are still invented - no real person or company is meant - but they
are built from parts a reader of the case's region expects:

* every domain has a region (:data:`REGION_OF_DOMAIN`: the Dutch freight forwarder pays in EUR, the Swiss
  clinic in CHF, the Swedish shop in SEK, the American software firm in USD, the British lender in GBP, the
  Irish college in EUR, the Norwegian utility in NOK, the Danish hotel in DKK), with given names, family names
  and towns of that region (:class:`Region`);
* a person is a given name and a family name of the region (``Sanne Bakker``); a combination that names a
  well-known person is never handed out (:data:`FAMOUS_PEOPLE`, the blocklist guard);
* an organisation is a family name or a town of the region and an ending that suits the domain's business
  (``Bakker Freight``, ``Vejle Hotels``, ``Galway Academy``); a well-known company's name is never handed out
  (:data:`REAL_COMPANIES`);
* a product is a brand and a model (``Kestrel Pro 48``), a place a town of the region, a country of origin a
  country, a code name an ordinary word (``cedar``);
* a look-alike (:func:`lookalike`) is a spelling a hurried reader confuses with the name: ``Hansen`` and
  ``Hanson``, ``Bakker Freight`` and ``Bakker Haulage``, ``Austria`` and ``Australia``. Every look-alike is
  itself on the lists (:data:`VARIANT_GROUPS`).

Every word a name can contain is in :data:`NAME_WORDS`, the allow-list ``dp audit``'s text check exempts
(``audit/text.py``): no grammar, the words themselves.

The random stream. A name is chosen by the draws the 1.2 name took: :func:`invented_stem` still draws its
syllables (onsets, nuclei, codas) exactly as 1.2 did, and the new name is the list entry the SHA-256 of those
draws selects (:func:`_chosen`). The syllables are never shown. So every family draws its cases, answers and
contrast groups after a name exactly as 1.2 did; only a name that collides with one already used in the case
(the lists are shorter than the syllable space) and a look-alike draw more or other numbers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.generate.common.wording import pick

# --- the draw (as in 1.2: the random stream every family's cases are drawn from) ------------------------------

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
"""The 1.2 endings: still drawn (one pick per organisation), so that the stream stays as it was; never shown."""
PRODUCT_SERIES = ("Mini", "Pro", "Max", "Air", "Lite", "Core", "Flex", "Duo", "One", "Plus")
"""Model series of a product (``Kestrel Pro 48``)."""

REAL_NAME_BLOCKLIST = frozenset(
    w.lower()
    for w in (  # noqa: SIM905 - a word list reads best as text
        "Apple Google Amazon Meta Tesla Nike Sony Dell Intel Oracle Cisco Bosch Siemens Philips "
        "Nokia Ikea Lego Volvo Saab Audi Kia Seat Fiat Opel Skoda Lada Mazda Honda Subaru Nissan "
        "Toyota Lexus Acer Asus Lenovo Xiaomi Huawei Oppo Vivo Zara Gap Uber Lyft Visa Sega Atari "
        "Nvidia Amd Arm Ibm Hp Sap Adobe Zoom Slack Stripe Shell Bp Total Eni Ups Dhl Fedex Maersk "
        "Roche Bayer Pfizer Moderna Novartis Sanofi Merck Abbott Canon Nikon Ricoh Kodak Xerox "
        "Casio Seiko Rolex Omega Gucci Prada Dior Chanel Hermes Boss Puma Adidas Reebok Fila Asics "
        "Mars Nestle Danone Kraft Heinz Pepsi Coke Fanta Sprite Lipton Oreo Kit Dove Axe Lux "
        "Tata Wipro Infosys Baidu Tencent Alibaba Rakuten Yandex Naver Kakao Line Viber Skype "
        "Nexus Vertex Zenith Apex Nova Orion Titan Atlas Delta Sigma Alpha Beta Gamma Omega "
        "Anna Maria Mia Lena Nina Tina Dana Sara Lara Mara Vera Kira Lina Rosa Rita Eva Ida "
        "Tom Tim Sam Dan Ben Ken Jon Max Leo Teo Ivan Igor Oleg Boris Luka Marko Petra Stan "
        "Bank Data Soft Tech Net Web Link Star Sun Moon Sky Sea Lake Rock Stone Gold Silver "
        "Tron Zara Kodo Sumo Judo Tofu Sake Tuna Puma Lama Yoga Kiwi Mango Dune Mute Rune Tune"
    ).split()
)
"""Words the 1.2 syllables could spell and :func:`invented_stem` redraws (part of the stream, kept as it was)."""


def invented_stem(rng: random.Random, syllables: int | None = None) -> str:
    """The 1.2 draw of a name: a capitalised pseudo-word of 2-3 syllables not on :data:`REAL_NAME_BLOCKLIST`.

    Never shown since core 1.3: it is what a name is chosen by (:func:`_chosen`), so that every name takes the
    draws its 1.2 counterpart took. Each syllable is an onset, a nucleus and, on the last syllable or with
    probability 0.3 (drawn first), a coda; written as one loop, the draws in their 1.2 order.
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


def _chosen(options: Sequence[str], *drawn: object) -> str:
    """The entry of ``options`` that the draws ``drawn`` select (SHA-256, the same on every host)."""
    return options[stable_seed("names", *drawn) % len(options)]


# --- the lists --------------------------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


@dataclass(frozen=True)
class Region:
    """Where the people and organisations of a domain's cases are: the parts of their names."""

    name: str
    """The country, for the docs and tests (``Denmark``)."""
    given: tuple[str, ...]
    """Given names common there (no diacritics: the items are plain ASCII English)."""
    family: tuple[str, ...]
    """Family names common there; each has look-alike spellings in :data:`VARIANT_GROUPS`."""
    towns: tuple[str, ...]
    """Towns there: places, meeting rooms, the first word of some organisations."""


REGIONS: dict[str, Region] = {
    "Netherlands": Region(
        "Netherlands",
        _words("Daan Bram Thijs Ruben Jeroen Sander Bas Maarten Wouter Pieter Joost Niels Koen Stijn Gijs Lotte Sanne "
               "Femke Anouk Iris Marieke Esther Ingrid Annelies Lieke Floor Noor Roos Ilse Marloes Judith"),
        _words("Jansen Bakker Visser Smit Meijer Mulder Vos Peters Hendriks Dekker Brouwer Dijkstra Verhoeven Kok "
               "Jacobs Willems Hoekstra Koster Prins Huisman Kuiper Kramer Evers Wouters Molenaar Timmerman"),
        _words("Zwolle Breda Delft Gouda Haarlem Leiden Venlo Almere Tilburg Deventer Arnhem Nijmegen Alkmaar Hoorn "
               "Assen Emmen Harderwijk Meppel Zutphen Kampen Heerenveen Schagen Goes Weert Roermond"),
    ),
    "Switzerland": Region(
        "Switzerland",
        _words("Andreas Daniel Stefan Markus Reto Urs Beat Lukas Simon Matthias Christoph Adrian Jonas Ursula Monika "
               "Sandra Barbara Nicole Karin Andrea Claudia Daniela Corinne Regula Franziska Simone Sabine Nadine "
               "Silvia"),
        _words("Meier Schmid Keller Weber Huber Schneider Steiner Fischer Gerber Brunner Baumann Frei Zimmermann Moser "
               "Widmer Wyss Graf Roth Baumgartner Bachmann Studer Kunz Lehmann Marti Egli Hofer Kaufmann"),
        _words("Aarau Baden Biel Chur Olten Thun Uster Zug Sursee Liestal Frauenfeld Wetzikon Rapperswil Burgdorf "
               "Langenthal Wohlen Lenzburg Wil Brugg Dietikon Einsiedeln Horgen Bulle Yverdon Arbon Visp"),
    ),
    "Sweden": Region(
        "Sweden",
        _words("Erik Lars Karl Johan Per Nils Mikael Fredrik Oskar Viktor Gustav Emil Linnea Elin Karin Sara Emma "
               "Annika Malin Sofia Johanna Ebba Helena Frida Elsa Maja Ingrid Stina Ulla Gunnar"),
        _words("Andersson Johansson Karlsson Nilsson Eriksson Larsson Olsson Persson Svensson Gustafsson Pettersson "
               "Jonsson Jansson Bengtsson Lindberg Lindqvist Lindgren Axelsson Sandberg Forsberg Wallin Eklund "
               "Danielsson Nyberg Holmberg Falk Blom Ekman Hedlund Lindholm"),
        _words("Falun Kalmar Karlstad Sundsvall Uppsala Visby Ystad Halmstad Kristianstad Motala Eskilstuna Varberg "
               "Kiruna Mora Hudiksvall Sandviken Kungsbacka Solna Sollentuna Nacka Lomma Falkenberg Ludvika Kalix"),
    ),
    "United States": Region(
        "United States",
        _words("Megan Kyle Trevor Heather Brandon Courtney Derek Lindsay Travis Kristen Shane Tara Wesley Allison "
               "Garrett Colleen Darren Erin Brett Jenna Marcus Paige Caleb Monica Dustin Whitney Corey Chelsea Lance "
               "Brianna"),
        _words("Johnson Miller Davis Wilson Moore Martin Thompson Harris Clark Lewis Robinson Walker Allen Wright "
               "Scott Green Adams Baker Nelson Mitchell Roberts Turner Phillips Campbell Parker Collins Stewart Morris "
               "Rogers Reed Bailey Cooper Howard Brooks Bennett Gray Hughes Price Sanders Myers Foster Powell Jenkins "
               "Perry Russell Sullivan Coleman Barnes Fisher Hayes Wallace Holmes Palmer Mills Grant Hudson Spencer "
               "Matthews Bradley Lane Andrews Riley Lawrence Elliott Austin"),
        _words("Bellevue Boulder Fremont Irvine Madison Raleigh Tempe Provo Durham Ithaca Eugene Spokane Tacoma "
               "Olympia Salem Dayton Ames Lawrence Flagstaff Missoula Burlington Asheville Savannah Chattanooga "
               "Lansing Laramie"),
    ),
    "United Kingdom": Region(
        "United Kingdom",
        _words("Oliver Harry George Jack Charlie Thomas William Samuel Joseph Alexander Matthew Luke Adam Callum Rhys "
               "Amelia Olivia Emily Isla Sophie Jessica Chloe Lucy Grace Ellie Hannah Charlotte Katie Rebecca Gemma "
               "Claire Rachel Priya Imran"),
        _words("Davies Robinson Wright Thompson Evans Walker Roberts Green Hall Wood Clarke Hughes Edwards Turner Hill "
               "Cooper Ward Morris Harrison Allen Scott Phillips Watson Parker Price Bennett Young Griffiths Mitchell "
               "Cook Carter Richardson Bailey Bell Shaw Marshall Simpson Ellis Wilkinson Chapman Webb Mason Owen "
               "Barker Stevens Murray Dixon Harvey Pearson Walsh Gibson Reynolds Payne Pearce Burton Watts Wells Rees "
               "Newman Barrett Gregory Lowe Page Marsh Parsons Reid Hawkins Harding Porter Gardner Bates Burgess "
               "Shepherd Freeman Warren Sutton Hodgson Curtis Hopkins"),
        _words("Bedford Chester Derby Exeter Harrogate Kendal Lancaster Norwich Salisbury Shrewsbury Taunton Worcester "
               "Ludlow Hexham Truro Wells Kettering Banbury Stafford Darlington Macclesfield Barnstaple Grantham "
               "Penrith"),
    ),
    "Ireland": Region(
        "Ireland",
        _words("Aoife Siobhan Niamh Ciara Sinead Orla Grainne Roisin Eimear Clodagh Deirdre Aisling Maeve Sorcha Emer "
               "Caoimhe Sean Ciaran Padraig Eoin Cian Darragh Colm Fergal Ronan Conor Donal Kieran Eamon Declan"),
        _words("Murphy Kelly Byrne Ryan Walsh Doyle Gallagher Doherty Kennedy Lynch Quinn Carroll Connolly Daly Dunne "
               "Brennan Burke Johnston Farrell Fitzgerald Nolan Flynn Callaghan Sweeney Duffy Kavanagh Healy Whelan "
               "Moran Dolan Foley Egan Cullen Malone Tierney Hogan Kearney Corcoran Boyle"),
        _words("Athlone Carlow Clonmel Dundalk Ennis Galway Kilkenny Killarney Letterkenny Limerick Mullingar Navan "
               "Sligo Tralee Tullamore Wexford Ballina Bandon Carrick Castlebar Cavan Dungarvan Longford Naas Nenagh "
               "Youghal"),
    ),
    "Norway": Region(
        "Norway",
        _words("Ole Knut Jan Hans Arne Svein Geir Tor Kjell Morten Espen Magnus Sindre Eirik Marius Ingrid Kari Hilde "
               "Marit Randi Solveig Silje Ingeborg Tone Kristin Marte Nora Ingvild Siri Torunn Guro Hege"),
        _words("Johansen Olsen Larsen Andersen Pedersen Nilsen Kristiansen Karlsen Johnsen Pettersen Eriksen Haugen "
               "Hagen Johannessen Andreassen Dahl Halvorsen Henriksen Moen Gundersen Iversen Strand Solberg Svendsen "
               "Eide Knutsen Martinsen Paulsen Bakken Mathisen Amundsen Solheim Berge Lunde Brekke Evensen"),
        _words("Arendal Drammen Hamar Harstad Lillehammer Molde Narvik Porsgrunn Sandnes Skien Stavanger Larvik Halden "
               "Steinkjer Kristiansund Askim Notodden Elverum Kongsvinger Mandal Egersund Flekkefjord Voss Orkanger "
               "Levanger"),
    ),
    "Denmark": Region(
        "Denmark",
        _words("Mette Kirsten Hanne Lone Susanne Karen Camilla Louise Pia Sofie Freja Signe Julie Mathilde Cecilie "
               "Jens Peter Henrik Niels Christian Jesper Rasmus Morten Jakob Kasper Frederik Troels Ulrik Carsten "
               "Torben Poul"),
        _words("Jensen Nielsen Hansen Petersen Madsen Kristensen Thomsen Christiansen Poulsen Mortensen Knudsen "
               "Jakobsen Mikkelsen Olesen Frederiksen Laursen Lund Holm Schmidt Simonsen Clausen Andreasen Jeppesen "
               "Vestergaard Mogensen Nissen Lauridsen Bertelsen Bach Skov Friis Bang Toft Winther"),
        _words("Aabenraa Esbjerg Fredericia Haderslev Herning Holstebro Horsens Kolding Nyborg Odense Randers Ribe "
               "Roskilde Silkeborg Svendborg Viborg Skive Thisted Hobro Grenaa Ringsted Slagelse Vejen Nakskov Varde"),
    ),
}
"""The regions the eight domains' cases are set in."""

REGION_OF_DOMAIN = {
    "logistics": "Netherlands", "healthcare": "Switzerland", "retail": "Sweden", "software": "United States",
    "finance": "United Kingdom", "education": "Ireland", "energy": "Norway", "hospitality": "Denmark",
    "insurance": "Switzerland",
}
"""Domain -> region (by the domain's currency: EUR, CHF, SEK, USD, GBP, EUR, NOK, DKK)."""

ORG_ENDINGS = {
    "logistics": ("Freight", "Logistics", "Haulage", "Shipping", "Forwarding", "Transport"),
    "healthcare": ("Clinic", "Clinics", "Health", "Medical", "Care", "Physiotherapy"),
    "retail": ("Home", "Homeware", "Interiors", "Living", "Stores", "Furnishings"),
    "software": ("Software", "Systems", "Labs", "Digital", "Technologies", "Computing"),
    "finance": ("Finance", "Capital", "Credit", "Payments", "Lending", "Savings"),
    "education": ("College", "Academy", "Learning", "Institute", "Training", "Tutors"),
    "energy": ("Energy", "Power", "Utilities", "Electric", "Renewables"),
    "hospitality": ("Hotels", "Hotel", "Inn", "Events", "Hospitality", "Lodge"),
    "insurance": ("Insurance", "Assurance", "Mutual", "Underwriting"),
}
"""Organisation name endings that suit each domain's business; no ending serves two domains. Besides the eight
domains, ``insurance`` names the insurers of ``policy_case``'s household claims."""

LEGAL_FORMS = {
    "Netherlands": "B.V.", "Switzerland": "AG", "Sweden": "AB", "United States": "Inc.", "United Kingdom": "Ltd",
    "Ireland": "Ltd", "Norway": "AS", "Denmark": "A/S",
}
"""The legal form a company of each region writes after its name (``Wouters B.V.``, ``Quinn Ltd``): for a party
whose line of business the case does not say (a customer of an agreement)."""

COUNTRY_LOOKALIKES = (
    ("Austria", "Australia"), ("Slovakia", "Slovenia"), ("Iceland", "Ireland"), ("China", "Chile"),
    ("India", "Indonesia"), ("Taiwan", "Thailand"), ("Latvia", "Lithuania"), ("Romania", "Armenia"),
)
"""Countries of origin, in pairs a hurried reader confuses."""
COUNTRIES = tuple(country for pair in COUNTRY_LOOKALIKES for country in pair)

BRANDS = _words(
    "Kestrel Halden Norvik Brightwell Ashby Larkin Tamber Corvel Velden Arden Marlow Kelso Harlow Alder Solvik "
    "Nordhem Lindell Carrow Dunmore Everly Hartwell Moreton Rowan Thorne Fenby Greystone Hollis Kinross Lomond "
    "Merrow Ottery Penrose Quarry Selby Tarrant Wyvern"
)
"""Brand words of products (invented: none is a well-known brand)."""

WORDS = _words(
    "amber aspen birch cedar copper falcon harbour juniper maple meadow orchid pebble raven summit willow beacon "
    "comet ember garnet hazel indigo kestrel marble nimbus quartz ridge slate thistle violet walnut yarrow heron "
    "lark otter pine reed sage wren fern acorn badger bramble clover dune fjord glacier heather iris lantern "
    "mistral nettle oriole poppy rowan saffron tansy umber vale"
)
"""Ordinary words for code names, host names and packages (``cedar-3``)."""

VARIANT_GROUPS = (
    # Dutch
    ("Jansen", "Janssen"), ("Bakker", "Backer", "Bekker"), ("Visser", "Vissers"), ("Smit", "Smits", "Smid"),
    ("Meijer", "Meier", "Meyer"), ("Mulder", "Mulders"), ("Vos", "Voss"), ("Peters", "Pieters", "Peeters"),
    ("Hendriks", "Hendricks", "Hendrikx"), ("Dekker", "Decker", "Dekkers"), ("Brouwer", "Brouwers"),
    ("Dijkstra", "Dykstra"), ("Verhoeven", "Verhoef"), ("Kok", "Kock"), ("Jacobs", "Jakobs"),
    ("Willems", "Willemse", "Willemsen"), ("Hoekstra", "Hoeksma"), ("Koster", "Kuster", "Kosters"),
    ("Prins", "Prinsen"), ("Huisman", "Huismans"), ("Kuiper", "Kuipers", "Kuyper"), ("Kramer", "Cramer", "Kraemer"),
    ("Evers", "Everts"), ("Wouters", "Woutersen"), ("Molenaar", "Molenaars"), ("Timmerman", "Timmermans"),
    # Swiss
    ("Schmid", "Schmidt", "Schmied"), ("Keller", "Kellner"), ("Weber", "Webber", "Wever"), ("Huber", "Hueber"),
    ("Schneider", "Schnyder"), ("Steiner", "Stainer"), ("Fischer", "Fisher"), ("Gerber", "Gerbert"),
    ("Brunner", "Bruner"), ("Baumann", "Bauman"), ("Frei", "Frey"), ("Zimmermann", "Zimmerman"), ("Moser", "Mosser"),
    ("Widmer", "Widmann"), ("Wyss", "Wiss"), ("Graf", "Graff"), ("Roth", "Rothe"),
    ("Baumgartner", "Baumgarten"), ("Bachmann", "Bachman"), ("Studer", "Stuber"), ("Kunz", "Kuntz", "Kunze"),
    ("Lehmann", "Lehman", "Leemann"), ("Marti", "Marty"), ("Egli", "Eggli"), ("Hofer", "Hoffer"),
    ("Kaufmann", "Kauffmann", "Kaufman"),
    # Swedish
    ("Andersson", "Andersen", "Anderson"), ("Johansson", "Johanson", "Johansen"), ("Karlsson", "Karlson", "Karlsen"),
    ("Nilsson", "Nilson", "Nilsen"), ("Eriksson", "Erikson", "Eriksen"), ("Larsson", "Larson", "Larsen"),
    ("Olsson", "Olson", "Olsen"), ("Persson", "Person", "Pehrsson"), ("Svensson", "Svenson"),
    ("Gustafsson", "Gustavsson", "Gustafson"), ("Pettersson", "Petersson", "Pettersen"), ("Jonsson", "Jonson"),
    ("Jansson", "Janson"), ("Bengtsson", "Bengtson"), ("Lindberg", "Lundberg"), ("Lindqvist", "Lindquist", "Lindkvist"),
    ("Lindgren", "Lundgren"), ("Axelsson", "Axelson"), ("Sandberg", "Sundberg"), ("Forsberg", "Forsburg"),
    ("Wallin", "Wahlin"), ("Eklund", "Ekelund"), ("Danielsson", "Danielson"), ("Nyberg", "Nyborg"),
    ("Holmberg", "Holmgren"), ("Falk", "Falck"), ("Blom", "Blohm"), ("Ekman", "Eckman"), ("Hedlund", "Hedlind"),
    ("Lindholm", "Lundholm"),
    # American and British
    ("Johnson", "Johnston", "Jonson"), ("Miller", "Millar"), ("Davis", "Davies", "Davison"), ("Wilson", "Willson"),
    ("Moore", "Moor"), ("Martin", "Martyn", "Marten"), ("Thompson", "Thomson", "Thomason"),
    ("Harris", "Harries", "Harrison"), ("Clark", "Clarke"), ("Lewis", "Lewes"), ("Robinson", "Robertson", "Robson"),
    ("Walker", "Walter"), ("Allen", "Allan", "Alleyn"), ("Wright", "Wight"), ("Scott", "Stott"), ("Green", "Greene"),
    ("Adams", "Addams", "Adamson"), ("Baker", "Barker"), ("Nelson", "Neilson"), ("Mitchell", "Mitchel", "Michell"),
    ("Roberts", "Robarts"), ("Turner", "Tanner"), ("Phillips", "Phillipps"), ("Campbell", "Campbel"),
    ("Parker", "Parkes"), ("Collins", "Collin"), ("Stewart", "Stuart", "Steward"), ("Morris", "Morriss", "Norris"),
    ("Rogers", "Rodgers"), ("Reed", "Reid", "Read"), ("Bailey", "Bayley", "Baily"), ("Cooper", "Couper"),
    ("Howard", "Hayward", "Howarth"), ("Brooks", "Brookes"), ("Bennett", "Bennet"), ("Gray", "Grey"),
    ("Hughes", "Hughs"), ("Price", "Pryce"), ("Sanders", "Saunders"), ("Myers", "Meyers"), ("Foster", "Forster"),
    ("Powell", "Powel", "Howell"), ("Jenkins", "Jenkin"), ("Perry", "Parry"), ("Russell", "Russel"),
    ("Sullivan", "Sullavan"), ("Coleman", "Colman"), ("Barnes", "Barns"), ("Hayes", "Hays"),
    ("Wallace", "Wallis"), ("Holmes", "Holme"), ("Palmer", "Parmer"), ("Mills", "Miles"), ("Grant", "Grand"),
    ("Hudson", "Hodson", "Hutson"), ("Spencer", "Spenser"), ("Matthews", "Mathews"), ("Bradley", "Bradly"),
    ("Lane", "Laine", "Layne"), ("Andrews", "Andrewes"), ("Riley", "Reilly"), ("Lawrence", "Laurence"),
    ("Elliott", "Elliot", "Eliot"), ("Austin", "Austen"), ("Hall", "Hull"), ("Wood", "Woods"), ("Edwards", "Edwardes"),
    ("Hill", "Hills"), ("Ward", "Warde"), ("Watson", "Watkinson"), ("Young", "Younge"), ("Griffiths", "Griffith"),
    ("Cook", "Cooke"), ("Carter", "Carver"), ("Richardson", "Richards"), ("Bell", "Bells"), ("Shaw", "Shore"),
    ("Marshall", "Marshal"), ("Simpson", "Simson"), ("Ellis", "Ellison"), ("Wilkinson", "Wilkins"),
    ("Chapman", "Chatman"), ("Webb", "Webbe"), ("Mason", "Masson"), ("Owen", "Owens"), ("Stevens", "Stephens"),
    ("Murray", "Murrey"), ("Dixon", "Dickson"), ("Harvey", "Hervey"), ("Pearson", "Pierson"), ("Walsh", "Welsh"),
    ("Gibson", "Gibbons"), ("Reynolds", "Reynold"), ("Payne", "Paine"), ("Pearce", "Pierce", "Pearse"),
    ("Burton", "Barton"), ("Watts", "Watt"), ("Wells", "Welles"), ("Rees", "Reese"), ("Newman", "Neumann"),
    ("Barrett", "Barratt"), ("Gregory", "Gregor"), ("Lowe", "Low"), ("Page", "Paget"), ("Marsh", "March"),
    ("Parsons", "Parson"), ("Hawkins", "Haskins"), ("Harding", "Hardinge"), ("Porter", "Potter"),
    ("Gardner", "Gardiner"), ("Bates", "Yates"), ("Burgess", "Burges"), ("Shepherd", "Shepard", "Sheppard"),
    ("Freeman", "Freedman"), ("Warren", "Warran"), ("Sutton", "Dutton"), ("Hodgson", "Hodson"), ("Curtis", "Curtiss"),
    ("Hopkins", "Hoskins"), ("Evans", "Evens", "Evanson"),
    # Irish
    ("Murphy", "Murphey"), ("Kelly", "Kelley"), ("Byrne", "Burne", "Byrnes"), ("Ryan", "Ryans"), ("Doyle", "Boyle"),
    ("Gallagher", "Gallacher"), ("Doherty", "Docherty", "Dougherty"), ("Kennedy", "Kenneally"), ("Lynch", "Linch"),
    ("Quinn", "Quin"), ("Carroll", "Carrol"), ("Connolly", "Conolly", "Connelly"), ("Daly", "Daley"),
    ("Dunne", "Dunn"), ("Brennan", "Brannan"), ("Burke", "Bourke"), ("Farrell", "Ferrell"),
    ("Fitzgerald", "Fitzgibbon"), ("Nolan", "Nolen"), ("Flynn", "Flinn"), ("Callaghan", "Callahan"),
    ("Sweeney", "Sweeny"), ("Duffy", "Duffey"), ("Kavanagh", "Cavanagh"), ("Healy", "Healey"), ("Whelan", "Phelan"),
    ("Moran", "Moren"), ("Dolan", "Doolan"), ("Foley", "Folley"), ("Egan", "Eagan"), ("Cullen", "Cullinan"),
    ("Malone", "Maloney"), ("Tierney", "Tiernan"), ("Hogan", "Hagan"), ("Kearney", "Carney"),
    ("Corcoran", "Cochrane"), ("Walsh", "Walshe"),
    # Norwegian
    ("Pedersen", "Petersen", "Pederson"), ("Kristiansen", "Christiansen", "Kristensen"), ("Johnsen", "Jonsen"),
    ("Haugen", "Haugan"), ("Hagen", "Hagan"), ("Johannessen", "Johannesen"), ("Andreassen", "Andreasen"),
    ("Dahl", "Dahle"), ("Halvorsen", "Halvorson"), ("Henriksen", "Hendriksen"), ("Moen", "Moe"),
    ("Gundersen", "Gunderson"), ("Iversen", "Iverson"), ("Strand", "Strande"), ("Solberg", "Soberg"),
    ("Svendsen", "Svensen"), ("Eide", "Eidem"), ("Knutsen", "Knudsen"), ("Martinsen", "Martinson"),
    ("Paulsen", "Poulsen"), ("Bakken", "Bakke"), ("Mathisen", "Mathiesen"), ("Amundsen", "Amundson"),
    ("Solheim", "Solem"), ("Berge", "Berg"), ("Lunde", "Lund"), ("Brekke", "Brekken"), ("Evensen", "Evenson"),
    # Danish
    ("Jensen", "Jenssen", "Jenson"), ("Nielsen", "Nielson"), ("Hansen", "Hanson", "Hanssen"),
    ("Madsen", "Madson"), ("Thomsen", "Tomsen"), ("Mortensen", "Mortenson"), ("Jakobsen", "Jacobsen"),
    ("Mikkelsen", "Michelsen"), ("Olesen", "Olsen"), ("Frederiksen", "Fredriksen"), ("Laursen", "Lauritsen"),
    ("Holm", "Holme"), ("Simonsen", "Simonson"), ("Clausen", "Klausen"), ("Jeppesen", "Jepsen"),
    ("Vestergaard", "Westergaard"), ("Mogensen", "Mogenson"), ("Nissen", "Nisse"), ("Lauridsen", "Lauritzen"),
    ("Bertelsen", "Bertelson"), ("Bach", "Bache"), ("Skov", "Skou"), ("Friis", "Fries"), ("Bang", "Bange"),
    ("Toft", "Tofte"), ("Winther", "Winter"),
    # given names
    ("Karin", "Karen", "Carin"), ("Erik", "Eric"), ("Karl", "Carl"), ("Kristin", "Kirsten", "Christin"),
    ("Christian", "Kristian"), ("Kasper", "Casper"), ("Camilla", "Kamilla"), ("Carsten", "Karsten"),
    ("Marit", "Merit"), ("Hanne", "Hanna"), ("Sofie", "Sophie", "Sofia"), ("Frederik", "Fredrik"),
    ("Jakob", "Jacob"), ("Niels", "Nils"), ("Morten", "Martin"), ("Peter", "Petter", "Pieter"),
    ("Henrik", "Hendrik"), ("Jesper", "Jasper"), ("Poul", "Paul"), ("Ulrik", "Ulrich"), ("Signe", "Signy"),
    ("Louise", "Louisa"), ("Julie", "Julia"), ("Cecilie", "Cecilia"), ("Mathilde", "Matilda"), ("Troels", "Truels"),
    ("Ole", "Olle"), ("Knut", "Knud"), ("Hans", "Hanns"), ("Arne", "Arnie"), ("Tor", "Thor"), ("Geir", "Geert"),
    ("Eirik", "Eirikur"), ("Marius", "Markus"), ("Magnus", "Mogens"), ("Ingrid", "Ingred"), ("Kari", "Kare"),
    ("Randi", "Randy"), ("Silje", "Silja"), ("Tone", "Toni"), ("Marte", "Marta"), ("Nora", "Norah"),
    ("Siri", "Sari"), ("Hege", "Helge"), ("Mette", "Mete"), ("Lone", "Lene"), ("Susanne", "Suzanne"),
    ("Pia", "Pie"), ("Freja", "Freya"), ("Torben", "Torbern"), ("Jens", "Jans"), ("Rasmus", "Rasmos"),
    ("Daan", "Daen"), ("Bram", "Brom"), ("Thijs", "Thys"), ("Ruben", "Reuben"), ("Jeroen", "Jeroin"),
    ("Sander", "Xander"), ("Bas", "Bast"), ("Maarten", "Marten"), ("Wouter", "Wolter"), ("Joost", "Joest"),
    ("Koen", "Koos"), ("Stijn", "Stein"), ("Gijs", "Guus"), ("Lotte", "Lotta"), ("Sanne", "Sanna"),
    ("Femke", "Fenna"), ("Anouk", "Anouck"), ("Iris", "Irys"), ("Marieke", "Mariken"),
    ("Esther", "Ester"), ("Annelies", "Anneliese"), ("Lieke", "Lieka"), ("Floor", "Flor"), ("Noor", "Noortje"),
    ("Roos", "Rosa"), ("Ilse", "Ilsa"), ("Marloes", "Marlous"), ("Judith", "Judit"),
    ("Andreas", "Andres"), ("Daniel", "Danielle"), ("Stefan", "Stephan"), ("Reto", "Rito"), ("Urs", "Ursi"),
    ("Beat", "Beatus"), ("Lukas", "Lucas"), ("Simon", "Simone"), ("Matthias", "Mathias"), ("Christoph", "Christof"),
    ("Adrian", "Adrien"), ("Jonas", "Jonah"), ("Ursula", "Ursina"), ("Monika", "Monica"), ("Sandra", "Saundra"),
    ("Barbara", "Barbra"), ("Nicole", "Nicola"), ("Andrea", "Andreia"), ("Claudia", "Claudie"),
    ("Daniela", "Daniella"), ("Corinne", "Corina"), ("Regula", "Regola"), ("Franziska", "Francesca"),
    ("Sabine", "Sabina"), ("Nadine", "Nadia"), ("Silvia", "Sylvia"),
    ("Lars", "Lasse"), ("Johan", "Johann"), ("Per", "Pehr"), ("Mikael", "Michael"), ("Oskar", "Oscar"),
    ("Viktor", "Victor"), ("Gustav", "Gustaf"), ("Emil", "Emile"), ("Linnea", "Linea"), ("Elin", "Eline"),
    ("Sara", "Sarah"), ("Emma", "Emmy"), ("Annika", "Anika"), ("Malin", "Maline"), ("Johanna", "Joanna"),
    ("Ebba", "Ebbe"), ("Helena", "Helene"), ("Frida", "Freda"), ("Elsa", "Else"), ("Maja", "Maya"),
    ("Stina", "Tina"), ("Ulla", "Ulli"), ("Gunnar", "Gunner"),
    ("Megan", "Meghan"), ("Kyle", "Kylie"), ("Trevor", "Trever"), ("Heather", "Hether"), ("Brandon", "Branden"),
    ("Courtney", "Kortney"), ("Derek", "Derrick"), ("Lindsay", "Lindsey"), ("Travis", "Trevis"),
    ("Kristen", "Kristin"), ("Shane", "Shayne"), ("Tara", "Terra"), ("Wesley", "Westley"),
    ("Allison", "Alison"), ("Garrett", "Garret"), ("Colleen", "Coleen"), ("Darren", "Darin"), ("Erin", "Eryn"),
    ("Brett", "Bret"), ("Jenna", "Jena"), ("Marcus", "Markus"), ("Paige", "Page"), ("Caleb", "Kaleb"),
    ("Dustin", "Duston"), ("Whitney", "Whitny"), ("Corey", "Cory"), ("Chelsea", "Chelsey"), ("Lance", "Lancy"),
    ("Brianna", "Breanna"),
    ("Oliver", "Olivier"), ("Harry", "Hary"), ("George", "Georgie"), ("Jack", "Jake"), ("Charlie", "Charley"),
    ("Thomas", "Tomas"), ("William", "Willem"), ("Samuel", "Samual"), ("Joseph", "Josef"),
    ("Alexander", "Alexandra"), ("Matthew", "Mathew"), ("Luke", "Luka"), ("Adam", "Adams"), ("Callum", "Calum"),
    ("Rhys", "Reece"), ("Amelia", "Emelia"), ("Olivia", "Olive"), ("Emily", "Emilie"), ("Isla", "Isha"),
    ("Jessica", "Jesica"), ("Chloe", "Cloe"), ("Lucy", "Lucie"), ("Grace", "Gracie"), ("Ellie", "Elle"),
    ("Hannah", "Hanna"), ("Charlotte", "Charlot"), ("Katie", "Katy"), ("Rebecca", "Rebekah"), ("Gemma", "Jemma"),
    ("Claire", "Clare"), ("Rachel", "Rachael"), ("Priya", "Pria"), ("Imran", "Imron"),
    ("Aoife", "Aoibhe"), ("Siobhan", "Shivaun"), ("Niamh", "Neve"), ("Ciara", "Kiara"), ("Sinead", "Shinead"),
    ("Orla", "Orlagh"), ("Grainne", "Grania"), ("Roisin", "Rosheen"), ("Eimear", "Emer"), ("Clodagh", "Cloda"),
    ("Deirdre", "Deidre"), ("Aisling", "Ashling"), ("Maeve", "Meave"), ("Sorcha", "Sorsha"),
    ("Caoimhe", "Keeva"), ("Sean", "Shaun", "Shawn"), ("Ciaran", "Kieran"), ("Padraig", "Padraic"), ("Eoin", "Eoghan"),
    ("Cian", "Kian"), ("Darragh", "Daragh"), ("Colm", "Colum"), ("Fergal", "Fergus"), ("Ronan", "Rowan"),
    ("Conor", "Connor"), ("Donal", "Donall"), ("Eamon", "Eamonn"), ("Declan", "Deklan"),
    ("Svein", "Sven"), ("Kjell", "Kjel"), ("Espen", "Esben"), ("Sindre", "Sindri"), ("Solveig", "Solvig"),
    ("Ingeborg", "Ingeberg"), ("Ingvild", "Ingvill"), ("Torunn", "Torun"), ("Guro", "Gura"), ("Hilde", "Hilda"),
    ("Jan", "Jon"),
    # brands
    ("Kestrel", "Kestral"), ("Halden", "Haldon"), ("Norvik", "Narvik"), ("Brightwell", "Brightwood"),
    ("Ashby", "Ashbury"), ("Larkin", "Larkins"), ("Tamber", "Tambor"), ("Corvel", "Corvell"), ("Velden", "Veldon"),
    ("Arden", "Ardern"), ("Marlow", "Marlowe"), ("Kelso", "Kelsey"), ("Harlow", "Harlowe"), ("Alder", "Alden"),
    ("Solvik", "Solvig"), ("Nordhem", "Nordheim"), ("Lindell", "Lindel"), ("Carrow", "Carlow"),
    ("Dunmore", "Dunmoor"), ("Everly", "Everley"), ("Hartwell", "Hartwall"), ("Moreton", "Morton"),
    ("Rowan", "Rowen"), ("Thorne", "Thornes"), ("Fenby", "Fenbury"), ("Greystone", "Graystone"),
    ("Hollis", "Hollies"), ("Kinross", "Kinrose"), ("Lomond", "Lomand"), ("Merrow", "Morrow"),
    ("Ottery", "Ottley"), ("Penrose", "Penrith"), ("Quarry", "Quarrie"), ("Selby", "Selsby"),
    ("Tarrant", "Tarrent"), ("Wyvern", "Wyvren"),
)
"""Spellings a hurried reader confuses, in groups; a look-alike of a name part is another member of its group."""

FAMOUS_PEOPLE = frozenset(
    name.lower()
    for name in (
        "Astrid Lindgren", "Karl Larsson", "Carl Larsson", "Henrik Larsson", "Martin Suter", "Mads Mikkelsen",
        "Mette Frederiksen", "Christian Eriksen", "Christian Andersen", "Lars Larsen", "Anders Rasmussen",
        "Lars Rasmussen", "Poul Rasmussen", "Troels Poulsen", "Niamh Kavanagh", "Dermot Kennedy",
        "Conor Murray", "Magnus Carlsen", "Erna Solberg", "Jamie Oliver", "George Harrison", "Adam Smith",
        "Harry Kane", "Thomas Cook", "William Morris", "Alexander Graham", "Charlie Parker", "George Martin",
        "Oliver Reed", "Luke Shaw", "Jack Russell", "Harry Potter", "Emma Watson", "Thomas Hardy",
        "William Hill", "Charlotte Church", "Sean Kelly", "Ronan Keating", "Conor McGregor", "Kyle Walker",
        "Marcus Rashford", "Derek Jeter", "Travis Scott", "Erin Andrews", "Colleen Hoover", "Trevor Moore",
        "Chelsea Clinton", "Brandon Walker", "Megan Fox", "Paige Spiranac", "Magnus Nilsson", "Stefan Persson",
        "Sofia Karlsson", "Emma Johansson", "Oskar Andersson", "Sara Larsson", "Gunnar Nordahl",
        "Kasper Hjulmand", "Peter Schmeichel", "Jesper Olsen", "Niels Bohr", "Karen Blixen", "Arne Jacobsen",
        "Thomas Jordan", "Simon Ammann", "Daniel Vasella", "Beat Feuz", "Urs Meier",
    )
)
"""Well-known people a drawn combination could name: never handed out (the blocklist guard)."""

REAL_COMPANIES = frozenset(
    name.lower()
    for name in (
        "Maersk", "Jysk", "Carlsberg", "Lego", "Ikea", "Volvo", "Ericsson", "Nilfisk", "Grundfos", "Vestas",
        "Equinor", "Telenor", "Nordea", "Handelsbanken", "Philips", "Heineken", "Shell", "Unilever", "Nestle",
        "Novartis", "Roche", "Swatch", "Lindt", "Sandoz", "Geberit", "Schindler", "Hilti", "Kongsberg",
        "Trelleborg", "Skagen", "Waterford", "Hennessy", "Lloyds", "Barclays", "Morgan", "Stanley", "Hilton",
        "Marriott", "Scandic", "Radisson", "Johnson Health", "Johnson Medical", "Johnson Controls",
        "Nelson Labs", "Harrison Medical", "Campbell Systems", "Phillips Medical", "Brooks Systems",
        "Bennett Hotels", "Lane Health", "Carter Capital", "Thompson Hotels", "Andersen Hotels",
        "Hansen Medical", "Fisher Capital", "Bell Labs", "Bell Capital", "Kelly Services", "Turner Construction",
        "Lund Energy", "Burton Hotels", "Marsh Capital", "Walsh Colleges",
    )
)
"""Well-known companies (a word of them, or the whole name) a drawn name could spell: never handed out."""


def _variant_table() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for group in VARIANT_GROUPS:
        for word in group:
            others = table.setdefault(word, [])
            others.extend(w for w in group if w != word and w not in others)
    return {word: tuple(others) for word, others in table.items()}


VARIANTS = _variant_table()
"""Name part -> its look-alike spellings (every group member, both ways)."""

COUNTRY_TWIN = {a: b for pair in COUNTRY_LOOKALIKES for a, b in (pair, pair[::-1])}
ENDING_DOMAIN = {ending: domain for domain, endings in ORG_ENDINGS.items() for ending in endings}
"""Organisation ending -> the domain it belongs to (each ending serves one domain)."""

NAME_WORDS = frozenset(
    word
    for words in (
        *(r.given + r.family + r.towns for r in REGIONS.values()),
        *VARIANT_GROUPS, COUNTRIES, BRANDS, PRODUCT_SERIES, WORDS, *ORG_ENDINGS.values(), ("Inc", "Ltd"),
    )
    for word in words
)
"""Every word a name can contain: the allow-list ``dp audit``'s text check exempts from the dictionary."""


def region(domain: str) -> Region:
    """The region a domain's cases are set in."""
    return REGIONS[REGION_OF_DOMAIN[domain]]


def _blocked(name: str) -> bool:
    lower = name.lower()
    return lower in FAMOUS_PEOPLE or lower in REAL_COMPANIES or any(w in REAL_COMPANIES for w in lower.split())


def _unblocked(make: Callable[[int], str]) -> str:
    """``make(0)``, or ``make(1)``, ... when a name is blocked (no draw: only the choice's salt changes)."""
    for salt in range(100):
        name = make(salt)
        if not _blocked(name):
            return name
    raise RuntimeError("every choice of a name is blocked")


# --- the names ---------------------------------------------------------------------------------------------


def company_stem(rng: random.Random, domain: str) -> str:
    """The first word of an organisation of ``domain``: a family name or a town of its region (one 1.2 stem's
    draws). Families add their own ending (``Kelso Bank``)."""
    stem = invented_stem(rng)
    return _unblocked(lambda salt: _stem_of(stem, region(domain), salt))


def _stem_of(drawn: str, where: Region, salt: int = 0) -> str:
    if stable_seed("names", "town?", drawn, salt) % 10 < 3:
        return _chosen(where.towns, "town", drawn, salt)
    return _chosen(where.family, "family", drawn, salt)


def drawn_organisation(rng: random.Random, domain: str, drawn_endings: Sequence[str]) -> str:
    """An organisation of ``domain`` named outside a forge (``Bakker Freight``), taking the draws 1.2's
    ``f"{invented_stem(rng)} {pick(rng, drawn_endings)}"`` took (a family's own 1.2 list of endings)."""
    stem, drawn = invented_stem(rng), pick(rng, drawn_endings)
    endings = ORG_ENDINGS[domain]
    return _unblocked(lambda salt: f"{_stem_of(stem, region(domain), salt)} "
                                   f"{_chosen(endings, 'ending', stem, drawn, salt)}")


def code_word(rng: random.Random, syllables: int | None = None) -> str:
    """An ordinary word for a code name (``cedar``), taking the draws of one 1.2 stem of ``syllables``."""
    return _chosen(WORDS, "word", invented_stem(rng, syllables).lower())


def brand(rng: random.Random) -> str:
    """A product brand (``Kestrel``; one 1.2 stem's draws)."""
    stem = invented_stem(rng)
    return _unblocked(lambda salt: _chosen(BRANDS, "brand", stem, salt))


def lookalike(name: str, rng: random.Random) -> str:
    """A name a hurried reader could confuse with ``name`` (always different from it, always on the lists).

    An organisation (``Hansen Hotels``) gets another ending of its business (``Hansen Hospitality``) or, in
    half of the cases where its first word has one, a look-alike spelling of that word (``Hanson Hotels``); a
    country its twin (``Austria`` -> ``Australia``); any other name part a look-alike spelling (``Karin`` ->
    ``Karen``). Raises ValueError for a word without one (:func:`has_lookalike` tells).
    """
    words = name.split()
    if len(words) == 2 and words[1] in ENDING_DOMAIN:
        stem, ending = words
        if stem in VARIANTS and rng.random() < 0.5:
            return f"{pick(rng, VARIANTS[stem])} {ending}"
        others = [e for e in ORG_ENDINGS[ENDING_DOMAIN[ending]] if e != ending]
        return f"{stem} {pick(rng, others)}"
    if name in COUNTRY_TWIN:
        return COUNTRY_TWIN[name]
    if name in VARIANTS:
        return pick(rng, VARIANTS[name])
    raise ValueError(f"{name!r} has no look-alike on the lists")


def has_lookalike(name: str) -> bool:
    """True when :func:`lookalike` can make a look-alike of ``name``."""
    words = name.split()
    return (len(words) == 2 and words[1] in ENDING_DOMAIN) or name in COUNTRY_TWIN or name in VARIANTS


def suited(organisation: str, endings: Sequence[str]) -> str:
    """The organisation's first word with an ending from ``endings``, chosen by that word itself (no draw), for
    a family whose organisations are of one kind (``install_check``'s software teams)."""
    stem = organisation.rsplit(" ", 1)[0]
    return f"{stem} {endings[sum(map(ord, stem)) % len(endings)]}"


class NameForge:
    """Hands out the names of one case, never the same one twice; people and organisations of ``domain``'s
    region (:data:`REGION_OF_DOMAIN`).

    Each name takes the draws of one 1.2 name. When the name they select is taken in this case or blocked
    (:data:`FAMOUS_PEOPLE`, :data:`REAL_COMPANIES`), the next choice of the same draws is tried (a salt, no
    draw), so a collision, frequent with lists of a few dozen entries, leaves the random stream as it was."""

    def __init__(self, rng: random.Random, domain: str) -> None:
        self.rng = rng
        self.domain = domain
        self.region = region(domain)
        self.used: set[str] = set()

    def _fresh(self, draw: Callable[[], tuple[Any, ...]], name: Callable[[tuple[Any, ...], int], str]) -> str:
        for _ in range(100):
            drawn = draw()
            for salt in range(200):
                chosen = name(drawn, salt)
                if chosen and chosen not in self.used and not _blocked(chosen):
                    self.used.add(chosen)
                    return chosen
        raise RuntimeError("name space exhausted")

    def claim(self, name: str) -> str:
        """Mark an externally built name (e.g. a look-alike) as used; error if it already is."""
        if name in self.used:
            raise ValueError(f"name {name!r} already used in this case")
        self.used.add(name)
        return name

    def organisation(self, domain: str | None = None) -> str:
        """``Bakker Freight``: a family name or town of the forge's region and an ending that suits ``domain``'s
        business (default: the forge's domain)."""
        endings = ORG_ENDINGS[domain or self.domain]
        return self._fresh(lambda: (invented_stem(self.rng), pick(self.rng, ORG_SUFFIXES)),
                           lambda d, salt: f"{_stem_of(str(d[0]), self.region, salt)} "
                                           f"{_chosen(endings, 'ending', *d, salt)}")

    def company(self) -> str:
        """``Wouters B.V.``: a family name or town of the region and its legal form (:data:`LEGAL_FORMS`), taking
        the draws of :meth:`organisation`."""
        form = LEGAL_FORMS[self.region.name]
        return self._fresh(lambda: (invented_stem(self.rng), pick(self.rng, ORG_SUFFIXES)),
                           lambda d, salt: f"{_stem_of(str(d[0]), self.region, salt)} {form}")

    def client(self, person: bool) -> str:
        """A customer of the case's business, taking the draws of :meth:`organisation`: a person (``Sanne
        Bakker``: a patient, shopper, student, guest or household) or a company (``Wouters B.V.``)."""
        if not person:
            return self.company()
        return self._fresh(lambda: (invented_stem(self.rng), pick(self.rng, ORG_SUFFIXES)),
                           lambda d, salt: f"{_chosen(self.region.given, 'given', *d, salt)} "
                                           f"{_chosen(self.region.family, 'family', d[0], salt)}")

    def person(self) -> str:
        """``Sanne Bakker``: a given name and a family name of the region."""
        return self._fresh(lambda: (invented_stem(self.rng, 2), invented_stem(self.rng, pick(self.rng, (2, 3)))),
                           lambda d, salt: f"{_chosen(self.region.given, 'given', d[0], salt)} "
                                           f"{_chosen(self.region.family, 'family', d[1], salt)}")

    def given_name(self) -> str:
        """``Sanne``."""
        return self._fresh(lambda: (invented_stem(self.rng, 2),),
                           lambda d, salt: _chosen(self.region.given, "given", d[0], salt))

    def product(self) -> str:
        """``Kestrel Pro 48``: a brand, a series and a model number."""
        return self._fresh(lambda: (invented_stem(self.rng), pick(self.rng, PRODUCT_SERIES),
                                    self.rng.randrange(100, 1000)),
                           lambda d, salt: f"{_chosen(BRANDS, 'brand', d[0], salt)} {d[1]} "
                                           f"{d[2] // 10}")

    def place(self) -> str:
        """``Vejle``: a town of the region."""
        return self._fresh(lambda: (invented_stem(self.rng, pick(self.rng, (2, 3))),),
                           lambda d, salt: _chosen(self.region.towns, "town", d[0], salt))

    def country(self) -> str:
        """``Austria``: a country of origin (each has a look-alike twin, :data:`COUNTRY_LOOKALIKES`)."""
        return self._fresh(lambda: (invented_stem(self.rng, pick(self.rng, (2, 3))),),
                           lambda d, salt: self._unpaired(_chosen(COUNTRIES, "country", d[0], salt)))

    def _unpaired(self, country: str) -> str:
        """``country``, or the empty name (never handed out) when its twin is already used in the case: the twin
        stays free for :func:`lookalike`."""
        return "" if COUNTRY_TWIN[country] in self.used else country

    def term(self, options: Sequence[str]) -> str:
        """One of ``options`` (a family's own words: document topics, instruments), taking the draws of
        :meth:`word`; a term may recur in a case (two folders may hold a "quickstart.md")."""
        return _chosen(options, "term", invented_stem(self.rng).lower())

    def word(self) -> str:
        """``cedar``: an ordinary word for code names, host names and packages."""
        return self._fresh(lambda: (invented_stem(self.rng).lower(),),
                           lambda d, salt: _chosen(WORDS, "word", d[0], salt))
