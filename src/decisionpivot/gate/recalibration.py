"""`dp gate --recalibration`: certify on confidences a `dp recalibrate` map has recalibrated.

**Which map.** ``--recalibration`` names one map file (``maps/<system>.json``: then only its system may be
gated) or a folder of them (``<folder>/<system>.json``, or ``<folder>/maps/<system>.json`` as `dp recalibrate`
writes it): every gated system needs its own map, and a map whose ``system`` is another system's is refused.

**Applied where.** Each system's map is applied, with the one function that applies maps
(:func:`~decisionpivot.recalibrate.map_file.recalibrated_confidence`, the file's recommended method, every
option's probability for temperature scaling), to the confidence of every calibration answer and of every
release answer before the test and the check. Failed and missing predictions stay wrong; their uniform
confidence is mapped like any other.

**Never on the draws it was fitted on.** The test's guarantee needs certification data the map never saw. `dp
recalibrate` fits on one half of the contrast groups of its draws and chooses the recommended method by the
ECE on the other half, so *both* halves of a fitted-on draw have shaped the map; and the draws' items are
only known to the map file by seed and MANIFEST.json SHA-256. So the unit of separation is the **whole draw**:
a gating is refused when any of its calibration draws is one the map was fitted on (the same seed, or the
same MANIFEST.json SHA-256 under another seed), and when the map names the release's manifest. Certifying on
the held-out half of a fitted-on draw was rejected: its groups informed the choice of method, and the split
would have to be repeated here exactly. Draw a further fresh seed for the certificate.

**Same configuration.** A map fitted on answers of one answer-changing configuration says nothing about
another: per family, the map must record the configuration fingerprint of the answers it was fitted on
(``fitted_on.fingerprints``) and it must equal the release answers'; else that family's entry is *refused*
with both fingerprints named.

**In the certificate.** gate.json (per system) and gate/<system>.json record the map's path, SHA-256,
method, system and ``fitted_on``; `dp monitor` refuses a certificate whose map differs from the one given
and `dp score --gate` says which systems were certified on recalibrated confidences.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.calibration import CalibrationDraw, FamilyAnswers, loaded_family
from decisionpivot.recalibrate.map_file import RecalibrationMap, read_map, recalibrated_confidence
from decisionpivot.score.pipeline import LoadedRuns

MAPS_FOLDER = "maps"
"""The folder `dp recalibrate` writes its maps into (under its --out)."""


def map_file(given: Path, system: str) -> Path:
    """The map file of ``system`` under the folder ``given`` (``<system>.json``, else ``maps/<system>.json``)."""
    for candidate in (given / f"{system}.json", given / MAPS_FOLDER / f"{system}.json"):
        if candidate.is_file():
            return candidate
    raise DecisionPivotError(
        f"--recalibration {given}: no map for system {system} (expected {given / f'{system}.json'} or "
        f"{given / MAPS_FOLDER / f'{system}.json'}, written by `dp recalibrate`); gate the systems that have "
        "one with --systems"
    )


def read_maps(given: Path, systems: Sequence[str]) -> dict[str, RecalibrationMap]:
    """System -> its map, from one map file or a folder of them (see the module docstring)."""
    if not given.exists():
        raise DecisionPivotError(f"--recalibration {given}: no such map file or folder")
    if given.is_dir():
        maps = {system: read_map(map_file(given, system)) for system in systems}
    else:
        mapping = read_map(given)
        others = [system for system in systems if system != mapping.system]
        if others:
            raise DecisionPivotError(
                f"--recalibration {given}: a map of system {mapping.system}, but {', '.join(others)} would be gated "
                f"with it; give --systems {mapping.system}, or a folder with one map per system"
            )
        maps = {mapping.system: mapping}
    for system, mapping in maps.items():
        if mapping.system != system:
            raise DecisionPivotError(
                f"{mapping.path}: a map fitted for system {mapping.system}, not {system}: a map recalibrates "
                "only the system it was fitted on"
            )
    return maps


def _fitted_on(mapping: RecalibrationMap) -> dict[str, Any]:
    fitted = mapping.record.get("fitted_on")
    if not isinstance(fitted, dict) or not isinstance(fitted.get("seeds"), list) \
            or not isinstance(fitted.get("draws"), dict):
        raise DecisionPivotError(f"{mapping.path}: no fitted_on seeds and draws (expected a map written by "
                                 "`dp recalibrate`)")
    return fitted


def check_unseen(mapping: RecalibrationMap, draws: Sequence[CalibrationDraw], release_manifest_sha256: str) -> None:
    """Refuse a map fitted on any of the calibration draws (by seed or MANIFEST.json SHA-256) or on the release."""
    fitted = _fitted_on(mapping)
    seeds = {str(seed) for seed in fitted["seeds"]} | {str(seed) for seed in fitted["draws"]}
    manifests = {str(sha): seed for seed, sha in fitted["draws"].items()}
    for draw in draws:
        if str(draw.seed) in seeds or draw.manifest_sha256 in manifests:
            seen = draw.seed if str(draw.seed) in seeds else manifests[draw.manifest_sha256]
            raise DecisionPivotError(
                f"{mapping.path}: fitted on calibration seed {seen}, and seed {draw.seed} ({draw.items}) is "
                "a draw this gating certifies on: a certificate must use draws the map never saw; certify on "
                f"other fresh seeds (the map was fitted on seeds {', '.join(sorted(seeds, key=int))})"
            )
    if release_manifest_sha256 in manifests:
        seen = manifests[release_manifest_sha256]
        raise DecisionPivotError(f"{mapping.path}: fitted on the release items (draw {seen} has the release's "
                                 "MANIFEST.json); a map is fitted on fresh draws only")


def configuration_problem(mapping: RecalibrationMap, family: str, release: str | None) -> str | None:
    """Why the map may not recalibrate this family's answers of configuration ``release`` (None: it may)."""
    recorded = _fitted_on(mapping).get("fingerprints")
    fitted = recorded.get(family) if isinstance(recorded, dict) else None
    if fitted is None:
        return (f"the recalibration map {mapping.path} records no configuration fingerprint of {family} answers "
                "it was fitted on, so it cannot be matched to these answers; re-fit it with `dp recalibrate`")
    if release is not None and fitted != release:
        return (f"the recalibration map {mapping.path} was fitted on answers of configuration {str(fitted)[:12]}, "
                f"the release answers are of configuration {release[:12]}: a map of one configuration says "
                "nothing about another; re-fit it on answers of the release's configuration")
    return None


def recalibrated_family(loaded: LoadedRuns, system: str, family: str, label: str,
                        mapping: RecalibrationMap | None) -> FamilyAnswers | None:
    """:func:`~decisionpivot.gate.calibration.loaded_family` with the map applied to every confidence."""
    answers = loaded_family(loaded, system, family, label)
    if answers is None or mapping is None:
        return answers
    task = loaded.answers[(system, family)]
    layout = next(layout for layout in loaded.core if layout.task == family)
    mapped = recalibrated_confidence(mapping, task.confidence, task.probabilities, layout.option_count)
    return dataclasses.replace(answers, confidence=mapped)


def map_record(mapping: RecalibrationMap) -> dict[str, Any]:
    """What a certificate records of the map it was made with."""
    return {"map": mapping.path.as_posix(), "sha256": mapping.sha256, "method": mapping.method,
            "system": mapping.system, "fitted_on": _fitted_on(mapping),
            "use": "apply this map (`dp recalibrate apply`, or recalibrated_confidence) to every confidence before "
                   "comparing it with the thresholds: they were certified on the recalibrated confidences"}
