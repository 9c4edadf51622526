"""The framings of a core item: the same decision asked in another way, each with exact gold.

A framing changes how an item is put - the question's wording, its polarity, the option keys, text
around the decisive facts, other questions in the request - and never the decision itself. Every
framed item is derived from the rendered core item and its family's hand-written material
(:class:`FamilyMaterial`, one module per family in this package); nothing is sampled from a model.
The format's home is docs/invariance.md ("The framings": every framing and the five keys a framed item adds):

* ``key_map`` maps every framed option key to the base item's key with the same meaning, so
  ``key_map[framed gold] == base gold`` always;
* a negated question carries the word ``NOT`` in capitals (the one mark the solvers read to know
  the question's polarity); under ``negation`` its options are the bare keys (the polarity is in the question
  only), under ``negation-in-options`` they keep their keys and swap their meanings;
* inserted text (irrelevant or steering) goes after the state's opening paragraph, or under a new
  top-level key of a structured state (``-after`` framings: after the whole state), and carries no digit, so it
  cannot repeat a decisive figure;
* typos and look-alike letters touch only free prose words of the state (:func:`editable_words`), never a figure,
  a name, a key, a decisive value or a word the family's solver parses.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item, Option

SUITE_VERSION = "1.1"
"""Version of the invariance suite's format and material (``version`` of every framed item)."""

PLAIN = "plain"
"""The core item itself, re-issued under the suite."""
NEGATION = "negation"
"""The question asked the other way round, the polarity ONLY in the question: both options' meanings are the bare
keys (``yes`` / ``no``), as under :data:`OPTIONS_BARE` (yes/no families)."""
NEGATION_IN_OPTIONS = "negation-in-options"
"""The question asked the other way round with the options' meanings swapped, so the polarity is also in the option
descriptions (suite 1.0's ``negation``; yes/no families)."""
NEGATIONS = (NEGATION, NEGATION_IN_OPTIONS)
"""The negated framings: ``NOT`` in the question, ``key_map`` flips yes and no."""
LABELS = "labels"
"""Option keys renamed, meanings kept (yes/no families: the family's own words, never yes/no or true/false)."""
TWO_OPTION_CHOICE = "two-option-choice"
"""A yes/no item asked as a choice between ``A`` (the yes meaning) and ``B`` (the no meaning)."""
OPTIONS_REWORDED = "options-reworded"
"""Every option's meaning said in other words (hand-written per family)."""
OPTIONS_BARE = "options-bare"
"""Every option's meaning is its key: the options say nothing beyond their names."""
TYPOS = "typos"
"""Seeded typing mistakes in words of the state that decide nothing."""
HOMOGLYPHS = "homoglyphs"
"""Seeded look-alike (Cyrillic) letters in words of the state that decide nothing."""
STEERING = "steering"
"""Text in the state arguing for a wrong option."""
TOGETHER = "together"
"""The question asked with companion questions in one request."""
IRRELEVANT_LENGTHS = {"irrelevant-2000": 2000, "irrelevant-2000-after": 2000,
                      "irrelevant-8000": 8000, "irrelevant-8000-after": 8000}
"""Characters of inserted text each irrelevant framing aims at."""
IRRELEVANT_AFTER = frozenset({"irrelevant-2000-after", "irrelevant-8000-after"})
"""Irrelevant framings whose text goes AFTER the state (the end of a text state, the last top-level key of a structured
one), so every decisive fact stays where it was; the others put it after the state's opening paragraph (or first key),
which pushes the rest of the state further from the start - length and position told apart."""
YES_NO_ONLY = frozenset({NEGATION, NEGATION_IN_OPTIONS, TWO_OPTION_CHOICE})
"""Framings written for yes/no items only."""
FRAMINGS = (
    PLAIN, "wording-1", "wording-2", "wording-3", NEGATION, NEGATION_IN_OPTIONS, LABELS, TWO_OPTION_CHOICE,
    OPTIONS_REWORDED, OPTIONS_BARE, TYPOS, HOMOGLYPHS,
    "irrelevant-2000", "irrelevant-2000-after", "irrelevant-8000", "irrelevant-8000-after", STEERING, TOGETHER,
)
"""Every framing, in the order a base item's framed items are written."""
FRAMING_NAMES = {
    "plain": "Plain (the core item)", "wording-1": "Question reworded (1)", "wording-2": "Question reworded (2)",
    "wording-3": "Question reworded (3)", "negation": "Negated, NOT in the question only (bare yes/no options)",
    "negation-in-options": "Negated, option meanings swapped too", "labels": "Option keys renamed",
    "two-option-choice": "Yes/no asked as a choice A/B", "options-reworded": "Option meanings reworded",
    "options-bare": "Option meanings removed (bare keys)", "typos": "Typos in the state",
    "homoglyphs": "Look-alike letters in the state", "irrelevant-2000": "2,000 irrelevant characters before the facts",
    "irrelevant-2000-after": "2,000 irrelevant characters after the facts",
    "irrelevant-8000": "8,000 irrelevant characters before the facts",
    "irrelevant-8000-after": "8,000 irrelevant characters after the facts",
    "steering": "Text arguing for a wrong option", "together": "Asked with two other questions",
}
"""Human names of the framings (row heads of invariance.md and the report; each framing has one)."""


MEANING_FRAMINGS = frozenset({NEGATION, OPTIONS_REWORDED, OPTIONS_BARE})
"""Framings whose options do not carry the base item's meanings (every other framing keeps them under ``key_map``)."""
STATE_FRAMINGS = frozenset({*IRRELEVANT_LENGTHS, STEERING, TYPOS, HOMOGLYPHS})
"""Framings that change the state (every other framing sends the base item's state as it is)."""

LENGTH_TOLERANCE = 0.1
"""Inserted irrelevant text is within this share of its aimed length (checked when it is built)."""

NEGATION_MARK = re.compile(r"\bNOT\b")
"""What marks a negated question (and only a negated one): the word NOT in capitals."""

YES_NO = ("yes", "no")
"""Option keys of the yes/no families, in their order."""
TAKEN_YES_NO_NAMES = frozenset({"yes", "no", "true", "false"})
"""Names some kind already sends for a plain yes/no item (System One and the Decisions APIs send yes/no items as
true/false): a yes/no family's ``labels`` must rename to other words, or the rename changes nothing on their wire."""


@dataclass(frozen=True)
class Companion:
    """A further question about the same state, asked in the same request (the ``together`` framing)."""

    id: str
    """Name of the question within the item (``negated``, ``reworded``, ...)."""
    question: str
    """The question."""
    options: tuple[Option, ...]
    """Its ordered options."""
    answer: str
    """Gold option key."""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "question": self.question,
                "options": [{"key": o.key, "meaning": o.meaning} for o in self.options], "answer": self.answer}


@dataclass(frozen=True)
class FamilyMaterial:
    """A family's hand-written framing material: what the framings of its items are made of."""

    family: str
    """Family name."""
    wordings: tuple[str, str, str]
    """Three rephrasings of the family's question, each asking exactly the same thing."""
    negation: str | None
    """The question asked the other way round (with ``NOT``), for yes/no families; None for the others."""
    labels: Callable[[Sequence[str]], dict[str, str]]
    """Base option keys (in order) -> renamed keys; meanings stay."""
    irrelevant: tuple[str, ...]
    """Sentences of the family's own setting that decide nothing (no digits, no names of the case)."""
    steering: Callable[[Item, Option], str]
    """Text addressed to the reader arguing for ``option`` of ``item`` (always a wrong one)."""
    reworded: Callable[[Option], str]
    """An option's meaning said in other words (``options-reworded``): the same decision, none of the same phrasing."""
    companion: Callable[[Item], Companion] | None = None
    """For choice families: a yes/no question about the same state whose gold follows from the item's."""
    dict_keys: Mapping[str, str] = field(default_factory=lambda: {"irrelevant": "background", "steering": "note"})
    """Top-level keys under which structured states carry inserted text."""
    protected: frozenset[str] = frozenset()
    """Words of the family's states that typos and look-alike letters never touch, besides :data:`PROTECTED_WORDS`:
    the words its rules and records are written in, which a reader (and the solver) parses."""


def yes_no_labels(yes: str, no: str) -> Callable[[Sequence[str]], dict[str, str]]:
    """yes/no -> the family's own two words (``correct``/``incorrect``...). Never yes/no or true/false
    (:data:`TAKEN_YES_NO_NAMES`): a kind that asks yes/no items as a true/false predicate then gets a two-option
    choice between the family's words, so the rename changes what every kind sends."""
    if {yes, no} & TAKEN_YES_NO_NAMES or yes == no:
        raise ValueError(f"yes/no labels {yes!r}/{no!r}: two other words than yes, no, true and false are needed")

    def rename(keys: Sequence[str]) -> dict[str, str]:
        if tuple(keys) != YES_NO:
            raise ValueError(f"yes/no labels for options {list(keys)}")
        return {"yes": yes, "no": no}
    return rename


def reworded_by_meaning(rewordings: Mapping[str, str]) -> Callable[[Option], str]:
    """Hand-written other words for a family's fixed meanings; an unknown meaning is an error (new material needed)."""
    def reword(option: Option) -> str:
        if option.meaning not in rewordings:
            raise ValueError(f"no rewording of the meaning {option.meaning!r} (option {option.key!r})")
        return rewordings[option.meaning]
    return reword


def reworded_by_pattern(rules: Sequence[tuple[str, str]]) -> Callable[[Option], str]:
    """Other words for templated meanings: the first ``(pattern, replacement)`` whose pattern matches the whole
    meaning rewrites it (``re`` replacement syntax); a meaning no pattern matches is an error."""
    compiled = [(re.compile(pattern), replacement) for pattern, replacement in rules]

    def reword(option: Option) -> str:
        for pattern, replacement in compiled:
            if pattern.fullmatch(option.meaning):
                return pattern.sub(replacement, option.meaning)
        raise ValueError(f"no rewording of the meaning {option.meaning!r} (option {option.key!r})")
    return reword


def letter_labels(keys: Sequence[str]) -> dict[str, str]:
    """Choice keys -> A, B, C, ... in option order."""
    return {key: chr(ord("A") + i) for i, key in enumerate(keys)}


def framing_rng(seed: int, group: str, framing: str) -> random.Random:
    """One stream per (suite seed, contrast group, framing): every member of a group gets the same text."""
    return random.Random(stable_seed("decisionpivot-frame", seed, group, framing))


SHARED_IRRELEVANT = (
    "The team moved to the third floor of the building last spring, and the move took a long weekend.",
    "Coffee for the floor comes from the machine next to the kitchen, which was replaced after the old one broke.",
    "Most of the staff work from the office on Tuesdays and Thursdays and from home on the other days.",
    "A new cleaning contractor started this year and comes in the early evening, after most people have left.",
    "The company newsletter appears once a month instead of every fortnight, to leave room for longer pieces.",
    "Several people from the team took part in the charity run organised by the local sports club.",
    "The printer on the landing jams on heavy paper, so the team keeps a stack of standard paper beside it.",
    "Visitors sign in at the front desk and are given a badge that they hand back when they leave.",
    "The office plants are looked after by a volunteer rota, and the rota is pinned to the kitchen noticeboard.",
    "Fire drills are announced a week ahead, and everyone leaves by the nearest stairs rather than the lift.",
    "The team lunch at the end of the year was held at a small restaurant near the station and was well attended.",
    "New starters spend their first morning with the office manager, who shows them around and sets up their desk.",
    "The heating in the older wing of the building takes a while to warm up on cold mornings.",
    "People who cycle to work can leave their bikes in the covered racks behind the building.",
    "The team chat tool replaced most of the old mailing lists, although a few people still prefer email.",
    "A small library of donated books sits on the shelf by the window, and anyone may borrow from it.",
    "The staff survey asked about desks, lighting and noise, and most answers asked for more quiet corners.",
    "The building's lifts were serviced over a weekend, so nobody on the team noticed the work.",
    "Parking near the office is limited, and most people come by tram or by bus.",
    "The team keeps a common calendar of holidays so that cover can be arranged well in advance.",
    "Training on the new expense tool was offered in short sessions over lunch, with sandwiches provided.",
    "The kitchen rota asks everyone to empty the dishwasher once a week, which mostly works.",
    "Last autumn the windows on the south side were fitted with blinds, which made the afternoons much cooler.",
    "A local bakery delivers pastries on the first Monday of each month, a habit the team is fond of.",
    "The reception area was refurbished with new chairs and a larger table for deliveries.",
    "The office manager collects ideas for the social committee in a box by the front desk.",
    "Some colleagues run a lunchtime walking group that takes the path along the canal when the weather is dry.",
    "The annual report was printed on recycled paper this year, following a suggestion from the staff forum.",
    "Power cuts are rare in the area, but the server cupboard has its own backup supply just in case.",
    "The team's old whiteboards were replaced by glass boards that are easier to wipe clean.",
    "A first-aid course is offered every year, so each floor has a few people trained in first aid.",
    "Lost property is kept at the front desk for a month before it is given to a local charity.",
    "The coat rack by the entrance fills up quickly in winter, so a second one was added near the lifts.",
    "The canteen changed its menu in the autumn and now serves a soup of the day alongside the usual salads.",
    "A few colleagues started a book club that meets over lunch, and the current choice is a long novel.",
    "The car park behind the building was resurfaced during the holidays, when hardly anyone drove in.",
    "Someone brought in a large jigsaw puzzle before the holidays, and it is still half finished in the lounge.",
    "The windows are cleaned from the outside twice a year by a company that brings its own lift.",
    "A colleague who retired last year still drops by now and then to say hello to the team.",
    "The team photo in the corridor was taken on a sunny day by the river and is often admired by visitors.",
    "Desks by the windows are popular in spring, while the inner desks stay cooler in the summer.",
    "The local council planted trees along the street outside, which has made the walk from the tram nicer.",
    "The old filing cabinets were sold to a second-hand dealer after the paper records were scanned.",
    "A noticeboard by the lifts carries posters for concerts and evening classes in the neighbourhood.",
    "Most of the team bring their own mugs, and the spare mugs in the cupboard are for visitors.",
    "The wireless network was upgraded over the summer, and the signal in the far corner is better now.",
    "The team celebrates birthdays with a cake on the last Friday of the month, whoever's birthday it is.",
    "A quiet room on the ground floor can be used by anyone who needs a break or a private phone call.",
    "The building's caretaker knows every corner of the place and is the person to ask about odd noises.",
    "A small garden behind the building has benches where people sit with their coffee when it is warm.",
    "Umbrellas left at the entrance are collected at the end of each month and offered to whoever needs one.",
    "The stairwell was brightened up with paintings lent by a local art school.",
    "A suggestion to start the working day later on Mondays was discussed at length and then dropped.",
    "The team once raised money for a children's hospital by selling homemade biscuits.",
    "The recycling bins were relabelled after people kept putting paper cups in with the paper.",
    "Some colleagues learn a language together during their lunch break with the help of an online course.",
    "The office manager keeps a spare phone charger at the front desk for anyone who forgets theirs.",
    "The delivery van that brings the office supplies usually arrives late in the morning.",
    "A stray cat visits the garden behind the building, and several colleagues have given it a name.",
    "The large clock in the entrance hall runs a little fast, and nobody has got round to fixing it.",
    "Chairs that squeak are reported to the caretaker, who oils them on his weekly round.",
    "The team's summer outing went to a lake outside the city, where some people hired boats.",
    "Plans to open a second office in another city have been talked about for years.",
    "The kitchen has a fruit bowl that is refilled on Mondays and is usually empty by Wednesday.",
    "Staff who work late are asked to switch off the lights in the meeting rooms on their way out.",
    "A colleague keeps a small weather station on the roof and posts the readings to the team chat.",
    "Long corridors on the upper floor were fitted with softer carpets to cut down the noise.",
    "People who take the early tram often have the office to themselves for the first hour.",
    "Sports fans on the team follow the local football club and discuss its results on Monday mornings.",
    "The company's founder still likes to tell the story of how the first office was above a bakery.",
    "The team once tried standing desks, and a few of them are still in use by the window.",
    "Guests are often surprised by how quiet the office is in the middle of the afternoon.",
    "A few people bring their dogs on Fridays, which the others mostly welcome.",
    "The front door sticks in damp weather, and a firm push usually does the trick.",
    "Everyone is invited to the small party held when a colleague leaves for a new job.",
)
"""Workplace prose any family's state may carry: nothing in it decides anything."""


def _compose(sentences: Sequence[str], target: int, rng: random.Random, where: str) -> str:
    """Whole sentences in paragraphs of four, shuffled by ``rng``, within the tolerance of ``target`` characters."""
    low, high = target * (1 - LENGTH_TOLERANCE), target * (1 + LENGTH_TOLERANCE)
    enough = target * (1 - LENGTH_TOLERANCE / 4)
    chosen: list[str] = []
    length = 0
    for _ in range(8):  # passes over the pool; the long framings repeat some sentences
        order = list(sentences)
        rng.shuffle(order)
        for sentence in order:
            paragraph_break = len(chosen) > 0 and len(chosen) % 4 == 0
            extra = len(sentence) + (2 if paragraph_break else 1 if chosen else 0)
            if length + extra <= high and sentence not in chosen[-(len(sentences) - 1):]:
                chosen.append(sentence)
                length += extra
            if length >= enough:
                break
        if length >= enough:
            break
    if not low <= length <= high:
        raise ValueError(f"{where}: cannot compose {target} characters of inserted text (got {length})")
    paragraphs = [" ".join(chosen[i:i + 4]) for i in range(0, len(chosen), 4)]
    text = "\n\n".join(paragraphs)
    assert len(text) == length, (len(text), length)
    return text


def mentions(text: str, value: str) -> bool:
    """Whether ``value`` occurs in ``text`` as a whole word or phrase, ignoring case."""
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


def irrelevant_text(material: FamilyMaterial, item: Item, target: int, seed: int, framing: str,
                    avoid: frozenset[str] = frozenset()) -> str:
    """Plausible text of the item's own setting, about ``target`` characters long, deciding nothing: sentences
    that mention any of ``avoid`` (the values at the decisive paths of the item's group) are left out."""
    rng = framing_rng(seed, item.group or item.id, framing)
    domain = item.domain or "its line of business"
    pool = [s.replace("{domain}", domain) for s in (*material.irrelevant, *SHARED_IRRELEVANT)]
    pool = [s for s in pool if not any(mentions(s, value) for value in avoid)]
    return _compose(pool, target, rng, f"{item.id} {framing}")


def insert_text(state: str | dict[str, Any], text: str, key: str) -> str | dict[str, Any]:
    """The state with ``text`` after its opening paragraph (text states) or under a new top-level ``key``
    after the first one (structured states)."""
    if isinstance(state, dict):
        if key in state:
            raise ValueError(f"the state already has a top-level key {key!r}")
        entries = list(state.items())
        return dict([entries[0], (key, text), *entries[1:]])
    head, sep, rest = state.partition("\n\n")
    if not sep:
        head, sep, rest = state.partition("\n")
    return f"{head}\n\n{text}\n\n{rest}" if sep else f"{head}\n\n{text}"


def insert_after(state: str | dict[str, Any], text: str, key: str) -> str | dict[str, Any]:
    """The state with ``text`` after all of it: the end of a text state, or a new top-level ``key`` after the last
    one of a structured state (every decisive fact stays where it was)."""
    if isinstance(state, dict):
        if key in state:
            raise ValueError(f"the state already has a top-level key {key!r}")
        return {**state, key: text}
    return f"{state.rstrip()}\n\n{text}"


# --------------------------------------------------------------------------- typos and look-alike letters

EDITABLE_WORD = re.compile(r"(?<![\w./@'\"`-])[a-z]{6,}(?![\w/@'\"`-]|[.:-]\w)")
"""A word a typo or a look-alike letter may touch: six or more lowercase ASCII letters standing alone - not part of a
name (capitals), an identifier, a quoted value or key, a path, an address, a version or a figure (no digit, quote,
``_``, ``.``, ``/``, ``-`` or ``@`` attached)."""
PROTECTED_WORDS = frozenset({
    "cannot", "without", "neither", "unless", "except", "excluding", "including", "before", "after", "earlier",
    "later", "latest", "earliest", "least", "fewer", "greater", "higher", "lower", "longer", "shorter", "longest",
    "shortest", "smaller", "larger", "minimum", "maximum", "exactly", "always", "never", "should", "forbidden",
    "allowed", "required", "requires", "optional", "between", "within", "beyond", "either", "another",
})
"""Words never touched in any family: they carry polarity, order or comparison, which a reader must not have to
guess."""
CHANGED_WORDS = 8
"""Word types changed per item by ``typos`` and by ``homoglyphs`` (every occurrence of each)."""
HOMOGLYPHS_OF = {"a": "\u0430", "c": "\u0441", "e": "\u0435", "o": "\u043e", "p": "\u0440", "x": "\u0445",
                 "y": "\u0443"}
"""Latin letter -> the Cyrillic letter drawn the same (what a copy from another keyboard or a spoofed text carries)."""


@functools.cache
def solver_words(family: str) -> frozenset[str]:
    """Every lowercase word of four or more letters in the source of the family's independent solver
    (``decisionpivot/solve/<family>.py``: its patterns, labels and names): the words it parses, which typos and
    look-alike letters never touch, so the solver reads a changed state as it reads the plain one and its agreement
    shows that nothing decisive moved. Read as text, never imported (the solver stays independent of the framing)."""
    path = Path(__file__).resolve().parents[1] / "solve" / f"{family}.py"
    try:
        source = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return frozenset()
    return frozenset(w.lower() for w in re.findall(r"[A-Za-z]{4,}", source))


def _strings(state: str | dict[str, Any] | list[Any]) -> list[str]:
    """Every string value of a state (text states: the text itself); keys of structured states are not values."""
    if isinstance(state, str):
        return [state]
    values = state.values() if isinstance(state, dict) else state
    return [s for value in values if isinstance(value, str | dict | list) for s in _strings(value)]


def _map_strings(state: Any, change: Callable[[str], str]) -> Any:
    """``state`` with ``change`` applied to every string value (keys unchanged, key order kept)."""
    if isinstance(state, str):
        return change(state)
    if isinstance(state, dict):
        return {key: _map_strings(value, change) for key, value in state.items()}
    if isinstance(state, list):
        return [_map_strings(value, change) for value in state]
    return state


PROSE_LINE = re.compile(r"(?:\d{1,2}\. |- )?[A-Z][^|=<>{}\[\]\d]*[a-z,)][.!]")
"""A line of prose: it begins with a capital (after a list number or dash at most), ends a sentence (not a question:
the question under review is parsed) and holds no digit (a figure states a fact), ``|``, ``=``, bracket or brace -
not a log line, a table row, a rule in notation or embedded JSON."""
PROSE_WORDS = 8
"""A prose line has at least this many words (shorter lines are headings, labels or values)..."""
PROSE_WORDS_WITH_COLON = 14
"""... and at least this many when it holds a colon (a shorter one is a ``label: values`` line, whose values a record
elsewhere in the state may repeat)."""


def is_prose(line: str) -> bool:
    """Whether typos and look-alike letters may touch ``line`` (:data:`PROSE_LINE`, long enough)."""
    words = len(line.split())
    return (PROSE_LINE.fullmatch(line.strip()) is not None
            and words >= (PROSE_WORDS_WITH_COLON if ":" in line else PROSE_WORDS))


def _prose_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if is_prose(line)]


def editable_words(state: str | dict[str, Any], avoid: frozenset[str], protected: frozenset[str]) -> list[str]:
    """The distinct words of ``state`` a typo may touch, sorted: :data:`EDITABLE_WORD` matches in prose lines
    (:func:`is_prose`) that are
    * no word of any ``avoid`` value (the group's decisive values) nor of :data:`PROTECTED_WORDS` or ``protected``;
    * holding no word of ``protected`` five letters or longer (a solver may search for part of a word);
    * never written with a capital anywhere in the state (a name, a heading or a label, which its lowercase use may be
      compared with);
    * never used outside prose (in a record, a list or a heading, which a prose line may refer to)."""
    texts = _strings(state)
    capitalised = {w.lower() for text in texts for w in re.findall(r"[A-Za-z]*[A-Z][A-Za-z]*", text)}
    elsewhere = {w.lower() for text in texts for line in text.splitlines() if not is_prose(line)
                 for w in re.findall(r"[A-Za-z]+", line)}
    kept_out = ({w.lower() for value in avoid for w in re.findall(r"[A-Za-z]+", value)} | PROTECTED_WORDS | protected
                | capitalised | elsewhere)
    found = {m.group() for text in texts for line in _prose_lines(text) for m in EDITABLE_WORD.finditer(line)}
    return sorted(w for w in found - kept_out if not any(len(p) >= 5 and p in w for p in protected))


def _rank(seed: int, group: str, framing: str, word: str) -> int:
    return stable_seed("decisionpivot-frame-words", seed, group, framing, word)


def chosen_words(words: Sequence[str], seed: int, group: str, framing: str) -> list[str]:
    """:data:`CHANGED_WORDS` of ``words`` ranked by a stable hash of (seed, group, framing, word): members of a group
    share most words, and a shared word is chosen (and changed the same way) in every member that has it."""
    return sorted(words, key=lambda w: (_rank(seed, group, framing, w), w))[:CHANGED_WORDS]


def typo(word: str, draw: int) -> str:
    """One typing mistake inside ``word`` (never its first or last letter): two neighbouring letters swapped, a letter
    left out or a letter doubled, chosen by ``draw``."""
    inner = range(1, len(word) - 2)  # positions i with word[i], word[i + 1] both inside
    position = inner[draw % len(inner)]
    how = (draw // len(inner)) % 3
    if how == 0 and word[position] != word[position + 1]:
        return word[:position] + word[position + 1] + word[position] + word[position + 2:]
    if how == 1:
        return word[:position] + word[position + 1:]
    return word[:position + 1] + word[position] + word[position + 1:]


def homoglyph(word: str, draw: int) -> str:
    """``word`` with one letter replaced by its Cyrillic look-alike (:data:`HOMOGLYPHS_OF`), chosen by ``draw``; a word
    without such a letter is returned unchanged."""
    positions = [i for i, letter in enumerate(word) if letter in HOMOGLYPHS_OF]
    if not positions:
        return word
    i = positions[draw % len(positions)]
    return word[:i] + HOMOGLYPHS_OF[word[i]] + word[i + 1:]


def changed_state(state: str | dict[str, Any], framing: str, seed: int, group: str, avoid: frozenset[str],
                  protected: frozenset[str] = frozenset()) -> tuple[str | dict[str, Any], dict[str, str]]:
    """The state with :data:`CHANGED_WORDS` of its editable words (:func:`editable_words`) changed by ``typos`` or
    ``homoglyphs`` at every occurrence, and the changes made {word: changed}. Digits, names, keys, identifiers and
    the group's decisive values are never touched (they are no editable word). No changes: the state has no word the
    framing may touch (the framed item is then left out)."""
    change_word = {TYPOS: typo, HOMOGLYPHS: homoglyph}[framing]
    words = [w for w in editable_words(state, avoid, protected) if change_word(w, 0) != w]
    changes = {w: change_word(w, _rank(seed, group, framing + "/how", w)) for w in chosen_words(words, seed, group,
                                                                                                     framing)}
    changes = {w: c for w, c in changes.items() if c != w}

    def change_line(line: str) -> str:
        if not is_prose(line):
            return line
        return EDITABLE_WORD.sub(lambda m: changes.get(m.group(), m.group()), line)

    def change(text: str) -> str:
        return "".join(change_line(line[:-1]) + "\n" if line.endswith("\n") else change_line(line)
                       for line in text.splitlines(keepends=True))
    return _map_strings(state, change), changes


def wrong_option(item: Item, seed: int) -> Option:
    """The option the steering text argues for: never the gold; a seeded choice among the others."""
    wrong = [o for o in item.options if o.key != item.answer]
    return random.Random(stable_seed("decisionpivot-steer", seed, item.id)).choice(wrong)


def negated_options(item: Item) -> tuple[Option, ...]:
    """yes/no with swapped meanings: yes to the negated question means what no meant (``negation-in-options``, and
    the ``negated`` companion of ``together``)."""
    meaning = {o.key: o.meaning for o in item.options}
    return (Option("yes", meaning["no"]), Option("no", meaning["yes"]))


def bare_options(item: Item) -> tuple[Option, ...]:
    """Every option with its key as its meaning (``options-bare``, and the options of ``negation``): the options say
    nothing the key does not, so a negated question's polarity is in the question alone."""
    return tuple(Option(o.key, o.key) for o in item.options)


FLIP = {"yes": "no", "no": "yes"}
CHOICE_KEYS = ("A", "B")
"""Keys of ``two-option-choice``: A carries the yes meaning, B the no meaning."""


def frame_item(item: Item, material: FamilyMaterial, seed: int, avoid: frozenset[str] = frozenset()) -> list[Item]:
    """Every framing of one core item, in :data:`FRAMINGS` order (:data:`YES_NO_ONLY` framings only for yes/no
    items); ``avoid``: the group's decisive values, which inserted text never mentions and typos never touch."""
    if item.answer is None or item.group is None:
        raise ValueError(f"{item.id}: only core items (with gold and a contrast group) are framed")
    identity = {k: k for k in item.option_keys}
    yes_no = item.option_keys == YES_NO
    group = item.group

    def framed(framing: str, *, key_map: Mapping[str, str] | None = None, steer_to: str | None = None,
               companions: list[dict[str, Any]] | None = None, **changes: Any) -> Item:
        extra = {"base": item.id, "framing": framing, "key_map": dict(key_map or identity),
                 "steer_to": steer_to, "companions": companions}
        return replace(item, id=f"{item.id}~{framing}", version=SUITE_VERSION, extra=extra, **changes)

    out = [framed(PLAIN)]
    for i, wording in enumerate(material.wordings, start=1):
        out.append(framed(f"wording-{i}", question=wording))
    if yes_no:
        if material.negation is None or not NEGATION_MARK.search(material.negation):
            raise ValueError(f"{material.family}: a yes/no family needs a negated question with NOT")
        out.append(framed(NEGATION, question=material.negation, options=bare_options(item),
                          answer=FLIP[item.answer], key_map=FLIP))
        out.append(framed(NEGATION_IN_OPTIONS, question=material.negation, options=negated_options(item),
                          answer=FLIP[item.answer], key_map=FLIP))
    rename = material.labels(item.option_keys)
    if yes_no and set(rename.values()) & TAKEN_YES_NO_NAMES:
        raise ValueError(f"{material.family}: labels of a yes/no family must not be yes/no or true/false")
    out.append(framed(LABELS, options=tuple(Option(rename[o.key], o.meaning) for o in item.options),
                      answer=rename[item.answer], key_map={v: k for k, v in rename.items()}))
    if yes_no:
        letters = dict(zip(YES_NO, CHOICE_KEYS, strict=True))
        out.append(framed(TWO_OPTION_CHOICE, options=tuple(Option(letters[o.key], o.meaning) for o in item.options),
                          answer=letters[item.answer], key_map={v: k for k, v in letters.items()}))
    out.append(framed(OPTIONS_REWORDED, options=tuple(Option(o.key, material.reworded(o)) for o in item.options)))
    out.append(framed(OPTIONS_BARE, options=bare_options(item)))
    for framing in (TYPOS, HOMOGLYPHS):
        state, changes = changed_state(item.state, framing, seed, group, avoid,
                                       material.protected | solver_words(material.family))
        if changes:  # a state with no prose word to change (a few record_rule batches) has no such framing
            out.append(framed(framing, state=state))
    for framing, target in IRRELEVANT_LENGTHS.items():
        text = irrelevant_text(material, item, target, seed, framing.removesuffix("-after"), avoid)
        place = insert_after if framing in IRRELEVANT_AFTER else insert_text
        out.append(framed(framing, state=place(item.state, text, material.dict_keys["irrelevant"])))
    target_option = wrong_option(item, seed)
    steer = material.steering(item, target_option)
    out.append(framed(STEERING, state=insert_text(item.state, steer, material.dict_keys["steering"]),
                      steer_to=target_option.key))
    out.append(framed(TOGETHER, companions=[c.to_dict() for c in companions(item, material)]))
    return out


def companions(item: Item, material: FamilyMaterial) -> list[Companion]:
    """Two further questions about the item's state with exact gold: for yes/no families the negated
    question and the first rewording; for the others the first rewording and the family's yes/no question."""
    assert item.answer is not None
    reworded = Companion("reworded", material.wordings[0], item.options, item.answer)
    if item.option_keys == YES_NO:
        assert material.negation is not None
        return [Companion("negated", material.negation, negated_options(item), FLIP[item.answer]), reworded]
    if material.companion is None:
        raise ValueError(f"{material.family}: a choice family needs a companion yes/no question")
    return [reworded, material.companion(item)]


def yes_no_companion(name: str, question: str, yes_means: str, no_means: str, holds: bool) -> Companion:
    """A yes/no companion question whose gold is ``holds``."""
    return Companion(name, question, (Option("yes", yes_means), Option("no", no_means)), "yes" if holds else "no")


def option_meaning(item: Item, key: str) -> str:
    """The meaning of one of the item's options."""
    return next(o.meaning for o in item.options if o.key == key)


def steering_by_key(texts: Mapping[str, str]) -> Callable[[Item, Option], str]:
    """Steering text chosen by the option it argues for (the yes/no families' hand-written pair)."""
    return lambda item, option: texts[option.key]


def steering_template(template: str) -> Callable[[Item, Option], str]:
    """Steering text naming the option it argues for: ``{key}`` and ``{meaning}`` are filled in."""
    return lambda item, option: template.format(key=option.key, meaning=option.meaning)


def renamed_labels(names: Mapping[str, str]) -> Callable[[Sequence[str]], dict[str, str]]:
    """Fixed other words for a family's fixed option keys."""
    def rename(keys: Sequence[str]) -> dict[str, str]:
        return {key: names[key] for key in keys}
    return rename


def number_labels(keys: Sequence[str]) -> dict[str, str]:
    """Choice keys -> 1, 2, 3, ... in option order."""
    return {key: str(i) for i, key in enumerate(keys, start=1)}
