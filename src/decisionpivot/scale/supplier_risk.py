"""supplier_risk (layer E): which risk tier does the procurement policy give this supplier?

Story. The procurement team of an invented organisation (a clinic group, a home-goods shop, a hotel, an electricity
supplier, a freight forwarder, a college) reviews its suppliers against a scoring policy. Each of the supplier's
figures - its on-time delivery rate, its defective units per 1,000 received, how many days its oldest open corrective
action is overdue, its open major audit findings - reaches a tier by the policy's thresholds, and the supplier's
tier is the highest tier any figure reaches (a figure that reaches none leaves the supplier in the lowest). The
thresholds are round numbers (95%, 5 per 1,000, 14 days, 3 findings) drawn per case from a start and a spacing, and
the policy says either "below 95%" / "more than 14 days" or "95% or lower" / "14 days or more" for every figure of a
case, drawn apart from the group's plan.

Levels (difficulty):

1. 3 tiers; three of the four figures: the rates as the counts they come from (deliveries and those on time, units
   received and those defective), the days overdue and the open findings as numbers;
2. 5 tiers; all four figures, the days overdue as a due date before the review date, the open findings as findings
   raised and closed;
3. 7 tiers; as level 2, and the on-time rate counts only with at least 50 deliveries (a supplier with fewer may
   show a poor rate that reaches no tier).

Groups. One figure, the decisive one, moves one step at a time (one delivery on time, one defective unit, one day,
one finding) across the threshold between the group's two tiers: its last value that stays in the lower tier and
the first that reaches the upper one, and one step further on one side (:mod:`decisionpivot.scale.boundary`).
Every other figure is a near miss: within one spacing of its first threshold, reaching no tier, so a reader has to
hold every figure against its thresholds to find the one that reaches. Every ladder of thresholds - the decisive
figure's too - is drawn from a wide range of starts whatever the group's boundary, and the rates are never shown as
rates, whose last digit next to a round threshold would say which side of it they are on.

Other figures do not reach tiers of their own: they could reach only tiers up to the group's lower one, so how far
up they reached told the boundary, and the content-blind probes read the level off their sizes (a bag of bigrams
beat the majority level by 5.5 points on a fresh draw; thresholds built around the figures' tiers instead made the
thresholds tell it).

Version history:
* 1.0 - first release (scale suite 1.0).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from decisionpivot.generate.common.formatting import MONTHS, grouped
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilySpec, Group, GroupPlan, Member
from decisionpivot.items import Item
from decisionpivot.scale.boundary import LOWER, Boundary, ScaleConfig, expected_answers, scale_plans, variation
from decisionpivot.scale.names import PLACE_WORDS, NameBook
from decisionpivot.scale.registry import register
from decisionpivot.score_questions import level_key, level_options

NAME = "supplier_risk"
VERSION = "1.0"
QUESTION = "Which risk tier does the procurement policy give this supplier?"

TIERS = {
    "Minimal": "reviewed every two years", "Low": "reviewed every year", "Medium": "reviewed every quarter",
    "Guarded": "reviewed every six months", "Moderate": "reviewed every quarter", "Elevated": "reviewed every month",
    "High": "new orders need the category manager's approval",
    "Severe": "no new orders until a recovery plan is agreed",
}
SCALES = {3: ("Low", "Medium", "High"), 5: ("Low", "Guarded", "Elevated", "High", "Severe"),
          7: ("Minimal", "Low", "Guarded", "Moderate", "Elevated", "High", "Severe")}
"""The tiers of a scale of each size, lowest first."""

ON_TIME, DEFECTS, OVERDUE, FINDINGS = "on_time", "defects", "overdue", "findings"
CRITERIA = (ON_TIME, DEFECTS, OVERDUE, FINDINGS)
WORSE_WHEN_LOWER = {ON_TIME}
"""Figures that get worse as they fall (the others get worse as they rise)."""
LABELS = {
    ON_TIME: "On-time delivery rate over the last 12 months",
    DEFECTS: "Defective units per 1,000 received",
    OVERDUE: "Days the oldest open corrective action is overdue",
    FINDINGS: "Open major audit findings",
}
MIN_DELIVERIES = 50
"""Level 3: the on-time rate counts only with at least this many deliveries."""
STRICT, INCLUSIVE = "strict", "inclusive"
"""Policy styles: 'below 95%' / 'more than 14' (the threshold itself stays in the tier below), or '95% or lower' /
'14 or more' (the threshold reaches the tier)."""

DECISIVE = ((ON_TIME, DEFECTS, OVERDUE, FINDINGS),) * 3


@dataclass(frozen=True)
class Setting:
    """A domain's buyer and its suppliers."""

    domain: str
    """Item domain."""
    about: str
    """What the buyer is, with its article."""
    trades: tuple[str, ...]
    """Name endings of the buyer; empty: a place word and ``suffix``."""
    suffix: str
    """For a place-named buyer."""
    suppliers: tuple[tuple[str, str], ...]
    """A supplier's name ending and what it supplies."""


SETTINGS = (
    Setting("healthcare", "a group of outpatient clinics", (), "Clinics",
            (("Medical", "examination gloves and dressings"), ("Surgical Supplies", "infusion sets"),
             ("Diagnostics", "laboratory reagents"), ("Medical", "wheelchairs and walkers"))),
    Setting("retail", "an online home-goods shop", ("Home Goods", "Interiors", "Living"), "",
            (("Textiles", "wool blankets"), ("Furniture", "storage boxes"), ("Lighting", "desk lamps"),
             ("Ceramics", "mugs and serving bowls"))),
    Setting("hospitality", "a hotel with conference rooms", (), "Hotel",
            (("Linen", "bed linen and towels"), ("Foods", "fresh produce"), ("Coffee", "coffee beans"),
             ("Catering Supplies", "banquet tableware"))),
    Setting("energy", "a regional electricity supplier", ("Energy", "Power", "Utilities"), "",
            (("Metering", "smart meters"), ("Cables", "cable drums"), ("Electrical", "inverters"),
             ("Electrical", "transformer parts"))),
    Setting("logistics", "a freight forwarder", ("Freight", "Logistics", "Forwarding"), "",
            (("Pallets", "pallets"), ("Packaging", "stretch film and cartons"),
             ("Fleet Parts", "tyres and brake parts"))),
    Setting("education", "an adult-education college", (), "College",
            (("Print", "textbooks"), ("Laboratory Supplies", "laboratory kits"),
             ("Stationery", "printer paper and toner"))),
)


@dataclass(frozen=True)
class SupplierRiskConfig(ScaleConfig):
    """Scale sizes of the three difficulty levels."""

    levels: tuple[int, int, int] = (3, 5, 7)
    """Tiers at each difficulty level (:data:`SCALES`)."""

    def validate(self) -> None:
        super().validate()
        for level, n in enumerate(self.levels, start=1):
            if n not in SCALES:
                raise ValueError(f"level {level}: the policy has scales of {sorted(SCALES)} tiers, got {n}")


# --- figures ------------------------------------------------------------------------------------
# A figure's value is exact: a Fraction of percent (on-time), of units per 1,000 (defects), or whole days/findings.


def figure(case: dict[str, Any], criterion: str) -> Fraction:
    """The value of one of the supplier's figures, from the facts the case gives."""
    fact = case["facts"][criterion]
    if criterion == ON_TIME:
        return Fraction(100 * fact["on_time"], fact["deliveries"])
    if criterion == DEFECTS:
        return Fraction(1000 * fact["defective"], fact["units"])
    if criterion == OVERDUE:
        if "days" in fact:
            return Fraction(fact["days"])
        return Fraction((dt.date.fromisoformat(case["review"]) - dt.date.fromisoformat(fact["due"])).days)
    return Fraction(fact["open"]) if "open" in fact else Fraction(fact["raised"] - fact["closed"])


def reaches(value: Fraction, threshold: int, criterion: str, style: str) -> bool:
    """Whether ``value`` reaches the tier of ``threshold``."""
    if criterion in WORSE_WHEN_LOWER:
        return value < threshold if style == STRICT else value <= threshold
    return value > threshold if style == STRICT else value >= threshold


def figure_tier(case: dict[str, Any], criterion: str) -> int:
    """The highest tier the figure reaches (0: none); a level 3 on-time rate over too few deliveries reaches none."""
    rules = case["rules"]
    fact = case["facts"][criterion]
    if criterion == ON_TIME and rules["min_deliveries"] and fact["deliveries"] < rules["min_deliveries"]:
        return 0
    value = figure(case, criterion)
    return sum(1 for t in rules["thresholds"][criterion] if reaches(value, t, criterion, rules["style"]))


def tier(case: dict[str, Any]) -> int:
    """The supplier's tier: the highest any of its figures reaches."""
    return max(figure_tier(case, c) for c in case["facts"] if c in CRITERIA)


def answer(case: dict[str, Any]) -> str:
    """The gold level key."""
    return level_key(tier(case))


# --- case sampling ------------------------------------------------------------------------------


SPACINGS = {ON_TIME: (1, 2, 3), DEFECTS: (1, 2, 3), OVERDUE: (5, 7), FINDINGS: (2, 3)}
"""The spacing of a figure's thresholds (round steps). A group's members lie up to two steps of its decisive fact
apart, which must not reach a second threshold: a spacing of one finding could not hold them."""


STARTS = {ON_TIME: (80, 99), DEFECTS: (1, 20), OVERDUE: (5, 60), FINDINGS: (1, 10)}
"""The range of a figure's first threshold (percent, per 1,000, days, findings)."""


def _ladder(rng: random.Random, criterion: str, count: int) -> list[int]:
    """A figure's ``count`` thresholds: a round spacing and a first threshold that is a multiple of it, from a wide
    range, whatever the group's boundary."""
    spacing = pick(rng, SPACINGS[criterion])
    lo, hi = STARTS[criterion]
    start = spacing * rng.randint(-(-lo // spacing), hi // spacing)
    sign = -1 if criterion in WORSE_WHEN_LOWER else 1
    return [start + sign * spacing * i for i in range(count)]


def _step(criterion: str, total: int) -> Fraction:
    """How far one step of the decisive fact moves the figure: one delivery of ``total``, one defective unit of
    ``total``, one day or one finding."""
    if criterion not in (ON_TIME, DEFECTS):
        return Fraction(1)
    return Fraction(100 if criterion == ON_TIME else 1000, total)


def _value_in_tier(rng: random.Random, thresholds: list[int], criterion: str, target: int, style: str) -> Fraction:
    """A value (in tenths for rates) that reaches exactly ``target`` tiers, clear of the thresholds, within one spacing
    of the first threshold it does not reach (index ``target``): so its size, like the thresholds', is drawn from the
    same range whatever the group's boundary."""
    points = [Fraction(t) for t in thresholds]
    spacing = abs(points[1] - points[0]) if len(points) > 1 else Fraction(pick(rng, SPACINGS[criterion]))
    worst = points[target]
    best = worst + spacing if criterion in WORSE_WHEN_LOWER else worst - spacing
    lo, hi = sorted((best, worst))
    if criterion in (OVERDUE, FINDINGS):
        candidates = [Fraction(v) for v in range(int(lo), int(hi) + 1)]
    else:
        candidates = [Fraction(v, 10) for v in range(int(lo * 10), int(hi * 10) + 1)]
    clear = Fraction(3, 10) if criterion in (ON_TIME, DEFECTS) else Fraction(0)  # rates: not next to a threshold
    fitting = [v for v in candidates if v >= 0 and sum(1 for t in thresholds if reaches(v, t, criterion, style))
               == target and all(abs(v - t) >= clear for t in points)]
    if not fitting:
        raise ValueError("no value fits")
    return pick(rng, fitting)


def _boundary_values(threshold: int, criterion: str, style: str, step: Fraction) -> tuple[Fraction, Fraction]:
    """(last value in the lower tier, first value reaching the upper tier) around ``threshold``."""
    t = Fraction(threshold)
    if criterion in WORSE_WHEN_LOWER:
        return (t, t - step) if style == STRICT else (t + step, t)
    return (t, t + step) if style == STRICT else (t - step, t)


def _facts_for(rng: random.Random, criterion: str, value: Fraction, level: int, review: dt.date, decisive: bool,
               total: int) -> dict[str, Any]:
    """The facts that give ``value`` for a figure: the counts a rate is computed from (the decisive figure's
    ``total`` deliveries or units make its value a whole count; another figure's count is rounded, which the caller
    checks), and the days or findings themselves (level 1) or the dates and counts they come from (levels 2-3)."""
    if level == 1 and criterion in (OVERDUE, FINDINGS):
        return {"days": int(value)} if criterion == OVERDUE else {"open": int(value)}
    if criterion == ON_TIME:  # enough deliveries or units that rounding a count moves the rate less than 0.3 points
        deliveries = total if decisive else rng.randrange(200, 900)
        return {"deliveries": deliveries, "on_time": round(value * deliveries / 100)}
    if criterion == DEFECTS:
        units = total if decisive else rng.randrange(20, 90) * 100
        return {"units": units, "defective": round(value * units / 1000)}
    if criterion == OVERDUE:
        return {"due": (review - dt.timedelta(days=int(value))).isoformat()}
    closed = rng.randrange(2, 6) if decisive else rng.randrange(0, 4)  # room for the members' steps
    return {"raised": int(value) + closed, "closed": closed}


def _try_case(rng: random.Random, level: int, decisive: str, boundary: Boundary) -> dict[str, Any] | None:
    """One attempt at the case of the group's lower_1 member."""
    setting = pick(rng, SETTINGS)
    trade, supplies = pick(rng, setting.suppliers)
    book = NameBook(rng)
    buyer = book.business(setting.trades) if setting.trades else f"{pick(rng, PLACE_WORDS)} {setting.suffix}"
    n = boundary.levels
    style = pick(rng, (STRICT, INCLUSIVE))
    criteria = list(CRITERIA) if level >= 2 else sorted(
        [decisive, *rng.sample([c for c in CRITERIA if c != decisive], 2)], key=CRITERIA.index)
    review = dt.date(2025, 2, 3) + dt.timedelta(days=rng.randrange(300))
    lower = boundary.edge - 1
    targets = {c: lower if c == decisive else 0 for c in criteria}
    thresholds = {c: _ladder(rng, c, n - 1) for c in criteria}
    rules = {"style": style, "thresholds": thresholds,
             "min_deliveries": MIN_DELIVERIES if level == 3 else 0, "names": list(SCALES[n])}
    case: dict[str, Any] = {"domain": setting.domain, "buyer": buyer, "about": setting.about,
                            "supplier": book.business((trade,)), "supplies": supplies, "review": review.isoformat(),
                            "rules": rules, "facts": {}}
    for criterion in criteria:
        thresholds = rules["thresholds"][criterion]
        # Enough deliveries or units that two steps of one stay within a threshold's spacing (under 1 point).
        total = rng.randrange(3, 10) * 100 if criterion == ON_TIME else rng.randrange(3, 9) * 1000
        if criterion == decisive:
            value = _boundary_values(thresholds[lower], criterion, style, _step(criterion, total))[0]
        else:
            try:
                value = _value_in_tier(rng, thresholds, criterion, targets[criterion], style)
            except ValueError:
                return None
        case["facts"][criterion] = _facts_for(rng, criterion, value, level, review, criterion == decisive, total)
    if level == 3 and decisive != ON_TIME and rng.random() < 0.3:  # few deliveries: the rate reaches no tier
        deliveries = rng.randrange(12, MIN_DELIVERIES)
        late = rng.randrange(4, max(5, deliveries // 3))
        case["facts"][ON_TIME] = {"deliveries": deliveries, "on_time": deliveries - late}
    if level == 3 and decisive == ON_TIME and case["facts"][ON_TIME]["deliveries"] < MIN_DELIVERIES:
        return None
    if tier(case) != lower or any(figure_tier(case, c) > lower for c in criteria):
        return None
    for worse in (-1, 0, 1, 2):
        member = _shifted(case, decisive, level, worse)
        if not _possible(member) or tier(member) != lower + (worse > 0):
            return None
    return case


def _possible(case: dict[str, Any]) -> bool:
    """Whether every figure's facts can be true (no negative count, no more on time than delivered, ...)."""
    for criterion, fact in case["facts"].items():
        if any(isinstance(v, int) and v < 0 for v in fact.values()):
            return False
        if criterion == ON_TIME and "deliveries" in fact and fact["on_time"] > fact["deliveries"]:
            return False
        if criterion == DEFECTS and "units" in fact and fact["defective"] > fact["units"]:
            return False
        if criterion == FINDINGS and "raised" in fact and fact["closed"] > fact["raised"]:
            return False
    return True


def _path(criterion: str, level: int) -> str:
    """The decisive fact of a figure: the count or date it moves by (level 1: the days or findings themselves)."""
    if level == 1 and criterion in (OVERDUE, FINDINGS):
        return f"facts/{criterion}/" + ("days" if criterion == OVERDUE else "open")
    return f"facts/{criterion}/" + {ON_TIME: "on_time", DEFECTS: "defective", OVERDUE: "due", FINDINGS: "closed"}[
        criterion]


def _shifted(case: dict[str, Any], criterion: str, level: int, worse: int) -> dict[str, Any]:
    """The case with the decisive figure ``worse`` steps towards the upper tier."""
    fact = dict(case["facts"][criterion])
    key = _path(criterion, level).rsplit("/", 1)[1]
    if key == "due":
        fact["due"] = (dt.date.fromisoformat(fact["due"]) - dt.timedelta(days=worse)).isoformat()
    elif key == "closed":
        fact["closed"] -= worse  # fewer closed: more open findings
    else:
        fact[key] += -worse if criterion in WORSE_WHEN_LOWER else worse
    return {**case, "facts": {**case["facts"], criterion: fact}}


# --- rendering ----------------------------------------------------------------------------------


def _date(iso: str) -> str:
    day = dt.date.fromisoformat(iso)
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def _threshold_text(criterion: str, threshold: int, style: str) -> str:
    unit = "%" if criterion == ON_TIME else " per 1,000" if criterion == DEFECTS else ""
    if criterion in WORSE_WHEN_LOWER:
        return f"below {threshold}{unit}" if style == STRICT else f"at {threshold}{unit} or lower"
    return f"above {threshold}{unit}" if style == STRICT else f"at {threshold}{unit} or more"


def policy_lines(case: dict[str, Any]) -> list[str]:
    rules = case["rules"]
    lines = []
    for criterion, thresholds in rules["thresholds"].items():
        steps = "; ".join(f"{name} {_threshold_text(criterion, t, rules['style'])}"
                          for name, t in zip(rules["names"][1:], thresholds, strict=True))
        lines.append(f"- {LABELS[criterion]}: {steps}.")
    return lines


def fact_line(case: dict[str, Any], criterion: str) -> str:
    fact = case["facts"][criterion]
    if criterion == ON_TIME:
        return (f"- Deliveries in the last 12 months: {grouped(fact['deliveries'])}, of which "
                f"{grouped(fact['on_time'])} on time")
    if criterion == DEFECTS:
        return f"- Units received: {grouped(fact['units'])}, of which {grouped(fact['defective'])} defective"
    if criterion == OVERDUE:
        if "days" in fact:
            return f"- Days the oldest open corrective action is overdue: {fact['days']}"
        return f"- Oldest open corrective action: due on {_date(fact['due'])}, still open"
    if "open" in fact:
        return f"- Open major audit findings: {fact['open']}"
    if not fact["raised"]:
        return "- Major audit findings: none raised"
    closed = "none" if not fact["closed"] else "all" if fact["closed"] == fact["raised"] else fact["closed"]
    return f"- Major audit findings: {fact['raised']} raised, {closed} of them closed since"


def render(case: dict[str, Any]) -> str:
    rules = case["rules"]
    lines = [f"Supplier review at {case['buyer']}, {case['about']}, on {_date(case['review'])}.", "",
             "The procurement team's risk policy:",
             "- Each figure below can put the supplier in a risk tier; the supplier's tier is the highest tier any "
             "of its figures reaches.",
             f"- A figure that reaches none of the tiers listed leaves the supplier in the lowest tier, "
             f"{rules['names'][0]}."]
    lines += policy_lines(case)
    if rules["min_deliveries"]:
        lines.append(f"- With fewer than {rules['min_deliveries']} deliveries in the period, the rate of on-time "
                     "deliveries does not count: it reaches no tier.")
    lines += ["", f"Supplier: {case['supplier']}, supplying {case['supplies']}"]
    lines += [fact_line(case, c) for c in CRITERIA if c in case["facts"]]
    return "\n".join(lines)


# --- contrast group -----------------------------------------------------------------------------


def plan(config: SupplierRiskConfig) -> list[GroupPlan]:
    """Boundaries spread so every tier is gold about equally often; the decisive figure taken in turn."""
    return scale_plans(config.levels, config.items_per_level, DECISIVE)


def build_group(plan: GroupPlan, rng: random.Random, config: SupplierRiskConfig) -> Group:
    boundary = Boundary.of(plan)
    for _ in range(3000):
        case = _try_case(rng, plan.level, plan.variation, boundary)
        if case is not None:
            break
    else:
        raise RuntimeError(f"{NAME}: no case for level {plan.level} group {plan.index}")
    options = level_options([(name, TIERS[name]) for name in SCALES[boundary.levels]])
    members = []
    for side, steps in boundary.members():
        worse = steps if side != LOWER else 1 - steps  # lower_1 is the sampled case
        member_case = _shifted(case, plan.variation, plan.level, worse)
        members.append(Member(case=member_case, state=render(member_case), answer=answer(member_case),
                              options=options, variation=variation(side, steps)))
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                 decisive=frozenset({_path(plan.variation, plan.level)}))


# --- partial-information heuristics -------------------------------------------------------------


def read_case(item: Item) -> dict[str, Any] | None:
    """The case as far as the rendered state gives it back (None when it does not parse)."""
    text = item.state if isinstance(item.state, str) else ""
    review = re.search(r", on (\d{1,2}) (\w+) (\d{4})\.$", text.splitlines()[0] if text else "")
    if review is None:
        return None
    names = [o.meaning.split(" - ")[0] for o in item.options]
    style = STRICT if re.search(r": \w+ (?:below|above) ", text) else INCLUSIVE
    thresholds: dict[str, list[int]] = {}
    facts: dict[str, Any] = {}
    for criterion, label in LABELS.items():
        line = re.search(rf"^- {re.escape(label)}: (.+)\.$", text, re.M)
        if line:
            thresholds[criterion] = [int(n.replace(",", "")) for n in re.findall(r"(?:below|above|at) ([\d,]+)",
                                                                                  line.group(1))]
    for pattern, criterion, make in (
        (r"^- Deliveries in the last 12 months: ([\d,]+), of which ([\d,]+) on time$", ON_TIME,
         lambda m: {"deliveries": int(m[1].replace(",", "")), "on_time": int(m[2].replace(",", ""))}),
        (r"^- Units received: ([\d,]+), of which ([\d,]+) defective$", DEFECTS,
         lambda m: {"units": int(m[1].replace(",", "")), "defective": int(m[2].replace(",", ""))}),
        (r"^- Days the oldest open corrective action is overdue: (\d+)$", OVERDUE, lambda m: {"days": int(m[1])}),
        (r"^- Oldest open corrective action: due on (\d{1,2}) (\w+) (\d{4}), still open$", OVERDUE,
         lambda m: {"due": dt.date(int(m[3]), MONTHS.index(m[2]) + 1, int(m[1])).isoformat()}),
        (r"^- Open major audit findings: (\d+)$", FINDINGS, lambda m: {"open": int(m[1])}),
        (r"^- Major audit findings: (\d+) raised, (\d+|none|all) of them closed since$", FINDINGS,
         lambda m: {"raised": int(m[1]), "closed": {"none": 0, "all": int(m[1])}.get(m[2]) or int(m[2])}),
        (r"^- Major audit findings: none raised$", FINDINGS, lambda m: {"raised": 0, "closed": 0}),
    ):
        found = re.search(pattern, text, re.M)
        if found:
            facts[criterion] = make(found)
    if set(facts) != set(thresholds):
        return None
    minimum = re.search(r"With fewer than (\d+) deliveries", text)
    return {"review": dt.date(int(review[3]), MONTHS.index(review[2]) + 1, int(review[1])).isoformat(),
            "rules": {"style": style, "thresholds": thresholds, "names": names,
                      "min_deliveries": int(minimum[1]) if minimum else 0}, "facts": facts}


def _one_hot(item: Item, level: int) -> dict[str, float]:
    return {key: float(key == level_key(level)) for key in item.option_keys}


def heuristic_mean_tier(item: Item) -> dict[str, float]:
    """Take the supplier's tier as the average of its figures' tiers (rounded half up), not the highest."""
    case = read_case(item)
    if case is None:
        return {key: 1 / len(item.options) for key in item.option_keys}
    tiers = [figure_tier(case, c) for c in case["facts"]]
    return _one_hot(item, int(Fraction(sum(tiers), len(tiers)) + Fraction(1, 2)))


def heuristic_threshold_other_side(item: Item) -> dict[str, float]:
    """Read every figure right but put a value exactly on a threshold on the other side of it."""
    case = read_case(item)
    if case is None:
        return {key: 1 / len(item.options) for key in item.option_keys}
    case["rules"]["style"] = INCLUSIVE if case["rules"]["style"] == STRICT else STRICT
    return _one_hot(item, tier(case))


register(FamilySpec(
    name=NAME,
    layer="E",
    version=VERSION,
    question=QUESTION,
    config_type=SupplierRiskConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=expected_answers,
    heuristics={"mean_tier": heuristic_mean_tier, "threshold_other_side": heuristic_threshold_other_side},
))
