"""Invariance for scales, scored: the invariance suite's metric functions on the scale suite's framings (issue 40).

The framed scale suite (:mod:`decisionpivot.scale.framing`: ``plain``, ``reversed``, ``letters``, ``words``,
``rubric``) is in the invariance suite's format, so an answer is put back on its plain member's options through
``key_map`` exactly as there (:func:`decisionpivot.score.invariance.mapped_probabilities`), and the metrics are that
suite's own functions, imported: robust pair accuracy (a group counts only with every member's level exact under
every framing), flip rate (the share of framed items whose mapped level differs from the plain member's), and
accuracy, its change from plain and the flip rate per framing. One metric is the scale's own:

* ``same_request:<framing>`` - the share of the framing's items whose request body was byte for byte the plain
  member's (records' ``request_sha256``): the framing did not reach the model. System One asks a score question
  with its levels' meanings as an array, so a renaming of the level keys (``letters``, ``words``) sends the same
  bytes there; those items are left out of every flip rate (they could not flip), and where all of a framing's
  items are, its flip rate has no value and the table says "same request".
* ``position_share`` - of the ``reversed`` items whose plain member was answered off the middle of the scale, the
  share answered with the **mirror** of the plain answer (level N-1-l for plain level l): the answer followed the
  position in the listing, not the level. 0 for a system that reads the levels; 100 for one that reads positions.

Units are resampled by contrast group with the scorer's seed, as everywhere. Track ``scale_invariance``; values on
the 0-100 scale.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.scale.framing import PLAIN, SCALE_FRAMINGS
from decisionpivot.score.answers import TaskAnswers, same_request
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, unit_weights
from decisionpivot.score.invariance import (
    FramedLayout,
    accuracy_change,
    flip_rate,
    framing_accuracy,
    is_framed,
    mapped_probabilities,
    robust_pair_accuracy,
    share,
)
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.metrics import Weights, pair_accuracy
from decisionpivot.score.results import MACRO, Estimate

SCALE_INVARIANCE = "scale_invariance"
"""Track name of the scale framings' estimates."""
REVERSED = "reversed"
SCALE_INVARIANCE_METRICS: dict[str, str] = {
    "robust_pair_accuracy": "share of contrast groups with every member's level exact under every framing",
    "plain_pair_accuracy": "share of contrast groups with every plain member's level exact (the suite's figure on "
                           "the framed groups)",
    "flip_rate": "share of framed items (every framing but plain) whose level differs from the plain member's; "
                 "gold never differs",
    "position_share": "share of reversed items answered with the mirror of the plain member's level (off the "
                      "middle): the answer followed the position, not the level",
    "accuracy:<framing>": "exact accuracy of the items of one framing",
    "accuracy_change:<framing>": "accuracy of the framing minus accuracy of the plain items (percentage points)",
    "flip_rate:<framing>": "flip rate among the items of one framing (items sent as their plain member left out)",
    "same_request:<framing>": "share of the framing's items whose request was byte for byte the plain member's: "
                              "the framing did not reach the model (left out of every flip rate)",
}
"""Metric -> meaning; ``<framing>`` is one of :data:`decisionpivot.scale.framing.SCALE_FRAMINGS`."""
HEADLINE = ("robust_pair_accuracy", "flip_rate", "position_share")
"""Shown on the scale leaderboard (macro over the families)."""


def position_share(mirrored: np.ndarray, eligible: np.ndarray, weights: Weights = None) -> np.ndarray:
    """Position share: among ``eligible`` reversed items (usable, plain member answered off the middle), the share
    whose mapped level is the mirror ``N - 1 - l`` of the plain member's level ``l``."""
    return share(mirrored, eligible, weights)


def scale_framed_layout(layout: TaskLayout) -> FramedLayout:
    """A framed scale family's items as the invariance suite's :class:`FramedLayout` (plain member, key map column
    of each option); an item with another framing, or a key map that does not map onto its plain member, is an error
    naming the file and item."""
    where = str(layout.items_path)
    plain_of = {str(item.extra["base"]): i for i, item in enumerate(layout.items) if item.extra["framing"] == PLAIN}
    n, width = layout.size, layout.max_options
    plain = np.full(n, -1, dtype=np.int64)
    base_column = np.tile(np.arange(width, dtype=np.int64), (n, 1))
    framings = []
    for i, item in enumerate(layout.items):
        framing = str(item.extra["framing"])
        if framing not in SCALE_FRAMINGS:
            raise DecisionPivotError(f"{where}: item {item.id}: unknown scale framing {framing!r}; expected one of "
                                     f"{', '.join(SCALE_FRAMINGS)}")
        framings.append(framing)
        p = plain_of.get(str(item.extra["base"]), -1)
        plain[i] = p
        if p < 0:
            continue
        base_keys = layout.option_keys[p]
        key_map = item.extra.get("key_map") or {}
        mapped = [str(key_map.get(k)) for k in item.option_keys]
        if sorted(mapped) != sorted(base_keys):
            raise DecisionPivotError(f"{where}: item {item.id}: key_map {dict(key_map)} does not map its options "
                                     f"{list(item.option_keys)} onto the plain member's {list(base_keys)}")
        base_column[i, : len(mapped)] = [base_keys.index(k) for k in mapped]
    none = np.full(n, -1, dtype=np.int64)
    return FramedLayout(layout, tuple(framings), plain, base_column, none, none, none, none)


def _inputs(framed: FramedLayout, answers: TaskAnswers) -> dict[str, tuple[Any, ...]]:
    layout = framed.layout
    mapped = mapped_probabilities(framed, answers.probabilities)
    predicted = np.argmax(mapped, axis=-1)
    answered = answers.answered
    has_plain = framed.plain >= 0
    plain = np.where(has_plain, framed.plain, 0)
    plain_predicted = np.where(has_plain, predicted[plain], -1)
    usable = ~answers.failed & has_plain & ~answers.failed[plain]
    sent_as_plain = same_request(answers.request_sha256, framed.plain) if answers.request_sha256 else \
        np.zeros(layout.size, dtype=bool)
    flippable = usable & ~sent_as_plain
    correct = answers.correct
    is_plain = framed.mask(PLAIN)
    levels = layout.option_count
    reversed_items = framed.mask(REVERSED)
    off_middle = 2 * plain_predicted != levels - 1
    inputs: dict[str, tuple[Any, ...]] = {
        "robust_pair_accuracy": (robust_pair_accuracy, correct, layout.group_index),
        "plain_pair_accuracy": (_plain_pair_accuracy, correct, layout.group_index, is_plain),
        "flip_rate": (flip_rate, predicted, plain_predicted, ~is_plain & flippable),
        "position_share": (position_share, predicted == levels - 1 - plain_predicted,
                           reversed_items & usable & off_middle),
    }
    for framing in SCALE_FRAMINGS:
        mask = framed.mask(framing)
        if not mask.any():
            continue
        inputs[f"accuracy:{framing}"] = (framing_accuracy, correct, mask)
        if framing != PLAIN:
            inputs[f"accuracy_change:{framing}"] = (accuracy_change, correct, mask, is_plain)
            inputs[f"flip_rate:{framing}"] = (flip_rate, predicted, plain_predicted, mask & flippable)
            inputs[f"same_request:{framing}"] = (share, sent_as_plain, mask & answered)
    return inputs


def _plain_pair_accuracy(correct: np.ndarray, group_index: np.ndarray, is_plain: np.ndarray,
                         weights: Weights = None) -> np.ndarray:
    """Pair accuracy of the plain members only (every item of another framing counts as right)."""
    return pair_accuracy(np.asarray(correct, dtype=bool) | ~is_plain, group_index, weights)


def _units(function: Any, arguments: tuple[Any, ...]) -> int:
    if function in (robust_pair_accuracy, _plain_pair_accuracy):
        return int(np.unique(arguments[1]).size)
    return int(np.asarray(arguments[-1], dtype=bool).sum())


def score_scale_invariance(layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers],
                           systems: Sequence[str], resamples: int, seed: int = BOOTSTRAP_SEED) -> list[Estimate]:
    """Every metric per framed family and system, then the ``macro`` over the families (mean of those where it is
    defined, per resample)."""
    estimates: list[Estimate] = []
    for layout in layouts:
        if not is_framed(layout):
            raise DecisionPivotError(f"{layout.items_path}: not a framed scale suite (items without 'framing' and "
                                     "'base')")
        framed = scale_framed_layout(layout)
        weights = unit_weights(layout.task, layout.group_index, resamples, seed)
        for system in systems:
            if (system, layout.task) not in answers:
                continue
            for metric, (function, *arguments) in _inputs(framed, answers[(system, layout.task)]).items():
                value = float(function(*arguments))
                samples = np.asarray(function(*arguments, weights), dtype=np.float64)
                estimates.append(Estimate(system, SCALE_INVARIANCE, layout.task, None, metric, 100 * value,
                                          _units(function, tuple(arguments)), 100 * samples))
    by_scope: dict[tuple[str, str], list[Estimate]] = {}
    for e in estimates:
        if not np.isnan(e.value):
            by_scope.setdefault((e.system, e.metric), []).append(e)
    macro = [Estimate(system, SCALE_INVARIANCE, MACRO, None, metric, float(np.mean([e.value for e in parts])),
                      len(parts), np.mean(np.stack([e.samples for e in parts]), axis=0))
             for (system, metric), parts in by_scope.items()]
    return estimates + macro
