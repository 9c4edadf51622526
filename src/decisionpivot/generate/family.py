"""What a family module provides, and the contrast-group contract the framework enforces.

A family module (one file per family in this package) defines, top to bottom: constants and
templates, a frozen config dataclass (subclass of :class:`FamilyConfig`) with ``validate()``, a
``plan`` that lays out the groups (level and variation of each), a ``build_group`` that samples one
structured case, computes the answers, renders every member and returns a :class:`Group`, and a
final ``register(FamilySpec(...))``.

The contract (checked by :func:`check_group` on every group, with real exceptions):

* every member is rendered from the same structured case; the members' cases differ only at the
  JSON paths the group declares ``decisive`` (the pivot), and at at least one of them;
* no two members share a rendered state; every answer is one of the member's option keys;
* the answers of the group are the ones the family promises (e.g. one ``yes`` and one ``no``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import LAYERS, Option

LEVELS = (1, 2, 3)


class GroupContractError(DecisionPivotError):
    """A generated group breaks the contrast-group contract (a generator bug, never user input)."""


@dataclass(frozen=True)
class FamilyConfig:
    """Settings every family shares; a family subclasses it with its own fields and checks."""

    items_per_level: int = 200
    """Items at each of the three difficulty levels (the release uses 200, 600 in all)."""

    def validate(self) -> None:
        """Raise ValueError when the settings cannot give a valid draw."""
        if self.items_per_level <= 0:
            raise ValueError(f"items_per_level must be positive, got {self.items_per_level}")


@dataclass(frozen=True)
class GroupPlan:
    """The slot of one contrast group before it is sampled."""

    level: int
    """Difficulty level 1-3."""
    index: int
    """Index of the group within its level (part of the group's seed)."""
    variation: str
    """What the family will vary in this group (negative type, interpretation, ...)."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Further family-specific choices fixed by the plan (e.g. which members to include)."""


@dataclass(frozen=True)
class Member:
    """One rendered member of a contrast group."""

    case: Mapping[str, Any]
    """The structured case this member was rendered from (JSON-able)."""
    state: str | dict[str, Any]
    """Rendered state."""
    answer: str
    """Gold option key, computed from ``case``."""
    options: tuple[Option, ...]
    """Ordered options of this member."""
    variation: str | None = None
    """Pivot type of this member (e.g. ``lookalike`` on a negative), or None for the base member."""
    question: str | None = None
    """Question text if it differs from the family's default question."""


@dataclass(frozen=True)
class Group:
    """A contrast group: members built from one case that differ only in the decisive fact."""

    level: int
    """Difficulty level 1-3."""
    domain: str
    """Domain of the shared case."""
    members: tuple[Member, ...]
    """Members in the order they are written."""
    decisive: frozenset[str]
    """JSON paths (``rows/3/org``) in the members' cases that are allowed to differ."""


@dataclass(frozen=True)
class FamilySpec:
    """Registration record of one family."""

    name: str
    """Family name, also the items file stem (``fact_answerable``)."""
    layer: str
    """Decision layer A-G."""
    version: str
    """Generator version; bump it (and note why in the module docstring) whenever bytes change."""
    question: str
    """The typed question shown with every item."""
    config_type: type[FamilyConfig]
    """The family's frozen config dataclass."""
    plan: Callable[[Any], Sequence[GroupPlan]]
    """Lays out all groups of a draw for a config."""
    build_group: Callable[[GroupPlan, random.Random, Any], Group]
    """Samples and renders one group from its plan and its own seeded RNG."""
    expected_answers: Callable[[GroupPlan], Sequence[str]] | None = None
    """The multiset of answers a group of this plan must have (checked), if the family fixes it."""
    heuristics: Mapping[str, Callable[[Any], Mapping[str, float]]] = field(default_factory=dict)
    """Partial-information shortcuts (name -> item -> probabilities), exposed for audits/baselines."""

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"family {self.name}: layer must be one of {LAYERS}, got {self.layer!r}")


def yes_no(yes: bool) -> dict[str, float]:
    """A yes/no heuristic's answer as probabilities: all mass on "yes" or on "no"."""
    return {"yes": 1.0, "no": 0.0} if yes else {"yes": 0.0, "no": 1.0}


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """Flatten nested dicts/lists into ``{"a/0/b": leaf}`` so cases can be compared path by path.

    Leaves come in depth-first order; an empty dict or list is a leaf of its own. Every level writes into one
    output dict (merging each child's own dict upwards copied every leaf once per level: a fifth of a draw).
    """
    out: dict[str, Any] = {}
    _flatten_into(value, prefix, out)
    return out


def _flatten_into(value: Any, prefix: str, out: dict[str, Any]) -> None:
    if isinstance(value, dict):  # plain dict/list checks: the ABC checks cost a third of draw time
        if not value:
            out[prefix] = {}
            return
        for key, sub in value.items():
            _flatten_into(sub, f"{prefix}/{key}" if prefix else str(key), out)
        return
    if isinstance(value, list):
        if not value:
            out[prefix] = []
            return
        for i, sub in enumerate(value):
            _flatten_into(sub, f"{prefix}/{i}" if prefix else str(i), out)
        return
    out[prefix] = value


def case_difference(a: Mapping[str, Any], b: Mapping[str, Any]) -> set[str]:
    """Paths at which two cases differ (present in one only, or with different leaves).

    Defined as the paths of ``flatten(a)`` and ``flatten(b)`` whose leaves differ (or that one side lacks);
    found by descending only where the two sides differ, which is the same set (see :func:`_plain_case`).
    """
    return _case_difference(a, b, _plain_case(a))


def _flat_difference(fa: dict[str, Any], fb: dict[str, Any]) -> set[str]:
    return {p for p in fa.keys() | fb.keys() if fa.get(p, _MISSING) != fb.get(p, _MISSING)}


def _plain_case(value: Any) -> bool:
    """Whether ``value`` flattens without surprises: every dict key a non-empty ``str`` without "/", every
    leaf equal to itself (no NaN).

    Then any structure ``== value`` flattens to the same paths and leaves (its keys equal ``value``'s, so
    they spell the same paths unless they are ``str`` subclasses that format otherwise), so
    :func:`_case_difference` may skip a subtree of ``a`` that equals its counterpart in ``b`` (one C-level
    ``==``) instead of flattening both: the comparison of flattened cases was a sixth of a draw. Without it
    (an int key 1 equals 1.0 and True but spells another path; a key "a/b" or "" can collide with a nested
    path; a NaN leaf is unequal to itself), equal subtrees could still differ path by path, so the caller
    falls back to flattening.
    """
    if isinstance(value, dict):
        if not _plain_keys(value):
            return False
        children: Iterable[Any] = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return not value != value  # noqa: SIM202 - the definition compares leaves with !=
    for sub in children:
        kind = type(sub)
        if not (kind is str or kind is int or kind is bool or sub is None) and not _plain_case(sub):
            return False
    return True


def _case_difference(a: Any, b: Any, a_is_plain: bool) -> set[str]:
    """:func:`case_difference`, told whether ``a`` is plain (:func:`_plain_case`), so a group checks its
    member 0 once."""
    if not a_is_plain:
        return _flat_difference(flatten(a), flatten(b))
    out: set[str] = set()
    if a != b:
        _difference_into(a, b, "", out)
    return out


def _difference_into(a: Any, b: Any, prefix: str, out: set[str]) -> None:
    """Add to ``out`` the differing flattened paths under ``prefix``, given a plain ``a != b`` whose paths
    under ``prefix`` come from ``a`` and ``b`` alone (every key on the way down was plain on both sides).

    Two non-empty dicts whose keys in ``b`` are plain too (as ``a``'s are) and two non-empty lists are
    compared entry by entry: an entry equal on both sides adds nothing (``a`` is plain), an entry on one
    side only adds all its flattened paths, two different entries are compared the same way one level
    down. Anything else (a leaf, an empty container, a dict against a list, a key in ``b`` that is not
    plain) is compared by flattening both sides under ``prefix``, as the definition does.
    """
    if isinstance(a, dict) and isinstance(b, dict) and a and b and _plain_keys(b):
        for key, sub in a.items():
            path = f"{prefix}/{key}" if prefix else key
            if key not in b:
                out.update(flatten(sub, path))
            elif sub != b[key]:
                _difference_into(sub, b[key], path, out)
        for key, sub in b.items():
            if key not in a:
                out.update(flatten(sub, f"{prefix}/{key}" if prefix else key))
        return
    if isinstance(a, list) and isinstance(b, list) and a and b:
        common = min(len(a), len(b))
        for i in range(common):
            if a[i] != b[i]:
                _difference_into(a[i], b[i], f"{prefix}/{i}" if prefix else str(i), out)
        for longer in (a, b):
            for i in range(common, len(longer)):
                out.update(flatten(longer[i], f"{prefix}/{i}" if prefix else str(i)))
        return
    out.update(_flat_difference(flatten(a, prefix), flatten(b, prefix)))


def _plain_keys(value: dict[Any, Any]) -> bool:
    """Every key a non-empty ``str`` without "/" (a loop: a generator in ``all`` cost a third more per case)."""
    for key in value:  # noqa: SIM110 - the loop is the point (see the docstring)
        if type(key) is not str or not key or "/" in key:
            return False
    return True


_MISSING = object()


def _covered(path: str, decisive: frozenset[str]) -> bool:
    return any(path == d or path.startswith(d + "/") for d in decisive)


def _distinct_states(members: Sequence[Member]) -> set[Any]:
    """The members' rendered states told apart by ``repr``; plain ``str`` states by themselves, since
    ``repr`` tells two strings apart exactly when they differ (and escaping every state cost a twentieth of
    a draw)."""
    if all(type(m.state) is str for m in members):
        return {m.state for m in members}
    return {repr(m.state) for m in members}


def check_group(family: str, plan: GroupPlan, group: Group, expected: Sequence[str] | None) -> None:
    """Raise GroupContractError unless the group keeps the contrast-group contract."""
    where = f"{family} level {plan.level} group {plan.index} ({plan.variation})"
    if group.level != plan.level:
        raise GroupContractError(f"{where}: built at level {group.level}, planned {plan.level}")
    if len(group.members) < 2:
        raise GroupContractError(f"{where}: a contrast group needs at least two members")
    if not group.decisive:
        raise GroupContractError(f"{where}: no decisive path declared")
    if len(_distinct_states(group.members)) != len(group.members):
        raise GroupContractError(f"{where}: two members have the same rendered state")
    for m in group.members:
        keys = [o.key for o in m.options]
        if m.answer not in keys:
            raise GroupContractError(f"{where}: answer {m.answer!r} is not among options {keys}")
    base = group.members[0].case
    base_is_plain = _plain_case(base)
    for i, m in enumerate(group.members[1:], start=1):
        diff = _case_difference(base, m.case, base_is_plain)
        if not diff:
            raise GroupContractError(f"{where}: member {i} has the same case as member 0")
        stray = sorted(p for p in diff if not _covered(p, group.decisive))
        if stray:
            raise GroupContractError(
                f"{where}: member {i} differs from member 0 outside the decisive fact at {stray[:5]}"
            )
    if expected is not None and sorted(m.answer for m in group.members) != sorted(expected):
        raise GroupContractError(
            f"{where}: answers {[m.answer for m in group.members]}, expected {list(expected)}"
        )
