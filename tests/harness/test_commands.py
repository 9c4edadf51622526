"""The `dp export` and `dp import` verbs: help, checking, and what importing `decisionpivot` leaves out."""

from __future__ import annotations

import subprocess
import sys

import pytest

from decisionpivot.cli import CONSTRAINTS, DP, main
from decisionpivot.command_line import CommandLineError, method_name, parse_command_line, verb_name, verbs


def dp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "decisionpivot.cli", *args], capture_output=True, text=True,
                          timeout=300, env={"PAGER": "cat", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("verb", ["import", "export"])
def test_help_names_the_verb_and_its_arguments(verb: str) -> None:
    result = dp(verb, "--help")
    text = result.stdout + result.stderr  # fire writes help to stderr when it is not a terminal
    assert result.returncode == 0, result.stderr
    assert f"dp {verb} HARNESS" in text and "import_" not in text and "Traceback" not in text
    assert "SYSTEM" in text if verb == "import" else "OUT" in text


def test_import_is_the_verb_of_the_method_import_() -> None:
    assert verb_name("import_") == "import" and method_name("import") == "import_"
    assert verb_name("score") == "score" == method_name("score") and verb_name("repair_") == "repair_"
    assert "import" in verbs(DP) and "import_" not in verbs(DP)
    invocation = parse_command_line(DP, ["import", "inspect", "log.eval", "--system", "mine"], CONSTRAINTS)
    assert invocation.verb == "import"
    assert invocation.kwargs == {"harness": "inspect", "log": "log.eval", "system": "mine"}


@pytest.mark.parametrize(("argv", "needle"), [
    (["import", "helm", "log", "--system", "x"], "one of inspect, lm-eval"),
    (["import", "inspect", "log"], "missing required argument SYSTEM"),
    (["export", "inspect", "out"], "one of lm-eval"),
    (["import", "inspect", "log", "--system", "x", "--restart", "maybe"], "true or false"),
])
def test_a_bad_command_line_is_refused_before_anything_runs(argv: list[str], needle: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(CommandLineError, match=needle):
        parse_command_line(DP, argv, CONSTRAINTS)
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2 and capsys.readouterr().err.startswith("error:")


def test_a_bad_system_name_is_refused(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["import", "lm-eval", "nowhere", "--system", "../up"])
    assert caught.value.code == 2 and "invalid system name" in capsys.readouterr().err


def test_importing_decisionpivot_imports_no_harness() -> None:
    """The main job's environment has neither inspect_ai nor lm_eval: nothing but inspect's own loading needs them."""
    code = ("import sys\n"
            "import decisionpivot.cli, decisionpivot.harness.lm_eval_export, decisionpivot.harness.lm_eval_import\n"
            "import decisionpivot.harness.inspect_import\n"
            "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('inspect_ai', 'lm_eval'))\n"
            "assert not loaded, loaded\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
