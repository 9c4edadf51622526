"""`dp gate` on a small real project (tests/gate/conftest.py): decisions, the release check, the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.report import gate_markdown, gate_record, write_gate
from decisionpivot.gate.run import AUTOMATE, DO_NOT_AUTOMATE, REFUSED, GateSettings, Gating, SystemGate, gate_runs
from decisionpivot.score.pipeline import score_runs
from decisionpivot.score.results import CORE, MACRO
from tests.gate.conftest import FAMILIES, SEEDS, Project

SETTINGS = GateSettings(0.05, 0.10, 200)


def _gate(project: Project, settings: GateSettings = SETTINGS, seeds: tuple[int, ...] = SEEDS) -> Gating:
    return gate_runs(project.runs, project.items, project.calibration, project.fresh, seeds, settings)


@pytest.fixture(scope="module")
def gating(project: Project) -> Gating:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        return _gate(project)


def _system(gating: Gating, name: str) -> SystemGate:
    return next(g for g in gating.systems if g.system == name)


def test_a_strong_calibrated_system_is_automated_and_the_bound_holds(gating: Gating) -> None:
    oracle = _system(gating, "oracle")
    assert sorted(oracle.families) == sorted(FAMILIES)
    for family, entry in oracle.families.items():
        assert entry.decision == AUTOMATE, (family, entry.reason)
        assert entry.threshold is not None and entry.reason is None
        assert entry.certificate is not None and entry.certificate.observed_risk <= 0.05
        assert entry.release is not None and entry.release.automated > 0
        assert 0 < entry.expected_coverage < 1
    assert oracle.pooled.decision == AUTOMATE
    assert 0 < oracle.certified_coverage_macro <= oracle.retrospective_coverage_macro + 0.05


def test_useless_systems_get_do_not_automate_with_a_reason(gating: Gating) -> None:
    uniform = _system(gating, "uniform")
    assert {e.decision for e in uniform.families.values()} == {DO_NOT_AUTOMATE}
    assert all(e.reason.startswith("no threshold certified") for e in uniform.families.values())
    assert uniform.certified_coverage_macro == 0.0
    heuristic = _system(gating, "heuristic.fact_answerable.names_in_table")
    assert list(heuristic.families) == ["fact_answerable"]  # it answers only its family
    assert heuristic.families["fact_answerable"].decision == DO_NOT_AUTOMATE
    assert heuristic.families["fact_answerable"].release.coverage == 0.0


def test_too_few_calibration_answers_are_refused_with_the_scorers_reason(gating: Gating) -> None:
    short = _system(gating, "oracle-short")
    entry = short.families["policy_case"]
    assert entry.decision == REFUSED and entry.certificate is None and entry.threshold is None
    assert entry.reason == (f"calibration seed {SEEDS[-1]}: records for 100 of 600 items (16.7%), "
                            "below the 99% a task needs")
    assert entry.release is not None and entry.release.coverage == 0.0  # still checked: nothing automated
    assert short.families["fact_answerable"].decision == AUTOMATE
    assert short.pooled.decision == REFUSED and short.pooled.reason == "refused for policy_case"


def test_retrospective_coverage_is_the_scorers_c005(gating: Gating, project: Project, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    scoring = score_runs(project.runs, project.items, None, tmp_path, resamples=20, tasks=(), figures=False)
    for g in gating.systems:
        c = scoring.get(g.system, CORE, MACRO, "coverage_at_5")
        assert g.retrospective_coverage_macro == pytest.approx(c.value / 100, abs=1e-12), g.system
        for family, entry in g.families.items():
            c = scoring.get(g.system, CORE, family, "coverage_at_5")
            assert entry.release.retrospective_coverage == pytest.approx(c.value / 100, abs=1e-12)


def test_the_release_check_counts_what_the_threshold_automates(gating: Gating, project: Project,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from decisionpivot.score.answers import read_task_answers
    from decisionpivot.score.layout import read_layout

    monkeypatch.chdir(project.root)
    entry = _system(gating, "oracle").families["record_rule"]
    layout = read_layout(project.items / "record_rule.jsonl")
    answers = read_task_answers(project.runs / "oracle" / "record_rule.jsonl", layout, "oracle")
    automated = answers.confidence >= entry.threshold
    check = entry.release
    assert check.automated == automated.sum() and check.errors == (automated & ~answers.correct).sum()
    assert check.coverage == automated.mean()
    assert check.risk == pytest.approx((automated & ~answers.correct).sum() / automated.sum())
    assert check.coverage_ci[0] <= check.coverage <= check.coverage_ci[1]
    assert check.risk_ci[0] <= check.risk <= check.risk_ci[1]
    assert check.bound_held == (check.risk <= 0.05)


def test_gate_json_keeps_the_contract(gating: Gating) -> None:
    record = gate_record(gating)
    for key in ("method", "reference", "target_risk", "delta", "calibration", "systems"):
        assert key in record
    assert "Learn then Test" in record["method"] and "Angelopoulos" in record["reference"]
    assert [c["seed"] for c in record["calibration"]] == list(SEEDS)
    for draw in record["calibration"]:
        assert set(draw) >= {"seed", "items", "manifest_sha256", "families"}
        assert sorted(draw["families"]) == sorted(FAMILIES)
    entry_keys = {"decision", "reason", "threshold", "observed_risk", "expected_coverage", "calibration_items",
                  "calibration_groups", "release", "fingerprint"}
    assert "risk_bound" not in json.dumps(record) and "not a bound" in record["observed_risk"]
    release_keys = {"risk", "risk_ci", "coverage", "coverage_ci", "bound_held", "retrospective_coverage"}
    for system in record["systems"].values():
        assert set(system) >= {"families", "pooled", "certified_coverage_macro", "retrospective_coverage_macro"}
        for entry in [*system["families"].values(), system["pooled"]]:
            assert set(entry) >= entry_keys and set(entry["release"]) >= release_keys
            assert entry["decision"] in (AUTOMATE, DO_NOT_AUTOMATE, REFUSED)
            values = [entry["release"]["coverage"], *(entry["release"]["coverage_ci"] or [])]
            assert all(0 <= v <= 1 for v in values)
    oracle = record["systems"]["oracle"]["families"]["fact_answerable"]
    assert oracle["calibration_items"] == 600 * len(SEEDS) and oracle["calibration_groups"] == 300 * len(SEEDS)
    # pairs: one member of every group, a fifth of them in the pilot
    assert oracle["tested_items"] + oracle["pilot_items"] == 300 * len(SEEDS)
    assert oracle["pilot_items"] == pytest.approx(300 * len(SEEDS) / 5, rel=0.2)


def test_outputs_are_written_deterministically(gating: Gating, project: Project, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    first = write_gate(gating, tmp_path / "a")
    again = write_gate(_gate(project), tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in first] == [p.relative_to(tmp_path / "b") for p in again]
    for a, b in zip(first, again, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    names = sorted(p.name for p in (tmp_path / "a" / "gate").iterdir())
    assert names == sorted(f"{g.system}.json" for g in gating.systems)
    deploy = json.loads((tmp_path / "a" / "gate" / "uniform.json").read_text())
    assert deploy["families"]["policy_case"] == {
        "decision": "do not automate", "threshold": None, "expected_coverage": None,
        "fingerprint": deploy["checked_on"]["fingerprints"]["policy_case"],
        "reason": deploy["families"]["policy_case"]["reason"]}
    assert deploy["package_version"] and deploy["checked_on"]["manifest_sha256"]
    assert [c["seed"] for c in deploy["calibration"]] == list(SEEDS)
    assert "at most 5%" in deploy["guarantee"] and "at least 90%" in deploy["guarantee"]
    assert "(3 families and pooled) use delta / 4" in deploy["guarantee"]
    assert "not a team's own traffic" in deploy["guarantee"]
    oracle = json.loads((tmp_path / "a" / "gate" / "oracle.json").read_text())
    assert all(isinstance(f["threshold"], float) for f in oracle["families"].values())


def test_gate_md_says_do_not_automate_and_shows_the_gap(gating: Gating) -> None:
    text = gate_markdown(gating)
    assert "| policy_case | do not automate |" in text
    assert "| policy_case | refused |" in text
    assert "Gap" in text and "## oracle" in text and "Learn then Test" in text


def test_gate_md_escapes_system_names(gating: Gating) -> None:
    """A system name with Markdown syntax (`|` ends a cell, `#`, `*`) stays one cell and one plain heading."""
    import dataclasses

    first = dataclasses.replace(gating.systems[0], system="a|b *c* #d")
    text = gate_markdown(dataclasses.replace(gating, systems=(first, *gating.systems[1:])))
    assert "\n| a\\|b \\*c\\* \\#d |" in text and "\n## a\\|b \\*c\\* \\#d\n" in text
    assert "| a|b" not in text


def test_a_stricter_delta_never_certifies_more(project: Project, gating: Gating,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    strict = _gate(project, GateSettings(0.05, 0.01, 50))
    for loose, tight in zip(gating.systems, strict.systems, strict=True):
        for family in loose.families:
            a, b = loose.families[family].threshold, tight.families[family].threshold
            assert b is None or (a is not None and b >= a)


@pytest.mark.parametrize(("settings", "message"), [
    (GateSettings(1.5, 0.1, 100), "--target-risk: expected a fraction between 0 and 1, both excluded"),
    (GateSettings(0.05, 0.0, 100), "--delta: expected a fraction between 0 and 1, both excluded"),
    (GateSettings(0.05, 0.1, 1), "--resamples must be at least 2"),
])
def test_bad_settings_are_refused(project: Project, settings: GateSettings, message: str,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    with pytest.raises(DecisionPivotError, match=message):
        _gate(project, settings)


def test_the_release_seed_and_release_items_are_never_calibration(project: Project, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from decisionpivot import RELEASE_SEED

    monkeypatch.chdir(project.root)
    with pytest.raises(DecisionPivotError, match="is the release seed"):
        _gate(project, seeds=(RELEASE_SEED,))
    with pytest.raises(DecisionPivotError, match=r"seed-999: no such folder"):
        _gate(project, seeds=(999,))
    # a calibration folder that holds the released items
    import shutil

    fake = tmp_path / "fresh"
    shutil.copytree(project.items, fake / "seed-7")
    manifest = json.loads((fake / "seed-7" / "MANIFEST.json").read_text())
    for entry in manifest["families"].values():
        entry["seed"] = 7
    (fake / "seed-7" / "MANIFEST.json").write_text(json.dumps(manifest))
    with pytest.raises(DecisionPivotError, match="these are the released fact_answerable items"):
        gate_runs(project.runs, project.items, project.calibration, fake, (7,), SETTINGS)


def test_pooled_uses_every_family_at_one_threshold(gating: Gating) -> None:
    oracle = _system(gating, "oracle")
    pooled = oracle.pooled
    assert pooled.calibration_items == sum(e.calibration_items for e in oracle.families.values())
    assert pooled.release.items == sum(e.release.items for e in oracle.families.values())
    # groups of 2, 3 and 4: each kept with probability size / 4, so about a quarter of all items
    sampled = pooled.certificate.tested_items + pooled.certificate.pilot_items
    assert sampled == pytest.approx(pooled.calibration_items / 4, rel=0.1)
    assert np.isclose(pooled.release.coverage, pooled.release.automated / pooled.release.items)
