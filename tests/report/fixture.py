"""A scoring with everything the report can show, made through the real pipeline: items drawn by the
generators, systems run by `dp evaluate` (the built-in uniform baseline, a family heuristic, synthetic
`kind: python` systems of graded skill, one with permuted option orders, one partial run) on three core families
and two synthetic reference tasks, scored by `dp score --partial` with an invariance suite (`dp frame`, a small
sample) that uniform and the graded systems answered, a `dp stability` result of a second run, and a gate.json
written to the contract of `dp gate`.

Only one system is written directly: ``chat-sim``, answer files as the chat runner records them (latency,
tokens, input tokens, closed replies, an input restriction, a failed request) with its meta file (concurrency,
prices), since no chat server runs in these tests. Used by the report tests and benchmarks/report_scale.py.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED, __version__
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.frame.suite import write_suite
from decisionpivot.generate.run import write_family_files
from decisionpivot.items import Item, Option, read_items, sha256_file, write_items
from decisionpivot.score.pipeline import score_runs
from decisionpivot.score.reference import ReferenceTask
from decisionpivot.stability.run import stability, write_stability

PLUGINS = Path(__file__).resolve().parent / "plugins"
FAMILIES = ("fact_answerable", "policy_case", "record_rule")
SKILLS = {"graded-0.90": 0.9, "graded-0.75": 0.75, "graded-0.60": 0.6}
HEURISTIC = "heuristic.fact_answerable.names_in_table"


@dataclass(frozen=True)
class ReportFixture:
    """Folders of one scoring."""

    root: Path
    """The folder holding everything."""
    items: Path
    """Core items (MANIFEST.json with the release seed)."""
    runs: Path
    """Answer folders."""
    reports: Path
    """`dp score` output (with partial.csv, gate.json, stability/stability.json)."""
    systems: tuple[str, ...]
    """Systems with answer folders."""
    invariance: Path | None = None
    """An invariance suite of the items (`dp frame`), scored beside the core (extras only)."""
    invariance_runs: Path | None = None
    """The answers to the suite of uniform and the graded systems."""


def _systems_file(path: Path, skills: dict[str, float], salt: str = "") -> Path:
    lines = ["systems:"]
    for name, skill in skills.items():
        lines.append(f"  {name}: {{kind: python, callable: 'dp_report_plugins:graded', "
                     f"options: {{skill: {skill}, name: '{name}{salt}'}}}}")
    lines.append(f"  graded-partial: {{kind: python, callable: 'dp_report_plugins:graded', "
                 f"options: {{skill: 0.8, name: 'partial{salt}'}}}}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def chat_sim(items_dir: Path, runs: Path, families: Sequence[str]) -> None:
    """Answer files of a chat system as its runner records them (see the module docstring)."""
    sys.path.insert(0, str(PLUGINS))
    from dp_report_plugins import graded

    config = {"name": "chat-sim", "kind": "chat", "model": "sim-7b", "base_url": "http://127.0.0.1:9/v1",
              "api_key_env": "SIM_API_KEY", "concurrency": 8, "adaptive_concurrency": True,
              "price_per_million_input_tokens": 0.5, "price_per_million_output_tokens": 1.5}
    folder = runs / "chat-sim"
    folder.mkdir(parents=True, exist_ok=True)
    for f, family in enumerate(families):
        path = items_dir / f"{family}.jsonl"
        items = read_items(path)
        probabilities = graded(items, 0.7, "chat-sim")
        lines = []
        for i, (item, p) in enumerate(zip(items, probabilities, strict=True)):
            extra = {"latency_s": round(0.2 + 0.01 * ((i * 37 + f) % 90), 3), "tokens": 40 + (i * 13) % 400,
                     "input_tokens": 900 + (i * 7) % 600, "closed": (i % 17) != 0}
            if i == 3 and f == 0:
                lines.append({"id": item.id, "error": "input restriction: more options than the model reads"})
            elif i == 5:
                lines.append({"id": item.id, "error": "the reply had no JSON object with the option keys"})
            else:
                lines.append({"id": item.id, "p": p, **extra})
        (folder / f"{family}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        meta = {"task": family, "system": config, "kind": "chat", "readout": "chat/verbalised",
                "items_file": str(path), "items_sha256": sha256_file(path), "items_check": "released core 1.2",
                "allow_modified_items": False, "permutation": None, "package_version": __version__,
                "items": len(items), "answers": len(items) - 2, "errors": 2}
        (folder / f"{family}.meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")


def gate_fixture(systems: Sequence[str], families: Sequence[str], items: Path | None = None,
                 runs: Path | None = None) -> dict[str, Any]:
    """A gate.json to the `dp gate` contract (values made up, within their ranges), made from the items and
    answer files of ``items`` and ``runs`` when given: their hashes and fingerprints, as `dp gate` records them."""
    checked = {family: sha256_file(items / f"{family}.jsonl") for family in families} if items else {}
    out: dict[str, Any] = {"method": "clopper-pearson", "reference": "release", "target_risk": 0.05, "delta": 0.1,
                           "calibration": [{"seed": 7, "items": 1800, "manifest_sha256": "0" * 64,
                                            "families": list(families)}], "systems": {},
                           "release": {"items": "datasets/core", "manifest_sha256": "0" * 64, "families": checked}}
    for s, system in enumerate(systems):
        entries = {}
        for f, family in enumerate(families):
            automate = (s + f) % 3 != 2
            entries[family] = {
                "decision": "automate" if automate else "do not automate",
                "reason": "risk bound under target" if automate else "no threshold keeps the bound under 5%",
                "threshold": 0.8 + 0.05 * f if automate else None, "observed_risk": 0.045 if automate else None,
                "expected_coverage": round(0.3 + 0.1 * f - 0.05 * s, 3) if automate else 0.0,
                "calibration_items": 600, "calibration_groups": 300 - 50 * f,
                "release": {"risk": 0.03, "risk_ci": [0.02, 0.05], "coverage": 0.31, "coverage_ci": [0.27, 0.35],
                            "bound_held": True, "retrospective_coverage": 0.35}}
        out["systems"][system] = {
            "families": entries,
            "pooled": {"decision": "refused", "reason": "pooled certification needs every family", "threshold": None,
                       "observed_risk": None, "expected_coverage": None, "calibration_items": 1800,
                       "calibration_groups": 650, "release": None},
            "certified_coverage_macro": round(0.25 - 0.05 * s, 3), "retrospective_coverage_macro": 0.3}
        if runs is not None:
            out["systems"][system]["fingerprints"] = {
                family: json.loads((runs / system / f"{family}.meta.json").read_text(encoding="utf-8"))["fingerprint"]
                for family in families}
    return out


REFERENCE = (ReferenceTask("synthetic_refusal", "B", "accuracy", 0.5),
             ReferenceTask("synthetic_match", "G", "f1", 2 * 0.4 / 1.4, positive="yes"))
"""Two synthetic reference tasks (layers B, G; 200 ungrouped yes/no items each: half yes for accuracy, 40% for F1)."""


def reference_items(folder: Path, tasks: Sequence[ReferenceTask] = REFERENCE) -> Path:
    """Items files of the synthetic reference tasks (the common item schema, no groups or levels)."""
    for task in tasks:
        items = [Item(id=f"{task.name}:{i:05d}", family=task.name, layer=task.layer, version="synthetic", group=None,
                      level=None, variation=None, domain=None, state=f"Synthetic reference case {i} of {task.name}.",
                      question="Does the case qualify?", options=(Option("yes", "it qualifies"),
                                                                   Option("no", "it does not")),
                      answer="yes" if (i % 2 == 0 if task.metric == "accuracy" else (i * 7) % 5 < 2) else "no")
                 for i in range(200)]
        write_items(folder / f"{task.name}.jsonl", items)
    return folder


def build_fixture(root: Path, families: Sequence[str] = FAMILIES, skills: dict[str, float] | None = None,
                  resamples: int = 200, extras: bool = True) -> ReportFixture:
    """Draw, evaluate and score into ``root`` (see the module docstring); ``extras`` adds the permuted,
    partial, chat-sim, stability and gate inputs."""
    skills = dict(SKILLS if skills is None else skills)
    items, runs, reports = root / "items", root / "runs", root / "reports"
    write_family_files(items, RELEASE_SEED, list(families), benchmark_version=BENCHMARK_VERSION)
    sys.path.insert(0, str(PLUGINS))
    config = _systems_file(root / "systems.yaml", skills)
    names = ["uniform", *skills]
    reference = reference_items(root / "reference")
    for name in names:
        evaluate_system(get_system(name, config), items, runs, progress=False)
        evaluate_system(get_system(name, config), reference, runs, progress=False,
                        allow_modified_items=True)  # synthetic reference tasks: no card, no draw
    if HEURISTIC.split(".")[1] in families:
        evaluate_system(get_system(HEURISTIC, config), items, runs, progress=False)
        names.append(HEURISTIC)
    if extras:
        first = next(iter(skills))
        evaluate_system(get_system(first, config), items, runs, tasks=[families[0]], progress=False,
                        permute_options=2)
        partial = get_system("graded-partial", config)
        evaluate_system(partial, items, runs, tasks=list(families[1:]), progress=False)
        evaluate_system(partial, items, runs, tasks=[families[0]], limit=30, progress=False)
        chat_sim(items, runs, families)
        names += ["graded-partial", "chat-sim"]
    suite = suite_runs = None
    if extras:  # the invariance suite, as the main job frames, answers and scores it (a smaller sample)
        suite, suite_runs = root / "invariance", root / "runs-invariance"
        write_suite(items, suite, families=list(families), base_items=12)
        for name in ["uniform", *skills]:
            evaluate_system(get_system(name, config), suite, suite_runs, progress=False)
    score_runs(runs, items, reference, reports, resamples=resamples, tasks=REFERENCE, partial=extras,
               invariance=suite, invariance_runs=suite_runs or "runs-invariance", allow_modified_items=True)
    if extras:
        rerun = _systems_file(root / "systems-rerun.yaml", skills, salt="-rerun")
        runs_b = root / "runs-rerun"
        for name in skills:
            evaluate_system(get_system(name, rerun), items, runs_b, progress=False)
        copy = root / "items-copy"
        shutil.copytree(items, copy)
        result = stability(items, runs, copy, runs_b, systems=list(skills), resamples=resamples)
        write_stability(result, reports / "stability", "core 1.2", "core 1.2 (second run)")
        gate = gate_fixture(list(skills), families, items, runs)
        (reports / "gate.json").write_text(json.dumps(gate, indent=2), "utf-8")
    return ReportFixture(root, items, runs, reports, tuple(names), suite, suite_runs)
