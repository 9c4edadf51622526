"""One page per system: families, levels, confidence, coverage, errors, how it ran, and whatever else was
recorded for it (option-order robustness, partial runs, stability, certified automation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from decisionpivot.report.facts import PARTIAL_LABEL, SystemFacts, latency_text, system_notes
from decisionpivot.report.family_pages import FAMILY_COLUMNS, curve_of
from decisionpivot.report.html import (
    DASH,
    Cell,
    Table,
    badge,
    esc,
    family_link,
    interval,
    notes,
    number,
    paragraph,
    section,
    sort_key,
    text_cell,
)
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.report.overview import binary_pairs, reliability_of, score_cell
from decisionpivot.report.svg import IntervalRow, interval_chart, risk_coverage_chart
from decisionpivot.score.core import CHANCE_METRIC
from decisionpivot.score.reference import SCORE
from decisionpivot.score.results import CORE, MACRO, REFERENCE, UNIFORM_GUESS

HEADLINE = (*FAMILY_COLUMNS,)


def _headline(inputs: ReportInputs, system: str) -> str:
    rows = [[text_cell(heading, header=True), score_cell(inputs, system, CORE, MACRO, metric)]
            for metric, heading in HEADLINE if inputs.get(system, CORE, MACRO, metric) is not None]
    overall = inputs.get(system, REFERENCE, MACRO, SCORE)
    if overall is not None:
        rows.append([text_cell("Reference score", header=True),
                     Cell(interval(overall.value, overall.ci_low, overall.ci_high)
                          + f' <span class="ci">({overall.n} of 7 layers)</span>', cls="num")])
    return Table("Core headline (macro over the scored families; ECE and the 0.90 figures pooled)",
                 ["Metric", "Value [95% CI]"], rows).render() if rows else paragraph("No core family scored.")


def _families(inputs: ReportInputs, system: str) -> str:
    root = "../"
    families = inputs.families
    rows = []
    for family in families:
        score = inputs.get(system, CORE, family, "pair_accuracy")
        item = inputs.get(system, CORE, family, "item_accuracy")
        chance = inputs.get(UNIFORM_GUESS, CORE, family, CHANCE_METRIC)
        rows.append(IntervalRow(family, score.value if score else None, score.ci_low if score else None,
                                score.ci_high if score else None, chance.value if chance else None,
                                f"{family}: pair accuracy {number(score.value if score else None)}, item accuracy "
                                f"{number(item.value if item else None)}"))
    scored = sum(r.value is not None for r in rows)
    chart = interval_chart(rows, "fam", f"Pair accuracy of {system} by family",
                           f"Pair accuracy of {system} on {scored} of {len(families)} families with 95% intervals; "
                           "each tick is uniform guessing on that family.", "pair accuracy (%)")
    table_rows = [[Cell(family_link(f, root), sort=f, header=True),
                   *[score_cell(inputs, system, CORE, f, m) for m, _ in FAMILY_COLUMNS]] for f in families]
    table = Table(f"Core metrics of {system} by family", ["Family", *[h for _, h in FAMILY_COLUMNS]], table_rows,
                  sortable=True)
    return section("Families", f"<figure>{chart}</figure>" + table.render(), "families")


def _levels(inputs: ReportInputs, system: str) -> str:
    macro_rows = [[text_cell(metric.replace("_", " "), header=True),
                   *[score_cell(inputs, system, CORE, MACRO, metric, level) for level in (1, 2, 3, None)]]
                  for metric in ("pair_accuracy", "item_accuracy", "pair_direction", "coverage_at_5")]
    per_family = [[Cell(family_link(f, "../"), sort=f, header=True),
                   *[score_cell(inputs, system, CORE, f, "pair_accuracy", level) for level in (1, 2, 3)]]
                  for f in inputs.scored_families(system)]
    return section("Levels", Table("Macro over families by level", ["Metric", "Level 1", "Level 2", "Level 3", "All"],
                                   macro_rows).render()
                   + Table("Pair accuracy by family and level", ["Family", "Level 1", "Level 2", "Level 3"],
                           per_family, sortable=True).render(), "levels")


def _confidence(inputs: ReportInputs, system: str, scatter: str | None) -> str:
    parts = [f"<figure>{reliability_of(inputs, system, 'rel')}</figure>"]
    minus, plus = binary_pairs(inputs, system)
    if scatter is not None and plus.size:
        share = 100 * float(np.mean(plus > minus))
        parts.append(f'<figure><img src="{esc(scatter)}" width="260" height="250" alt="Pair direction of '
                     f"{esc(system)}: p(yes) on the yes member against the no member for {plus.size} binary pairs; "
                     f'{share:.1f}% above the diagonal."><figcaption>Pair direction, pooled over {plus.size} binary '
                     "pairs</figcaption></figure>")
    text = paragraph("Left: accuracy per confidence bin (15 bins, pooled core items) against the diagonal of perfect "
                     "calibration. Right: for each binary pair, p(yes) on the yes member (up) against the no member "
                     "(across); above the diagonal the pair is ordered rightly.")
    return section("Confidence", text + f'<div class="tiles">{"".join(parts)}</div>', "confidence")


def _coverage(inputs: ReportInputs, system: str) -> str:
    tiles = []
    gate = inputs.gate_system(system)
    for i, family in enumerate(inputs.scored_families(system)):
        curve = curve_of(inputs, system, family)
        c05 = number(None if curve.c05 is None else 100 * curve.c05)
        certified = ""
        if gate is not None:
            entry = gate.get("families", {}).get(family)
            if isinstance(entry, Mapping):
                expected = entry.get("expected_coverage")
                certified = (f"; gate: {esc(entry.get('decision'))}"
                             + (f", certified {number(100 * expected)}%" if expected is not None else ""))
        chart = risk_coverage_chart([curve], f"rc{i}", f"Risk-coverage: {system} on {family}",
                                    f"Risk against coverage of {system} on {family}; the dot on the dashed 5% line "
                                    f"is C(0.05) = {c05}%.", size=(260.0, 190.0))
        tiles.append(f'<figure class="tile">{chart}<figcaption>{family_link(family, "../")}: C(0.05) {c05}%'
                     f"{certified}</figcaption></figure>")
    if not tiles:
        return ""
    return section("Coverage: risk-coverage curves", paragraph(
        "Items ordered by confidence, most confident first: risk is the share wrong among the first items, coverage "
        "the share answered. C(0.05), the dot, is the largest coverage at or under 5% risk (retrospective).")
        + f'<div class="tiles">{"".join(tiles)}</div>', "coverage")


def _answer_files(inputs: ReportInputs, system: str) -> str:
    headings = ["Task", "Items", "Records", "Failed", "Errors", "Invalid", "Ignored keys", "Input restr.",
                "Transient", "Mean tokens", "Closed %", "Mean latency s"]
    rows = []
    for a in inputs.answer_files(system):
        closed = a.get("closed_share")
        rows.append([text_cell(a.get("task"), header=True),
                     *[Cell(str(a.get(k, DASH)), cls="num", sort=str(a.get(k, ""))) for k in
                       ("items", "records", "failed", "error_records", "invalid_records", "ignored_keys", "restricted",
                        "transient")],
                     Cell(number(a.get("mean_tokens")), cls="num", sort=sort_key(a.get("mean_tokens"))),
                     Cell(number(None if closed is None else 100 * closed), cls="num"),
                     Cell(number(a.get("mean_latency_s"), 3), cls="num", sort=sort_key(a.get("mean_latency_s")))])
    excluded = [f"{esc(x['task'])} ({esc(x['track'])}): {esc(x['reason'])}"
                + (f' \u2013 <span class="partial">{PARTIAL_LABEL}</span>' if str(x["reason"]).startswith("records for")
                   else "") for x in inputs.exclusions(system)]
    text = paragraph("Failed predictions (errors, unusable probabilities, missing records) count as incorrect and "
                     "as uniform for the confidence metrics. Tokens, closed replies and latency appear where the "
                     "runner recorded them.")
    out = text + Table(f"Answer files of {system}", headings, rows, sortable=True).render()
    if excluded:
        out += section("Excluded tasks", notes(excluded), level=3)
    return section("Errors and answer files", out, "errors")


def _config(meta: Mapping[str, Any]) -> str:
    config = meta.get("system") if isinstance(meta.get("system"), Mapping) else {}
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in sorted(config.items(), key=lambda kv: kv[0]))
    return f'<dl class="facts">{items}</dl>' if items else ""


def _operations(inputs: ReportInputs, facts: SystemFacts) -> str:
    ops = inputs.operations(facts.system)
    meta = inputs.meta(facts.system)
    rows = [
        ("Readout", esc(ops.get("readout", DASH))),
        ("Input restrictions", esc(ops.get("input_restrictions", DASH))),
        ("Latency p50 / p95 s @ in-flight limit", latency_text(inputs, facts)),
        ("Cost of 1,000 decisions", number(ops.get("cost_per_1000"), 4)),
        ("Items check", esc(meta.get("items_check", DASH))),
        ("Package version", esc(meta.get("package_version", DASH))),
    ]
    table = "<dl class=\"facts\">" + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"
    return section("How it ran", table + section("System configuration (as recorded; no secrets)",
                                                 _config(meta) or paragraph("Not recorded."), level=3), "operations")


ROBUSTNESS_HEADINGS = ("K", "Item acc.", "permuted", "Pair acc.", "permuted", "Changed %")
"""Columns of an option-order robustness row after what it is about (a family here, a system on the runs page)."""


def robustness_cells(row: Mapping[str, Any]) -> list[Cell]:
    """The cells under :data:`ROBUSTNESS_HEADINGS` of one row of scoring.json's robustness."""
    return [Cell(str(row["permutations"]), cls="num"),
            *[Cell(number(row[k]), cls="num", sort=sort_key(row[k])) for k in
              ("item_accuracy", "item_accuracy_permuted", "pair_accuracy", "pair_accuracy_permuted", "changed_share")]]


PARTIAL_HEADINGS = ("Answered", "Complete groups", "Item acc.", "Pair acc.")
"""Columns of a partial run's row after what it is about (its task; its system and task on the runs page)."""


def partial_cells(row: Mapping[str, Any]) -> list[Cell]:
    """The cells under :data:`PARTIAL_HEADINGS` of one row of partial.csv."""
    return [Cell(f"{int(row['answered'])} of {int(row['items'])}", cls="num"),
            Cell(number(row.get("complete_groups"), 0), cls="num"), Cell(number(row.get("item_accuracy")), cls="num"),
            Cell(number(row.get("pair_accuracy")), cls="num")]


def _robustness(inputs: ReportInputs, system: str) -> str:
    rows = inputs.robustness(system)
    if not rows:
        return ""
    headings = ["Family", *ROBUSTNESS_HEADINGS]
    body = [[text_cell(r["task"], header=True), *robustness_cells(r)] for r in rows]
    return section("Option-order robustness", paragraph(
        "The items asked again under K seeded orders of their options (<code>dp evaluate --permute-options K</code>); "
        "\u201cpermuted\u201d is the mean over the K orders, \u201cChanged %\u201d the share of answers that change.")
        + Table("Accuracy under permuted options", headings, body).render(), "robustness")


def _partial(inputs: ReportInputs, system: str) -> str:
    rows = inputs.partial_rows(system)
    if not rows:
        return ""
    body = [[text_cell(r["task"], header=True), *partial_cells(r)] for r in rows]
    return section(f"Partial runs ({PARTIAL_LABEL})", paragraph(
        "Tasks below the 99% of items a result needs, scored on the answered items only (<code>dp score "
        "--partial</code>): a check that the system works, not a result, and never on the leaderboard.")
        + Table(f"Partial scores of {system} ({PARTIAL_LABEL})", ["Task", *PARTIAL_HEADINGS], body).render(),
        "partial")


def _stability(inputs: ReportInputs, system: str) -> str:
    rows = []
    for result in inputs.stability:
        record = result.record
        change = next((c for c in record.get("changes", []) if c.get("system") == system), None)
        churn = (record.get("churn") or {}).get(system)
        if change is None and churn is None:
            continue
        rows.append([text_cell(f"{record.get('a')} \u2192 {record.get('b')}", header=True),
                     text_cell(record.get("resampling", DASH)),
                     Cell(number(change.get("score_a")) if change else DASH, cls="num"),
                     Cell(number(change.get("score_b")) if change else DASH, cls="num"),
                     Cell(interval(change.get("change"), change.get("ci_low"), change.get("ci_high")) if change
                          else DASH, cls="num"),
                     Cell(number(churn), cls="num")])
    if not rows:
        return ""
    return section("Stability across versions and fresh draws", Table(
        "Macro pair accuracy on item set A and B, the change B - A with its 95% interval, and answer churn",
        ["A \u2192 B", "Resampling", "A", "B", "B - A [95% CI]", "Changed answers %"], rows).render()
        + paragraph('<a href="../stability.html">All stability figures</a>'), "stability")


def gate_rows(entries: Mapping[str, Any]) -> list[list[Cell]]:
    """One row per gate ENTRY (family or pooled): decision, threshold, observed risk, coverage, release check."""
    rows = []
    for name, entry in entries.items():
        if not isinstance(entry, Mapping):
            continue
        release = entry.get("release") or {}

        def pct(value: Any) -> str:
            return number(None if value is None else 100 * value)

        def ci(values: Any) -> str:
            return f"[{pct(values[0])}, {pct(values[1])}]" if isinstance(values, list | tuple) and len(values) == 2 \
                else ""

        held = release.get("bound_held")
        rows.append([text_cell(name, header=True),
                     Cell(badge(str(entry.get("decision")), "decision-" + str(entry.get("decision")).replace(" ", "-")),
                          sort=str(entry.get("decision"))),
                     text_cell(entry.get("reason") or DASH, cls="notes"),
                     Cell(number(entry.get("threshold"), 3), cls="num"),
                     Cell(pct(entry.get("observed_risk")), cls="num"),
                     Cell(pct(entry.get("expected_coverage")), cls="num"),
                     Cell(f"{esc(entry.get('calibration_items', DASH))} / {esc(entry.get('calibration_groups', DASH))}",
                          cls="num"),
                     Cell(f"{pct(release.get('risk'))} {ci(release.get('risk_ci'))}", cls="num"),
                     Cell(f"{pct(release.get('coverage'))} {ci(release.get('coverage_ci'))}", cls="num"),
                     text_cell(DASH if held is None else ("yes" if held else "no")),
                     Cell(pct(release.get("retrospective_coverage")), cls="num")])
    return rows


GATE_HEADINGS = ("Scope", "Decision", "Reason", "Threshold", "Observed risk at threshold, unadjusted %",
                 "Certified coverage %",
                 "Calibration items / groups", "Release risk % [CI]", "Release coverage % [CI]", "Bound held",
                 "Retrospective C %")


def _gate(inputs: ReportInputs, system: str) -> str:
    entry = inputs.gate_system(system)
    if entry is None or inputs.gate is None:
        return ""
    families = dict(entry.get("families", {}))
    if entry.get("pooled") is not None:
        families["pooled"] = entry["pooled"]
    certified, retrospective = entry.get("certified_coverage_macro"), entry.get("retrospective_coverage_macro")
    summary = paragraph(
        f"Certified coverage (family-macro): <strong>{number(None if certified is None else 100 * certified)}%"
        f"</strong> next to the retrospective C(0.05) of <strong>"
        f"{number(None if retrospective is None else 100 * retrospective)}%</strong>. Thresholds were fixed on "
        f"fresh calibration draws for target risk {number(100 * float(inputs.gate.get('target_risk') or 0))}% at "
        f"confidence 1 - {esc(inputs.gate.get('delta'))} ({esc(inputs.gate.get('method'))}) and checked on the "
        "release items.")
    return section("Certified automation (dp gate)", summary + Table(f"Gate decisions for {system}", GATE_HEADINGS,
                                                                     gate_rows(families)).render(), "gate")


def system_body(inputs: ReportInputs, facts: SystemFacts, scatter: str | None) -> str:
    tags = [badge(facts.badge_text(), "baseline")] if facts.badge_text() else []
    if facts.partial_tasks:
        tags.append(badge(PARTIAL_LABEL, "partial"))
    intro = (f'<p class="tags">{" ".join(tags)}</p>' if tags else "") + notes(system_notes(inputs, facts))
    groups = ""
    if inputs.scored_families(facts.system):
        first = inputs.scored_families(facts.system)[0]
        groups = paragraph(f'<a class="button" href="../groups.html#family={esc(first)}&amp;filter=fails&amp;a='
                           f'{esc(facts.system)}">Browse the contrast groups {esc(facts.system)} fails</a>')
    return (intro + groups + section("Headline", _headline(inputs, facts.system), "headline")
            + _gate(inputs, facts.system) + _families(inputs, facts.system) + _levels(inputs, facts.system)
            + _confidence(inputs, facts.system, scatter) + _coverage(inputs, facts.system)
            + _answer_files(inputs, facts.system) + _operations(inputs, facts) + _robustness(inputs, facts.system)
            + _partial(inputs, facts.system) + _stability(inputs, facts.system))

