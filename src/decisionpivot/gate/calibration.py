"""Calibration draws and their answers: ``datasets/fresh/seed-N/`` and ``runs-calibration/seed-N/<system>/``.

Every draw is checked before it is used: its seed is not the release seed, its MANIFEST.json names that
seed and the release's core version, each items file has the SHA-256 its manifest records and none is
a released items file, and the answer files name the SHA-256 of the items they answered (the scorer's
check). Answers are read by the scorer's own rules (:mod:`decisionpivot.score.answers`): failed and
missing predictions are wrong, at the uniform confidence ``1/|O|``; a file with records for fewer than
99% of its items makes the entry *refused*, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decisionpivot import RELEASE_SEED
from decisionpivot.errors import DecisionPivotError
from decisionpivot.generate.run import MANIFEST_NAME, read_manifest
from decisionpivot.items import sha256_file
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.pipeline import LoadedRuns, load_runs

SEED_FOLDER = re.compile(r"seed-(\d+)")
"""Name of one calibration draw's folder, under both the items root and the runs root."""


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

    @property
    def groups(self) -> int:
        return len(self.group_keys)

    @property
    def largest_group(self) -> int:
        return int(np.bincount(self.group_index).max()) if self.group_index.size else 1


def family_answers(layout: TaskLayout, confidence: np.ndarray, correct: np.ndarray, label: str) -> FamilyAnswers:
    """Arrays of one answer file; ``label`` (``seed N`` or ``release``) makes the group keys unique."""
    keys = [""] * layout.groups
    for position, group in enumerate(layout.group_index.tolist()):
        if not keys[group]:
            item = layout.items[position]
            keys[group] = f"{label} {item.group if item.group is not None else item.id}"
    return FamilyAnswers(np.asarray(confidence), np.asarray(correct, dtype=bool), layout.group_index, tuple(keys))


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
    """The seeds of every ``seed-N`` folder under the calibration runs root, in increasing order."""
    if not runs_root.is_dir():
        raise DecisionPivotError(
            f"{runs_root}: no calibration runs folder (expected {runs_root}/seed-N/<system>/; make one with "
            f"`dp generate --seed N` and `dp evaluate --system S --items datasets/fresh/seed-N --runs "
            f"{runs_root}/seed-N`)"
        )
    seeds = sorted(int(m.group(1)) for p in runs_root.iterdir() if p.is_dir() and (m := SEED_FOLDER.fullmatch(p.name)))
    if not seeds:
        raise DecisionPivotError(f"{runs_root}: no seed-N folders of calibration runs")
    return seeds


def parse_seeds(value: Sequence[str] | None, runs_root: Path) -> list[int]:
    """``--seeds 101,102`` as integers (distinct, in the given order), or every seed found under the runs root."""
    if value is None:
        return discover_seeds(runs_root)
    seeds = []
    for text in value:
        if not text.strip().isdigit():
            raise DecisionPivotError(f"--seeds: expected comma-separated non-negative integers, found {text!r}")
        seeds.append(int(text))
    if len(set(seeds)) != len(seeds):
        raise DecisionPivotError(f"--seeds: seed(s) given twice: {', '.join(map(str, seeds))}")
    return seeds


def release_families(items: Path) -> tuple[str, dict[str, str], str]:
    """(core version, family -> SHA-256, SHA-256 of MANIFEST.json) of the release items folder."""
    manifest = read_manifest(items)
    families = {name: str(entry.get("sha256")) for name, entry in sorted(manifest.get("families", {}).items())}
    return str(manifest.get("version")), families, sha256_file(items / MANIFEST_NAME)


def read_draw(seed: int, items_root: Path, runs_root: Path, version: str, release: dict[str, str]) -> CalibrationDraw:
    """Check one calibration draw (see the module docstring) and read every system's answers to it."""
    if seed == RELEASE_SEED:
        raise DecisionPivotError(f"--seeds: {seed} is the release seed; calibration needs fresh draws (other seeds)")
    items = items_root / f"seed-{seed}"
    manifest = read_manifest(items)
    if str(manifest.get("version")) != version:
        raise DecisionPivotError(
            f"{items / MANIFEST_NAME}: core version {manifest.get('version')}, but the release items are {version}; "
            f"draw it with `dp generate --seed {seed} --version {version}`"
        )
    families: dict[str, str] = {}
    listed = manifest.get("families")
    if not isinstance(listed, dict) or not all(isinstance(entry, dict) for entry in listed.values()):
        raise DecisionPivotError(f"{items / MANIFEST_NAME}: no 'families' object of per-family entries")
    for name, entry in sorted(listed.items()):
        if entry.get("seed") != seed:
            raise DecisionPivotError(
                f"{items / MANIFEST_NAME}: {name} was drawn with seed {entry.get('seed')}, not {seed}")
        path = items / f"{name}.jsonl"
        if not path.is_file():
            raise DecisionPivotError(f"{path}: missing (listed in {MANIFEST_NAME})")
        digest = sha256_file(path)
        if digest != entry.get("sha256"):
            raise DecisionPivotError(f"{path}: SHA-256 {digest} differs from {MANIFEST_NAME}'s {entry.get('sha256')}")
        if digest == release.get(name):
            raise DecisionPivotError(f"{path}: these are the released {name} items; calibration must never use them")
        families[name] = digest
    runs = runs_root / f"seed-{seed}"
    if not runs.is_dir():
        raise DecisionPivotError(
            f"{runs}: no calibration runs for seed {seed} (`dp evaluate --system S --items {items} --runs {runs}`)"
        )
    loaded = load_runs(runs, items, None, None, tasks=())
    return CalibrationDraw(seed, items, sha256_file(items / MANIFEST_NAME), families, loaded)


def missing_reason(loaded: LoadedRuns, system: str, family: str) -> str:
    """Why a system has no usable answers to a family in a loaded set of runs."""
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
    return family_answers(layout, answers.confidence, answers.correct, label)
