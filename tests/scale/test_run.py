"""Drawing the scale suite: byte-for-byte redraws, fresh draws by seed, the manifest, and `dp scale` / `dp verify` /
`dp audit` on a small draw."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import items_bytes, read_items, write_items
from decisionpivot.scale import SCALE_BENCHMARK, SCALE_SEED, SCALE_VERSION
from decisionpivot.scale.run import default_folder, draw_family, write_suite
from tests.scale.conftest import scale_draw

FAMILY = "support_priority"


def dp(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "decisionpivot.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=600)


def _shape(items: object) -> list[tuple[int, tuple[tuple[str, str], ...]]]:
    """Per group in file order: its level and its members' (variation, gold), order-free."""
    groups: dict[str, list] = defaultdict(list)
    for item in items:  # type: ignore[attr-defined]
        groups[item.group].append(item)
    return [(ms[0].level, tuple(sorted((m.variation, m.answer) for m in ms))) for ms in groups.values()]


def test_a_draw_is_redrawn_byte_for_byte_and_another_seed_draws_other_items_on_the_same_plan() -> None:
    release = items_bytes(scale_draw(FAMILY).items)
    again = items_bytes(draw_family(FAMILY, SCALE_SEED).items)  # not the cached draw
    assert hashlib.sha256(again).hexdigest() == hashlib.sha256(release).hexdigest()
    fresh = scale_draw(FAMILY, 7).items
    assert items_bytes(fresh) != release
    assert _shape(fresh) == _shape(scale_draw(FAMILY).items)
    assert len({i.state for i in fresh} & {i.state for i in scale_draw(FAMILY).items}) == 0


def test_suite_folder_and_manifest(tmp_path: Path) -> None:
    assert default_folder(SCALE_SEED) == Path("datasets/scale") / SCALE_VERSION
    assert default_folder(7) == Path("datasets/scale/fresh/seed-7")
    manifest = write_suite(tmp_path, 7, [FAMILY])
    entry = manifest["families"][FAMILY]
    data = (tmp_path / f"{FAMILY}.jsonl").read_bytes()
    assert data == items_bytes(scale_draw(FAMILY, 7).items)
    assert entry == {"file": f"{FAMILY}.jsonl", "layer": "A", "items": 600, "groups": len(_shape(read_items(
        tmp_path / f"{FAMILY}.jsonl"))), "sha256": hashlib.sha256(data).hexdigest(), "generator_version": "1.0",
                     "seed": 7, "scale_levels": [3, 4, 5]}
    assert (manifest["benchmark"], manifest["version"], manifest["question_type"], manifest["items"]) == (
        SCALE_BENCHMARK, SCALE_VERSION, "score", 600)
    assert json.loads((tmp_path / "MANIFEST.json").read_text()) == manifest


def test_a_folder_of_another_benchmark_is_refused(tmp_path: Path) -> None:
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"benchmark": "DecisionPivot core", "families": {}}))
    with pytest.raises(DecisionPivotError, match="not a scale suite manifest"):
        write_suite(tmp_path, 7, [FAMILY])


def test_unknown_family_is_named_with_a_hint(tmp_path: Path) -> None:
    result = dp("scale", "--families", "support_priorty", "--out", str(tmp_path / "s"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "unknown scale family 'support_priorty' (did you mean support_priority?)" in result.stderr


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`dp scale --seed 7` of one family: a draw this package re-derives."""
    folder = tmp_path_factory.mktemp("scale")
    result = dp("scale", "--seed", "7", "--families", FAMILY, "--out", str(folder), env={"PYTHONHASHSEED": "1"})
    assert result.returncode == 0, result.stderr
    assert f"wrote {folder}/ (scale suite {SCALE_VERSION}, seed 7)" in result.stdout
    assert FAMILY in result.stdout and "3/4/5" in result.stdout
    return folder


@pytest.fixture(scope="module")
def small_suite(suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 17 groups of each level of :func:`suite`'s family with the manifest rewritten (the audit's probes
    are cross-validated: 150 items are enough to run them, 600 take a quarter of a minute). The plan adds each group
    where it evens the levels out most, so any first part of a level is balanced too; every fourth group is not (it
    keeps a period of the plan, and the audit's balance and middle-level checks say so). No longer a draw of this
    package: verbs that accept items files by re-derivation refuse it."""
    folder = tmp_path_factory.mktemp("small")
    items = read_items(suite / f"{FAMILY}.jsonl")
    kept = {g for level in (1, 2, 3) for g in list(dict.fromkeys(i.group for i in items if i.level == level))[:17]}
    digest = write_items(folder / f"{FAMILY}.jsonl", [i for i in items if i.group in kept])
    manifest = json.loads((suite / "MANIFEST.json").read_text())
    manifest["families"][FAMILY].update(items=sum(i.group in kept for i in items), groups=len(kept), sha256=digest)
    (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return folder


def test_dp_verify_accepts_the_draw_and_finds_the_scale_solvers(suite: Path) -> None:
    result = dp("verify", "--items", str(suite))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verify OK: 600 items" in result.stdout and "100.00%" in result.stdout


def test_a_scale_file_is_accepted_by_re_derivation_only(suite: Path, small_suite: Path) -> None:
    """The one items rule (item_origin) knows the scale suite: a draw it redraws byte for byte is accepted, a file
    with its manifest rewritten to match is refused, naming what did not match, and read only when allowed."""
    from decisionpivot.item_origin import accept_items_file
    from decisionpivot.items import sha256_file

    path = suite / f"{FAMILY}.jsonl"
    assert accept_items_file(path, sha256_file(path)) == f"re-derived scale suite {SCALE_VERSION} seed 7"
    result = dp("verify", "--items", str(small_suite))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "the support_priority items this package's scale generators draw for suite 1.0 with seed 7" in result.stderr
    allowed = dp("verify", "--items", str(small_suite), "--allow-modified-items")
    assert allowed.returncode == 0 and "verify OK: 150 items" in allowed.stdout, allowed.stdout + allowed.stderr


def test_dp_verify_refuses_an_item_that_is_no_score_question(small_suite: Path, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    items = read_items(small_suite / f"{FAMILY}.jsonl")
    from dataclasses import replace

    items[2] = replace(items[2], extra={})
    digest = write_items(folder / f"{FAMILY}.jsonl", items)
    manifest = json.loads((small_suite / "MANIFEST.json").read_text())
    manifest["families"][FAMILY]["sha256"] = digest
    (folder / "MANIFEST.json").write_text(json.dumps(manifest))
    result = dp("verify", "--items", str(folder), "--allow-modified-items")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{FAMILY}.jsonl:3: field 'question_type': expected 'score'" in result.stderr


def test_dp_audit_runs_the_probes_heuristics_and_the_middle_level_check(small_suite: Path, tmp_path: Path) -> None:
    params = tmp_path / "params.yaml"
    params.write_text("audit: {}\n")  # the default limits
    result = dp("audit", "--items", str(small_suite), "--out", str(tmp_path), "--jobs", "1", "--strict",
                "--params", str(params), "--allow-modified-items")  # a subset of the draw, manifest rewritten
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "audit.json").read_text())
    [family] = report["families"]
    assert set(family["heuristics"]) == {"clock_time", "edge_other_side"}, "the scale family's own heuristics"
    assert set(family["ordinal"]["middle"]) == {"all", "1", "2", "3"}
    assert family["ordinal"]["levels_unused"] == {} and family["failures"] == []
    assert "## Score questions: the middle level is no shortcut" in (tmp_path / "audit.md").read_text()


def test_dp_scale_bytes_do_not_depend_on_hash_seed_locale_time_zone_or_processes(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    first = dp("scale", "--seed", "11", "--out", str(a), env={"PYTHONHASHSEED": "0", "LC_ALL": "C"})
    second = dp("scale", "--seed", "11", "--out", str(b), "--jobs", "2",
                env={"PYTHONHASHSEED": "987654", "LC_ALL": "C.UTF-8", "TZ": "Asia/Tokyo"})
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    digests = [{p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}
               for folder in (a, b)]
    assert digests[0] == digests[1] and len(digests[0]) == 6
    assert "3000 score items in all" in first.stdout


def test_audit_trains_on_a_fresh_draw_of_the_scale_family(small_suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`dp audit --train-seed N` on the suite trains the probes on the scale family's own fresh draw and runs its
    heuristics (the core's registry knows neither)."""
    from decisionpivot.audit import run as audit_run

    seen: dict[str, object] = {}

    def capture(name: str, items: object, limits: object, heuristics: dict, train: list | None = None) -> dict:
        seen.update(name=name, heuristics=sorted(heuristics), train=train)
        return {}

    monkeypatch.setattr(audit_run, "audit_family", capture)
    audit_run.run_family_audit(audit_run.FamilyAudit(FAMILY, small_suite / f"{FAMILY}.jsonl",
                                                     audit_run.AuditLimits(), train_seed=7))
    assert seen["heuristics"] == ["clock_time", "edge_other_side"]
    assert items_bytes(seen["train"]) == items_bytes(scale_draw(FAMILY, 7).items)  # type: ignore[arg-type]
