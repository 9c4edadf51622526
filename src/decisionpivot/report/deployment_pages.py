"""``deployment.html``: from scores to a deployment decision, read from what the deployment verbs wrote under the
reports folder (each part shown when its file is there):

* ``compare/compare.json`` (``dp compare --baseline --candidate``): the verdict per family and every worse
  group, linked into the group browser (``groups.html#family=F&item=ID`` opens the group of that item);
* ``recalibrate/recalibration.json`` (``dp recalibrate``): ECE, accuracy at 0.90 and certified coverage before
  and after;
* ``cost/cost.json`` and ``cost/figures/cost-<system>.svg`` (``dp cost``): the cost per 1,000 decisions at the
  minimum-cost and the certified thresholds, and each system's curve;
* ``monitor/monitor.json`` (``dp monitor``): realised risk and coverage on the team's traffic.

The numbers are the files' own (no figure is recomputed here).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.report.html import Cell, Table, esc, notes, number, paragraph, section, text_cell

DEPLOYMENT_FILES: dict[str, str] = {
    "compare": "compare/compare.json",
    "recalibrate": "recalibrate/recalibration.json",
    "cost": "cost/cost.json",
    "monitor": "monitor/monitor.json",
}
"""Part -> its file under the reports folder."""
PAGE = "deployment.html"


def read_deployment(reports: Path) -> dict[str, Any]:
    """Part -> the JSON record, for the parts whose file is under ``reports``."""
    found: dict[str, Any] = {}
    for part, name in DEPLOYMENT_FILES.items():
        path = reports / name
        if not path.is_file():
            continue
        record = read_json_file(path, "a report of the deployment verbs")
        if not isinstance(record, dict):
            raise DecisionPivotError(f"{path}: expected a JSON object")
        found[part] = record
    return found


def cost_figures(reports: Path, deployment: Mapping[str, Any]) -> dict[str, str]:
    """System -> the SVG text of its cost figure, for the systems cost.json lists (figures that are there)."""
    if "cost" not in deployment:
        return {}
    out = {}
    for system in sorted(deployment["cost"].get("systems") or {}):
        path = reports / "cost" / "figures" / f"cost-{system}.svg"
        if path.is_file():
            out[system] = path.read_text(encoding="utf-8")
    return out


def _pct(value: Any) -> str:
    return number(None if value is None else 100 * float(value))


def group_link(family: str, item: str, label: str) -> str:
    """A link into the group browser opening the group of ``item``."""
    return f'<a href="groups.html#family={esc(family)}&amp;item={esc(item)}">{esc(label)}</a>'


def _compare(record: Mapping[str, Any]) -> str:
    families = record.get("families") or {}
    rows = []
    for name, f in [*families.items(), ("overall", record.get("overall") or {})]:
        rows.append([text_cell(name, header=True), Cell(esc(f.get("groups_better")), cls="num"),
                     Cell(esc(f.get("groups_worse")), cls="num"), Cell(esc(f.get("groups_fixed")), cls="num"),
                     Cell(esc(f.get("groups_broken")), cls="num"), Cell(esc(f.get("items_fixed")), cls="num"),
                     Cell(esc(f.get("items_broken")), cls="num"),
                     Cell(number(f.get("item_difference")), cls="num"), Cell(number(f.get("difference")), cls="num"),
                     Cell(esc(f"{f.get('p_holm'):.3g}") if f.get("p_holm") is not None else "-", cls="num"),
                     text_cell("worse" if f.get("worse") else "")])
    table = Table("Candidate against baseline per family", ["Family", "Better", "Worse", "Groups fixed",
                  "Groups broken", "Items fixed", "Items broken", "Item acc. change", "Pair acc. change",
                  "p (Holm)", ""], rows).render()
    not_compared = ", ".join(map(str, record.get("not_compared") or []))
    verdict = ("fails: significantly worse on " + ", ".join(n for n, f in families.items() if f.get("worse"))
               if record.get("failed") else
               f"cannot pass: {not_compared} could not be compared" if record.get("verdict") == "cannot pass"
               else "passes: not significantly worse on any family")
    intro = paragraph(f"<code>dp compare --baseline {esc(record.get('baseline'))} --candidate "
                      f"{esc(record.get('candidate'))}</code> {esc(verdict)} ({esc(record.get('test'))}; alpha "
                      f"{esc(record.get('alpha'))}).")
    worse = [group_link(name, g.get("first_item", ""), f"{name} {g.get('group')}")
             + esc(f": {', '.join(g.get('changed_items') or [])}")
             + (" (was solved)" if g.get("solved_changed") else "")
             for name, f in families.items() for g in f.get("broken") or []]
    listing = (section(f"Worse groups ({len(worse)}), each opened in the group browser", notes(worse), level=3)
               if worse else paragraph("No group got worse."))
    return section("Upgrade check (dp compare)", intro + table + listing, "compare")


def _recalibrate(record: Mapping[str, Any]) -> str:
    rows = []
    for system, s in (record.get("systems") or {}).items():
        for method, r in (s.get("methods") or {}).items():
            rows.append([text_cell(system, header=True),
                         text_cell(method + (" (recommended)" if method == s.get("recommended") else "")),
                         Cell(_pct(r.get("ece")), cls="num"), Cell(_pct(r.get("accuracy_at_90")), cls="num"),
                         Cell(_pct(r.get("share_at_90")), cls="num"),
                         Cell(_pct(r.get("certified_coverage")), cls="num")])
    intro = paragraph("<code>dp recalibrate</code>: maps fitted on fresh draws only, measured on the release; "
                      f"{esc(record.get('split'))}. Percent; ECE x100.")
    return section("Recalibration (dp recalibrate)", intro + Table(
        "Before (none) and after recalibration", ["System", "Map", "ECE", "Acc@0.90", "Share@0.90", "Cert. cov."],
        rows).render(), "recalibrate")


def _threshold(value: Any) -> str:
    return "-" if value is None else esc(value if isinstance(value, str) else f"{value:g}")


def _cost(record: Mapping[str, Any], figures: Mapping[str, str]) -> str:
    rows = []
    for system, families in (record.get("systems") or {}).items():
        for family, e in families.items():
            rows.append([text_cell(system, header=True), text_cell(family),
                         Cell(_threshold(e.get("minimum_threshold"))),
                         Cell(number(e.get("minimum_cost")), cls="num"),
                         Cell(_threshold(e.get("certified_threshold"))),
                         Cell(number(e.get("certified_cost")), cls="num"),
                         Cell(number(e.get("escalate_all_cost")), cls="num"),
                         Cell(number(e.get("automate_all_cost")), cls="num")])
    images = "".join(f'<figure><img src="figures/cost/{esc(system)}.svg" alt="Cost per 1,000 decisions of '
                     f'{esc(system)} against the confidence threshold"></figure>' for system in figures)
    return section("What automation costs (dp cost)", paragraph(esc(record.get("meaning"))) + Table(
        "Cost per 1,000 decisions", ["System", "Family", "Min-cost threshold", "Min cost", "Certified threshold",
                                     "Cost at certified", "Escalate all", "Automate all"], rows).render() + images,
        "cost")


def _monitor(record: Mapping[str, Any]) -> str:
    rows = [[text_cell(family, header=True), Cell(esc(e.get("items")), cls="num"), Cell(_threshold(e.get("threshold"))),
             Cell(esc(e.get("automated")), cls="num"), Cell(_pct(e.get("risk")), cls="num"),
             Cell(_pct(e.get("coverage")), cls="num"), text_cell("exceeded" if e.get("exceeded") else "holds")]
            for family, e in (record.get("families") or {}).items()]
    intro = paragraph(f"<code>dp monitor</code> of {esc(record.get('system'))} on {esc(record.get('sample'))} against "
                      f"{esc(record.get('certificate'))}: certified risk {_pct(record.get('target_risk'))}%; "
                      f"{esc(record.get('intervals'))}.")
    return section("After deployment (dp monitor)", intro + Table(
        "Realised risk and coverage on labelled traffic", ["Family", "Items", "Threshold", "Automated", "Risk %",
                                                           "Coverage %", ""], rows).render(), "monitor")


def deployment_body(deployment: Mapping[str, Any], figures: Mapping[str, str]) -> str:
    """The page: one section per part present, in the order a deployment is decided."""
    parts = [paragraph("From the leaderboard to a deployed threshold and its monitoring: whether an upgrade breaks "
                       "what worked, whether calibration is fixable, what automation costs, and whether the "
                       "certificate still holds on the team's own traffic.")]
    if "compare" in deployment:
        parts.append(_compare(deployment["compare"]))
    if "recalibrate" in deployment:
        parts.append(_recalibrate(deployment["recalibrate"]))
    if "cost" in deployment:
        parts.append(_cost(deployment["cost"], figures))
    if "monitor" in deployment:
        parts.append(_monitor(deployment["monitor"]))
    return "".join(parts)
