"""Independent solver for access_request: read the written access rules and decide the request.

Reads only the rendered state. It collects the groups the requester belongs to by repeating
"a group whose member list names the user or a group already collected is collected too" until
nothing changes, gathers the roles those groups hold, and then looks at the requested folder's own
line of ancestors: the lowest sealed folder on that line (if any) is the highest point from which a
grant or deny entry can still reach the folder. The request is allowed when a held role grants the
action on a reachable folder of that line and no deny entry for the requester (or one of the
requester's groups) names the action on a reachable folder of that line.
"""

from __future__ import annotations

import re

from decisionpivot.items import Item

FAMILY = "access_request"

_HEADS = (
    ("Folder tree", "tree"), ("Sealed folders:", "seals"), ("Users:", "users"),
    ("Groups and their members:", "groups"), ("Roles and their grants:", "roles"),
    ("Roles held by groups:", "holds"), ("Deny entries:", "denies"),
)
_REQUESTS = (
    # core 1.3 writes "... to read files in /x" where 1.2 wrote "... to read in /x"
    re.compile(r"^Access request: (?P<u>\S+) asks to (?P<a>\w+)(?: files)? in (?P<f>/\S+)\.$"),
    re.compile(r"^Request under review: user (?P<u>\S+) wants to (?P<a>\w+)(?: files)? in the folder (?P<f>/\S+)\.$"),
    re.compile(r"^(?P<u>\S+) has asked for permission to (?P<a>\w+)(?: files)? in (?P<f>/\S+)\.$"),
)


def _names(text: str) -> list[str]:
    """Split 'a, b and c' (or 'a, b, c') into names."""
    head, sep, last = text.rpartition(" and ")
    parts = [*head.split(", "), last] if sep else text.split(", ")
    return [p.strip() for p in parts if p.strip()]


def _blocks(state: str) -> tuple[dict[str, list[str]], str]:
    blocks: dict[str, list[str]] = {}
    current = None
    request = ""
    for line in state.splitlines():
        head = next((key for prefix, key in _HEADS if line.startswith(prefix)), None)
        if head is not None:
            current = head
            blocks[head] = [line.split(":", 1)[1].strip()] if head == "users" else []
        elif not line.strip():
            current = None
        elif current is not None:
            blocks[current].append(line)
        elif any(p.match(line) for p in _REQUESTS):
            request = line
    return blocks, request


def _groups(lines: list[str]) -> dict[str, tuple[set[str], set[str]]]:
    out: dict[str, tuple[set[str], set[str]]] = {}
    for line in lines:
        users: set[str] = set()
        inner: set[str] = set()
        if line.startswith("- "):
            name, _, rest = line[2:].partition(": ")
            for part in rest.split("; "):
                kind, _, listed = part.partition(" ")
                (users if kind == "users" else inner).update(x.strip() for x in listed.split(", "))
        else:
            name, _, rest = line.partition(" includes ")
            for token in _names(rest.rstrip(".")):
                if token.startswith("group "):
                    inner.add(token[len("group "):])
                else:
                    users.add(token)
        out[name.strip()] = (users, inner)
    return out


def _roles(lines: list[str]) -> dict[str, list[tuple[set[str], str]]]:
    out: dict[str, list[tuple[set[str], str]]] = {}
    current = ""
    for line in lines:
        if line.startswith("Role ") and line.endswith(":"):
            current = line[len("Role "):-1]
            out[current] = []
        elif line.startswith("  - may "):
            acts, _, folder = line[len("  - may "):].rpartition(" in ")
            out[current].append((set(_names(acts.removesuffix(" files"))), folder))
        elif line.startswith("- "):
            name, _, rest = line[2:].partition(": ")
            grants = []
            for part in rest.split("; "):
                acts, _, folder = part.rpartition(" on ")
                grants.append((set(_names(acts)), folder))
            out[name] = grants
    return out


_HOLDS_ROLES = re.compile(r"^(.+) holds the roles? (.+)\.$")


def _holds(lines: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in lines:
        if line.startswith("- "):
            group, _, rest = line[2:].partition(": ")
            out[group] = set(_names(rest))
        else:
            m = _HOLDS_ROLES.match(line)
            if not m:
                raise ValueError(f"unreadable role holding: {line!r}")
            out[m.group(1)] = set(_names(m.group(2)))
    return out


_USER_MAY_NOT = re.compile(r"^- (user|group) (.+) may not (\w+)(?: files)? in (/\S+)$")
_DENY_TO = re.compile(r"^- deny (\w+) on (/\S+) to (user|group) (.+)$")


def _denies(lines: list[str]) -> list[tuple[str, str, str, str]]:
    """(kind, who, action, folder) per deny entry."""
    out = []
    for line in lines:
        m = _USER_MAY_NOT.match(line)
        if m:
            out.append((m.group(1), m.group(2), m.group(3), m.group(4)))
            continue
        m = _DENY_TO.match(line)
        if not m:
            raise ValueError(f"unreadable deny entry: {line!r}")
        out.append((m.group(3), m.group(4), m.group(1), m.group(2)))
    return out


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("access_request states are text")
    blocks, request_line = _blocks(item.state)
    m = next(p.match(request_line) for p in _REQUESTS if p.match(request_line))
    user, action, folder = m.group("u"), m.group("a"), m.group("f")

    groups = _groups(blocks.get("groups", []))
    mine: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, (users, inner) in groups.items():
            if name not in mine and (user in users or inner & mine):
                mine.add(name)
                changed = True
    held = _holds(blocks.get("holds", []))
    my_roles = set().union(*(held.get(g, set()) for g in mine)) if mine else set()

    # The requested folder's line of ancestors, top first, cut at the lowest seal on it.
    parts = folder.strip("/").split("/")
    line = ["/" + "/".join(parts[: k + 1]) for k in range(len(parts))]
    seals = {s[2:].strip() for s in blocks.get("seals", []) if s.startswith("- ")}
    sealed_on_line = [k for k, f in enumerate(line) if f in seals]
    reachable = set(line[sealed_on_line[-1]:] if sealed_on_line else line)

    roles = _roles(blocks.get("roles", []))
    granted = any(action in acts and where in reachable
                  for role in my_roles for acts, where in roles.get(role, []))
    denied = any(act == action and where in reachable and (who == user if kind == "user" else who in mine)
                 for kind, who, act, where in _denies(blocks.get("denies", [])))
    return "yes" if granted and not denied else "no"
