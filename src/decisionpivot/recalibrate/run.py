"""Fitting the maps on the calibration draws and measuring them on the release.

**Never the release.** The maps are fitted on the answers to fresh draws (``runs-calibration/seed-N/``, read
and checked as `dp gate` reads them); the release answers are only mapped and measured.

**Fit and certify on different groups.** A certified threshold on recalibrated confidences is valid only if
the map was not fitted on the items the threshold is tested on. Each contrast group of the calibration draws
goes to the *fit* half or the *certify* half by a hash of its key (``seed N <group id>``), independent of
any answer: the maps are fitted on the fit half; the certified coverage before and after is certified on the
certify half with `dp gate`'s own test (:func:`decisionpivot.gate.method.certify`, at `dp gate`'s defaults
unless asked otherwise) and checked on the release with its check (:func:`decisionpivot.gate.check.check_release`).
The recommended map is the one with the lower ECE on the certify half (held out from the fit).

One map per system, fitted on all its families together (the fit half of a single family is small).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.calibration import CalibrationDraw, FamilyAnswers, joined, read_draw, release_items
from decisionpivot.gate.check import check_release, release_weights
from decisionpivot.gate.method import certify, sampled_members
from decisionpivot.item_origin import modified_items
from decisionpivot.recalibrate.maps import (
    IsotonicMap,
    fit_isotonic,
    fit_temperature,
    isotonic_applied,
    temperature_scaled,
)
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.certified import answer_fingerprint
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.metrics import accuracy_at_confidence, expected_calibration_error, share_at_confidence
from decisionpivot.score.pipeline import load_runs

NONE, TEMPERATURE, ISOTONIC = "none", "temperature", "isotonic"
METHODS = (NONE, TEMPERATURE, ISOTONIC)
"""``none`` is the system's own confidence (the "before" column)."""
DEFAULT_TARGET_RISK = 0.05
DEFAULT_DELTA = 0.10
DEFAULT_RESAMPLES = 200


def fit_half(group_key: str) -> bool:
    """True when the group with this key is in the fit half (the first byte of SHA-256 of the key is even)."""
    return hashlib.sha256(f"recalibrate {group_key}".encode()).digest()[0] % 2 == 0


@dataclass(frozen=True)
class FamilyPart:
    """One system's answers to one family of one draw (or of the release), as the maps need them."""

    family: str
    """Family name."""
    probabilities: np.ndarray
    """``(n, K)`` normalised probabilities (uniform for failed items)."""
    option_count: np.ndarray
    """``(n,)`` options per item."""
    gold: np.ndarray
    """``(n,)`` gold option column."""
    correct: np.ndarray
    """``(n,)`` the chosen option is the gold one."""
    group_index: np.ndarray
    """``(n,)`` group number 0..G-1."""
    group_keys: tuple[str, ...]
    """Per group: ``<label> <group id>``."""

    @property
    def confidence(self) -> np.ndarray:
        return self.probabilities.max(axis=1)

    def subset(self, keep: np.ndarray) -> FamilyPart:
        """The items where ``keep``, groups renumbered."""
        groups, index = np.unique(self.group_index[keep], return_inverse=True)
        return FamilyPart(self.family, self.probabilities[keep], self.option_count[keep], self.gold[keep],
                          self.correct[keep], index.reshape(-1), tuple(self.group_keys[g] for g in groups))


def family_part(layout: TaskLayout, answers: TaskAnswers, label: str) -> FamilyPart:
    """Arrays of one answer file; group keys ``<label> <group id>`` as `dp gate` forms them."""
    keys = [""] * layout.groups
    for position, group in enumerate(layout.group_index.tolist()):
        if not keys[group]:
            item = layout.items[position]
            keys[group] = f"{label} {item.group if item.group is not None else item.id}"
    return FamilyPart(layout.task, answers.probabilities, layout.option_count, layout.gold_index, answers.correct,
                      layout.group_index, tuple(keys))


@dataclass(frozen=True)
class FittedMaps:
    """Both maps of one system and what they were fitted on."""

    system: str
    """System name."""
    temperature: float
    """Fitted temperature."""
    isotonic: IsotonicMap
    """Fitted isotonic map."""
    seeds: tuple[int, ...]
    """Calibration draws fitted on."""
    draws: tuple[tuple[int, str], ...]
    """(seed, SHA-256 of the draw's MANIFEST.json)."""
    families: tuple[str, ...]
    """Families fitted on."""
    items: int
    """Fit-half items."""
    groups: int
    """Fit-half contrast groups."""
    fingerprints: tuple[tuple[str, str | None], ...] = ()
    """(family, configuration fingerprint of the answers fitted on); None when not recorded or when the draws'
    answers disagree. `dp gate --recalibration` refuses the map for answers of another configuration."""
    modified_items: tuple[tuple[str, str], ...] = ()
    """(``seed-<N>/<family>``, what did not match) of the draws' items fitted on that were read with
    ``--allow-modified-items`` (:func:`decisionpivot.item_origin.modified_items`); empty for items this package
    re-derives."""


def mapped_confidence(method: str, maps: FittedMaps, part: FamilyPart) -> np.ndarray:
    """The confidence of every item of ``part`` under ``method`` (the chosen option never changes)."""
    if method == NONE:
        return part.confidence
    if method == TEMPERATURE:
        return temperature_scaled(part.probabilities, part.option_count, maps.temperature).max(axis=1)
    return isotonic_applied(maps.isotonic, part.confidence)


@dataclass(frozen=True)
class MethodResult:
    """One system under one method: figures on the release and on the held-out certify half."""

    method: str
    """``none``, ``temperature`` or ``isotonic``."""
    ece: float
    """Release ECE (pooled items, 15 bins), fraction."""
    accuracy_at_90: float
    """Release accuracy among items with (mapped) confidence >= 0.90; NaN when none."""
    share_at_90: float
    """Release share of items with (mapped) confidence >= 0.90."""
    certified_coverage: float
    """Mean over families of the release coverage at the threshold certified on the certify half (0: none)."""
    thresholds: dict[str, float | None]
    """Family -> certified threshold on the (mapped) confidence, None when not certified."""
    held_out_ece: float
    """ECE on the certify half of the calibration draws (what the recommendation compares)."""


@dataclass(frozen=True)
class SystemRecalibration:
    """One system: its maps and the figures before and after."""

    maps: FittedMaps
    """The fitted maps."""
    results: tuple[MethodResult, ...]
    """One per method of :data:`METHODS`, in that order."""

    @property
    def recommended(self) -> str:
        """The map with the lower held-out ECE (``none`` when neither improves on the system's own)."""
        best = min(self.results, key=lambda r: (r.held_out_ece, METHODS.index(r.method)))
        return best.method


@dataclass(frozen=True)
class Recalibration:
    """A whole ``dp recalibrate``."""

    systems: tuple[SystemRecalibration, ...]
    """Per system."""
    release_items: str
    """Release items folder (measured on, never fitted on)."""
    target_risk: float
    """Risk target of the certification."""
    delta: float
    """Its delta."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(``release/<family>`` or ``seed-<N>/<family>``, how its items file was accepted:
    :func:`decisionpivot.item_origin.accept_items_file`)."""


def _certified(parts: Sequence[FamilyPart], release: Sequence[FamilyPart], method: str, maps: FittedMaps,
               target: float, delta: float, resamples: int) -> tuple[float, dict[str, float | None]]:
    coverages, thresholds = [], {}
    for held, shipped in zip(parts, release, strict=True):
        answers = FamilyAnswers(mapped_confidence(method, maps, held), held.correct, held.group_index,
                                held.group_keys)
        largest = answers.largest_group
        positions, pilot = sampled_members(answers.group_index, answers.group_keys, largest)
        certificate = certify(answers.confidence[positions], answers.correct[positions], pilot, target, delta)
        on_release = FamilyAnswers(mapped_confidence(method, maps, shipped), shipped.correct, shipped.group_index,
                                   shipped.group_keys)
        check = check_release(on_release, release_weights(shipped.family, on_release, resamples),
                              certificate.threshold, target)
        coverages.append(check.coverage)
        thresholds[held.family] = certificate.threshold
    return float(np.mean(coverages)) if coverages else float("nan"), thresholds


def fitted_fingerprints(draws: Sequence[CalibrationDraw], system: str,
                        families: Sequence[str]) -> tuple[tuple[str, str | None], ...]:
    """(family, the one configuration fingerprint of the system's answers to it on every draw, else None)."""
    out = []
    for family in families:
        found = {answer_fingerprint(d.loaded.answers[(system, family)].meta) for d in draws
                 if (system, family) in d.loaded.answers}
        out.append((family, found.pop() if len(found) == 1 else None))
    return tuple(out)


def _draw_parts(draws: Sequence[CalibrationDraw], system: str, families: Sequence[str]) -> dict[str, list[FamilyPart]]:
    out: dict[str, list[FamilyPart]] = {}
    for draw in draws:
        layouts = {layout.task: layout for layout in draw.loaded.core}
        for family in families:
            answers = draw.loaded.answers.get((system, family))
            if answers is None:
                raise DecisionPivotError(
                    f"{draw.items}: {system} has no usable answers to {family} on calibration seed {draw.seed} "
                    "(no file, or records for fewer than 99% of its items); recalibration fits on every family")
            out.setdefault(family, []).append(family_part(layouts[family], answers, f"seed {draw.seed}"))
    return out


def _joined(parts: Sequence[FamilyPart]) -> FamilyPart:
    width = max(p.probabilities.shape[1] for p in parts)
    padded = [np.pad(p.probabilities, ((0, 0), (0, width - p.probabilities.shape[1]))) for p in parts]
    answers = joined([FamilyAnswers(p.confidence, p.correct, p.group_index, p.group_keys) for p in parts])
    return FamilyPart(parts[0].family, np.concatenate(padded), np.concatenate([p.option_count for p in parts]),
                      np.concatenate([p.gold for p in parts]), answers.correct, answers.group_index, answers.group_keys)


def _split(part: FamilyPart) -> tuple[FamilyPart, FamilyPart]:
    in_fit = np.array([fit_half(key) for key in part.group_keys], dtype=bool)[part.group_index]
    return part.subset(in_fit), part.subset(~in_fit)


def recalibrate_system(system: str, draws: Sequence[CalibrationDraw], release: Sequence[FamilyPart],
                       target: float, delta: float, resamples: int) -> SystemRecalibration:
    """Fit both maps on the fit half of the draws, then measure every method (see the module docstring)."""
    families = [part.family for part in release]
    by_family = {family: _joined(parts) for family, parts in _draw_parts(draws, system, families).items()}
    halves = {family: _split(part) for family, part in by_family.items()}
    fit = [halves[f][0] for f in families]
    held = [halves[f][1] for f in families]
    temperature = fit_temperature([(p.probabilities, p.option_count, p.gold) for p in fit])
    isotonic = fit_isotonic(np.concatenate([p.confidence for p in fit]), np.concatenate([p.correct for p in fit]))
    maps = FittedMaps(system, temperature, isotonic, tuple(d.seed for d in draws),
                      tuple((d.seed, d.manifest_sha256) for d in draws), tuple(families),
                      sum(p.correct.size for p in fit), sum(len(p.group_keys) for p in fit),
                      fitted_fingerprints(draws, system, families),
                      tuple(modified_items((f"seed-{d.seed}/{task}", how) for d in draws
                                           for task, how in d.loaded.item_checks if task in families).items()))
    release_correct = np.concatenate([p.correct for p in release])
    held_correct = np.concatenate([p.correct for p in held])
    results = []
    for method in METHODS:
        confidence = np.concatenate([mapped_confidence(method, maps, p) for p in release])
        coverage, thresholds = _certified(held, release, method, maps, target, delta, resamples)
        results.append(MethodResult(
            method, float(expected_calibration_error(confidence, release_correct)),
            float(accuracy_at_confidence(confidence, release_correct)), float(share_at_confidence(confidence)),
            coverage, thresholds,
            float(expected_calibration_error(np.concatenate([mapped_confidence(method, maps, p) for p in held]),
                                             held_correct))))
    return SystemRecalibration(maps, tuple(results))


def recalibrate_runs(runs: Path, items: Path, calibration_runs: Path, calibration_items: Path, seeds: Sequence[int],
                     systems: Sequence[str] | None, target: float = DEFAULT_TARGET_RISK, delta: float = DEFAULT_DELTA,
                     resamples: int = DEFAULT_RESAMPLES, allow_modified_items: bool = False) -> Recalibration:
    """Every system under ``runs`` (or those named): fitted on the calibration draws, measured on the release.
    Items files the rule of every verb refuses (:mod:`decisionpivot.item_origin`) stop it unless
    ``allow_modified_items``; the result and the maps then say so."""
    if not 0 < target < 1 or not 0 < delta < 1:
        raise DecisionPivotError(f"--target-risk and --delta must be fractions in (0, 1), got {target} and {delta}")
    loaded = load_runs(runs, items, None, systems, tasks=(), allow_modified_items=allow_modified_items)
    released = release_items(items, loaded.core)
    states: dict[str, dict[str, tuple[int, str]]] = {}
    draws = [read_draw(seed, calibration_items, calibration_runs, released, states, allow_modified_items)
             for seed in seeds]
    out = []
    for system in loaded.systems:
        release = [family_part(layout, loaded.answers[(system, layout.task)], "release") for layout in loaded.core
                   if (system, layout.task) in loaded.answers]
        if not release:
            raise DecisionPivotError(f"{runs / system}: no family with usable release answers to measure on")
        out.append(recalibrate_system(system, draws, release, target, delta, resamples))
    checks = [(f"release/{task}", how) for task, how in loaded.item_checks]
    checks += [(f"seed-{draw.seed}/{task}", how) for draw in draws for task, how in draw.loaded.item_checks]
    return Recalibration(tuple(out), items.as_posix(), target, delta, tuple(checks))
