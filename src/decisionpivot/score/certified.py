"""The leaderboard's "Cert. cov." column: certified coverage read from `dp gate`'s ``gate.json``.

`dp score --gate reports/gate.json` puts each system's ``certified_coverage_macro`` (the release
coverage at thresholds certified on fresh draws, averaged over families, 0 where nothing is
certified) beside the retrospective C(0.05). The file must have been checked on the items being
scored: a family whose release SHA-256 in gate.json differs from the scored items file is an error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError

CERTIFIED_HEADING = "Cert. cov."
"""Leaderboard heading of the column."""
CERTIFIED_NOTE = ("Cert. cov.: coverage on these items at confidence thresholds certified by `dp gate` on fresh "
                  "draws (error rate among automated items <= {target:g} with probability >= {confidence:g}), "
                  "mean over families, 0 where no threshold is certified; C(0.05) picks its threshold with "
                  "these items' own labels (reports/gate.md).")
"""Leaderboard footnote of the column."""


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def read_certified(path: str | Path, scored_families: Mapping[str, str]) -> tuple[dict[str, float | None], str]:
    """(system -> certified coverage as a fraction or None, footnote) from gate.json.

    ``scored_families`` maps each scored family to the SHA-256 of its items file.
    """
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DecisionPivotError(f"--gate {path}: no such file (run `dp gate` first)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DecisionPivotError(f"--gate {path}: not valid JSON ({exc})") from None
    systems = record.get("systems") if isinstance(record, dict) else None
    release = record.get("release") if isinstance(record, dict) else None
    if not isinstance(systems, dict) or not isinstance(release, dict) or not isinstance(release.get("families"), dict):
        raise DecisionPivotError(f"--gate {path}: not a gate.json of `dp gate` (needs 'systems' and 'release')")
    for family, sha256 in sorted(scored_families.items()):
        checked = release["families"].get(family)
        if checked is not None and checked != sha256:
            raise DecisionPivotError(
                f"--gate {path}: checked on {family} items with SHA-256 {checked}, but the scored items have "
                f"{sha256}; run `dp gate` on these items"
            )
    certified: dict[str, float | None] = {}
    for system, entry in sorted(systems.items()):
        value = entry.get("certified_coverage_macro") if isinstance(entry, dict) else None
        if value is not None and not (_number(value) and 0 <= value <= 1):
            raise DecisionPivotError(f"--gate {path}: {system}: certified_coverage_macro must be a fraction in "
                                     f"[0, 1] or null, found {value!r}")
        certified[system] = None if value is None else float(value)
    target, delta = record.get("target_risk"), record.get("delta")
    if not (_number(target) and _number(delta)):
        raise DecisionPivotError(f"--gate {path}: needs numbers 'target_risk' and 'delta'")
    return certified, CERTIFIED_NOTE.format(target=target, confidence=1 - delta)
