"""What `dp gate` refuses to calibrate on: draws that are not fresh, not independent, not of the release's
generators and plan, or answered with another configuration than the release answers; and `dp score --gate`
refusing a gate.json made from other runs. Each case is a real draw of tests/gate/conftest.py, altered as a
careless user (or a copy command) would.

Every altered draw is first refused because this package does not draw it again byte for byte
(:mod:`decisionpivot.item_origin`); the checks of what makes a draw fresh, independent and on the plan still hold
under ``--allow-modified-items``, and the cases below pass it to show that."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.calibration import discover_seeds, parse_seeds, state_sha256
from decisionpivot.gate.method import guarantee_text
from decisionpivot.gate.run import REFUSED, GateSettings, gate_runs
from decisionpivot.items import read_items, sha256_file
from tests.gate.calibrated_oracle import decide
from tests.gate.conftest import FAMILIES, SEEDS, Project

SETTINGS = GateSettings(0.05, 0.10, 50)
Edit = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def _draw(project: Project, roots: Path, seed: int, source: Path, edits: dict[str, Edit] | None = None) -> None:
    """``source`` (an items folder) as calibration draw ``seed`` under ``roots``, re-manifested as `dp generate`
    would have written it, with the answers of calibration seed SEEDS[0] beside it."""
    items = roots / "fresh" / f"seed-{seed}"
    shutil.copytree(source, items)
    manifest = json.loads((items / "MANIFEST.json").read_text())
    for family, edit in (edits or {}).items():
        _write_lines(items / f"{family}.jsonl", edit(_lines(items / f"{family}.jsonl")))
    for family, entry in manifest["families"].items():
        entry["seed"] = seed
        entry["sha256"] = sha256_file(items / f"{family}.jsonl")
    (items / "MANIFEST.json").write_text(json.dumps(manifest))
    shutil.copytree(project.root / project.calibration / f"seed-{SEEDS[0]}", roots / "runs" / f"seed-{seed}")


def _gate(project: Project, roots: Path, seeds: tuple[int, ...], allow_modified_items: bool = True) -> None:
    with pytest.raises(DecisionPivotError, match=rf"seed-{seeds[-1]}/\w+\.jsonl: SHA-256 \w+ is not \w+, the \w+ "
                                                 rf"items this package's generators draw for core \S+ with seed "
                                                 rf"{seeds[-1]}\. .*--allow-modified-items"):
        gate_runs(project.runs, project.items, roots / "runs", roots / "fresh", seeds, SETTINGS)
    gate_runs(project.runs, project.items, roots / "runs", roots / "fresh", seeds, SETTINGS,
              allow_modified_items=allow_modified_items)


@pytest.fixture
def here(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(project.root)
    return project


def test_two_folders_of_one_seed_are_refused_not_counted_twice(tmp_path: Path) -> None:
    for name in ("seed-1000", "seed-01000"):
        (tmp_path / name).mkdir()
    with pytest.raises(DecisionPivotError, match="folders seed-01000 and seed-1000 name the same seed 1000"):
        discover_seeds(tmp_path)
    (tmp_path / "seed-1000").rmdir()
    with pytest.raises(DecisionPivotError, match="seed-01000: rename it seed-1000"):
        discover_seeds(tmp_path)
    with pytest.raises(DecisionPivotError, match="given twice"):
        parse_seeds(["1000", "01000"], tmp_path)
    with pytest.raises(DecisionPivotError, match="expected comma-separated non-negative integers"):
        parse_seeds(["\u00b2"], tmp_path)  # str.isdigit() says yes, int() says no


def test_a_copied_draw_is_not_an_independent_one(here: Project, tmp_path: Path) -> None:
    fresh = here.fresh / f"seed-{SEEDS[0]}"
    _draw(here, tmp_path, SEEDS[0], fresh)

    def touch_one(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        records[0]["question"] += " "  # another file hash; the states are the same
        return records

    _draw(here, tmp_path, 7, fresh, {"fact_answerable": touch_one})
    with pytest.raises(DecisionPivotError, match=r"seed-7/fact_answerable\.jsonl: item fact_answerable:\d+ has the "
                                                 r"state of seed 101's item fact_answerable:\d+: a copied draw"):
        _gate(here, tmp_path, (SEEDS[0], 7))


def test_a_draw_sharing_states_with_the_release_is_refused(here: Project, tmp_path: Path) -> None:
    def renamed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for record in records:
            record["question"] = record["question"] + " (calibration)"
        return records

    _draw(here, tmp_path, 7, here.items, dict.fromkeys(FAMILIES, renamed))
    with pytest.raises(DecisionPivotError, match="has the state of release item"):
        _gate(here, tmp_path, (7,))


def test_items_of_other_generators_are_refused(here: Project, tmp_path: Path) -> None:
    def older(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**record, "version": "0.9"} for record in records]

    _draw(here, tmp_path, 7, here.fresh / f"seed-{SEEDS[0]}", {"policy_case": older})
    release = read_items(here.items / "policy_case.jsonl")[0].version
    with pytest.raises(DecisionPivotError, match=rf"items of generator version 0\.9, but the release's policy_case "
                                                 rf"items are version {re.escape(release)}"):
        _gate(here, tmp_path, (7,))


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda records: [r for r in records if r["level"] == 1], "level 1: 200; groups"),
    (lambda records: [r for r in records if r["group"] != records[0]["group"]], "the release has items level 1"),
])
def test_a_draw_off_the_release_plan_is_refused(here: Project, tmp_path: Path, edit: Edit, needle: str) -> None:
    _draw(here, tmp_path, 7, here.fresh / f"seed-{SEEDS[0]}", {"policy_case": edit})
    with pytest.raises(DecisionPivotError, match=r"policy_case\.jsonl: not drawn to the release plan: items") as error:
        _gate(here, tmp_path, (7,))
    assert needle in str(error.value)


def test_state_hash_is_canonical() -> None:
    assert state_sha256({"a": 1, "b": [1, 2]}) == state_sha256({"b": [1, 2], "a": 1})
    assert state_sha256({"a": 1}) != state_sha256({"a": 2}) and state_sha256("x") != state_sha256("x ")


@pytest.mark.parametrize("value", [0.9999999999, 1e-9, 0.0000005])
def test_values_the_guarantee_cannot_state_are_refused(here: Project, value: float) -> None:
    for settings, flag in ((GateSettings(value, 0.1, 50), "--target-risk"), (GateSettings(0.05, value, 50), "--delta")):
        with pytest.raises(DecisionPivotError, match=f"{flag} {value!r}: the guarantee states it"):
            gate_runs(here.runs, here.items, here.calibration, here.fresh, SEEDS, settings)


def test_small_values_are_worded_exactly() -> None:
    text = guarantee_text(0.004, 0.0001, 13)
    assert "at least 99.99%" in text and "at most 0.4%" in text and " 0%" not in text
    assert "(13 families and pooled) use delta / 14" in text


def test_the_showcase_system_answers_from_content_not_ids(here: Project) -> None:
    """A fresh draw reuses every id of the release; the oracle must answer it afresh (out of sample)."""
    release = read_items(here.items / "fact_answerable.jsonl")
    fresh = read_items(here.fresh / f"seed-{SEEDS[0]}" / "fact_answerable.jsonl")
    assert [i.id for i in release] == [i.id for i in fresh]  # ids repeat across draws
    same = sum(max(a.values()) == max(b.values()) for a, b in zip(decide(release), decide(fresh), strict=True))
    assert same < len(release) / 10
    renamed = [type(item)(**{**item.__dict__, "id": f"x:{n}", "group": f"x:g{n // 2}"}) for n, item in
               enumerate(release)]
    assert decide(renamed) == decide(release)


def _meta_fingerprint(path: Path) -> str:
    return json.loads(path.read_text())["fingerprint"]


def test_answers_of_another_configuration_are_refused_naming_both(here: Project) -> None:
    gating = gate_runs(here.runs, here.items, here.calibration, here.fresh, SEEDS, SETTINGS)
    drifted = next(g for g in gating.systems if g.system == "drifted")
    for family, entry in drifted.families.items():
        release = _meta_fingerprint(here.runs / "drifted" / f"{family}.meta.json")
        calibration = _meta_fingerprint(here.calibration / f"seed-{SEEDS[0]}" / "drifted" / f"{family}.meta.json")
        assert release != calibration
        assert entry.decision == REFUSED and entry.certificate is None and entry.fingerprint is None
        assert f"configuration {calibration[:12]}" in entry.reason and f"configuration {release[:12]}" in entry.reason
        assert entry.release is not None and entry.release.automated == 0
    assert drifted.pooled.decision == REFUSED
    oracle = next(g for g in gating.systems if g.system == "oracle")
    for family, entry in oracle.families.items():
        recorded = _meta_fingerprint(here.runs / "oracle" / f"{family}.meta.json")
        assert entry.fingerprint == oracle.release_fingerprints[family] == recorded
    assert oracle.pooled.fingerprint == recorded


def test_a_draw_without_a_family_refuses_that_family_and_says_why(here: Project, tmp_path: Path) -> None:
    _draw(here, tmp_path, 7, here.fresh / f"seed-{SEEDS[0]}")
    items = tmp_path / "fresh" / "seed-7"
    (items / "policy_case.jsonl").unlink()
    manifest = json.loads((items / "MANIFEST.json").read_text())
    del manifest["families"]["policy_case"]
    (items / "MANIFEST.json").write_text(json.dumps(manifest))
    gating = gate_runs(here.runs, here.items, tmp_path / "runs", tmp_path / "fresh", (7,), SETTINGS,
                       allow_modified_items=True)  # seed 101's items re-manifested as seed 7
    assert [label for label, how in gating.item_checks if how.startswith("modified")] == [
        "seed-7/fact_answerable", "seed-7/record_rule"]
    oracle = next(g for g in gating.systems if g.system == "oracle")
    assert oracle.families["policy_case"].decision == REFUSED
    assert oracle.families["policy_case"].reason == "calibration seed 7: no policy_case items in the draw"
    assert oracle.pooled.reason == "refused for policy_case"


def test_a_copied_draw_with_spaced_states_re_manifested_as_another_seed_is_not_a_draw(here: Project,
                                                                                    tmp_path: Path) -> None:
    """Issue 37, case 1: seed 101's draw copied with a trailing space on every state and its lines reversed, then
    re-manifested by `dp manifest --seed 104` and answered: every state is new, the plan is the release's, so
    `dp gate` took it as a second independent draw (3.5% errors went from "do not automate" to "automate"). This
    package draws seed 104 itself (its hashes ship with the package): the copy is not it."""
    from decisionpivot.evaluate.run import evaluate_system
    from decisionpivot.evaluate.systems import get_system
    from decisionpivot.gate.report import write_gate
    from decisionpivot.generate.run import rebuild_manifest

    copy = tmp_path / "fresh" / "seed-104"
    copy.mkdir(parents=True)
    for family in FAMILIES:
        records = _lines(here.fresh / f"seed-{SEEDS[0]}" / f"{family}.jsonl")
        _write_lines(copy / f"{family}.jsonl", [{**r, "state": r["state"] + " "} for r in reversed(records)])
    rebuild_manifest(copy, 104, benchmark_version=BENCHMARK_VERSION)  # what `dp manifest --seed 104` writes
    shutil.copytree(here.calibration / f"seed-{SEEDS[0]}", tmp_path / "runs" / f"seed-{SEEDS[0]}")
    shutil.copytree(here.fresh / f"seed-{SEEDS[0]}", tmp_path / "fresh" / f"seed-{SEEDS[0]}")
    config = here.root / "systems-calibration.yaml"
    evaluate_system(get_system("oracle", config), copy, tmp_path / "runs" / "seed-104", progress=False,
                    allow_modified_items=True)
    seeds = (SEEDS[0], 104)
    with pytest.raises(DecisionPivotError, match=r"seed-104/fact_answerable\.jsonl: SHA-256 \w+ is not \w+, the "
                                                 r"fact_answerable items the package's known draw for core \S+ with "
                                                 r"seed 104\. Draw them again with `dp generate --seed 104"):
        gate_runs(here.runs, here.items, tmp_path / "runs", tmp_path / "fresh", seeds, SETTINGS)
    gating = gate_runs(here.runs, here.items, tmp_path / "runs", tmp_path / "fresh", seeds, SETTINGS,
                       allow_modified_items=True)
    checks = dict(gating.item_checks)
    assert checks[f"seed-{SEEDS[0]}/fact_answerable"] == f"re-derived core {BENCHMARK_VERSION} seed {SEEDS[0]}"
    assert all(checks[f"seed-104/{family}"].startswith("modified (--allow-modified-items): SHA-256")
               for family in FAMILIES)
    written = write_gate(gating, tmp_path / "reports")
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert "seed-104/fact_answerable" in text, path  # every output names the items read under the flag
    assert "**Items read with --allow-modified-items" in (tmp_path / "reports" / "gate.md").read_text()
    certificate = json.loads((tmp_path / "reports" / "gate" / "oracle.json").read_text())
    assert sorted(certificate["modified_items"]) == [f"seed-104/{family}" for family in FAMILIES]
