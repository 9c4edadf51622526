"""Prices, answers and certified thresholds in; one :class:`CostEntry` per system and family (and pooled) out.

The answers are read by the scorer's rules (failed and missing predictions are wrong, at confidence 1/|O|).
The minimum-cost threshold is chosen with the labels of the answers it is reported on (retrospective, as
C(0.05)); the certified threshold comes from `dp gate`'s gate.json, certified on fresh draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from decisionpivot.cost.curve import cost_curve, cost_per_thousand, minimum_cost_threshold
from decisionpivot.errors import DecisionPivotError
from decisionpivot.score.certified import answer_fingerprints, read_gate_for
from decisionpivot.score.pipeline import LoadedRuns, load_runs
from decisionpivot.user_files import PRICE, cost_file_schema, read_yaml_checked

POOLED = "pooled"
"""Entry of all the system's families together (one threshold for all; `dp gate`'s pooled entry)."""


@dataclass(frozen=True)
class Prices:
    """What a deploying team pays, per item."""

    wrong: float
    """Cost of one wrong automated decision."""
    escalated: float
    """Cost of one item sent to a person (or a larger model)."""
    families: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Family -> (wrong, escalated) where a family's prices differ."""

    def of(self, family: str) -> tuple[float, float]:
        return self.families.get(family, (self.wrong, self.escalated))


def read_prices(path: Path | None, wrong: float | None, escalated: float | None) -> Prices:
    """Prices from the YAML cost file (``wrong:``, ``escalated:``, optional ``families: {name: {wrong:,
    escalated:}}``, read by :func:`~decisionpivot.user_files.cost_file_schema`: known keys and families only, every
    price within :data:`~decisionpivot.user_files.PRICE`) with the flags winning (the same bound); both prices
    must be given one way or the other."""
    from decisionpivot.generate.registry import families as registered

    record: dict[str, Any] = {}
    if path is not None:
        schema = cost_file_schema([spec.name for spec in registered()])
        record = read_yaml_checked(path, "a cost file: wrong:, escalated: and optional families:", schema)
    base_wrong = PRICE.require(wrong, "--cost-wrong") if wrong is not None else record.get("wrong")
    base_escalated = (PRICE.require(escalated, "--cost-escalated") if escalated is not None
                      else record.get("escalated"))
    if base_wrong is None or base_escalated is None:
        raise DecisionPivotError("cost: give --cost-wrong and --cost-escalated, or a --costs file with wrong: and "
                                 "escalated:")
    prices = Prices(float(base_wrong), float(base_escalated))
    for name, entry in sorted((record.get("families") or {}).items()):
        prices.families[str(name)] = (float(entry.get("wrong", prices.wrong)),
                                      float(entry.get("escalated", prices.escalated)))
    return prices


def certified_thresholds(gate: Path | None, loaded: LoadedRuns) -> dict[tuple[str, str], float | None]:
    """(system, family or ``pooled``) -> the threshold gate.json certifies (None: do not automate / refused).

    gate.json is refused when it was checked on other items or made from other answers than ``loaded``
    (:func:`~decisionpivot.score.certified.read_gate_for`) or certified on recalibrated confidences: a cost at a
    threshold certified for other confidences would be no cost of these."""
    if gate is None:
        return {}
    record = read_gate_for(gate, {layout.task: layout.items_sha256 for layout in loaded.core},
                           answer_fingerprints(loaded.answers))
    recalibrated = sorted(system for system, entry in record["systems"].items()
                          if system in loaded.systems and entry.get("recalibration") is not None)
    if recalibrated:
        raise DecisionPivotError(
            f"--gate {gate}: {', '.join(recalibrated)} certified on confidences recalibrated by a `dp recalibrate` "
            "map; dp cost reads the systems' own confidences, which those thresholds do not hold on: give the "
            "gate.json of `dp gate` without --recalibration, or leave those systems out (--systems)")
    out: dict[tuple[str, str], float | None] = {}
    for system, entry in record["systems"].items():
        for family, fam in entry.get("families", {}).items():
            out[(system, family)] = fam.get("threshold")
        out[(system, POOLED)] = (entry.get("pooled") or {}).get("threshold")
    return out


@dataclass(frozen=True)
class CostEntry:
    """The cost curve of one system on one family (or pooled) and its marked points."""

    system: str
    """System name."""
    family: str
    """Family, or ``pooled``."""
    items: int
    """Items."""
    prices: tuple[float, float]
    """(wrong, escalated) used."""
    thresholds: np.ndarray
    """Curve thresholds, decreasing, the first infinite (escalate everything)."""
    costs: np.ndarray
    """Cost per 1,000 decisions at each."""
    minimum_threshold: float
    """Threshold of least cost (infinite: automate nothing)."""
    minimum_cost: float
    """Its cost per 1,000."""
    certified_threshold: float | None
    """`dp gate`'s certified threshold (None: none, or no gate.json given)."""
    certified_cost: float | None
    """Cost per 1,000 at the certified threshold; with none certified ("do not automate", "refused"), the
    escalate-everything cost; None when no gate.json was given or it has no entry for this system and family."""
    automate_all_cost: float
    """Cost per 1,000 at threshold 0."""
    items_check: str = ""
    """How the family's items file was accepted (:func:`decisionpivot.item_origin.accept_items_file`; ``""`` for
    the pooled entry): outputs say when it was read only under ``--allow-modified-items``."""


def cost_entry(system: str, family: str, confidence: np.ndarray, correct: np.ndarray, prices: tuple[float, float],
               certified: float | None, gated: bool, items_check: str = "") -> CostEntry:
    thresholds, costs = cost_curve(confidence, correct, *prices)
    best, least = minimum_cost_threshold(thresholds, costs)
    at_certified = None
    if gated:
        at_certified = cost_per_thousand(confidence, correct, certified if certified is not None else math.inf, *prices)
    return CostEntry(system, family, int(confidence.size), prices, thresholds, costs, best, least, certified,
                     at_certified, cost_per_thousand(confidence, correct, 0.0, *prices), items_check)


def cost_runs(runs: Path, items: Path, prices: Prices, gate: Path | None,
              systems: Sequence[str] | None = None, allow_modified_items: bool = False) -> list[CostEntry]:
    """Every system under ``runs`` (or those named), per family with scorable answers and pooled; the certified
    figures only where gate.json has an entry (a system or family it does not hold has no certified threshold,
    which is not "do not automate"). Items the rule of every verb refuses stop it unless ``allow_modified_items``;
    each entry says how its items were accepted."""
    loaded = load_runs(runs, items, None, systems, tasks=(), allow_modified_items=allow_modified_items)
    checks = dict(loaded.item_checks)
    certified = certified_thresholds(gate, loaded)
    out = []
    for system in loaded.systems:
        pooled_confidence, pooled_correct = [], []
        for layout in loaded.core:
            answers = loaded.answers.get((system, layout.task))
            if answers is None:
                continue
            out.append(cost_entry(system, layout.task, answers.confidence, answers.correct, prices.of(layout.task),
                                  certified.get((system, layout.task)), (system, layout.task) in certified,
                                  checks[layout.task]))
            pooled_confidence.append(answers.confidence)
            pooled_correct.append(answers.correct)
        if pooled_confidence and not prices.families:  # one price for all: the pooled curve is defined
            out.append(cost_entry(system, POOLED, np.concatenate(pooled_confidence), np.concatenate(pooled_correct),
                                  (prices.wrong, prices.escalated), certified.get((system, POOLED)),
                                  (system, POOLED) in certified))
    return out
