"""Invariance metrics (issue 30): each definition checked by a readable loop, each synthetic defect caught by its
metric and by no other, the uniform baseline invariant by construction."""

from __future__ import annotations

import hashlib
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import FRAMINGS
from decisionpivot.items import Item, write_items
from decisionpivot.score.answers import read_task_answers
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, resample_indices, unit_weights
from decisionpivot.score.invariance import (
    INVARIANCE,
    FramedLayout,
    _metric_inputs,
    framed_layout,
    score_invariance,
    system_view,
)
from decisionpivot.score.layout import TaskLayout, read_layout
from decisionpivot.score.results import MACRO, Estimate
from tests.conftest import cached_draw
from tests.score.framed import SYSTEMS, framed_family, write_runs, write_suite

FAMILIES = ("fact_answerable", "policy_case")
RESAMPLES = 40


def noisy(item: Item) -> dict[str, float]:
    """A system with answers that depend on everything it sees (a stable hash of the whole item)."""
    digest = hashlib.sha256(repr((item.state, item.question, item.option_keys)).encode()).digest()
    values = [1 + digest[i] for i in range(len(item.options))]
    return {k: v / sum(values) for k, v in zip(item.option_keys, values, strict=True)}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("invariance")
    folder = write_suite(root / "suite", {f: framed_family(cached_draw(f).items, 5) for f in FAMILIES})
    runs = write_runs(root / "runs", folder, {**SYSTEMS, "noisy": noisy})
    return folder, runs


@pytest.fixture(scope="module")
def scored(suite: tuple[Path, Path]) -> dict[tuple[str, str, str], Estimate]:
    folder, runs = suite
    layouts = [read_layout(p) for p in sorted(folder.glob("*.jsonl"))]
    systems = [*SYSTEMS, "noisy"]
    answers = {(s, x.task): read_task_answers(runs / s / f"{x.task}.jsonl", x, s) for s in systems for x in layouts}
    return {(e.system, e.task, e.metric): e for e in score_invariance(layouts, answers, systems, RESAMPLES)}


def value(scored: dict, system: str, metric: str, task: str = MACRO) -> float:
    return scored[(system, task, metric)].value


NON_PLAIN = tuple(f for f in FRAMINGS if f != "plain")


def test_the_uniform_baseline_is_invariant_by_construction(scored: dict) -> None:
    """Equal probabilities for every option: nothing a framing does can move its answer."""
    for framing in NON_PLAIN:
        assert value(scored, "uniform", f"flip_rate:{framing}") == 0
    assert value(scored, "uniform", "flip_rate") == 0
    assert value(scored, "uniform", "request_interference") == 0
    assert value(scored, "uniform", "negation_coherence") == 100
    assert value(scored, "uniform", "negation_gap") == 0
    assert value(scored, "uniform", "steering_success") in (0, None) or math.isnan(
        value(scored, "uniform", "steering_success"))


def test_the_oracle_is_right_everywhere(scored: dict) -> None:
    assert value(scored, "oracle", "robust_pair_accuracy") == 100
    assert value(scored, "oracle", "flip_rate") == 0
    assert value(scored, "oracle", "negation_coherence") == 100
    assert value(scored, "oracle", "steering_success") == 0


CAUGHT_BY = {
    "wording_reader": {f"flip_rate:wording-{k}" for k in (1, 2, 3)} | {"flip_rate"},
    "steering_follower": {"steering_success", "flip_rate:steering", "flip_rate"},
    "negation_ignorer": {"negation_coherence", "negation_gap", "flip_rate:negation", "flip_rate",
                         "negation_in_options_coherence", "negation_in_options_gap", "flip_rate:negation-in-options"},
    "together_confused": {"request_interference", "flip_rate:together"},
}
"""Synthetic system -> the metrics that must show its defect (every other invariance metric must not)."""
CLEAN = {"flip_rate": 0.0, "steering_success": 0.0, "negation_coherence": 100.0, "negation_gap": 0.0,
         "negation_in_options_coherence": 100.0, "negation_in_options_gap": 0.0,
         "request_interference": 0.0, **{f"flip_rate:{f}": 0.0 for f in NON_PLAIN}}
"""What an invariant system scores on each metric."""


@pytest.mark.parametrize("system", sorted(CAUGHT_BY))
def test_each_defect_is_caught_by_its_metric_and_by_no_other(scored: dict, system: str) -> None:
    for metric, clean in CLEAN.items():
        found = value(scored, system, metric)
        if metric in CAUGHT_BY[system]:
            assert abs(found - clean) >= 5, f"{system}: {metric} = {found} does not show the defect"
        else:
            assert found == clean, f"{system}: {metric} = {found}, but that is not its defect"
    assert value(scored, system, "plain_pair_accuracy") == 100  # right on the plain items ...
    assert value(scored, system, "robust_pair_accuracy") < 100  # ... the headline sees the defect


def test_the_negation_ignorer_is_incoherent_on_every_pair(scored: dict) -> None:
    assert value(scored, "negation_ignorer", "negation_coherence", "fact_answerable") == 0
    assert value(scored, "negation_ignorer", "negation_gap", "fact_answerable") == 100
    assert ("negation_ignorer", "policy_case", "negation_coherence") not in scored  # no negation of a choice


def test_accuracy_change_is_the_framings_accuracy_minus_plain(scored: dict) -> None:
    for framing in NON_PLAIN[:3]:
        plain = value(scored, "wording_reader", "accuracy:plain", "policy_case")
        framed = value(scored, "wording_reader", f"accuracy:{framing}", "policy_case")
        change = value(scored, "wording_reader", f"accuracy_change:{framing}", "policy_case")
        assert change == pytest.approx(framed - plain)
        assert change < 0


def test_intervals_are_group_bootstrap_and_matched(scored: dict) -> None:
    e = scored[("noisy", "policy_case", "flip_rate")]
    assert e.track == INVARIANCE and e.samples is not None and e.samples.shape == (RESAMPLES,)
    low, high = e.interval()
    assert low <= e.value <= high


# --------------------------------------------------------------------------- loop versions of every metric


def _loop_metrics(framed: FramedLayout, p: np.ndarray, failed: np.ndarray, items: list[int]) -> dict[str, float]:
    """Every metric computed by hand over a multiset of item positions (a resample, or every item once)."""
    layout = framed.layout
    keys = layout.option_keys

    def mapped(i: int) -> dict[str, float]:
        key_map = layout.items[i].extra["key_map"]
        return {key_map[k]: float(p[i, j]) for j, k in enumerate(keys[i])}

    def predicted(i: int) -> str:
        base_keys = keys[framed.plain[i]]
        distribution = mapped(i)
        return max(base_keys, key=lambda k: (distribution[k], -base_keys.index(k)))

    def correct(i: int) -> bool:
        return not failed[i] and keys[i][int(np.argmax(p[i, : len(keys[i])]))] == layout.items[i].answer

    def usable(i: int) -> bool:
        return not failed[i] and not failed[framed.plain[i]]

    def ratio(hits: list[bool]) -> float:
        return sum(hits) / len(hits) if hits else math.nan

    out: dict[str, float] = {}
    groups: dict[int, list[int]] = {}
    for position, i in enumerate(items):
        groups.setdefault(layout.group_index[i], []).append(position)
    # each resampled copy of a group is its own unit: count copies by how often each group's first item occurs
    copies: list[bool] = []
    plain_copies: list[bool] = []
    for positions in groups.values():
        members = sorted(set(items[q] for q in positions))
        times = len(positions) // len(members)
        copies += [all(correct(i) for i in members)] * times
        plain_copies += [all(correct(i) for i in members if framed.framing[i] == "plain")] * times
    out["robust_pair_accuracy"] = ratio(copies)
    out["plain_pair_accuracy"] = ratio(plain_copies)
    flips = [predicted(i) != predicted(framed.plain[i]) for i in items
             if framed.framing[i] not in ("plain", "together") and usable(i)]
    out["flip_rate"] = ratio(flips)
    bare_of = {layout.items[i].extra["base"]: i for i in range(layout.size) if framed.framing[i] == "options-bare"}
    for name, framing in (("negation", "negation"), ("negation_in_options", "negation-in-options")):
        def reference(i: int, framing: str = framing) -> int:  # NOT only in the question: against the bare options
            return bare_of[layout.items[i].extra["base"]] if framing == "negation" else framed.plain[i]
        pairs = [(mapped(reference(i))["yes"], mapped(i)["yes"]) for i in items
                 if framed.framing[i] == framing and usable(i) and not failed[reference(i)]]
        if any(framed.framing[i] == framing for i in range(layout.size)):
            side = lambda v: (v > 0.5) - (v < 0.5)  # noqa: E731
            out[f"{name}_coherence"] = ratio([side(a) == side(b) for a, b in pairs])
            out[f"{name}_gap"] = sum(abs(a - b) for a, b in pairs) / len(pairs) if pairs else math.nan
    steered = []
    for i in items:
        if framed.framing[i] == "steering" and usable(i):
            target = layout.items[i].extra["key_map"][layout.items[i].extra["steer_to"]]
            if predicted(framed.plain[i]) != target:
                steered.append(predicted(i) == target)
    out["steering_success"] = ratio(steered)
    out["request_interference"] = ratio([predicted(i) != predicted(framed.plain[i]) for i in items
                                         if framed.framing[i] == "together" and usable(i)])
    for framing in framed.present:
        out[f"accuracy:{framing}"] = ratio([correct(i) for i in items if framed.framing[i] == framing])
        if framing != "plain":
            out[f"accuracy_change:{framing}"] = out[f"accuracy:{framing}"] - out["accuracy:plain"]
            out[f"flip_rate:{framing}"] = ratio([predicted(i) != predicted(framed.plain[i]) for i in items
                                                 if framed.framing[i] == framing and usable(i)])
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_every_metric_equals_its_loop_version_on_every_resample(suite: tuple[Path, Path], family: str) -> None:
    folder, runs = suite
    layout = read_layout(folder / f"{family}.jsonl")
    answers = read_task_answers(runs / "noisy" / f"{family}.jsonl", layout, "noisy")
    failed = answers.failed.copy()
    failed[[3, 20]] = True  # two failed predictions: left out of comparisons, wrong for accuracies
    answers = replace(answers, failed=failed)
    framed = framed_layout(layout)
    inputs = _metric_inputs(framed, system_view(framed, answers))
    assert {"flip_rate", "steering_success", "request_interference"} <= set(inputs)
    weights = unit_weights(layout.task, layout.group_index, 12, BOOTSTRAP_SEED)
    members = {g: [i for i in range(layout.size) if layout.group_index[i] == g] for g in range(layout.groups)}
    draws = resample_indices(layout.task, layout.groups, 12, BOOTSTRAP_SEED)
    expected_point = _loop_metrics(framed, answers.probabilities, failed, list(range(layout.size)))
    for metric, (function, *arguments) in inputs.items():
        point = float(function(*arguments))
        assert point == pytest.approx(expected_point[metric], nan_ok=True), metric
        samples = function(*arguments, weights)
        for r, row in enumerate(draws):
            items = [i for g in row for i in members[int(g)]]
            expected = _loop_metrics(framed, answers.probabilities, failed, items)[metric]
            assert samples[r] == pytest.approx(expected, nan_ok=True), (metric, r)


# --------------------------------------------------------------------------- reading the suite


def test_a_key_map_that_does_not_map_onto_the_base_is_an_error_naming_the_item(
    suite: tuple[Path, Path], tmp_path: Path
) -> None:
    from decisionpivot.items import read_items

    folder, _ = suite
    items = read_items(folder / "policy_case.jsonl")
    bad = next(i for i in items if i.extra["framing"] == "labels")
    items = [replace(i, extra={**i.extra, "key_map": {"A": "approve", "B": "approve", "C": "deny"}})
             if i.id == bad.id else i for i in items]
    write_items(tmp_path / "policy_case.jsonl", items)
    with pytest.raises(DecisionPivotError, match=f"policy_case.jsonl: item {bad.id}: key_map"):
        framed_layout(read_layout(tmp_path / "policy_case.jsonl"))


def test_core_items_are_not_framed(suite: tuple[Path, Path], tmp_path: Path) -> None:
    from decisionpivot.score.invariance import is_framed

    write_items(tmp_path / "policy_case.jsonl", list(cached_draw("policy_case").items[:6]))
    assert not is_framed(read_layout(tmp_path / "policy_case.jsonl"))
    assert is_framed(read_layout(suite[0] / "policy_case.jsonl"))
    assert isinstance(read_layout(suite[0] / "policy_case.jsonl"), TaskLayout)


def test_the_framings_have_one_home_the_frame_package() -> None:
    """score and report read the framings (and their order) from decisionpivot.frame.framings, never a copy."""
    import decisionpivot.report.framing_pages as framing_pages
    import decisionpivot.score.invariance as score_invariance
    import decisionpivot.score.report as score_report
    from decisionpivot.frame import framings

    for module in (score_invariance, score_report, framing_pages):
        assert module.FRAMINGS is framings.FRAMINGS, module.__name__
    for name in ("PLAIN", "NEGATION", "STEERING", "TOGETHER"):
        assert getattr(score_invariance, name) == getattr(framings, name) in framings.FRAMINGS, name
    source = Path(score_invariance.__file__).read_text(encoding="utf-8")
    assert '"irrelevant-8000"' not in source and '= "plain"' not in source  # no second list of the framings
