"""access_request (layer B): is the request allowed?

Story. The state writes out the rules of an invented document store: how access is decided
(numbered rules), a folder tree, the users, the groups with their members (users and, from level 2
on, other groups), the roles with their grants (actions such as read/write/delete/share on a
folder), which groups hold which roles and, from level 2 on, sealed folders and deny entries. It
ends with an access request: a user, an action and a folder.

Semantics (written into every state): a user belongs to the groups that list them and, through
nesting, to every group that lists one of those groups; roles are held by groups; a grant on a
folder reaches that folder and everything below it, except that a sealed folder does not inherit
from above (grants made on the sealed folder itself or below it still apply); a deny entry reaches
folders the same way and beats every grant. The request is allowed when some grant of the requested
action reaches the requested folder through a role the user holds and no deny entry applies.

Groups. Every pair is built around exactly ONE granting path

    user -> group (-> outer group ...) -> role -> grant (action on folder) -> inheritance -> folder

(the generator enumerates all paths and checks there is exactly one). The negative member breaks
exactly one link of that path, recorded as its ``variation``:

* ``membership``: the user (or, with nesting, the chain group) trades places with a member of
  another group, so the user is no longer in the chain (two member-list entries change, all counts
  stay the same);
* ``role_grant``: either the holder group trades the path role for a role of another group, or the
  path grant trades the requested action for an action of another grant (counts stay the same);
* ``inheritance``: the path grant is made on a folder that is not above the requested folder (a
  sibling, a subfolder of the requested folder, a same-named folder in another branch);
* ``seal``: one sealed folder moves from an off-path position (often the granting folder itself or
  a folder above it, which does not block) to a folder between the granting folder and the
  requested folder;
* ``deny``: one near-miss deny entry (off by its principal, its action or its folder) gets the
  missing field right and now applies.

Both members share everything else: other users, groups, roles, grants, seals and deny entries
that do not affect the request, among them near misses (the path role held by a group the user is
not in, the requested action granted on a sibling folder, another action granted on the path, a
seal on the granting folder, deny entries one field off or cut off by a seal).

Levels. Level 1: folder tree of depth 2, the user directly in the holder group, no seals or deny
entries. Level 2: depth 3, group chains of 1-2 groups plus other nested groups, 2 seals, 3 deny
entries. Level 3: depth 4, group chains of 2-3 groups, 3 seals, 4 deny entries, more of everything.

Variation counts (60 pairs per type, 300 pairs): seal and deny only exist at levels 2 and 3 and are
split evenly there; the three other types fill the rest:

    level 1: membership 34, role_grant 33, inheritance 33
    level 2: membership 13, role_grant 14, inheritance 13, seal 30, deny 30
    level 3: membership 13, role_grant 13, inheritance 14, seal 30, deny 30

Shortcuts. The paper notes that fourteen hand-crafted structural counts reach 0.561; here
:func:`structural_counts` computes fourteen such counts from the rendered state. Because negatives
move or swap entries instead of adding or removing them, most counts are identical in both members;
a logistic regression over them stays near chance (measured in the tests).

Version history:
* 1.0 - first release.
* 1.1 - text revision for core 1.2: folder names come from one list per depth (departments, then
  document plurals and work folders, then years and work states, then quarters and versions), so
  trees no longer read as word salad (/final/final/q3, /q1/q3/admissions); document folders use real
  plurals ("syllabuses", not "syllabuss"); the rules say "folders below it" instead of "subfolders";
  the intro writes "an adult education firm". Trees are drawn from the new lists, so every item's
  case differs from 1.0; the semantics, variations and checks are unchanged.
* 1.2 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before; groups carry
  code-name words ("Harbour Guild"). Requests, grants and deny entries name what is done to files: "Isla asks
  to read files in /audit/reports" (1.2: "asks to read in /audit/reports"), "may read and share files in
  /management", "may not delete files in /audit"; the solver and the heuristics read both forms.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS, Domain
from decisionpivot.generate.common.formatting import long_date
from decisionpivot.generate.common.names import NameForge, code_word, drawn_organisation
from decisionpivot.generate.common.wording import a_or_an, join_words, pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "access_request"
VERSION = "1.2"
QUESTION = "Is the request allowed?"
OPTIONS = (
    Option("yes", "the access rules allow the request"),
    Option("no", "the access rules do not allow the request"),
)
VARIATIONS = ("membership", "role_grant", "inheritance", "seal", "deny")
BASIC_VARIATIONS = ("membership", "role_grant", "inheritance")
ACTIONS = ("read", "write", "delete", "share")

ROLE_NAMES = (
    "Archivist", "Reviewer", "Clerk", "Editor", "Curator", "Auditor", "Publisher", "Steward", "Keeper",
    "Maintainer", "Observer", "Operator", "Planner", "Scribe", "Inspector", "Coordinator", "Registrar",
    "Custodian", "Analyst", "Liaison",
)
GROUP_SUFFIXES = ("Team", "Crew", "Unit", "Desk", "Circle", "Guild", "Cell", "Squad", "Board", "Pool")
TOP_FOLDERS = ("shared", "management")
"""Top-level folders besides the domain's departments."""
WORK_FOLDERS = ("reports", "templates", "budget", "contracts", "minutes", "policies", "handover", "planning",
                "scans", "reviews")
"""Second-level folders besides the plurals of the domain's documents."""
PERIOD_FOLDERS = ("2025", "2026", "incoming", "outgoing", "working", "archive", "legacy")
"""Third-level folders: years and the state of the work."""
DETAIL_FOLDERS = ("q1", "q2", "q3", "q4", "drafts", "final", "approved", "exports")
"""Fourth-level folders: quarters and versions."""

INTRO = (
    "Access rules of the {org} document store ({business}), exported on {date}.",
    "Document store of {org}, {a_business} firm: access configuration as of {date}.",
    "Written access rules for the shared folders of {org} ({business}), valid from {date}.",
)
RULES_MEMBERSHIP = (
    "A user belongs to a group when the group lists the user as a member.",
    "Group membership is written on the group: a user is in a group only if that group lists them.",
)
RULES_NESTING = (
    "When a group lists another group as a member, everyone who belongs to the inner group also "
    "belongs to the outer group; this carries on through any number of nested groups.",
    "A group can be a member of another group: members of the inner group (including members of groups "
    "nested inside it) then belong to the outer group as well.",
)
RULES_ROLES = (
    "Roles are held by groups only. A user holds every role held by a group the user belongs to.",
    "Only groups hold roles; a user has a role exactly when some group the user belongs to holds it.",
)
RULES_GRANTS = (
    "Each grant of a role allows the listed actions on the named folder and, by inheritance, on every "
    "folder below it. A grant never reaches folders above or beside the named folder.",
    "A grant names actions and a folder. It covers that folder and all folders beneath it, never a "
    "parent folder or a folder in another branch.",
)
RULES_ACTIONS = (
    "The actions are read, write, delete and share. Each action must be granted by name; no action "
    "includes another.",
    "There are four actions (read, write, delete, share), and each one counts only for itself: being "
    "allowed to write does not allow reading, and so on.",
)
RULES_SEALS = (
    "A sealed folder does not inherit from the folders above it: grants and deny entries made on a "
    "folder above a sealed folder do not reach the sealed folder or anything below it. Grants and deny "
    "entries made on the sealed folder itself, or on a folder below it, apply as usual.",
    "Sealing a folder cuts inheritance from above: nothing granted or denied on a folder higher up "
    "reaches the sealed folder or any folder below it. What is granted or denied on the sealed folder itself "
    "or further down still applies.",
)
RULES_DENIES = (
    "A deny entry names a user or a group, an action and a folder. It reaches folders exactly like a "
    "grant (including below the folder, and it is stopped by seals in the same way) and applies to the "
    "named user or to everyone who belongs to the named group. A deny entry that applies to the "
    "requester for the requested action and reaches the requested folder beats every grant.",
    "Deny entries work like grants in reverse: each names a user or a group, an action and a folder, "
    "reaches the folder and every folder below it (seals stop it as they stop grants) and covers the named user "
    "or every member of the named group. If one applies to the request, the request is refused whatever "
    "the grants say.",
)
RULES_DECISION = (
    "A request is allowed only when at least one grant of the requested action reaches the requested "
    "folder through a role the requester holds{deny}.",
    "The request is allowed if and only if some role held by the requester has a grant of the requested "
    "action that reaches the requested folder{deny}.",
)
DECISION_DENY = (", and no deny entry applies", ", and no deny entry applies to it")
REQUEST_TEMPLATES = (
    "Access request: {user} asks to {action} files in /{folder}.",
    "Request under review: user {user} wants to {action} files in the folder /{folder}.",
    "{user} has asked for permission to {action} files in /{folder}.",
)
STYLE_CHOICES = {
    "tree": ("paths", "outline"),
    "groups": ("list", "prose"),
    "roles": ("inline", "block"),
    "holds": ("list", "prose"),
    "denies": ("may_not", "deny"),
}


@dataclass(frozen=True)
class AccessRequestConfig(FamilyConfig):
    """Sizes of the access systems per level (index 0 = level 1)."""

    depth: tuple[int, int, int] = (2, 3, 4)
    """Depth of the folder tree (top-level folders have depth 1)."""
    top_folders: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] = ((3, 4), (3,), (3,))
    """Choices for the number of top-level folders."""
    branching: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] = ((2, 3), (2, 2, 3), (1, 2, 2))
    """Choices for the number of subfolders of a folder above the deepest level."""
    users: tuple[int, int, int] = (7, 10, 13)
    """Users listed."""
    groups: tuple[int, int, int] = (5, 7, 9)
    """Groups listed."""
    roles: tuple[int, int, int] = (4, 6, 7)
    """Roles listed."""
    chain: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] = ((1,), (1, 2), (2, 3))
    """Choices for the number of groups on the granting path (1 = user directly in the holder group)."""
    nested_extra: tuple[int, int, int] = (0, 2, 3)
    """Group-in-group entries besides the path chain."""
    seals: tuple[int, int, int] = (0, 2, 3)
    """Sealed folders."""
    denies: tuple[int, int, int] = (0, 3, 4)
    """Deny entries."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        if (3 * self.items_per_level // 2) % len(VARIATIONS):
            raise ValueError(f"the {3 * self.items_per_level // 2} pairs must split evenly over "
                             f"{len(VARIATIONS)} variation types")
        for level in (1, 2, 3):
            i = level - 1
            if self.depth[i] < 2:
                raise ValueError(f"level {level}: tree depth must be at least 2, got {self.depth[i]}")
            if min(self.top_folders[i]) < 2 or min(self.branching[i]) < 1:
                raise ValueError(f"level {level}: need at least 2 top folders and 1 subfolder per folder")
            if min(self.chain[i]) < 1 or max(self.chain[i]) > 3:
                raise ValueError(f"level {level}: chain lengths must be 1-3")
            if max(self.chain[i]) > 1 and self.nested_extra[i] < 1:
                raise ValueError(f"level {level}: chains of nested groups need nested_extra >= 1")
            spare = self.groups[i] - max(self.chain[i]) - 2
            if spare < 2:
                raise ValueError(f"level {level}: {self.groups[i]} groups are too few for chain and decoys")
            if self.users[i] < 4 or self.roles[i] < 3:
                raise ValueError(f"level {level}: need at least 4 users and 3 roles")
            if (self.seals[i] > 0) != (self.denies[i] > 0):
                raise ValueError(f"level {level}: seals and deny entries come together (both or neither)")
            if self.denies[i] and self.denies[i] < 2:
                raise ValueError(f"level {level}: need at least 2 deny entries (near misses)")
        if not any(self.seals):
            raise ValueError("at least one level needs seals and deny entries (seal and deny variations)")
        _allocate(self)  # raises ValueError when the variation quotas do not fit the levels


# --- structure helpers ---------------------------------------------------------------------------


def _depth(folder: str) -> int:
    return folder.count("/") + 1


def _parent(folder: str) -> str:
    return folder.rsplit("/", 1)[0] if "/" in folder else ""


def _covers(top: str, folder: str) -> bool:
    """``top`` is ``folder`` or one of its ancestors."""
    return folder == top or folder.startswith(top + "/")


def _reaches(origin: str, target: str, seals: list[str]) -> bool:
    """A grant or deny made on ``origin`` reaches ``target`` (inheritance, cut by seals in between)."""
    if not _covers(origin, target):
        return False
    return not any(s != origin and _covers(origin, s) and _covers(s, target) for s in seals)


def _routes(case: dict[str, Any], user: str) -> list[tuple[str, ...]]:
    """Every membership route of ``user``: (group listing the user, outer group, ...)."""
    outers: dict[str, list[str]] = {}
    for g in case["groups"]:
        for inner in g["groups"]:
            outers.setdefault(inner, []).append(g["name"])
    routes: list[tuple[str, ...]] = []
    stack = [(g["name"],) for g in case["groups"] if user in g["users"]]
    while stack:
        route = stack.pop()
        routes.append(route)
        stack.extend((*route, outer) for outer in outers.get(route[-1], []) if outer not in route)
    return routes


def _acyclic(case: dict[str, Any]) -> bool:
    inner_of = {g["name"]: list(g["groups"]) for g in case["groups"]}
    state: dict[str, int] = {}

    def visit(name: str) -> bool:
        if state.get(name) == 1:
            return False
        if state.get(name) == 2:
            return True
        state[name] = 1
        ok = all(visit(inner) for inner in inner_of.get(name, []))
        state[name] = 2
        return ok

    return all(visit(name) for name in inner_of)


def granting_paths(case: dict[str, Any]) -> list[tuple[tuple[str, ...], str, int]]:
    """Every (membership route, role, grant index) that grants the requested action on the folder."""
    request, seals = case["request"], case["seals"]
    holds = {h["group"]: h["roles"] for h in case["holds"]}
    roles = {r["name"]: r for r in case["roles"]}
    paths = []
    for route in _routes(case, request["user"]):
        for role in holds.get(route[-1], []):
            for gi, grant in enumerate(roles[role]["grants"]):
                if request["action"] not in grant["actions"]:
                    continue
                if _reaches(grant["folder"], request["folder"], seals):
                    paths.append((route, role, gi))
    return paths


def applicable_denies(case: dict[str, Any]) -> list[int]:
    """Indices of the deny entries that apply to the request."""
    request, seals = case["request"], case["seals"]
    member_of = {route[-1] for route in _routes(case, request["user"])}
    out = []
    for i, d in enumerate(case["denies"]):
        who = d["who"] == request["user"] if d["kind"] == "user" else d["who"] in member_of
        if who and d["action"] == request["action"] and _reaches(d["folder"], request["folder"], seals):
            out.append(i)
    return out


# --- case sampling -----------------------------------------------------------------------------


def _slug(text: str) -> str:
    return text.lower().replace(" ", "-")


def plural(noun: str) -> str:
    """The plural of a document noun as a careful writer spells it ("syllabuses", "delivery notes")."""
    if noun.endswith("us"):
        return noun + "es"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def folder_pools(domain: Domain) -> tuple[tuple[str, ...], ...]:
    """Folder names per depth (top first): departments at the top, then the documents they keep and
    their work folders, then years and work states, then quarters and versions, so that a path reads
    like a real store (/admissions/transcripts/2025/q1), never a department inside a quarter."""
    return (
        (*(_slug(d) for d in domain.departments), *TOP_FOLDERS),
        (*(_slug(plural(d)) for d in domain.documents), *WORK_FOLDERS),
        PERIOD_FOLDERS,
        DETAIL_FOLDERS,
    )


def _tree(rng: random.Random, domain: Domain, level: int, config: AccessRequestConfig) -> list[str]:
    """Folder paths in depth-first order; every branch reaches the full depth."""
    pools = folder_pools(domain)
    depth = config.depth[level - 1]
    folders: list[str] = []

    def grow(parent: str, d: int) -> None:
        n = pick(rng, config.top_folders[level - 1]) if d == 1 else pick(rng, config.branching[level - 1])
        names = rng.sample(pools[min(d, len(pools)) - 1], n)
        for name in names:
            path = f"{parent}/{name}" if parent else name
            folders.append(path)
            if d < depth:
                grow(path, d + 1)

    grow("", 1)
    return folders


def _group_name(rng: random.Random, forge: NameForge) -> str:
    for _ in range(1000):
        name = f"{code_word(rng, 2).capitalize()} {pick(rng, GROUP_SUFFIXES)}"
        if name not in forge.used:
            return forge.claim(name)
    raise RuntimeError("no fresh group name")


class _Retry(Exception):
    """The sampled case cannot carry the planned variation; draw another one."""


@dataclass
class _World:
    """Names the builder needs after the case is shuffled."""

    user: str
    action: str
    folder: str
    grant_folder: str
    chain: list[str]
    role: str
    ur: list[str]
    nr: list[str]
    anc: list[str]
    near_off: list[str]
    deny_target: dict[str, Any] | None
    deny_kind: str


def _sample_case(rng: random.Random, level: int, variation: str,
                 config: AccessRequestConfig) -> tuple[dict[str, Any], _World]:
    """One positive case built around a single granting path, with its distractors.

    Order of the story: folder tree -> request and granting folder -> users and groups (chain to the
    holder group, decoy groups of the user, groups the user does not reach) -> roles (the path role,
    "danger" roles that grant the request but are held only by unreachable groups, safe roles with
    near-miss grants) -> holdings -> seals off the path -> near-miss deny entries -> shuffled lists.
    ``build_group`` checks the result (exactly one path) and draws again when a check fails.
    """
    i = level - 1
    domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    restricted = config.seals[i] > 0
    folders = _tree(rng, domain, level, config)
    depth = config.depth[i]

    # The request and the granting folder.
    deepest = [f for f in folders if _depth(f) == depth]
    second = [f for f in folders if _depth(f) == depth - 1 and _depth(f) >= 2]
    target = pick(rng, second) if second and level > 1 and rng.random() < 0.25 else pick(rng, deepest)
    anc = ["/".join(target.split("/")[: k + 1]) for k in range(_depth(target))]
    grant_folder = pick(rng, anc[:-1]) if variation == "seal" or rng.random() < 0.8 else target
    between = [f for f in anc if f != grant_folder and _covers(grant_folder, f)]
    action = pick(rng, ACTIONS)
    others = [a for a in ACTIONS if a != action]
    siblings = [f for f in folders if f not in anc and _parent(f) in ["", *anc]]
    path_names = [a.rsplit("/", 1)[-1] for a in anc]
    same_name = [f for f in folders if f not in anc and f.rsplit("/", 1)[-1] in path_names]
    below = [f for f in folders if f != target and _covers(target, f)]
    near_off = list(dict.fromkeys(siblings + below + same_name))
    off = [f for f in folders if f not in anc]

    # People and groups.
    users = [forge.given_name() for _ in range(config.users[i])]
    user = users[0]
    k = pick(rng, config.chain[i])
    n_decoy = 1 if level == 1 else pick(rng, (1, 2))
    names = [_group_name(rng, forge) for _ in range(config.groups[i])]
    chain, decoys, rest = names[:k], names[k:k + n_decoy], names[k + n_decoy:]
    members: dict[str, dict[str, list[str]]] = {g: {"users": [], "groups": []} for g in names}
    for a, b in itertools.pairwise(chain):
        members[b]["groups"].append(a)
    members[chain[0]]["users"].append(user)
    for d in decoys:
        members[d]["users"].append(user)
    extra = config.nested_extra[i]
    if extra:
        # One decoy is nested in another group (so the user reaches it); the other nesting entries
        # join groups the user does not reach, among themselves or into the chain.
        outer = pick(rng, rest)
        members[outer]["groups"].append(decoys[0])
        into_chain = rng.randrange(extra) if len(chain) > 1 else 0
        pairs = [(a, b) for ai, a in enumerate(rest) for b in rest[ai + 1:]]
        for a, b in rng.sample(pairs, extra - 1 - into_chain):
            members[b]["groups"].append(a)
        probe = {"groups": [{"name": g, **members[g]} for g in names]}
        reached = [route[-1] for route in _routes(probe, user)]
        pairs = [(a, c) for a in rest if a not in reached for c in chain[1:]]
        for a, c in rng.sample(pairs, min(into_chain, len(pairs))):
            members[c]["groups"].append(a)
    for g in names:
        pool = [u for u in users[1:] if u not in members[g]["users"]]
        for u in rng.sample(pool, pick(rng, (1, 2, 2, 3))):
            members[g]["users"].append(u)
    groups = [{"name": g, "users": members[g]["users"], "groups": members[g]["groups"]} for g in names]
    probe = {"groups": groups}
    ur = list(dict.fromkeys(route[-1] for route in _routes(probe, user)))
    nr = [g for g in names if g not in ur]
    if len(nr) < 2:
        raise _Retry("too few groups outside the user's reach")

    # Roles and grants.
    role_names = rng.sample(ROLE_NAMES, config.roles[i])
    role = role_names[0]

    def safe_grant(kind: str | None = None) -> dict[str, Any]:
        kind = kind or pick(rng, ("random", "random", "near_action", "near_folder"))
        if kind == "near_action":
            return {"folder": pick(rng, anc), "actions": sorted(rng.sample(others, pick(rng, (1, 1, 2))),
                                                                key=ACTIONS.index)}
        if kind == "near_folder":
            acts = [action] + (rng.sample(others, 1) if rng.random() < 0.3 else [])
            return {"folder": pick(rng, near_off or off), "actions": sorted(acts, key=ACTIONS.index)}
        folder = pick(rng, folders)
        acts = rng.sample(ACTIONS, pick(rng, (1, 1, 2)))
        if folder in anc and action in acts:
            acts = [a for a in acts if a != action] or [pick(rng, others)]
        return {"folder": folder, "actions": sorted(acts, key=ACTIONS.index)}

    path_actions = [action] + (rng.sample(others, 1) if rng.random() < 0.4 else [])
    path_grant = {"folder": grant_folder, "actions": sorted(path_actions, key=ACTIONS.index)}
    roles = [{"name": role, "grants": [path_grant] + [safe_grant() for _ in range(pick(rng, (1, 1, 2)))]}]
    n_danger = 1 if level == 1 else pick(rng, (1, 2))
    danger = role_names[1:1 + n_danger]
    safe = role_names[1 + n_danger:]
    for name in danger:
        acts = [action] + (rng.sample(others, 1) if rng.random() < 0.4 else [])
        grants = [{"folder": pick(rng, anc), "actions": sorted(acts, key=ACTIONS.index)}]
        grants += [safe_grant() for _ in range(pick(rng, (0, 1)))]
        roles.append({"name": name, "grants": grants})
    for si, name in enumerate(safe):
        first = safe_grant("near_action" if si % 2 == 0 else "near_folder")
        roles.append({"name": name, "grants": [first] + [safe_grant() for _ in range(pick(rng, (0, 1, 2)))]})
    for r in roles:  # one grant per folder within a role
        seen: dict[str, dict[str, Any]] = {}
        for g in r["grants"]:
            seen.setdefault(g["folder"], g)
        r["grants"] = list(seen.values())

    # Who holds which role.
    held: dict[str, list[str]] = {g: [] for g in names}
    held[chain[-1]].append(role)
    for d in decoys:
        held[d] += rng.sample(safe, pick(rng, (1, 1, 2)))
    for g in chain[:-1] + [g for g in ur if g not in chain and g not in decoys]:
        if rng.random() < 0.5:
            held[g].append(pick(rng, safe))
    if rng.random() < 0.4:
        held[chain[-1]].append(pick(rng, safe))
    for name in danger:
        held[pick(rng, nr)].append(name)
    if rng.random() < 0.7:
        held[pick(rng, nr)].append(role)
    for g in nr:
        if not held[g] or rng.random() < 0.4:
            held[g].append(pick(rng, safe + danger))
    for name in safe:
        if not any(name in rs for rs in held.values()):
            held[pick(rng, names)].append(name)
    holds = [{"group": g, "roles": list(dict.fromkeys(held[g]))} for g in names if held[g]]

    # Seals: never between the granting folder and the requested folder; often on or above the
    # granting folder (which does not block).
    seals: list[str] = []
    if restricted:
        candidates = [f for f in folders if f not in between]
        on_or_above = [f for f in anc if _covers(f, grant_folder)]
        beside = [f for f in siblings if f in candidates] or candidates
        draw = rng.random()
        first = pick(rng, on_or_above if draw < 0.5 else beside if draw < 0.8 else candidates)
        seals = [first, *rng.sample([f for f in candidates if f != first], config.seals[i] - 1)]

    # Deny entries: near misses, each one field away from applying (or cut off by a seal).
    denies: list[dict[str, Any]] = []
    deny_target: dict[str, Any] | None = None
    deny_kind = ""
    if restricted:
        reach_anc = [f for f in anc if _reaches(f, target, seals)]
        blocked_anc = [f for f in anc if not _reaches(f, target, seals)]

        def principal(inside: bool) -> dict[str, str]:
            if rng.random() < 0.25:
                return {"kind": "user", "who": user if inside else pick(rng, users[1:])}
            return {"kind": "group", "who": pick(rng, ur if inside else nr)}

        def near_deny(kind: str) -> dict[str, Any]:
            if kind == "principal":
                return {**principal(False), "action": action, "folder": pick(rng, reach_anc)}
            if kind == "action":
                return {**principal(True), "action": pick(rng, others), "folder": pick(rng, reach_anc)}
            if kind == "folder":
                return {**principal(True), "action": action, "folder": pick(rng, near_off or off)}
            return {**principal(True), "action": action, "folder": pick(rng, blocked_anc)}

        kinds = ["principal", "action", "folder"]
        deny_kind = pick(rng, kinds)
        if blocked_anc and rng.random() < 0.6:
            kinds.append("blocked")
        order = [deny_kind] + [kd for kd in rng.sample(kinds, len(kinds)) if kd != deny_kind]
        for kd in order[: config.denies[i] - 1]:
            denies.append(near_deny(kd))
        while len(denies) < config.denies[i]:
            denies.append({**principal(False), "action": pick(rng, ACTIONS), "folder": pick(rng, folders)})
        deny_target = denies[0]

    # Shuffle every list, so path entries sit anywhere.
    rng.shuffle(users)
    rng.shuffle(groups)
    for g in groups:
        rng.shuffle(g["users"])
        rng.shuffle(g["groups"])
    rng.shuffle(roles)
    for r in roles:
        rng.shuffle(r["grants"])
    rng.shuffle(holds)
    for h in holds:
        rng.shuffle(h["roles"])
    rng.shuffle(seals)
    rng.shuffle(denies)

    org = drawn_organisation(rng, domain.name, ('Labs', 'Works', 'Group', 'Partners', 'Holdings', 'Systems'))
    day = long_date(dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(330)))
    rules = [pick(rng, RULES_MEMBERSHIP)]
    if level > 1:
        rules.append(pick(rng, RULES_NESTING))
    rules += [pick(rng, RULES_ROLES), pick(rng, RULES_GRANTS), pick(rng, RULES_ACTIONS)]
    if restricted:
        rules += [pick(rng, RULES_SEALS), pick(rng, RULES_DENIES)]
    rules.append(pick(rng, RULES_DECISION).format(deny=pick(rng, DECISION_DENY) if restricted else ""))
    case = {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(org=org, business=domain.business, a_business=a_or_an(domain.business),
                                          date=day),
        "rules": rules,
        "style": {key: pick(rng, choices) for key, choices in STYLE_CHOICES.items()},
        "restricted": restricted,
        "folders": folders,
        "seals": seals,
        "users": users,
        "groups": groups,
        "roles": roles,
        "holds": holds,
        "denies": denies,
        "request": {"user": user, "action": action, "folder": target},
        "request_template": pick(rng, REQUEST_TEMPLATES),
    }
    world = _World(user=user, action=action, folder=target, grant_folder=grant_folder, chain=chain, role=role,
                   ur=ur, nr=nr, anc=anc, near_off=near_off, deny_target=deny_target, deny_kind=deny_kind)
    return case, world


# --- answer ------------------------------------------------------------------------------------


def answer(case: dict[str, Any]) -> str:
    """yes when some grant reaches the request through a role the user holds and no deny applies."""
    return "yes" if granting_paths(case) and not applicable_denies(case) else "no"


# --- the broken link ---------------------------------------------------------------------------


Edit = dict[str, Any]
"""One candidate negative: decisive path (``groups/3/users/1``) -> the value it takes there."""


def _clone(value: Any) -> Any:
    """A deep copy of a JSON-like case (dicts, lists, scalars); much faster than copy.deepcopy."""
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) for v in value]
    return value


def _apply(case: dict[str, Any], edit: Edit) -> dict[str, Any]:
    """A copy of ``case`` with every path of ``edit`` set to its new value."""
    out = _clone(case)
    for path, value in edit.items():
        *parents, last = path.split("/")
        node: Any = out
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return out


def _positive_ok(case: dict[str, Any]) -> bool:
    return _acyclic(case) and len(granting_paths(case)) == 1 and not applicable_denies(case)


def _negative_ok(case: dict[str, Any], variation: str) -> bool:
    if not _acyclic(case):
        return False
    if variation == "deny":
        return len(granting_paths(case)) == 1 and len(applicable_denies(case)) == 1
    return not granting_paths(case) and not applicable_denies(case)


def _group_index(case: dict[str, Any], name: str) -> int:
    return next(i for i, g in enumerate(case["groups"]) if g["name"] == name)


def _edits_membership(case: dict[str, Any], w: _World, rng: random.Random) -> list[Edit]:
    """The user (or a chain group) trades places with a member of another group."""
    kind = "user" if len(w.chain) == 1 or rng.random() < 0.5 else "group"
    field = "users" if kind == "user" else "groups"
    if kind == "user":
        gi = _group_index(case, w.chain[0])
        moving = w.user
    else:
        t = rng.randrange(len(w.chain) - 1)
        gi = _group_index(case, w.chain[t + 1])
        moving = w.chain[t]
    ji = case["groups"][gi][field].index(moving)
    edits: list[Edit] = []
    for mi, other in enumerate(case["groups"]):
        if mi == gi or moving in other[field]:
            continue
        for ni, partner in enumerate(other[field]):
            if partner in case["groups"][gi][field] or partner == moving:
                continue
            edits.append({f"groups/{gi}/{field}/{ji}": partner, f"groups/{mi}/{field}/{ni}": moving})
    return edits


def _path_grant(case: dict[str, Any], w: _World) -> tuple[int, int]:
    ri = next(i for i, r in enumerate(case["roles"]) if r["name"] == w.role)
    gi = next(i for i, g in enumerate(case["roles"][ri]["grants"]) if g["folder"] == w.grant_folder)
    return ri, gi


def _edits_role_grant(case: dict[str, Any], w: _World, rng: random.Random) -> list[Edit]:
    """The holder group trades the path role, or the path grant trades the requested action."""
    edits = []
    if rng.random() < 0.5:
        hi = next(i for i, h in enumerate(case["holds"]) if h["group"] == w.chain[-1])
        ji = case["holds"][hi]["roles"].index(w.role)
        for mi, other in enumerate(case["holds"]):
            if mi == hi or w.role in other["roles"]:
                continue
            for ni, partner in enumerate(other["roles"]):
                if partner in case["holds"][hi]["roles"]:
                    continue
                edits.append({f"holds/{hi}/roles/{ji}": partner, f"holds/{mi}/roles/{ni}": w.role})
    else:
        ri, gi = _path_grant(case, w)
        mine = case["roles"][ri]["grants"][gi]["actions"]
        for rj, other_role in enumerate(case["roles"]):
            for gj, other in enumerate(other_role["grants"]):
                if (rj, gj) == (ri, gi) or w.action in other["actions"]:
                    continue
                for swap in other["actions"]:
                    if swap in mine:
                        continue
                    a = [swap if x == w.action else x for x in mine]
                    b = [w.action if x == swap else x for x in other["actions"]]
                    edits.append({f"roles/{ri}/grants/{gi}/actions": sorted(a, key=ACTIONS.index),
                                  f"roles/{rj}/grants/{gj}/actions": sorted(b, key=ACTIONS.index)})
    return edits


def _edits_inheritance(case: dict[str, Any], w: _World, rng: random.Random) -> list[Edit]:
    """The path grant is made on a folder that is not above the requested folder."""
    ri, gi = _path_grant(case, w)
    taken = [g["folder"] for g in case["roles"][ri]["grants"]]
    edits = []
    for folder in w.near_off:
        if folder in taken:
            continue
        edits.append({f"roles/{ri}/grants/{gi}/folder": folder})
    return edits


def _edits_seal(case: dict[str, Any], w: _World, rng: random.Random) -> list[Edit]:
    """One seal moves onto a folder between the granting folder and the requested folder."""
    between = [f for f in w.anc if f != w.grant_folder and _covers(w.grant_folder, f)]
    edits = []
    for si in range(len(case["seals"])):
        for folder in between:
            if folder in case["seals"]:
                continue
            edits.append({f"seals/{si}": folder})
    return edits


def _edits_deny(case: dict[str, Any], w: _World, rng: random.Random) -> list[Edit]:
    """The planted near-miss deny entry gets its missing field right."""
    if w.deny_target is None:
        return []
    di = next(i for i, d in enumerate(case["denies"]) if d is w.deny_target)
    entry = case["denies"][di]
    if w.deny_kind == "principal":
        field = "who"
        values = [w.user] if entry["kind"] == "user" else list(w.ur)
    elif w.deny_kind == "action":
        field, values = "action", [w.action]
    else:
        field = "folder"
        values = [f for f in w.anc if _reaches(f, w.folder, case["seals"])]
    return [{f"denies/{di}/{field}": value} for value in values]


EDITS: dict[str, Callable[[dict[str, Any], _World, random.Random], list[Edit]]] = {
    "membership": _edits_membership,
    "role_grant": _edits_role_grant,
    "inheritance": _edits_inheritance,
    "seal": _edits_seal,
    "deny": _edits_deny,
}


# --- rendering ---------------------------------------------------------------------------------


def _principal(kind: str, who: str) -> str:
    return f"{kind} {who}"


def render(case: dict[str, Any]) -> str:
    style = case["style"]
    lines = [case["intro"], "", "How access is decided:"]
    lines += [f"{n}. {rule}" for n, rule in enumerate(case["rules"], start=1)]
    lines += ["", "Folder tree (paths are written from the top, /a/b is folder b inside folder a):"]
    if style["tree"] == "paths":
        lines += [f"- /{f}" for f in case["folders"]]
    else:
        lines += ["  " * (_depth(f) - 1) + f.rsplit("/", 1)[-1] + "/" for f in case["folders"]]
    if case["restricted"]:
        lines += ["", "Sealed folders:"]
        lines += [f"- /{f}" for f in case["seals"]]
    lines += ["", "Users: " + ", ".join(case["users"]) + ".", "", "Groups and their members:"]
    for g in case["groups"]:
        if style["groups"] == "list":
            parts = []
            if g["users"]:
                parts.append("users " + ", ".join(g["users"]))
            if g["groups"]:
                parts.append("groups " + ", ".join(g["groups"]))
            lines.append(f"- {g['name']}: " + "; ".join(parts))
        else:
            listed = [*g["users"], *(f"group {h}" for h in g["groups"])]
            lines.append(f"{g['name']} includes {join_words(listed)}.")
    lines += ["", "Roles and their grants:"]
    for r in case["roles"]:
        if style["roles"] == "inline":
            lines.append(f"- {r['name']}: " + "; ".join(f"{', '.join(g['actions'])} on /{g['folder']}"
                                                       for g in r["grants"]))
        else:
            lines.append(f"Role {r['name']}:")
            lines += [f"  - may {join_words(g['actions'])} files in /{g['folder']}" for g in r["grants"]]
    lines += ["", "Roles held by groups:"]
    for h in case["holds"]:
        if style["holds"] == "list":
            lines.append(f"- {h['group']}: " + ", ".join(h["roles"]))
        else:
            noun = "role" if len(h["roles"]) == 1 else "roles"
            lines.append(f"{h['group']} holds the {noun} {join_words(h['roles'])}.")
    if case["restricted"]:
        lines += ["", "Deny entries:"]
        for d in case["denies"]:
            who = _principal(d["kind"], d["who"])
            if style["denies"] == "may_not":
                lines.append(f"- {who} may not {d['action']} files in /{d['folder']}")
            else:
                lines.append(f"- deny {d['action']} on /{d['folder']} to {who}")
    request = case["request"]
    lines += ["", case["request_template"].format(**request)]
    return "\n".join(lines)


# --- contrast group ----------------------------------------------------------------------------


def _allocate(config: AccessRequestConfig) -> dict[int, list[str]]:
    """The variation of every pair, per level (deterministic, see the module docstring)."""
    pairs = config.items_per_level // 2
    quota = 3 * pairs // len(VARIATIONS)
    counts: dict[int, dict[str, int]] = {lv: dict.fromkeys(VARIATIONS, 0) for lv in (1, 2, 3)}
    for kind, sizes in (("seal", config.seals), ("deny", config.denies)):
        levels = [lv for lv in (1, 2, 3) if sizes[lv - 1] > 0 and config.depth[lv - 1] >= 2]
        if not levels:
            raise ValueError(f"no level can carry {kind} variations")
        for n, lv in enumerate(levels):
            counts[lv][kind] = quota // len(levels) + (1 if n < quota % len(levels) else 0)
    need = dict.fromkeys(BASIC_VARIATIONS, quota)
    for lv in (1, 2, 3):
        free = pairs - counts[lv]["seal"] - counts[lv]["deny"]
        if free < 0:
            raise ValueError(f"level {lv}: seal and deny quotas exceed {pairs} pairs")
        for _ in range(free):
            kind = max(BASIC_VARIATIONS, key=lambda v: (need[v], -BASIC_VARIATIONS.index(v)))
            counts[lv][kind] += 1
            need[kind] -= 1
    if any(need.values()):
        raise ValueError(f"variation quotas cannot be met: {need}")
    out: dict[int, list[str]] = {}
    for lv in (1, 2, 3):
        left = dict(counts[lv])
        seq: list[str] = []
        while len(seq) < pairs:
            for v in VARIATIONS:
                if left[v]:
                    seq.append(v)
                    left[v] -= 1
        out[lv] = seq
    return out


def plan(config: AccessRequestConfig) -> list[GroupPlan]:
    allocation = _allocate(config)
    return [GroupPlan(level=lv, index=i, variation=v)
            for lv in (1, 2, 3) for i, v in enumerate(allocation[lv])]


def build_group(plan: GroupPlan, rng: random.Random, config: AccessRequestConfig) -> Group:
    for _ in range(60):
        try:
            case, world = _sample_case(rng, plan.level, plan.variation, config)
        except _Retry:
            continue
        if not _positive_ok(case):
            continue
        edits = EDITS[plan.variation](case, world, rng)
        rng.shuffle(edits)
        chosen = next(((_apply(case, e), e) for e in edits if _negative_ok(_apply(case, e), plan.variation)),
                      None)
        if chosen is None:
            continue
        negative, edit = chosen
        decisive = sorted(edit)
        members = [
            Member(case=case, state=render(case), answer=answer(case), options=OPTIONS, variation=None),
            Member(case=negative, state=render(negative), answer=answer(negative), options=OPTIONS,
                   variation=plan.variation),
        ]
        if members[0].answer != "yes" or members[1].answer != "no":
            raise RuntimeError(f"{NAME}: pair answers came out {members[0].answer}/{members[1].answer}")
        if rng.random() < 0.5:
            members.reverse()
        return Group(level=plan.level, domain=case["domain"], members=tuple(members),
                     decisive=frozenset(decisive))
    raise RuntimeError(f"{NAME}: no valid {plan.variation} pair at level {plan.level} after 60 draws")


# --- partial-information heuristics -------------------------------------------------------------

_SECTION_HEADS = {
    "Folder tree": "tree", "Sealed folders:": "seals", "Users:": "users",
    "Groups and their members:": "groups", "Roles and their grants:": "roles",
    "Roles held by groups:": "holds", "Deny entries:": "denies",
}
_REQUEST = re.compile(r"(?:asks to|wants to|permission to) (\w+)(?: files)? in (?:the folder )?(/\S+?)\.$")
_USER_OF_REQUEST = re.compile(r"^(?:Access request: |Request under review: user )?(\w+) ")


def _sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        head = next((v for k, v in _SECTION_HEADS.items() if line.startswith(k)), None)
        if head:
            current = head
            out[head] = [line[len("Users: "):]] if head == "users" else []
        elif not line.strip():
            current = ""
        elif current:
            out[current].append(line)
        else:
            out.setdefault("other", []).append(line)
    return out


def structural_counts(item: Item) -> dict[str, float]:
    """Fourteen structural counts of a rendered state (the paper's hand-crafted features)."""
    text = item.state if isinstance(item.state, str) else ""
    sec = _sections(text)
    request_line = sec.get("other", [""])[-1]
    m = _REQUEST.search(request_line)
    action, folder = (m.group(1), m.group(2)) if m else ("", "")
    um = _USER_OF_REQUEST.match(request_line)
    user = um.group(1) if um else ""
    tree = sec.get("tree", [])
    depths = [(len(line) - len(line.lstrip())) // 2 + 1 if not line.startswith("- ") else line.count("/")
              for line in tree]
    groups = sec.get("groups", [])
    grant_lines = [ln for ln in sec.get("roles", []) if ln.startswith("  - ")] or [
        part for ln in sec.get("roles", []) for part in ln.split("; ")]
    users = [u for u in sec.get("users", [""])[0].rstrip(".").split(", ") if u]
    return {
        "users": len(users),
        "groups": len(groups),
        "nested_memberships": sum(ln.count("group ") + (ln.split("groups ", 1)[1].count(", ") + 1
                                                         if "groups " in ln else 0) for ln in groups),
        "roles": sum(1 for ln in sec.get("roles", []) if not ln.startswith("  ")),
        "role_holdings": sum(ln.count(",") + ln.count(" and ") + 1 for ln in sec.get("holds", [])),
        "grants": len(grant_lines),
        "folders": len(tree),
        "tree_depth": max(depths, default=0),
        "request_depth": folder.count("/"),
        "seals": len(sec.get("seals", [])),
        "denies": len(sec.get("denies", [])),
        "user_mentions": sum(len(re.findall(rf"\b{re.escape(user)}\b", ln)) for ln in groups) if user else 0,
        "grants_with_action": sum(1 for ln in grant_lines if re.search(rf"\b{action}\b", ln))
        if action else 0,
        "denies_with_action": sum(1 for ln in sec.get("denies", []) if re.search(rf"\b{action}\b", ln))
        if action else 0,
    }


def heuristic_structural_counts(item: Item) -> dict[str, float]:
    """A fixed vote over the counts: allowing structure (the user's group memberships, grants naming
    the requested action) against blocking structure (seals, deny entries naming the action).

    Every negative moves or swaps entries instead of adding them, so the counts hardly differ
    between the members of a pair and the vote stays near chance.
    """
    c = structural_counts(item)
    allow = c["user_mentions"] + c["grants_with_action"]
    block = c["seals"] + c["denies_with_action"] + c["request_depth"]
    return {"yes": 1.0, "no": 0.0} if allow > block else {"yes": 0.0, "no": 1.0}


def heuristic_grant_on_path(item: Item) -> dict[str, float]:
    """Ignore who holds what: yes when any role grants the requested action on the requested folder
    or a folder above it, and no deny entry names that action on such a folder."""
    text = item.state if isinstance(item.state, str) else ""
    sec = _sections(text)
    m = _REQUEST.search(sec.get("other", [""])[-1])
    if not m:
        return {"yes": 0.5, "no": 0.5}
    action, folder = m.group(1), m.group(2)

    def on_path(path: str) -> bool:
        return folder == path or folder.startswith(path + "/")

    granted = False
    for ln in sec.get("roles", []):
        for part in ln.split("; "):
            gm = re.search(r"(?:may )?([\w ,]+?) (?:on|in) (/\S+)$", part.strip())
            if gm and re.search(rf"\b{action}\b", gm.group(1)) and on_path(gm.group(2)):
                granted = True
    denied = False
    for ln in sec.get("denies", []):
        dm = re.search(r"(/\S+)", ln)
        if dm and re.search(rf"\b{action}\b", ln) and on_path(dm.group(1)):
            denied = True
    yes = granted and not denied
    return {"yes": 1.0, "no": 0.0} if yes else {"yes": 0.0, "no": 1.0}


register(FamilySpec(
    name=NAME,
    layer="B",
    version=VERSION,
    question=QUESTION,
    config_type=AccessRequestConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=lambda plan: ("no", "yes"),
    heuristics={"structural_counts": heuristic_structural_counts, "grant_on_path": heuristic_grant_on_path},
))
