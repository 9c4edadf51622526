"""`dp gate`: certify a threshold per system and family (and pooled) on the calibration draws, then
check it on the release.

For every system with answers under the release runs folder, per family it has answers to:

* **refused** when a calibration draw lacks usable answers to the family (no file, or records for fewer
  than 99% of its items: the scorer's rule), or when the answers of the draws and of the release do not all
  come from one answer-changing configuration (their ``.meta.json`` fingerprints differ: a threshold
  calibrated on one configuration says nothing about another), with the reason naming both fingerprints -
  never silently certified;
* else the test of :mod:`~decisionpivot.gate.method` on the answers of all calibration draws together
  gives **automate** at the certified threshold or **do not automate** when no threshold is certified;
* either way the release answers are checked (:mod:`~decisionpivot.gate.check`).

With a recalibration map per system (``--recalibration``, :mod:`~decisionpivot.gate.recalibration`) every
calibration and release confidence is recalibrated first, a map fitted on a certified draw is refused, and a
family whose answers' configuration the map was not fitted on is refused.

The pooled entry uses one threshold for all the system's families with release answers (refused when
one of them is refused). The macro figures average the release coverage at the certified thresholds
(0 where nothing is certified) and the retrospective C(target) over the same families, as the
leaderboard averages C(0.05).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.calibration import (
    CalibrationDraw,
    FamilyAnswers,
    joined,
    missing_reason,
    parse_seeds,
    read_draw,
    release_items,
)
from decisionpivot.gate.check import ReleaseCheck, check_release, release_weights
from decisionpivot.gate.method import PERCENT_DECIMALS, Certificate, certify, sampled_members, statable
from decisionpivot.gate.recalibration import check_unseen, configuration_problem, read_maps, recalibrated_family
from decisionpivot.recalibrate.map_file import RecalibrationMap
from decisionpivot.score.bootstrap import Multiplicities
from decisionpivot.score.certified import GATE_DECISIONS, answer_fingerprint
from decisionpivot.score.metrics import share_at_confidence
from decisionpivot.score.pipeline import LoadedRuns, load_runs
from decisionpivot.user_files import FRACTION, RESAMPLES, gate_params_schema, read_yaml_user_file, section

AUTOMATE, DO_NOT_AUTOMATE, REFUSED = GATE_DECISIONS


@dataclass(frozen=True)
class Entry:
    """The decision for one family (or the pooled families) of one system, and its check on the release."""

    decision: str
    """:data:`AUTOMATE`, :data:`DO_NOT_AUTOMATE` or :data:`REFUSED`."""
    reason: str | None
    """Why not automated (None when automated)."""
    certificate: Certificate | None
    """The test's outcome (None when refused)."""
    expected_coverage: float | None
    """Share of all calibration items at or above the threshold (None without one)."""
    calibration_items: int
    """Calibration items of the entry over all draws (0 when refused)."""
    calibration_groups: int
    """Their contrast groups (the independent units)."""
    release: ReleaseCheck | None
    """The check on the release; None when the release answers are not scorable."""
    release_note: str | None
    """Why there is no release check (None when there is one)."""
    fingerprint: str | None = None
    """The answer-changing configuration certified (calibration and release answers share it); None when
    refused or when the pooled families' configurations differ."""

    @property
    def threshold(self) -> float | None:
        return self.certificate.threshold if self.certificate is not None else None


@dataclass(frozen=True)
class SystemGate:
    """Every entry of one system."""

    system: str
    """System name (its folder under the runs folders)."""
    families: dict[str, Entry]
    """Family -> entry, for the families the system has release answer files for."""
    pooled: Entry
    """One threshold for all families with release answers."""
    release_fingerprints: dict[str, str | None]
    """Family -> configuration fingerprint of the release answers checked (None: not recorded)."""
    recalibration: RecalibrationMap | None = None
    """The map every confidence was recalibrated with before the test and the check (None: the system's own)."""

    def _checked(self) -> list[ReleaseCheck]:
        return [e.release for e in self.families.values() if e.release is not None]

    @property
    def certified_coverage_macro(self) -> float | None:
        """Mean over families of the release coverage at the certified threshold (0 when none)."""
        checked = self._checked()
        return float(np.mean([c.coverage for c in checked])) if checked else None

    @property
    def retrospective_coverage_macro(self) -> float | None:
        """Mean over the same families of the retrospective C(target) on the release."""
        checked = self._checked()
        return float(np.mean([c.retrospective_coverage for c in checked])) if checked else None


@dataclass(frozen=True)
class GateSettings:
    """What a gating was asked to do."""

    target_risk: float
    """Largest error rate among automated items (alpha)."""
    delta: float
    """Allowed probability that the guarantee fails."""
    resamples: int
    """Bootstrap resamples of the release intervals."""


@dataclass(frozen=True)
class Gating:
    """A whole `dp gate`: the inputs it checked and every system's entries."""

    settings: GateSettings
    """Target, delta, resamples."""
    draws: tuple[CalibrationDraw, ...]
    """The calibration draws, in the order given."""
    release_items: Path
    """The release items folder checked on."""
    release_manifest_sha256: str
    """SHA-256 of its MANIFEST.json."""
    release_families: dict[str, str]
    """Family -> SHA-256 of the release items file."""
    systems: tuple[SystemGate, ...]
    """One per system, sorted by name."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(``release/<family>`` or ``seed-<N>/<family>``, how its items file was accepted:
    :func:`decisionpivot.item_origin.accept_items_file`)."""


DEFAULTS = {"target_risk": 0.05, "delta": 0.10, "resamples": 1000}
"""Settings when neither the command line nor a params file gives them."""


def gate_params(path: Path) -> dict[str, Any]:
    """The ``gate`` section of a params file (seeds, target_risk, delta, resamples, systems), read by
    :func:`~decisionpivot.user_files.gate_params_schema`: known keys only, distinct seeds, fractions and resample
    counts within the bounds the flags have; errors name the file and line and start with ``--params``."""
    try:
        document = read_yaml_user_file(path, "a params file with a gate: section")
        return dict(section(document, "gate", gate_params_schema(), required=True))
    except DecisionPivotError as exc:
        raise DecisionPivotError(f"--params {exc}") from None


def gated_systems(params: Path | None, systems: Sequence[str] | None) -> list[str] | None:
    """The systems to gate: the command line's, else the params file's ``gate.systems``, else None (every system
    with release answers)."""
    if systems is not None or params is None:
        return None if systems is None else list(systems)
    listed = gate_params(params).get("systems")
    return None if listed is None else [name for name in str(listed).split(",") if name]


def resolve_settings(
    params: Path | None, seeds: Sequence[str] | None, target_risk: float | None, delta: float | None,
    resamples: int | None, calibration_runs: Path,
) -> tuple[list[int], GateSettings]:
    """Seeds and settings: the command line's, else the params file's ``gate`` section, else the defaults
    (seeds: every seed-N folder under the calibration runs)."""
    from_file = gate_params(params) if params is not None else {}
    given = {"target_risk": target_risk, "delta": delta, "resamples": resamples}
    chosen = {key: value if value is not None else from_file.get(key, DEFAULTS[key]) for key, value in given.items()}
    if seeds is None and "seeds" in from_file:
        seeds = [str(seed) for seed in from_file["seeds"]]
    settings = GateSettings(float(chosen["target_risk"]), float(chosen["delta"]), int(chosen["resamples"]))
    _validate(settings)  # a bad value stops the verb before it looks for a single calibration folder
    return parse_seeds(seeds, calibration_runs), settings


def _validate(settings: GateSettings) -> None:
    FRACTION.require(settings.target_risk, "--target-risk")
    FRACTION.require(settings.delta, "--delta")
    RESAMPLES.require(settings.resamples, "--resamples")
    for flag, value in (("--target-risk", settings.target_risk), ("--delta", settings.delta)):
        if not statable(value):
            raise DecisionPivotError(
                f"{flag} {value!r}: the guarantee states it and its complement as percentages with at most "
                f"{PERCENT_DECIMALS} decimals; give a fraction with at most {PERCENT_DECIMALS + 2} decimals, "
                f"from {10.0 ** -(PERCENT_DECIMALS + 2):.{PERCENT_DECIMALS + 2}f} to "
                f"{1 - 10.0 ** -(PERCENT_DECIMALS + 2):.{PERCENT_DECIMALS + 2}f}"
            )
    if settings.resamples < 2:
        raise DecisionPivotError(f"--resamples must be at least 2, got {settings.resamples}")


def _certified(calibration: FamilyAnswers, settings: GateSettings) -> tuple[str, str | None, Certificate, float | None]:
    sampled, pilot = sampled_members(calibration.group_index, calibration.group_keys, calibration.largest_group)
    certificate = certify(calibration.confidence[sampled], calibration.correct[sampled], pilot,
                          settings.target_risk, settings.delta)
    if certificate.threshold is None:
        reason = (f"no threshold certified at risk <= {settings.target_risk:g} with probability "
                  f"{1 - settings.delta:g}; {certificate.miss()}")
        return DO_NOT_AUTOMATE, reason, certificate, None
    return AUTOMATE, None, certificate, float(share_at_confidence(calibration.confidence, certificate.threshold))


def _entry(calibration: FamilyAnswers | None, problem: str | None, release: tuple[FamilyAnswers, Multiplicities] | None,
           release_note: str | None, settings: GateSettings, fingerprint: str | None = None) -> Entry:
    if calibration is None:
        decision, reason, certificate, expected = REFUSED, problem, None, None
        items = groups = 0
    else:
        decision, reason, certificate, expected = _certified(calibration, settings)
        items, groups = int(calibration.confidence.size), calibration.groups
    threshold = certificate.threshold if certificate is not None else None
    check = None if release is None else check_release(release[0], release[1], threshold, settings.target_risk)
    return Entry(decision, reason, certificate, expected, items, groups, check, release_note,
                 fingerprint if calibration is not None else None)


def gate_system(
    system: str, release: LoadedRuns, draws: Sequence[CalibrationDraw], settings: GateSettings,
    mapping: RecalibrationMap | None = None,
) -> SystemGate:
    """Every entry of one system (see the module docstring); ``mapping`` recalibrates every confidence first."""
    families = sorted(
        layout.task for layout in release.core
        if (system, layout.task) in release.answers or (system, layout.task) in release.short
    )
    entries: dict[str, Entry] = {}
    calibrations: dict[str, FamilyAnswers] = {}
    releases: dict[str, tuple[FamilyAnswers, Multiplicities]] = {}
    fingerprints: dict[str, str | None] = {}
    for family in families:
        scorable = release.answers.get((system, family)) or release.short[(system, family)]
        fingerprints[family] = answer_fingerprint(scorable.meta)
        parts, problems = [], []
        for draw in draws:
            answers = recalibrated_family(draw.loaded, system, family, f"seed {draw.seed}", mapping)
            if answers is None:
                problems.append(f"calibration seed {draw.seed}: {missing_reason(draw.loaded, system, family)}")
            else:
                parts.append(answers)
        if not problems:
            problems += configuration_problems(fingerprints[family], [(d.seed, p.fingerprint) for d, p in
                                                                      zip(draws, parts, strict=True)])
        if not problems and mapping is not None and (problem := configuration_problem(mapping, family,
                                                                                      fingerprints[family])):
            problems.append(problem)
        calibration = joined(parts) if not problems else None
        if calibration is not None:
            calibrations[family] = calibration
        released = recalibrated_family(release, system, family, "release", mapping)
        note = None
        if released is None:
            note = f"release answers not scorable: {missing_reason(release, system, family)}"
        else:
            releases[family] = (released, release_weights(family, released, settings.resamples))
        entries[family] = _entry(calibration, "; ".join(problems) or None, releases.get(family), note, settings,
                                 fingerprints[family])
    return SystemGate(system, entries, _pooled(entries, calibrations, releases, settings), fingerprints, mapping)


def configuration_problems(release: str | None, calibration: Sequence[tuple[int, str | None]]) -> list[str]:
    """Why calibration answers (seed, fingerprint) do not speak for the release answers' configuration: every
    fingerprint must be recorded and equal the release answers' (both named, 12 hex digits, when not)."""
    if release is None:
        return ["the release answers record no configuration fingerprint (.meta.json), so no calibration can be "
                "matched to them; re-run them with `dp evaluate`"]
    problems = []
    for seed, fingerprint in calibration:
        if fingerprint is None:
            problems.append(f"calibration seed {seed}: the answers record no configuration fingerprint; re-run them")
        elif fingerprint != release:
            problems.append(
                f"calibration seed {seed}: answers of configuration {fingerprint[:12]}, the release answers of "
                f"configuration {release[:12]}: a threshold calibrated on one configuration says nothing about "
                "another; evaluate the calibration draws with the configuration of the release answers"
            )
    return problems


def _pooled(entries: dict[str, Entry], calibrations: dict[str, FamilyAnswers],
            releases: dict[str, tuple[FamilyAnswers, Multiplicities]], settings: GateSettings) -> Entry:
    scope = sorted(releases)
    if not scope:
        return _entry(None, "no family with scorable release answers", None, "no release answers", settings)
    refused = [family for family in scope if family not in calibrations]
    release = (joined([releases[f][0] for f in scope]), Multiplicities.concatenate([releases[f][1] for f in scope]))
    if refused:
        return _entry(None, f"refused for {', '.join(refused)}", release, None, settings)
    shared = {entries[f].fingerprint for f in scope}
    return _entry(joined([calibrations[f] for f in scope]), None, release, None, settings,
                  shared.pop() if len(shared) == 1 else None)


def gate_runs(
    runs: Path, items: Path, calibration_runs: Path, calibration_items: Path, seeds: Sequence[int],
    settings: GateSettings, systems: Sequence[str] | None = None, progress: bool | None = None,
    recalibration: Path | None = None, allow_modified_items: bool = False,
) -> Gating:
    """Read the release and calibration answers, check them, and gate every system (on confidences recalibrated
    by each system's map of ``recalibration``, a map file or a folder of them, when given). Items files the rule
    of every verb refuses (:mod:`decisionpivot.item_origin`) stop the gating unless ``allow_modified_items``; the
    gating's item checks then say so."""
    _validate(settings)
    if not seeds:
        raise DecisionPivotError("no calibration seeds given")
    release = load_runs(runs, items, None, systems, tasks=(), allow_modified_items=allow_modified_items)
    released = release_items(items, release.core)
    states: dict[str, dict[str, tuple[int, str]]] = {}
    draws = tuple(read_draw(seed, calibration_items, calibration_runs, released, states, allow_modified_items)
                  for seed in seeds)
    maps = {} if recalibration is None else read_maps(recalibration, sorted(release.systems))
    for mapping in maps.values():
        check_unseen(mapping, draws, released.manifest_sha256)
    quiet = not sys.stderr.isatty() if progress is None else not progress
    gated = tuple(
        gate_system(system, release, draws, settings, maps.get(system))
        for system in tqdm(sorted(release.systems), desc="gate", unit="system", disable=quiet, leave=False)
    )
    checks = [(f"release/{task}", how) for task, how in release.item_checks]
    checks += [(f"seed-{draw.seed}/{task}", how) for draw in draws for task, how in draw.loaded.item_checks]
    return Gating(settings, draws, items, released.manifest_sha256, released.families, gated, tuple(checks))
