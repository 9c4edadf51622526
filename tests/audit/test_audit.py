"""The audit catches planted shortcuts, passes clean items, and gates the release."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from decisionpivot.audit.run import AuditLimits, audit_family
from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, Option

OPTIONS = (Option("yes", "y"), Option("no", "n"))
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma".split()  # noqa: SIM905


def _filler(rng: random.Random, n: int = 60) -> str:
    """Random words, never one or a two-word phrase twice in a row (the text check would rightly flag it)."""
    words: list[str] = []
    while len(words) < n:
        word = rng.choice(WORDS)
        if (words and word == words[-1]) or (len(words) >= 3 and [words[-1], word] == words[-3:-1]):
            continue
        words.append(word)
    return " ".join(words)


def synthetic(leak: str | None, n_pairs: int = 150, seed: int = 1) -> list[Item]:
    """Pairs whose members share filler text; ``leak`` plants a shortcut on the yes member."""
    rng = random.Random(seed)
    items = []
    for g in range(n_pairs):
        filler = _filler(rng)
        for answer in ("yes", "no") if g % 2 else ("no", "yes"):
            state = f"{filler}\nrecord {rng.randrange(10**6)}"
            if leak == "word" and answer == "yes":
                state += "\nstatus cleared"
            elif leak == "word":
                state += "\nstatus pending"
            elif leak == "length" and answer == "yes":
                state += "\n" + "x" * 400
            elif leak == "lines" and answer == "yes":
                state += "\n\n\n\n\n"
            items.append(Item(f"syn:{len(items):05d}", "syn", "A", "1", f"syn:g{g:04d}", 1 + g % 3, None, "d",
                              state, "Is it?", OPTIONS, answer))
    return items


@pytest.mark.parametrize(("leak", "probe"), [("word", "bag_of_words"), ("length", "state_length"),
                                             ("lines", "line_count")])
def test_planted_shortcuts_are_caught(leak: str, probe: str) -> None:
    report = audit_family("syn", synthetic(leak), AuditLimits(), {})
    assert report["probes"][probe]["item_accuracy"] > 0.9
    assert any(f"probe {probe}" in f for f in report["failures"])


def test_clean_items_pass() -> None:
    report = audit_family("syn", synthetic(None), AuditLimits(), {"always_yes": lambda item: {"yes": 1.0, "no": 0.0}})
    assert report["failures"] == [], report["failures"]
    for scored in report["probes"].values():
        assert abs(scored["margin"]) < 0.06
        assert scored["item_ci"][0] <= scored["item_accuracy"] <= scored["item_ci"][1]
    always = report["heuristics"]["always_yes"]
    assert always["item_accuracy"] == 0.5 and always["pair_accuracy"] == 0.0 and always["uniform_pair"] == 0.25
    assert report["balance"]["all"]["answers"] == {"yes": 150, "no": 150}


def test_heuristic_limits_and_hygiene() -> None:
    items = synthetic(None)
    cheat = {"cheat": lambda item: {"yes": 1.0, "no": 0.0} if item.answer == "yes" else {"yes": 0.0, "no": 1.0}}
    report = audit_family("syn", items, AuditLimits(), cheat)
    assert any("heuristic cheat" in f for f in report["failures"])
    allowed = audit_family("syn", items, AuditLimits(heuristic_limits={"syn.cheat": 1.0}), cheat)
    half = {"half": lambda item: {"yes": 1.0, "no": 0.0}}  # right on every yes member, never on a whole pair
    assert not any("heuristic" in f for f in audit_family("syn", items, AuditLimits(), half)["failures"])
    assert not any("heuristic" in f for f in allowed["failures"])
    duplicate = [*items[:-1], Item(**{**items[-1].__dict__, "state": items[0].state})]
    failures = audit_family("syn", duplicate, AuditLimits(), {})["failures"]
    assert any("repeated state" in f for f in failures) and any("near-duplicate" in f for f in failures)
    skewed = [Item(**{**i.__dict__, "answer": "yes"}) for i in items]
    assert any("answer_p" in f for f in audit_family("syn", skewed, AuditLimits(), {})["failures"])


def test_unknown_params_key_is_an_error(tmp_path: Path) -> None:
    params = tmp_path / "params.yaml"
    params.write_text("audit:\n  probe_margins: 0.1\n")
    with pytest.raises(DecisionPivotError,
                       match=r":2: unknown key 'probe_margins' in audit \(did you mean probe_margin\?\)"):
        AuditLimits.from_params(params)


def test_strict_audit_passes_on_the_release(tmp_path: Path) -> None:
    """CI gate: the released core items must pass `dp audit --strict`."""
    items = tmp_path / "items"
    run = [sys.executable, "-m", "decisionpivot.cli"]
    assert subprocess.run([*run, "generate", "--out", str(items)], capture_output=True).returncode == 0
    params = Path(__file__).resolve().parents[2] / "params.yaml"
    result = subprocess.run([*run, "audit", "--items", str(items), "--strict", "--params", str(params),
                             "--out", str(tmp_path / "reports")], capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
    payload = json.loads((tmp_path / "reports" / "audit.json").read_text())
    assert payload["passed"] and len(payload["families"]) == len(list(items.glob("*.jsonl")))
    assert "## Content-blind probes" in (tmp_path / "reports" / "audit.md").read_text()


def test_a_margin_of_exactly_the_limit_passes_the_gate() -> None:
    from decisionpivot.audit.run import over_limit

    assert 0.55 - 0.5 > 0.05  # what a plain comparison would get wrong
    assert not over_limit(0.55 - 0.5, 0.05)
    assert over_limit(0.0501, 0.05)
    assert not over_limit(1 / 3, 1 / 3 + 0.0)


def test_rounded_argmax_ignores_last_bit_noise_and_breaks_exact_ties_to_the_first_position() -> None:
    import numpy as np

    from decisionpivot.audit.probes import robust_argmax

    base = np.array([[0.1, 0.1, 0.1], [0.2, 0.5, 0.5], [0.3, 0.1, 0.2]])
    for noise in (1e-17, 1e-12, 1e-9):
        jitter = np.random.default_rng(7).normal(0.0, noise, base.shape)
        assert robust_argmax(base + jitter).tolist() == [0, 1, 0]
    # a binary model's signed score: zero (or noise around it) is the first class, as in scikit-learn
    assert robust_argmax(np.array([1e-17, -1e-17, 0.0, 0.3, -0.3])).tolist() == [0, 0, 0, 1, 0]


def test_probe_decisions_survive_kernel_noise_on_mathematically_tied_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    """policy_case-like: every group holds one item per outcome with the same state, so every feature value
    is seen with each class equally often and the class scores are equal but for rounding. Another BLAS
    kernel perturbs the last bits (simulated: noise of 1e-15 on the decision scores of every probe, numeric
    and text); the predictions must not move, and the tie goes to the first position."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from decisionpivot.audit import probes
    from decisionpivot.audit.probes import PROBES, probe_predictions

    options = (Option("approve", "a"), Option("deny", "d"), Option("escalate", "e"))
    items = []
    for g in range(60):
        state = "\n".join(f"rule {k}" for k in range(3 + g % 7))
        for answer in ("approve", "deny", "escalate"):
            items.append(Item(f"tie:{len(items):05d}", "tie", "B", "1", f"tie:g{g:04d}", 1 + g % 3, None, "d",
                              state, "What?", options, answer))
    clean = {p.name: probe_predictions(p, items).tolist() for p in PROBES}
    assert all(v == [0] * len(items) for v in clean.values()), clean
    exact = LogisticRegression.decision_function
    exact_text = probes.lbfgs_logistic_scores
    rng = np.random.default_rng(3)

    def noisy(self: LogisticRegression, x: object) -> np.ndarray:
        scores = exact(self, x)
        return scores + rng.normal(0.0, 1e-15, np.shape(scores))

    def noisy_text(*args: object) -> tuple[np.ndarray, np.ndarray]:
        classes, scores = exact_text(*args)  # type: ignore[arg-type]
        return classes, scores + rng.normal(0.0, 1e-15, np.shape(scores))

    monkeypatch.setattr(LogisticRegression, "decision_function", noisy)  # the numeric probes
    monkeypatch.setattr(probes, "lbfgs_logistic_scores", noisy_text)  # the text probes
    for probe in PROBES:
        assert probe_predictions(probe, items).tolist() == clean[probe.name], probe.name


def test_audit_json_floats_are_portable() -> None:
    from decisionpivot.audit.run import portable

    assert portable({"a": [0.1 + 0.2, 1 / 3], "b": -0.0, "c": 7, "d": "x"}) == {
        "a": [0.3, 0.3333333333], "b": 0.0, "c": 7, "d": "x"}
    assert str(portable(-0.0)) == "0.0"
    assert portable(2.0e-40) == 2.0e-40  # significant digits, not decimals: tiny p-values survive


def _small_release(folder: Path, families: list[str], items: int = 180) -> Path:
    """The first ``items`` items (whole contrast groups) of each family's release draw, with a manifest."""
    from decisionpivot.generate.run import rebuild_manifest, write_family_files

    write_family_files(folder, 20261007, families, write_manifest=False)
    for name in families:
        path = folder / f"{name}.jsonl"
        path.write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:items]), encoding="utf-8")
    rebuild_manifest(folder, 20261007, families)
    return folder


def test_reports_are_the_same_bytes_for_any_number_of_processes_threads_kernel_and_hash_seed(tmp_path: Path) -> None:
    """policy_case's probe scores tie mathematically, access_request is a yes/no family: audited with one
    process and one BLAS/OpenMP thread, then with two processes, two threads, another OpenBLAS kernel and
    another PYTHONHASHSEED, the reports are the same bytes."""
    from tests.release.test_dvc import _blas_env, _other_kernel

    items = _small_release(tmp_path / "items", ["policy_case", "access_request"])
    params = Path(__file__).resolve().parents[2] / "params.yaml"
    run = [sys.executable, "-m", "decisionpivot.cli"]
    reports = []
    for jobs, threads, kernel, hash_seed in ((1, 1, None, "0"), (2, 2, _other_kernel(), "4242")):
        out = tmp_path / f"reports-{jobs}"
        env = {**_blas_env(threads, kernel), "PYTHONHASHSEED": hash_seed}
        result = subprocess.run([*run, "audit", "--items", str(items), "--params", str(params), "--jobs", str(jobs),
                                 "--out", str(out), "--allow-modified-items"],  # a subset of the release
                                env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        reports.append(((out / "audit.json").read_bytes(), (out / "audit.md").read_bytes()))
    assert reports[0] == reports[1]
    assert len(json.loads(reports[0][0])["families"]) == 2


def test_spawned_workers_give_the_reports_of_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The start method of other platforms (spawn: nothing inherited from the parent) changes nothing."""
    from decisionpivot.audit import run as audit_run

    folder = _small_release(tmp_path, ["clause_change"], items=90)
    tasks = [audit_run.FamilyAudit("clause_change", folder / "clause_change.jsonl", AuditLimits(), seed)
             for seed in (None, 7)]  # two tasks: cross-validated, and trained on a fresh draw
    alone = list(audit_run.audit_families(tasks, jobs=1))
    monkeypatch.setattr(audit_run, "START_METHOD", "spawn")
    assert list(audit_run.audit_families(tasks, jobs=2)) == alone


def test_the_audit_with_a_training_draw(tmp_path: Path) -> None:
    """--train-seed: the probes train on a fresh draw and test on the items; the rest audits the items."""
    from decisionpivot.audit.run import audit_command

    _small_release(tmp_path / "items", ["goal_check"], items=200)
    assert audit_command(tmp_path / "items", None, None, tmp_path / "reports", train_seed=7, jobs=1)
    report = json.loads((tmp_path / "reports" / "audit.json").read_text())["families"][0]
    assert report["items"] == 200 and report["hygiene"]["repeated_states"] == 0
    assert abs(report["probes"]["bag_of_words"]["margin"]) < 0.05


def test_a_params_file_named_must_exist_and_name_known_heuristics(tmp_path: Path) -> None:
    """A misspelled --params file meant the built-in limits, and a misspelled heuristic its default limit."""
    with pytest.raises(DecisionPivotError, match=r"missing\.yaml: not found"):
        AuditLimits.from_params(tmp_path / "missing.yaml")
    params = tmp_path / "params.yaml"
    params.write_text("audit:\n  heuristic_limits:\n    toolcall_valid.schema_onl: 0.34\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r":3: unknown key 'toolcall_valid.schema_onl' in audit."
                                                 r"heuristic_limits \(did you mean toolcall_valid.schema_only\?\)"):
        AuditLimits.from_params(params)
    params.write_text("audit:\n  probe_margin: '0.05'\n", encoding="utf-8")
    with pytest.raises(DecisionPivotError, match=r":2: audit.probe_margin: expected a probability from 0 to 1"):
        AuditLimits.from_params(params)
    params.write_text("score: {resamples: 10}\n", encoding="utf-8")
    assert AuditLimits.from_params(params) == AuditLimits()


def test_dp_audit_refuses_edited_items_and_states_the_flag(tmp_path: Path) -> None:
    """Red team, wave 5: `dp audit` read a released file with one gold flipped (its manifest re-written or not)
    and reported on it without a word, while verify, evaluate and score refused it. It now goes through the same
    rule (item_origin): refused naming the file, or read with --allow-modified-items, which audit.json, audit.md
    and stderr then state."""
    import shutil

    from decisionpivot.generate.run import rebuild_manifest

    items = tmp_path / "items"
    run = [sys.executable, "-m", "decisionpivot.cli"]
    assert subprocess.run([*run, "generate", "--families", "goal_check", "--out", str(items)],
                          capture_output=True).returncode == 0
    path = items / "goal_check.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[0])
    record["answer"] = "yes" if record["answer"] == "no" else "no"
    lines[0] = json.dumps(record) + "\n"
    path.write_text("".join(lines))
    rewritten = tmp_path / "rewritten"
    shutil.copytree(items, rewritten)
    from decisionpivot import RELEASE_SEED

    rebuild_manifest(rewritten, RELEASE_SEED, ["goal_check"])
    for folder in (items, rewritten):
        out = tmp_path / f"reports-{folder.name}"
        refused = subprocess.run([*run, "audit", "--items", str(folder), "--out", str(out), "--jobs", "1"],
                                 capture_output=True, text=True, timeout=600)
        assert refused.returncode == 2 and "goal_check.jsonl" in refused.stderr, refused.stderr
        assert "--allow-modified-items" in refused.stderr and not (out / "audit.json").exists()
        read = subprocess.run([*run, "audit", "--items", str(folder), "--out", str(out), "--jobs", "1",
                               "--allow-modified-items"], capture_output=True, text=True, timeout=600)
        assert read.returncode == 0, read.stderr
        assert "--allow-modified-items" in read.stderr
        assert "goal_check" in json.loads((out / "audit.json").read_text())["modified_items"]
        assert "Items read with --allow-modified-items" in (out / "audit.md").read_text()
