"""Pages of what the runner and the other stages recorded: how each system ran, stability, certified automation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from decisionpivot.report.facts import PARTIAL_LABEL, SystemFacts, latency_text, ranked_systems, system_facts
from decisionpivot.report.html import (
    DASH,
    Cell,
    Table,
    badge,
    esc,
    interval,
    notes,
    number,
    paragraph,
    section,
    sort_key,
    system_link,
    text_cell,
)
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.report.system_pages import (
    GATE_HEADINGS,
    PARTIAL_HEADINGS,
    ROBUSTNESS_HEADINGS,
    gate_rows,
    partial_cells,
    robustness_cells,
)


def runs_body(inputs: ReportInputs, facts: dict[str, SystemFacts]) -> str:
    headings = ["System", "Kind", "Readout", "Families", "Failed", "Errors", "Input restr.", "p50 / p95 s @ limit",
                "$/1k", "Mean tokens", "Closed %", "Partial runs"]
    rows = []
    for system in ranked_systems(inputs):
        f = facts[system]
        ops = inputs.operations(system)
        files = inputs.answer_files(system)
        tokens = [a["mean_tokens"] for a in files if a.get("mean_tokens") is not None]
        closed = [a["closed_share"] for a in files if a.get("closed_share") is not None]
        rows.append([Cell(system_link(system, ""), sort=system, header=True), text_cell(f.kind),
                     text_cell(ops.get("readout", DASH)),
                     Cell(f"{f.core_families} of {len(inputs.families)}", sort=str(f.core_families), cls="num"),
                     Cell(str(f.failed), sort=str(f.failed), cls="num"), Cell(str(f.errors), sort=str(f.errors),
                                                                              cls="num"),
                     Cell(str(f.restricted), sort=str(f.restricted), cls="num"),
                     Cell(latency_text(inputs, f), sort=sort_key(ops.get("latency_p50_s")), cls="num"),
                     Cell(number(ops.get("cost_per_1000"), 4), sort=sort_key(ops.get("cost_per_1000")), cls="num"),
                     Cell(number(sum(tokens) / len(tokens)) if tokens else DASH, cls="num"),
                     Cell(number(100 * sum(closed) / len(closed)) if closed else DASH, cls="num"),
                     Cell(badge(PARTIAL_LABEL, "partial") + " " + esc(", ".join(f.partial_tasks))
                          if f.partial_tasks else DASH)])
    out = [paragraph("How every system ran, from its answer files and their meta files: the readout (how answers "
                     "were read), failed predictions (counted as incorrect), input restrictions, request latency at "
                     "the in-flight limit it was measured under, cost per 1,000 decisions, reasoning tokens and the "
                     "share of replies the model closed itself (where recorded). Mean tokens and closed share are "
                     "means of the per-task means."),
           Table("How each system ran", headings, rows, sortable=True).render()]
    robustness = [r for r in inputs.robustness() if r.get("task") == "macro"]
    if robustness:
        body = [[Cell(system_link(r["system"], ""), sort=r["system"], header=True), *robustness_cells(r)]
                for r in robustness]
        out.append(section("Option-order robustness", paragraph(
            "Macro over the families with permuted runs (per family on each system's page): accuracy in the official "
            "option order and the mean over K seeded re-orderings, and the share of answers that change.")
            + Table("Accuracy under permuted options (macro)", ["System", *ROBUSTNESS_HEADINGS], body,
                    sortable=True).render(),
            "robustness"))
    if inputs.partial:
        body = [[Cell(system_link(str(r["system"]), ""), sort=str(r["system"]), header=True), text_cell(r["task"]),
                 *partial_cells(r)] for r in inputs.partial]
        out.append(section(f"Partial runs ({PARTIAL_LABEL})", paragraph(
            "Tasks below the 99% of items a result needs, scored on their answered items only by <code>dp score "
            "--partial</code>: a quick check, never a result.")
            + Table(f"Partial scores ({PARTIAL_LABEL})", ["System", "Task", *PARTIAL_HEADINGS], body,
                    sortable=True).render(),
            "partial"))
    exclusions = [x for x in inputs.scoring.get("exclusions", []) if x.get("reason") != "no answer file"]
    if exclusions:
        out.append(section("Excluded tasks", notes([f"{esc(x['system'])} / {esc(x['task'])}: {esc(x['reason'])}"
                                                    for x in exclusions]), "excluded"))
    return "".join(out)


def stability_body(inputs: ReportInputs) -> str:
    out = [paragraph("From <code>dp stability</code>: do rankings and scores survive a revision of the items or a "
                     "fresh draw? Spearman's rho of macro pair accuracy with its bootstrap interval, each system's "
                     "change B - A (matched resamples for paired item sets, independent otherwise) and, for two runs "
                     "on identical items, the share of answers that changed.")]
    for i, result in enumerate(inputs.stability):
        r = result.record
        rho_ci = r.get("rho_ci") or [None, None]
        summary = paragraph(
            f"Resampling: <strong>{esc(r.get('resampling'))}</strong>; {len(r.get('systems', []))} systems; "
            f"Spearman rho <strong>{interval(r.get('rho'), rho_ci[0], rho_ci[1], 3)}</strong>; score-change "
            f"intervals including zero: <strong>{esc(r.get('intervals_including_zero'))} of "
            f"{len(r.get('changes', []))}</strong> ({esc(r.get('resamples'))} resamples; from {esc(result.path)}).")
        rows = [[Cell(system_link(c["system"], ""), sort=c["system"], header=True),
                 Cell(number(c.get("score_a")), cls="num", sort=sort_key(c.get("score_a"))),
                 Cell(number(c.get("score_b")), cls="num", sort=sort_key(c.get("score_b"))),
                 Cell(interval(c.get("change"), c.get("ci_low"), c.get("ci_high")), cls="num",
                      sort=sort_key(c.get("change"))),
                 text_cell("yes" if c.get("includes_zero") else "no"),
                 Cell(number((r.get("churn") or {}).get(c["system"])), cls="num")]
                for c in r.get("changes", [])]
        table = Table(f"{r.get('a')} (A) vs {r.get('b')} (B)", ["System", "A", "B", "B - A [95% CI]",
                                                                 "Includes 0", "Changed answers %"], rows,
                      sortable=True)
        reasoning = r.get("reasoning") or []
        extra = ""
        if reasoning:
            extra = Table("Reasoning: mean output tokens and closed replies (the paper's Table D5)",
                          ["System", "Side", "Subset", "Items", "Mean output tokens", "Closed %"],
                          [[text_cell(x["system"], header=True), text_cell(x["side"]), text_cell(x["subset"]),
                            Cell(str(x["items"]), cls="num"), Cell(number(x.get("mean_output_tokens")), cls="num"),
                            Cell(number(x.get("closed_share")), cls="num")] for x in reasoning]).render()
        out.append(section(f"{r.get('a')} \u2192 {r.get('b')}", summary + table.render() + extra, f"stability-{i}"))
    return "".join(out)


def gate_order(inputs: ReportInputs) -> list[tuple[str, Mapping[str, Any]]]:
    """The gated systems as the leaderboard lists them: systems scored on every core family first, in rank order,
    then the rest (family heuristics, partial runs), then systems the scores do not know, by name."""
    gated = dict((inputs.gate or {}).get("systems") or {})
    ranked = [s for s in ranked_systems(inputs) if s in gated]
    full = [s for s in ranked if system_facts(inputs, s).full_core]
    order = full + [s for s in ranked if s not in full] + sorted(s for s in gated if s not in ranked)
    return [(s, gated[s]) for s in order]


def gate_body(inputs: ReportInputs) -> str:
    gate = inputs.gate or {}
    calibration = gate.get("calibration") or []
    draws = [c for c in calibration if isinstance(c, dict)]
    seeds = (f"seed{'s' if len(draws) > 1 else ''} {', '.join(esc(c.get('seed')) for c in draws)}; items in "
             f"{', '.join(esc(c.get('items')) for c in draws)}") if draws else ""
    target = number(100 * float(gate.get("target_risk") or 0))
    intro = paragraph(
        f"From <code>dp gate</code>: per system and family, a confidence threshold certified on fresh calibration "
        f"draws ({seeds or 'not recorded'}) to keep the risk at or under {target}% with probability 1 - "
        f"{esc(gate.get('delta'))} (method: {esc(gate.get('method'))}; reference "
        f"{esc(gate.get('reference'))}), then checked on the release items. The certified coverage sits next to the "
        "retrospective C(0.05), which was chosen on the very items it is measured on.")
    systems = gate_order(inputs)
    rows = []
    for system, entry in systems:
        certified, retrospective = entry.get("certified_coverage_macro"), entry.get("retrospective_coverage_macro")
        decisions = [e.get("decision") for e in (entry.get("families") or {}).values() if isinstance(e, dict)]
        rows.append([Cell(system_link(system, ""), sort=system, header=True),
                     Cell(number(None if certified is None else 100 * certified), cls="num",
                          sort=sort_key(None if certified is None else 100 * certified)),
                     Cell(number(None if retrospective is None else 100 * retrospective), cls="num",
                          sort=sort_key(None if retrospective is None else 100 * retrospective)),
                     Cell(str(decisions.count("automate")), cls="num"),
                     Cell(str(decisions.count("do not automate")), cls="num"),
                     Cell(str(decisions.count("refused")), cls="num")])
    out = intro + Table("Certified against retrospective coverage (family-macro, %)",
                        ["System", "Certified coverage", "Retrospective C(0.05)", "Automate", "Do not automate",
                         "Refused"], rows, sortable=True).render()
    for system, entry in systems:
        families = dict(entry.get("families") or {})
        if entry.get("pooled") is not None:
            families["pooled"] = entry["pooled"]
        out += section(system, Table(f"Gate decisions for {system}", GATE_HEADINGS, gate_rows(families)).render(),
                       f"gate-{system}")
    return out
