"""Reference-track aggregation: chance correction, flooring, layers, and the task-card interface."""

from __future__ import annotations

import numpy as np
import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, Option
from decisionpivot.score import metrics
from decisionpivot.score.bootstrap import resample_indices
from decisionpivot.score.reference import (
    REFERENCE_METRICS,
    SCORE,
    ReferenceTask,
    aggregate_layers,
    chance_corrected,
    f1_chance,
    majority_share,
    random_order_ndcg,
    reference_tasks,
    register_reference_task,
    score_reference,
    task_arrays,
)
from decisionpivot.score.results import MACRO, REFERENCE
from tests.score.synthetic import answers_of, layout_of


def test_chance_correction_maps_chance_to_0_and_perfect_to_100() -> None:
    assert chance_corrected(0.5, 0.5) == 0.0
    assert chance_corrected(1.0, 0.73) == pytest.approx(100.0)
    assert chance_corrected(0.6, 0.2) == pytest.approx(50.0)
    assert chance_corrected(0.4, 0.5) == pytest.approx(-20.0)  # below chance: negative, kept for inspection


def test_scores_are_floored_at_zero_before_layer_averaging() -> None:
    corrected = {"a1": np.array(-20.0), "a2": np.array(40.0), "c1": np.array(30.0)}
    layers, overall = aggregate_layers(corrected, {"a1": "A", "a2": "A", "c1": "C"})
    assert float(layers["A"]) == pytest.approx(20.0)  # (0 + 40) / 2, not (-20 + 40) / 2
    assert float(layers["C"]) == pytest.approx(30.0)
    assert float(overall) == pytest.approx(25.0)  # mean over the layers that have a task


def test_aggregation_runs_per_resample() -> None:
    corrected = {"a1": np.array([-10.0, 10.0]), "b1": np.array([50.0, 70.0])}
    layers, overall = aggregate_layers(corrected, {"a1": "A", "b1": "B"})
    np.testing.assert_allclose(layers["A"], [0.0, 10.0])
    np.testing.assert_allclose(overall, [25.0, 40.0])


def test_task_cards_are_validated() -> None:
    with pytest.raises(DecisionPivotError, match="needs 'positive'"):
        ReferenceTask("toxicchat", "B", "f1", 0.1).validate()
    with pytest.raises(DecisionPivotError, match="layer 'H'"):
        ReferenceTask("x", "H", "accuracy", 0.5).validate()
    with pytest.raises(DecisionPivotError, match=r"chance 1\.0 must be in \[0, 1\)"):
        ReferenceTask("x", "A", "accuracy", 1.0).validate()
    with pytest.raises(DecisionPivotError, match="unit must be 'query'"):
        ReferenceTask("x", "G", "ndcg@10", 0.3, positive="relevant").validate()
    with pytest.raises(DecisionPivotError, match="metric 'bleu'"):
        ReferenceTask("x", "A", "bleu", 0.3).validate()


def test_registry_accepts_a_card_once() -> None:
    card = ReferenceTask("test_registry_task", "C", "accuracy", 0.5)
    assert register_reference_task(card) is card
    register_reference_task(card)  # the same card again is fine
    assert card in reference_tasks()
    with pytest.raises(DecisionPivotError, match="registered twice"):
        register_reference_task(ReferenceTask("test_registry_task", "C", "accuracy", 0.6))


def ref_item(
    task: str,
    index: int,
    keys: tuple[str, ...],
    answer: str,
    group: str | None = None,
    layer: str = "A",
    **extra: object,
) -> Item:
    return Item(
        id=f"{task}:{index:05d}",
        family=task,
        layer=layer,
        version="1.3",
        group=None if group is None else f"{task}:{group}",
        level=None,
        variation=None,
        domain=None,
        state=f"s{index}",
        question="q",
        options=tuple(Option(k, k) for k in keys),
        answer=answer,
        extra=extra,
    )


@pytest.fixture(scope="module")
def tasks() -> dict[str, tuple[ReferenceTask, object, dict]]:
    """Synthetic reference tasks of several metrics and units, with two systems' answers."""
    rng = np.random.default_rng(11)
    built = {}

    def add(card: ReferenceTask, items: list[Item]) -> None:
        layout = layout_of(items, card.name)
        answers = {}
        for s, system in enumerate(("good", "poor")):
            p = rng.random((layout.size, layout.max_options)) + 0.1
            p[np.arange(layout.size), np.maximum(layout.gold_index, 0)] += 1.5 if system == "good" else 0.0
            p[np.arange(layout.max_options) >= layout.option_count[:, None]] = 0.0
            answers[(system, card.name)] = answers_of(
                layout, system, np.round(p, 1), rng.random(layout.size) < 0.02 * s
            )
        built[card.name] = (card, layout, answers)

    yn = ("yes", "no")
    add(
        ReferenceTask("squad_like", "A", "accuracy", 0.5),
        [ref_item("squad_like", i, yn, yn[i % 2]) for i in range(80)],
    )
    add(
        ReferenceTask("toxic_like", "B", "f1", f1_chance(0.25), positive="toxic"),
        [
            ref_item("toxic_like", i, ("toxic", "safe"), "toxic" if i % 4 == 0 else "safe", layer="B")
            for i in range(80)
        ],
    )
    add(
        ReferenceTask("mod_like", "B", "auprc", 0.25, positive="flagged"),
        [
            ref_item("mod_like", i, ("flagged", "ok"), "flagged" if i % 4 == 0 else "ok", layer="B")
            for i in range(80)
        ],
    )
    add(
        ReferenceTask("esci_like", "G", "micro_f1", 0.4),
        [ref_item("esci_like", i, tuple("ESCI"), "ESCI"[i % 4], layer="G") for i in range(80)],
    )
    add(
        ReferenceTask("bar_like", "C", "balanced_accuracy", 0.5, unit="group"),
        [
            ref_item(
                "bar_like",
                i,
                ("output_1", "output_2"),
                ("output_1", "output_2")[i % 2],
                group=f"g{i // 2:04d}",
                layer="C",
            )
            for i in range(80)
        ],
    )
    add(
        ReferenceTask("rerank_like", "G", "ndcg@10", 0.3, unit="query", positive="relevant"),
        [
            ref_item(
                "rerank_like",
                i,
                ("relevant", "not_relevant"),
                "relevant" if i % 5 == 0 else "not_relevant",
                group=f"q{i // 20:04d}",
                layer="G",
                relevance=int(i % 5 == 0) * (1 + i % 3),
            )
            for i in range(120)
        ],
    )
    add(
        ReferenceTask("capb_like", "A", "one_minus_brier", 0.8, positive="yes"),
        [ref_item("capb_like", i, yn, "yes", success_rate=(i % 5) / 4) for i in range(60)],
    )
    add(
        ReferenceTask("roc_like", "B", "auroc", 0.5, positive="hateful"),
        [
            ref_item("roc_like", i, ("hateful", "benign"), ("hateful", "benign")[i % 3 == 0], layer="B")
            for i in range(60)
        ],
    )
    return built


def test_every_reference_metric_has_a_synthetic_task(tasks: dict) -> None:
    used = {card.metric for card, _, _ in tasks.values()}
    assert used >= set(REFERENCE_METRICS) - {"precision", "macro_f1"}


def test_reference_scores_layers_and_overall(tasks: dict) -> None:
    cards = [card for card, _, _ in tasks.values()]
    layouts = {card.name: layout for card, layout, _ in tasks.values()}
    answers = {k: v for _, _, a in tasks.values() for k, v in a.items()}
    estimates = score_reference(cards, layouts, answers, ["good", "poor"], resamples=30)
    by = {(e.system, e.task, e.metric): e for e in estimates}
    for card in cards:
        raw = by[("good", card.name, card.metric)]
        assert by[("good", card.name, SCORE)].value == pytest.approx(
            100 * (raw.value / 100 - card.chance) / (1 - card.chance)
        )
        assert raw.samples is not None and raw.samples.shape == (30,)
    for system in ("good", "poor"):
        per_task = {c.name: max(0.0, by[(system, c.name, SCORE)].value) for c in cards}
        layer_b = by[(system, "layer:B", SCORE)]
        assert layer_b.value == pytest.approx(np.mean([per_task[c.name] for c in cards if c.layer == "B"]))
        assert layer_b.n == 3
        overall = by[(system, MACRO, SCORE)]
        layer_values = [by[(system, f"layer:{layer}", SCORE)].value for layer in "ABCG"]
        assert overall.value == pytest.approx(np.mean(layer_values)) and overall.n == 4  # D, E, F: no task
        assert overall.track == REFERENCE
    assert by[("good", MACRO, SCORE)].value > by[("poor", MACRO, SCORE)].value


def test_weighted_reference_metrics_equal_the_materialised_resample(tasks: dict) -> None:
    for card, layout, answers in tasks.values():
        arrays = task_arrays(card, layout, answers[("good", card.name)])
        compute = REFERENCE_METRICS[card.metric].compute
        units = np.arange(layout.size) if card.unit == "item" else layout.group_index
        count = int(units.max()) + 1
        drawn = resample_indices(card.name, count, 5)
        from decisionpivot.score.bootstrap import multiplicities

        weights = multiplicities(drawn, count)[:, units]
        vectorised = compute(arrays, weights)
        for r in range(5):
            members = [np.flatnonzero(units == u) for u in drawn[r]]
            chosen = np.concatenate(members)
            relabel = np.concatenate([np.full(m.size, j) for j, m in enumerate(members)])
            sub_items = [layout.items[i] for i in chosen]
            sub = layout_of(
                [
                    Item(
                        **{
                            **it.__dict__,
                            "id": f"{card.name}:{k:05d}",
                            "group": None if it.group is None else f"{card.name}:r{relabel[k]:05d}",
                        }
                    )
                    for k, it in enumerate(sub_items)
                ],
                card.name,
            )
            sub_answers = answers_of(
                sub,
                "good",
                answers[("good", card.name)].probabilities[chosen],
                answers[("good", card.name)].failed[chosen],
            )
            expected = compute(task_arrays(card, sub, sub_answers), None)
            assert vectorised[r] == pytest.approx(float(expected), abs=1e-6), (card.name, r)


def test_chance_baseline_helpers() -> None:
    layout = layout_of([ref_item("m", i, ("a", "b", "c"), "abc"[min(i % 4, 2)]) for i in range(8)])
    assert majority_share(layout) == pytest.approx(4 / 8)  # "c" for i % 4 in (2, 3)
    assert f1_chance(0.25) == pytest.approx(0.4)
    gains = np.array([1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    expected = (1 / 12) * float((1 / np.log2(np.arange(10) + 2)).sum())
    assert random_order_ndcg(gains, np.zeros(12, int)) == pytest.approx(expected)
    rng = np.random.default_rng(0)
    simulated = np.mean(
        [metrics.ndcg_per_query(gains, rng.random(12), np.zeros(12, int))[0] for _ in range(4000)]
    )
    assert random_order_ndcg(gains, np.zeros(12, int)) == pytest.approx(simulated, abs=0.02)
