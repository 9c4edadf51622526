"""``dp score`` and ``dp compare``: find the runs, read them against their items, score, write.

Tasks: every ``<family>.jsonl`` in the core items folder is a core task; every registered (or given)
:class:`~decisionpivot.score.reference.ReferenceTask` whose items file exists in the reference folder
is a reference task. For each system and task, the answer file is read under the rules of
:mod:`decisionpivot.score.answers`; a missing file or records for fewer than 99% of items exclude the
task for that system (the report lists why), while a malformed file stops the scoring with an error
naming the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from decisionpivot.errors import DecisionPivotError
from decisionpivot.item_origin import accept_items_file, modified_note
from decisionpivot.score.answers import (
    AnswerSummary,
    TaskAnswers,
    coverage_shortfall,
    find_systems,
    read_task_answers,
    summarise,
)
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES, Difference, paired_difference
from decisionpivot.score.certified import answer_fingerprints
from decisionpivot.score.core import CORE_METRICS, score_core
from decisionpivot.score.layout import TaskLayout, read_layout
from decisionpivot.score.reference import SCORE, ReferenceTask, reference_tasks, score_reference
from decisionpivot.score.results import CORE, MACRO, REFERENCE, SUITE_LABEL, Exclusion, Scoring


@dataclass(frozen=True)
class LoadedRuns:
    """Items and answer files of a scoring, read and checked."""

    core: tuple[TaskLayout, ...]
    """Core family layouts, layer order then name."""
    reference: tuple[tuple[ReferenceTask, TaskLayout], ...]
    """Reference tasks with items, layer order then name."""
    systems: tuple[str, ...]
    """Systems read."""
    answers: dict[tuple[str, str], TaskAnswers]
    """(system, task) -> answers, for the tasks included (>= 99% records)."""
    exclusions: tuple[Exclusion, ...]
    """Tasks left out per system, with the reason."""
    warnings: tuple[str, ...]
    """Non-fatal findings."""
    answer_files: tuple[AnswerSummary, ...]
    """Counts of every answer file read."""
    short: dict[tuple[str, str], TaskAnswers] = field(default_factory=dict)
    """(system, task) -> answers of the tasks excluded for too few records (for ``--partial``)."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(task, how its items file was accepted: :func:`decisionpivot.item_origin.accept_items_file`), core then
    reference."""


def _checked(layout: TaskLayout, allow_modified_items: bool) -> tuple[str, str]:
    """(task, how its items file was accepted); a file the rule refuses stops the scoring unless
    ``allow_modified_items``."""
    return layout.task, accept_items_file(layout.items_path, layout.items_sha256, allow_modified_items, layout.task)


def _core_layouts(items: Path | None) -> list[TaskLayout]:
    if items is None:
        return []
    if not items.is_dir():
        raise DecisionPivotError(f"{items}: no core items folder (run `dp generate`, or pass --items)")
    layouts = [read_layout(path) for path in sorted(items.glob("*.jsonl"))]
    return sorted(layouts, key=lambda layout: (layout.layer, layout.task))


def load_runs(
    runs: str | Path,
    items: str | Path | None,
    reference: str | Path | None = None,
    systems: Sequence[str] | None = None,
    tasks: Sequence[ReferenceTask] | None = None,
    allow_modified_items: bool = False,
    core_layouts: Sequence[TaskLayout] | None = None,
) -> LoadedRuns:
    """Read items and answer files; see the module docstring for what is included.

    Every items file is first accepted by the one rule of every verb that reads items
    (:mod:`decisionpivot.item_origin`: a core draw or suite this package re-derives or released, a reference task
    its verified card records), as ``dp evaluate`` accepts them: anything else stops the scoring unless
    ``allow_modified_items``.
    ``core_layouts``: the layouts of ``items`` already read by the caller (each file is read and hashed once).
    """
    runs = Path(runs)
    core = list(core_layouts) if core_layouts is not None else _core_layouts(Path(items) if items is not None else None)
    item_checks = [_checked(layout, allow_modified_items) for layout in core]
    cards = list(tasks) if tasks is not None else reference_tasks()
    warnings: list[str] = []
    reference_layouts: list[tuple[ReferenceTask, TaskLayout]] = []
    for card in cards:
        card.validate()
        path = Path(reference) / f"{card.name}.jsonl" if reference is not None else None
        if path is None or not path.exists():
            warnings.append(f"reference task {card.name}: no items file {path}; not scored")
            continue
        layout = read_layout(path, card.name)
        if layout.layer != card.layer:
            raise DecisionPivotError(
                f"{path}: items are in layer {layout.layer}, the task card says {card.layer}"
            )
        item_checks.append(_checked(layout, allow_modified_items))
        reference_layouts.append((card, layout))
    if not core and not reference_layouts:
        raise DecisionPivotError(
            f"no items to score: no <family>.jsonl in {items} and no reference task items"
        )
    names = find_systems(runs, list(systems) if systems is not None else None)
    known = {layout.task: (CORE, layout) for layout in core}
    known.update({card.name: (REFERENCE, layout) for card, layout in reference_layouts})
    answers: dict[tuple[str, str], TaskAnswers] = {}
    exclusions: list[Exclusion] = []
    summaries: list[AnswerSummary] = []
    short: dict[tuple[str, str], TaskAnswers] = {}
    for system in names:
        folder = runs / system
        for path in sorted(folder.glob("*.jsonl")):
            if path.name.endswith(".raw.jsonl"):
                continue  # the runner's log of unreadable replies, not answers
            if path.stem not in known:
                warnings.append(f"{path}: no items for task {path.stem!r}; ignored")
        for task, (track, layout) in known.items():
            path = folder / f"{task}.jsonl"
            if not path.exists():
                exclusions.append(Exclusion(system, track, task, "no answer file"))
                continue
            read = read_task_answers(path, layout, system)
            summaries.append(summarise(read))
            if read.ignored_keys:
                warnings.append(
                    f"{path}: {read.ignored_keys} probabilities for keys that are not listed options "
                    "were ignored"
                )
            if read.invalid_records:
                warnings.append(
                    f"{path}: {read.invalid_records} records with negative, NaN, non-numeric or "
                    "all-zero probabilities scored as failed"
                )
            shortfall = coverage_shortfall(read)
            if shortfall is not None:
                exclusions.append(Exclusion(system, track, task, shortfall))
                short[(system, task)] = read
                continue
            answers[(system, task)] = read
    return LoadedRuns(
        tuple(core),
        tuple(reference_layouts),
        tuple(names),
        answers,
        tuple(exclusions),
        tuple(warnings),
        tuple(summaries),
        short,
        tuple(item_checks),
    )


def score_loaded(
    loaded: LoadedRuns, resamples: int = DEFAULT_RESAMPLES, seed: int = BOOTSTRAP_SEED, jobs: int = 1,
    runs: Path | None = None, partial: bool = False, gate: Path | None = None,
) -> Scoring:
    """Every estimate of both tracks for the loaded runs (with ``runs``: option-order robustness and the systems'
    training-data provenance flags too; with ``gate``: the certified coverage of `dp gate`'s gate.json for the
    leaderboard)."""
    from decisionpivot.overlap.provenance import provenance_folder, read_provenance
    from decisionpivot.score.certified import read_certified
    from decisionpivot.score.invariance import asked_one_question, score_invariance
    from decisionpivot.score.operations import system_operations
    from decisionpivot.score.partial import partial_score
    from decisionpivot.score.robustness import order_free_families, order_robustness

    if resamples < 2:
        raise DecisionPivotError(f"resamples must be at least 2, got {resamples}")
    certified, certified_note = (None, "") if gate is None else read_certified(
        gate, {layout.task: layout.items_sha256 for layout in loaded.core},
        answer_fingerprints({**loaded.short, **loaded.answers}, {layout.task for layout in loaded.core}))
    estimates = score_core(loaded.core, loaded.answers, loaded.systems, resamples, seed, jobs=jobs)
    cards = [card for card, _ in loaded.reference]
    estimates += score_reference(
        cards,
        {c.name: layout for c, layout in loaded.reference},
        loaded.answers,
        loaded.systems,
        resamples,
        seed,
    )
    layers = {layout.task: layout.layer for layout in loaded.core}
    layers.update({card.name: card.layer for card in cards})
    layouts = {layout.task: layout for layout in loaded.core}
    layouts.update({card.name: layout for card, layout in loaded.reference})
    return Scoring(
        estimates=tuple(estimates),
        systems=loaded.systems,
        core_tasks=tuple(x.task for x in loaded.core),
        reference_tasks=tuple(card.name for card in cards),
        exclusions=loaded.exclusions,
        warnings=loaded.warnings,
        answer_files=loaded.answer_files,
        layers=layers,
        resamples=resamples,
        seed=seed,
        operations=tuple(
            system_operations(system, [a for (s, _), a in loaded.answers.items() if s == system], loaded.answer_files)
            for system in loaded.systems
        ),
        robustness=tuple(order_robustness(runs, loaded.core, loaded.answers, loaded.systems)) if runs else (),
        order_free=tuple((system, tuple(names)) for system, names in order_free_families(
            runs, loaded.core, loaded.answers, loaded.systems).items()) if runs else (),
        partial=tuple(
            partial_score(layouts[task], answers) for (_, task), answers in sorted(loaded.short.items())
            if task in layouts
        ) if partial else (),
        item_checks=loaded.item_checks,
        certified=certified,
        certified_note=certified_note,
        provenance=read_provenance(provenance_folder(runs), loaded.systems) if runs else (),
        invariance=tuple(score_invariance(loaded.core, loaded.answers, loaded.systems, resamples, seed)),
        one_question=asked_one_question(loaded.core, loaded.answers, loaded.systems),
    )


def with_invariance(
    scoring: Scoring, items: str | Path, runs: str | Path, allow_modified_items: bool = False
) -> Scoring:
    """``scoring`` with the invariance metrics of a suite (``items``: its folder of framed ``<family>.jsonl``)
    answered under ``runs`` by the scored systems that have a folder there; the suite's exclusions and warnings
    join the scoring's warnings, prefixed ``invariance suite``, and how each of its files was accepted joins the
    scoring's item checks as ``invariance/<family>``."""
    from decisionpivot.score.invariance import asked_one_question, is_framed, score_invariance

    present = [s for s in scoring.systems if (Path(runs) / s).is_dir()]
    if not present:
        return replace(scoring, warnings=(*scoring.warnings,
                                          f"invariance suite: no system folder of {', '.join(scoring.systems)} "
                                          f"in {runs}; not scored"), _index={})
    loaded = load_runs(runs, items, None, present, (), allow_modified_items)
    plain = [layout.items_path.name for layout in loaded.core if not is_framed(layout)]
    if plain:
        raise DecisionPivotError(f"{items}: not an invariance suite ({', '.join(plain)} has items without "
                                 "'framing' and 'base')")
    notes = [f"invariance suite: {warning}" for warning in loaded.warnings]
    notes += [f"invariance suite: {x.system} / {x.task}: {x.reason}" for x in loaded.exclusions]
    return replace(
        scoring,
        invariance=tuple(score_invariance(loaded.core, loaded.answers, present, scoring.resamples, scoring.seed)),
        one_question=asked_one_question(loaded.core, loaded.answers, present),
        warnings=(*scoring.warnings, *notes),
        item_checks=(*scoring.item_checks, *((f"{SUITE_LABEL}/{task}", how) for task, how in loaded.item_checks)),
        _index={},
    )


def is_scale_folder(items: str | Path | None) -> bool:
    """Whether ``items`` is a scale suite folder (its MANIFEST.json says ``DecisionPivot scale``)."""
    from decisionpivot.data_file import read_json_file
    from decisionpivot.scale import SCALE_BENCHMARK

    if items is None or not (Path(items) / "MANIFEST.json").is_file():
        return False
    manifest = read_json_file(Path(items) / "MANIFEST.json", "the MANIFEST.json of an items folder")
    return isinstance(manifest, dict) and manifest.get("benchmark") == SCALE_BENCHMARK


def with_scale(
    scoring: Scoring, items: str | Path, runs: str | Path, allow_modified_items: bool = False,
    systems: Sequence[str] | None = None,
) -> Scoring:
    """``scoring`` with the scale suite's estimates (``items``: a `dp scale` folder) answered under ``runs`` by the
    scored systems that have a folder there (``systems``, each of which must have one, when ``scoring`` has none:
    every system there by default); the suite's exclusions
    and warnings join the scoring's warnings, prefixed ``scale suite``, and how each of its files was accepted joins
    the item checks as ``scale/<family>``."""
    from decisionpivot.score.scale import SCALE, scale_readout, score_scale

    if not is_scale_folder(items):
        raise DecisionPivotError(f"{items}: not a scale suite (its MANIFEST.json must say 'DecisionPivot scale', as "
                                 "`dp scale` writes)")
    wanted = [s for s in scoring.systems if (Path(runs) / s).is_dir()] if scoring.systems else \
        (list(systems) if systems is not None else None)
    if wanted == []:
        return replace(scoring, warnings=(*scoring.warnings,
                                          f"scale suite: no system folder of {', '.join(scoring.systems)} in {runs}; "
                                          "not scored"), _index={})
    loaded = load_runs(runs, items, None, wanted, (), allow_modified_items)
    notes = [f"scale suite: {warning}" for warning in loaded.warnings]
    notes += [f"scale suite: {x.system} / {x.task}: {x.reason}" for x in loaded.exclusions]
    readouts = {}
    for (system, _), answers in sorted(loaded.answers.items()):
        readouts.setdefault(system, scale_readout(str(answers.meta.get("readout") or
                                                      (answers.meta.get("system") or {}).get("kind") or "?")))
    return replace(
        scoring,
        systems=scoring.systems or loaded.systems,
        scale=tuple(score_scale(loaded.core, loaded.answers, loaded.systems, scoring.resamples, scoring.seed)),
        scale_readouts=tuple(sorted(readouts.items())),
        warnings=(*scoring.warnings, *notes),
        answer_files=(*scoring.answer_files, *loaded.answer_files),
        item_checks=(*scoring.item_checks, *((f"{SCALE}/{task}", how) for task, how in loaded.item_checks)),
        _index={},
    )


def with_scale_invariance(
    scoring: Scoring, items: str | Path, runs: str | Path, allow_modified_items: bool = False
) -> Scoring:
    """``scoring`` with the metrics of the scale suite's framings (``items``: a `dp scale --framings` folder) answered
    under ``runs`` by the scored systems that have a folder there (track ``scale_invariance``, in ``scale``); notes
    and item checks (``scale_invariance/<family>``) as :func:`with_scale` adds them."""
    from decisionpivot.data_file import read_json_file
    from decisionpivot.scale.framing import FRAMED_BENCHMARK
    from decisionpivot.score.scale_invariance import SCALE_INVARIANCE, score_scale_invariance

    manifest = Path(items) / "MANIFEST.json"
    found = read_json_file(manifest, "the MANIFEST.json of an items folder") if manifest.is_file() else None
    if not isinstance(found, dict) or found.get("benchmark") != FRAMED_BENCHMARK:
        raise DecisionPivotError(f"{items}: not the scale suite's framings (its MANIFEST.json must say "
                                 f"{FRAMED_BENCHMARK!r}, as `dp scale --framings` writes)")
    present = [s for s in scoring.systems if (Path(runs) / s).is_dir()]
    if not present:
        return replace(scoring, warnings=(*scoring.warnings, f"scale framings: no system folder of "
                                          f"{', '.join(scoring.systems)} in {runs}; not scored"), _index={})
    loaded = load_runs(runs, items, None, present, (), allow_modified_items)
    notes = [f"scale framings: {warning}" for warning in loaded.warnings]
    notes += [f"scale framings: {x.system} / {x.task}: {x.reason}" for x in loaded.exclusions]
    estimates = score_scale_invariance(loaded.core, loaded.answers, present, scoring.resamples, scoring.seed)
    return replace(
        scoring,
        scale=(*scoring.scale, *estimates),
        warnings=(*scoring.warnings, *notes),
        item_checks=(*scoring.item_checks,
                     *((f"{SCALE_INVARIANCE}/{task}", how) for task, how in loaded.item_checks)),
        _index={},
    )


def empty_scoring(resamples: int, seed: int) -> Scoring:
    """A scoring of no core or reference task (``dp score`` on a scale suite folder alone)."""
    return Scoring(estimates=(), systems=(), core_tasks=(), reference_tasks=(), exclusions=(), warnings=(),
                   answer_files=(), layers={}, resamples=resamples, seed=seed)


def default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def score_runs(
    runs: str | Path = "runs",
    items: str | Path | None = None,
    reference: str | Path | None = None,
    out: str | Path = "reports",
    systems: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    tasks: Sequence[ReferenceTask] | None = None,
    figures: bool = True,
    jobs: int | None = None,
    partial: bool = False,
    allow_modified_items: bool = False,
    gate: str | Path | None = None,
    invariance: str | Path | None = None,
    invariance_runs: str | Path = "runs-invariance",
    scale: str | Path | None = None,
    scale_runs: str | Path = "runs-scale",
    scale_invariance: str | Path | None = None,
    scale_invariance_runs: str | Path = "runs-scale-invariance",
) -> Scoring:
    """Read, score and write every report and figure under ``out``; returns the scoring.

    With ``partial``, tasks below 99% coverage are also scored on their answered items, in
    ``partial.md`` / ``partial.csv`` (labelled "partial, not comparable"; never on the leaderboard).
    With ``gate`` (a `dp gate` gate.json), the leaderboard gets the "Cert. cov." column.
    With ``invariance`` (an invariance suite's items folder, answered under ``invariance_runs``), the suite's
    metrics join the scoring (:func:`with_invariance`); a suite given as ``items`` is scored the same way.
    With ``scale`` (a scale suite folder, answered under ``scale_runs``), the scale suite's metrics join it
    (:func:`with_scale`); a scale folder given as ``items`` (and nothing else to score) is scored alone, its answers
    under ``runs``. With ``scale_invariance`` (the suite's framings, answered under ``scale_invariance_runs``), their
    metrics join it too (:func:`with_scale_invariance`).
    """
    from decisionpivot.score.report import write_reports

    if is_scale_folder(items):
        if scale is not None or reference is not None or invariance is not None:
            raise DecisionPivotError(f"{items} is a scale suite: score it alone with --items, or the core with --items "
                                     "and the scale suite with --scale")
        scoring = with_scale(empty_scoring(resamples, seed), items, runs, allow_modified_items, systems)
        if scale_invariance is not None:
            scoring = with_scale_invariance(scoring, scale_invariance, scale_invariance_runs, allow_modified_items)
        write_reports(scoring, out, {})
        return scoring
    loaded = load_runs(runs, items, reference, systems, tasks, allow_modified_items)
    scoring = score_loaded(loaded, resamples, seed, jobs or default_jobs(), runs=Path(runs), partial=partial,
                           gate=Path(gate) if gate is not None else None)
    if invariance is not None:
        scoring = with_invariance(scoring, invariance, invariance_runs, allow_modified_items)
    if scale is not None:
        scoring = with_scale(scoring, scale, scale_runs, allow_modified_items)
    if scale_invariance is not None:
        scoring = with_scale_invariance(scoring, scale_invariance, scale_invariance_runs, allow_modified_items)
    cards = {card.name: (card.layer, card.metric, card.chance) for card, _ in loaded.reference}
    write_reports(scoring, out, cards)
    if figures:
        from decisionpivot.score.figures import write_figures
        from decisionpivot.score.report import leaderboard_rows

        ranked = [system for system, _, _ in leaderboard_rows(scoring)]
        write_figures(scoring, loaded.core, loaded.answers, Path(out) / "figures", ranked)
    return scoring


@dataclass(frozen=True)
class ComparisonRow:
    """One metric of ``dp compare``: both systems and their paired difference."""

    track: str
    """``core`` or ``reference``."""
    task: str
    """``macro``, a family, a reference layer ``layer:<L>``."""
    metric: str
    """Metric name."""
    value_a: float
    """System A's value."""
    value_b: float
    """System B's value."""
    difference: Difference
    """A - B with the matched-resample interval."""


COMPARED_CORE = (
    "pair_accuracy",
    "item_accuracy",
    "pair_direction",
    "coverage_at_5",
    "accuracy_at_90",
    "share_at_90",
    "brier",
    "aurc",
)


def compare_runs(
    system_a: str,
    system_b: str,
    runs: str | Path = "runs",
    items: str | Path | None = None,
    reference: str | Path | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    tasks: Sequence[ReferenceTask] | None = None,
    allow_modified_items: bool = False,
) -> tuple[list[ComparisonRow], list[str]]:
    """Paired differences A - B over the tasks both systems have (matched resamples).

    Returns the rows and notes (tasks left out because one of the systems lacks them).
    """
    if system_a == system_b:
        raise DecisionPivotError("compare needs two different systems")
    loaded = load_runs(runs, items, reference, [system_a, system_b], tasks, allow_modified_items)
    notes = [note] if (note := modified_note(loaded.item_checks)) else []
    kept: dict[tuple[str, str], TaskAnswers] = {}
    for task in [layout.task for layout in loaded.core] + [card.name for card, _ in loaded.reference]:
        both = [(s, task) in loaded.answers for s in (system_a, system_b)]
        if all(both):
            kept.update({(s, task): loaded.answers[(s, task)] for s in (system_a, system_b)})
        elif any(both):
            notes.append(f"{task}: left out, only {system_a if both[0] else system_b} has it scored")
    common = replace(loaded, answers=kept, short={})
    scoring = score_loaded(common, resamples, seed, default_jobs())
    rows = []
    scopes = [(CORE, MACRO, metric) for metric in COMPARED_CORE]
    scopes += [(CORE, family, "pair_accuracy") for family in scoring.core_tasks]
    layers = sorted({card.layer for card, _ in loaded.reference})
    scopes += [(REFERENCE, MACRO, SCORE)] + [(REFERENCE, f"layer:{layer}", SCORE) for layer in layers]
    for track, task, metric in scopes:
        a = scoring.get(system_a, track, task, metric)
        b = scoring.get(system_b, track, task, metric)
        if a is None or b is None:
            continue
        rows.append(
            ComparisonRow(
                track,
                task,
                metric,
                a.value,
                b.value,
                paired_difference(a.value, a.samples, b.value, b.samples),
            )
        )
    notes.append(
        f"{resamples} matched resamples, seed {seed}; aggregation: "
        + ", ".join(f"{m} {how}" for m, (how, _) in CORE_METRICS.items() if m in COMPARED_CORE)
    )
    return rows, notes


def format_comparison(
    system_a: str, system_b: str, rows: Sequence[ComparisonRow], notes: Sequence[str]
) -> str:
    """The ``dp compare`` table as text."""

    def number(value: float) -> str:
        return "-" if value != value else f"{value:.1f}"

    header = (
        f"{'track':<10} {'task':<18} {'metric':<15} {system_a[:12]:>12} {system_b[:12]:>12}   A-B [95% CI]"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        d = r.difference
        lines.append(
            f"{r.track:<10} {r.task:<18} {r.metric:<15} {number(r.value_a):>12} {number(r.value_b):>12}   "
            f"{d.value:+.1f} [{number(d.ci_low)}, {number(d.ci_high)}]"
        )
    return "\n".join(lines + [""] + [f"note: {note}" for note in notes])
