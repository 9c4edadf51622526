"""``gate.json`` as `dp gate` writes it, read and checked in one place, and the leaderboard's "Cert. cov." column.

:func:`read_gate_file` is the one validator of the file (the leaderboard, `dp report` and `dp cost` read it through
:func:`read_gate_for`, which also checks it against their items and answers): decisions, fractions in [0, 1], the
release items it was checked on and the configuration fingerprints of the release answers. `dp score --gate
reports/gate.json` puts each system's ``certified_coverage_macro`` (the release coverage at thresholds certified on
fresh draws, averaged over families, 0 where nothing is certified) beside the retrospective C(0.05). The file must
have been made from the runs being scored: a family whose release SHA-256 in gate.json differs from the scored
items file, or whose answers' fingerprint differs from the one gate.json recorded (a re-run after `dp gate`: the
thresholds were checked on other answers), is an error. A system certified on recalibrated confidences (`dp gate
--recalibration`) records its map's SHA-256 (``systems.<system>.recalibration``); the footnote names those systems
and their maps, whose confidences the thresholds hold on (not the system's own).
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping
from pathlib import Path
from typing import Any

from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.score.answers import TaskAnswers

GATE_DECISIONS = ("automate", "do not automate", "refused")
"""The decisions of a gate entry (`dp gate` writes these words)."""
CERTIFIED_HEADING = "Cert. cov."
"""Leaderboard heading of the column."""
CERTIFIED_NOTE = ("Cert. cov.: coverage on these items at confidence thresholds certified by `dp gate` on fresh "
                  "draws (error rate among automated items <= {target:g} with probability >= {confidence:g}), "
                  "mean over families, 0 where no threshold is certified; C(0.05) picks its threshold with "
                  "these items' own labels (reports/gate.md).")
"""Leaderboard footnote of the column."""
RECALIBRATED_NOTE = (" Certified on confidences recalibrated by a `dp recalibrate` map, not the system's own "
                     "(apply the map before the threshold): {maps}.")
"""Added to the footnote when some systems were certified with a map (``system: map SHA-256``, 12 digits)."""


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _fraction(value: Any, where: str) -> None:
    if value is not None and not (_number(value) and 0 <= value <= 1):
        raise DecisionPivotError(f"{where}: expected a fraction in [0, 1] or null, found {value!r}")


def _check_entry(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise DecisionPivotError(f"{where}: expected an object")
    if entry.get("decision") not in GATE_DECISIONS:
        raise DecisionPivotError(f"{where}: 'decision' must be one of {', '.join(GATE_DECISIONS)}, "
                                 f"found {entry.get('decision')!r}")
    for key in ("threshold", "observed_risk", "expected_coverage"):
        _fraction(entry.get(key), f"{where}.{key}")
    release = entry.get("release")
    if release is not None:
        if not isinstance(release, dict):
            raise DecisionPivotError(f"{where}.release: expected an object")
        for key in ("risk", "coverage", "retrospective_coverage"):
            _fraction(release.get(key), f"{where}.release.{key}")


def read_gate_file(path: str | Path) -> dict[str, Any]:
    """``gate.json`` of `dp gate`, checked against its contract; errors name the file and the key."""
    path = Path(path)
    record = read_json_file(path, "the gate.json `dp gate` writes: run `dp gate` first")
    systems = record.get("systems") if isinstance(record, dict) else None
    release = record.get("release") if isinstance(record, dict) else None
    if not isinstance(systems, dict) or not isinstance(release, dict) or not isinstance(release.get("families"), dict):
        raise DecisionPivotError(f"{path}: not a gate.json of `dp gate` (needs 'systems' and 'release' objects)")
    if not (_number(record.get("target_risk")) and _number(record.get("delta"))):
        raise DecisionPivotError(f"{path}: needs numbers 'target_risk' and 'delta'")
    for system, entry in systems.items():
        where = f"{path}: systems.{system}"
        if not isinstance(entry, dict) or not isinstance(entry.get("families", {}), dict):
            raise DecisionPivotError(f"{where}: expected an object with a 'families' object")
        for family, family_entry in entry.get("families", {}).items():
            _check_entry(family_entry, f"{where}.families.{family}")
        if entry.get("pooled") is not None:
            _check_entry(entry["pooled"], f"{where}.pooled")
        for key in ("certified_coverage_macro", "retrospective_coverage_macro"):
            _fraction(entry.get(key), f"{where}.{key}")
        prints = entry.get("fingerprints")
        if prints is not None and not (isinstance(prints, dict) and all(
                value is None or isinstance(value, str) for value in prints.values())):
            raise DecisionPivotError(f"{where}.fingerprints: expected an object of family -> fingerprint or null")
        recalibration = entry.get("recalibration")
        if recalibration is not None and not (isinstance(recalibration, dict)
                                              and isinstance(recalibration.get("sha256"), str)):
            raise DecisionPivotError(f"{where}.recalibration: expected an object with the map's 'sha256'")
    return record


def answer_fingerprint(meta: Mapping[str, Any]) -> str | None:
    """The configuration fingerprint an answer file's ``.meta.json`` records (``dp evaluate`` and the imports
    write it: SHA-256 of the settings that change answers), or None."""
    value = meta.get("fingerprint")
    return value if isinstance(value, str) and value else None


def answer_fingerprints(answers: Mapping[tuple[str, str], TaskAnswers],
                        families: Container[str] | None = None) -> dict[str, dict[str, str | None]]:
    """System -> family -> the configuration fingerprint its answer file's meta records (what `dp gate` kept), for
    the (system, family) answer files in ``answers`` whose family is in ``families`` (default: every one)."""
    prints: dict[str, dict[str, str | None]] = {}
    for (system, family), task_answers in sorted(answers.items()):
        if families is None or family in families:
            prints.setdefault(system, {})[family] = answer_fingerprint(task_answers.meta)
    return prints


def check_fingerprints(path: Path, record: Mapping[str, Any],
                       scored: Mapping[str, Mapping[str, str | None]]) -> None:
    """Refuse a gate.json made from other answers than the scored ones.

    ``scored``: system -> family -> configuration fingerprint of the scored answer file (None: none recorded).
    For every system in both, each family's fingerprint must be the one gate.json recorded for it.
    """
    for system, families in sorted(scored.items()):
        entry = record["systems"].get(system)
        if entry is None:
            continue
        recorded = entry.get("fingerprints")
        if recorded is None:
            raise DecisionPivotError(f"--gate {path}: {system}: no answer fingerprints (made by an older `dp gate`); "
                                     "run `dp gate` again")
        for family in sorted(set(families) | set(recorded)):
            if family in families and recorded.get(family) != families[family]:
                raise DecisionPivotError(
                    f"--gate {path}: {system} {family}: gate.json was made from answers of configuration "
                    f"{str(recorded.get(family))[:12]}, the scored answers are of configuration "
                    f"{str(families[family])[:12]}: the runs changed after `dp gate`; run `dp gate` again"
                )


def read_gate_for(path: str | Path, families: Mapping[str, str],
                  fingerprints: Mapping[str, Mapping[str, str | None]]) -> dict[str, Any]:
    """gate.json read by :func:`read_gate_file` and refused when it was checked on other items or made from other
    answers than the ones at hand; every error starts with ``--gate`` (the flag of each verb that reads it).

    ``families``: family -> SHA-256 of its items file; ``fingerprints``: see :func:`check_fingerprints`.
    `dp score --gate`, `dp report` and `dp cost --gate` read it so: a certificate is used only with what it
    certifies.
    """
    path = Path(path)
    try:
        record = read_gate_file(path)
    except DecisionPivotError as exc:
        raise DecisionPivotError(f"--gate {exc}") from None
    for family, sha256 in sorted(families.items()):
        checked = record["release"]["families"].get(family)
        if checked is not None and checked != sha256:
            raise DecisionPivotError(
                f"--gate {path}: checked on {family} items with SHA-256 {checked}, but the scored items have "
                f"{sha256}; run `dp gate` on these items"
            )
    check_fingerprints(path, record, fingerprints)
    return record


def read_certified(path: str | Path, scored_families: Mapping[str, str],
                   scored_fingerprints: Mapping[str, Mapping[str, str | None]] | None = None,
                   ) -> tuple[dict[str, float | None], str]:
    """(system -> certified coverage as a fraction or None, footnote) from gate.json.

    ``scored_families`` maps each scored family to the SHA-256 of its items file; ``scored_fingerprints``
    each scored system's families to their answers' fingerprints (see :func:`check_fingerprints`).
    """
    record = read_gate_for(path, scored_families, scored_fingerprints or {})
    certified = {system: entry.get("certified_coverage_macro") for system, entry in sorted(record["systems"].items())}
    maps = [f"{system} (map {entry['recalibration']['sha256'][:12]})"
            for system, entry in sorted(record["systems"].items()) if entry.get("recalibration") is not None]
    note = CERTIFIED_NOTE.format(target=record["target_risk"], confidence=1 - record["delta"])
    return ({system: None if value is None else float(value) for system, value in certified.items()},
            note + (RECALIBRATED_NOTE.format(maps=", ".join(maps)) if maps else ""))
