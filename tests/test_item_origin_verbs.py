"""Every verb that reads items goes through the one rule (decisionpivot.item_origin): an edited items file - an
edit Hypothesis generates, in the release, the calibration draw and the traffic draw of the deployment project
(tests/deployment_project.py), with the manifest rewritten to match or not - stops evaluate, score, verify,
compare, gate, recalibrate, cost, monitor, report and frame with one line naming the file; with
--allow-modified-items each of them runs, and every file it writes says so."""

from __future__ import annotations

import ast
import json
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

import decisionpivot
from decisionpivot.cli import DP, main
from decisionpivot.command_line import parse_command_line, verb_parameters, verbs
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import read_items
from tests.deployment_project import CALIBRATION_SEED, SYSTEMS, TRAFFIC_SEED, Project, shared_project
from tests.test_item_origin import _edited, edits

FAMILY = "fact_answerable"
FLAG = "--allow-modified-items"
STATED = ("--allow-modified-items", "modified_items")
"""What an output that read items under the flag carries (the sentence, or the JSON key / CSV column)."""


@pytest.fixture(scope="module")
def project() -> Project:
    return shared_project()


def _dp(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _states(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return any(marker in text for marker in STATED)


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(edit=edits(suite=False))
def test_every_verb_refuses_an_edited_file_and_states_the_flag_in_every_output(
        project: Project, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, edit: tuple[str, Callable[[list[str]], list[str]], bool]) -> None:
    what, change, rewrite = edit
    lines = change((project.root / project.items / f"{FAMILY}.jsonl").read_text(encoding="utf-8").splitlines(True))
    probe = tmp_path_factory.mktemp("probe") / f"{FAMILY}.jsonl"
    probe.write_text("".join(lines), encoding="utf-8")
    try:
        read_items(probe)
    except DecisionPivotError:
        assume(False)  # an edit that breaks the file is refused by its reader before any verb runs it
    root = tmp_path_factory.mktemp("edited")
    for folder in (project.items, project.fresh / f"seed-{CALIBRATION_SEED}", project.fresh / f"seed-{TRAFFIC_SEED}"):
        _edited(project.root / folder, root / folder, FAMILY, change, rewrite)
    for name in ("runs", "runs-calibration", "runs-traffic", "reports", "systems.yaml"):
        (shutil.copytree if (project.root / name).is_dir() else shutil.copy)(project.root / name, root / name)
    monkeypatch.chdir(root)
    items, calibration, traffic = str(project.items), f"datasets/fresh/seed-{CALIBRATION_SEED}", \
        f"datasets/fresh/seed-{TRAFFIC_SEED}"
    verbs = {
        "evaluate": ("evaluate", "--system", "uniform", "--items", items, "--runs", "runs-new"),
        "score": ("score", "--items", items, "--reference", "", "--out", "scored", "--nofigures", "--resamples", "20"),
        "verify": ("verify", "--items", items),
        "compare": ("compare", "--baseline", "runs/oracle", "--candidate", "runs/degraded", "--items", items,
                    "--resamples", "20", "--out", "scored/compare"),
        "gate": ("gate", "--items", items, "--seeds", str(CALIBRATION_SEED), "--target-risk", "0.1", "--resamples",
                 "20", "--out", "scored"),
        "recalibrate": ("recalibrate", "--items", items, "--seeds", str(CALIBRATION_SEED), "--resamples", "20",
                        "--out", "scored/recalibrate"),
        "cost": ("cost", "--items", items, "--cost-wrong", "50", "--cost-escalated", "2", "--gate",
                 "scored/gate.json", "--out", "scored/cost"),
        "monitor": ("monitor", "scored/gate/oracle.json", "--answers", "runs-traffic/oracle", "--items", traffic,
                    "--out", "scored/monitor"),
        "report": ("report", "--reports", "scored", "--items", items, "--gate", "scored/gate.json", "--stability",
                   "", "--partial", "", "--out", "scored/site"),
        "frame": ("frame", "--items", items, "--out", "suite", "--families", FAMILY, "--base-items", "12"),
    }
    def refused(verb: str, folder: str = items) -> None:
        code, _, err = _dp(capsys, *verbs[verb])
        assert code == 2 and err.count("\n") == 1, (verb, what, err)
        assert err.startswith(f"error: {folder}/") and FLAG in err, (verb, what, err)

    for verb in ("evaluate", "score", "verify", "compare", "gate", "recalibrate", "frame"):
        refused(verb)
    assert not Path("runs-new").exists() and not Path("scored").exists() and not Path("suite").exists()
    # with the flag: answers to the edited items first (the answer files name the items they answered)
    for name in ("runs", "runs-calibration", "runs-traffic"):
        shutil.rmtree(name)
    for name in SYSTEMS:
        system = get_system(name, Path("systems.yaml"))
        evaluate_system(system, Path(items), Path("runs"), progress=False, allow_modified_items=True)
        evaluate_system(system, Path(calibration), Path(f"runs-calibration/seed-{CALIBRATION_SEED}"), progress=False,
                        allow_modified_items=True)
        evaluate_system(system, Path(traffic), Path("runs-traffic"), progress=False, allow_modified_items=True)
    for verb in ("score", "compare", "gate", "recalibrate", "cost", "monitor", "report"):
        if verb in ("cost", "monitor", "report"):  # their other inputs (gate.json, the scoring) exist by now
            refused(verb, traffic if verb == "monitor" else items)
        code, out, err = _dp(capsys, *verbs[verb], FLAG)
        assert code in (0, 1), (verb, what, err)  # compare and monitor exit 1 on a finding
        assert verb not in ("compare", "monitor") or "Items read with --allow-modified-items" in out, verb
    code, out, _ = _dp(capsys, *verbs["verify"], FLAG)
    assert code in (0, 1) and out.startswith("Items read with --allow-modified-items"), what
    written = sorted(str(p) for p in Path("scored").rglob("*")
                     if p.is_file() and (p.suffix == ".html" or "site" not in p.parts))
    assert {"scored/gate.md", "scored/gate/oracle.json", "scored/recalibrate/maps/oracle.json", "scored/cost/cost.md",
            "scored/cost/figures/cost-oracle.svg", "scored/monitor/monitor.json", "scored/compare/compare.md",
            "scored/site/index.html", "scored/leaderboard.md", "scored/scores.json", "scored/families.csv"} \
        <= set(written)
    assert [path for path in written if not _states(Path(path))] == [], what
    code, out, _ = _dp(capsys, "recalibrate", "apply", "--map", "scored/recalibrate/maps/oracle.json", "--answers",
                       "runs/oracle", "--items", items, FLAG)
    assert code == 0 and out.splitlines()[0].endswith(",modified_items")
    code, _, err = _dp(capsys, *verbs["frame"], FLAG)
    if code == 0:  # an edit that keeps the states: framed, and the suite says from what
        assert json.loads(Path("suite/MANIFEST.json").read_text())["core"]["modified"].keys() == {FAMILY}
    else:  # a state edited or moved: the framing rebuilds the groups from the generator and refuses it anyway
        assert code == 2 and "is not what this package's generator draws" in err, (what, err)


SOURCE = Path(decisionpivot.__file__).parent
ACCEPT = "decisionpivot.item_origin.accept_items_file"


def _module(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(nodes: Iterable[ast.AST], module: str, package: bool) -> dict[str, str]:
    """Local name -> qualified name of what ``from ... import`` and ``import`` statements among ``nodes`` bind."""
    bound: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if package else module.split(".")[:-1]
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            bound.update({alias.asname or alias.name: f"{base}.{alias.name}" for alias in node.names})
        elif isinstance(node, ast.Import):
            bound.update({alias.asname or alias.name: alias.name for alias in node.names})
    return bound


def _without_flag(node: ast.AST) -> bool:
    """A call passing ``flag=False`` (only accept_items_file takes it: a caller offering no --allow-modified-items)."""
    return isinstance(node, ast.Call) and any(k.arg == "flag" and isinstance(k.value, ast.Constant)
                                              and k.value.value is False for k in node.keywords)


def _calls_of_the_package() -> tuple[dict[str, set[str]], dict[str, str]]:
    """(function -> the functions of the package it calls or hands on, names it re-exports -> what they name), by
    reading the source: ``module.function`` and ``module.Class.method``; a nested function or lambda counts as its
    enclosing function. A call to accept_items_file with ``flag=False`` (a caller offering no
    --allow-modified-items, whose refusal names none) is left out."""
    calls: dict[str, set[str]] = {}
    exported: dict[str, str] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        module, tree = _module(path), ast.parse(path.read_text(encoding="utf-8"))
        top = _imports(tree.body, module, path.name == "__init__.py")
        exported.update({f"{module}.{name}": target for name, target in top.items()})
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        functions = [(node, None) for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
        functions += [(member, node.name) for node in tree.body if isinstance(node, ast.ClassDef)
                      for member in node.body if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)]
        for function, owner in functions:
            names = {**top, **_imports(ast.walk(function), module, path.name == "__init__.py")}
            found: set[str] = set()
            unflagged = {id(node.func) for node in ast.walk(function) if _without_flag(node)}
            for node in ast.walk(function):
                if id(node) in unflagged:
                    continue  # accept_items_file(..., flag=False): its refusal names no flag
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    if node.id in names:
                        found.add(names[node.id])
                    elif node.id in defined:
                        found.add(f"{module}.{node.id}")
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    if node.value.id == "self" and owner is not None:
                        found.add(f"{module}.{owner}.{node.attr}")
                    elif node.value.id in names:
                        found.add(f"{names[node.value.id]}.{node.attr}")
            calls[f"{module}.{owner + '.' if owner else ''}{function.name}"] = found
    return calls, exported


def _resolved(name: str, exported: dict[str, str]) -> str:
    seen = 0
    while name in exported and seen < 20:  # a name a package re-exports (decisionpivot.verify.verify_folder)
        name, seen = exported[name], seen + 1
    return name


def _verbs_that_can_suggest_the_flag() -> set[str]:
    """The verbs of `dp` whose code reaches accept_items_file, whose refusal ends naming --allow-modified-items."""
    calls, exported = _calls_of_the_package()
    graph = {function: {_resolved(name, exported) for name in names} for function, names in calls.items()}
    reaching = {ACCEPT}
    while True:
        more = {function for function, names in graph.items() if names & reaching} - reaching
        if not more:
            break
        reaching |= more
    return {verb for verb, method in verbs(DP).items()
            if f"{method.__module__}.{method.__qualname__}" in reaching}


def test_every_verb_that_can_suggest_the_flag_takes_it() -> None:
    """`dp stability` refused an edited folder ending "or read them as they are with --allow-modified-items", a flag
    it did not have. Every verb whose code reaches the one rule (accept_items_file, read from the source) takes the
    flag; a harness (dp export, dp import) offers none, and its refusal names none."""
    suggesting = _verbs_that_can_suggest_the_flag()
    assert {"evaluate", "score", "verify", "compare", "gate", "recalibrate", "cost", "monitor", "report", "frame",
            "audit", "stability"} <= suggesting, suggesting
    assert not suggesting & {"export", "import", "generate", "show", "systems", "merge", "repair"}, suggesting
    for verb in sorted(suggesting):
        required = [p for p in verb_parameters(verbs(DP)[verb], verb) if p.required]
        given = [word for p in required
                 for word in (p.flag, p.kind.metavar.strip("{}").split("|")[0] if p.kind.name == "choice" else "x")]
        invocation = parse_command_line(DP, [verb, *given, FLAG])
        assert invocation.kwargs.get("allow_modified_items") is True, verb
