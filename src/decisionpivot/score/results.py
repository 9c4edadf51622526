"""What a scoring produces: estimates with their resamples, flat score records, exclusions.

Every value is on a 0-100 scale (percent; ECE, AURC and Brier multiplied by 100 as well), so a record
reads the same in JSON, Markdown and LaTeX.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from decisionpivot.score.answers import AnswerSummary

if TYPE_CHECKING:
    from decisionpivot.overlap.provenance import TaskProvenance
    from decisionpivot.score.operations import SystemOperations
    from decisionpivot.score.partial import PartialScore
    from decisionpivot.score.robustness import OrderRobustness
from decisionpivot.score.bootstrap import CONFIDENCE_LEVEL, percentile_interval

CORE = "core"
REFERENCE = "reference"
MACRO = "macro"
"""Task name of aggregates over tasks (family-macro or pooled, see the score package docstring)."""
SUITE_LABEL = "invariance"
"""Label prefix of an invariance suite's files among a scoring's item checks (``invariance/policy_case``)."""
UNIFORM_GUESS = "uniform-guess"
"""Pseudo-system carrying item-only baselines (chance pair accuracy)."""


@dataclass(frozen=True)
class Estimate:
    """One metric value for one system and scope, with its bootstrap resamples."""

    system: str
    """System name (or :data:`UNIFORM_GUESS` for item-only baselines)."""
    track: str
    """``core`` or ``reference``."""
    task: str
    """Family or reference task, ``layer:<L>`` for a reference layer, ``macro`` for an aggregate."""
    level: int | None
    """Difficulty level 1-3, or None over all levels."""
    metric: str
    """Metric name (see :data:`decisionpivot.score.core.CORE_METRICS` and the reference track)."""
    value: float
    """Point estimate on the 0-100 scale; NaN when undefined (e.g. no item at confidence >= 0.90)."""
    n: int
    """Units the value averages over: items, groups, pairs or queries; tasks or layers for aggregates."""
    samples: np.ndarray | None = field(default=None, compare=False, repr=False)
    """``(R,)`` resampled values on the same scale, or None for point-only metrics (the ECE noise floor)."""

    @property
    def key(self) -> tuple[str, str, str, int | None, str]:
        return (self.system, self.track, self.task, self.level, self.metric)

    @cached_property
    def ci(self) -> tuple[float, float]:
        """The 95% percentile interval of the resamples (NaN, NaN without resamples)."""
        return percentile_interval(self.samples)

    def interval(self) -> tuple[float, float]:
        return self.ci


def prefill_intervals(estimates: Sequence[Estimate]) -> None:
    """Compute the intervals of many estimates in one vectorised call (what the reports read)."""
    by_length: dict[int, list[Estimate]] = {}
    for e in estimates:
        if e.samples is not None:
            by_length.setdefault(e.samples.size, []).append(e)
    for group in by_length.values():
        stacked = np.stack([e.samples for e in group])
        undefined = np.isnan(stacked).any(axis=1)
        ends = np.full((len(group), 2), np.nan)
        if (~undefined).any():
            tail = 100 * (1 - CONFIDENCE_LEVEL) / 2
            ends[~undefined] = np.percentile(stacked[~undefined], [tail, 100 - tail], axis=1).T
        for e, row, slow in zip(group, ends, undefined, strict=True):
            # the cached_property reads its value from the instance dict: fill it directly
            e.__dict__["ci"] = percentile_interval(e.samples) if slow else (float(row[0]), float(row[1]))


@dataclass(frozen=True)
class ScoreRecord:
    """One line of ``scores.json``."""

    system: str
    """System name."""
    track: str
    """``core`` or ``reference``."""
    task: str
    """Family / reference task, ``layer:<L>``, or ``macro``."""
    level: int | None
    """Difficulty level, or None over all levels."""
    metric: str
    """Metric name."""
    value: float | None
    """Point estimate (0-100 scale), None when undefined."""
    ci_low: float | None
    """Lower end of the 95% percentile bootstrap interval, None when not computed."""
    ci_high: float | None
    """Upper end."""
    n: int
    """Units averaged over (see :class:`Estimate`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "track": self.track,
            "task": self.task,
            "level": self.level,
            "metric": self.metric,
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n": self.n,
        }


def _clean(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 6)


def to_record(estimate: Estimate) -> ScoreRecord:
    low, high = estimate.interval()
    return ScoreRecord(
        system=estimate.system,
        track=estimate.track,
        task=estimate.task,
        level=estimate.level,
        metric=estimate.metric,
        value=_clean(estimate.value),
        ci_low=_clean(low),
        ci_high=_clean(high),
        n=estimate.n,
    )


@dataclass(frozen=True)
class Exclusion:
    """A task left out of a system's scores, and why."""

    system: str
    """System name."""
    track: str
    """``core`` or ``reference``."""
    task: str
    """Task name."""
    reason: str
    """Why (no answer file, records below 99% of items)."""


@dataclass(frozen=True)
class Scoring:
    """Everything ``dp score`` computed, ready for the report writers."""

    estimates: tuple[Estimate, ...]
    """All estimates."""
    systems: tuple[str, ...]
    """Systems scored, in the order given."""
    core_tasks: tuple[str, ...]
    """Core families scored (layer order, then name)."""
    reference_tasks: tuple[str, ...]
    """Reference tasks scored."""
    exclusions: tuple[Exclusion, ...]
    """Tasks left out per system."""
    warnings: tuple[str, ...]
    """Non-fatal findings (ignored probability keys, invalid probabilities, ...)."""
    answer_files: tuple[AnswerSummary, ...]
    """Counts of every answer file read."""
    layers: dict[str, str]
    """Task (core family or reference task) -> decision layer."""
    resamples: int
    """Bootstrap resamples per interval."""
    seed: int
    """Bootstrap seed."""
    operations: tuple[SystemOperations, ...] = ()
    """Per system: readout, input-restriction losses, latency, cost."""
    robustness: tuple[OrderRobustness, ...] = ()
    """Option-order robustness per system and family."""
    partial: tuple[PartialScore, ...] = ()
    """Partial scores of quick tries, not comparable; empty unless asked."""
    order_free: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(system, families left out of the option-order figures: yes/no items asked as noul have no order)."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(task, how its items file was accepted: :func:`decisionpivot.item_origin.accept_items_file`; an invariance
    suite's files as ``invariance/<family>``)."""
    certified: dict[str, float | None] | None = None
    """System -> certified coverage (fraction) from `dp gate`'s gate.json; None: no "Cert. cov." column."""
    certified_note: str = ""
    """Leaderboard footnote of the "Cert. cov." column."""
    provenance: tuple[TaskProvenance, ...] = ()
    """Training-data provenance flags of the systems with a provenance file (decisionpivot.overlap.provenance)."""
    invariance: tuple[Estimate, ...] = ()
    """Invariance-suite estimates (track ``invariance``, decisionpivot.score.invariance); empty without a suite."""
    one_question: tuple[str, ...] = ()
    """Systems that asked the suite's ``together`` items one question per request (no request interference)."""
    scale: tuple[Estimate, ...] = ()
    """Scale-suite estimates (track ``scale``, decisionpivot.score.scale); empty without a scale suite."""
    scale_readouts: tuple[tuple[str, str], ...] = ()
    """(system, how it read the scale suite: ``systemone/score``...) for the scale tables."""
    _index: dict[tuple[str, str, str, int | None, str], Estimate] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self._index.update({e.key: e for e in self.estimates})
        self._index.update({e.key: e for e in self.invariance})
        self._index.update({e.key: e for e in self.scale})
        prefill_intervals([*self.estimates, *self.invariance, *self.scale])

    def get(
        self, system: str, track: str, task: str, metric: str, level: int | None = None
    ) -> Estimate | None:
        return self._index.get((system, track, task, level, metric))

    def records(self) -> list[ScoreRecord]:
        """The lines of ``scores.json``: every core and reference estimate, then the scale suite's (track ``scale``)."""
        return [to_record(e) for e in (*self.estimates, *self.scale)]

    def excluded(self, system: str, track: str) -> list[Exclusion]:
        return [x for x in self.exclusions if x.system == system and x.track == track]


def estimates_by(estimates: Iterable[Estimate], **where: Any) -> list[Estimate]:
    """Estimates whose fields equal the given values (``metric="pair_accuracy", level=None``...)."""
    return [e for e in estimates if all(getattr(e, k) == v for k, v in where.items())]


def system_scores(
    records: Iterable[dict[str, Any]], track: str, metric: str, task: str = MACRO, level: int | None = None
) -> dict[str, float]:
    """System -> value of one metric from ``scores.json`` records (pseudo-systems left out), e.g. to
    correlate two scorings with :func:`decisionpivot.score.bootstrap.spearman`: two core versions, two
    fresh draws, or core pair accuracy against the reference score of one scoring."""
    return {
        r["system"]: r["value"]
        for r in records
        if r["track"] == track
        and r["metric"] == metric
        and r["task"] == task
        and r["level"] == level
        and r["system"] != UNIFORM_GUESS
        and r["value"] is not None
    }
