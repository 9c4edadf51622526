"""Writing a scoring: scores.json, the leaderboard (Markdown, CSV, LaTeX) and the detail tables.

Files under the output folder:

* ``scores.json`` - every estimate as a flat record ``{system, track, task, level, metric, value,
  ci_low, ci_high, n}`` (0-100 scale; ``task`` is ``macro`` for aggregates, ``layer:<L>`` for reference
  layers; ``level`` null over all levels);
* ``scoring.json`` - how it was computed: resamples, seed, aggregation of each metric, exclusions,
  warnings, answer-file counts;
* ``leaderboard.md`` / ``.csv`` / ``.tex`` - one row per system with intervals;
* ``families.md`` / ``.csv``, ``levels.md`` / ``.csv`` - core detail; ``calibration.md`` - ECE with its
  interval against the noise floor, per system and family; ``reference_layers.md`` /
  ``.csv`` and ``reference_tasks.md`` / ``.csv`` (unfloored, negative scores kept) - reference detail;
* with a scale suite, ``scale_leaderboard.md`` / ``.csv``, ``scale_families.md`` and ``scale.csv``
  (:mod:`decisionpivot.score.scale`); a scoring of a scale suite alone writes only those, ``scores.json`` and
  ``scoring.json``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from decisionpivot import __version__
from decisionpivot.frame.framings import FRAMING_NAMES, FRAMINGS
from decisionpivot.item_origin import is_modified, is_unchecked, modified_note
from decisionpivot.items import LAYERS, atomic_write_bytes
from decisionpivot.overlap.provenance import provenance_footnote, provenance_markdown, provenance_notes
from decisionpivot.score.bootstrap import CONFIDENCE_LEVEL
from decisionpivot.score.certified import CERTIFIED_HEADING
from decisionpivot.score.core import CHANCE_METRIC, CORE_METRICS, FAMILY_MACRO
from decisionpivot.score.invariance import INVARIANCE, INVARIANCE_METRICS, PLAIN, invariance_metadata
from decisionpivot.score.operations import SystemOperations
from decisionpivot.score.reference import SCORE
from decisionpivot.score.results import CORE, MACRO, REFERENCE, SUITE_LABEL, UNIFORM_GUESS, Estimate, Scoring
from decisionpivot.score.scale import SCALE, scale_metadata

LEADERBOARD: tuple[tuple[str, str, str], ...] = (
    ("pair_accuracy", CORE, "Pair acc."),
    ("item_accuracy", CORE, "Item acc."),
    ("pair_direction", CORE, "Pair dir."),
    ("coverage_at_5", CORE, "C(0.05)"),
    ("accuracy_at_90", CORE, "Acc@0.90"),
    ("share_at_90", CORE, "Share@0.90"),
    ("ece", CORE, "ECE"),
    (SCORE, REFERENCE, "Reference"),
)
"""Leaderboard columns: (metric, track, heading); all are ``macro`` over all levels."""
INVARIANCE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("robust_pair_accuracy", INVARIANCE, "Robust pair acc."),
    ("flip_rate", INVARIANCE, "Flip rate"),
)
"""Leaderboard columns added when the scoring has an invariance suite (decisionpivot.score.invariance)."""


def leaderboard_columns(scoring: Scoring) -> tuple[tuple[str, str, str], ...]:
    """The leaderboard's metric columns: :data:`LEADERBOARD`, then :data:`INVARIANCE_COLUMNS` with a suite."""
    return LEADERBOARD + (INVARIANCE_COLUMNS if scoring.invariance else ())
FAMILY_TABLES = ("pair_accuracy", "item_accuracy", "pair_direction", "coverage_at_5")
LEVEL_TABLES = ("pair_accuracy", "item_accuracy")
DASH = "-"


def aggregation_note() -> str:
    """The one statement of how core aggregates are formed (also the leaderboard footnote)."""
    macro = [m for m, (how, _) in CORE_METRICS.items() if how == FAMILY_MACRO]
    pooled = [m for m, (how, _) in CORE_METRICS.items() if how != FAMILY_MACRO]
    return (
        f"Core aggregates: {', '.join(macro)} are family-macro (computed per family, then averaged over "
        f"families; pair direction over the binary families only); {', '.join(pooled)} are computed on "
        "the pooled items of all families (the paper's Table D1). ECE uses 15 equal-width bins; its interval "
        "resamples groups, and ece_noise_floor is the ECE a perfectly calibrated system with the same confidences "
        "would show on as many items (an ECE near it is sampling noise, not miscalibration)."
    )


def _number(value: float | None, digits: int = 1) -> str:
    return DASH if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _cell(estimate: Estimate | None) -> str:
    if estimate is None:
        return DASH
    low, high = estimate.interval()
    if math.isnan(low):
        return _number(estimate.value)
    return f"{_number(estimate.value)} [{_number(low)}, {_number(high)}]"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _write(path: Path, text: str | bytes) -> None:
    atomic_write_bytes(path, text.encode("utf-8") if isinstance(text, str) else text)


def headline(scoring: Scoring) -> tuple[str, str]:
    """(track, metric) systems are ranked by: core pair accuracy, or the reference score without core tasks."""
    return (CORE, "pair_accuracy") if scoring.core_tasks else (REFERENCE, SCORE)


def _headline(scoring: Scoring, system: str) -> Estimate | None:
    track, metric = headline(scoring)
    e = scoring.get(system, track, MACRO, metric)
    return None if e is None or math.isnan(e.value) else e


def comparability(scoring: Scoring, system: str) -> str:
    """``ranked`` (scored on every core family: comparable with each other), ``partial`` (some families only,
    e.g. a family heuristic: its "macro" is over fewer families) or ``unscored`` (no task included)."""
    e = _headline(scoring, system)
    if e is None:
        return "unscored"
    if scoring.core_tasks and e.n < len(scoring.core_tasks):
        return "partial"
    return "ranked"


def _failed(scoring: Scoring, system: str) -> int:
    ops = next((o for o in scoring.operations if o.system == system), None)
    return ops.failed_predictions if ops is not None else 0


def _ranked_systems(scoring: Scoring) -> list[str]:
    """Every system in leaderboard order: ranked ones best first, then partial ones, then unscored ones.

    Among equal headline values, fewer failed predictions first, then the name (the order shown; the rank
    number is shared, see :func:`ranks`); partial systems are grouped by the families they cover.
    """
    def key(system: str) -> tuple[Any, ...]:
        group = ("ranked", "partial", "unscored").index(comparability(scoring, system))
        e = _headline(scoring, system)
        families = ",".join(x.task for x in scoring.estimates if x.system == system and x.track == CORE
                            and x.task != MACRO and x.metric == "pair_accuracy" and x.level is None)
        return (group, families if group == 1 else "", -(e.value if e is not None else 0.0),
                _failed(scoring, system), system)

    return sorted(scoring.systems, key=key)


def ranks(scoring: Scoring) -> dict[str, str]:
    """System -> rank among the ranked systems (competition ranking: equal values share a rank, shown ``2=``);
    partial and unscored systems get no rank."""
    ranked = [s for s in _ranked_systems(scoring) if comparability(scoring, s) == "ranked"]
    values = [round(_headline(scoring, s).value, 6) for s in ranked]  # type: ignore[union-attr]
    result: dict[str, str] = {}
    for i, system in enumerate(ranked):
        first = values.index(values[i])
        tied = values.count(values[i]) > 1
        result[system] = f"{first + 1}{'=' if tied else ''}"
    return result


def _coverage_notes(scoring: Scoring, system: str) -> list[str]:
    notes = []
    families = scoring.get(system, CORE, MACRO, "pair_accuracy")
    if scoring.core_tasks and families is not None and families.n < len(scoring.core_tasks):
        covered = [x.task for x in scoring.estimates if x.system == system and x.track == CORE and x.task != MACRO
                   and x.metric == "pair_accuracy" and x.level is None]
        notes.append(f"core over {families.n} of {len(scoring.core_tasks)} families ({', '.join(covered)})")
    overall = scoring.get(system, REFERENCE, MACRO, SCORE)
    if overall is not None and overall.n < len(LAYERS):
        notes.append(f"reference over {overall.n} of {len(LAYERS)} layers")
    if comparability(scoring, system) == "unscored":
        notes.append("no task included (see the exclusions below)")
    return notes


def leaderboard_rows(scoring: Scoring) -> list[tuple[str, list[Estimate | None], list[str]]]:
    """(system, one estimate per :data:`LEADERBOARD` column, notes) per system, in leaderboard order."""
    return [
        (
            system,
            [scoring.get(system, track, MACRO, metric) for metric, track, _ in leaderboard_columns(scoring)],
            _coverage_notes(scoring, system) + provenance_notes(scoring.provenance, system),
        )
        for system in _ranked_systems(scoring)
    ]


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\|*`[]<>#"})


def markdown_text(text: str) -> str:
    """``text`` for a Markdown table cell: characters that would end the cell or start markup escaped."""
    return " ".join(text.split()).translate(_MARKDOWN_SPECIAL)


def _footnotes(scoring: Scoring) -> list[str]:
    notes = [
        aggregation_note(),
        f"Intervals: {round(100 * CONFIDENCE_LEVEL)}% percentile bootstrap, {scoring.resamples} resamples, "
        f"seed {scoring.seed}; contrast groups resampled for grouped tasks, items otherwise, queries for "
        "reranking; the same resamples for every system (paired comparisons: `dp compare A B`).",
        "Reference: per task 100(v-b)/(1-b), floored at 0, averaged within each layer; overall = mean of "
        "the layers with a scored task (a layer without one is left out and the row says so).",
        "Failed or missing predictions count as incorrect (uniform distribution for confidence metrics); "
        "a task needs records for at least 99% of its items. Failed: items of the included tasks scored as "
        "failed (error records, unusable probabilities, missing records; \"unanswered\" ones are transient "
        "errors: the system was never heard, `dp evaluate` again asks them).",
    ]
    if "uniform" in scoring.systems:
        notes.append("The `uniform` baseline gives every option the same probability, so its predicted option is "
                     "the first listed one (ties break in listed order): it answers a fixed position and solves no "
                     "contrast group. \"uniform guessing\" is the expected pair accuracy of guessing at random.")
    notes.append(f"Readout: how answers were read ({readout_legend(scoring.operations)}). "
                 "Input restr.: items the system could "
                 "not take as they stood (counted as failed). p50/p95: request latency in seconds at the "
                 "client concurrency in Conc. (a server that queues answers slower under more requests in "
                 "flight); $/1k: cost of 1,000 decisions from the recorded usage and the configured prices.")
    levels = sorted({o.concurrency for o in scoring.operations if o.concurrency})
    if len(levels) > 1 or any("+" in level for level in levels):
        notes.append(f"Latencies were measured at different concurrency ({', '.join(levels)}): compare p50/p95 "
                     "only between rows with the same Conc.")
    unchecked = sorted(task for task, how in scoring.item_checks if is_unchecked(how))
    modified = modified_note(scoring.item_checks)
    if modified:
        notes.append(modified)
    if unchecked:
        notes.append(f"Items whose hash could not be checked (no manifest or an unverified task card): "
                     f"{', '.join(unchecked)}.")
    if scoring.certified is not None:
        notes.append(scoring.certified_note)
    if scoring.invariance:
        notes.append("Robust pair acc. and Flip rate come from the invariance suite (macro over its families; "
                     "invariance.md has every framing and metric): a contrast group counts only if every member is "
                     "right under every framing; the flip rate is the share of framed items answered differently "
                     "from their plain item although gold is the same (items whose inserted text fills a system's "
                     "declared read window are reported apart in invariance.md).")
    if scoring.provenance:
        notes.append(provenance_footnote())
    if scoring.partial:
        notes.append(f"Partial scores of {len(scoring.partial)} excluded task(s) are in partial.md "
                     "(partial, not comparable).")
    for x in scoring.exclusions:
        if x.reason != "no answer file":  # a system answering only some tasks says so in its row instead
            notes.append(f"Excluded: {markdown_text(x.system)} / {x.track} / {x.task}: {x.reason}.")
    return notes


READOUT_MEANINGS = (
    ("chat/verbalised", "the reply's JSON object of probabilities"),
    ("/noul", "yes/no items as P(true) from a decision API"),
    ("/choice", "yes/no items as a two-option choice from a decision API"),
    ("hf/key-logits", "in process, each option key's probability from the model's logits after the prompt"),
    ("logprobs/whole-key", "a served model's echoed log-probabilities of each whole key after the hf kind's "
                           "prompt (/completions)"),
    ("logprobs/first-token", "a served model's top log-probabilities of each key's first token "
                             "(/chat/completions; a key outside the top ones is a failed item, never a zero)"),
    ("python", "a Python plugin's probabilities"),
    ("baseline", "a built-in baseline's probabilities"),
)
"""Readout name (or, for the decision APIs' ``<api>/<yes_no>``, its ending) -> what it means."""


def readout_legend(operations: Sequence[SystemOperations]) -> str:
    """The meaning of every readout the leaderboard shows (a row's ``a+b`` lists each), sorted by name."""
    shown = sorted({part for ops in operations for part in ops.readout.split("+") if part not in ("", "-")})
    said = []
    for name in shown:
        meaning = next((text for key, text in READOUT_MEANINGS
                        if name == key or (key.startswith("/") and name.endswith(key))), "the kind's own readout")
        said.append(f"{name}: {meaning}")
    return "; ".join(said) or "none recorded"


OPERATIONS = ("Failed", "Readout", "Input restr.", "p50 s", "p95 s", "Conc.", "$/1k")
"""Leaderboard columns after the metrics: failed predictions, how answers were read, items lost to input
restrictions, request latency at the concurrency it was measured at, and cost per 1,000 decisions (see
decisionpivot.score.operations)."""


def _operations_cells(scoring: Scoring, system: str) -> list[str]:
    ops = next((o for o in scoring.operations if o.system == system), None)
    if ops is None:
        return [DASH] * len(OPERATIONS)
    failed = str(ops.failed_predictions) + (f" ({ops.unanswered} unanswered)" if ops.unanswered else "")
    return [failed, ops.readout, str(ops.input_restrictions), _number(ops.latency_p50_s, 3),
            _number(ops.latency_p95_s, 3), ops.concurrency or DASH, _number(ops.cost_per_1000, 4)]


def _operations_notes(scoring: Scoring, system: str) -> list[str]:
    ops = next((o for o in scoring.operations if o.system == system), None)
    return ["items modified (--allow-modified-items)"] if ops is not None and ops.modified_items else []


def robustness_markdown(scoring: Scoring) -> str:
    """The option-order robustness table (empty string when no system has permuted runs)."""
    if not scoring.robustness:
        return ""
    header = ["System", "Family", "K", "Item acc.", "permuted", "Pair acc.", "permuted", "Changed %"]
    rows = [[r.system, r.task, str(r.permutations), _number(r.item_accuracy), _number(r.item_accuracy_permuted),
             _number(r.pair_accuracy), _number(r.pair_accuracy_permuted), _number(r.changed_share)]
            for r in scoring.robustness]
    text = ("## Option-order robustness\n\nEach item asked again under K seeded orders of its options "
            "(`dp evaluate --permute-options K`); \"permuted\" is the mean over the K orders, \"Changed %\" "
            "the share of items whose predicted option changes.\n\n" + markdown_table(header, rows))
    for system, families in scoring.order_free:
        text += (f"\n- {system}: {', '.join(families)} left out - yes/no items asked as noul have no option order "
                 "(every order sends the same request), so they say nothing about order.\n")
    return text


def _board_row(scoring: Scoring, rank: str, system: str, cells: Sequence[Estimate | None],
               notes: Sequence[str]) -> list[str]:
    notes = [*notes, *_operations_notes(scoring, system)]
    metric_cells = _with_certified(scoring, [_cell(c) for c in cells], [_certified_value(scoring, system)])
    return [rank, markdown_text(system), *metric_cells, *_operations_cells(scoring, system),
            markdown_text("; ".join(notes))]


CERTIFIED_AFTER = [metric for metric, _, _ in LEADERBOARD].index("coverage_at_5") + 1
"""The "Cert. cov." column (with `dp score --gate`) stands right after C(0.05)."""


def _with_certified(
    scoring: Scoring, cells: list[Any], certified: list[Any], after: int = CERTIFIED_AFTER
) -> list[Any]:
    """``cells`` with the certified-coverage cell(s) inserted after C(0.05), when the scoring has them."""
    return cells if scoring.certified is None else [*cells[:after], *certified, *cells[after:]]


def _certified_value(scoring: Scoring, system: str, digits: int = 1) -> str:
    value = (scoring.certified or {}).get(system)
    return _number(None if value is None else 100 * value, digits)


def leaderboard_markdown(scoring: Scoring) -> str:
    """The leaderboard: systems scored on every family ranked together; the others in a table of their own."""
    headings = _with_certified(scoring, [heading for _, _, heading in leaderboard_columns(scoring)],
                               [CERTIFIED_HEADING])
    header = ["#", "System", *headings, *OPERATIONS, "Notes"]
    numbers = ranks(scoring)
    rows, partial = [], []
    for system, cells, notes in leaderboard_rows(scoring):
        row = _board_row(scoring, numbers.get(system, ""), system, cells, notes)
        (rows if system in numbers else partial).append(row)
    chance = scoring.get(UNIFORM_GUESS, CORE, MACRO, CHANCE_METRIC)
    if chance is not None:
        rows.append(
            ["", "uniform guessing", _number(chance.value), *[DASH] * (len(headings) - 1 + len(OPERATIONS)),
             "expected pair accuracy of random guessing, not a system"]
        )
    text = "# DecisionPivot leaderboard\n\n"
    if scoring.core_tasks:
        text += (f"Ranked: systems scored on all {len(scoring.core_tasks)} core families, by macro pair accuracy "
                 "(equal values share a rank, shown 2=).\n\n")
    text += markdown_table(header, rows) + "\n"
    if partial:
        text += ("## Not ranked: scored on some families only, or none\n\nFamily heuristics and systems "
                 "without answers for every family. Their \"macro\" is over the families they answer (Notes), so "
                 "it is not comparable with the ranked rows above.\n\n" + markdown_table(header, partial) + "\n")
    text += "\n".join(f"- {note}" for note in _footnotes(scoring)) + "\n"
    robustness = robustness_markdown(scoring)
    if robustness:
        text += "\n" + robustness
    return text


def leaderboard_csv(scoring: Scoring) -> bytes:
    header = ["rank", "system", "comparability"]
    for metric, _, _ in leaderboard_columns(scoring):
        name = "reference_score" if metric == SCORE else metric
        header += [name, f"{name}_ci_low", f"{name}_ci_high"]
    header = _with_certified(scoring, header, ["certified_coverage"], 3 + 3 * CERTIFIED_AFTER)
    header += ["failed_predictions", "readout", "input_restrictions", "latency_p50_s", "latency_p95_s",
               "concurrency", "cost_per_1000", "notes"]
    numbers = ranks(scoring)
    rows = []
    for system, cells, notes in leaderboard_rows(scoring):
        row: list[Any] = [numbers.get(system, ""), system, comparability(scoring, system)]
        for e in cells:
            low, high = e.interval() if e is not None else (math.nan, math.nan)
            row += [_number(e.value if e else None, 4), _number(low, 4), _number(high, 4)]
        row = _with_certified(scoring, row, [_certified_value(scoring, system, 4)], 3 + 3 * CERTIFIED_AFTER)
        ops = next((o for o in scoring.operations if o.system == system), None)
        operations = _operations_cells(scoring, system)
        operations[0] = str(ops.failed_predictions) if ops is not None else DASH
        rows.append([*row, *operations, "; ".join(notes + _operations_notes(scoring, system))])
    return _csv(header, [[("" if v == DASH else v) for v in r] for r in rows])


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "_": r"\_",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "$": r"\$",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def leaderboard_latex(scoring: Scoring) -> str:
    headings = _with_certified(scoring, [h for _, _, h in leaderboard_columns(scoring)], [CERTIFIED_HEADING])
    columns = "rl" + "c" * len(headings)
    head = " & ".join(["\\#", "System", *[_latex_escape(h) for h in headings]])
    lines = [
        "% DecisionPivot leaderboard (generated by dp score); needs \\usepackage{booktabs}",
        f"\\begin{{tabular}}{{{columns}}}",
        "\\toprule",
        head + " \\\\",
        "\\midrule",
    ]
    numbers = ranks(scoring)
    for system, cells, _ in leaderboard_rows(scoring):
        parts = []
        for e in cells:
            if e is None:
                parts.append("--")
                continue
            low, high = e.interval()
            value = _number(e.value)
            parts.append(
                value if math.isnan(low) else f"{value} {{\\scriptsize[{_number(low)}, {_number(high)}]}}"
            )
        parts = _with_certified(scoring, parts, [_certified_value(scoring, system).replace(DASH, "--")])
        lines.append(" & ".join([_latex_escape(numbers.get(system, "")), _latex_escape(system), *parts]) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)


def _grid(scoring: Scoring, track: str, tasks: Sequence[str], metric: str) -> list[list[str]]:
    """One row per system (leaderboard order): the metric per task, then its ``macro`` aggregate."""
    return [
        [system, *[_cell(scoring.get(system, track, task, metric)) for task in [*tasks, MACRO]]]
        for system in _ranked_systems(scoring)
    ]


def families_markdown(scoring: Scoring) -> str:
    text = "# Core track by family\n\n"
    for metric in FAMILY_TABLES:
        header = ["System", *scoring.core_tasks, "macro"]
        rows = _grid(scoring, CORE, scoring.core_tasks, metric)
        chance = [_cell(scoring.get(UNIFORM_GUESS, CORE, t, CHANCE_METRIC)) for t in scoring.core_tasks]
        if metric == "pair_accuracy":
            rows.append(
                ["uniform guessing", *chance, _cell(scoring.get(UNIFORM_GUESS, CORE, MACRO, CHANCE_METRIC))]
            )
        text += f"## {metric}\n\n{CORE_METRICS[metric][1]}.\n\n" + markdown_table(header, rows) + "\n"
    return text


def levels_markdown(scoring: Scoring) -> str:
    text = "# Core track by difficulty level (macro over families)\n\n"
    for metric in LEVEL_TABLES:
        header = ["System", "level 1", "level 2", "level 3", "all"]
        rows = [
            [system, *[_cell(scoring.get(system, CORE, MACRO, metric, level)) for level in (1, 2, 3, None)]]
            for system in _ranked_systems(scoring)
        ]
        rows.append(
            [
                "uniform guessing",
                *[
                    _cell(scoring.get(UNIFORM_GUESS, CORE, MACRO, CHANCE_METRIC, level))
                    if metric == "pair_accuracy"
                    else DASH
                    for level in (1, 2, 3, None)
                ],
            ]
        )
        text += f"## {metric}\n\n" + markdown_table(header, rows) + "\n"
    return text


def reference_layers_markdown(scoring: Scoring) -> str:
    rows = _grid(scoring, REFERENCE, [f"layer:{layer}" for layer in LAYERS], SCORE)
    return (
        "# Reference track by layer\n\nMean of the floored chance-corrected task scores per layer; "
        "overall = mean of the layers with a scored task.\n\n"
        + markdown_table(["System", *LAYERS, "overall"], rows)
    )


def reference_tasks_markdown(scoring: Scoring, task_cards: dict[str, tuple[str, str, float]]) -> str:
    """Per task: raw metric v and corrected score 100(v-b)/(1-b), NOT floored (negative values kept)."""
    header = ["Task", "Layer", "Metric", "b", *scoring.systems]
    rows = []
    for task in scoring.reference_tasks:
        layer, metric, chance = task_cards[task]
        cells = []
        for system in scoring.systems:
            raw = scoring.get(system, REFERENCE, task, metric)
            score = scoring.get(system, REFERENCE, task, SCORE)
            cells.append(DASH if raw is None or score is None else f"{_number(raw.value)} -> {_cell(score)}")
        rows.append([task, layer, metric, _number(100 * chance), *cells])
    return (
        "# Reference track by task\n\nEach cell: the task's own metric v (x100) -> chance-corrected "
        "score 100(v-b)/(1-b) with its interval, not floored (negative values kept for inspection).\n\n"
        + markdown_table(header, rows)
    )


INVARIANCE_SUMMARY = ("robust_pair_accuracy", "plain_pair_accuracy", "flip_rate", "negation_coherence", "negation_gap",
                      "negation_in_options_coherence", "negation_in_options_gap", "steering_success",
                      "request_interference")
"""Columns of the invariance summary tables (one value per system and family)."""
INVARIANCE_HEADINGS = {
    "robust_pair_accuracy": "Robust pair acc.", "plain_pair_accuracy": "Plain pair acc.", "flip_rate": "Flip rate",
    "negation_coherence": "Negation coherence (NOT in question only)", "negation_gap": "Negation gap",
    "negation_in_options_coherence": "Negation coherence (NOT also in options)",
    "negation_in_options_gap": "Negation gap (NOT also in options)", "steering_success": "Steering success",
    "request_interference": "Request interference",
}
"""Human column heads of :data:`INVARIANCE_SUMMARY` (the metric names and meanings are listed above the tables)."""
def framing_name(framing: str) -> str:
    """A framing's human name with its code name, e.g. ``Typos in the state (`typos`)``."""
    return f"{FRAMING_NAMES.get(framing, framing)} (`{framing}`)"


def _framing_cell(scoring: Scoring, system: str, task: str, framing: str) -> str:
    accuracy = scoring.get(system, INVARIANCE, task, f"accuracy:{framing}")
    if accuracy is None:
        return DASH
    if framing == PLAIN:
        return _cell(accuracy)
    change = scoring.get(system, INVARIANCE, task, f"accuracy_change:{framing}")
    flips = scoring.get(system, INVARIANCE, task, f"flip_rate:{framing}")
    delta = DASH if change is None or math.isnan(change.value) else f"{change.value:+.1f}"
    text = f"{_cell(accuracy)} ({delta}; flip {_cell(flips)})"
    past = scoring.get(system, INVARIANCE, task, f"past_read_window:{framing}")
    if past is not None and not math.isnan(past.value) and past.value > 0:
        past_flips = scoring.get(system, INVARIANCE, task, f"flip_rate_past_window:{framing}")
        text += f" [past the read window: {past.value:.0f}% of items, flip {_cell(past_flips)}]"
    same = scoring.get(system, INVARIANCE, task, f"same_request:{framing}")
    if same is not None and not math.isnan(same.value) and same.value > 0:
        text += f" [same request as plain: {same.value:.0f}% of items]"
    return text


def invariance_markdown(scoring: Scoring) -> str:
    """The invariance tables: a summary per family (and macro), then accuracy per framing for each family."""
    systems = [s for s in _ranked_systems(scoring) if any(e.system == s for e in scoring.invariance)]
    families = sorted({e.task for e in scoring.invariance if e.task != MACRO},
                      key=lambda t: scoring.core_tasks.index(t) if t in scoring.core_tasks else len(scoring.core_tasks))
    text = ("# Invariance suite\n\nThe other half of a decision: the same item reworded, negated, relabelled, padded "
            "with irrelevant text, carrying steering text, or asked with other questions; gold is the same decision "
            "every time. Values 0-100 with 95% group-bootstrap intervals (every framing of a contrast group resampled "
            "together).\n\n" + "\n".join(f"- `{m}`: {meaning}" for m, meaning in INVARIANCE_METRICS.items()) + "\n")
    if scoring.one_question:
        text += (f"\nAsked one question per request (no request interference): {', '.join(scoring.one_question)}; "
                 "their `together` items are the plain question asked again.\n")
    header = ["System", *(INVARIANCE_HEADINGS[m] for m in INVARIANCE_SUMMARY)]
    for task in [MACRO, *families]:
        rows = [[markdown_text(system), *[_cell(scoring.get(system, INVARIANCE, task, m)) for m in INVARIANCE_SUMMARY]]
                for system in systems]
        text += f"\n## {'Macro over families' if task == MACRO else task}\n\n" + markdown_table(header, rows)
    for task in [MACRO, *families]:
        present = {e.metric for e in scoring.invariance if e.task == task}
        rows = [[framing_name(framing), *[_framing_cell(scoring, system, task, framing) for system in systems]]
                for framing in FRAMINGS if f"accuracy:{framing}" in present]
        title = "Every family" if task == MACRO else task
        text += (f"\n## {title} by framing\n\nItem accuracy (change from plain; flip rate). Irrelevant framings "
                 "whose inserted text alone fills a system's declared read window (the model then reads none of the "
                 "state after its opening) are left out of that flip rate and reported apart in brackets: "
                 "[past the read window: share of items, their flip rate]. Items whose request body was byte for "
                 "byte their plain member's never received the framing: they are out of the flip rate too, and "
                 "their share is given as [same request as plain].\n\n"
                 + markdown_table(["Framing", *map(markdown_text, systems)], rows))
    return text


def _records_csv(estimates: Sequence[Estimate]) -> bytes:
    header = ["system", "track", "task", "level", "metric", "value", "ci_low", "ci_high", "n"]
    rows = []
    for e in estimates:
        low, high = e.interval()
        rows.append(
            [
                e.system,
                e.track,
                e.task,
                "" if e.level is None else e.level,
                e.metric,
                _number(e.value, 4).replace(DASH, ""),
                _number(low, 4).replace(DASH, ""),
                _number(high, 4).replace(DASH, ""),
                e.n,
            ]
        )
    return _csv(header, rows)


def scoring_metadata(scoring: Scoring) -> dict[str, Any]:
    return {
        "package_version": __version__,
        "resamples": scoring.resamples,
        "seed": scoring.seed,
        "confidence_level": CONFIDENCE_LEVEL,
        "scale": "every value is on a 0-100 scale (ECE, AURC and Brier x100)",
        "aggregation": {metric: how for metric, (how, _) in CORE_METRICS.items()},
        "aggregation_note": aggregation_note(),
        "systems": list(scoring.systems),
        "core_tasks": list(scoring.core_tasks),
        "reference_tasks": list(scoring.reference_tasks),
        "layers": dict(scoring.layers),
        "exclusions": [asdict(x) for x in scoring.exclusions],
        "warnings": list(scoring.warnings),
        "answer_files": [asdict(a) for a in scoring.answer_files],
        "operations": [asdict(o) for o in scoring.operations],
        "robustness": [asdict(r) for r in scoring.robustness],
        "item_checks": dict(scoring.item_checks),
        "leaderboard": leaderboard_order(scoring),
        **({"invariance": invariance_metadata(scoring.invariance, scoring.one_question)} if scoring.invariance else {}),
        **({"scale": scale_metadata(scoring.scale, dict(scoring.scale_readouts))} if scoring.scale else {}),
    }


def leaderboard_order(scoring: Scoring) -> list[dict[str, str | None]]:
    """Every system in leaderboard order with its comparability and rank (``2=`` for a tie; None unless
    ranked), so what shows the leaderboard elsewhere (``dp report``) ranks exactly as leaderboard.md does."""
    rank = ranks(scoring)
    return [{"system": s, "comparability": comparability(scoring, s), "rank": rank.get(s)}
            for s in _ranked_systems(scoring)]


MODIFIED_KEY = "modified_items"
"""Key a ``scores.json`` record gains (``true``) when its value was computed from items read with
``--allow-modified-items``."""


def modified_scopes(scoring: Scoring) -> set[tuple[str, str]]:
    """(track, task) of every estimate computed from items accepted only under ``--allow-modified-items``: the
    modified tasks, and the macro and layer aggregates of a track holding one."""
    modified = {task for task, how in scoring.item_checks if is_modified(how)}
    suite = {task.removeprefix(f"{SUITE_LABEL}/") for task in modified if task.startswith(f"{SUITE_LABEL}/")}
    scale = {task.removeprefix(f"{SCALE}/") for task in modified if task.startswith(f"{SCALE}/")}
    framed = {task.removeprefix(f"{SCALE}_invariance/") for task in modified if task.startswith(f"{SCALE}_invariance/")}
    scopes: set[tuple[str, str]] = set()
    for track, tasks in ((CORE, modified.intersection(scoring.core_tasks)),
                         (REFERENCE, modified.intersection(scoring.reference_tasks)), (INVARIANCE, suite),
                         (SCALE, scale), (f"{SCALE}_invariance", framed)):
        if tasks:
            scopes |= {(track, task) for task in tasks} | {(track, MACRO)}
            scopes |= {(track, f"layer:{layer}") for layer in LAYERS}
    return scopes


def write_reports(
    scoring: Scoring, out: str | Path, task_cards: dict[str, tuple[str, str, float]]
) -> list[Path]:
    """Write every table of a scoring under ``out``; returns the paths written. ``task_cards`` maps a
    reference task to (layer, metric, chance)."""
    out = Path(out)
    modified = modified_scopes(scoring)
    records = [r.to_dict() | ({MODIFIED_KEY: True} if (r.track, r.task) in modified else {}) for r in scoring.records()]
    files: dict[str, str | bytes] = {
        "scores.json": "[\n" + ",\n".join(json.dumps(r, allow_nan=False) for r in records) + "\n]\n",
        "scoring.json": json.dumps(scoring_metadata(scoring), indent=2, allow_nan=False) + "\n",
        "leaderboard.md": leaderboard_markdown(scoring),
        "leaderboard.csv": leaderboard_csv(scoring),
        "leaderboard.tex": leaderboard_latex(scoring),
        "families.md": families_markdown(scoring),
        "families.csv": _records_csv([e for e in scoring.estimates if e.track == CORE and e.task != MACRO]),
        "levels.md": levels_markdown(scoring),
        "levels.csv": _records_csv([e for e in scoring.estimates if e.track == CORE and e.task == MACRO]),
    }
    if scoring.core_tasks:
        from decisionpivot.score.calibration_table import calibration_markdown

        files["calibration.md"] = calibration_markdown(scoring)
    if scoring.partial:
        from decisionpivot.score.partial import partial_markdown

        files["partial.md"] = partial_markdown(list(scoring.partial))
        files["partial.csv"] = _csv(list(asdict(scoring.partial[0])),
                                    [["" if v is None else v for v in asdict(p).values()] for p in scoring.partial])
    if scoring.provenance:
        files["provenance.md"] = provenance_markdown(scoring.provenance, scoring.systems)
    if scoring.robustness:
        files["robustness.csv"] = _csv(list(asdict(scoring.robustness[0])),
                                       [list(asdict(r).values()) for r in scoring.robustness])
    if scoring.invariance:
        files["invariance.md"] = invariance_markdown(scoring)
        files["invariance.csv"] = _records_csv(list(scoring.invariance))
    if scoring.scale:
        files.update(scale_files(scoring))
        if not scoring.core_tasks and not scoring.reference_tasks:
            files = {name: content for name, content in files.items()
                     if name.startswith("scale") or name in ("scores.json", "scoring.json")}
    if scoring.reference_tasks:
        files["reference_layers.md"] = reference_layers_markdown(scoring)
        files["reference_layers.csv"] = _records_csv(
            [
                e
                for e in scoring.estimates
                if e.track == REFERENCE and (e.task == MACRO or e.task.startswith("layer:"))
            ]
        )
        files["reference_tasks.md"] = reference_tasks_markdown(scoring, task_cards)
        files["reference_tasks.csv"] = _records_csv(
            [e for e in scoring.estimates if e.track == REFERENCE and e.task in scoring.reference_tasks]
        )
    note = modified_note(scoring.item_checks)
    if note:
        files = {name: _stated(name, content, note, modified) for name, content in files.items()}
    written = []
    for name, content in files.items():
        _write(out / name, content)
        written.append(out / name)
    return written


def scale_files(scoring: Scoring) -> dict[str, str | bytes]:
    """The scale suite's tables (:mod:`decisionpivot.score.scale`)."""
    from decisionpivot.score.scale import families_markdown, leaderboard_markdown, leaderboard_rows_csv

    readouts = dict(scoring.scale_readouts)
    from decisionpivot.score.scale import invariance_markdown
    from decisionpivot.score.scale_invariance import SCALE_INVARIANCE

    rows = leaderboard_rows_csv(scoring.scale, readouts)
    files: dict[str, str | bytes] = {
        "scale_leaderboard.md": leaderboard_markdown(scoring.scale, readouts),
        "scale_leaderboard.csv": _csv(rows[0], rows[1:]),
        "scale_families.md": families_markdown(scoring.scale),
        "scale.csv": _records_csv([e for e in scoring.scale if e.track == SCALE])}
    framed = [e for e in scoring.scale if e.track == SCALE_INVARIANCE]
    if framed:
        files["scale_invariance.md"] = invariance_markdown(scoring.scale)
        files["scale_invariance.csv"] = _records_csv(framed)
    return files


def _stated(name: str, content: str | bytes, note: str, modified: set[tuple[str, str]]) -> str | bytes:
    """An output of a scoring that read items under ``--allow-modified-items``, saying so: Markdown below its
    heading, LaTeX in a comment, a CSV of records in a ``modified_items`` column (as scores.json)."""
    if name.endswith(".md") and isinstance(content, str):
        heading, _, rest = content.partition("\n")
        return f"{heading}\n\n**{note}**\n{rest}"
    if name.endswith(".tex") and isinstance(content, str):
        return f"% {note}\n{content}"
    if name.endswith(".csv") and isinstance(content, bytes) and content.startswith(b"system,track,task,"):
        rows = list(csv.reader(io.StringIO(content.decode("utf-8"))))
        return _csv([*rows[0], MODIFIED_KEY], [[*row, str((row[1], row[2]) in modified).lower()] for row in rows[1:]])
    return content
