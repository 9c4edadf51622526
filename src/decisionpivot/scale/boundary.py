"""Contrast groups of score questions: members one step either side of one level boundary.

Every family of the scale suite computes one quantity from its case (points, minutes, cents, requirements
met) and reads the level off round band edges. A contrast group places that quantity at one boundary, between
the last value of a lower level and the first value of the next level up, by changing one decisive fact
one step at a time. Its members are named by their side and their distance from the boundary:

* ``lower_1``: the last value of the lower level, ``lower_2`` one step further down;
* ``upper_1``: the first value of the upper level, ``upper_2`` one step further up.

So the gold moves by exactly one level between the two sides, and not at all within a side. A group is a
pair (``lower_1``, ``upper_1``) or a triple: ``lower_2, lower_1, upper_1`` (two members on the lower level,
"lower-heavy") or ``lower_1, upper_1, upper_2`` ("upper-heavy"). Which of the two values next to a round edge
is the band's last or first value is the rubric's business ("up to 120 minutes" or "from 120 minutes"), drawn
per case apart from the plan, so the rubric's wording says nothing about which side a group's extra member is on.

:func:`boundary_plan` lays out the boundaries of one difficulty level so that every level of the scale is
gold about equally often: the lowest and highest levels are reached from one boundary only, so they need
their boundaries' heavy sides; the greedy choice below finds them (every count within one item of the others
for the suite's sizes, tests/scale/test_boundary.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from decisionpivot.generate.family import FamilyConfig, Group, GroupContractError, GroupPlan
from decisionpivot.score_questions import MAX_LEVELS, MIN_LEVELS, level_key

LOWER, UPPER = "lower", "upper"


@dataclass(frozen=True)
class ScaleConfig(FamilyConfig):
    """Settings every scale family shares; a family subclasses it with its own fields and checks."""

    levels: tuple[int, int, int] = (3, 4, 5)
    """Levels of the scale at each difficulty level (index 0 = level 1)."""

    def validate(self) -> None:
        super().validate()
        if len(self.levels) != 3:
            raise ValueError(f"levels must give the scale size of each of the 3 difficulty levels, got {self.levels}")
        for n in self.levels:
            if not MIN_LEVELS <= n <= MAX_LEVELS:
                raise ValueError(f"a scale has {MIN_LEVELS}-{MAX_LEVELS} levels, got {n}")
        if self.items_per_level < 2 * (max(self.levels) - 1):
            raise ValueError(f"items_per_level must be at least {2 * (max(self.levels) - 1)}: every boundary of "
                             "the largest scale needs a group")


@dataclass(frozen=True)
class Boundary:
    """Where one contrast group sits on its scale and how its members are spread over the two sides."""

    levels: int
    """Levels of the scale."""
    edge: int
    """Index of the upper level of the boundary (1 .. levels - 1); the lower level is ``edge - 1``."""
    lower: int
    """Members on the lower level (1 or 2)."""
    upper: int
    """Members on the upper level (1 or 2)."""

    def members(self) -> tuple[tuple[str, int], ...]:
        """``(side, steps)`` of every member, from the lowest value up: steps 1 is next to the boundary."""
        return (*((LOWER, s) for s in range(self.lower, 0, -1)), *((UPPER, s) for s in range(1, self.upper + 1)))

    def answers(self) -> tuple[str, ...]:
        """The gold keys of the members, in :meth:`members` order."""
        return tuple(level_key(self.edge - 1 if side == LOWER else self.edge) for side, _ in self.members())

    def params(self) -> dict[str, int]:
        """The boundary as a GroupPlan's params."""
        return {"levels": self.levels, "edge": self.edge, "lower": self.lower, "upper": self.upper}

    @classmethod
    def of(cls, plan: GroupPlan) -> Boundary:
        """The boundary a group plan carries in its params."""
        p = plan.params
        return cls(int(p["levels"]), int(p["edge"]), int(p["lower"]), int(p["upper"]))


def variation(side: str, steps: int) -> str:
    """A member's variation label: ``lower_1`` ... ``upper_2``."""
    return f"{side}_{steps}"


def offset(side: str, steps: int) -> int:
    """A member's value relative to the upper level's first value: lower_2 -2, lower_1 -1, upper_1 0, upper_2 +1."""
    return -steps if side == LOWER else steps - 1


_SHAPES = ((2, 1), (1, 2))
"""(lower, upper) members of a triple; a pair is (1, 1)."""


def boundary_plan(levels: int, items: int) -> list[Boundary]:
    """Boundaries for ``items`` members on a scale of ``levels`` levels, gold spread evenly over the levels.

    Triples while they fit, pairs to make up the count (an item count of 3k + 1 ends in two pairs). Each group
    takes the boundary and shape that bring the per-level counts closest to equal (least squares), ties going to
    the boundary used least so far, then the lower boundary, then the lower-heavy shape: deterministic, and no
    boundary is left out.
    """
    if levels < 2:
        raise ValueError(f"a scale needs at least two levels, got {levels}")
    if items < 2:
        raise ValueError(f"a level needs at least two items, got {items}")
    target = items / levels
    counts = [0] * levels
    uses: Counter[int] = Counter()
    out: list[Boundary] = []
    remaining = items
    while remaining:
        shapes = _SHAPES if remaining % 3 == 0 else ((1, 1),)
        best: tuple[tuple[float, int, int, int], Boundary] | None = None
        for edge in range(1, levels):
            for rank, (lower, upper) in enumerate(shapes):
                trial = list(counts)
                trial[edge - 1] += lower
                trial[edge] += upper
                spread = sum((c - target) ** 2 for c in trial)
                key = (round(spread, 9), uses[edge], edge, rank)
                if best is None or key < best[0]:
                    best = (key, Boundary(levels, edge, lower, upper))
        assert best is not None
        chosen = best[1]
        counts[chosen.edge - 1] += chosen.lower
        counts[chosen.edge] += chosen.upper
        uses[chosen.edge] += 1
        out.append(chosen)
        remaining -= chosen.lower + chosen.upper
    return out


def scale_plans(levels_per_difficulty: Sequence[int], items_per_level: int,
                decisive_kinds: Sequence[Sequence[str]]) -> list[GroupPlan]:
    """The group plans of a family: for each difficulty level its boundaries (:func:`boundary_plan`), each with the
    kind of its decisive fact (the plan's ``variation``) from that level's ``decisive_kinds``.

    The kinds are taken in turn within each boundary and shape, not along the plan: the plan visits the boundaries
    in a period of its own (1, 2, 1, 2, ... on three levels), which a family's kinds taken in plan order would
    follow, so that one kind of decisive fact sat only at the lowest boundary and told the level.
    """
    plans = []
    for level, levels in enumerate(levels_per_difficulty, start=1):
        kinds = decisive_kinds[level - 1]
        seen: Counter[tuple[int, int, int]] = Counter()
        for index, boundary in enumerate(boundary_plan(levels, items_per_level)):
            slot = (boundary.edge, boundary.lower, boundary.upper)
            kind = kinds[(seen[slot] + boundary.edge) % len(kinds)]
            seen[slot] += 1
            plans.append(GroupPlan(level=level, index=index, variation=kind, params=boundary.params()))
    return plans


def expected_answers(plan: GroupPlan) -> tuple[str, ...]:
    """The gold keys a group of this plan must have (the FamilySpec's ``expected_answers``)."""
    return Boundary.of(plan).answers()


def check_boundary_group(family: str, plan: GroupPlan, group: Group) -> None:
    """Raise GroupContractError unless the group keeps the boundary contract: every member on the planned scale,
    labelled with its side and steps in order, its gold the lower level on the lower side and the next level up
    on the upper side (so the gold moves by exactly one level across the boundary)."""
    where = f"{family} level {plan.level} group {plan.index} ({plan.variation})"
    boundary = Boundary.of(plan)
    expected_keys = [level_key(i) for i in range(boundary.levels)]
    shape = boundary.members()
    if len(group.members) != len(shape):
        raise GroupContractError(f"{where}: {len(group.members)} members, planned {len(shape)}")
    labels = sorted(m.variation or "" for m in group.members)
    if labels != sorted(variation(side, steps) for side, steps in shape):
        raise GroupContractError(f"{where}: members labelled {labels}, planned {[variation(*s) for s in shape]}")
    for member in group.members:
        keys = [o.key for o in member.options]
        if keys != expected_keys:
            raise GroupContractError(f"{where}: options {keys}, expected the {boundary.levels} level keys")
        side = (member.variation or "").split("_")[0]
        want = level_key(boundary.edge - 1 if side == LOWER else boundary.edge)
        if member.answer != want:
            raise GroupContractError(f"{where}: member {member.variation} has gold {member.answer}, "
                                     f"expected {want} (boundary below level {boundary.edge})")
