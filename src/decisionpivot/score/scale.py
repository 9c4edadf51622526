"""The scale suite's scoring: the score-question metrics per family, level and macro, with group-bootstrap intervals,
and its tables (issue 40).

A scale suite folder (``dp scale``: ``<family>.jsonl`` of score items and a ``DecisionPivot scale`` MANIFEST.json)
answered under a runs folder is read as every items folder is (:func:`decisionpivot.score.pipeline.load_runs`: the
one items rule, the answer-file rules, the 99% coverage). Each family gets one group-resample index matrix (seed,
family name) shared by every system and metric (:func:`decisionpivot.score.bootstrap.unit_weights`); the ``macro``
value of a metric is the mean over the families, per resample, as the core's family-macro metrics are. The metrics
are :mod:`decisionpivot.score.ordinal`'s, and pair accuracy is the core's (every member's level exact).

Estimates carry track ``scale``. Fractions are on the 0-100 scale as every other score; the metrics measured in
levels (:data:`LEVEL_METRICS`) stay in levels. The pseudo-system ``uniform-guess`` carries what uniform guessing
is expected to score: its pair accuracy and its exact accuracy (mean 1/N).

Files (:func:`scale_files`): ``scale_leaderboard.md`` / ``.csv`` (one row per system, macro over the families, its
own table: the core leaderboard is unchanged), ``scale_families.md`` (a table per family) and ``scale.csv`` (every
estimate, per level too).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import ItemError
from decisionpivot.score import ordinal
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, Multiplicities, unit_weights
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.metrics import pair_accuracy, uniform_pair_accuracy
from decisionpivot.score.results import MACRO, UNIFORM_GUESS, Estimate
from decisionpivot.score_questions import check_score_item

SCALE = "scale"
"""Track name of the scale suite's estimates (and label prefix of its files among a scoring's item checks)."""

SCALE_METRICS: dict[str, tuple[str, str, bool]] = {
    "pair_accuracy": ("Pair acc.", "share of contrast groups with every member's level exact", True),
    "ordinal_pair_direction": ("Ord. dir.", "share of contrast groups whose expected level moves across the "
                               "boundary the way the gold does (a tie moves nothing)", True),
    "exact_accuracy": ("Exact", "share of items whose most probable level is the gold level", True),
    "within_one_accuracy": ("Within 1", "share of items whose most probable level is at most one from gold", True),
    "mean_absolute_error": ("MAE", "mean |predicted level - gold|, in levels", False),
    "expected_level_error": ("E-level err.", "mean |E[level] - gold|, in levels (the whole distribution)", False),
    "expected_level_bias": ("Bias", "mean (E[level] - gold), in levels: + rates too high, - too low", False),
    "quadratic_weighted_kappa": ("QWK", "quadratic-weighted kappa x100 (0: chance, below 0: opposed)", True),
    "ranked_probability_score": ("RPS", "ranked probability score x100, ordinal calibration (lower is better)",
                                 False),
    "score_confidence": ("Score conf.", "mean of System One's score confidence 1 - E|l - argmax| / E_unif|l - "
                         "middle|, floored at 0 (x100; read beside Exact)", True),
}
"""Metric -> (column heading, meaning, whether higher is better). Every metric is macro over the families."""
LEVEL_METRICS = frozenset({"mean_absolute_error", "expected_level_error", "expected_level_bias"})
"""Metrics reported in levels, not multiplied by 100."""
HEADLINE = "pair_accuracy"
"""The scale suite's headline (ranking) metric, as the core's: a group counts only with every member exact."""
CHANCE_METRICS = ("chance_pair_accuracy", "chance_exact_accuracy")
"""Metrics of the :data:`UNIFORM_GUESS` pseudo-system."""
SCORE_ASKING = ("systemone", "openai_decisions", "sglang_decisions", "pipeline")
"""Readout prefixes of the kinds that ask a score item as a score question (the readout's suffix names how they ask
yes/no items): on the scale tables their readout is ``<prefix>/score``."""


def scale_readout(readout: str) -> str:
    """How a system read the scale suite, from its answer files' readout (``systemone/noul`` -> ``systemone/score``)."""
    prefix = readout.split("/", 1)[0]
    return f"{prefix}/score" if prefix in SCORE_ASKING else readout


EXACT_LEVEL_NOTE = ("score questions (the scale suite): an answer counts as right only when its most probable level "
                    "is the gold level, its confidence is that level's probability; a level one off is as wrong as "
                    "one four off. The ordinal metrics are dp score --scale's.")
"""What `dp gate`, `dp compare` and `dp cost` say when they read a scale suite: they work on it, reading a score item
as a choice of one level."""


def score_items_note(items: str | Path | None) -> str | None:
    """:data:`EXACT_LEVEL_NOTE` when ``items`` is a scale suite folder (or its framings), else None."""
    from decisionpivot.score.pipeline import is_scale_folder

    return EXACT_LEVEL_NOTE if items is not None and is_scale_folder(items) else None


def check_scale_layout(layout: TaskLayout) -> None:
    """Every item of ``layout`` is a score item with its levels listed lowest first, keyed "0".."N-1" (column i of
    its probabilities is level i); else an error naming the file and item."""
    for item in layout.items:
        try:
            check_score_item(item)
        except ItemError as exc:
            raise DecisionPivotError(f"{layout.items_path}: not a scale suite file ({exc})") from None


def _scaled(metric: str, values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64) * (1.0 if metric in LEVEL_METRICS else 100.0)


def _levels(layout: TaskLayout) -> list[int | None]:
    return [None, *sorted(int(v) for v in np.unique(layout.level) if v > 0)]


def family_metrics(layout: TaskLayout, probabilities: np.ndarray, failed: np.ndarray, mask: np.ndarray,
                   weights: Multiplicities | None) -> dict[str, np.ndarray]:
    """Every metric of :data:`SCALE_METRICS` for the items in ``mask`` of systems' ``(S, n, K)`` probabilities and
    ``(S, n)`` failed marks; with ``weights`` (restricted to ``mask``), one value per resample."""
    p, fail = probabilities[:, mask], failed[:, mask]
    gold, levels, groups = layout.gold_index[mask], layout.option_count[mask], layout.group_index[mask]
    predicted = ordinal.predicted_levels(p, gold, levels, fail)
    expected = ordinal.expected_levels(p)
    exact = (predicted == gold) & ~fail
    return {
        "pair_accuracy": pair_accuracy(exact, groups, weights),
        "ordinal_pair_direction": ordinal.ordinal_pair_direction(expected, gold, groups, weights),
        "exact_accuracy": ordinal.exact_accuracy(predicted, gold, weights),
        "within_one_accuracy": ordinal.within_one_accuracy(predicted, gold, fail, weights),
        "mean_absolute_error": ordinal.mean_absolute_error(predicted, gold, weights),
        "expected_level_error": ordinal.expected_level_error(expected, gold, weights),
        "expected_level_bias": ordinal.expected_level_bias(expected, gold, weights),
        "quadratic_weighted_kappa": ordinal.quadratic_weighted_kappa(predicted, gold, levels, weights),
        "ranked_probability_score": ordinal.ranked_probability_score(p, gold, levels, weights),
        "score_confidence": ordinal.score_confidence(p, levels, weights),
    }


def _units(metric: str, n_items: int, n_groups: int) -> int:
    return n_groups if metric in ("pair_accuracy", "ordinal_pair_direction") else n_items


def score_scale_family(layout: TaskLayout, answers: Sequence[TaskAnswers], resamples: int,
                       seed: int = BOOTSTRAP_SEED) -> list[Estimate]:
    """The estimates of one scale family for the systems of ``answers``, per level and over all levels."""
    check_scale_layout(layout)
    family = layout.task
    weights = unit_weights(family, layout.group_index, resamples, seed)
    systems = [a.system for a in answers]
    out: list[Estimate] = []
    for level in _levels(layout):
        mask = np.ones(layout.size, bool) if level is None else layout.level == level
        w = weights if level is None else weights.restrict(mask)
        groups = layout.group_index[mask]
        n_items, n_groups = int(mask.sum()), int(np.unique(groups).size)
        out.append(Estimate(UNIFORM_GUESS, SCALE, family, level, "chance_pair_accuracy",
                            100.0 * float(uniform_pair_accuracy(layout.option_count[mask], groups)), n_groups))
        out.append(Estimate(UNIFORM_GUESS, SCALE, family, level, "chance_exact_accuracy",
                            100.0 * float(np.mean(1.0 / layout.option_count[mask])), n_items))
        if not answers:
            continue
        probabilities = np.stack([a.probabilities for a in answers])
        failed = np.stack([a.failed for a in answers])
        values = family_metrics(layout, probabilities, failed, mask, None)
        samples = family_metrics(layout, probabilities, failed, mask, w)
        for metric, value in values.items():
            scaled, resampled = _scaled(metric, value), _scaled(metric, samples[metric])
            for s, system in enumerate(systems):
                out.append(Estimate(system, SCALE, family, level, metric, float(scaled[s]),
                                    _units(metric, n_items, n_groups), resampled[s]))
    return out


def _macro(estimates: Sequence[Estimate]) -> list[Estimate]:
    """Mean over the families of each (system, level, metric), per resample."""
    by_scope: dict[tuple[str, int | None, str], list[Estimate]] = {}
    for e in estimates:
        by_scope.setdefault((e.system, e.level, e.metric), []).append(e)
    out = []
    for (system, level, metric), parts in by_scope.items():
        samples = None
        if all(e.samples is not None for e in parts):
            samples = np.mean(np.stack([e.samples for e in parts]), axis=0)
        out.append(Estimate(system, SCALE, MACRO, level, metric, float(np.mean([e.value for e in parts])),
                            len(parts), samples))
    return out


def score_scale(layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers],
                systems: Sequence[str], resamples: int, seed: int = BOOTSTRAP_SEED) -> list[Estimate]:
    """Every scale estimate: per family and level, then the ``macro`` over the families each system answers."""
    estimates: list[Estimate] = []
    for layout in layouts:
        included = [answers[(s, layout.task)] for s in systems if (s, layout.task) in answers]
        estimates += score_scale_family(layout, included, resamples, seed)
    return estimates + _macro(estimates)


# --------------------------------------------------------------------------- tables


def _number(value: float | None, metric: str) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:+.2f}" if metric == "expected_level_bias" else f"{value:.2f}" if metric in LEVEL_METRICS \
        else f"{value:.1f}"


def cell(estimate: Estimate | None) -> str:
    """``value [low, high]`` as the tables show an estimate (levels with two decimals, fractions x100 with one)."""
    if estimate is None:
        return "-"
    low, high = estimate.interval()
    if math.isnan(low):
        return _number(estimate.value, estimate.metric)
    return f"{_number(estimate.value, estimate.metric)} [{_number(low, estimate.metric)}, " \
           f"{_number(high, estimate.metric)}]"


def _index(estimates: Sequence[Estimate], track: str = SCALE) -> dict[tuple[str, str, int | None, str], Estimate]:
    return {(e.system, e.task, e.level, e.metric): e for e in estimates if e.track == track}


def families_of(estimates: Sequence[Estimate], track: str = SCALE) -> list[str]:
    return sorted({e.task for e in estimates if e.task != MACRO and e.track == track})


FRAMED_COLUMNS = (("robust_pair_accuracy", "Robust pair acc."), ("flip_rate", "Flip rate"),
                  ("position_share", "Position share"))
"""Leaderboard columns from the scale suite's framings (track ``scale_invariance``), when scored."""


def ranked(estimates: Sequence[Estimate]) -> list[tuple[str, str]]:
    """(rank, system) in scale-leaderboard order: systems answering every family by macro pair accuracy, then exact
    accuracy, then name (equal headline values share a rank, ``2=``); systems answering some families only after
    them, unranked."""
    index = _index(estimates)
    families = families_of(estimates)
    systems = sorted({e.system for e in estimates if e.system != UNIFORM_GUESS and e.track == SCALE})

    def value(system: str, metric: str) -> float:
        e = index.get((system, MACRO, None, metric))
        return -math.inf if e is None or math.isnan(e.value) else e.value

    def complete(system: str) -> bool:
        e = index.get((system, MACRO, None, HEADLINE))
        return e is not None and e.n == len(families)

    order = sorted(systems, key=lambda s: (not complete(s), -value(s, HEADLINE), -value(s, "exact_accuracy"), s))
    full = [s for s in order if complete(s)]
    heads = [round(value(s, HEADLINE), 6) for s in full]
    out = []
    for i, system in enumerate(full):
        first = heads.index(heads[i])
        out.append((f"{first + 1}{'=' if heads.count(heads[i]) > 1 else ''}", system))
    return out + [("", s) for s in order if not complete(s)]


def leaderboard_markdown(estimates: Sequence[Estimate], readouts: Mapping[str, str]) -> str:
    """The scale suite's leaderboard: macro over its families, one row per system, uniform guessing last."""
    from decisionpivot.score.scale_invariance import SCALE_INVARIANCE

    index = _index(estimates)
    framed = _index(estimates, SCALE_INVARIANCE)
    columns = [(m, heading) for m, heading in FRAMED_COLUMNS if any(k[3] == m for k in framed)]
    families = families_of(estimates)
    header = ["#", "System", *(heading for heading, _, _ in SCALE_METRICS.values()),
              *(heading for _, heading in columns), "Readout"]
    rows = [[rank, system, *(cell(index.get((system, MACRO, None, m))) for m in SCALE_METRICS),
             *(cell(framed.get((system, MACRO, None, m))) for m, _ in columns),
             readouts.get(system, "-")] for rank, system in ranked(estimates)]
    chance = {m: index.get((UNIFORM_GUESS, MACRO, None, m)) for m in CHANCE_METRICS}
    if chance["chance_pair_accuracy"] is not None:
        rows.append(["", "uniform guessing", cell(chance["chance_pair_accuracy"]), "-",
                     cell(chance["chance_exact_accuracy"]), *["-"] * (len(SCALE_METRICS) - 3 + len(columns)),
                     "expected"])
    text = (f"# Scale suite leaderboard (score questions)\n\nMacro over {len(families)} families "
            f"({', '.join(families)}); 95% intervals over contrast groups. Ranked by pair accuracy (every member's "
            "level exact), then exact accuracy; equal values share a rank (2=).\n\n")
    text += _table(header, rows, names=2) + "\n" + "\n".join(f"- {heading} (`{m}`): {meaning}"
                                                    for m, (heading, meaning, _) in SCALE_METRICS.items()) + "\n"
    if columns:
        from decisionpivot.score.scale_invariance import SCALE_INVARIANCE_METRICS

        text += "".join(f"- {heading} (`{m}`, the suite's framings, scale_invariance.md): "
                        f"{SCALE_INVARIANCE_METRICS[m]}\n" for m, heading in columns)
    return text


def invariance_markdown(estimates: Sequence[Estimate]) -> str:
    """The scale framings' tables: the summary per family (and macro), then accuracy and flips per framing."""
    from decisionpivot.scale.framing import SCALE_FRAMINGS
    from decisionpivot.score.scale_invariance import SCALE_INVARIANCE, SCALE_INVARIANCE_METRICS

    index = _index(estimates, SCALE_INVARIANCE)
    systems = [s for _, s in ranked(estimates) if any(k[0] == s for k in index)]
    systems += sorted({k[0] for k in index} - set(systems))
    summary = ["robust_pair_accuracy", "plain_pair_accuracy", "flip_rate", "position_share"]
    text = ("# Scale suite under other framings\n\nInvariance for scales: every member of a third of the contrast "
            "groups as it is (plain), with the scale listed highest first (reversed), its level keys renamed to "
            "letters or words, and its rubric reworded; gold never changes. Values 0-100 with 95% intervals over "
            "contrast groups.\n\n" + "\n".join(f"- `{m}`: {meaning}" for m, meaning in SCALE_INVARIANCE_METRICS.items())
            + "\n")
    for task in [MACRO, *families_of(estimates, SCALE_INVARIANCE)]:
        rows = [[system, *(cell(index.get((system, task, None, m))) for m in summary)] for system in systems]
        text += f"\n## {'Macro over families' if task == MACRO else task}\n\n" + _table(["System", *summary], rows)
        rows = []
        for framing in SCALE_FRAMINGS:
            cells = []
            for system in systems:
                accuracy = index.get((system, task, None, f"accuracy:{framing}"))
                flips = index.get((system, task, None, f"flip_rate:{framing}"))
                same = index.get((system, task, None, f"same_request:{framing}"))
                if framing != "plain" and same is not None and same.value == 100.0:
                    cells.append(f"{cell(accuracy)} (same request as plain)")
                elif framing == "plain" or flips is None:
                    cells.append(cell(accuracy))
                elif same is not None and same.value > 0:
                    cells.append(f"{cell(accuracy)} (flip {cell(flips)}; {same.value:.1f}% sent as plain)")
                else:
                    cells.append(f"{cell(accuracy)} (flip {cell(flips)})")
            rows.append([framing, *cells])
        text += ("\nExact accuracy by framing (flip rate against plain; \"same request as plain\": the system's "
                 "interface received the plain member's bytes, so the framing was not put to it):\n\n"
                 + _table(["Framing", *systems], rows))
    return text


def families_markdown(estimates: Sequence[Estimate]) -> str:
    """A table per family: every system's metrics over the family's items, all levels."""
    index = _index(estimates)
    header = ["System", *(heading for heading, _, _ in SCALE_METRICS.values())]
    text = "# Scale suite by family\n\nEvery metric over the family's items, all difficulty levels; 95% intervals " \
           "over contrast groups. Per level: scale.csv.\n"
    order = [system for _, system in ranked(estimates)]
    for family in families_of(estimates):
        rows = [[system, *(cell(index.get((system, family, None, m))) for m in SCALE_METRICS)]
                for system in order if (system, family, None, HEADLINE) in index]
        chance = index.get((UNIFORM_GUESS, family, None, "chance_pair_accuracy"))
        exact = index.get((UNIFORM_GUESS, family, None, "chance_exact_accuracy"))
        if chance is not None and exact is not None:
            rows.append(["uniform guessing (expected)", cell(chance), "-", cell(exact),
                         *["-"] * (len(SCALE_METRICS) - 3)])
        text += f"\n## {family}\n\n" + _table(header, rows)
    return text


def leaderboard_rows_csv(estimates: Sequence[Estimate], readouts: Mapping[str, str]) -> list[list[Any]]:
    """The leaderboard as CSV rows (header first): value, low and high per metric."""
    index = _index(estimates)
    header: list[Any] = ["rank", "system"]
    for metric in SCALE_METRICS:
        header += [metric, f"{metric}_low", f"{metric}_high"]
    rows = [[*header, "readout"]]
    for rank, system in ranked(estimates):
        row: list[Any] = [rank, system]
        for metric in SCALE_METRICS:
            e = index.get((system, MACRO, None, metric))
            low, high = (math.nan, math.nan) if e is None else e.interval()
            row += [_csv_number(None if e is None else e.value), _csv_number(low), _csv_number(high)]
        rows.append([*row, readouts.get(system, "")])
    return rows


def _csv_number(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else f"{value:.4f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], names: int = 1) -> str:
    """A Markdown table whose first ``names`` columns are names (escaped as text) and the rest figures."""
    from decisionpivot.score.report import markdown_table, markdown_text

    return markdown_table(header, [[markdown_text(str(c)) if i < names else str(c) for i, c in enumerate(row)]
                                   for row in rows])


def scale_metadata(estimates: Sequence[Estimate], readouts: Mapping[str, str]) -> dict[str, Any]:
    """What ``scoring.json`` records about the scale suite: the metrics, their units, the leaderboard order (and, when
    its framings were scored, their metrics)."""
    from decisionpivot.score.scale_invariance import SCALE_INVARIANCE, SCALE_INVARIANCE_METRICS

    framed = families_of(estimates, SCALE_INVARIANCE)
    return {
        **({"framings": {"families": framed, "definitions": dict(SCALE_INVARIANCE_METRICS)}} if framed else {}),
        "families": families_of(estimates),
        "metrics": {m: {"heading": heading, "meaning": meaning, "higher_is_better": higher,
                        "unit": "levels" if m in LEVEL_METRICS else "0-100"}
                    for m, (heading, meaning, higher) in SCALE_METRICS.items()},
        "aggregation": "macro: the mean over the families, per resample (intervals over contrast groups)",
        "headline": HEADLINE,
        "leaderboard": [{"rank": rank or None, "system": system, "readout": readouts.get(system)}
                        for rank, system in ranked(estimates)],
    }
