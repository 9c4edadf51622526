"""The framings of a core item: the same decision asked in another way, each with exact gold.

A framing changes how an item is put - the question's wording, its polarity, the option keys, text
around the decisive facts, other questions in the request - and never the decision itself. Every
framed item is derived from the rendered core item and its family's hand-written material
(:class:`FamilyMaterial`, one module per family in this package); nothing is sampled from a model.
The format's home is docs/invariance.md ("The framings": every framing and the five keys a framed item adds):

* ``key_map`` maps every framed option key to the base item's key with the same meaning, so
  ``key_map[framed gold] == base gold`` always;
* a negated question carries the word ``NOT`` in capitals (the one mark the solvers read to know
  the question's polarity), its options keep their keys and swap their meanings;
* inserted text (irrelevant or steering) goes after the state's opening paragraph, or under a new
  top-level key of a structured state, and carries no digit, so it cannot repeat a decisive figure.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item, Option

SUITE_VERSION = "1.0"
"""Version of the invariance suite's format and material (``version`` of every framed item)."""

PLAIN = "plain"
"""The core item itself, re-issued under the suite."""
NEGATION = "negation"
"""The question asked the other way round (yes/no families)."""
STEERING = "steering"
"""Text in the state arguing for a wrong option."""
TOGETHER = "together"
"""The question asked with companion questions in one request."""
FRAMINGS = (
    PLAIN, "wording-1", "wording-2", "wording-3", NEGATION, "labels",
    "irrelevant-500", "irrelevant-2000", "irrelevant-8000", STEERING, TOGETHER,
)
"""Every framing, in the order a base item's framed items are written."""

IRRELEVANT_LENGTHS = {"irrelevant-500": 500, "irrelevant-2000": 2000, "irrelevant-8000": 8000}
"""Characters of inserted text each irrelevant framing aims at."""

LENGTH_TOLERANCE = 0.1
"""Inserted irrelevant text is within this share of its aimed length (checked when it is built)."""

NEGATION_MARK = re.compile(r"\bNOT\b")
"""What marks a negated question (and only a negated one): the word NOT in capitals."""

YES_NO = ("yes", "no")
"""Option keys of the yes/no families, in their order."""


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
    companion: Callable[[Item], Companion] | None = None
    """For choice families: a yes/no question about the same state whose gold follows from the item's."""
    dict_keys: Mapping[str, str] = field(default_factory=lambda: {"irrelevant": "background", "steering": "note"})
    """Top-level keys under which structured states carry inserted text."""


def yes_no_labels(keys: Sequence[str]) -> dict[str, str]:
    """yes/no -> true/false."""
    return {"yes": "true", "no": "false"} if tuple(keys) == YES_NO else {k: k for k in keys}


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


def wrong_option(item: Item, seed: int) -> Option:
    """The option the steering text argues for: never the gold; a seeded choice among the others."""
    wrong = [o for o in item.options if o.key != item.answer]
    return random.Random(stable_seed("decisionpivot-steer", seed, item.id)).choice(wrong)


def negated_options(item: Item) -> tuple[Option, ...]:
    """yes/no with swapped meanings: yes to the negated question means what no meant."""
    meaning = {o.key: o.meaning for o in item.options}
    return (Option("yes", meaning["no"]), Option("no", meaning["yes"]))


FLIP = {"yes": "no", "no": "yes"}


def frame_item(item: Item, material: FamilyMaterial, seed: int, avoid: frozenset[str] = frozenset()) -> list[Item]:
    """Every framing of one core item, in :data:`FRAMINGS` order (``negation`` only for yes/no items);
    ``avoid``: strings the irrelevant text must not mention (the group's decisive values)."""
    if item.answer is None or item.group is None:
        raise ValueError(f"{item.id}: only core items (with gold and a contrast group) are framed")
    identity = {k: k for k in item.option_keys}
    yes_no = item.option_keys == YES_NO

    def framed(framing: str, *, key_map: Mapping[str, str] | None = None, steer_to: str | None = None,
               companions: list[dict[str, Any]] | None = None, **changes: Any) -> Item:
        extra = {"base": item.id, "framing": framing, "key_map": dict(key_map or identity),
                 "steer_to": steer_to, "companions": companions}
        return replace(item, id=f"{item.id}~{framing}", version=SUITE_VERSION, extra=extra, **changes)

    out = [framed("plain")]
    for i, wording in enumerate(material.wordings, start=1):
        out.append(framed(f"wording-{i}", question=wording))
    if yes_no:
        if material.negation is None or not NEGATION_MARK.search(material.negation):
            raise ValueError(f"{material.family}: a yes/no family needs a negated question with NOT")
        out.append(framed("negation", question=material.negation, options=negated_options(item),
                          answer=FLIP[item.answer], key_map=FLIP))
    rename = material.labels(item.option_keys)
    out.append(framed("labels", options=tuple(Option(rename[o.key], o.meaning) for o in item.options),
                      answer=rename[item.answer], key_map={v: k for k, v in rename.items()}))
    for framing, target in IRRELEVANT_LENGTHS.items():
        text = irrelevant_text(material, item, target, seed, framing, avoid)
        out.append(framed(framing, state=insert_text(item.state, text, material.dict_keys["irrelevant"])))
    target_option = wrong_option(item, seed)
    steer = material.steering(item, target_option)
    out.append(framed("steering", state=insert_text(item.state, steer, material.dict_keys["steering"]),
                      steer_to=target_option.key))
    out.append(framed("together", companions=[c.to_dict() for c in companions(item, material)]))
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
