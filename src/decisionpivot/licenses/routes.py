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
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from decisionpivot.reconstruct.card import License, TaskCard

REDISTRIBUTE = "redistribute"
RECONSTRUCT_ONLY = "reconstruct-only"


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
    mismatched = [r["task"] for r in rows if r["route"] != r["card_route"]]
    if mismatched:
        lines += ["", f"Cards whose recorded route differs from the rules: {', '.join(mismatched)}"]
    return "\n".join(lines) + "\n"
