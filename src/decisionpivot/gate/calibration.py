"""Calibration draws and their answers: ``datasets/fresh/seed-N/`` and ``runs-calibration/seed-N/<system>/``.

The guarantee of :mod:`~decisionpivot.gate.method` holds for draws that are independent of each other and
of the release and drawn to the release's plan, so every draw is checked before it is used:

* its seed is not the release seed, and each seed is one folder (``seed-1000`` and ``seed-01000`` name one
  seed: such a pair, or any folder name other than ``seed-<seed>``, is refused, never counted twice);
* its MANIFEST.json names that seed for every family and the release's core version;
* per family, every item's own ``version`` (its generator's) is the release items', and the draw keeps the
  release's plan: its items per level and its contrast groups per level and size equal the release's (read
  from the release items, never hard-coded);
* no item state (:func:`state_sha256`, a canonical hash of the state as a model reads it) repeats within the
  draw, in an earlier draw or in the release: a copied or re-manifested draw is not a fresh one, whatever
  its file hashes;
* each items file is read and hashed once (the scorer's layout) and accepted, before any check above, by the
  rule of every verb that reads items (:mod:`decisionpivot.item_origin`): this package draws it again with the
  seed its manifest records and gets the same bytes (or ships that draw's hashes) - a copied, edited or
  re-manifested draw is refused, whatever else it gets right - and the answer files name the SHA-256 of the
  items they answered.

Answers are read by the scorer's own rules (:mod:`decisionpivot.score.answers`): failed and missing
predictions are wrong, at the uniform confidence ``1/|O|``; a file with records for fewer than 99% of its
items makes the entry *refused*, with the reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from decisionpivot import RELEASE_SEED
from decisionpivot.errors import DecisionPivotError
from decisionpivot.generate.run import MANIFEST_NAME, read_manifest
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import sha256_file
from decisionpivot.score.certified import answer_fingerprint
from decisionpivot.score.layout import TaskLayout, read_layout
from decisionpivot.score.pipeline import LoadedRuns, load_runs

SEED_FOLDER = re.compile(r"seed-([0-9]+)")
"""Name of one calibration draw's folder, under both the items root and the runs root."""
SEED_TEXT = re.compile(r"[0-9]+")
"""A seed as given on the command line (ASCII digits only)."""


@dataclass(frozen=True)
class FamilyPlan:
    """What a draw of one family must share with the release: generator version and plan."""

    versions: tuple[str, ...]
    """The items' own ``version`` values (their generator's), sorted."""
    items_per_level: tuple[tuple[int, int], ...]
    """(level, items) for every level, sorted."""
    groups_per_level_and_size: tuple[tuple[int, int, int], ...]
    """(level, group size, groups) for every level and size, sorted."""


@dataclass(frozen=True)
class ReleaseItems:
    """The release items as calibration is checked against them."""

    version: str
    """Core version named by the release MANIFEST.json."""
    manifest_sha256: str
    """SHA-256 of the release MANIFEST.json."""
    families: dict[str, str]
    """Family -> SHA-256 of the release items file."""
    plans: dict[str, FamilyPlan]
    """Family -> its plan (versions, levels, group sizes)."""
    states: dict[str, dict[str, str]]
    """Family -> state hash -> id of the release item with that state."""


@dataclass(frozen=True)
class CalibrationDraw:
    """One fresh draw used for calibration, with every system's answers to it."""

    seed: int
    """The seed it was drawn with (never the release seed)."""
    items: Path
    """Its items folder (``datasets/fresh/seed-N``)."""
    manifest_sha256: str
    """SHA-256 of its MANIFEST.json."""
    families: dict[str, str]
    """Family -> SHA-256 of its items file."""
    loaded: LoadedRuns
    """The answers under ``runs-calibration/seed-N/``, read and checked by the scorer."""


@dataclass(frozen=True)
class FamilyAnswers:
    """One system's answers to one family, in the arrays the test and the check need."""

    confidence: np.ndarray
    """``(n,)`` ``max_o p(o)``, 1/|O| for failed or missing predictions."""
    correct: np.ndarray
    """``(n,)`` the predicted option is the gold one (never for failed or missing predictions)."""
    group_index: np.ndarray
    """``(n,)`` contrast group number 0..G-1."""
    group_keys: tuple[str, ...]
    """Per group number: a key unique across draws (``seed N <group id>``), hashed to pick members."""
    fingerprint: str | None = None
    """The answer file's configuration fingerprint (its ``.meta.json``); None when several are joined."""

    @property
    def groups(self) -> int:
        return len(self.group_keys)

    @property
    def largest_group(self) -> int:
        return int(np.bincount(self.group_index).max()) if self.group_index.size else 1


def family_answers(layout: TaskLayout, confidence: np.ndarray, correct: np.ndarray, label: str,
                   fingerprint: str | None = None) -> FamilyAnswers:
    """Arrays of one answer file; ``label`` (``seed N`` or ``release``) makes the group keys unique."""
    keys = [""] * layout.groups
    for position, group in enumerate(layout.group_index.tolist()):
        if not keys[group]:
            item = layout.items[position]
            keys[group] = f"{label} {item.group if item.group is not None else item.id}"
    return FamilyAnswers(np.asarray(confidence), np.asarray(correct, dtype=bool), layout.group_index, tuple(keys),
                         fingerprint)


def joined(parts: Sequence[FamilyAnswers]) -> FamilyAnswers:
    """Several answer sets side by side (seeds of one family, or families pooled), groups renumbered."""
    offsets = np.cumsum([0] + [p.groups for p in parts[:-1]])
    return FamilyAnswers(
        np.concatenate([p.confidence for p in parts]),
        np.concatenate([p.correct for p in parts]),
        np.concatenate([p.group_index + o for p, o in zip(parts, offsets, strict=True)]),
        tuple(key for p in parts for key in p.group_keys),
    )


def discover_seeds(runs_root: Path) -> list[int]:
    """The seeds of every ``seed-N`` folder under the calibration runs root, in increasing order.

    Two folders naming one seed (``seed-1000`` and ``seed-01000``) would count one draw twice, and a folder
    named otherwise than ``seed-<seed>`` is not the folder the items are read from: both are refused.
    """
    if not runs_root.is_dir():
        raise DecisionPivotError(
            f"{runs_root}: no calibration runs folder (expected {runs_root}/seed-N/<system>/; make one with "
            f"`dp generate --seed N` and `dp evaluate --system S --items datasets/fresh/seed-N --runs "
            f"{runs_root}/seed-N`)"
        )
    folders: dict[int, list[str]] = {}
    for path in sorted(runs_root.iterdir()):
        if path.is_dir() and (match := SEED_FOLDER.fullmatch(path.name)):
            folders.setdefault(int(match.group(1)), []).append(path.name)
    for seed, names in sorted(folders.items()):
        if len(names) > 1:
            raise DecisionPivotError(
                f"{runs_root}: folders {' and '.join(names)} name the same seed {seed}; one draw would count "
                f"twice: keep one, named seed-{seed}"
            )
        if names[0] != f"seed-{seed}":
            raise DecisionPivotError(f"{runs_root / names[0]}: rename it seed-{seed} (the folder of seed {seed})")
    if not folders:
        raise DecisionPivotError(f"{runs_root}: no seed-N folders of calibration runs")
    return sorted(folders)


def parse_seeds(value: Sequence[str] | None, runs_root: Path) -> list[int]:
    """``--seeds 101,102`` as integers (distinct, in the given order), or every seed found under the runs root."""
    if value is None:
        return discover_seeds(runs_root)
    seeds = []
    for text in value:
        if not SEED_TEXT.fullmatch(str(text).strip()):
            raise DecisionPivotError(f"--seeds: expected comma-separated non-negative integers, found {text!r}")
        seeds.append(int(text))
    if len(set(seeds)) != len(seeds):
        raise DecisionPivotError(f"--seeds: seed(s) given twice: {', '.join(map(str, seeds))}")
    return seeds


def state_sha256(state: str | Mapping[str, Any]) -> str:
    """SHA-256 of an item's state as a model reads it, canonically: text as is, a structured state as JSON with
    sorted keys (the order of keys in a file does not make another case)."""
    text = state if isinstance(state, str) else json.dumps(state, sort_keys=True, ensure_ascii=False,
                                                           separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def family_plan(layout: TaskLayout) -> FamilyPlan:
    """Versions, items per level and groups per level and size of one family's items."""
    sizes = Counter(layout.group_index.tolist())
    first = {}
    for position, group in enumerate(layout.group_index.tolist()):
        first.setdefault(group, position)
    groups = Counter((int(layout.level[first[g]]), size) for g, size in sizes.items())
    return FamilyPlan(
        tuple(sorted({item.version for item in layout.items})),
        tuple(sorted(Counter(int(level) for level in layout.level.tolist()).items())),
        tuple(sorted((level, size, count) for (level, size), count in groups.items())),
    )


def _states(layout: TaskLayout) -> dict[str, str]:
    """State hash -> item id (the first item with it)."""
    states: dict[str, str] = {}
    for item in layout.items:
        states.setdefault(state_sha256(item.state), item.id)
    return states


def release_items(items: Path, layouts: Sequence[TaskLayout]) -> ReleaseItems:
    """The release items as calibration is checked against them (``layouts``: the release's, read once)."""
    manifest = read_manifest(items)
    return ReleaseItems(
        str(manifest.get("version")), sha256_file(items / MANIFEST_NAME),
        {layout.task: layout.items_sha256 for layout in sorted(layouts, key=lambda layout: layout.task)},
        {layout.task: family_plan(layout) for layout in layouts},
        {layout.task: _states(layout) for layout in layouts},
    )


def _plan_text(plan: FamilyPlan) -> str:
    levels = ", ".join(f"level {level}: {count}" for level, count in plan.items_per_level)
    groups = ", ".join(f"{count} of size {size} at level {level}" for level, size, count in
                       plan.groups_per_level_and_size)
    return f"items {levels}; groups {groups}"


def _check_family(path: Path, layout: TaskLayout, seed: int, release: ReleaseItems,
                  earlier: dict[str, dict[str, tuple[int, str]]]) -> None:
    """Version, plan and fresh states of one family of a draw (see the module docstring)."""
    family = layout.task
    plan, wanted = family_plan(layout), release.plans.get(family)
    if wanted is None:
        raise DecisionPivotError(f"{path}: the release has no {family} items; calibration draws hold release families")
    if plan.versions != wanted.versions:
        raise DecisionPivotError(
            f"{path}: items of generator version {', '.join(plan.versions)}, but the release's {family} items are "
            f"version {', '.join(wanted.versions)}: not a draw of the release's generators (draw it with this "
            f"package: `dp generate --seed {seed}`)"
        )
    if plan != wanted:
        raise DecisionPivotError(
            f"{path}: not drawn to the release plan: {_plan_text(plan)}; the release has {_plan_text(wanted)}"
        )
    seen = earlier.setdefault(family, {})
    here: dict[str, str] = {}
    for item in layout.items:
        digest = state_sha256(item.state)
        if digest in release.states.get(family, {}):
            raise DecisionPivotError(
                f"{path}: item {item.id} has the state of release item {release.states[family][digest]}: "
                "calibration must never use released items (a fresh draw shares no state with the release)"
            )
        if digest in here:
            raise DecisionPivotError(f"{path}: items {here[digest]} and {item.id} have the same state")
        if digest in seen:
            other_seed, other = seen[digest]
            raise DecisionPivotError(
                f"{path}: item {item.id} has the state of seed {other_seed}'s item {other}: a copied draw is not "
                "an independent one (every draw must be fresh)"
            )
        here[digest] = item.id
    seen.update({digest: (seed, item_id) for digest, item_id in here.items()})


def read_draw(seed: int, items_root: Path, runs_root: Path, release: ReleaseItems,
              earlier: dict[str, dict[str, tuple[int, str]]], allow_modified_items: bool = False) -> CalibrationDraw:
    """Check one calibration draw (see the module docstring) and read every system's answers to it.

    ``earlier``: family -> state hash -> (seed, item id) of the draws checked before; this draw's are added.
    ``allow_modified_items``: read items files the rule of every verb refuses (the draw's item checks say so).
    """
    if seed == RELEASE_SEED:
        raise DecisionPivotError(f"--seeds: {seed} is the release seed; calibration needs fresh draws (other seeds)")
    items = items_root / f"seed-{seed}"
    manifest = read_manifest(items)
    if str(manifest.get("version")) != release.version:
        raise DecisionPivotError(
            f"{items / MANIFEST_NAME}: core version {manifest.get('version')}, but the release items are "
            f"{release.version}; draw it with `dp generate --seed {seed} --version {release.version}`"
        )
    listed = manifest.get("families")
    if not isinstance(listed, dict) or not all(isinstance(entry, dict) for entry in listed.values()):
        raise DecisionPivotError(f"{items / MANIFEST_NAME}: no 'families' object of per-family entries")
    for name, entry in sorted(listed.items()):
        if entry.get("seed") != seed:
            raise DecisionPivotError(
                f"{items / MANIFEST_NAME}: {name} was drawn with seed {entry.get('seed')}, not {seed}")
        if not (items / f"{name}.jsonl").is_file():
            raise DecisionPivotError(f"{items / f'{name}.jsonl'}: missing (listed in {MANIFEST_NAME})")
    layouts = []
    for path in sorted(items.glob("*.jsonl")):
        if path.stem not in listed:
            raise DecisionPivotError(f"{path}: not listed in {items / MANIFEST_NAME}")
        layout = read_layout(path)  # the one read and hash of this file
        if layout.items_sha256 == release.families.get(layout.task):
            raise DecisionPivotError(f"{path}: these are the released {layout.task} items; calibration must never "
                                     "use them")
        accept_items_file(path, layout.items_sha256, allow_modified_items, layout.task)  # before any other check
        _check_family(path, layout, seed, release, earlier)
        layouts.append(layout)
    runs = runs_root / f"seed-{seed}"
    if not runs.is_dir():
        raise DecisionPivotError(
            f"{runs}: no calibration runs for seed {seed} (`dp evaluate --system S --items {items} --runs {runs}`)"
        )
    layouts.sort(key=lambda layout: (layout.layer, layout.task))
    loaded = load_runs(runs, items, None, None, tasks=(), allow_modified_items=allow_modified_items,
                       core_layouts=layouts)
    families = {layout.task: layout.items_sha256 for layout in sorted(layouts, key=lambda layout: layout.task)}
    return CalibrationDraw(seed, items, sha256_file(items / MANIFEST_NAME), families, loaded)


def missing_reason(loaded: LoadedRuns, system: str, family: str) -> str:
    """Why a system has no usable answers to a family in a loaded set of runs."""
    if not any(layout.task == family for layout in loaded.core):
        return f"no {family} items in the draw"
    if system not in loaded.systems:
        return "no answers folder"
    for exclusion in loaded.exclusions:
        if exclusion.system == system and exclusion.task == family:
            return exclusion.reason
    return "no answer file"


def loaded_family(loaded: LoadedRuns, system: str, family: str, label: str) -> FamilyAnswers | None:
    """The system's answers to the family as arrays (None when absent or below 99% of the items)."""
    answers = loaded.answers.get((system, family))
    if answers is None:
        return None
    layout = next(layout for layout in loaded.core if layout.task == family)
    return family_answers(layout, answers.confidence, answers.correct, label, answer_fingerprint(answers.meta))
