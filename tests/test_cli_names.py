"""Every name a user types into a list flag gets the one "did you mean" hint, in readable words; a folder that is
not there is "no such folder" (issue #39, point 6)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.cli import DP, main
from decisionpivot.command_line import verbs
from decisionpivot.errors import unknown_names
from tests.evaluate.conftest import FAMILY, items_dir  # noqa: F401 (the fixture: one small items folder per session)

NAME_LISTS = {"families", "tasks", "systems"}
"""Parameters that take names of things that exist (comma lists)."""

CASES = [  # (argv, what the error must say); {items} is a folder holding the items of FAMILY
    (["generate", "--families", "fact_answerabl"], "unknown family 'fact_answerabl' (did you mean fact_answerable?)"),
    (["manifest", "--families", "fact_answerable,polcy_case"],
     "unknown family 'polcy_case' (did you mean policy_case?)"),
    (["verify", "--items", "{items}", "--families", "fact_answerabl"], "(did you mean fact_answerable?)"),
    (["audit", "--items", "{items}", "--families", "fact_answerabl"], "(did you mean fact_answerable?)"),
    (["frame", "--items", "{items}", "--families", "fact_answerabl"], "(did you mean fact_answerable?)"),
    (["scale", "--families", "support_priorty"], "unknown scale family 'support_priorty' (did you mean "
                                                 "support_priority?); known: support_priority,"),
    (["evaluate", "--system", "uniform", "--families", "fact_answerabl"], "(did you mean fact_answerable?)"),
    (["evaluate", "--system", "uniform", "--tasks", "fact_answerabl"], "unknown task 'fact_answerabl' (did you mean "
                                                                        "fact_answerable?); known: fact_answerable,"),
    (["evaluate", "--system", "uniform", "--items", "{items}", "--tasks", "fact_answerabl"],
     "unknown task 'fact_answerabl' (did you mean fact_answerable?); known: " + FAMILY),
    (["evaluate", "--systems", "uniform,unifrm", "--items", "{items}"], "unknown system 'unifrm' (did you mean "
                                                                         "uniform?)"),
    (["evaluate", "--system", "heuristic.fact_answerable.names_in_table", "--tasks", "policy_case"],
     "this system answers only fact_answerable, not policy_case"),
    (["export", "lm-eval", "exported", "--items", "{items}", "--tasks", "fact_answerabl"],
     "(did you mean fact_answerable?)"),
    (["show", "fact_answerabl:00001", "--items", "{items}"], "unknown family 'fact_answerabl' (did you mean "
                                                             "fact_answerable?)"),
    (["score", "--items", "{items}", "--reference", "", "--systems", "unifrm"],
     "unknown system 'unifrm' (did you mean uniform?); known: uniform"),
    (["compare", "uniform", "unifrm", "--items", "{items}", "--reference", ""], "(did you mean uniform?)"),
    (["stability", "{items}", "runs", "{items}", "runs", "--systems", "unifrm"], "(did you mean uniform?)"),
    (["cost", "--items", "{items}", "--cost-wrong", "5", "--cost-escalated", "1", "--systems", "unifrm", "--out", "c"],
     "(did you mean uniform?)"),
    (["repair", "--system", "unifrm"], "unknown system 'unifrm' (did you mean uniform?)"),
    (["reconstruct", "llmbr"], "unknown reference task 'llmbr' (did you mean llmbar?)"),
    (["sample", "capb_gsm8", "uniform"], "unknown task 'capb_gsm8' (did you mean capb_gsm8k?)"),
    (["sample", "capb_gsm8k", "--systems", "unifrm"], "unknown system 'unifrm' (did you mean uniform?)"),
]


@pytest.fixture
def project(tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """An empty working folder with a runs folder holding one system, uniform."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "uniform").mkdir(parents=True)
    return items_dir


@pytest.mark.parametrize(("argv", "needle"), CASES, ids=[" ".join(argv[:2]) for argv, _ in CASES])
def test_every_name_list_gets_the_hint(argv: list[str], needle: str, project: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main([a.replace("{items}", str(project)) for a in argv])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and needle in err, err
    assert "['" not in err, "a Python list in a message"
    assert not (tmp_path / "datasets").exists(), "a misspelt name costs no generation"


def test_every_name_list_flag_of_every_verb_is_tested() -> None:
    """A verb that gains a --families, --tasks or --systems flag must get its case above."""
    flags = {(verb, name) for verb, method in verbs(DP).items() for name in inspect.signature(method).parameters
             if name in NAME_LISTS}
    tested = {(argv[0], flag[2:]) for argv, _ in CASES for flag in argv if flag[2:] in NAME_LISTS}
    untested = flags - tested - {("gate", "systems"), ("recalibrate", "systems")}  # below: same reader as score
    assert not untested, f"name list flags without a case: {sorted(untested)}"


def test_gate_and_recalibrate_read_systems_as_score_does() -> None:
    """Their --systems go through score.answers.find_systems (load_runs), the reader the score case tests."""
    import decisionpivot.gate.run
    import decisionpivot.recalibrate.run

    for module in (decisionpivot.gate.run, decisionpivot.recalibrate.run):
        assert "load_runs(" in inspect.getsource(module), module.__name__


def test_the_hint_names_each_unknown_name_and_lists_the_known() -> None:
    assert unknown_names("family", ["a"], ["a", "b"]) == ""
    assert unknown_names("family", ["polcy_case", "x", "x"], ["policy_case", "goal_check"], plural="families") == (
        "unknown families 'polcy_case' (did you mean policy_case?), 'x'; known: policy_case, goal_check")
    assert unknown_names("system", ["s"], []) == "unknown system 's'; known: none"


INPUT_FOLDERS = [  # a folder a verb reads, named on the command line but not there
    ["verify", "--items", "/missing"], ["audit", "--items", "/missing"], ["manifest", "--items", "/missing"],
    ["show", "fact_answerable:00001", "--items", "/missing"], ["frame", "--items", "/missing"],
    ["evaluate", "--system", "uniform", "--items", "/missing"], ["merge", "--system", "uniform", "--items", "/missing"],
    ["export", "lm-eval", "exported", "--items", "/missing"], ["score", "--items", "/missing"],
    ["score", "--runs", "/missing"], ["score", "--invariance", "/missing"], ["score", "--invariance-runs", "/missing"],
    ["compare", "a", "b", "--runs", "/missing"], ["gate", "--runs", "/missing"],
    ["gate", "--calibration-runs", "/missing"],
    ["gate", "--calibration-items", "/missing"], ["report", "--reports", "/missing"], ["report", "--runs", "/missing"],
    ["report", "--items", "/missing"], ["report", "--invariance", "/missing"], ["cost", "--runs", "/missing"],
    ["recalibrate", "--runs", "/missing"], ["recalibrate", "--calibration-items", "/missing"],
    ["repair", "--system", "uniform", "--runs", "/missing"], ["merge", "--system", "uniform", "--runs", "/missing"],
    ["stability", "/missing", "runs", "/missing", "runs"], ["datasheet", "--core", "/missing"],
    ["release", "--dry-run", "--core", "/missing"], ["overlap", "corpus.txt", "--items", "/missing"],
    ["reconstruct", "llmbar", "--source", "/missing"], ["sample", "capb_gsm8k", "uniform", "--source", "/missing"],
    ["import", "lm-eval", "results", "--system", "x", "--items", "/missing"],
]


@pytest.mark.parametrize("argv", INPUT_FOLDERS, ids=[" ".join(argv[:3]) for argv in INPUT_FOLDERS])
def test_a_missing_input_folder_is_no_such_folder(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`dp verify --items /missing` said "no MANIFEST.json"; `dp score --invariance /missing` scored without it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "no such folder: /missing" in err, err


def test_a_folder_without_a_manifest_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for argv, needle in ((["verify"], f"datasets/core/{BENCHMARK_VERSION}: no such folder (run `dp generate` first)"),
                         (["verify", "--items", "."], "MANIFEST.json: no MANIFEST.json")):
        with pytest.raises(SystemExit):
            main(argv)
        err = capsys.readouterr().err
        assert needle in err, err
