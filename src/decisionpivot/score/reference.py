"""Reference-track scoring: each task's own metric, chance correction, layers, the overall score.

A reference task plugs in as a :class:`ReferenceTask` (name, layer, metric, chance baseline,
resampling unit, positive option) registered with :func:`register_reference_task`, or passed to
:func:`decisionpivot.score.pipeline.score_runs` directly. Its items live in
``<reference dir>/<name>.jsonl`` (the common item schema; ``group`` holds the query id of reranking
items, extra keys ``relevance`` and ``success_rate`` feed nDCG and 1 - Brier).

Aggregation (the paper's "Aggregation and uncertainty"): a task score v with chance baseline b
becomes ``100 (v - b) / (1 - b)``; scores are floored at 0 before averaging within each of the seven
layers, and the overall reference score is the mean of the layers. A layer without any scored task
has no layer score and is left out of the overall mean; the overall record's ``n`` then says how many
layers it averages (the leaderboard marks it), so it is not the paper's seven-layer score. The
unfloored corrected scores stay in the per-task table for inspection (the paper's Table D4). Each
bootstrap resample recomputes task metrics, correction, flooring, layer means and the total.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import LAYERS
from decisionpivot.score import metrics
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, unit_weights
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.results import MACRO, REFERENCE, Estimate

UNITS = ("item", "group", "query")
"""Resampling units: items, contrast groups (``item.group``), reranking queries (``item.group``)."""
SCORE = "score"
"""Metric name of chance-corrected scores (per task unfloored; per layer and overall floored)."""


@dataclass(frozen=True)
class ReferenceTask:
    """How one reference task is scored (the scoring part of its task card)."""

    name: str
    """Task name: items file ``<reference dir>/<name>.jsonl``, answers ``runs/<system>/<name>.jsonl``."""
    layer: str
    """Decision layer A-G."""
    metric: str
    """Name of the task's original metric in :data:`REFERENCE_METRICS`."""
    chance: float
    """Chance baseline b on the metric's 0-1 scale (majority share, 2p/(1+p), expected random nDCG...)."""
    unit: str = "item"
    """Resampling unit: ``item``, ``group`` or ``query`` (reranking: candidates of a query stay together)."""
    positive: str | None = None
    """Option key of the positive class, for metrics of one class (F1, precision, AUROC, AUPRC, nDCG
    relevance, 1 - Brier success)."""

    def validate(self) -> None:
        """Raise DecisionPivotError when the card cannot be scored."""
        problems = []
        if self.layer not in LAYERS:
            problems.append(f"layer {self.layer!r} is not one of {', '.join(LAYERS)}")
        if self.metric not in REFERENCE_METRICS:
            problems.append(f"metric {self.metric!r} is not one of {', '.join(REFERENCE_METRICS)}")
        elif REFERENCE_METRICS[self.metric].needs_positive and self.positive is None:
            problems.append(f"metric {self.metric!r} needs 'positive' (the option key of the positive class)")
        if not 0.0 <= self.chance < 1.0:
            problems.append(f"chance {self.chance!r} must be in [0, 1)")
        if self.unit not in UNITS:
            problems.append(f"unit {self.unit!r} is not one of {', '.join(UNITS)}")
        if self.metric == "ndcg@10" and self.unit != "query":
            problems.append("ndcg@10 resamples queries: unit must be 'query'")
        if problems:
            raise DecisionPivotError(f"reference task {self.name!r}: " + "; ".join(problems))


@dataclass(frozen=True)
class TaskArrays:
    """What a reference metric reads of one system's answers to one task."""

    gold: np.ndarray
    """``(n,)`` gold label code (codes number the task's option keys), -1 without gold."""
    predicted: np.ndarray
    """``(n,)`` predicted label code, -1 for failed or missing predictions."""
    p_positive: np.ndarray | None
    """``(n,)`` probability of the positive option (uniform for failed items), if the task has one."""
    positive_code: int
    """Code of the positive option, -1 if none."""
    layout: TaskLayout
    """The task's layout (groups/queries, items with extra keys)."""


@dataclass(frozen=True)
class ReferenceMetric:
    """A metric available to reference tasks."""

    compute: Callable[[TaskArrays, np.ndarray | None], np.ndarray]
    """(arrays, item multiplicities ``(R, n)`` or None) -> value on the 0-1 scale, or one per resample."""
    needs_positive: bool
    """True when the task card must name the positive option."""


def _query_values(arrays: TaskArrays, weights: np.ndarray | None) -> np.ndarray:
    """nDCG@10 per query (relevance from the ``relevance`` extra key, else 1 for a positive gold),
    averaged over queries; resample weights are per item and read from each query's first candidate."""
    layout = arrays.layout
    binary = (arrays.gold == arrays.positive_code).astype(np.float64)
    relevance = np.array(
        [
            float(item.extra["relevance"]) if "relevance" in item.extra else binary[i]
            for i, item in enumerate(layout.items)
        ]
    )
    per_query = metrics.ndcg_per_query(relevance, arrays.p_positive, layout.group_index)
    _, first = np.unique(layout.group_index, return_index=True)
    return metrics.weighted_mean(per_query, None if weights is None else metrics.item_columns(weights, first))


def _success_rates(layout: TaskLayout) -> np.ndarray:
    try:
        return np.array([float(item.extra["success_rate"]) for item in layout.items])
    except KeyError:
        raise DecisionPivotError(
            f"{layout.items_path}: one_minus_brier needs 'success_rate' on every item"
        ) from None


REFERENCE_METRICS: dict[str, ReferenceMetric] = {
    "accuracy": ReferenceMetric(lambda a, w: metrics.accuracy(a.gold, a.predicted, w), False),
    "balanced_accuracy": ReferenceMetric(
        lambda a, w: metrics.balanced_accuracy(a.gold, a.predicted, w), False
    ),
    "f1": ReferenceMetric(lambda a, w: metrics.f1_of_class(a.gold, a.predicted, a.positive_code, w), True),
    "precision": ReferenceMetric(
        lambda a, w: metrics.precision_of_class(a.gold, a.predicted, a.positive_code, w), True
    ),
    "macro_f1": ReferenceMetric(lambda a, w: metrics.macro_f1(a.gold, a.predicted, w), False),
    "micro_f1": ReferenceMetric(lambda a, w: metrics.micro_f1(a.gold, a.predicted, w), False),
    "auroc": ReferenceMetric(lambda a, w: metrics.auroc(a.p_positive, a.gold == a.positive_code, w), True),
    "auprc": ReferenceMetric(
        lambda a, w: metrics.average_precision(a.p_positive, a.gold == a.positive_code, w), True
    ),
    "ndcg@10": ReferenceMetric(_query_values, True),
    "one_minus_brier": ReferenceMetric(
        lambda a, w: metrics.one_minus_brier(a.p_positive, _success_rates(a.layout), w), True
    ),
}
"""Metric name -> implementation. Task cards name one of these."""

_REGISTERED: dict[str, ReferenceTask] = {}


def register_reference_task(task: ReferenceTask) -> ReferenceTask:
    """Make a task known to ``dp score`` (validated; a different card under a known name is an error)."""
    task.validate()
    existing = _REGISTERED.get(task.name)
    if existing is not None and existing != task:
        raise DecisionPivotError(f"reference task {task.name!r} is registered twice with different cards")
    _REGISTERED[task.name] = task
    return task


def reference_tasks() -> list[ReferenceTask]:
    """Registered reference tasks in layer order, then by name."""
    return sorted(_REGISTERED.values(), key=lambda t: (t.layer, t.name))


def task_arrays(task: ReferenceTask, layout: TaskLayout, answers: TaskAnswers) -> TaskArrays:
    """Label codes and positive-class probabilities of one system's answers to one task."""
    vocabulary: dict[str, int] = {}
    for keys in layout.option_keys:
        for key in keys:
            vocabulary.setdefault(key, len(vocabulary))
    to_code = np.full((layout.size, layout.max_options), -1, dtype=np.int64)
    for i, keys in enumerate(layout.option_keys):
        to_code[i, : len(keys)] = [vocabulary[k] for k in keys]
    rows = np.arange(layout.size)
    gold = np.where(layout.gold_index >= 0, to_code[rows, np.maximum(layout.gold_index, 0)], -1)
    predicted = np.where(answers.failed, -1, to_code[rows, answers.predicted])
    p_positive, positive_code = None, -1
    if task.positive is not None:
        if task.positive not in vocabulary:
            raise DecisionPivotError(
                f"{layout.items_path}: positive option {task.positive!r} is no option key"
            )
        positive_code = vocabulary[task.positive]
        column = np.argmax(to_code == positive_code, axis=1)
        lacking = ~(to_code == positive_code).any(axis=1)
        if lacking.any():
            first = layout.item_ids[int(np.flatnonzero(lacking)[0])]
            raise DecisionPivotError(
                f"{layout.items_path}: item {first} lacks the positive option {task.positive!r}"
            )
        p_positive = answers.probabilities[rows, column]
    return TaskArrays(gold, predicted, p_positive, positive_code, layout)


def chance_corrected(value: np.ndarray | float, chance: float) -> np.ndarray:
    """``100 (v - b) / (1 - b)`` for v, b on the 0-1 scale: 0 at chance, 100 at a perfect score."""
    return 100.0 * (np.asarray(value, dtype=np.float64) - chance) / (1.0 - chance)


def aggregate_layers(
    corrected: Mapping[str, np.ndarray], layer_of: Mapping[str, str]
) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """Layer scores (mean of per-task scores floored at 0) and the overall score (mean of the layers
    that have a task). Works on point values and on resampled arrays alike."""
    by_layer: dict[str, list[np.ndarray]] = {}
    for task, value in corrected.items():
        by_layer.setdefault(layer_of[task], []).append(np.maximum(np.asarray(value, dtype=np.float64), 0.0))
    layers = {layer: np.mean(np.stack(values), axis=0) for layer, values in sorted(by_layer.items())}
    overall = np.mean(np.stack(list(layers.values())), axis=0) if layers else None
    return layers, overall


def score_reference(
    tasks: Sequence[ReferenceTask],
    layouts: Mapping[str, TaskLayout],
    answers: Mapping[tuple[str, str], TaskAnswers],
    systems: Sequence[str],
    resamples: int,
    seed: int = BOOTSTRAP_SEED,
) -> list[Estimate]:
    """Per task: the original metric and the (unfloored) corrected score; per layer and overall: the
    floored aggregate, for each system over the tasks it has."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _score_reference(tasks, layouts, answers, systems, resamples, seed)


def _score_reference(
    tasks: Sequence[ReferenceTask],
    layouts: Mapping[str, TaskLayout],
    answers: Mapping[tuple[str, str], TaskAnswers],
    systems: Sequence[str],
    resamples: int,
    seed: int,
) -> list[Estimate]:
    estimates: list[Estimate] = []
    weights = {}
    for task in tasks:
        layout = layouts[task.name]
        unit = np.arange(layout.size) if task.unit == "item" else layout.group_index
        weights[task.name] = unit_weights(task.name, unit, resamples, seed)
    for system in systems:
        corrected_value: dict[str, np.ndarray] = {}
        corrected_samples: dict[str, np.ndarray] = {}
        for task in tasks:
            if (system, task.name) not in answers:
                continue
            layout = layouts[task.name]
            arrays = task_arrays(task, layout, answers[(system, task.name)])
            metric = REFERENCE_METRICS[task.metric].compute
            value, samples = metric(arrays, None), metric(arrays, weights[task.name])
            n = layout.groups if task.unit != "item" else layout.size
            estimates.append(
                Estimate(
                    system,
                    REFERENCE,
                    task.name,
                    None,
                    task.metric,
                    float(100 * value),
                    n,
                    100 * np.asarray(samples),
                )
            )
            corrected_value[task.name] = chance_corrected(value, task.chance)
            corrected_samples[task.name] = chance_corrected(samples, task.chance)
            estimates.append(
                Estimate(
                    system,
                    REFERENCE,
                    task.name,
                    None,
                    SCORE,
                    float(corrected_value[task.name]),
                    n,
                    corrected_samples[task.name],
                )
            )
        layer_of = {t.name: t.layer for t in tasks}
        layer_values, overall_value = aggregate_layers(corrected_value, layer_of)
        layer_samples, overall_samples = aggregate_layers(corrected_samples, layer_of)
        for layer, value in layer_values.items():
            count = sum(1 for t in corrected_value if layer_of[t] == layer)
            estimates.append(
                Estimate(
                    system,
                    REFERENCE,
                    f"layer:{layer}",
                    None,
                    SCORE,
                    float(value),
                    count,
                    layer_samples[layer],
                )
            )
        if overall_value is not None:
            estimates.append(
                Estimate(
                    system,
                    REFERENCE,
                    MACRO,
                    None,
                    SCORE,
                    float(overall_value),
                    len(layer_values),
                    overall_samples,
                )
            )
    return estimates


def majority_share(layout: TaskLayout) -> float:
    """Chance baseline of accuracy-type metrics: the share of the most frequent gold option key."""
    keys = [keys[g] for keys, g in zip(layout.option_keys, layout.gold_index.tolist(), strict=True) if g >= 0]
    return max(keys.count(k) for k in set(keys)) / len(keys)


def f1_chance(prevalence: float) -> float:
    """Chance baseline of F1 on a class with prevalence p: ``2p / (1 + p)`` (always predicting it)."""
    return 2 * prevalence / (1 + prevalence)


def random_order_ndcg(gains: np.ndarray, query_index: np.ndarray, depth: int = metrics.NDCG_DEPTH) -> float:
    """Chance baseline of nDCG@depth: the expected nDCG of a uniformly random ranking, mean over queries
    (each rank's expected gain is the query's mean gain)."""
    values = []
    for query in np.unique(query_index):
        g = np.asarray(gains, dtype=np.float64)[np.asarray(query_index) == query]
        discount = 1.0 / np.log2(np.arange(g.size) + 2.0)
        discount[depth:] = 0.0
        ideal = float((np.sort(g)[::-1] * discount).sum())
        values.append(float(g.mean() * discount.sum()) / ideal if ideal > 0 else 0.0)
    return float(np.mean(values))
