"""Score questions in the audit: always answering the middle level must not beat a uniform spread of the gold, and
every level of every scale must be gold somewhere."""

from __future__ import annotations

import pytest

from decisionpivot.audit.ordinal import middle_guess, ordinal_report
from decisionpivot.audit.run import AuditLimits, audit_family
from decisionpivot.items import Item, Option
from decisionpivot.score_questions import level_options


def score_items(golds: list[int], levels: int = 5, *, score: bool = True) -> list[Item]:
    options = level_options([(f"Level{i}", "meaning") for i in range(levels)])
    return [Item(f"s:{n:05d}", "s", "E", "1.0", f"s:g{n // 2:04d}", 1 + n % 3, None, "retail",
                 f"case {n} with nothing in it", "Which level?", options, str(g),
                 {"question_type": "score"} if score else {}) for n, g in enumerate(golds)]


def test_balanced_gold_passes_and_its_figures_are_the_definitions() -> None:
    items = score_items([0, 1, 2, 3, 4] * 30)
    report = ordinal_report(items, 0.05, 0.05)
    assert report is not None and report["failures"] == [] and report["levels_unused"] == {}
    lower = report["middle"]["all"]["lower_middle"]
    assert lower == pytest.approx({"exact": 0.2, "uniform_exact": 0.2, "majority_exact": 0.2, "mae": 1.2,
                                   "uniform_mae": 1.2})


def test_loop_version_of_the_middle_guess_on_mixed_scales() -> None:
    items = score_items([1, 2, 0], levels=4) + score_items([3, 6, 3], levels=7)
    got = middle_guess(items, "upper_middle")
    middles = [len(i.options) // 2 for i in items]
    golds = [int(i.answer or "") for i in items]
    assert got["exact"] == pytest.approx(sum(g == m for g, m in zip(golds, middles, strict=True)) / 6)
    assert got["mae"] == pytest.approx(sum(abs(g - m) for g, m in zip(golds, middles, strict=True)) / 6)
    assert got["uniform_mae"] == pytest.approx((3 * (2 + 1 + 0 + 1) / 4 + 3 * (3 + 2 + 1 + 0 + 1 + 2 + 3) / 7) / 6)


def test_gold_leaning_to_the_middle_is_a_shortcut() -> None:
    items = score_items([1, 2, 2, 3, 2] * 30 + [0, 4] * 5)
    report = ordinal_report(items, 0.05, 0.05)
    assert report is not None
    assert any("always lower_middle is exact" in f for f in report["failures"])
    assert any("always upper_middle is off by" in f for f in report["failures"])


def test_a_level_never_gold_is_named() -> None:
    report = ordinal_report(score_items([0, 1, 2, 3] * 30), 1.0, 1.0)
    assert report is not None and report["levels_unused"] == {"5": [4]}
    assert report["failures"] == ["scale of 5 levels: level(s) [4] never gold"]


def test_items_that_are_no_score_questions_get_no_ordinal_section() -> None:
    assert ordinal_report(score_items([0, 1, 2] * 10, score=False), 0.05, 0.05) is None
    yes_no = (Option("yes", "y"), Option("no", "n"))
    core = [Item(f"c:{n:05d}", "c", "A", "1", f"c:g{n:04d}", 1, None, "d", "s", "q", yes_no, "yes") for n in range(3)]
    assert ordinal_report(core, 0.05, 0.05) is None


def test_the_audit_gate_carries_the_middle_level_findings() -> None:
    items = score_items([1, 2, 2, 3, 2] * 30 + [0, 4] * 5)
    report = audit_family("s", items, AuditLimits(), {})
    assert report["ordinal"]["failures"]
    assert set(report["ordinal"]["failures"]) <= set(report["failures"])
    assert "ordinal" not in audit_family("s", score_items([0, 1, 2, 3, 4] * 30, score=False), AuditLimits(), {})
