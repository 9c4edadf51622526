"""Release routes: which reference tasks the gated dataset may carry, decided by rules over card metadata.

The gated Hugging Face dataset adds access conditions (evaluation use only, no training). A task is
*redistributed* there only when its terms allow redistribution without conditions that those access
conditions would break; otherwise it ships as *reconstruct-only*: the package rebuilds it from the
official files a user downloads. The rules, in order (the first that applies decides):

1. terms unstated, or marked to verify                     -> reconstruct-only
2. non-commercial terms                                    -> reconstruct-only
3. research-only terms                                     -> reconstruct-only
4. mixed terms (some parts restricted)                     -> reconstruct-only
5. share-alike terms: the licence forbids adding further restrictions, which the gated
   access conditions do                                     -> reconstruct-only
6. redistribution not allowed                              -> reconstruct-only
7. permissive terms that allow redistribution              -> redistribute (with the stated attribution)

The paper counts 13 restricted reference tasks; these rules give more reconstruct-only tasks. The
difference is explained per task by :func:`restriction_basis`: a reconstruct-only task is either
*restricted by its terms* (non-commercial, research-only, mixed, unstated terms, or redistribution not
allowed: no release could carry it) or *held back by the route rules* although its licence allows
redistribution: share-alike licences (rule 5: the gated access conditions would be an added
restriction; an ungated release under the same licence could carry them) and permissive licences whose
redistribution terms are still to verify (rule 1). :func:`restricted_count_markdown` states both numbers
and lists the tasks of each kind. The paper does not list its 13 tasks, so an equal count does not show
the same set.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from decisionpivot.reconstruct.card import License, TaskCard

REDISTRIBUTE = "redistribute"
RECONSTRUCT_ONLY = "reconstruct-only"
PAPER_RESTRICTED_TASKS = 13
"""Restricted reference tasks the paper reconstructs from official files (its sections 2 and 7)."""
RESTRICTED_BY_TERMS = "restricted by its terms"
HELD_BACK_BY_RULES = "held back by the route rules"


@dataclass(frozen=True)
class RouteDecision:
    """The route of one task and the rule that decided it."""

    route: str
    """redistribute or reconstruct-only."""
    reason: str
    """The rule, in words."""


def decide_route(terms: License) -> RouteDecision:
    """Apply the route rules (module docstring) to a card's licence metadata."""
    if terms.license_class == "unstated" or terms.redistribution in ("unstated", "to-verify"):
        return RouteDecision(RECONSTRUCT_ONLY, "terms unstated or not yet verified")
    if terms.license_class == "non-commercial":
        return RouteDecision(RECONSTRUCT_ONLY, "non-commercial terms")
    if terms.license_class == "research-only":
        return RouteDecision(RECONSTRUCT_ONLY, "research-only terms")
    if terms.license_class == "mixed":
        return RouteDecision(RECONSTRUCT_ONLY, "mixed terms with restricted parts")
    if terms.license_class == "share-alike" or terms.redistribution == "share-alike":
        return RouteDecision(RECONSTRUCT_ONLY, "share-alike: the gated access conditions would add restrictions")
    if terms.redistribution == "not-allowed":
        return RouteDecision(RECONSTRUCT_ONLY, "redistribution not allowed")
    return RouteDecision(REDISTRIBUTE, f"permissive ({terms.spdx or terms.name}); attribution: {terms.attribution}")


@dataclass(frozen=True)
class RestrictionBasis:
    """Why a reconstruct-only task is not redistributed: its terms, or only our route rules."""

    task: str
    """Task id."""
    license_class: str
    """The card's licence class."""
    kind: str
    """RESTRICTED_BY_TERMS or HELD_BACK_BY_RULES."""
    why: str
    """The reason in words."""


def restriction_basis(card: TaskCard) -> RestrictionBasis | None:
    """For a task the rules make reconstruct-only, whether its terms or only the rules hold it back (None:
    redistributed)."""
    terms = card.license
    decision = decide_route(terms)
    if decision.route == REDISTRIBUTE:
        return None
    if terms.license_class == "share-alike" or (terms.license_class == "permissive"
                                                and terms.redistribution == "share-alike"):
        return RestrictionBasis(card.id, terms.license_class, HELD_BACK_BY_RULES,
                                "share-alike licence allows redistribution under the same licence; the gated access "
                                "conditions would add restrictions it forbids (rule 5)")
    if terms.license_class == "permissive" and terms.redistribution == "to-verify":
        return RestrictionBasis(card.id, terms.license_class, HELD_BACK_BY_RULES,
                                "permissive licence, redistribution terms still to verify (rule 1)")
    return RestrictionBasis(card.id, terms.license_class, RESTRICTED_BY_TERMS, decision.reason)


def restricted_count_markdown(cards: dict[str, TaskCard]) -> str:
    """Both counts (the paper's 13 restricted tasks, the rules' reconstruct-only tasks) and the tasks behind
    the difference, with their licence class."""
    bases = [b for b in (restriction_basis(c) for c in cards.values()) if b is not None]
    by_terms = [b for b in bases if b.kind == RESTRICTED_BY_TERMS]
    by_rules = [b for b in bases if b.kind == HELD_BACK_BY_RULES]
    lines = [f"The paper reconstructs {PAPER_RESTRICTED_TASKS} restricted reference tasks; the route rules make "
             f"{len(bases)} of {len(cards)} tasks reconstruct-only: {len(by_terms)} restricted by their terms "
             f"and {len(by_rules)} held back by the rules although their licences allow redistribution. "
             "The paper does not list its tasks, so equal counts would not show the same set.", "",
             "| task | licence class | basis | why |", "|---|---|---|---|"]
    lines += [f"| {b.task} | {b.license_class} | {b.kind} | {b.why} |" for b in by_terms + by_rules]
    difference = len(bases) - PAPER_RESTRICTED_TASKS
    held = ", ".join(f"{b.task} ({b.license_class})" for b in by_rules) or "none"
    lines += ["", f"Difference from the paper: {difference:+d} tasks. Held back by the rules only: {held}."]
    return "\n".join(lines) + "\n"


def review_rows(cards: dict[str, TaskCard]) -> list[dict[str, str]]:
    """One row per task: task, layer, licence, class, route, reason, and whether the card agrees."""
    rows = []
    for card in cards.values():
        decision = decide_route(card.license)
        rows.append({"task": card.id, "layer": card.layer, "license": card.license.spdx or card.license.name,
                     "class": card.license.license_class, "route": decision.route, "reason": decision.reason,
                     "card_route": card.route})
    return rows


def review_markdown(cards: dict[str, TaskCard]) -> str:
    """The licence review: the table, then counts per class and per route."""
    rows = review_rows(cards)
    lines = ["# Reference-track licence review", "",
             "Routes follow the rules in `decisionpivot/licenses/routes.py`.", "",
             "| task | layer | licence | class | route | reason |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['task']} | {r['layer']} | {r['license']} | {r['class']} | {r['route']} | {r['reason']} |"
              for r in rows]
    classes = Counter(r["class"] for r in rows)
    routes = Counter(r["route"] for r in rows)
    lines += ["", "| licence class | tasks |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(classes.items())]
    lines += ["", "| route | tasks |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(routes.items())]
    lines += ["", "## Restricted-task count", "", restricted_count_markdown(cards).rstrip("\n")]
    mismatched = [r["task"] for r in rows if r["route"] != r["card_route"]]
    if mismatched:
        lines += ["", f"Cards whose recorded route differs from the rules: {', '.join(mismatched)}"]
    return "\n".join(lines) + "\n"
