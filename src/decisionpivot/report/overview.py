"""The overview pages: leaderboard, systems x families heat map, levels, confidence, reference track.

Numbers come from ``scores.json`` exactly as ``dp score`` computed them (0-100 scale, 95% percentile
bootstrap intervals); per-item figures (reliability bins, pair direction) from the answer files through
the scorer's own functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from decisionpivot.items import LAYERS
from decisionpivot.report.facts import (
    PARTIAL_LABEL,
    SystemFacts,
    latency_text,
    rank_text,
    ranked_systems,
    system_notes,
)
from decisionpivot.report.html import (
    DASH,
    Cell,
    Table,
    badge,
    esc,
    family_link,
    heat_colour,
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
from decisionpivot.report.svg import reliability_chart
from decisionpivot.score import metrics
from decisionpivot.score.certified import CERTIFIED_HEADING
from decisionpivot.score.core import CHANCE_METRIC, CORE_METRICS
from decisionpivot.score.invariance import INVARIANCE, INVARIANCE_METRICS
from decisionpivot.score.reference import SCORE
from decisionpivot.score.report import INVARIANCE_COLUMNS
from decisionpivot.score.results import CORE, MACRO, REFERENCE, UNIFORM_GUESS

LEADERBOARD = (
    ("pair_accuracy", "Pair acc.", "Share of contrast groups with every member correct (family-macro)"),
    ("item_accuracy", "Item acc.", "Share of items answered correctly (family-macro)"),
    ("pair_direction", "Pair dir.", "Share of binary pairs with p(yes) higher on the yes member (binary families)"),
    ("coverage_at_5", "C(0.05)", "Largest coverage with risk at most 5%, retrospective, per family then averaged"),
    ("accuracy_at_90", "Acc@0.90", "Accuracy among items with confidence at least 0.90 (pooled items)"),
    ("share_at_90", "Share@0.90", "Share of items with confidence at least 0.90 (pooled items)"),
    ("ece", "ECE", "Expected calibration error x100, 15 equal-width bins (pooled items; group-bootstrap interval)"),
)
"""Core columns of the leaderboard: (metric, heading, explanation)."""


def score_cell(inputs: ReportInputs, system: str, track: str, task: str, metric: str,
               level: int | None = None) -> Cell:
    score = inputs.get(system, track, task, metric, level)
    if score is None:
        return Cell(DASH, sort="")
    return Cell(interval(score.value, score.ci_low, score.ci_high), sort=sort_key(score.value), cls="num")


def _gate_cell(inputs: ReportInputs, system: str) -> Cell:
    entry = inputs.gate_system(system)
    value = None if entry is None else entry.get("certified_coverage_macro")
    if value is None:
        return Cell(DASH, sort="")
    retrospective = entry.get("retrospective_coverage_macro") if entry else None
    tip = f"certified on fresh draws; retrospective {number(None if retrospective is None else 100 * retrospective)}"
    return Cell(number(100 * value), sort=sort_key(100 * value), cls="num", attrs=f'title="{esc(tip)}"')


def _reference_cell(inputs: ReportInputs, system: str) -> Cell:
    score = inputs.get(system, REFERENCE, MACRO, SCORE)
    if score is None:
        return Cell(DASH, sort="")
    layers = f' <span class="ci">({score.n} of {len(LAYERS)} layers)</span>'
    return Cell(interval(score.value, score.ci_low, score.ci_high) + layers, sort=sort_key(score.value), cls="num")


def _system_cell(facts: SystemFacts, root: str) -> Cell:
    text = facts.badge_text()
    tag = ""
    if text:
        tip = ("answers one family only: a shortcut measured by the audit, not a model"
               if facts.heuristic_family else "built-in baseline")
        tag = " " + badge(text, "baseline", tip)
    if facts.partial_tasks:
        tag += " " + badge("partial", "partial", PARTIAL_LABEL)
    return Cell(system_link(facts.system, root) + tag, sort=facts.system, header=True)


AXES_TIP = ("Rank by macro pair accuracy", "")
"""Tips of the rank and system headings."""


def _invariance_columns(inputs: ReportInputs) -> tuple[tuple[str, str, str], ...]:
    """(metric, heading, explanation) of the invariance columns leaderboard.md has, when the scoring has a suite."""
    if not any(key[1] == INVARIANCE for key in inputs.scores):
        return ()
    return tuple((metric, heading, f"Invariance suite (macro over its families): {INVARIANCE_METRICS[metric]}")
                 for metric, _, heading in INVARIANCE_COLUMNS)


def _rank_and_system(inputs: ReportInputs, facts: SystemFacts, position: int, root: str) -> list[Cell]:
    return [Cell(rank_text(inputs, facts.system, position), sort=str(position), cls="num"),
            _system_cell(facts, root)]


def leaderboard_table(inputs: ReportInputs, systems: Sequence[str], facts: dict[str, SystemFacts], caption: str,
                      ident: str, root: str = "", uniform_row: bool = True) -> Table:
    """The leaderboard's first table, both axes on one screen: rank, system, the core figures of leaderboard.md
    (pair and item accuracy, pair direction, C(0.05), the certified coverage, ECE), the invariance suite's robust
    pair accuracy and flip rate, and the readout. How each system ran is :func:`details_table`."""
    core = [LEADERBOARD[i] for i in (0, 1, 2, 3)]
    headings = ["#", "System", *[h for _, h, _ in core]]
    tips = [*AXES_TIP, *[t for _, _, t in core]]
    gate = inputs.gate is not None
    if gate:
        headings.append(CERTIFIED_HEADING)
        tips.append("Coverage certified by dp gate on fresh draws (family-macro, %); next to the retrospective C(0.05)")
    ece = next(column for column in LEADERBOARD if column[0] == "ece")
    invariance = _invariance_columns(inputs)
    headings += [ece[1], *[h for _, h, _ in invariance], "Readout"]
    tips += [ece[2], *[t for _, _, t in invariance], "How answers were read (chat/verbalised, systemone/noul, ...)"]
    rows, classes = [], []
    for position, system in enumerate(systems, start=1):
        f = facts[system]
        cells = _rank_and_system(inputs, f, position, root)
        cells += [score_cell(inputs, system, CORE, MACRO, m) for m, _, _ in core]
        if gate:
            cells.append(_gate_cell(inputs, system))
        cells.append(score_cell(inputs, system, CORE, MACRO, ece[0]))
        cells += [score_cell(inputs, system, INVARIANCE, MACRO, m) for m, _, _ in invariance]
        cells.append(text_cell(inputs.operations(system).get("readout", DASH), cls="readout"))
        rows.append(cells)
        classes.append("baseline" if f.badge_text() else "")
    chance = inputs.get(UNIFORM_GUESS, CORE, MACRO, CHANCE_METRIC)
    if uniform_row and chance is not None:
        tip = "what guessing uniformly at random scores on pair accuracy: the floor every system should clear"
        rows.append([Cell("", sort=""), Cell("uniform guessing (expected)", header=True, attrs=f'title="{esc(tip)}"'),
                     Cell(number(chance.value, small=True), sort=sort_key(chance.value), cls="num"),
                     *[Cell(DASH, sort="") for _ in range(len(headings) - 3)]])
        classes.append("pinned")
    return Table(caption, headings, rows, sortable=True, row_classes=classes, ident=ident, heading_tips=tips)


def details_table(inputs: ReportInputs, systems: Sequence[str], facts: dict[str, SystemFacts],
                  root: str = "") -> Table:
    """The leaderboard's second table, how each system ran: the confident share and its accuracy, the reference
    track, input restrictions, latency, cost and the notes of each row."""
    confident = [column for column in LEADERBOARD if column[0] in ("accuracy_at_90", "share_at_90")]
    headings = ["#", "System", *[h for _, h, _ in confident], "Reference", "Input restr.", "p50 / p95 s", "$/1k",
                "Notes"]
    tips = [*AXES_TIP, *[t for _, _, t in confident],
            "Reference track: chance-corrected score, mean of the layers with a scored task",
            "Items the system could not take as they stood (counted as failed)",
            "Request latency in seconds, median / 95th percentile, @ the in-flight limit it was measured at",
            "Cost of 1,000 decisions from recorded usage and configured prices", ""]
    rows, classes = [], []
    for position, system in enumerate(systems, start=1):
        f = facts[system]
        ops = inputs.operations(system)
        cells = _rank_and_system(inputs, f, position, root)
        cells += [score_cell(inputs, system, CORE, MACRO, m) for m, _, _ in confident]
        cells += [
            _reference_cell(inputs, system),
            Cell(str(ops.get("input_restrictions", DASH)), sort=str(ops.get("input_restrictions", "")), cls="num"),
            Cell(latency_text(inputs, f), sort=sort_key(ops.get("latency_p50_s")), cls="num"),
            Cell(number(ops.get("cost_per_1000"), 4), sort=sort_key(ops.get("cost_per_1000")), cls="num"),
            Cell("; ".join(system_notes(inputs, f)), cls="notes"),
        ]
        rows.append(cells)
        classes.append("baseline" if f.badge_text() else "")
    return Table("How each system ran: confident answers, reference track, restrictions, latency, cost, notes",
                 headings, rows, sortable=True, row_classes=classes, ident="details", heading_tips=tips)


def footnotes(inputs: ReportInputs) -> list[str]:
    scoring = inputs.scoring
    out = [esc(scoring.get("aggregation_note", "")),
           f"Intervals: 95% percentile bootstrap over {esc(scoring.get('resamples', '?'))} resamples (seed "
           f"{esc(scoring.get('seed', '?'))}); contrast groups are resampled, the same resamples for every system "
           "(paired comparisons: <code>dp compare A B</code>).",
           "Failed or missing predictions count as incorrect (uniform distribution for the confidence metrics); "
           f"a task needs records for at least 99% of its items, else it is excluded ({PARTIAL_LABEL}).",
           "Pair accuracy of uniform guessing is the expected score of a system that guesses: the floor, not a "
           "system that ran."]
    if _invariance_columns(inputs):
        out.append("Robust pair acc. and Flip rate come from the invariance suite, as <code>dp score "
                   "--invariance</code> wrote them (macro over the suite's families; the Framings page has every "
                   "family and framing): a "
                   "contrast group counts only if every member is right under every framing; the flip rate is the "
                   "share of framed items answered differently from their plain item although gold is the same.")
    return out


def leaderboard_body(inputs: ReportInputs, facts: dict[str, SystemFacts]) -> str:
    ranked = ranked_systems(inputs)
    full = [s for s in ranked if facts[s].full_core]
    other = [s for s in ranked if not facts[s].full_core]
    families = len(inputs.families)
    invariance = bool(_invariance_columns(inputs))
    intro = paragraph(
        f"{len(full)} system{'s' if len(full) != 1 else ''} scored on all {families} core families, ranked by "
        "macro pair accuracy (every member of a contrast group right)"
        + (": does a system change its answer when the decisive fact changes - and, from the invariance suite, "
           "keep it when nothing decisive changes (robust pair accuracy, flip rate)" if invariance else "")
        + ". Values are percentages with 95% intervals in brackets; click a heading to sort. Systems scored on "
        "fewer families (family heuristics answer one family; partial runs) are listed separately below: their "
        "macro averages other families and is not comparable. How each system ran (latency, cost, notes) follows.")
    body = intro + leaderboard_table(inputs, full, facts, f"Leaderboard: systems scored on all {families} core "
                                     "families", "leaderboard").render()
    if other:
        body += section("Scored on fewer families (not comparable)", paragraph(
            "Family heuristics are shortcut baselines the audit measures: each answers only its own family, so "
            "its macro is that family's score. Partial runs cover fewer than 99% of some task's items.")
            + leaderboard_table(inputs, other, facts, "Systems scored on some core families only", "partial-systems",
                                uniform_row=False).render(), "fewer-families")
    body += section("How each system ran", paragraph(
        "Accuracy and share of the answers given with confidence at least 0.90, the reference track, items a system "
        "could not take, latency, cost and what to know about each row; the systems in the order above.")
        + details_table(inputs, full + other, facts).render(), "how-each-ran")
    warnings = inputs.scoring.get("warnings", [])
    body += section("How these numbers are computed", notes(footnotes(inputs)), "method")
    if warnings:
        body += section("Warnings from the scorer", notes([esc(w) for w in warnings]), "warnings")
    return body


def heatmap_body(inputs: ReportInputs, root: str = "") -> str:
    """Systems x families of pair accuracy, item accuracy on hover, the uniform-guess row last."""
    families = inputs.families
    layers = inputs.scoring.get("layers", {})
    headings = ["System", *[f"{f} ({layers.get(f, '?')})" for f in families], "macro"]
    rows, classes = [], []
    for system in ranked_systems(inputs):
        cells = [Cell(system_link(system, root), sort=system, header=True)]
        for family in [*families, MACRO]:
            pair = inputs.get(system, CORE, family, "pair_accuracy")
            item = inputs.get(system, CORE, family, "item_accuracy")
            if pair is None or pair.value is None:
                cells.append(Cell(DASH, sort="", cls="heat empty"))
                continue
            background, colour = heat_colour(pair.value)
            tip = (f"{system} on {family}: pair accuracy {number(pair.value)} [{number(pair.ci_low)}, "
                   f"{number(pair.ci_high)}]; item accuracy {number(item.value if item else None)} "
                   f"[{number(item.ci_low if item else None)}, {number(item.ci_high if item else None)}]")
            cells.append(Cell(f'{number(pair.value, 0)}<span class="sr">; item accuracy '
                              f"{number(item.value if item else None)}</span>", sort=sort_key(pair.value),
                              cls="heat", attrs=f'style="background:{background};color:{colour}" '
                                                f'data-tip="{esc(tip)}"'))
        rows.append(cells)
        classes.append("")
    chance_cells = [Cell("uniform guessing (expected)", header=True)]
    for family in [*families, MACRO]:
        chance = inputs.get(UNIFORM_GUESS, CORE, family, CHANCE_METRIC)
        chance_cells.append(Cell(number(chance.value if chance else None, 0, small=True), cls="heat chance",
                                 sort=sort_key(chance.value if chance else None)))
    rows.append(chance_cells)
    classes.append("pinned")
    table = Table("Pair accuracy (%) by system and family; hover a cell for item accuracy", headings, rows,
                  sortable=True, row_classes=classes, cls="heatmap", ident="heatmap")
    links = ", ".join(family_link(f, root) for f in families)
    legend = ('<p class="legend" aria-hidden="true">0 <span class="scale"></span> 100</p>')
    return (paragraph("Each cell is a system's pair accuracy on one family (colour: dark = low, yellow = high); "
                      "hover it for item accuracy and both intervals. Each family has a page with its "
                      f"systems, levels and risk-coverage curves: {links}.") + legend + table.render()
            + family_tables(inputs))


def family_tables(inputs: ReportInputs) -> str:
    out = []
    for metric in ("item_accuracy", "pair_direction", "coverage_at_5"):
        families = [f for f in inputs.families if any(inputs.get(s, CORE, f, metric) for s in inputs.systems)]
        rows = [[Cell(system_link(s, ""), sort=s, header=True),
                 *[score_cell(inputs, s, CORE, f, metric) for f in [*families, MACRO]]]
                for s in ranked_systems(inputs)]
        out.append(section(f"{metric.replace('_', ' ')} by family", paragraph(esc(CORE_METRICS[metric][1]) + ".")
                           + Table(f"{metric} by system and family", ["System", *families, "macro"], rows,
                                   sortable=True).render(), f"table-{metric}"))
    return "".join(out)


def levels_body(inputs: ReportInputs) -> str:
    out = [paragraph("Macro over families at each difficulty level (level 1 smallest states, level 3 largest); "
                     "95% intervals in brackets.")]
    for metric in ("pair_accuracy", "item_accuracy", "pair_direction", "coverage_at_5"):
        rows, classes = [], []
        for system in ranked_systems(inputs):
            rows.append([Cell(system_link(system, ""), sort=system, header=True),
                         *[score_cell(inputs, system, CORE, MACRO, metric, level) for level in (1, 2, 3, None)]])
            classes.append("")
        if metric == "pair_accuracy":
            chances = [inputs.get(UNIFORM_GUESS, CORE, MACRO, CHANCE_METRIC, lv) for lv in (1, 2, 3, None)]
            rows.append([Cell("uniform guessing (expected)", header=True),
                         *[Cell(number(c.value, small=True) if c else DASH, cls="num") for c in chances]])
            classes.append("pinned")
        out.append(section(metric.replace("_", " "), Table(f"{metric} by level (macro over families)",
                                                            ["System", "Level 1", "Level 2", "Level 3", "All"],
                                                            rows, sortable=True, row_classes=classes).render(),
                           f"levels-{metric}"))
    return "".join(out)


def pooled(inputs: ReportInputs, system: str) -> tuple[np.ndarray, np.ndarray]:
    """Confidence and correctness over the system's scored core items (what pooled metrics read)."""
    parts = [inputs.answers[(system, f)] for f in inputs.scored_families(system)]
    if not parts:
        return np.zeros(0), np.zeros(0, dtype=bool)
    return np.concatenate([a.confidence for a in parts]), np.concatenate([a.correct for a in parts])


def binary_pairs(inputs: ReportInputs, system: str) -> tuple[np.ndarray, np.ndarray]:
    """(p-, p+): P(positive option) on the negative and on the positive member of every binary pair."""
    plus, minus = [], []
    for family in inputs.scored_families(system):
        layout, answers = inputs.layout(family), inputs.answers[(system, family)]
        if not layout.pairs.size:
            continue
        column = layout.pair_positive_column
        plus.append(answers.probabilities[layout.pairs[:, 0], column])
        minus.append(answers.probabilities[layout.pairs[:, 1], column])
    if not plus:
        return np.zeros(0), np.zeros(0)
    return np.concatenate(minus), np.concatenate(plus)


def reliability_of(inputs: ReportInputs, system: str, ident: str) -> str:
    confidence, correct = pooled(inputs, system)
    if not confidence.size:
        return paragraph("No core items scored.")
    count, _, accuracy = metrics.reliability_bins(confidence, correct)
    ece = inputs.value(system, CORE, MACRO, "ece")
    filled = int((count > 0).sum())
    description = (f"Reliability diagram of {system} over {confidence.size} pooled core items: accuracy per "
                   f"confidence bin in {filled} of {len(count)} non-empty bins; ECE {number(ece)}. Bars under "
                   "the diagonal are over-confident.")
    return reliability_chart(count, np.nan_to_num(accuracy), ece, ident, f"Reliability: {system}", description)


def confidence_body(inputs: ReportInputs, figure_path: Callable[[str], str]) -> str:
    """Reliability diagrams inline, pair-direction scatters as lazily loaded images, C(0.05) per family."""
    systems = [s for s in ranked_systems(inputs) if inputs.scored_families(s)]
    tiles = []
    for i, system in enumerate(systems):
        tiles.append(f'<figure class="tile"><figcaption>{system_link(system, "")}</figcaption>'
                     f"{reliability_of(inputs, system, f'rel{i}')}</figure>")
    reliability = section("Reliability diagrams", paragraph(
        "Accuracy against confidence in 15 equal-width bins over each system's pooled core items (bars under "
        "the dashed diagonal: over-confident); the expected calibration error (ECE, x100) in the corner.")
        + f'<div class="tiles">{"".join(tiles)}</div>', "reliability")
    scatter_tiles = []
    for system in systems:
        minus, plus = binary_pairs(inputs, system)
        if not plus.size:
            continue
        share = 100 * float(np.mean(plus > minus))
        scatter_tiles.append(
            f'<figure class="tile"><figcaption>{system_link(system, "")}</figcaption>'
            f'<img src="{esc(figure_path(system))}" loading="lazy" width="260" height="250" alt="Pair direction of '
            f"{esc(system)}: p(yes) on the yes member against the no member for {plus.size} binary pairs; "
            f'{share:.1f}% above the diagonal (right direction)."></figure>')
    direction = section("Pair direction: p+ against p-", paragraph(
        "For every binary contrast pair, the probability of <em>yes</em> on the member whose gold answer is yes "
        "(p+, up) against the member whose gold is no (p-, across). Above the diagonal the system orders the pair "
        "rightly even if a label is wrong; the upper-left corner is both members right.")
        + f'<div class="tiles">{"".join(scatter_tiles)}</div>', "direction")
    rows = [[Cell(system_link(s, ""), sort=s, header=True),
             *[score_cell(inputs, s, CORE, f, "coverage_at_5") for f in [*inputs.families, MACRO]]]
            for s in systems]
    coverage = section("Coverage at 5% risk, C(0.05)", paragraph(
        "The largest share of a family's items a system can answer, most confident first, with at most 5% wrong "
        "(retrospective: chosen on the same items). The risk-coverage curves, with C(0.05) marked, are on each "
        "family's page and each system's page.")
        + Table("C(0.05) by system and family", ["System", *inputs.families, "macro"], rows,
                sortable=True).render(), "coverage")
    return reliability + coverage + direction


def reference_body(inputs: ReportInputs, metric_names: dict[str, str]) -> str:
    """Layers and tasks of the reference track with their original metrics (``metric_names``: task -> metric)."""
    tasks = inputs.reference_tasks
    if not tasks:
        return paragraph("No reference task was scored: the reference track is off in this scoring (its tasks "
                         "are rebuilt from official files with <code>dp reconstruct</code>; see the README's "
                         "\u201cReference track\u201d). Core results are on the other pages.")
    systems = [s for s in ranked_systems(inputs) if inputs.get(s, REFERENCE, MACRO, SCORE) is not None]
    layer_rows = [[Cell(system_link(s, ""), sort=s, header=True),
                   *[score_cell(inputs, s, REFERENCE, f"layer:{layer}", SCORE) for layer in LAYERS],
                   Cell(interval(o.value, o.ci_low, o.ci_high) + f' <span class="ci">({o.n} of {len(LAYERS)})</span>',
                        sort=sort_key(o.value), cls="num")
                   if (o := inputs.get(s, REFERENCE, MACRO, SCORE)) else Cell(DASH)]
                  for s in systems]
    out = [paragraph("Each reference task keeps its original metric v; its score is 100 (v - b) / (1 - b) against "
                     "its chance baseline b, floored at 0 and averaged within each of the seven decision layers; the "
                     "overall score is the mean of the layers with a scored task (the count is shown)."),
           section("By layer", Table("Reference score by layer (floored, %)", ["System", *LAYERS, "Overall"],
                                     layer_rows, sortable=True).render(), "layers")]
    layers = inputs.scoring.get("layers", {})
    for layer in LAYERS:
        in_layer = [t for t in tasks if layers.get(t) == layer]
        if not in_layer:
            continue
        headings = ["System", *[f"{t} ({metric_names.get(t, '?')})" for t in in_layer]]
        rows = []
        for system in systems:
            cells = [Cell(system_link(system, ""), sort=system, header=True)]
            for task in in_layer:
                raw = inputs.get(system, REFERENCE, task, metric_names.get(task, ""))
                score = inputs.get(system, REFERENCE, task, SCORE)
                if raw is None or score is None:
                    cells.append(Cell(DASH, sort=""))
                    continue
                cells.append(Cell(f"{number(raw.value)} \u2192 {interval(score.value, score.ci_low, score.ci_high)}",
                                  sort=sort_key(score.value), cls="num"))
            rows.append(cells)
        chance = []
        for task in in_layer:
            b = chance_of(inputs, task, metric_names.get(task, ""))
            chance.append(f"{esc(task)}: b = {number(b)}")
        out.append(section(f"Layer {layer}", paragraph("Each cell: the original metric v (x100) \u2192 the "
                                                       "chance-corrected score with its interval, not floored. "
                                                       + "; ".join(chance) + ".")
                           + Table(f"Reference tasks of layer {layer}", headings, rows, sortable=True).render(),
                           f"layer-{layer}"))
    return "".join(out)


def chance_of(inputs: ReportInputs, task: str, metric: str) -> float | None:
    """The chance baseline b (x100) of a reference task, recovered exactly from any system's v and score
    (score = 100 (v - b) / (1 - b)); None when no system has both or the score is 100."""
    for system in inputs.systems:
        raw, score = inputs.value(system, REFERENCE, task, metric), inputs.value(system, REFERENCE, task, SCORE)
        if raw is not None and score is not None and abs(100 - score) > 1e-6:
            return 100 * (raw - score) / (100 - score)
    return None


def reference_metric_names(inputs: ReportInputs) -> dict[str, str]:
    """Task -> its original metric: the one non-``score`` metric its records carry."""
    names: dict[str, str] = {}
    for (_, track, task, level, metric) in inputs.scores:
        if track == REFERENCE and task in inputs.reference_tasks and metric != SCORE and level is None:
            names.setdefault(task, metric)
    return names
