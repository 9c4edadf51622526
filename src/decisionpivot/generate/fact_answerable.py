"""fact_answerable (layer A): can the question be answered from the facts listed?

Story. A fact sheet lists attributes of invented organisations (one row = organisation, attribute
label, value), a glossary says which attribute label answers which kind of question, and rules say
how to read the sheet. A question under review needs two to four rows. The positive member lists
every needed row; the negative member replaces exactly one needed row, in place, by

* ``other_attribute``: the same organisation with a confusable attribute (``Contractors`` for the
  headcount, ``Listed`` for the founding year, ...), or
* ``lookalike``: the same attribute of a look-alike organisation (``Melzin Labs`` for
  ``Melzim Labs``).

Both members keep every other row, so the only difference is the decisive row. Surface cues are
kept flat by construction: every needed organisation also appears in other rows, a look-alike of
every needed organisation is always present as a distractor, and confusable labels appear for
other organisations, so neither names nor labels give the answer away.

Levels: 2 needed facts among 20 rows, 3 among 40, 4 among 80. 300 pairs; 150 negatives of each type
(50 per type and level).

Version history:
* 1.0 - first release.
* 1.1 - glossary per domain concept, three table styles, look-alikes always present as distractors.
* 1.2 - text revision (core 1.2, issue 14): the sheet is compiled by a research-type team (market
  research, strategy, ...) instead of a domain department ("front desk desk", a kitchen compiling
  market facts); no article before the business ("a adult education market review"); two
  organisations are compared with "larger" and "both"; a briefing question names each organisation
  once ("the chief executive and the fiscal year end of X", one "for X, ...; for Y, ..." clause per
  organisation when several have several facts). Answers, rows and shortcuts are unchanged.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before. The figures
  of one organisation belong together (:func:`profile`: staff of the domain's usual size, revenue from the
  staff at the domain's revenue per employee, sites, fleet, beds, stores, customers, branches, students,
  capacity and rooms from the staff, the listing after the founding; 1.2 drew every figure alone, "founded
  1990, listed 1983", 809.7 million EUR from 1,758 students). Figures decide no answer; the draws of 1.2's
  lone figures are still made. A look-alike (``Bruner Clinics`` for ``Brunner Clinics``) takes draws of its
  own, unlike 1.2's one-letter change, so after it a case is drawn anew: 386 of 600 ids keep their group,
  variation and answer. The reading rule says "a name spelt differently or with another ending" (1.2: "a
  one-letter or suffix difference"), since a look-alike may differ in two letters ("Kristensen").
"""

from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS, Domain
from decisionpivot.generate.common.formatting import grouped, long_date
from decisionpivot.generate.common.names import NameForge, lookalike
from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.generate.common.wording import join_words, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "fact_answerable"
VERSION = "1.3"
QUESTION = "Can the question be answered from the facts listed?"
OPTIONS = (
    Option("yes", "every fact the question needs is listed"),
    Option("no", "at least one fact the question needs is missing"),
)
NEGATIVE_TYPES = ("other_attribute", "lookalike")


@dataclass(frozen=True)
class Concept:
    """A kind of fact: the label that answers it, a confusable label that does not, and how to make values."""

    phrase: str
    """How questions name it ('headcount')."""
    label: str
    """Row label that answers it ('Employees')."""
    definition: str
    """Glossary definition of ``label``."""
    confusable: str
    """A row label that looks related but does not answer it ('Contractors')."""
    confusable_definition: str
    """Glossary definition of ``confusable``."""
    kind: str
    """Value kind: count, year, money, place, person, product, code, month."""
    numeric: bool
    """Whether sums and comparisons make sense."""


CONCEPTS = (
    Concept("headcount", "Employees", "people on the organisation's own payroll", "Contractors",
            "outside contractors working for the organisation", "count", True),
    Concept("founding year", "Founded", "the year the organisation was founded", "Listed",
            "the year the organisation's shares were first listed", "year", True),
    Concept("annual revenue", "Revenue (last fiscal year)", "revenue booked in the last completed fiscal year",
            "Revenue target (next fiscal year)", "the revenue the board aims for next year", "money", True),
    Concept("headquarters city", "Headquarters", "the city of the registered head office", "Largest branch",
            "the city of the branch with most staff", "place", False),
    Concept("chief executive", "Chief executive", "the person who runs the organisation day to day",
            "Board chair", "the person who chairs the supervisory board", "person", False),
    Concept("number of sites", "Sites in operation", "sites open and operating today", "Sites planned",
            "sites approved but not yet open", "count", True),
    Concept("best-selling product", "Best-selling product", "the product with the highest unit sales",
            "Newest product", "the most recently launched product", "product", False),
    Concept("quality certificate", "Quality certificate", "the certificate the organisation holds",
            "Certificate applied for", "a certificate applied for but not yet granted", "code", False),
    Concept("fiscal year end", "Fiscal year ends", "the month the fiscal year closes", "Audit completed",
            "the month the last external audit was completed", "month", False),
)

DOMAIN_CONCEPTS = {
    "logistics": Concept("fleet size", "Trucks in fleet", "trucks owned and in service", "Trucks on order",
                         "trucks ordered but not delivered", "count", True),
    "healthcare": Concept("bed count", "Beds", "staffed inpatient beds", "Beds planned",
                          "beds in approved expansion plans", "count", True),
    "retail": Concept("store count", "Stores", "stores open to the public", "Stores announced",
                      "stores announced but not yet open", "count", True),
    "software": Concept("customer count", "Active customers", "paying customers with an active contract",
                        "Trial accounts", "accounts in a free trial", "count", True),
    "finance": Concept("branch count", "Branches", "branches open to customers", "Branches closing",
                       "branches scheduled to close this year", "count", True),
    "education": Concept("enrolment", "Enrolled students", "students enrolled this term", "Applicants",
                         "applications received for next term", "count", True),
    "energy": Concept("installed capacity", "Installed capacity (MW)", "generating capacity in service",
                      "Capacity under construction (MW)", "capacity being built", "count", True),
    "hospitality": Concept("room count", "Hotel rooms", "guest rooms available for booking",
                           "Rooms under renovation", "rooms closed for renovation", "count", True),
}

INTRO = (
    "Fact sheet on organisations in {business}, compiled by the {compiler} team on {date}.",
    "Reference table of organisations in {business}, prepared by the {compiler} team ({date}).",
    "Organisation facts gathered for a market review of {business}, as of {date}.",
)
COMPILERS = ("market research", "strategy", "business development", "investor relations", "competitor analysis")
"""Teams that compile facts about other organisations (a domain's own departments - a kitchen, a
radiology desk - do not)."""
RULES = (
    (
        "Each row states one attribute of one organisation.",
        "Every row gives a single attribute of a single organisation.",
    ),
    (
        "Organisation names must match exactly: a name that differs in any letter or in its suffix is a "
        "different organisation.",
        "Treat organisations as the same only when their names are identical; a name spelt differently or "
        "with another ending means another organisation.",
    ),
    (
        "A row answers only the kind of question its label is defined for in the glossary; related "
        "labels do not substitute for one another.",
        "Use a row only for the kind of question the glossary ties to its label; a related label is "
        "not a substitute.",
    ),
    (
        "A question can be answered only if every fact it needs is listed; nothing may be inferred or "
        "estimated from other rows.",
        "The question counts as answerable only when each fact it needs appears in a row; do not infer "
        "or estimate missing facts.",
    ),
)
GLOSSARY_ANSWERS = ("Answers questions about the {phrase}.", "This is the {phrase}.")
GLOSSARY_NOT = ("Not the {phrase}.", "Does not give the {phrase}.")
TABLE_STYLES = ("pipe", "dash", "semicolon")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
CODE_PREFIXES = ("QX", "TRV", "KLM", "ZN", "OPV", "HSQ")


@dataclass(frozen=True)
class FactAnswerableConfig(FamilyConfig):
    """Sizes of the fact sheets per level."""

    rows: tuple[int, int, int] = (20, 40, 80)
    """Rows in the table at levels 1, 2, 3."""
    needed: tuple[int, int, int] = (2, 3, 4)
    """Facts the question needs at levels 1, 2, 3."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        if (self.items_per_level // 2) % len(NEGATIVE_TYPES):
            raise ValueError(f"pairs per level must split evenly over {len(NEGATIVE_TYPES)} negative types")
        for rows, needed in zip(self.rows, self.needed, strict=True):
            if needed < 2 or rows < 4 * needed + 4:
                raise ValueError(f"{rows} rows cannot hold {needed} needed facts with their distractors")


# --- figures that belong together (core 1.3) ---------------------------------------------------------

SCALE = {
    # employees (fewest, most), revenue per employee in the domain's currency (lowest, highest)
    "logistics": ((40, 4000), (120_000, 300_000)), "healthcare": ((60, 3000), (150_000, 250_000)),
    "retail": ((30, 5000), (1_500_000, 3_000_000)), "software": ((20, 2000), (150_000, 300_000)),
    "finance": ((50, 6000), (200_000, 500_000)), "education": ((30, 800), (60_000, 120_000)),
    "energy": ((40, 3000), (3_000_000, 8_000_000)), "hospitality": ((30, 2500), (600_000, 1_200_000)),
}
"""How large the organisations of a domain are and what an employee earns for them (SEK, NOK and DKK are
counted in their own, smaller units): 1.2 drew every figure alone, so an adult-education body booked 809.7
million EUR from 1,758 students and one organisation was founded in 1990 and listed in 1983."""


def profile(org: str, domain: str) -> dict[str, str]:
    """The figures of one organisation, label -> value, consistent with each other: revenue from headcount,
    sites, fleet, beds, students or rooms from the staff, the listing after the founding. Drawn from the
    organisation's own seed (no draw from the case's stream), so every row about it agrees."""
    rng = random.Random(stable_seed(NAME, "profile", domain, org))
    (fewest, most), (low, high) = SCALE[domain]
    staff = round(math.exp(rng.uniform(math.log(fewest), math.log(most))))
    revenue = staff * rng.uniform(low, high) / 1e6
    founded = rng.randrange(1950, 2013)
    sites = max(1, round(staff / rng.uniform(40, 150)))

    def count(share_low: float, share_high: float, least: int = 1) -> int:
        return max(least, round(staff * rng.uniform(share_low, share_high)))

    def scaled(share_low: float, share_high: float, of: int) -> int:
        return max(1, round(of * rng.uniform(share_low, share_high)))

    own = {
        "logistics": ("Trucks in fleet", count(0.3, 0.6), "Trucks on order"),
        "healthcare": ("Beds", count(0.2, 0.4, 5), "Beds planned"),
        "retail": ("Stores", count(1 / 40, 1 / 15), "Stores announced"),
        "software": ("Active customers", count(5, 40), "Trial accounts"),
        "finance": ("Branches", count(1 / 80, 1 / 30), "Branches closing"),
        "education": ("Enrolled students", count(8, 20), "Applicants"),
        "energy": ("Installed capacity (MW)", count(0.3, 1.5), "Capacity under construction (MW)"),
        "hospitality": ("Hotel rooms", count(0.5, 1.2, 10), "Rooms under renovation"),
    }[domain]
    pending = {
        "logistics": scaled(0.05, 0.2, own[1]), "healthcare": scaled(0.05, 0.25, own[1]),
        "retail": scaled(0.05, 0.3, own[1]), "software": scaled(0.05, 0.3, own[1]),
        "finance": min(own[1], scaled(0.05, 0.2, own[1])), "education": scaled(0.3, 1.2, own[1]),
        "energy": scaled(0.05, 0.5, own[1]), "hospitality": min(own[1] - 1, scaled(0.02, 0.15, own[1])),
    }[domain]
    money = SCALE_CURRENCY[domain]
    return {
        "Employees": grouped(staff), "Contractors": grouped(count(0.03, 0.25)),
        "Founded": str(founded), "Listed": str(min(2024, founded + rng.randrange(4, 36))),
        "Revenue (last fiscal year)": f"{revenue:,.1f} million {money}",
        "Revenue target (next fiscal year)": f"{revenue * rng.uniform(1.02, 1.15):,.1f} million {money}",
        "Sites in operation": grouped(sites), "Sites planned": grouped(rng.randrange(1, 6)),
        own[0]: grouped(own[1]), own[2]: grouped(max(1, pending)),
    }


SCALE_CURRENCY = {d.name: d.currency for d in DOMAINS}


def _coherent(row: dict[str, str], domain: str, twin_of: dict[str, str]) -> dict[str, str]:
    """``row`` with the value its organisation's :func:`profile` gives the label, if the profile has one. A
    look-alike takes the profile of the organisation it imitates: its negative row repeats that organisation's
    figure (members differ in the name only), and every row about it then agrees with that figure."""
    figures = profile(twin_of.get(row["org"], row["org"]), domain)
    return {**row, "value": figures[row["attribute"]]} if row["attribute"] in figures else row


# --- case -------------------------------------------------------------------------------------


def _value(rng: random.Random, concept: Concept, forge: NameForge, domain: Domain) -> str:
    if concept.kind == "count":
        return grouped(rng.randrange(3, 4000))
    if concept.kind == "year":
        return str(rng.randrange(1950, 2025))
    if concept.kind == "money":
        return f"{rng.randrange(10, 9000) / 10:.1f} million {domain.currency}"
    if concept.kind == "place":
        return forge.place()
    if concept.kind == "person":
        return forge.person()
    if concept.kind == "product":
        return forge.product()
    if concept.kind == "code":
        return f"{pick(rng, CODE_PREFIXES)}-{rng.randrange(1000, 10000)}"
    return pick(rng, MONTHS)


def _query_text(template: str, needs: list[tuple[str, Concept]], rng: random.Random) -> str:
    orgs = [org for org, _ in needs]
    phrase = needs[0][1].phrase
    if template == "sum":
        return pick(rng, ("What is the combined {p} of {o}?", "Add up the {p} of {o}: what is the total?")).format(
            p=phrase, o=join_words(orgs))
    if template == "compare":
        most = "larger" if len(orgs) == 2 else "largest"
        return pick(rng, ("Which of {o} has the {m} {p}?", "Of {o}, whose {p} is the {m}?")).format(
            p=phrase, o=join_words(orgs), m=most)
    if template == "same":
        every = "both" if len(orgs) == 2 else "all"
        return pick(rng, ("Do {o} {e} have the same {p}?", "Is the {p} the same for {o}?")).format(
            p=phrase, o=join_words(orgs), e=every)
    # One phrase per organisation ("the chief executive and the fiscal year end of X", never "... of X
    # and the fiscal year end of X"); several organisations with several facts each go one by one.
    by_org = {org: [f"the {c.phrase}" for o, c in needs if o == org] for org in dict.fromkeys(orgs)}
    if len(by_org) == 1 or all(len(facts) == 1 for facts in by_org.values()):
        x = join_words([join_words(facts) + f" of {org}" for org, facts in by_org.items()])
    else:
        x = "these facts: " + "; ".join(f"for {org}, {join_words(facts)}" for org, facts in by_org.items())
    return pick(rng, ("For a briefing note, give {x}.", "State {x}.")).format(x=x)


def _sample_case(rng: random.Random, level: int, negative: str, config: FactAnswerableConfig) -> dict[str, Any]:
    """One fact sheet with its question; returns the case and the position of the decisive row."""
    domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    concepts = [*CONCEPTS, DOMAIN_CONCEPTS[domain.name]]
    n_rows = config.rows[level - 1]
    k = config.needed[level - 1]

    template = pick(rng, ("sum", "compare", "same", "profile"))
    if template in ("sum", "compare"):
        concept = pick(rng, [c for c in concepts if c.kind in ("count", "money")])
        orgs = [forge.organisation(domain.name) for _ in range(k)]
        needs = [(org, concept) for org in orgs]
    elif template == "same":
        concept = pick(rng, concepts)
        orgs = [forge.organisation(domain.name) for _ in range(k)]
        needs = [(org, concept) for org in orgs]
    else:
        orgs = [forge.organisation(domain.name) for _ in range(rng.randrange(max(2, k - 1), k + 1))]
        needs = []
        while len(needs) < k:
            pair = (pick(rng, orgs), pick(rng, concepts))
            if all((pair[0], pair[1].label) != (o, c.label) for o, c in needs):
                needs.append(pair)
        orgs = sorted({o for o, _ in needs}, key=[o for o, _ in needs].index)

    lookalikes = {org: forge.claim(_fresh_lookalike(org, rng, forge)) for org in orgs}
    used: set[tuple[str, str]] = set()
    rows: list[dict[str, str]] = []

    def add(org: str, label: str, concept: Concept) -> None:
        used.add((org, label))
        rows.append({"org": org, "attribute": label, "value": _value(rng, concept, forge, domain)})

    for org, concept in needs:
        add(org, concept.label, concept)
    decisive_index = rng.randrange(k)
    target_org, target_concept = needs[decisive_index]
    # Every needed organisation has another row; every look-alike appears; confusables appear elsewhere.
    for org in orgs:
        options = [c for c in concepts if (org, c.label) not in used and c is not target_concept]
        extra = pick(rng, options)
        add(org, extra.label, extra)
        twin = lookalikes[org]
        twin_concept = pick(rng, [c for c in concepts if c is not target_concept or org != target_org])
        add(twin, twin_concept.label, twin_concept)
    fillers = [forge.organisation(domain.name) for _ in range(max(3, n_rows // 4))]
    while len(rows) < n_rows:
        org = pick(rng, fillers + orgs + list(lookalikes.values()))
        concept = pick(rng, concepts)
        label = concept.confusable if rng.random() < 0.4 else concept.label
        if (org, label) in used:
            continue
        if org == target_org and label in (target_concept.label, target_concept.confusable):
            continue
        if org == lookalikes[target_org] and label == target_concept.label:
            continue
        add(org, label, concept)
    order = list(range(len(rows)))
    rng.shuffle(order)
    rows = [rows[i] for i in order]
    position = order.index(decisive_index)

    # figures from each organisation's profile; the draws of 1.2's lone figures are still made above
    twin_of = {twin: org for org, twin in lookalikes.items()}
    rows = [_coherent(row, domain.name, twin_of) for row in rows]
    positive_row = rows[position]
    if negative == "other_attribute":
        negative_row = _coherent({"org": target_org, "attribute": target_concept.confusable,
                                  "value": _value(rng, target_concept, forge, domain)}, domain.name, twin_of)
    else:
        negative_row = {"org": lookalikes[target_org], "attribute": target_concept.label,
                        "value": positive_row["value"]}

    glossary = []
    for c in concepts:
        glossary.append({"label": c.label, "definition": c.definition,
                         "note": pick(rng, GLOSSARY_ANSWERS).format(phrase=c.phrase)})
        glossary.append({"label": c.confusable, "definition": c.confusable_definition,
                         "note": pick(rng, GLOSSARY_NOT).format(phrase=c.phrase)})
    rng.shuffle(glossary)
    day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(300))
    return {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(business=domain.business, compiler=pick(rng, COMPILERS),
                                         date=long_date(day)),
        "rules": [pick(rng, variants) for variants in RULES],
        "glossary": glossary,
        "style": pick(rng, TABLE_STYLES),
        "rows": rows,
        "query": _query_text(template, needs, rng),
        "needs": [{"org": o, "attribute": c.label} for o, c in needs],
        "_position": position,
        "_negative_row": negative_row,
    }


def _fresh_lookalike(org: str, rng: random.Random, forge: NameForge) -> str:
    for _ in range(100):
        candidate = lookalike(org, rng)
        if candidate not in forge.used:
            return candidate
    raise RuntimeError(f"no unused look-alike for {org!r}")


# --- answer -----------------------------------------------------------------------------------


def answer(case: dict[str, Any]) -> str:
    """yes when every needed (organisation, attribute) pair is a row of the table."""
    present = {(r["org"], r["attribute"]) for r in case["rows"]}
    return "yes" if all((n["org"], n["attribute"]) in present for n in case["needs"]) else "no"


# --- rendering --------------------------------------------------------------------------------


def _row_line(style: str, row: dict[str, str]) -> str:
    if style == "pipe":
        return f"| {row['org']} | {row['attribute']} | {row['value']} |"
    if style == "dash":
        return f"- {row['org']} — {row['attribute']}: {row['value']}"
    return f"{row['org']}; {row['attribute']}; {row['value']}"


def render(case: dict[str, Any]) -> str:
    lines = [case["intro"], "", "Rules for reading the sheet:"]
    lines += [f"{i}. {rule}" for i, rule in enumerate(case["rules"], start=1)]
    lines += ["", "Glossary of attribute labels:"]
    lines += [f'- "{g["label"]}": {g["definition"]}. {g["note"]}' for g in case["glossary"]]
    lines += ["", "Facts:"]
    if case["style"] == "pipe":
        lines += ["| Organisation | Attribute | Value |", "|---|---|---|"]
    elif case["style"] == "semicolon":
        lines += ["Organisation; Attribute; Value"]
    lines += [_row_line(case["style"], row) for row in case["rows"]]
    lines += ["", f"Question under review: {case['query']}"]
    return "\n".join(lines)


# --- contrast group ---------------------------------------------------------------------------


def plan(config: FactAnswerableConfig) -> list[GroupPlan]:
    pairs = config.items_per_level // 2
    return [
        GroupPlan(level=level, index=i, variation=NEGATIVE_TYPES[i % len(NEGATIVE_TYPES)])
        for level in (1, 2, 3)
        for i in range(pairs)
    ]


def build_group(plan: GroupPlan, rng: random.Random, config: FactAnswerableConfig) -> Group:
    raw = _sample_case(rng, plan.level, plan.variation, config)
    position = raw.pop("_position")
    negative_row = raw.pop("_negative_row")
    positive = {**raw, "rows": list(raw["rows"])}
    negative = {**raw, "rows": [*raw["rows"][:position], negative_row, *raw["rows"][position + 1 :]]}
    members = [
        Member(case=case, state=render(case), answer=answer(case), options=OPTIONS, variation=variation)
        for case, variation in ((positive, None), (negative, plan.variation))
    ]
    if members[0].answer != "yes" or members[1].answer != "no":
        raise RuntimeError(f"{NAME}: pair answers came out {members[0].answer}/{members[1].answer}")
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=raw["domain"], members=tuple(members),
                 decisive=frozenset({f"rows/{position}"}))


# --- partial-information heuristics ------------------------------------------------------------


def heuristic_names_in_table(item: Item) -> dict[str, float]:
    """Name matching only: yes when each organisation-like name in the question occurs in the facts.

    Ignores attribute labels and look-alikes; by construction every needed name (and a look-alike of
    it) is in the table of both members, so this shortcut stays at chance.
    """
    state = item.state if isinstance(item.state, str) else ""
    facts, _, query = state.rpartition("Question under review:")
    words = query.replace(",", " ").replace("?", " ").replace(".", " ").split()
    names = [f"{a} {b}" for a, b in pairwise(words) if a[:1].isupper() and b[:1].isupper()]
    found = all(name in facts for name in names)
    return {"yes": 1.0, "no": 0.0} if found else {"yes": 0.0, "no": 1.0}


register(FamilySpec(
    name=NAME,
    layer="A",
    version=VERSION,
    question=QUESTION,
    config_type=FactAnswerableConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=lambda plan: ("no", "yes"),
    heuristics={"names_in_table": heuristic_names_in_table},
))
