"""Independent solver for install_check: read environment, index and pins, then run every check.

Reads only the rendered state. Versions are split into numeric components plus an optional
pre-release tag; a pre-release sorts just below its release (alpha < beta < rc), and is matched by
a range only when one of the range's clauses names a pre-release. ``~=X.Y.Z`` is X.Y.Z up to the
next minor, ``^X.Y.Z`` up to the next major. The answer is yes only when every pinned version has
all its dependencies pinned inside their ranges, its runtime and platform requirements met, and
no declared conflict that another pin falls into.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from decisionpivot.items import Item

FAMILY = "install_check"

_TAG_ORDER = {"a": 1, "b": 2, "rc": 3, "": 4}
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(a|b|rc)?(\d+)?$")


@dataclass
class Release:
    version: str
    deps: list[tuple[str, str]] = field(default_factory=list)
    runtime: str = ""
    platforms: list[str] = field(default_factory=list)
    conflicts: list[tuple[str, str]] = field(default_factory=list)


def _order(version: str) -> tuple[int, int, int, int, int]:
    m = _VERSION.match(version)
    if m is None:
        raise ValueError(f"unreadable version {version!r}")
    major, minor, patch, tag, number = m.groups()
    return int(major), int(minor), int(patch), _TAG_ORDER[tag or ""], int(number or 0)


def _is_prerelease(version: str) -> bool:
    return _order(version)[3] != _TAG_ORDER[""]


def _compare(a: tuple[int, ...], op: str, b: tuple[int, ...]) -> bool:
    if op == ">=":
        return a >= b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    if op == "<":
        return a < b
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    raise ValueError(f"unknown operator {op!r}")


def _split_clause(clause: str) -> tuple[str, str]:
    for op in (">=", "<=", "==", "!=", "~=", ">", "<", "^"):
        if clause.startswith(op):
            return op, clause[len(op):]
    raise ValueError(f"unreadable clause {clause!r}")


def _in_range(version: str, spec: str) -> bool:
    clauses = [_split_clause(c.strip()) for c in spec.split(",")]
    if _is_prerelease(version) and not any(_is_prerelease(bound) for _, bound in clauses):
        return False
    v = _order(version)
    for op, bound in clauses:
        b = _order(bound)
        if op == "~=":
            if not (v >= b and v < (b[0], b[1] + 1, 0, _TAG_ORDER[""], 0)):
                return False
        elif op == "^":
            if not (v >= b and v < (b[0] + 1, 0, 0, _TAG_ORDER[""], 0)):
                return False
        elif not _compare(v, op, b):
            return False
    return True


def _runtime_met(have: str, spec: str) -> bool:
    mine = tuple(int(x) for x in have.split("."))
    for clause in spec.split(","):
        op, bound = _split_clause(clause.strip())
        if not _compare(mine, op, tuple(int(x) for x in bound.split("."))):
            return False
    return True


def _named_list(text: str) -> list[tuple[str, str]]:
    if not text or text == "none":
        return []
    out = []
    for part in text.split(", "):
        name, _, spec = part.partition(" ")
        out.append((name, spec))
    return out


def _read_index(lines: list[str]) -> dict[str, dict[str, Release]]:
    index: dict[str, dict[str, Release]] = {}
    package = ""
    for line in lines:
        if not line.strip() or line.startswith("package | version |"):
            continue
        if line.startswith("* "):
            package = line[2:].strip()
            index[package] = {}
            continue
        if line.startswith("  - "):
            version, _, rest = line[4:].partition(": ")
            release = Release(version)
            for part in rest.split("; "):
                if part.startswith("depends on "):
                    release.deps = _named_list(part.removeprefix("depends on "))
                elif part.startswith("needs "):
                    release.runtime = part.split(" ")[2]
                elif part.startswith("platforms "):
                    release.platforms = part.removeprefix("platforms ").split(", ")
                elif part.startswith("conflicts with "):
                    release.conflicts = _named_list(part.removeprefix("conflicts with "))
            index[package][version] = release
            continue
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != 6:
            raise ValueError(f"unreadable index line {line!r}")
        name, version = cells[0], cells[1]
        runtime = cells[3].removeprefix("runtime:").strip()
        platforms = cells[4].removeprefix("platforms:").strip()
        index.setdefault(name, {})[version] = Release(
            version,
            deps=_named_list(cells[2].removeprefix("requires:").removeprefix("deps:").strip()),  # 1.2 / 1.1
            runtime="" if runtime == "any" else runtime.split(" ")[1],
            platforms=[] if platforms == "any" else platforms.split(", "),
            conflicts=_named_list(cells[5].removeprefix("conflicts:").strip()),
        )
    return index


_PIN = (
    re.compile(r"^([a-z]+)==(\S+)$"),
    re.compile(r"^- ([a-z]+) (\S+)$"),
    re.compile(r'^([a-z]+) = "(\S+)"$'),
)


_TARGET_ENVIRONMENT = re.compile(r"^Target environment: (\S+) (\S+) on platform (\S+)\.$", re.M)


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("install_check states are text")
    lines = item.state.splitlines()
    env = _TARGET_ENVIRONMENT.search(item.state)
    if env is None:
        raise ValueError("no target environment")
    runtime_version, platform = env.group(2), env.group(3)
    start = next(i for i, line in enumerate(lines) if line.startswith("Package index"))
    end = next(i for i, line in enumerate(lines) if i > start and line.endswith(":")
               and ("pin" in line.lower() or "set" in line.lower()))
    index = _read_index(lines[start + 1 : end])
    pins: dict[str, str] = {}
    for line in lines[end + 1 :]:
        for pattern in _PIN:
            m = pattern.match(line)
            if m:
                if m.group(1) in pins:
                    raise ValueError(f"{m.group(1)} pinned twice")
                pins[m.group(1)] = m.group(2)
                break
    if not pins:
        raise ValueError("no pins found")

    for name, version in pins.items():
        release = index[name][version]
        for dep, spec in release.deps:
            if dep not in pins or not _in_range(pins[dep], spec):
                return "no"
        if release.runtime and not _runtime_met(runtime_version, release.runtime):
            return "no"
        if release.platforms and platform not in release.platforms:
            return "no"
        for other, spec in release.conflicts:
            if other in pins and _in_range(pins[other], spec):
                return "no"
    return "yes"
