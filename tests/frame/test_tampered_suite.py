"""Issue 37, case 4: a tampered released invariance suite - every ``steer_to`` set to the gold, two non-gold
meanings swapped in every ``labels`` key_map, a companion's gold flipped, a ``base`` re-pointed, the manifest
rewritten to match - passed `dp verify` ("100% solver agreement") and was scored without a note (steering success
0.9 -> 100). The package ships the released suite's hashes: every verb refuses it, and reads it only under
--allow-modified-items, which every output then states."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.cli import main
from decisionpivot.frame.framings import SUITE_VERSION
from decisionpivot.frame.suite import write_suite
from decisionpivot.generate.run import write_family_files
from decisionpivot.item_hashes import released_suite
from decisionpivot.items import sha256_file

FAMILIES = ("fact_answerable", "policy_case")


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _tamper(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    bases = sorted({r["base"] for r in records})
    flipped = False
    for record in records:
        if record["framing"] == "steering":
            record["steer_to"] = record["answer"]
        if record["framing"] == "labels":
            gold = next(k for k, v in record["key_map"].items() if k == record["answer"])
            others = [k for k in record["key_map"] if k != gold]
            if len(others) >= 2:
                a, b = others[:2]
                record["key_map"][a], record["key_map"][b] = record["key_map"][b], record["key_map"][a]
        if record["framing"] == "together" and not flipped:
            companion = record["companions"][0]
            companion["answer"] = next(o["key"] for o in companion["options"] if o["key"] != companion["answer"])
            flipped = True
    records[0]["base"] = bases[-1]
    return records


@pytest.fixture(scope="module")
def tampered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The release's two families, the released suite's files of them with the released suite's manifest (cut to
    those families: what `dp download` would give), and a copy of that suite tampered as in the issue."""
    root = tmp_path_factory.mktemp("tampered-suite")
    core = root / "core"
    write_family_files(core, RELEASE_SEED, list(FAMILIES), benchmark_version=BENCHMARK_VERSION)
    genuine, suite = root / "genuine", root / "suite"
    write_suite(core, genuine, families=list(FAMILIES))
    shipped = released_suite(SUITE_VERSION)
    assert shipped is not None
    manifest = {**shipped, "families": {f: shipped["families"][f] for f in FAMILIES}}
    manifest["items"] = sum(entry["items"] for entry in manifest["families"].values())
    (genuine / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    suite.mkdir()
    for family in FAMILIES:
        assert sha256_file(genuine / f"{family}.jsonl") == shipped["families"][family]["sha256"]
        path = suite / f"{family}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                for r in _tamper(_records(genuine / f"{family}.jsonl"))), encoding="utf-8")
        manifest["families"][family] = {**manifest["families"][family], "sha256": sha256_file(path)}
    (suite / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return {"root": root, "core": core, "genuine": genuine, "suite": suite}


def _dp(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_dp_verify_refuses_the_tampered_released_suite(tampered: dict[str, Path],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert _dp(capsys, "verify", "--items", str(tampered["genuine"]))[0] == 0
    code, out, err = _dp(capsys, "verify", "--items", str(tampered["suite"]))
    assert code == 2 and not out, out
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (f"{tampered['suite'] / 'fact_answerable.jsonl'}: SHA-256" in err and "the fact_answerable file of the "
            f"released invariance suite {SUITE_VERSION} (recorded in the package)" in err), err
    assert "--allow-modified-items" in err
    code, out, _ = _dp(capsys, "verify", "--items", str(tampered["suite"]), "--allow-modified-items")
    assert code == 0  # the solvers check gold answers only: what the hashes caught, they cannot
    assert out.startswith("Items read with --allow-modified-items (neither re-derived by this package nor "
                          "released): fact_answerable, policy_case;")


def test_the_tampered_suite_is_evaluated_and_scored_only_with_the_flag_and_the_outputs_say_so(
        tampered: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    root = tampered["root"]
    runs, suite_runs = root / "runs", root / "runs-invariance"
    assert _dp(capsys, "evaluate", "--system", "uniform", "--items", str(tampered["core"]), "--runs", str(runs))[0] == 0
    code, _, err = _dp(capsys, "evaluate", "--system", "uniform", "--items", str(tampered["suite"]), "--runs",
                       str(suite_runs))
    assert code == 2 and "released invariance suite" in err and not (suite_runs / "uniform").exists()
    assert _dp(capsys, "evaluate", "--system", "uniform", "--items", str(tampered["suite"]), "--runs",
               str(suite_runs), "--allow-modified-items")[0] == 0
    score = ("score", "--items", str(tampered["core"]), "--runs", str(runs), "--reference", "", "--resamples", "20",
             "--nofigures", "--invariance", str(tampered["suite"]), "--invariance-runs", str(suite_runs))
    code, _, err = _dp(capsys, *score, "--out", str(root / "refused"))
    assert code == 2 and "released invariance suite" in err and not (root / "refused").exists()
    out = root / "reports"
    assert _dp(capsys, *score, "--out", str(out), "--allow-modified-items")[0] == 0
    note = "Items read with --allow-modified-items (neither re-derived by this package nor released): " \
           "invariance/fact_answerable, invariance/policy_case;"
    assert note in (out / "leaderboard.md").read_text()
    assert note in (out / "invariance.md").read_text()
    checks = json.loads((out / "scoring.json").read_text())["item_checks"]
    assert checks["fact_answerable"] == checks["policy_case"] == f"released core {BENCHMARK_VERSION}"
    assert checks["invariance/policy_case"].startswith("modified (--allow-modified-items): SHA-256")
    meta = json.loads((suite_runs / "uniform" / "policy_case.meta.json").read_text())
    assert meta["allow_modified_items"] is True and meta["items_check"].startswith("modified")
