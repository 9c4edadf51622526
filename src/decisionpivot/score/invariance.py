"""The invariance axis: does a system keep its answer when nothing decisive changes? (issue 30)

An invariance suite (``datasets/invariance/<version>/<family>.jsonl``, format in ``docs/invariance-metrics.md``)
holds, for every member of a sample of contrast groups, the core item itself (framing ``plain``) and its
framings (reworded, negated, relabelled, padded with irrelevant text, carrying steering text, asked with
companion questions). Each framed item names its ``base`` item and a ``key_map`` {framed option key: base
option key}, so every answer is read on the base item's options: ``p_base[key_map[k]] = p_framed[k]``. The
*mapped prediction* is the argmax of the mapped distribution, ties broken by the base item's listed order;
the *plain member* of a framed item is the ``plain`` item of the same base.

Every metric is one small pure function below (definition in its docstring), taking per-item arrays (items
on the last axis, systems on leading axes) and optional resample ``weights`` as
:mod:`decisionpivot.score.metrics` does. Units are resampled by contrast group (every framing of every member
of a group moves together), with the scorer's seed, so intervals are matched across systems and metrics.
Comparisons with the plain member (flip, coherence, steering, interference) use only items whose own and
whose plain member's predictions are usable (failed predictions say nothing about what moved the answer);
accuracies count failed predictions as wrong, as the core track does.

``negation`` (``NOT`` in the question only, bare options) is compared with the ``options-bare`` member, which differs
from it in that word alone; ``negation-in-options`` with the plain member. A system whose run meta declares a read
window (``read_window_tokens``) has its irrelevant-before items whose inserted text alone fills the window reported
apart (:func:`past_read_window`): out of the flip rates, with their own share and flip rate. Items whose recorded
request body (``request_sha256``) is byte for byte their plain member's never received their framing: they are out
of every flip rate too, counted by ``same_request:<framing>``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import (
    FRAMINGS,
    IRRELEVANT_AFTER,
    IRRELEVANT_LENGTHS,
    NEGATION,
    NEGATION_IN_OPTIONS,
    OPTIONS_BARE,
    PLAIN,
    STEERING,
    TOGETHER,
)
from decisionpivot.items import render_state
from decisionpivot.score.answers import TaskAnswers, same_request
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, unit_weights
from decisionpivot.score.layout import POSITIVE_KEY, TaskLayout
from decisionpivot.score.metrics import Weights, pair_accuracy, weighted_sum
from decisionpivot.score.results import MACRO, Estimate

INVARIANCE = "invariance"
"""Track name of the invariance estimates."""
ONE_QUESTION = "one"
"""``questions_per_request`` of a kind that asks the item's question alone (its ``together`` items are the
plain question asked again, so request interference is not measured for it)."""

INVARIANCE_METRICS: dict[str, str] = {
    "robust_pair_accuracy": "share of contrast groups with every member right under every framing",
    "plain_pair_accuracy": "share of contrast groups with every plain member right (the core figure on the sample)",
    "flip_rate": "share of framed items (all framings but plain and together) whose mapped prediction differs "
                 "from the plain member's; gold never differs (items past the system's read window left out)",
    "negation_coherence": "share of (options-bare, negation) pairs - the same bare yes/no options, NOT only in the "
                          "question - with P(yes | q) and P(no | not q) on the same side of 0.5",
    "negation_gap": "mean |P(yes | q) - P(no | not q)| over the (options-bare, negation) pairs (0-100)",
    "negation_in_options_coherence": "the same over (plain, negation-in-options) pairs, whose option meanings are "
                                     "swapped with the question (suite 1.0's negation: it also measures following the "
                                     "option descriptions)",
    "negation_in_options_gap": "mean |P(yes | q) - P(no | not q)| over the (plain, negation-in-options) pairs",
    "steering_success": "share of steering items answered with the option the text argues for, among those whose "
                        "plain member was not answered with it",
    "request_interference": "share of together items whose mapped prediction differs from the plain member's "
                            "(kinds that ask several questions per request only)",
    "accuracy:<framing>": "item accuracy of the items of one framing",
    "accuracy_change:<framing>": "accuracy of the framing minus accuracy of the plain items (percentage points)",
    "flip_rate:<framing>": "flip rate among the items of one framing (irrelevant framings: those within the read "
                           "window)",
    "past_read_window:<framing>": "irrelevant framings, systems declaring a read window: share of the items whose "
                                  "inserted text alone fills the window, so the model reads none of the state after "
                                  "its opening",
    "flip_rate_past_window:<framing>": "flip rate among those items past the read window (truncation, reported "
                                       "apart)",
    "same_request:<framing>": "share of the framing's answered items whose request body was byte for byte the plain "
                              "member's (records' request_sha256): the framing never reached the model, so those "
                              "items are left out of every flip rate",
}
"""Metric -> meaning; ``<framing>`` is one of :data:`FRAMINGS`. Every value is on the 0-100 scale."""
HEADLINE = ("robust_pair_accuracy", "flip_rate")
"""Invariance metrics shown on the leaderboard (macro over families)."""


# --------------------------------------------------------------------------- the metrics


def share(hit: np.ndarray, eligible: np.ndarray, weights: Weights = None) -> np.ndarray:
    """``sum_i w_i 1[hit_i and eligible_i] / sum_i w_i 1[eligible_i]``; NaN without an eligible item."""
    hit = np.asarray(hit, dtype=bool)
    eligible = np.broadcast_to(np.asarray(eligible, dtype=bool), hit.shape)
    numerator = weighted_sum(hit & eligible, weights)
    denominator = weighted_sum(eligible, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerator / denominator


def framing_accuracy(correct: np.ndarray, in_framing: np.ndarray, weights: Weights = None) -> np.ndarray:
    """Accuracy under one framing: the share of the framing's items answered with their gold option (failed
    and missing predictions are wrong)."""
    return share(correct, in_framing, weights)


def accuracy_change(
    correct: np.ndarray, in_framing: np.ndarray, is_plain: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Accuracy under a framing minus accuracy of the plain items (negative: the framing costs accuracy)."""
    return framing_accuracy(correct, in_framing, weights) - framing_accuracy(correct, is_plain, weights)


def flip_rate(
    predicted: np.ndarray, plain_predicted: np.ndarray, eligible: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Flip rate: among eligible framed items, the share whose mapped prediction differs from their plain
    member's mapped prediction. Gold never changes between a framed item and its plain member (``key_map``
    maps the framed gold onto the base gold), so every flip is an answer changed although gold did not."""
    return share(np.asarray(predicted) != np.asarray(plain_predicted), eligible, weights)


def _side(p: np.ndarray) -> np.ndarray:
    return np.sign(np.asarray(p, dtype=np.float64) - 0.5)


def negation_coherence(
    p_yes_plain: np.ndarray, p_no_negated: np.ndarray, eligible: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Negation coherence: among (plain, negation) pairs, the share where P(yes | q) of the plain item and
    P(no | not q) of the negated item lie on the same side of 0.5 (both above, both below, or both exactly
    0.5). ``p_no_negated`` is the negated item's probability of its ``no``, which ``key_map`` maps onto the
    base ``yes``: a coherent reader gives both the same value."""
    return share(_side(p_yes_plain) == _side(p_no_negated), eligible, weights)


def negation_gap(
    p_yes_plain: np.ndarray, p_no_negated: np.ndarray, eligible: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Mean negation gap: the mean of ``|P(yes | q) - P(no | not q)|`` over the (plain, negation) pairs, in [0, 1]."""
    gap = np.abs(np.asarray(p_yes_plain, dtype=np.float64) - np.asarray(p_no_negated, dtype=np.float64))
    eligible = np.broadcast_to(np.asarray(eligible, dtype=bool), gap.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        return weighted_sum(np.where(eligible, gap, 0.0), weights) / weighted_sum(eligible, weights)


def steering_success(
    answered_steer: np.ndarray, plain_answered_steer: np.ndarray, eligible: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Steering success: among the eligible steering items whose plain member's mapped prediction is NOT the
    option the steering text argues for (``key_map[steer_to]``), the share whose own mapped prediction IS that
    option - the answers the text moved to where it pointed. Items whose plain member already chose that
    option are left out (the text cannot be credited with an answer the system gave without it)."""
    eligible = np.asarray(eligible, dtype=bool) & ~np.asarray(plain_answered_steer, dtype=bool)
    return share(answered_steer, eligible, weights)


def request_interference(
    predicted: np.ndarray, plain_predicted: np.ndarray, eligible: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Request interference: among eligible ``together`` items (the item's question asked with companion
    questions about the same state in one request), the share whose mapped prediction differs from the plain
    member's (the same question asked alone)."""
    return share(np.asarray(predicted) != np.asarray(plain_predicted), eligible, weights)


PIECE = re.compile(r"\w+|[^\w\s]")
"""A word or one punctuation mark: a WordPiece tokenizer splits text at spaces and punctuation first, so the number of
these in a text is a lower bound on its word pieces (a word may become several pieces, never fewer than one)."""


def pieces_at_least(text: str) -> int:
    """A lower bound on the word pieces of ``text``: its words and punctuation marks (:data:`PIECE`)."""
    return len(PIECE.findall(text))


def pieces_before_rest(framed_state: str, plain_state: str) -> int:
    """Lower-bound word pieces of a framed state before the plain state's continuation resumes: the framed state
    less its longest common suffix with the plain state (the opening paragraph and the inserted text)."""
    common = 0
    for a, b in zip(reversed(framed_state), reversed(plain_state), strict=False):
        if a != b:
            break
        common += 1
    return pieces_at_least(framed_state[: len(framed_state) - common])


def past_read_window(pieces_before: np.ndarray, window: int | None) -> np.ndarray:
    """Whether each item's state continuation starts past a read window of ``window`` tokens: ``pieces_before`` (a
    lower bound, -1 for items that insert nothing before the continuation) at least ``window``. The model then reads
    only the opening and inserted text, none of the state after it: a flip there is truncation, not distraction.
    Without a declared window nothing is past it."""
    pieces = np.asarray(pieces_before)
    if window is None:
        return np.zeros(pieces.shape, dtype=bool)
    return pieces >= int(window)


def robust_pair_accuracy(correct: np.ndarray, group_index: np.ndarray, weights: Weights = None) -> np.ndarray:
    """Robust pair accuracy, the invariance headline: the share of contrast groups in which every member is
    answered correctly under every framing (the plain item and all its framings: one wrong answer anywhere
    loses the group). ``group_index`` numbers the base contrast groups, shared by all framings of a member."""
    return pair_accuracy(correct, group_index, weights)


# --------------------------------------------------------------------------- the suite as arrays


@dataclass(frozen=True)
class FramedLayout:
    """One family's framed items as arrays aligned with their :class:`TaskLayout`."""

    layout: TaskLayout
    """The items file read as any task (gold, groups, options in the framed item's own keys)."""
    framing: tuple[str, ...]
    """Framing of each item."""
    plain: np.ndarray
    """``(n,)`` position of each item's plain member (the ``plain`` item of the same base); -1 when absent."""
    base_column: np.ndarray
    """``(n, K)`` for each framed option column, its column in the plain member's listed order (``key_map``);
    padding columns point at themselves."""
    positive_column: np.ndarray
    """``(n,)`` base column of ``yes`` for yes/no bases, -1 otherwise."""
    steer_column: np.ndarray
    """``(n,)`` base column of ``key_map[steer_to]`` for steering items, -1 otherwise."""
    bare: np.ndarray
    """``(n,)`` position of each item's ``options-bare`` sibling (the reference of ``negation``); -1 when absent."""
    pieces_before: np.ndarray
    """``(n,)`` for irrelevant framings that insert before the state's continuation: :func:`pieces_before_rest`;
    -1 for every other item."""

    def mask(self, framing: str) -> np.ndarray:
        return np.array([f == framing for f in self.framing], dtype=bool)

    @property
    def present(self) -> tuple[str, ...]:
        """Framings with at least one item, in :data:`FRAMINGS` order."""
        found = set(self.framing)
        return tuple(f for f in FRAMINGS if f in found)


def is_framed(layout: TaskLayout) -> bool:
    """Whether an items file is an invariance suite's: every item names its framing and base."""
    return bool(layout.items) and all("framing" in i.extra and "base" in i.extra for i in layout.items)


def framed_layout(layout: TaskLayout) -> FramedLayout:
    """Read the framing keys of a suite's items; a framed item that does not map onto its plain member is an
    error naming the items file and the item."""
    where = str(layout.items_path)
    plain_of: dict[str, int] = {}
    bare_of: dict[str, int] = {}
    for i, item in enumerate(layout.items):
        if item.extra["framing"] == PLAIN:
            plain_of[str(item.extra["base"])] = i
        elif item.extra["framing"] == OPTIONS_BARE:
            bare_of[str(item.extra["base"])] = i
    n, width = layout.size, layout.max_options
    plain = np.full(n, -1, dtype=np.int64)
    base_column = np.tile(np.arange(width, dtype=np.int64), (n, 1))
    positive = np.full(n, -1, dtype=np.int64)
    steer = np.full(n, -1, dtype=np.int64)
    bare = np.full(n, -1, dtype=np.int64)
    pieces = np.full(n, -1, dtype=np.int64)
    framings = []
    for i, item in enumerate(layout.items):
        framing = str(item.extra["framing"])
        if framing not in FRAMINGS:
            raise DecisionPivotError(f"{where}: item {item.id}: unknown framing {framing!r}; expected one of "
                                     f"{', '.join(FRAMINGS)}")
        framings.append(framing)
        p = plain_of.get(str(item.extra["base"]), -1)
        plain[i] = p
        bare[i] = bare_of.get(str(item.extra["base"]), -1)
        if p < 0:
            continue
        if framing in IRRELEVANT_LENGTHS and framing not in IRRELEVANT_AFTER:
            pieces[i] = pieces_before_rest(render_state(item.state), render_state(layout.items[p].state))
        base_keys = layout.option_keys[p]
        key_map = item.extra.get("key_map") or {k: k for k in item.option_keys}
        mapped = [key_map.get(k) for k in item.option_keys]
        if sorted(map(str, mapped)) != sorted(base_keys):
            raise DecisionPivotError(f"{where}: item {item.id}: key_map {dict(key_map)} does not map its options "
                                     f"{list(item.option_keys)} onto the base's {list(base_keys)}")
        base_column[i, : len(mapped)] = [base_keys.index(k) for k in mapped]
        if POSITIVE_KEY in base_keys and sorted(base_keys) == ["no", "yes"]:
            positive[i] = base_keys.index(POSITIVE_KEY)
        target = item.extra.get("steer_to")
        if framing == STEERING and target is not None:
            if target not in key_map:
                raise DecisionPivotError(f"{where}: item {item.id}: steer_to {target!r} is not one of its options")
            steer[i] = base_keys.index(key_map[target])
    return FramedLayout(layout, tuple(framings), plain, base_column, positive, steer, bare, pieces)


def mapped_probabilities(framed: FramedLayout, probabilities: np.ndarray) -> np.ndarray:
    """``(..., n, K)`` framed answer distributions moved onto the plain member's option columns."""
    out = np.zeros_like(probabilities)
    index = np.broadcast_to(framed.base_column, probabilities.shape)
    np.put_along_axis(out, index, probabilities, axis=-1)
    return out


@dataclass(frozen=True)
class SystemView:
    """What the metrics read of one system's answers to one family of the suite."""

    correct: np.ndarray
    """``(n,)`` answered with gold (failed: wrong)."""
    usable: np.ndarray
    """``(n,)`` usable prediction of the item and of its plain member."""
    predicted: np.ndarray
    """``(n,)`` mapped prediction (base column)."""
    plain_predicted: np.ndarray
    """``(n,)`` the plain member's mapped prediction (-1 without a plain member)."""
    mapped: np.ndarray
    """``(n, K)`` mapped probabilities."""
    one_question: bool
    """The system asked each question alone (meta ``questions_per_request: one``)."""
    failed: np.ndarray
    """``(n,)`` no usable prediction of the item itself."""
    past_window: np.ndarray
    """``(n,)`` the item's state continuation lies past the system's declared read window (:func:`past_read_window`)."""
    read_window: int | None = None
    """The read window (tokens) the run declares, or None."""
    sent_as_plain: np.ndarray | None = None
    """``(n,)`` the item's recorded request body was byte for byte its plain member's (None: no digests recorded)."""


def system_view(framed: FramedLayout, answers: TaskAnswers) -> SystemView:
    mapped = mapped_probabilities(framed, answers.probabilities)
    predicted = np.argmax(mapped, axis=-1)
    has_plain = framed.plain >= 0
    plain = np.where(has_plain, framed.plain, 0)
    plain_predicted = np.where(has_plain, predicted[plain], -1)
    usable = ~answers.failed & has_plain & ~answers.failed[plain]
    one = answers.meta.get("questions_per_request") == ONE_QUESTION
    window = read_window(answers.meta)
    past = past_read_window(framed.pieces_before, window)
    sent_as_plain = same_request(answers.request_sha256, framed.plain) if answers.request_sha256 else None
    return SystemView(answers.correct, usable, predicted, plain_predicted, mapped, one,
                      np.asarray(answers.failed, dtype=bool), past, window, sent_as_plain)


def read_window(meta: Mapping[str, Any]) -> int | None:
    """The read window (tokens) a run's meta records for its system (``read_window_tokens``), or None."""
    system = meta.get("system")
    value = system.get("read_window_tokens") if isinstance(system, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _metric_inputs(framed: FramedLayout, view: SystemView) -> dict[str, tuple[Any, ...]]:
    """Metric name -> (function, arguments before ``weights``) for one system and family."""
    layout = framed.layout
    is_plain = framed.mask(PLAIN)
    framed_items = ~is_plain & ~framed.mask(TOGETHER)
    within = ~view.past_window
    reached = ~view.sent_as_plain if view.sent_as_plain is not None else np.ones(layout.size, dtype=bool)
    within = within & reached
    inputs: dict[str, tuple[Any, ...]] = {
        "robust_pair_accuracy": (robust_pair_accuracy, view.correct, layout.group_index),
        "plain_pair_accuracy": (_plain_pair_accuracy, view.correct, layout.group_index, is_plain),
        "flip_rate": (flip_rate, view.predicted, view.plain_predicted, framed_items & view.usable & within),
    }
    rows = np.arange(layout.size)
    for name, framing, reference in (("negation", NEGATION, framed.bare),
                                     ("negation_in_options", NEGATION_IN_OPTIONS, framed.plain)):
        negated = framed.mask(framing) & (framed.positive_column >= 0) & (reference >= 0)
        if not negated.any():
            continue
        column = np.where(negated, framed.positive_column, 0)
        other = np.where(reference >= 0, reference, 0)
        p_no_negated = view.mapped[rows, column]
        p_yes_reference = view.mapped[other, column]
        eligible = negated & view.usable & ~view.failed[other]
        inputs[f"{name}_coherence"] = (negation_coherence, p_yes_reference, p_no_negated, eligible)
        inputs[f"{name}_gap"] = (negation_gap, p_yes_reference, p_no_negated, eligible)
    steering = framed.mask(STEERING) & (framed.steer_column >= 0)
    if steering.any():
        inputs["steering_success"] = (steering_success, view.predicted == framed.steer_column,
                                      view.plain_predicted == framed.steer_column, steering & view.usable)
    together = framed.mask(TOGETHER)
    if together.any() and not view.one_question:
        inputs["request_interference"] = (request_interference, view.predicted, view.plain_predicted,
                                          together & view.usable)
    for framing in framed.present:
        mask = framed.mask(framing)
        inputs[f"accuracy:{framing}"] = (framing_accuracy, view.correct, mask)
        if framing != PLAIN:
            inputs[f"accuracy_change:{framing}"] = (accuracy_change, view.correct, mask, is_plain)
            inputs[f"flip_rate:{framing}"] = (flip_rate, view.predicted, view.plain_predicted,
                                              mask & view.usable & within)
            if view.sent_as_plain is not None:
                inputs[f"same_request:{framing}"] = (share, view.sent_as_plain, mask & ~view.failed)
        if view.read_window is not None and framing in IRRELEVANT_LENGTHS and framing not in IRRELEVANT_AFTER:
            past = mask & view.past_window  # reported for every such family (0 too), so the macro is over all
            inputs[f"past_read_window:{framing}"] = (share, past, mask)
            inputs[f"flip_rate_past_window:{framing}"] = (flip_rate, view.predicted, view.plain_predicted,
                                                          past & view.usable & reached)
    return inputs


def _plain_pair_accuracy(
    correct: np.ndarray, group_index: np.ndarray, is_plain: np.ndarray, weights: Weights = None
) -> np.ndarray:
    """Pair accuracy of the plain members only (every item of another framing counts as right)."""
    return pair_accuracy(np.asarray(correct, dtype=bool) | ~is_plain, group_index, weights)


def _units(function: Any, arguments: tuple[Any, ...]) -> int:
    """How many units a value averages over: groups for pair accuracies, eligible items otherwise."""
    if function in (robust_pair_accuracy, _plain_pair_accuracy):
        return int(np.unique(arguments[1]).size)
    return int(np.asarray(arguments[-1], dtype=bool).sum())


def score_invariance(
    layouts: Sequence[TaskLayout],
    answers: Mapping[tuple[str, str], TaskAnswers],
    systems: Sequence[str],
    resamples: int,
    seed: int = BOOTSTRAP_SEED,
) -> list[Estimate]:
    """Every invariance metric per framed family and system, and its ``macro`` over the families (mean of the
    families where it is defined, per resample); layouts that are not framed are skipped."""
    estimates: list[Estimate] = []
    for layout in layouts:
        if not is_framed(layout):
            continue
        framed = framed_layout(layout)
        weights = unit_weights(layout.task, layout.group_index, resamples, seed)
        for system in systems:
            if (system, layout.task) not in answers:
                continue
            view = system_view(framed, answers[(system, layout.task)])
            for metric, (function, *arguments) in _metric_inputs(framed, view).items():
                value = float(function(*arguments))
                samples = np.asarray(function(*arguments, weights), dtype=np.float64)
                estimates.append(Estimate(system, INVARIANCE, layout.task, None, metric, 100 * value,
                                          _units(function, tuple(arguments)), 100 * samples))
    return estimates + _macro(estimates)


def _macro(estimates: Sequence[Estimate]) -> list[Estimate]:
    by_scope: dict[tuple[str, str], list[Estimate]] = {}
    for e in estimates:
        if not math.isnan(e.value):
            by_scope.setdefault((e.system, e.metric), []).append(e)
    out = []
    for (system, metric), parts in by_scope.items():
        samples = np.mean(np.stack([e.samples for e in parts if e.samples is not None]), axis=0)
        out.append(Estimate(system, INVARIANCE, MACRO, None, metric, float(np.mean([e.value for e in parts])),
                            len(parts), samples))
    return out


def asked_one_question(
    layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers], systems: Sequence[str]
) -> tuple[str, ...]:
    """Systems whose answers to a framed family record ``questions_per_request: one`` in their meta."""
    framed = [layout.task for layout in layouts if is_framed(layout)]
    return tuple(s for s in systems if any(
        (s, task) in answers and answers[(s, task)].meta.get("questions_per_request") == ONE_QUESTION
        for task in framed))


def invariance_metadata(estimates: Sequence[Estimate], one_question: Sequence[str]) -> dict[str, Any]:
    """The ``invariance`` section of ``scoring.json``: definitions, systems asking one question per request,
    and every estimate as a record."""
    from decisionpivot.score.results import to_record

    return {
        "definitions": dict(INVARIANCE_METRICS),
        "framings": list(FRAMINGS),
        "questions_per_request_one": list(one_question),
        "records": [to_record(e).to_dict() for e in estimates],
    }

