"""Writing a recalibration: ``recalibration.json``, ``recalibration.md`` and ``maps/<system>.json``.

Fractions in JSON (rounded to 6 decimals), percent in Markdown; keys sorted, so the bytes depend on the inputs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from decisionpivot import __version__
from decisionpivot.item_origin import modified_items, modified_note
from decisionpivot.items import atomic_write_bytes
from decisionpivot.recalibrate.map_file import SPLIT, map_bytes, map_record
from decisionpivot.recalibrate.maps import TEMPERATURE_RANGE
from decisionpivot.recalibrate.run import MethodResult, Recalibration
from decisionpivot.score.report import markdown_table, markdown_text

DECIMALS = 6


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), DECIMALS) + 0.0


def _result(r: MethodResult) -> dict[str, Any]:
    return {"ece": _number(r.ece), "accuracy_at_90": _number(r.accuracy_at_90), "share_at_90": _number(r.share_at_90),
            "certified_coverage": _number(r.certified_coverage), "thresholds": r.thresholds,
            "held_out_ece": _number(r.held_out_ece)}


def recalibration_record(result: Recalibration) -> dict[str, Any]:
    """The whole of recalibration.json."""
    return {
        "release_items": result.release_items, "target_risk": result.target_risk, "delta": result.delta,
        "split": SPLIT, "package_version": __version__,
        "systems": {s.maps.system: {"recommended": s.recommended, "temperature": s.maps.temperature,
                                    "fitted_items": s.maps.items, "fitted_groups": s.maps.groups,
                                    "seeds": list(s.maps.seeds),
                                    "methods": {r.method: _result(r) for r in s.results}}
                    for s in result.systems},
        **({"modified_items": modified} if (modified := modified_items(result.item_checks)) else {}),
    }


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{100 * value:.1f}"


def recalibration_markdown(result: Recalibration) -> str:
    """recalibration.md: per system and method, the release figures before (none) and after."""
    rows = []
    for s in result.systems:
        for r in s.results:
            bound = " at the search bound: the confidences carry no signal" if (
                s.maps.temperature >= 0.99 * TEMPERATURE_RANGE[1]) else ""
            label = r.method + (f" (T = {s.maps.temperature:g}{bound})" if r.method == "temperature" else "")
            mark = " **recommended**" if r.method == s.recommended else ""
            rows.append([markdown_text(s.maps.system), label + mark,
                         _pct(r.ece), _pct(r.accuracy_at_90), _pct(r.share_at_90), _pct(r.certified_coverage),
                         _pct(r.held_out_ece)])
    return (
        "# Recalibration: is bad calibration fixable?\n\n"
        f"Maps fitted on fresh draws only, measured on the release ({markdown_text(result.release_items)}, never "
        f"fitted on). {SPLIT[0].upper() + SPLIT[1:]}. Certified coverage: mean over families of the release coverage "
        f"at the threshold `dp gate`'s test certifies on the held-out half at risk <= {result.target_risk:g} with "
        f"probability >= {1 - result.delta:g} (0 where none). The recommended map has the lower held-out ECE. "
        "All figures in percent; ECE x100.\n\n"
        + (f"**{note}**\n\n" if (note := modified_note(result.item_checks)) else "")
        + markdown_table(["System", "Map", "ECE", "Acc@0.90", "Share@0.90", "Cert. cov.", "Held-out ECE"], rows))


def write_recalibration(result: Recalibration, out: Path) -> list[Path]:
    """``<out>/recalibration.json``, ``<out>/recalibration.md`` and ``<out>/maps/<system>.json``."""
    files = {
        out / "recalibration.json": (json.dumps(recalibration_record(result), indent=2, sort_keys=True,
                                                allow_nan=False) + "\n").encode("utf-8"),
        out / "recalibration.md": recalibration_markdown(result).encode("utf-8"),
    }
    for s in result.systems:
        files[out / "maps" / f"{s.maps.system}.json"] = map_bytes(map_record(s.maps, s.recommended))
    for path, data in files.items():
        atomic_write_bytes(path, data)
    return list(files)
