"""Facts about a system that several pages show: what kind it is, how complete its scores are, how it ran.

The leaderboard, the runs page and each system page read these, so a system is described the same way
everywhere: a family heuristic answers one family only (its macro is over that family, not comparable
with full systems), a task below the 99% of records is a partial run ("partial, not comparable"), failed
predictions count as incorrect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from decisionpivot.items import LAYERS
from decisionpivot.report.html import DASH, esc, number
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.score.reference import SCORE
from decisionpivot.score.results import CORE, MACRO, REFERENCE, UNIFORM_GUESS

PARTIAL_LABEL = "partial, not comparable"


@dataclass(frozen=True)
class SystemFacts:
    """How complete one system's scores are and how it was run."""

    system: str
    """System name."""
    kind: str
    """Kind of system from its meta files (``chat``, ``baseline``, ``python``...; ``-`` when unknown)."""
    heuristic_family: str | None
    """The family a family-heuristic baseline answers, else None."""
    core_families: int
    """Core families scored for the system."""
    reference_layers: int
    """Reference layers with a scored task."""
    failed: int
    """Failed predictions of the included tasks, as scoring.json's operations record them (the leaderboard's
    "Failed" column; an excluded partial task's records are not counted)."""
    errors: int
    """Records with an explicit error in the included tasks' answer files (the tasks ``failed`` counts)."""
    restricted: int
    """Error records that are input restrictions (scoring.json's operations)."""
    partial_tasks: tuple[str, ...]
    """Tasks excluded for records below 99% of items (partial runs)."""
    missing_tasks: tuple[str, ...]
    """Core tasks without an answer file."""
    concurrency: str
    """The in-flight limit latency was measured at (``16 (adaptive)``), or a dash when not recorded."""
    modified_items: bool
    """Some task was evaluated with --allow-modified-items."""

    @property
    def full_core(self) -> bool:
        return self.core_families > 0 and not self.missing_tasks and not self.partial_tasks

    def badge_text(self) -> str:
        if self.heuristic_family is not None:
            return "family heuristic"
        return "baseline" if self.kind == "baseline" else ""


def _concurrency(system_config: Mapping[str, Any]) -> str:
    limit = system_config.get("concurrency")
    if limit is None:
        return DASH
    adaptive = system_config.get("adaptive_concurrency")
    return f"{limit} (adaptive)" if adaptive else str(limit)


def system_facts(inputs: ReportInputs, system: str) -> SystemFacts:
    meta = inputs.meta(system)
    config = meta.get("system") if isinstance(meta.get("system"), Mapping) else {}
    kind = str(config.get("kind") or meta.get("kind") or DASH)
    heuristic = config.get("family") if kind == "baseline" and config.get("baseline") == "heuristic" else None
    pair = inputs.get(system, CORE, MACRO, "pair_accuracy")
    overall = inputs.get(system, REFERENCE, MACRO, SCORE)
    excluded = inputs.exclusions(system)
    partial = tuple(x["task"] for x in excluded if str(x.get("reason", "")).startswith("records for"))
    missing = tuple(x["task"] for x in excluded if x.get("track") == CORE and x.get("reason") == "no answer file")
    ops = inputs.operations(system)
    left_out = {x["task"] for x in excluded}
    return SystemFacts(
        system=system,
        kind=kind,
        heuristic_family=str(heuristic) if heuristic else None,
        core_families=pair.n if pair is not None else 0,
        reference_layers=overall.n if overall is not None else 0,
        failed=int(ops.get("failed_predictions", 0)),
        errors=sum(int(a.get("error_records", 0)) for a in inputs.answer_files(system)
                   if a.get("task") not in left_out),
        restricted=int(ops.get("input_restrictions", 0)),
        partial_tasks=partial,
        missing_tasks=missing,
        concurrency=_concurrency(config),
        modified_items=bool(ops.get("modified_items")),
    )


def system_notes(inputs: ReportInputs, facts: SystemFacts) -> list[str]:
    """Notes of a leaderboard row, as escaped HTML: coverage, partial runs, failed predictions."""
    notes = []
    families = len(inputs.families)
    if facts.heuristic_family is not None:
        notes.append(f"answers only {esc(facts.heuristic_family)} (a shortcut baseline)")
    elif facts.core_families and facts.core_families < families:
        notes.append(f"core over {facts.core_families} of {families} families")
    if inputs.reference_tasks and 0 < facts.reference_layers < len(LAYERS):
        notes.append(f"reference over {facts.reference_layers} of {len(LAYERS)} layers")
    if facts.partial_tasks:
        notes.append(f'<span class="partial">{PARTIAL_LABEL}</span>: {esc(", ".join(facts.partial_tasks))} '
                     "below 99% of items (excluded)")
    if facts.failed:
        notes.append(f"{facts.failed} failed prediction{'s' if facts.failed != 1 else ''} (counted as incorrect"
                     + (f"; {facts.restricted} input restrictions" if facts.restricted else "") + ")")
    if facts.modified_items:
        notes.append("items modified (--allow-modified-items)")
    return notes


def latency_text(inputs: ReportInputs, facts: SystemFacts) -> str:
    ops = inputs.operations(facts.system)
    p50, p95 = ops.get("latency_p50_s"), ops.get("latency_p95_s")
    if p50 is None and p95 is None:
        return DASH
    at = f" @ {esc(facts.concurrency)}" if facts.concurrency != DASH else ""
    return f"{number(p50, 3)} / {number(p95, 3)}{at}"


def ranked_systems(inputs: ReportInputs) -> list[str]:
    """Systems in leaderboard order: as ``dp score`` recorded it in scoring.json (ranked systems best first,
    ties by fewer failed predictions; then partial, then unscored ones), else (a scoring.json from before it
    recorded one) by macro pair accuracy, unscored last, then name."""
    systems = [s for s in inputs.systems if s != UNIFORM_GUESS]
    recorded = [s for s in inputs.leaderboard_ranks if s in systems]

    def key(system: str) -> tuple[float, str]:
        value = inputs.value(system, CORE, MACRO, "pair_accuracy")
        return (-(value if value is not None else -1.0), system)

    return recorded + sorted((s for s in systems if s not in recorded), key=key)


def rank_text(inputs: ReportInputs, system: str, position: int) -> str:
    """The rank leaderboard.md shows (``2=`` for a tie, a dash for a system it does not rank); ``position`` in
    the table for a scoring.json from before ranks were recorded."""
    if not inputs.leaderboard_ranks:
        return str(position)
    return inputs.leaderboard_ranks.get(system) or DASH
