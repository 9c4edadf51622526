"""Writing the cost curves: ``cost.json``, ``cost.md`` and ``figures/cost-<system>.svg``.

The figure is drawn with the site's SVG helpers (:mod:`decisionpivot.report.svg`): cost per 1,000 decisions
against the threshold, one line per family and the pooled curve bold, the minimum-cost threshold as a dot and
the certified threshold as a ring.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from decisionpivot import __version__
from decisionpivot.cost.run import POOLED, CostEntry
from decisionpivot.item_origin import modified_items, modified_note
from decisionpivot.items import atomic_write_bytes
from decisionpivot.report.svg import Frame, axes, canvas, esc, fmt, path_data
from decisionpivot.score.report import markdown_table, markdown_text

MEANING = ("expected cost per 1,000 decisions = 1000 x (share automated and wrong x cost per wrong decision + share "
           "escalated x cost per escalated item); automated: confidence max_o p(o) >= threshold. The minimum-cost "
           "threshold is chosen with the same answers' labels (retrospective); the certified one comes from "
           "`dp gate` (fresh draws).")


def _threshold(value: float | None) -> Any:
    if value is None:
        return None
    return "escalate all" if math.isinf(value) else round(value, 6)


def _cost(value: float | None) -> float | None:
    return None if value is None else round(value, 6) + 0.0


def entry_record(e: CostEntry) -> dict[str, Any]:
    """One entry of cost.json (the curve itself is in the figure; its end points are here)."""
    return {"items": e.items, "cost_wrong": e.prices[0], "cost_escalated": e.prices[1],
            "minimum_threshold": _threshold(e.minimum_threshold), "minimum_cost": _cost(e.minimum_cost),
            "certified_threshold": _threshold(e.certified_threshold), "certified_cost": _cost(e.certified_cost),
            "escalate_all_cost": _cost(float(e.costs[0])), "automate_all_cost": _cost(e.automate_all_cost),
            "curve_points": int(e.thresholds.size),
            **({MODIFIED_KEY: modified[e.family]} if (modified := modified_items([(e.family, e.items_check)])) else {})}


MODIFIED_KEY = "modified_items"
"""Key an entry of cost.json gains when its items were read with ``--allow-modified-items``: what did not match."""


def _modified_note(entries: Sequence[CostEntry]) -> str | None:
    return modified_note((e.family, e.items_check) for e in entries)


def cost_record(entries: Sequence[CostEntry], gate: str | None) -> dict[str, Any]:
    systems: dict[str, dict[str, Any]] = {}
    for e in entries:
        systems.setdefault(e.system, {})[e.family] = entry_record(e)
    return {"meaning": MEANING, "gate": gate, "package_version": __version__, "systems": systems}


def _show_threshold(value: float | None) -> str:
    if value is None:
        return "-"
    return "escalate all" if math.isinf(value) else f"{value:.4g}"


def cost_markdown(entries: Sequence[CostEntry], gate: str | None) -> str:
    rows = []
    for e in entries:
        extra = "-" if e.certified_cost is None else f"{e.certified_cost - e.minimum_cost:+.1f}"
        rows.append([markdown_text(e.system), e.family, str(e.items), f"{e.prices[0]:g} / {e.prices[1]:g}",
                     _show_threshold(e.minimum_threshold), f"{e.minimum_cost:.1f}",
                     "do not automate" if e.certified_cost is not None and e.certified_threshold is None
                     else _show_threshold(e.certified_threshold),
                     "-" if e.certified_cost is None else f"{e.certified_cost:.1f}", extra,
                     f"{float(e.costs[0]):.1f}", f"{e.automate_all_cost:.1f}"])
    source = f"certified thresholds from {markdown_text(gate)}" if gate else "no gate.json given (no certified column)"
    missing = [f"{e.system} {e.family}" for e in entries if e.certified_cost is None]
    if gate and missing:
        source += f"; not in it, so without a certified threshold: {markdown_text(', '.join(missing))}"
    note = _modified_note(entries)
    return ("# What automation costs\n\n" + MEANING[0].upper() + MEANING[1:] + f" {source[0].upper() + source[1:]}.\n\n"
            + (f"**{note}**\n\n" if note else "")
            + markdown_table(["System", "Family", "Items", "Cost wrong / escalated", "Min-cost threshold",
                              "Min cost /1k", "Certified threshold", "Cost at certified /1k", "Above min",
                              "Escalate all /1k", "Automate all /1k"], rows))


def cost_chart(entries: Sequence[CostEntry], system: str) -> str:
    """The SVG of one system's curves (thresholds above 1 drawn at 1: the escalate-everything end)."""
    own = [e for e in entries if e.system == system]
    top = max(max(float(e.costs.max()) for e in own), 1e-9)
    frame = Frame(460.0, 300.0, 56.0, 10.0, 12.0, 34.0, (0.0, 1.0), (0.0, top * 1.05))
    ticks = [round(top * k / 4, 1) for k in range(5)]
    body = axes(frame, [0, 0.25, 0.5, 0.75, 1], ticks, "confidence threshold", "cost per 1,000 decisions",
                "{:g}", "{:g}")
    for e in own:
        points = [(frame.x(min(float(t), 1.0)), frame.y(float(c))) for t, c in zip(e.thresholds, e.costs, strict=True)]
        points.append((frame.x(0.0), frame.y(e.automate_all_cost)))
        bold = ' stroke-width="2.5"' if e.family == POOLED else ""
        body.append(f'<g class="curve" data-system="{esc(e.family)}" data-tip="{esc(e.family)}: minimum '
                    f'{e.minimum_cost:.1f} at {esc(_show_threshold(e.minimum_threshold))}">'
                    f'<path d="{path_data(points)}"{bold}/>')
        body.append(f'<circle class="c05" cx="{fmt(frame.x(min(e.minimum_threshold, 1.0)))}" '
                    f'cy="{fmt(frame.y(e.minimum_cost))}" r="3"/>')
        if e.certified_cost is not None:
            x = 1.0 if e.certified_threshold is None else e.certified_threshold
            body.append(f'<circle class="certified" cx="{fmt(frame.x(x))}" cy="{fmt(frame.y(e.certified_cost))}" '
                        'r="5" fill="none" stroke="currentColor"/>')
        body.append("</g>")
    families = ", ".join(e.family for e in own)
    note = _modified_note(own)
    return canvas(frame, f"cost-{system}", f"Cost per 1,000 decisions: {system}",
                  f"Expected cost per 1,000 decisions of {system} against the confidence threshold for {families}; "
                  "dots mark each curve's minimum, rings the certified threshold." + (f" {note}" if note else ""), body)


def write_cost(entries: Sequence[CostEntry], out: Path, gate: str | None) -> list[Path]:
    files = {
        out / "cost.json": (json.dumps(cost_record(entries, gate), indent=2, sort_keys=True, allow_nan=False)
                            + "\n").encode("utf-8"),
        out / "cost.md": cost_markdown(entries, gate).encode("utf-8"),
    }
    for system in sorted({e.system for e in entries}):
        files[out / "figures" / f"cost-{system}.svg"] = (cost_chart(entries, system) + "\n").encode("utf-8")
    for path, data in files.items():
        atomic_write_bytes(path, data)
    return list(files)
