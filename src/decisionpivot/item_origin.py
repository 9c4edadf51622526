"""Which items files a verb may read: the one rule, :func:`accept_items_file`, for every verb that reads items.

An items file is accepted only when this package can say where it came from, by what is good rather than by
a list of what is bad:

* **A core draw** (its folder's MANIFEST.json says ``DecisionPivot core``) is accepted when this package's
  generators re-derive it byte for byte. What identifies a draw is what `dp generate` was asked for: the core
  version (``version``), and per family its seed (``seed``); the plan - levels, groups, items per level - is the
  family's plan in that version, which `dp generate` cannot change, and the generator version the manifest
  records (``generator_version``) must be the one this package draws that version with. The family is drawn
  again with that seed by the generators of that version (the current ones, or an archived edition), and the
  file must be those bytes and the manifest's entry exactly the entry `dp generate` writes for them. A draw
  whose manifest the package ships (:mod:`decisionpivot.item_hashes`: the released editions, and the fresh
  draws the pipeline uses) is compared with it instead of being drawn again; any other is drawn once per
  process and family (:func:`derived_core`).
* **An invariance suite** (``DecisionPivot invariance``) is accepted when its files are the released suite's
  (the package ships its manifest), or when this package re-derives them byte for byte from (suite version,
  suite seed, base items per family, core version, core seed): the core family drawn again as above, then
  framed by `dp frame`'s own code (:func:`derived_suite`).
* **A scale suite** (``DecisionPivot scale``, score questions) is accepted when its files are the released suite's
  (the package ships its manifest), or when this package's scale generators re-derive each family byte for byte from
  the suite version and the family's seed (:func:`derived_scale`); **its framings** (``DecisionPivot scale
  invariance``, ``dp scale --framings``) likewise, re-derived by drawing the family with its seed and framing it again
  (:func:`derived_scale_framed`).
* **A reference task** (no manifest, or one that does not list it, and a task card of that name) is accepted
  when its SHA-256 is the one its verified card records; an unverified card records none, and the file is
  accepted as ``unchecked (...)``, which the answer metas and the leaderboard name.

Everything else - a changed byte, a re-ordered or dropped line, a manifest rewritten to match, a draw by
another generator version, an unknown task without a card, a folder without a manifest - is refused with one
line (the file, what did not match, how to go on), or, with ``allow_modified`` (``--allow-modified-items``),
accepted as ``modified (--allow-modified-items): <what did not match>``, which every output of the verb then
states (:func:`modified_note`, :func:`modified_items`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from decisionpivot import RELEASE_SEED
from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.item_hashes import (
    UNCHECKED,
    ModifiedItemsError,
    check_reference_file,
    known_draw,
    released_scale,
    released_suite,
)

VERSION = re.compile(r"[0-9]+(\.[0-9]+)*")
"""A version as a manifest names it (it names the package's files of that version: nothing else may pass)."""
Refused = ModifiedItemsError
"""What every refusal raises: one line naming the file, what did not match and how to go on."""

MODIFIED = "modified (--allow-modified-items)"
"""Prefix of the result of a file accepted only because the verb was given ``--allow-modified-items``."""
RELEASED_CORE = "released core"
"""Prefix of the result of a released core edition's file (``released core 1.2``)."""
RELEASED_SUITE = "released invariance suite"
"""Prefix of the result of a released invariance suite's file (``released invariance suite 1.0``)."""
RELEASED_SCALE = "released scale suite"
"""Prefix of the result of a released scale suite's file (``released scale suite 1.0``; its framings: ``released
scale suite 1.0 framings``)."""
REDERIVED = "re-derived"
"""Prefix of the result of a file this package drew again byte for byte (``re-derived core 1.2 seed 101``)."""


def accept_items_file(path: str | Path, sha256: str, allow_modified: bool = False, task: str | None = None, *,
                      flag: bool = True) -> str:
    """How the items file ``path`` (SHA-256 ``sha256``, of task ``task``, default its stem) is accepted, or
    :class:`~decisionpivot.item_hashes.ModifiedItemsError` naming the file and what did not match.

    Results: ``released core <version>``, ``re-derived core <version> seed <seed>``, ``released invariance suite
    <version>``, ``re-derived invariance suite <version> seed <seed> (core <version> seed <seed>)``, ``card``,
    ``unchecked (task card <task> is unverified: ...)``, or - only with ``allow_modified`` - ``modified
    (--allow-modified-items): <what did not match>``.

    The refusal ends naming ``--allow-modified-items``, the one way past it; ``flag`` False: the caller offers no
    such flag (a harness runs what this package re-derives or released), and its refusal names none.
    """
    path = Path(path)
    try:
        return _origin(path, task or path.stem, sha256)
    except ModifiedItemsError as refused:
        if allow_modified:
            return f"{MODIFIED}: {refused.what}"
        if not flag:
            raise refused.without_hint() from None
        raise


def is_modified(how: str) -> bool:
    """Whether a result of :func:`accept_items_file` is a file accepted only under ``--allow-modified-items``."""
    return how.startswith(MODIFIED)


def is_unchecked(how: str) -> bool:
    """Whether a result of :func:`accept_items_file` compared nothing (an unverified task card)."""
    return how.startswith(UNCHECKED)


def modified_items(checks: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Label -> what did not match, of the ``(label, result)`` pairs accepted only under ``--allow-modified-items``
    (sorted by label): what a JSON output records under ``modified_items``."""
    return {label: how.removeprefix(MODIFIED).removeprefix(": ") for label, how in sorted(checks) if is_modified(how)}


def modified_note(checks: Iterable[tuple[str, str]]) -> str | None:
    """The sentence every output of a verb carries when it read items only under ``--allow-modified-items``
    (None when it read none)."""
    modified = modified_items(checks)
    if not modified:
        return None
    return (f"Items read with --allow-modified-items (neither re-derived by this package nor released): "
            f"{', '.join(modified)}; what is computed from them is not a DecisionPivot result.")


def _origin(path: Path, task: str, sha256: str) -> str:
    """How ``path`` is accepted (see the module docstring); raises ``ModifiedItemsError`` otherwise."""
    from decisionpivot.frame.suite import BENCHMARK as SUITE_BENCHMARK
    from decisionpivot.generate.run import CORE_BENCHMARK, MANIFEST_NAME
    from decisionpivot.scale import SCALE_BENCHMARK
    from decisionpivot.scale.framing import FRAMED_BENCHMARK

    manifest_path = path.parent / MANIFEST_NAME
    redraw = "Draw the items again with `dp generate` or `dp frame`"
    if not manifest_path.exists():
        by_card = check_reference_file(task, path, sha256)
        if by_card is not None:
            return by_card
        raise Refused(path, f"no {MANIFEST_NAME} beside it and no task card {task!r}: not a draw of this package, "
                      "an invariance suite or a reference task", redraw)
    try:
        manifest = read_json_file(manifest_path, "the MANIFEST.json `dp generate` or `dp frame` writes")
    except DecisionPivotError as exc:
        raise Refused(manifest_path, str(exc).removeprefix(f"{manifest_path}: "), redraw) from None
    families = manifest.get("families") if isinstance(manifest, dict) else None
    if not isinstance(families, dict):
        raise Refused(manifest_path, "not a manifest `dp generate` or `dp frame` writes (expected an object with a "
                      "'families' object)", redraw)
    if task not in families:
        by_card = check_reference_file(task, path, sha256)
        if by_card is not None:
            return by_card
        raise Refused(path, f"{manifest_path} does not list {task!r}", redraw)
    benchmark = manifest.get("benchmark")
    if benchmark == CORE_BENCHMARK:
        return _core_origin(path, task, sha256, manifest, manifest_path)
    if benchmark == SUITE_BENCHMARK:
        return _suite_origin(path, task, sha256, manifest, manifest_path)
    if benchmark == SCALE_BENCHMARK:
        return _scale_origin(path, task, sha256, manifest, manifest_path)
    if benchmark == FRAMED_BENCHMARK:
        return _scale_framed_origin(path, task, sha256, manifest, manifest_path)
    raise Refused(manifest_path, f"benchmark {benchmark!r}: expected {CORE_BENCHMARK!r} (`dp generate`), "
                  f"{SUITE_BENCHMARK!r} (`dp frame`), {SCALE_BENCHMARK!r} (`dp scale`) or {FRAMED_BENCHMARK!r} "
                  "(`dp scale --framings`)", redraw)


def _keys(where: Path, what: str, found: Mapping[str, Any], allowed: Iterable[str], required: Iterable[str],
          fix: str) -> None:
    """Refuse ``found`` unless its keys are within ``allowed`` and hold every key of ``required``."""
    allowed, required = list(allowed), list(required)
    unknown = sorted(set(found) - set(allowed))
    missing = [key for key in required if key not in found]
    parts = ([f"unknown key(s) {', '.join(map(repr, unknown))}"] if unknown else []) + \
        ([f"missing {', '.join(map(repr, missing))}"] if missing else [])
    if parts:
        raise Refused(where, f"{what}: {'; '.join(parts)} (the keys are {', '.join(allowed)})", fix)


def _first_difference(entry: Mapping[str, Any], expected: Mapping[str, Any]) -> str:
    key = next(k for k in (*expected, *entry) if entry.get(k) != expected.get(k))
    return f"{key} {entry.get(key)!r}, expected {expected.get(key)!r}"


def _seed(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _core_origin(path: Path, task: str, sha256: str, manifest: dict[str, Any], manifest_path: Path) -> str:
    from decisionpivot.generate import editions
    from decisionpivot.generate.run import ENTRY_KEYS, MANIFEST_KEYS

    redraw = "Draw them again with `dp generate`"
    _keys(manifest_path, "not the manifest `dp generate` writes", manifest, MANIFEST_KEYS, MANIFEST_KEYS, redraw)
    entry = manifest["families"][task]
    if not isinstance(entry, dict):
        raise Refused(manifest_path, f"the entry of {task!r} is not an object", redraw)
    _keys(manifest_path, f"the entry of {task!r} is not the one `dp generate` writes", entry, ENTRY_KEYS, ENTRY_KEYS,
          redraw)
    version, seed = manifest["version"], _seed(entry["seed"])
    if seed is None:
        raise Refused(manifest_path, f"{task}: seed {entry['seed']!r} is not a seed (an integer >= 0)", redraw)
    if not isinstance(version, str) or version not in editions.editions():
        raise Refused(manifest_path, f"core version {version!r} is not re-derivable by this package (it draws core "
                      f"{', '.join(editions.editions())})", "Draw them with this package's `dp generate`")
    shipped = ((known_draw(version, seed) or {}).get("families") or {}).get(task)
    released = shipped is not None and seed == RELEASE_SEED
    if shipped is not None and sha256 == shipped["sha256"] and entry == shipped:  # no generator needed
        return f"{RELEASED_CORE} {version}" if released else f"{REDERIVED} core {version} seed {seed}"
    again = f"Draw them again with `dp generate --seed {seed} --families {task} --version {version}`"
    registry = editions.module(version, "registry")
    if task not in [spec.name for spec in registry.families()]:
        raise Refused(path, f"core {version} has no family {task!r}", "Draw a family of this package")
    generator = registry.family(task).version
    if entry["generator_version"] != generator:
        raise Refused(manifest_path, f"{task} drawn by generator version {entry['generator_version']!r}, and this "
                      f"package draws core {version}'s {task} with version {generator!r}: not re-derivable by this "
                      "package (drawn by another package version)", again)
    expected = shipped if shipped is not None else derived_core(version, seed, task)
    source = ("the package's released core" if released else "the package's known draw" if shipped is not None
              else "this package's generators draw")
    if sha256 != expected["sha256"]:
        raise Refused(path, f"SHA-256 {sha256} is not {expected['sha256']}, the {task} items {source} for core "
                      f"{version} with seed {seed}", again)
    if entry != expected:
        raise Refused(manifest_path, f"the entry of {task!r} is not the one `dp generate` writes for these items "
                      f"({_first_difference(entry, expected)})",
                      f"Write it again with `dp manifest --seed {seed} --version {version}`")
    return f"{RELEASED_CORE} {version}" if released else f"{REDERIVED} core {version} seed {seed}"


@cache
def core_draw(version: str, seed: int, family: str) -> tuple[Any, ...]:
    """The items of ``family`` that this package's generators of core ``version`` draw with ``seed`` (drawn once
    per process)."""
    from decisionpivot.generate import editions

    return tuple(editions.module(version, "run").draw_family(family, seed).items)


@cache
def derived_core(version: str, seed: int, family: str) -> dict[str, Any]:
    """The MANIFEST.json entry `dp generate` writes for ``family`` of core ``version`` drawn with ``seed``, drawn
    again here (once per process)."""
    from decisionpivot.generate.run import manifest_entry
    from decisionpivot.items import items_bytes

    items = core_draw(version, seed, family)
    return manifest_entry(family, items[0].layer, len(items), len({item.group for item in items}),
                          hashlib.sha256(items_bytes(items)).hexdigest(), items[0].version, seed)


def _suite_origin(path: Path, task: str, sha256: str, manifest: dict[str, Any], manifest_path: Path) -> str:
    from decisionpivot import BENCHMARK_VERSION
    from decisionpivot.frame.framings import FRAMINGS, SUITE_VERSION
    from decisionpivot.frame.suite import CORE_KEYS, ENTRY_KEYS, MODIFIED_CORE, OPTIONAL_ENTRY_KEYS, SUITE_KEYS

    redraw = "Draw the suite again with `dp frame`"
    _keys(manifest_path, "not the manifest `dp frame` writes", manifest, SUITE_KEYS, SUITE_KEYS, redraw)
    core, entry = manifest["core"], manifest["families"][task]
    if not isinstance(core, dict) or not isinstance(entry, dict):
        raise Refused(manifest_path, f"'core' and the entry of {task!r} must be objects", redraw)
    if MODIFIED_CORE in core:
        raise Refused(manifest_path, f"framed from core items read with --allow-modified-items "
                      f"({', '.join(sorted(core[MODIFIED_CORE]))})", "Frame a core this package draws")
    _keys(manifest_path, "its 'core' is not the one `dp frame` writes", core, CORE_KEYS, CORE_KEYS, redraw)
    _keys(manifest_path, f"the entry of {task!r} is not the one `dp frame` writes", entry,
          (*ENTRY_KEYS, *OPTIONAL_ENTRY_KEYS), ENTRY_KEYS, redraw)
    version, seed, base_items = manifest["version"], _seed(manifest["seed"]), _seed(manifest["base_items_per_family"])
    core_version, core_seed = core["version"], _seed(entry.get("core_seed", RELEASE_SEED))
    if seed is None or base_items is None or core_seed is None:
        raise Refused(manifest_path, "seed, base_items_per_family and core_seed must be integers >= 0", redraw)
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        raise Refused(manifest_path, f"suite version {version!r} is not a version (digits and dots)", redraw)
    released = released_suite(version) or {}
    claimed = ("version", "seed", "core", "base_items_per_family", "framings")
    if all(manifest[key] == released.get(key) for key in claimed) and task in released.get("families", {}):
        expected = released["families"][task]
        if sha256 != expected["sha256"]:
            raise Refused(path, f"SHA-256 {sha256} is not {expected['sha256']}, the {task} file of the released "
                          f"invariance suite {version} (recorded in the package) that {manifest_path.name} says it "
                          "is", "Draw it again with `dp frame`")
        if entry != expected:
            raise Refused(manifest_path, f"the entry of {task!r} is not the released suite's "
                          f"({_first_difference(entry, expected)})", "Draw it again with `dp frame`")
        return f"{RELEASED_SUITE} {version}"
    if version != SUITE_VERSION or manifest["framings"] != list(FRAMINGS):
        raise Refused(manifest_path, f"invariance suite {version!r} with framings {manifest['framings']!r} is not "
                      f"re-derivable by this package (it draws suite {SUITE_VERSION})",
                      "Draw it with this package's `dp frame`")
    if core_version != BENCHMARK_VERSION:
        raise Refused(manifest_path, f"framed from core {core_version!r}: this package frames only core "
                      f"{BENCHMARK_VERSION} as its generators draw it, so the suite is not re-derivable by it",
                      "Frame a core this package draws")
    expected = derived_suite(version, seed, base_items, core_version, core_seed, task)
    again = f"Draw it again with `dp frame --seed {seed} --base-items {base_items} --families {task}`"
    if sha256 != expected["sha256"]:
        raise Refused(path, f"SHA-256 {sha256} is not {expected['sha256']}, the {task} items this package frames "
                      f"for suite {version} with seed {seed} from core {core_version} seed {core_seed}", again)
    if entry != expected:
        raise Refused(manifest_path, f"the entry of {task!r} is not the one `dp frame` writes for these items "
                      f"({_first_difference(entry, expected)})", again)
    return f"{REDERIVED} invariance suite {version} seed {seed} (core {core_version} seed {core_seed})"


@cache
def derived_suite(version: str, seed: int, base_items: int, core_version: str, core_seed: int,
                  family: str) -> dict[str, Any]:
    """The MANIFEST.json entry `dp frame` writes for ``family`` of invariance suite ``version`` drawn with ``seed``
    from the core family this package draws for ``core_version`` with ``core_seed``, framed again here (once per
    process)."""
    from decisionpivot.frame.suite import frame_family, suite_entry
    from decisionpivot.items import items_bytes

    core = core_draw(core_version, core_seed, family)
    framed = frame_family(list(core), seed, core_seed, base_items)
    return suite_entry(family, core[0].layer, framed, hashlib.sha256(items_bytes(framed)).hexdigest(), seed,
                       core_seed)


def _scale_origin(path: Path, task: str, sha256: str, manifest: dict[str, Any], manifest_path: Path) -> str:
    from decisionpivot.scale import SCALE_VERSION, registry
    from decisionpivot.scale.run import ENTRY_KEYS, MANIFEST_KEYS

    redraw = "Draw the suite again with `dp scale`"
    _keys(manifest_path, "not the manifest `dp scale` writes", manifest, MANIFEST_KEYS, MANIFEST_KEYS, redraw)
    entry = manifest["families"][task]
    if not isinstance(entry, dict):
        raise Refused(manifest_path, f"the entry of {task!r} is not an object", redraw)
    _keys(manifest_path, f"the entry of {task!r} is not the one `dp scale` writes", entry, ENTRY_KEYS, ENTRY_KEYS,
          redraw)
    version, seed = manifest["version"], _seed(entry["seed"])
    if seed is None:
        raise Refused(manifest_path, f"{task}: seed {entry['seed']!r} is not a seed (an integer >= 0)", redraw)
    if version != SCALE_VERSION:
        raise Refused(manifest_path, f"scale suite {version!r} is not re-derivable by this package (it draws scale "
                      f"suite {SCALE_VERSION})", "Draw it with this package's `dp scale`")
    if not registry.is_scale_family(task):
        raise Refused(path, f"the scale suite has no family {task!r}", "Draw a family of this package")
    released = _released_scale_entry(path, task, sha256, manifest, manifest_path, False)
    if released is not None:
        return released
    again = f"Draw it again with `dp scale --seed {seed} --families {task}`"
    generator = registry.family(task).version
    if entry["generator_version"] != generator:
        raise Refused(manifest_path, f"{task} drawn by generator version {entry['generator_version']!r}, and this "
                      f"package draws it with version {generator!r}: not re-derivable by this package", again)
    expected = derived_scale(seed, task)
    if sha256 != expected["sha256"]:
        raise Refused(path, f"SHA-256 {sha256} is not {expected['sha256']}, the {task} items this package's scale "
                      f"generators draw for suite {version} with seed {seed}", again)
    if entry != expected:
        raise Refused(manifest_path, f"the entry of {task!r} is not the one `dp scale` writes for these items "
                      f"({_first_difference(entry, expected)})", again)
    return f"{REDERIVED} scale suite {version} seed {seed}"


@cache
def derived_scale(seed: int, family: str) -> dict[str, Any]:
    """The MANIFEST.json entry `dp scale` writes for scale ``family`` drawn with ``seed``, drawn again here (once
    per process)."""
    from decisionpivot.items import items_bytes
    from decisionpivot.scale.run import draw_family, manifest_entry

    items = draw_family(family, seed).items
    return manifest_entry(family, len(items), len({item.group for item in items}),
                          hashlib.sha256(items_bytes(items)).hexdigest(), items[0].version, seed)


def _released_scale_entry(path: Path, task: str, sha256: str, manifest: dict[str, Any], manifest_path: Path,
                          framed: bool) -> str | None:
    """``released scale suite <version>`` (``... framings``) when the manifest claims the released scale suite (or its
    framings) of its version and the file and entry are the shipped ones; None when it claims another draw; refused
    when it claims the release and differs."""
    released = released_scale(str(manifest.get("version")), framed)
    entry = manifest["families"][task]
    if released is None or task not in released.get("families", {}) or \
            entry.get("seed") != released["families"][task].get("seed"):
        return None
    expected = released["families"][task]
    what = f"{'framings of the ' if framed else ''}released scale suite {manifest['version']}"
    again = f"Draw it again with `dp scale{' --framings' if framed else ''}`"
    if sha256 != expected["sha256"]:
        raise Refused(path, f"SHA-256 {sha256} is not {expected['sha256']}, the {task} file of the {what} (recorded "
                      f"in the package) that {manifest_path.name} says it is", again)
    if entry != expected:
        difference = _first_difference(entry, expected)
        raise Refused(manifest_path, f"the entry of {task!r} is not the {what}'s ({difference})", again)
    return f"{RELEASED_SCALE} {manifest['version']}{' framings' if framed else ''}"


def _scale_framed_origin(path: Path, task: str, sha256: str, manifest: dict[str, Any], manifest_path: Path) -> str:
    from decisionpivot.scale import SCALE_VERSION, registry
    from decisionpivot.scale.framing import ENTRY_KEYS, FRAMED_VERSION, GROUP_STRIDE, MANIFEST_KEYS, SCALE_FRAMINGS

    redraw = "Frame the suite again with `dp scale --framings`"
    _keys(manifest_path, "not the manifest `dp scale --framings` writes", manifest, MANIFEST_KEYS, MANIFEST_KEYS,
          redraw)
    entry = manifest["families"][task]
    if not isinstance(entry, dict):
        raise Refused(manifest_path, f"the entry of {task!r} is not an object", redraw)
    _keys(manifest_path, f"the entry of {task!r} is not the one `dp scale --framings` writes", entry, ENTRY_KEYS,
          ENTRY_KEYS, redraw)
    seed = _seed(entry["seed"])
    if seed is None:
        raise Refused(manifest_path, f"{task}: seed {entry['seed']!r} is not a seed (an integer >= 0)", redraw)
    if not registry.is_scale_family(task):
        raise Refused(path, f"the scale suite has no family {task!r}", "Frame a family of this package")
    released = _released_scale_entry(path, task, sha256, manifest, manifest_path, True)
    if released is not None:
        return released
    if (manifest["version"], manifest["scale_version"], manifest["framings"], manifest["group_stride"]) != \
            (FRAMED_VERSION, SCALE_VERSION, list(SCALE_FRAMINGS), GROUP_STRIDE):
        raise Refused(manifest_path, f"framings {manifest['version']!r} of scale suite {manifest['scale_version']!r} "
                      f"are not re-derivable by this package (it frames scale suite {SCALE_VERSION} with framings "
                      f"{FRAMED_VERSION})", "Frame it with this package's `dp scale --framings`")
    again = f"Frame it again with `dp scale --framings --seed {seed} --families {task}`"
    expected = derived_scale_framed(seed, task)
    if sha256 != expected["sha256"]:
        raise Refused(path, f"SHA-256 {sha256} is not {expected['sha256']}, the {task} items this package frames from "
                      f"scale suite {SCALE_VERSION} seed {seed}", again)
    if entry != expected:
        raise Refused(manifest_path, f"the entry of {task!r} is not the one `dp scale --framings` writes for these "
                      f"items ({_first_difference(entry, expected)})", again)
    return f"{REDERIVED} scale suite {SCALE_VERSION} framings seed {seed}"


@cache
def derived_scale_framed(seed: int, family: str) -> dict[str, Any]:
    """The MANIFEST.json entry `dp scale --framings` writes for scale ``family`` drawn with ``seed`` and framed, framed
    again here (once per process)."""
    from decisionpivot.items import items_bytes
    from decisionpivot.scale.framing import framed_entry, framed_family

    items = framed_family(family, seed)
    return framed_entry(family, items, hashlib.sha256(items_bytes(items)).hexdigest(), seed)
