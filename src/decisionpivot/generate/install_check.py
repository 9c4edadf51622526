"""install_check (layer G): does the proposed set install cleanly in the target environment?

Story. A team of an invented organisation wants to install a set of pinned packages on a build
machine. The state gives the version-ordering conventions (numeric comparison per component, so
3.10.0 is later than 3.9.9; pre-releases such as 2.0.0rc1 sort before 2.0.0 and are matched by a
range only when the range names a pre-release; the range operators >=, >, <=, <, ==, !=, ~= and ^
defined in full), the target environment (an invented runtime such as "Osprey 3.11" and a
platform), an invented package index (packages with several versions; per version its dependencies
with ranges, runtime requirement, supported platforms and declared conflicts) and the proposed pins.
The set installs cleanly when every dependency of every pinned version is pinned at a version in
its range, every runtime and platform requirement of a pinned version holds, and no pinned version
declares a conflict that another pin falls into.

Groups. 300 pairs whose members differ in ONE pin or one pin's presence (decisive path
``pins/<package>``); the positive installs cleanly, the negative fails exactly one check:

* ``version_bound`` (79) - a dependency range narrowly missed: the positive pins exactly the bound
  (>=2.10.0 -> 2.10.0, <=1.4.9 -> 1.4.9), the negative the neighbouring version just outside
  (2.9.12, 1.4.10) or the pre-release of the bound (2.0.0rc1, not matched by >=2.0.0);
* ``missing_pin`` (78) - a required dependency is not pinned at all;
* ``unmet_requirement`` (78) - the pinned version needs a newer (or older) runtime or another
  platform; runtime bounds sit at the environment's version (>=3.11 met by 3.11, >=3.12 not);
* ``conflict`` (65) - a declared conflict applies: the conflicting package moves one version into
  the conflict range (boundary: <2.10.0 with 2.10.0 vs 2.9.12), is added to the set, or the pinned
  version of the declaring package is replaced by one that declares the conflict.

Version-ordering traps are built into both members: every member holds at least one check whose
answer flips when versions are compared as text instead of numbers (a range >=1.9.0 met by 1.12.0,
a runtime >=3.9 met by 3.11, a conflict <2.9.0 not hit by 2.12.1) and most decisive comparisons
are traps too (2.9.12 is not >=2.10.0). ``heuristic_string_versions`` (text comparison) therefore
stays near chance, and ``heuristic_presence_only`` (are all dependencies pinned at all) only finds
the missing pins.

Levels: 4-5 pins with 1 unpinned package in the index (level 1; few runtime requirements, conflicts
only where decisive; a median of three checks per positive item), 6-8 pins and 2 unpinned packages
(level 2), 9-12 pins and 3 unpinned packages with runtime and platform requirements, conflicts and
pre-release pins (level 3). Pair types are spread evenly over the levels (27/26/26/21 at level 1,
26/26/26/22 at levels 2 and 3).

Version history:
* 1.0 - first release.
* 1.1 - boundary pins (exactly at the bound vs the next version), text-comparison traps in both
  members, pre-release rule, added-pin conflicts.
* 1.2 - text revision (issue 14): runtime "Kvillet" (spelt by the name grammar) instead of the
  unspellable "Quillet", the index column "requires" instead of "deps", technical teams (no front
  desk installs build tools), no "a adult education organisation", organisation names that suit the
  domain. Pins, pair types and answers are unchanged; the solver reads both the 1.1 and 1.2 tables.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took, so cases are drawn as before.
  The runtimes are ordinary words ("Osprey", "Gannet", "Kite", "Plover"; 1.2: "Pyrelle", "Kvillet", ...),
  the platforms as build tools name them ("linux-x64", "macos-arm64"; 1.2: "tundra-x64", "karst-arm64"),
  the organisation's name ends in its business ("Visser Logistics"). A range whose floor and ceiling are one
  version is written "==3.1.0" (1.2: ">=3.1.0,<=3.1.0"). Pins, pair types and answers are drawn as before.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from decisionpivot.generate.common.domains import DOMAINS
from decisionpivot.generate.common.names import NameForge
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member, yes_no
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "install_check"
VERSION = "1.3"
QUESTION = "Does the proposed set install cleanly in the target environment?"
OPTIONS = (
    Option("yes", "every dependency is pinned within its range, every requirement holds and no conflict "
                  "applies"),
    Option("no", "at least one dependency, runtime or platform requirement, or conflict check fails"),
)
VARIATIONS = ("version_bound", "missing_pin", "unmet_requirement", "conflict")
FAILURE_OF = {"version_bound": ("bound",), "missing_pin": ("missing",),
              "unmet_requirement": ("runtime", "platform"), "conflict": ("conflict",)}

RUNTIMES = ("Osprey", "Gannet", "Kite", "Plover")
"""Invented runtime names, all spelt by the syllables of common/names.py (1.1's "Quillet" was not)."""
PLATFORMS = ("linux-x64", "linux-arm64", "windows-x64", "macos-arm64", "linux-riscv64")
"""Build platforms as build tools name them (1.2 invented "tundra-x64", "karst-arm64")."""
PRE_TAGS = ("a", "b", "rc")

TEAMS = {
    "logistics": ("dispatch systems", "warehouse systems", "IT"),
    "healthcare": ("clinical systems", "billing systems", "IT"),
    "retail": ("web shop", "stock systems", "IT"),
    "software": ("platform", "security", "build tooling"),
    "finance": ("payment systems", "risk analytics", "IT"),
    "education": ("learning platform", "student records", "IT"),
    "energy": ("metering systems", "grid analytics", "IT"),
    "hospitality": ("booking systems", "guest network", "IT"),
}
"""Teams that install packages on a build machine: technical teams of each domain (1.1 drew the domains'
departments, so a front desk, a kitchen or a radiology team rolled out build tools)."""



INTRO = (
    "The {department} team of {org} ({business}) wants to install a set of packages on a build machine.",
    "{org}, which works in {business}, is preparing a package install for its {department} team.",
    "Before rolling out a tool to the {department} team, {org} ({business}) checks a proposed package set.",
)
CONVENTIONS = (
    ("Versions have the form MAJOR.MINOR.PATCH, optionally followed by a pre-release tag aN (alpha), bN "
     "(beta) or rcN (release candidate). They are compared component by component as numbers, never as "
     "text: 3.10.0 is later than 3.9.9 and 1.4.10 is later than 1.4.9.",
     "A version is MAJOR.MINOR.PATCH, possibly with a pre-release tag aN, bN or rcN appended. Compare "
     "versions number by number from the left, not as text: 3.10.0 comes after 3.9.9, and 1.4.10 after "
     "1.4.9."),
    ("A pre-release comes before its release and after every earlier release: 1.9.9 < 2.0.0a1 < 2.0.0b1 < "
     "2.0.0rc1 < 2.0.0rc2 < 2.0.0.",
     "Pre-releases sort before the release they lead up to and after all earlier releases: 1.9.9 < 2.0.0a1 "
     "< 2.0.0b1 < 2.0.0rc1 < 2.0.0rc2 < 2.0.0."),
    ("A range is one or more clauses separated by commas, all of which must hold. >=, >, <=, <, == and != "
     "have their usual meaning; ~=X.Y.Z means >=X.Y.Z,<X.(Y+1).0 and ^X.Y.Z means >=X.Y.Z,<(X+1).0.0.",
     "Ranges are comma-separated clauses that must all hold: >=, >, <=, <, == and != as usual, ~=X.Y.Z for "
     ">=X.Y.Z,<X.(Y+1).0, and ^X.Y.Z for >=X.Y.Z,<(X+1).0.0."),
    ("A pre-release version matches a range only if one of the range's clauses names a pre-release; "
     "otherwise no range matches it, not even >=1.0.0. Conflict ranges follow the same rule.",
     "Unless a clause of the range itself names a pre-release, a pre-release version never matches the "
     "range (not even >=1.0.0). The same holds for conflict ranges."),
    ("Runtime versions such as 3.11 are compared the same way, component by component.",
     "Runtime versions (for example 3.11) are compared component by component too."),
    ("The set installs cleanly when, for every pinned version: each dependency is pinned at a version "
     "inside its range; its runtime requirement holds for the target runtime; its platform list, if "
     "given, includes the target platform; and no conflict it declares covers the pinned version of "
     "another package. Packages that are not pinned are not installed.",
     "A clean install needs, for every pinned version: all of its dependencies pinned inside their ranges, "
     "its runtime requirement met by the target runtime, the target platform in its platform list (when "
     "it has one), and none of its declared conflicts matching another pin. Only pinned packages are "
     "installed."),
)
INDEX_HEADINGS = ("Package index (every version it holds):", "Package index:")
PIN_HEADINGS = ("Proposed set (pins):", "Pins to install:", "Proposed pins:")
PIN_STYLES = ("eq", "space", "toml")
INDEX_STYLES = ("list", "table")


@dataclass(frozen=True)
class InstallCheckConfig(FamilyConfig):
    """Sizes per level and how the pair types are split."""

    pins: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((4, 5), (6, 8), (9, 12))
    """Pins of a positive set (min, max) at levels 1, 2, 3."""
    unpinned: tuple[int, int, int] = (1, 2, 2)
    """Index packages that are not pinned, per level."""
    versions: tuple[tuple[int, int], tuple[int, int], tuple[int, int]] = ((2, 3), (2, 3), (2, 4))
    """Versions per package (min, max) per level."""
    runtime_share: tuple[float, float, float] = (0.0, 0.35, 0.5)
    """Chance that a pinned version states a runtime requirement, per level."""
    conflict_share: tuple[float, float, float] = (0.0, 0.25, 0.35)
    """Chance that a pinned version declares a (non-decisive) conflict, per level."""
    variation_counts: tuple[int, int, int, int] = (79, 78, 78, 65)
    """Pairs of each type over the whole draw (version_bound, missing_pin, unmet_requirement, conflict)."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        if sum(self.variation_counts) != 3 * (self.items_per_level // 2):
            pairs = 3 * (self.items_per_level // 2)
            raise ValueError(f"variation_counts must add up to the pairs of a draw ({pairs})")
        if any(c < 0 for c in self.variation_counts):
            raise ValueError("variation_counts must not be negative")
        for lo, hi in self.pins:
            if not 4 <= lo < hi <= 14:
                raise ValueError(f"pins must satisfy 4 <= min < max <= 14, got {(lo, hi)}")
        for lo, hi in self.versions:
            if not 2 <= lo <= hi <= 6:
                raise ValueError(f"versions per package must satisfy 2 <= min <= max <= 6, got {(lo, hi)}")
        for n in self.unpinned:
            if not 1 <= n <= 6:
                raise ValueError(f"unpinned packages per index must be 1-6, got {n}")
        for share in (*self.runtime_share, *self.conflict_share):
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"shares must be probabilities, got {share}")


# --- versions and ranges (the generator's own implementation; the solver has another) -------------

Key = tuple[int, int, int, int, int]


@cache
def vkey(text: str) -> Key:
    """'2.10.0rc1' -> (2, 10, 0, 2, 1); a release gets pre-release rank 3 so it sorts after its tags."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(?:(a|b|rc)(\d+))?", text)
    if not m:
        raise ValueError(f"not a version: {text!r}")
    rank = PRE_TAGS.index(m.group(4)) if m.group(4) else 3
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), rank, int(m.group(5) or 0)


def vtext(key: Key) -> str:
    base = f"{key[0]}.{key[1]}.{key[2]}"
    return base if key[3] == 3 else f"{base}{PRE_TAGS[key[3]]}{key[4]}"


def _is_pre(text: str) -> bool:
    return vkey(text)[3] != 3


@cache
def _clauses(range_text: str) -> tuple[tuple[str, str], ...]:
    out = []
    for clause in range_text.split(","):
        m = re.fullmatch(r"(>=|<=|==|!=|~=|>|<|\^)(.+)", clause.strip())
        if not m:
            raise ValueError(f"bad range clause {clause!r}")
        out.append((m.group(1), m.group(2)))
    return tuple(out)


def _expand(op: str, bound: str) -> list[tuple[str, Key]]:
    k = vkey(bound)
    if op == "~=":
        return [(">=", k), ("<", (k[0], k[1] + 1, 0, 3, 0))]
    if op == "^":
        return [(">=", k), ("<", (k[0] + 1, 0, 0, 3, 0))]
    return [(op, k)]


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    ">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def matches(version: str, range_text: str) -> bool:
    """Numeric matching with the pre-release rule."""
    clauses = _clauses(range_text)
    if _is_pre(version) and not any(_is_pre(b) for _, b in clauses):
        return False
    key = vkey(version)
    return all(_OPS[op](key, k) for o, b in clauses for op, k in _expand(o, b))


def _string_matches(version: str, range_text: str) -> bool:
    """What a reader comparing versions as plain text would conclude (no pre-release rule)."""
    out = True
    for op, bound in _clauses(range_text):
        if op in ("~=", "^"):
            k = vkey(bound)
            upper = f"{k[0]}.{k[1] + 1}.0" if op == "~=" else f"{k[0] + 1}.0.0"
            out = out and version >= bound and version < upper
        else:
            out = out and _OPS[op](version, bound)
    return out


def _runtime_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def runtime_ok(runtime: str, range_text: str) -> bool:
    key = _runtime_key(runtime)
    return all(_OPS[op](key, _runtime_key(bound)) for op, bound in _clauses_rt(range_text))


def _string_runtime_ok(runtime: str, range_text: str) -> bool:
    return all(_OPS[op](runtime, bound) for op, bound in _clauses_rt(range_text))


def _clauses_rt(range_text: str) -> list[tuple[str, str]]:
    out = []
    for clause in range_text.split(","):
        m = re.fullmatch(r"(>=|<=|>|<)(\d+\.\d+)", clause.strip())
        if not m:
            raise ValueError(f"bad runtime clause {clause!r}")
        out.append((m.group(1), m.group(2)))
    return out


# --- evaluating a case ----------------------------------------------------------------------------


def _version_entry(case: dict[str, Any], name: str, version: str) -> dict[str, Any]:
    for package in case["index"]:
        if package["name"] == name:
            for entry in package["versions"]:
                if entry["version"] == version:
                    return entry
    raise KeyError(f"{name} {version} is not in the index")


def checks(case: dict[str, Any], string_compare: bool = False) -> list[tuple[str, str, bool]]:
    """Every check the set needs: (kind, what, passes). Kinds: bound, missing, runtime, platform, conflict."""
    match = _string_matches if string_compare else matches
    rt_ok = _string_runtime_ok if string_compare else runtime_ok
    pins = case["pins"]
    env = case["env"]
    pinned_entries = {
        p["name"]: next(v for v in p["versions"] if v["version"] == pins[p["name"]])
        for p in case["index"] if p["name"] in pins
    }
    out: list[tuple[str, str, bool]] = []
    for name in case["pin_order"]:
        if name not in pins:
            continue
        entry = pinned_entries[name]
        for dep, rng_text in entry["deps"]:
            if dep not in pins:
                out.append(("missing", f"{name} needs {dep}", False))
            else:
                out.append(("bound", f"{name} needs {dep} {rng_text}", match(pins[dep], rng_text)))
        if entry["runtime"]:
            met = rt_ok(env["version"], entry["runtime"])
            out.append(("runtime", f"{name} needs runtime {entry['runtime']}", met))
        if entry["platforms"]:
            out.append(("platform", f"{name} platforms", env["platform"] in entry["platforms"]))
        for other, rng_text in entry["conflicts"]:
            hit = other in pins and match(pins[other], rng_text)
            out.append(("conflict", f"{name} conflicts with {other} {rng_text}", not hit))
    return out


def answer(case: dict[str, Any]) -> str:
    """yes when every check of the pinned set passes."""
    return "yes" if all(ok for _, _, ok in checks(case)) else "no"


def has_text_trap(case: dict[str, Any]) -> bool:
    """Whether some check flips when versions are compared as text."""
    return any(a[2] != b[2] for a, b in zip(checks(case), checks(case, string_compare=True), strict=True))


# --- sampling ---------------------------------------------------------------------------------------


class _Retry(Exception):
    """The sampled case cannot carry the planned pair; draw again from the same stream."""


def _series(rng: random.Random, count: int, major: int | None = None) -> list[Key]:
    """count increasing releases of one major version, often crossing MINOR 9 -> 10."""
    major = major if major is not None else rng.randint(1, 4)
    minor = rng.randint(5, 9) if rng.random() < 0.7 else rng.randint(0, 4)
    out = []
    for _ in range(count):
        out.append((major, minor, rng.randint(0, 14), 3, 0))
        minor += rng.randint(1, 3)
    return out


def _lower_pair(rng: random.Random, major: int) -> tuple[Key, Key]:
    """(bound, version just below it), most often a text-comparison trap."""
    r = rng.random()
    if r < 0.4:
        return (major, 10, 0, 3, 0), (major, 9, rng.randint(10, 15), 3, 0)
    if r < 0.75:
        m = rng.randint(2, 12)
        return (major, m, 10, 3, 0), (major, m, 9, 3, 0)
    m, p = rng.randint(2, 12), rng.randint(1, 8)
    return (major, m, p, 3, 0), (major, m, p - 1, 3, 0)


def _upper_pair(rng: random.Random, major: int) -> tuple[Key, Key]:
    """(bound, version just above it), most often a text-comparison trap."""
    r = rng.random()
    if r < 0.4:
        return (major, 9, rng.randint(2, 9), 3, 0), (major, 10, 0, 3, 0)
    if r < 0.75:
        m = rng.randint(2, 12)
        return (major, m, 9, 3, 0), (major, m, 10, 3, 0)
    m, p = rng.randint(2, 12), rng.randint(1, 7)
    return (major, m, p, 3, 0), (major, m, p + 1, 3, 0)


def _pre_of(rng: random.Random, release: Key) -> Key:
    tag = rng.randrange(len(PRE_TAGS))
    return (*release[:3], tag, rng.randint(1, 3))  # type: ignore[return-value]


def _fill_versions(rng: random.Random, fixed: Sequence[Key], count: int) -> list[Key]:
    """A sorted version list of one package containing ``fixed`` plus distinct neighbours."""
    major = fixed[0][0] if fixed else rng.randint(1, 4)
    out = set(fixed)
    for _ in range(50):
        if len(out) >= count:
            break
        base = _series(rng, 1, major)[0]
        if rng.random() < 0.25:
            base = (major + 1, rng.randint(0, 3), rng.randint(0, 5), 3, 0)
        if fixed and min(fixed) < base < max(fixed):
            continue  # the two pins of a pair stay neighbours
        out.add(base)
    return sorted(out)


def _at_least_at_most(floor: str, ceiling: str) -> str:
    """``>=floor,<=ceiling``, or ``==ceiling`` when the two are one version (1.2 wrote ">=3.1.0,<=3.1.0")."""
    return f"=={ceiling}" if floor == ceiling else f">={floor},<={ceiling}"


def _range_accepting(rng: random.Random, versions: Sequence[Key], accept: Sequence[Key]) -> str:
    """A dependency range that matches every version in ``accept`` (numerically)."""
    lo, hi = min(accept), max(accept)
    below = [v for v in versions if v <= lo and v[3] == 3]
    above = [v for v in versions if v > hi and v[3] == 3]
    pre = any(k[3] != 3 for k in accept)
    for _ in range(60):
        if pre:
            start = lo if rng.random() < 0.5 else (lo[0], lo[1], lo[2], 0, 1)
            form = pick(rng, ("ge", "ge_lt"))
            floor = vtext(start if start <= lo else lo)
        else:
            # prefer a floor that makes a text-comparison trap against the accepted versions
            traps = [v for v in below if _text_differs(vtext(lo), vtext(v))]
            floor_key = pick(rng, traps) if traps and rng.random() < 0.6 else pick(rng, below or [lo])
            floor = vtext(floor_key)
            form = pick(rng, ("ge", "ge", "ge_lt", "caret", "tilde", "le", "eq", "ne"))
        ceiling_key = pick(rng, above) if above and rng.random() < 0.6 else (hi[0] + 1, 0, 0, 3, 0)
        ceiling = vtext(ceiling_key)
        if form == "ge":
            text = f">={floor}"
        elif form == "ge_lt":
            text = f">={floor},<{ceiling}"
        elif form == "caret":
            text = f"^{floor}"
        elif form == "tilde":
            text = f"~={floor}"
        elif form == "le":
            text = f"<={vtext(hi)}" if rng.random() < 0.5 else _at_least_at_most(floor, vtext(hi))
        elif form == "eq":
            if lo != hi:
                continue
            text = f"=={vtext(lo)}"
        else:
            others = [v for v in versions if v not in accept and v[3] == 3]
            if not others:
                continue
            text = f">={floor},!={vtext(pick(rng, others))}"
        if all(matches(vtext(k), text) for k in accept):
            return text
    raise _Retry("no range accepts the versions")


def _text_differs(a: str, b: str) -> bool:
    """Whether text comparison orders a and b differently from numeric comparison."""
    return (a < b) != (vkey(a) < vkey(b))


def _runtime_requirement(rng: random.Random, env: tuple[int, int]) -> str:
    """A runtime range the environment meets, often a text trap (>=3.9 met by 3.11)."""
    major, minor = env
    r = rng.random()
    if r < 0.5:
        low = rng.randint(max(0, minor - 4), minor)
        return f">={major}.{low}"
    if r < 0.75:
        return f"<{major}.{minor + rng.randint(1, 4)}"
    return f">={major}.{rng.randint(max(0, minor - 4), minor)},<{major}.{minor + rng.randint(1, 4)}"


@dataclass
class _Draft:
    """A case under construction."""

    rng: random.Random
    level: int
    env: dict[str, str]
    env_key: tuple[int, int]
    pinned: list[str]
    unpinned: list[str]
    versions: dict[str, list[Key]]
    pins: dict[str, Key]
    edges: dict[str, list[str]]
    """pinned package -> the pinned packages its pinned version depends on."""
    entries: dict[tuple[str, Key], dict[str, Any]]

    def dependents(self, name: str) -> list[str]:
        return [a for a, deps in self.edges.items() if name in deps]


def _sample_case(
    rng: random.Random, level: int, variation: str, config: InstallCheckConfig
) -> dict[str, Any]:
    domain = pick(rng, DOMAINS)
    forge = NameForge(rng, domain.name)
    org = forge.organisation()
    runtime_name = pick(rng, RUNTIMES)
    env_key = (pick(rng, (3, 3, 3, 2, 4)), rng.randint(8, 13))
    env = {"runtime": runtime_name, "version": f"{env_key[0]}.{env_key[1]}", "platform": pick(rng, PLATFORMS)}
    lo, hi = config.pins[level - 1]
    sub = ""
    if variation == "conflict":
        sub = pick(rng, ("moved", "moved", "added", "declared"))
    grows = variation == "missing_pin" or sub == "added"
    n = rng.randint(lo + 1, hi) if grows else rng.randint(lo, hi)
    names = [forge.word() for _ in range(n + config.unpinned[level - 1])]
    pinned, unpinned = names[:n], names[n:]

    # dependency graph among pinned packages (edges point to later packages)
    edges: dict[str, list[str]] = {name: [] for name in pinned}
    if level == 1:
        # two or three dependencies in all: with one requirement or conflict, about three checks
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        for i, j in sorted(rng.sample(pairs, pick(rng, (2, 2, 3)))):
            edges[pinned[i]].append(pinned[j])
    else:
        for i, name in enumerate(pinned[:-1]):
            later = pinned[i + 1 :]
            if rng.random() < (0.7, 0.85)[level - 2]:
                k = min(len(later), rng.randint(1, 2))
                edges[name] = sorted(rng.sample(later, k), key=later.index)
        if sum(len(v) for v in edges.values()) < n // 2:
            raise _Retry("too few dependencies")

    draft = _Draft(rng, level, env, env_key, pinned, unpinned, {}, {}, edges, {})
    spec = _decisive_spec(draft, variation, sub)
    _build_versions(draft, spec, config)
    case = _assemble(draft, spec, config, domain, org)
    return case


@dataclass
class _Spec:
    """What the pair changes: the package, the two pins (None = not pinned) and the versions' twins."""

    variation: str
    sub: str
    package: str
    positive: Key | None
    negative: Key | None
    accept: list[Key]
    """Versions of ``package`` every dependent's range must accept."""
    decisive_range: tuple[str, str] | None = None
    """(dependent, range) of the version_bound edge."""
    conflict: tuple[str, str, str] | None = None
    """(declaring package, conflicting package, range) for conflicts."""
    requirement: tuple[str, str] | None = None
    """(positive requirement, negative requirement) for unmet runtime; platforms use lists."""
    platforms: tuple[list[str], list[str]] | None = None


def _decisive_spec(draft: _Draft, variation: str, sub: str) -> _Spec:
    rng = draft.rng
    pinned = draft.pinned
    major = rng.randint(1, 4)
    if variation == "version_bound":
        single = [b for b in pinned if len(draft.dependents(b)) == 1]
        if not single:
            raise _Retry("no package with exactly one dependent")
        b = pick(rng, single)
        a = draft.dependents(b)[0]
        kind = pick(rng, ("lower", "lower", "upper", "pre"))
        if kind == "lower":
            bound, below = _lower_pair(rng, major)
            text = pick(rng, (f">={vtext(bound)}", f">={vtext(bound)},<{major + 1}.0.0", f"^{vtext(bound)}",
                              f"~={vtext(bound)}"))
            return _Spec(variation, kind, b, bound, below, [bound], (a, text))
        if kind == "upper":
            bound, above = _upper_pair(rng, major)
            floor = (major, max(0, bound[1] - rng.randint(1, 4)), 0, 3, 0)
            text = pick(rng, (f"<={vtext(bound)}", _at_least_at_most(vtext(floor), vtext(bound))))
            return _Spec(variation, kind, b, bound, above, [bound], (a, text))
        release = (major, rng.randint(0, 12), 0, 3, 0)
        text = pick(rng, (f">={vtext(release)}", f"^{vtext(release)}", f"~={vtext(release)}",
                          f">={vtext(release)},<{major + 1}.0.0"))
        return _Spec(variation, kind, b, release, _pre_of(rng, release), [release], (a, text))
    if variation == "missing_pin":
        needed = [b for b in pinned if len(draft.dependents(b)) == 1]
        if not needed:
            raise _Retry("no package with exactly one dependent")
        b = pick(rng, needed)
        version = _series(rng, 1, major)[0]
        return _Spec(variation, "", b, version, None, [version])
    if variation == "unmet_requirement":
        b = pick(rng, pinned)
        old, new = sorted(_series(rng, 2, major))
        env_major, env_minor = draft.env_key
        kind = pick(rng, ("runtime_low", "runtime_low", "runtime_high", "platform"))
        if kind == "runtime_low":
            good = f">={env_major}.{env_minor - rng.choice((0, 0, 1, 2))}"
            bad = f">={env_major}.{env_minor + 1}"
            return _Spec(variation, kind, b, old, new, [old, new], requirement=(good, bad))
        if kind == "runtime_high":
            good = f"<{env_major}.{env_minor + 1}"
            bad = f"<{env_major}.{env_minor}"
            return _Spec(variation, kind, b, new, old, [old, new], requirement=(good, bad))
        others = [p for p in PLATFORMS if p != draft.env["platform"]]
        rng.shuffle(others)
        good_list = sorted([draft.env["platform"], *others[:rng.randint(0, 2)]])
        bad_list = sorted(others[: rng.randint(1, 3)])
        return _Spec(variation, kind, b, old, new, [old, new], platforms=(good_list, bad_list))
    # conflict
    if sub == "moved":
        b = pick(rng, pinned)
        declarers = [a for a in pinned if a != b and b not in draft.edges[a]]
        a = pick(rng, declarers or [a for a in pinned if a != b])
        if rng.random() < 0.6:
            bound, below = _lower_pair(rng, major)
            text = f"<{vtext(bound)}"
            return _Spec(variation, sub, b, bound, below, [bound, below], conflict=(a, b, text))
        bound, above = _upper_pair(rng, major)
        text = f">={vtext(above)}" if rng.random() < 0.5 else f"=={vtext(above)}"
        return _Spec(variation, sub, b, bound, above, [bound, above], conflict=(a, b, text))
    if sub == "added":
        # the last pinned package becomes the added one: nothing may depend on it, it depends on nothing
        d = pinned[-1]
        for name in pinned:
            draft.edges[name] = [x for x in draft.edges[name] if x != d]
        draft.edges[d] = []
        a = pick(rng, pinned[:-1])
        version = _series(rng, 1, major)[0]
        if rng.random() < 0.5:
            text = f">={vtext((major, max(0, version[1] - rng.randint(0, 3)), 0, 3, 0))}"
        else:
            text = f"<{vtext((major, version[1] + rng.randint(1, 3), 0, 3, 0))}"
        declarer, target = (a, d) if rng.random() < 0.5 else (d, a)
        return _Spec(variation, sub, d, None, version, [version], conflict=(declarer, target, text))
    # declared: the declaring package's pin moves to a version that declares the conflict
    a = pick(rng, pinned)
    targets = [b for b in pinned if b != a]
    b = pick(rng, targets)
    old, new = sorted(_series(rng, 2, major))
    return _Spec(variation, sub, a, old, new, [old, new], conflict=(a, b, ""))


def _build_versions(draft: _Draft, spec: _Spec, config: InstallCheckConfig) -> None:
    rng = draft.rng
    v_lo, v_hi = config.versions[draft.level - 1]
    for name in draft.pinned + draft.unpinned:
        count = rng.randint(v_lo, v_hi)
        if name == spec.package:
            fixed = [k for k in (spec.positive, spec.negative) if k is not None]
            draft.versions[name] = _fill_versions(rng, fixed, max(count, len(fixed)))
            draft.pins[name] = spec.positive if spec.positive is not None else spec.negative  # type: ignore[assignment]
        else:
            versions = _fill_versions(rng, [], count)
            draft.versions[name] = versions
            # prefer pins such as 2.12.1 that text comparison misorders against 2.9.x
            trappy = [v for v in versions if v[1] >= 10 or v[2] >= 10]
            draft.pins[name] = pick(rng, trappy if trappy and rng.random() < 0.7 else versions)
    # a pre-release pin somewhere in the shared part (its dependents' ranges name a pre-release)
    if draft.level >= 2 and rng.random() < 0.3:
        name = pick(rng, [p for p in draft.pinned if p != spec.package])
        release = draft.pins[name]
        pre = _pre_of(rng, (release[0], release[1] + 1, 0, 3, 0))
        draft.versions[name] = sorted({*draft.versions[name], pre})
        draft.pins[name] = pre


def _assemble(
    draft: _Draft, spec: _Spec, config: InstallCheckConfig, domain: Any, org: str
) -> dict[str, Any]:
    rng = draft.rng
    level = draft.level
    accept: dict[str, list[Key]] = {name: [draft.pins[name]] for name in draft.pinned}
    accept[spec.package] = list(spec.accept)

    def blank() -> dict[str, Any]:
        return {"deps": [], "runtime": "", "platforms": [], "conflicts": []}

    entries: dict[str, dict[Key, dict[str, Any]]] = {n: {} for n in draft.pinned + draft.unpinned}
    # pinned versions: dependencies within range, requirements met
    for name in draft.pinned:
        entry = blank()
        for dep in draft.edges[name]:
            if spec.decisive_range is not None and (name, dep) == (spec.decisive_range[0], spec.package):
                entry["deps"].append([dep, spec.decisive_range[1]])
            else:
                entry["deps"].append([dep, _range_accepting(rng, draft.versions[dep], accept[dep])])
        if rng.random() < config.runtime_share[level - 1]:
            entry["runtime"] = _runtime_requirement(rng, draft.env_key)
        if level >= 2 and rng.random() < (0.0, 0.15, 0.3)[level - 1]:
            others = [p for p in PLATFORMS if p != draft.env["platform"]]
            entry["platforms"] = sorted([draft.env["platform"], *rng.sample(others, rng.randint(1, 2))])
        if rng.random() < config.conflict_share[level - 1]:
            entry["conflicts"].append(_harmless_conflict(draft, spec, name, accept))
        entries[name][draft.pins[name]] = entry

    # the decisive twin versions
    b = spec.package
    if spec.variation in ("version_bound", "unmet_requirement") or spec.sub in ("moved", "declared"):
        base = entries[b][draft.pins[b]]
        pos_entry, neg_entry = base, copy.deepcopy(base)
        if spec.requirement is not None:
            pos_entry["runtime"], neg_entry["runtime"] = spec.requirement
            pos_entry["platforms"], neg_entry["platforms"] = [], []
        if spec.platforms is not None:
            pos_entry["platforms"], neg_entry["platforms"] = spec.platforms
        if spec.sub == "declared":
            target = spec.conflict[1]  # type: ignore[index]
            pin = draft.pins[target]
            neg_entry["conflicts"] = [*pos_entry["conflicts"], [target, _range_hitting(rng, pin)]]
        entries[b][spec.negative] = neg_entry  # type: ignore[index]
        entries[b][spec.positive] = pos_entry  # type: ignore[index]
    if spec.sub == "moved":
        a, target, text = spec.conflict  # type: ignore[misc]
        entries[a][draft.pins[a]]["conflicts"].append([target, text])
    if spec.sub == "added":
        declarer, target, text = spec.conflict  # type: ignore[misc]
        d = spec.package
        entries[d][spec.negative] = blank()  # type: ignore[index]
        if declarer == d:
            hit = _range_hitting(rng, draft.pins[target])
            entries[d][spec.negative]["conflicts"].append([target, hit])  # type: ignore[index]
        else:
            entries[declarer][draft.pins[declarer]]["conflicts"].append([d, text])

    # every other version: random, unconstrained attributes (distractors)
    everyone = draft.pinned + draft.unpinned
    for name in everyone:
        for version in draft.versions[name]:
            if version in entries[name]:
                continue
            entry = blank()
            others = [x for x in everyone if x != name]
            for dep in rng.sample(others, min(len(others), rng.randint(0, 2))):
                entry["deps"].append([dep, _loose_range(rng, draft.versions[dep])])
            if rng.random() < config.runtime_share[level - 1] + 0.1:
                entry["runtime"] = _loose_runtime(rng, draft.env_key)
            if rng.random() < config.conflict_share[level - 1]:
                target = pick(rng, others)
                entry["conflicts"].append([target, _loose_range(rng, draft.versions[target])])
            entries[name][version] = entry

    pins = {name: vtext(draft.pins[name]) for name in draft.pinned}
    if spec.positive is None:
        pins.pop(spec.package)
    index = []
    order = list(everyone)
    rng.shuffle(order)
    newest_first = rng.random() < 0.5
    for name in order:
        keys = sorted(entries[name], reverse=newest_first)
        index.append({"name": name, "versions": [{"version": vtext(k), **entries[name][k]} for k in keys]})
    pin_order = list(draft.pinned)
    if rng.random() < 0.5:
        pin_order.sort()
    else:
        rng.shuffle(pin_order)
    return {
        "domain": domain.name,
        "intro": pick(rng, INTRO).format(department=pick(rng, TEAMS[domain.name]), org=org,
                                         business=domain.business),
        "conventions": [pick(rng, variants) for variants in CONVENTIONS],
        "env": draft.env,
        "index_heading": pick(rng, INDEX_HEADINGS),
        "index_style": pick(rng, INDEX_STYLES),
        "index": index,
        "pin_heading": pick(rng, PIN_HEADINGS),
        "pin_style": pick(rng, PIN_STYLES),
        "pin_order": pin_order,
        "pins": pins,
        "_negative": None if spec.negative is None else vtext(spec.negative),
        "_package": spec.package,
    }


def _range_hitting(rng: random.Random, pin: Key) -> str:
    """A conflict range that covers ``pin`` (numerically)."""
    if pin[3] != 3:
        return f">={vtext(pin)}"
    options = [f">={vtext((pin[0], max(0, pin[1] - rng.randint(0, 3)), 0, 3, 0))}",
               f"<{vtext((pin[0], pin[1] + rng.randint(1, 3), 0, 3, 0))}",
               f"=={vtext(pin)}", f"^{vtext((pin[0], 0, 0, 3, 0))}"]
    return pick(rng, options)


def _harmless_conflict(draft: _Draft, spec: _Spec, name: str, accept: dict[str, list[Key]]) -> list[str]:
    """A declared conflict that does not apply: with an unpinned package, or a range missing the pin."""
    rng = draft.rng
    unpinned = [u for u in draft.unpinned if u != spec.package]
    if unpinned and rng.random() < 0.4:
        target = pick(rng, unpinned)
        return [target, _loose_range(rng, draft.versions[target])]
    targets = [p for p in draft.pinned if p != name and p != spec.package
               and not (spec.conflict and p in spec.conflict[:2])]
    if not targets:
        target = pick(rng, draft.unpinned)
        return [target, _loose_range(rng, draft.versions[target])]
    target = pick(rng, targets)
    pin = draft.pins[target]
    if pin[3] != 3:
        return [target, f"<{vtext((pin[0], 0, 0, 3, 0))}"]
    # a text trap: pin 2.12.1 is not <2.9.0, though "2.12.1" < "2.9.0" as text
    if pin[1] >= 10:
        return [target, f"<{pin[0]}.{rng.randint(2, 9)}.0"]
    if pin[1] >= 1:
        return [target, f"<{pin[0]}.{rng.randint(0, pin[1] - 1)}.{rng.randint(0, 9)}"]
    return [target, f">={pin[0] + 1}.0.0"]


def _loose_range(rng: random.Random, versions: Sequence[Key]) -> str:
    v = pick(rng, versions)
    form = rng.randrange(4)
    if form == 0:
        return f">={vtext(v)}"
    if form == 1:
        return f"<{vtext((v[0] + 1, 0, 0, 3, 0))}"
    if form == 2:
        return f"^{vtext((*v[:3], 3, 0))}"  # type: ignore[arg-type]
    return f"~={vtext((*v[:3], 3, 0))}"  # type: ignore[arg-type]


def _loose_runtime(rng: random.Random, env: tuple[int, int]) -> str:
    major, minor = env
    return f">={major}.{max(0, minor + rng.randint(-3, 3))}"


# --- rendering -------------------------------------------------------------------------------------


def _list_text(pairs: Sequence[Sequence[str]]) -> str:
    return ", ".join(f"{name} {rng_text}" for name, rng_text in pairs)


def _entry_list_style(entry: dict[str, Any], runtime: str) -> str:
    parts = []
    if entry["deps"]:
        parts.append("depends on " + _list_text(entry["deps"]))
    if entry["runtime"]:
        parts.append(f"needs {runtime} {entry['runtime']}")
    if entry["platforms"]:
        parts.append("platforms " + ", ".join(entry["platforms"]))
    if entry["conflicts"]:
        parts.append("conflicts with " + _list_text(entry["conflicts"]))
    return "; ".join(parts) if parts else "no dependencies or requirements"


def _entry_table_style(name: str, entry: dict[str, Any], runtime: str) -> str:
    deps = _list_text(entry["deps"]) or "none"
    rt = f"{runtime} {entry['runtime']}" if entry["runtime"] else "any"
    platforms = ", ".join(entry["platforms"]) or "any"
    conflicts = _list_text(entry["conflicts"]) or "none"
    return (f"{name} | {entry['version']} | requires: {deps} | runtime: {rt} | platforms: {platforms} | "
            f"conflicts: {conflicts}")


def _pin_line(style: str, name: str, version: str) -> str:
    if style == "eq":
        return f"{name}=={version}"
    if style == "space":
        return f"- {name} {version}"
    return f'{name} = "{version}"'


def render(case: dict[str, Any]) -> str:
    env = case["env"]
    lines = [case["intro"], "", "Version conventions:"]
    lines += [f"{i}. {rule}" for i, rule in enumerate(case["conventions"], start=1)]
    lines += ["", f"Target environment: {env['runtime']} {env['version']} on platform {env['platform']}.", ""]
    lines.append(case["index_heading"])
    if case["index_style"] == "table":
        lines.append("package | version | requires | runtime | platforms | conflicts")
        for package in case["index"]:
            lines += [_entry_table_style(package["name"], v, env["runtime"]) for v in package["versions"]]
    else:
        for package in case["index"]:
            lines.append(f"* {package['name']}")
            lines += [f"  - {v['version']}: {_entry_list_style(v, env['runtime'])}"
                      for v in package["versions"]]
    lines += ["", case["pin_heading"]]
    lines += [_pin_line(case["pin_style"], name, case["pins"][name]) for name in case["pin_order"]
              if name in case["pins"]]
    return "\n".join(lines)


# --- contrast group ------------------------------------------------------------------------------


def level_counts(config: InstallCheckConfig) -> dict[int, dict[str, int]]:
    """Pairs of each type per level: even split, remainders to the levels with most room."""
    pairs = config.items_per_level // 2
    counts = {level: {v: c // 3 for v, c in zip(VARIATIONS, config.variation_counts, strict=True)}
              for level in (1, 2, 3)}
    for variation, total in zip(VARIATIONS, config.variation_counts, strict=True):
        for _ in range(total % 3):
            room = {level: pairs - sum(counts[level].values()) for level in (1, 2, 3)}
            level = max((1, 2, 3), key=lambda lv: (room[lv], -lv))
            counts[level][variation] += 1
    return counts


def plan(config: InstallCheckConfig) -> list[GroupPlan]:
    out = []
    for level, per_type in level_counts(config).items():
        slots = sorted(
            ((k + 0.5) / count, VARIATIONS.index(v), v) for v, count in per_type.items() for k in range(count)
        )
        out += [GroupPlan(level=level, index=i, variation=v) for i, (_, _, v) in enumerate(slots)]
    return out


def _pair_ok(positive: dict[str, Any], negative: dict[str, Any], variation: str) -> bool:
    """The positive passes every check; the negative fails exactly one, of the planned kind."""
    failing = [kind for kind, _, ok in checks(negative) if not ok]
    return answer(positive) == "yes" and len(failing) == 1 and failing[0] in FAILURE_OF[variation]


def build_group(plan: GroupPlan, rng: random.Random, config: InstallCheckConfig) -> Group:
    for _ in range(300):
        try:
            raw = _sample_case(rng, plan.level, plan.variation, config)
        except _Retry:
            continue
        package, negative_version = raw.pop("_package"), raw.pop("_negative")
        full = dict(raw)
        if package in raw["pins"]:
            pins_neg = dict(raw["pins"])
            if negative_version is None:
                pins_neg.pop(package)
            else:
                pins_neg[package] = negative_version
        else:
            pins_neg = {**raw["pins"], package: negative_version}
        positive, negative = full, {**raw, "pins": pins_neg}
        if not _pair_ok(positive, negative, plan.variation):
            continue
        if not (has_text_trap(positive) and has_text_trap(negative)):
            _add_text_trap(rng, positive, package)
            if not (has_text_trap(positive) and has_text_trap(negative)) \
                    or not _pair_ok(positive, negative, plan.variation):
                continue
        members = [
            Member(case=case, state=render(case), answer=answer(case), options=OPTIONS, variation=variation)
            for case, variation in ((positive, None), (negative, plan.variation))
        ]
        if rng.random() < 0.5:
            members.reverse()
        return Group(level=plan.level, domain=raw["domain"], members=tuple(members),
                     decisive=frozenset({f"pins/{package}"}))
    raise RuntimeError(f"{NAME}: no valid {plan.variation} pair at level {plan.level} after 300 draws")


def _add_text_trap(rng: random.Random, case: dict[str, Any], decisive: str) -> None:
    """Make one shared check a trap for text comparison, preferably without adding a check.

    A shared dependency on a pin such as 2.12.1 gets the range >=2.9.0 (met, though "2.12.1" <
    "2.9.0" as text). Failing that, a shared pinned version gets a runtime requirement: with the
    target at 3.11, ">=3.9" holds although "3.11" < "3.9" as text; with the target at 3.9, "<3.10"
    holds although "3.9" > "3.10" as text. Both members share the changed entry.
    """
    shared = [n for n in case["pin_order"] if n in case["pins"] and n != decisive]
    edges = []
    for name in shared:
        for dep in _version_entry(case, name, case["pins"][name])["deps"]:
            if dep[0] in shared and not _is_pre(case["pins"][dep[0]]):
                pin = vkey(case["pins"][dep[0]])
                if pin[1] >= 10:
                    edges.append((dep, f">={pin[0]}.{rng.randint(2, 9)}.0"))
                elif pin[2] >= 10:
                    edges.append((dep, f">={pin[0]}.{pin[1]}.{rng.randint(2, 9)}"))
    if edges:
        dep, text = pick(rng, edges)
        dep[1] = text
        return
    major, minor = (int(p) for p in case["env"]["version"].split("."))
    requirement = f">={major}.{rng.randint(4, 9)}" if minor >= 10 else f"<{major}.{rng.randint(10, 13)}"
    names = [n for n in case["pin_order"] if n in case["pins"] and n != decisive]
    free = [n for n in names if not _version_entry(case, n, case["pins"][n])["runtime"]]
    name = pick(rng, free or names)
    _version_entry(case, name, case["pins"][name])["runtime"] = requirement


# --- partial-information heuristics ------------------------------------------------------------------


def parse_state(state: str) -> dict[str, Any]:
    """Read a rendered state back into the case shape used by :func:`checks` (for heuristics)."""
    lines = state.splitlines()
    env_line = next(line for line in lines if line.startswith("Target environment: "))
    m = re.fullmatch(r"Target environment: (\S+) (\S+) on platform (\S+)\.", env_line)
    if not m:
        raise ValueError(f"unreadable environment line {env_line!r}")
    env = {"runtime": m.group(1), "version": m.group(2), "platform": m.group(3)}
    index: dict[str, list[dict[str, Any]]] = {}
    pins: dict[str, str] = {}
    order: list[str] = []
    at = next(i for i, line in enumerate(lines) if line in INDEX_HEADINGS)
    end = next(i for i, line in enumerate(lines) if line in PIN_HEADINGS)
    current = ""

    def pairs(text: str) -> list[list[str]]:
        return [item.split(" ", 1) for item in text.split(", ")] if text and text != "none" else []

    for line in lines[at + 1 : end]:
        if not line or line.startswith("package | version"):
            continue
        if line.startswith("* "):
            current = line[2:]
            index[current] = []
        elif line.startswith("  - "):
            version, _, rest = line[4:].partition(": ")
            entry: dict[str, Any] = {"version": version, "deps": [], "runtime": "", "platforms": [],
                                     "conflicts": []}
            for part in rest.split("; "):
                if part.startswith("depends on "):
                    entry["deps"] = pairs(part[len("depends on "):])
                elif part.startswith("needs "):
                    entry["runtime"] = part.split(" ", 2)[2]
                elif part.startswith("platforms "):
                    entry["platforms"] = part[len("platforms "):].split(", ")
                elif part.startswith("conflicts with "):
                    entry["conflicts"] = pairs(part[len("conflicts with "):])
            index[current].append(entry)
        else:
            cells = line.split(" | ")
            name, version = cells[0], cells[1]
            runtime = cells[3].removeprefix("runtime: ")
            platforms = cells[4].removeprefix("platforms: ")
            index.setdefault(name, []).append({
                "version": version,
                "deps": pairs(cells[2].removeprefix("requires: ").removeprefix("deps: ")),  # 1.2 / 1.1
                "runtime": "" if runtime == "any" else runtime.split(" ", 1)[1],
                "platforms": [] if platforms == "any" else platforms.split(", "),
                "conflicts": pairs(cells[5].removeprefix("conflicts: ")),
            })
    for line in lines[end + 1 :]:
        m = re.fullmatch(r'(?:- )?([a-z]+)(?:==| | = ")([^"\s]+)"?', line)
        if m:
            pins[m.group(1)] = m.group(2)
            order.append(m.group(1))
    return {"env": env, "index": [{"name": k, "versions": v} for k, v in index.items()], "pins": pins,
            "pin_order": order}



def heuristic_string_versions(item: Item) -> dict[str, float]:
    """Do every check, but compare versions as plain text and ignore the pre-release rule."""
    case = parse_state(str(item.state))
    return yes_no(all(ok for _, _, ok in checks(case, string_compare=True)))


def heuristic_presence_only(item: Item) -> dict[str, float]:
    """Only ask whether every dependency of a pinned version is pinned at all (no versions, no runtime)."""
    case = parse_state(str(item.state))
    return yes_no(all(ok for kind, _, ok in checks(case) if kind == "missing"))


register(FamilySpec(
    name=NAME,
    layer="G",
    version=VERSION,
    question=QUESTION,
    config_type=InstallCheckConfig,
    plan=plan,
    build_group=build_group,
    expected_answers=lambda plan: ("no", "yes"),
    heuristics={"string_versions": heuristic_string_versions, "presence_only": heuristic_presence_only},
))
