"""Writing a gating: ``gate.json`` (every figure), ``gate.md`` (for reading) and ``gate/<system>.json``
(the thresholds a deploying team drops into its config).

Fractions are in [0, 1] in JSON (percent only in Markdown), rounded to 6 decimals; keys are sorted and
paths are written as given, so the bytes depend on the inputs only. Items read with ``--allow-modified-items``
are stated in each of them (``modified_items`` in the JSON files, a sentence in gate.md and what `dp gate` prints).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from decisionpivot import BENCHMARK_VERSION, __version__
from decisionpivot.gate.calibration import CalibrationDraw
from decisionpivot.gate.method import METHOD, REFERENCE, THRESHOLD_GRID, guarantee_text, percent_text
from decisionpivot.gate.recalibration import map_record
from decisionpivot.gate.run import AUTOMATE, Entry, Gating, SystemGate
from decisionpivot.item_origin import modified_items, modified_note
from decisionpivot.items import atomic_write_bytes
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED
from decisionpivot.score.report import markdown_table, markdown_text

DECIMALS = 6
INTERVALS = ("95% percentile bootstrap over contrast groups, the scorer's resamples (seed "
             f"{BOOTSTRAP_SEED}); the pooled entry resamples each family's groups")
USE = ("Let the system decide alone on an item of a family when its confidence max_o p(o) is at least the "
       "family's threshold; send every other item to a person, and every item of a family marked "
       "'do not automate' or 'refused'. The pooled threshold is one threshold for all listed families.")
OBSERVED_RISK = ("errors / automated among the tested calibration items at the selected threshold, unadjusted for "
                 "the selection (the threshold was chosen because it passed): not a bound")
"""What an entry's observed_risk is (and is not), in gate.json and gate.md."""
OBSERVED_NAME = "Observed risk at threshold, unadjusted"
"""gate.md's name of it (its column heading adds %)."""
TESTED_ITEMS = ("the test sees one member per contrast group (a group kept with probability size / largest "
                "group size, so every item is equally likely); one group in five of those is the pilot that "
                "chooses where the scan starts (pilot_items, never tested), the rest are tested_items")


def _fraction(value: float | None) -> float | None:
    return None if value is None else round(float(value), DECIMALS) + 0.0


def _interval(value: tuple[float, float] | None) -> list[float | None] | None:
    return None if value is None else [_fraction(value[0]), _fraction(value[1])]


def entry_record(entry: Entry) -> dict[str, Any]:
    """One ENTRY of gate.json."""
    certificate = entry.certificate
    check = entry.release
    return {
        "decision": entry.decision,
        "reason": entry.reason,
        "threshold": entry.threshold,
        "observed_risk": _fraction(certificate.observed_risk) if certificate else None,
        "expected_coverage": _fraction(entry.expected_coverage),
        "calibration_items": entry.calibration_items,
        "calibration_groups": entry.calibration_groups,
        "tested_items": certificate.tested_items if certificate else 0,
        "pilot_items": certificate.pilot_items if certificate else 0,
        "start": certificate.start if certificate else None,
        "tested_automated": certificate.accepted if certificate else 0,
        "tested_errors": certificate.errors if certificate else 0,
        "p_value": _fraction(certificate.p_value) if certificate else None,
        "release": None if check is None else {
            "items": check.items,
            "automated": check.automated,
            "errors": check.errors,
            "risk": _fraction(check.risk),
            "risk_ci": _interval(check.risk_ci),
            "coverage": _fraction(check.coverage),
            "coverage_ci": _interval(check.coverage_ci),
            "bound_held": check.bound_held,
            "retrospective_coverage": _fraction(check.retrospective_coverage),
        },
        "release_note": entry.release_note,
        "fingerprint": entry.fingerprint,
    }


def _calibration_records(draws: tuple[CalibrationDraw, ...]) -> list[dict[str, Any]]:
    return [{"seed": d.seed, "items": d.items.as_posix(), "manifest_sha256": d.manifest_sha256,
             "families": dict(sorted(d.families.items()))} for d in draws]


def _gap(system: SystemGate) -> float | None:
    certified, retrospective = system.certified_coverage_macro, system.retrospective_coverage_macro
    return None if certified is None or retrospective is None else retrospective - certified


def _modified(record: dict[str, Any], gating: Gating) -> dict[str, Any]:
    """``record`` with ``modified_items`` (label -> what did not match) when items were read with
    ``--allow-modified-items`` (unchanged otherwise)."""
    modified = modified_items(gating.item_checks)
    return {**record, "modified_items": modified} if modified else record


def _modified_text(gating: Gating) -> str:
    note = modified_note(gating.item_checks)
    return f"**{note}**\n\n" if note else ""


def _recalibrated(record: dict[str, Any], system: SystemGate) -> dict[str, Any]:
    """``record`` with the map the system was certified with (unchanged when certified on its own confidences)."""
    return record if system.recalibration is None else {**record, "recalibration": map_record(system.recalibration)}


def gate_record(gating: Gating) -> dict[str, Any]:
    """The whole of gate.json."""
    s = gating.settings
    return _modified({
        "method": METHOD,
        "reference": REFERENCE,
        "guarantee": guarantee_text(s.target_risk, s.delta, len(gating.release_families)),
        "target_risk": s.target_risk,
        "delta": s.delta,
        "grid": list(THRESHOLD_GRID),
        "tested_items": TESTED_ITEMS,
        "observed_risk": OBSERVED_RISK,
        "fingerprints": "per system: family -> configuration fingerprint (.meta.json) of the release answers "
                        "checked; `dp score --gate` refuses runs whose fingerprints differ",
        "intervals": INTERVALS,
        "resamples": s.resamples,
        "package_version": __version__,
        "calibration": _calibration_records(gating.draws),
        "release": {"items": gating.release_items.as_posix(), "manifest_sha256": gating.release_manifest_sha256,
                    "families": dict(sorted(gating.release_families.items()))},
        "systems": {
            g.system: _recalibrated({
                "families": {family: entry_record(e) for family, e in sorted(g.families.items())},
                "pooled": entry_record(g.pooled),
                "certified_coverage_macro": _fraction(g.certified_coverage_macro),
                "retrospective_coverage_macro": _fraction(g.retrospective_coverage_macro),
                "gap_macro": _fraction(_gap(g)),
                "fingerprints": dict(sorted(g.release_fingerprints.items())),
            }, g)
            for g in gating.systems
        },
    }, gating)


def _deployable(entry: Entry) -> dict[str, Any]:
    return {"decision": entry.decision, "threshold": entry.threshold, "reason": entry.reason,
            "fingerprint": entry.fingerprint, "expected_coverage": _fraction(entry.expected_coverage)}


def system_record(gating: Gating, system: SystemGate) -> dict[str, Any]:
    """``gate/<system>.json``: what a deploying team needs, and what it was certified and checked on."""
    s = gating.settings
    return _modified(_recalibrated({
        "system": system.system,
        "use": USE,
        "guarantee": guarantee_text(s.target_risk, s.delta, len(system.families)),
        "target_risk": s.target_risk,
        "delta": s.delta,
        "method": METHOD,
        "reference": REFERENCE,
        "package_version": __version__,
        "benchmark_version": BENCHMARK_VERSION,
        "calibration": _calibration_records(gating.draws),
        "checked_on": {"items": gating.release_items.as_posix(), "manifest_sha256": gating.release_manifest_sha256,
                       "families": {f: gating.release_families.get(f) for f in sorted(system.families)},
                       "fingerprints": dict(sorted(system.release_fingerprints.items()))},
        "families": {family: _deployable(e) for family, e in sorted(system.families.items())},
        "pooled": _deployable(system.pooled),
    }, system), gating)


def _json(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")


# --------------------------------------------------------------------------------------------- Markdown

DASH = "-"


def _pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}"


def _pct_ci(value: float | None, interval: tuple[float, float] | None) -> str:
    if value is None:
        return DASH
    return _pct(value) if interval is None else f"{_pct(value)} [{_pct(interval[0])}, {_pct(interval[1])}]"


def _held(entry: Entry) -> str:
    if entry.release is None or entry.release.bound_held is None:
        return DASH
    return "yes" if entry.release.bound_held else "**no**"


def _entry_row(name: str, entry: Entry) -> list[str]:
    check = entry.release
    return [
        name,
        entry.decision,
        DASH if entry.threshold is None else f"{entry.threshold:g}",
        _pct(entry.certificate.observed_risk) if entry.certificate and entry.certificate.observed_risk is not None
        else DASH,
        _pct(entry.expected_coverage),
        DASH if check is None else _pct_ci(check.coverage, check.coverage_ci if entry.threshold is not None else None),
        DASH if check is None else _pct_ci(check.risk, check.risk_ci),
        _held(entry),
        DASH if check is None else _pct(check.retrospective_coverage),
    ]


def _summary_table(gating: Gating) -> str:
    target = gating.settings.target_risk
    rows = []
    for g in gating.systems:
        automated = [e for e in g.families.values() if e.decision == AUTOMATE]
        held = [e for e in automated if e.release is not None and e.release.bound_held is not None]
        rows.append([markdown_text(g.system), f"{len(automated)} of {len(g.families)}",
                     _pct(g.certified_coverage_macro), _pct(g.retrospective_coverage_macro), _pct(_gap(g)),
                     g.pooled.decision if g.pooled.threshold is None else f"{g.pooled.threshold:g}",
                     f"{sum(bool(e.release and e.release.bound_held) for e in held)} of {len(held)}"])
    return markdown_table(["System", "Families automated", "Cert. cov. %", f"C({target:g}) %", "Gap",
                   "Pooled threshold", "Bound held"], rows)


def gate_summary(gating: Gating) -> str:
    """The summary table with its heading (what `dp gate` prints)."""
    s = gating.settings
    return (f"Certified automation at risk <= {percent_text(s.target_risk)} with probability >= "
            f"{percent_text(1 - s.delta)}, calibrated on "
            f"seeds {', '.join(str(d.seed) for d in gating.draws)} (details: gate.md)\n\n"
            + _modified_text(gating) + _recalibration_text(gating) + _summary_table(gating))


def _recalibration_text(gating: Gating) -> str:
    """A paragraph naming each system's map (empty when every system was certified on its own confidences)."""
    mapped = [g for g in gating.systems if g.recalibration is not None]
    if not mapped:
        return ""
    names = "; ".join(f"{markdown_text(g.system)}: {markdown_text(g.recalibration.path.as_posix())} "
                      f"({g.recalibration.method}, SHA-256 `{g.recalibration.sha256[:16]}`)"
                      for g in mapped if g.recalibration is not None)
    return (f"**Recalibrated confidences.** Thresholds certified and checked on confidences recalibrated by "
            f"each system's map, fitted on other draws than these: {names}. Apply the same map before "
            "comparing a confidence with a threshold.\n\n")


def gate_markdown(gating: Gating) -> str:
    """gate.md: method, calibration draws, a summary per system and every entry."""
    s = gating.settings
    target = percent_text(s.target_risk)
    text = [
        "# Certified automation (`dp gate`)\n",
        f"**Guarantee.** {guarantee_text(s.target_risk, s.delta, len(gating.release_families))}\n",
        *([_modified_text(gating)] if modified_items(gating.item_checks) else []),
        f"**Method.** {METHOD} ({REFERENCE}). Thresholds tested: {', '.join(f'{t:g}' for t in THRESHOLD_GRID)}. "
        f"{TESTED_ITEMS[0].upper() + TESTED_ITEMS[1:]}. A family without a certified threshold is marked "
        "**do not automate**; one whose calibration answers cover less than 99% of a draw's items, or whose "
        "calibration and release answers come from different configurations (fingerprints), is **refused**. "
        f"{OBSERVED_NAME}: {OBSERVED_RISK}.\n",
        f"**Check on the release** ({gating.release_items.as_posix()}, never used for calibration): coverage and "
        f"error rate at the certified threshold, {INTERVALS}. \"Held\": the release error rate is at most "
        f"{target} (the guarantee is about the expected rate; a single draw scatters around it). "
        f"C({s.target_risk:g}) is the paper's retrospective coverage, chosen with the release labels themselves.\n",
        "## Calibration draws\n",
        markdown_table(["Seed", "Items", "MANIFEST.json SHA-256"],
               [[str(d.seed), d.items.as_posix(), f"`{d.manifest_sha256[:16]}`"] for d in gating.draws]),
        "## Summary\n",
        f"Cert. cov.: mean over the system's families of the release coverage at the certified threshold (0 where "
        f"not automated); C({s.target_risk:g}): the retrospective coverage over the same families; the gap is how "
        "optimistic the retrospective figure is (percentage points).\n",
    ]
    text.append(_recalibration_text(gating) + _summary_table(gating))
    header = ["Family", "Decision", "Threshold", f"{OBSERVED_NAME} %", "Exp. cov. %", "Release cov. % [95%]",
              "Release risk % [95%]", "Held", f"C({s.target_risk:g}) %"]
    for g in gating.systems:
        text.append(f"\n## {markdown_text(g.system)}\n")
        rows = [_entry_row(family, e) for family, e in sorted(g.families.items())]
        rows.append(_entry_row("pooled", g.pooled))
        text.append(markdown_table(header, rows))
        notes = [f"- {name}: {e.reason}" for name, e in [*sorted(g.families.items()), ("pooled", g.pooled)]
                 if e.reason]
        notes += [f"- {name}: {e.release_note}" for name, e in sorted(g.families.items()) if e.release_note]
        if notes:
            text.append("\n" + "\n".join(notes) + "\n")
    return "\n".join(text)


def write_gate(gating: Gating, out: Path) -> list[Path]:
    """``<out>/gate.json``, ``<out>/gate.md`` and ``<out>/gate/<system>.json``; returns the paths written."""
    files: dict[Path, bytes] = {
        out / "gate.json": _json(gate_record(gating)),
        out / "gate.md": gate_markdown(gating).encode("utf-8"),
    }
    for system in gating.systems:
        files[out / "gate" / f"{system.system}.json"] = _json(system_record(gating, system))
    for path, data in files.items():
        atomic_write_bytes(path, data)
    for stale in sorted((out / "gate").glob("*.json")):
        if stale not in files:  # a system no longer gated: its thresholds must not linger
            stale.unlink()
    return list(files)
