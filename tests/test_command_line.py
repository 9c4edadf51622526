"""The whole `dp` command line is checked before any verb runs (issue 15, items 7, 8, 9, 12, 13).

The verbs' work is replaced by recorders where it would be slow, so each test shows both that a bad
command line is refused with exit 2, one `error:` line and the usage, and that nothing ran.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, Literal

import pytest

from decisionpivot.cli import CONSTRAINTS, DP, main
from decisionpivot.command_line import (
    CommandLineError,
    at_least,
    parse_command_line,
    verb_parameters,
    verbs,
)
from decisionpivot.errors import DecisionPivotError


class Ran(Exception):
    """A verb's implementation was reached."""


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, dict[str, Any]]]:
    """Replace what the verbs call with recorders (name -> the arguments it got), in an empty folder."""
    import decisionpivot.evaluate.run as evaluate_run
    import decisionpivot.generate.run as generate_run
    import decisionpivot.release.hub as hub
    import decisionpivot.score.pipeline as pipeline
    import decisionpivot.score.report as report

    monkeypatch.chdir(tmp_path)
    seen: dict[str, dict[str, Any]] = {}

    def recorder(name: str, result: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            seen[name] = {"args": args, **kwargs}
            return result

        return record

    monkeypatch.setattr(generate_run, "write_family_files", recorder("generate", {"families": {}}))
    monkeypatch.setattr(evaluate_run, "evaluate_system", recorder("evaluate", []))
    monkeypatch.setattr(pipeline, "score_runs", recorder("score", SimpleNamespace(warnings=[], partial=(),
                                                                                  exclusions=())))
    monkeypatch.setattr(report, "leaderboard_markdown", lambda scoring: "leaderboard")
    monkeypatch.setattr(hub, "download_release", recorder("download", SimpleNamespace(
        covered=True, files=1, commit="c0ffee", release="1.1", digest="d", folder=Path("out"))))
    yield seen


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert lines[0].startswith("error: ") and "Traceback" not in err, err
    assert any(line.startswith("usage: dp ") for line in lines[1:]), err
    for needle in needles:
        assert needle in lines[0], err


# ------------------------------------------------------------------------------------- item 7


@pytest.mark.parametrize(("argv", "needle"), [
    (["evaluate", "--system", "uniform", "--limt", "5"], "unknown flag '--limt' (did you mean --limit?)"),
    (["generate", "--seed", "abc"], "--seed: expected an integer, got 'abc'"),
    (["generate", "--seed", "1.5"], "--seed: expected an integer, got '1.5'"),
    (["generate", "--seed=1e3"], "--seed: expected an integer"),
    (["score", "--resamples", "x"], "--resamples: expected an integer, got 'x'"),
    (["evaluate"], "name the system to evaluate: dp evaluate SYSTEM"),
    (["show"], "missing required argument ITEM_ID"),
    (["show", "a:1", "items", "extra"], "too many arguments: 'extra'"),
    (["version", "now"], "too many arguments: 'now'"),
    (["generate", "--seed", "1", "--seed", "2"], "--seed is given twice"),
    (["generate", "--seed"], "--seed needs a value"),
    (["evaluate", "--system", "--limit", "5"], "--system needs a value"),
    (["compare", "a", "b", "--resamples", "1.5"], "--resamples: expected an integer"),
    (["merge", "--system", "x", "--runz", "r"], "unknown flag '--runz' (did you mean --runs?)"),
    (["generate", "-x", "1"], "unknown flag '-x'"),
    (["release", "-r", "a/b"], "-r is ambiguous"),
])
def test_a_bad_command_line_is_refused_before_anything_runs(argv: list[str], needle: str, calls: dict,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(argv, capsys)
    assert_refused(code, err, needle)
    assert not calls and not out


def test_a_typo_costs_no_run(calls: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On main the whole evaluation ran and only then fire said "Could not consume arg"."""
    code, _, err = run(["evaluate", "--system", "uniform", "--items", str(tmp_path), "--limt", "5"], capsys)
    assert_refused(code, err, "--limt")
    assert "evaluate" not in calls


def test_unknown_command_names_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["genrate"], capsys)
    assert code == 2 and "unknown command 'genrate' (did you mean generate?)" in err and "commands: audit" in err


@pytest.mark.parametrize("argv", [
    ["generate", "--families", "policy_case,goal_check", "--out", "o", "--jobs", "2", "--nomanifest", "--seed=7"],
    ["generate", "--families=policy_case", "--out=", "--no-manifest"],
    ["generate", "-seed", "7", "-j", "3"],
])
def test_every_form_that_worked_still_works(argv: list[str], calls: dict, capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(argv, capsys)
    assert code == 0, err
    negated = any(word in argv for word in ("--nomanifest", "--no-manifest"))
    assert calls["generate"]["write_manifest"] is not negated


def test_values_arrive_with_their_types(calls: dict, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["generate", "--families", "policy_case, goal_check", "--out", "2026", "--jobs", "2"], capsys)[0] == 0
    folder, seed, names = calls["generate"]["args"]
    assert (folder, seed, names, calls["generate"]["jobs"]) == (Path("2026"), 20261008, ["policy_case", "goal_check"],
                                                                2)
    (tmp_path / "i").mkdir()  # an items folder with tasks a and b: --items and --tasks are checked against it
    for task in ("a", "b"):
        (tmp_path / "i" / f"{task}.jsonl").touch()
    assert run(["evaluate", "uniform", "--tasks=a,b", "--limit", "0", "--items", "i"], capsys)[0] == 0
    assert calls["evaluate"]["args"][3:5] == (["a", "b"], 0)
    assert run(["score", "--reference", "", "--resamples", "20", "--systems", "s1"], capsys)[0] == 0
    args = calls["score"]["args"]
    assert args[2] is None and args[4] == ["s1"] and args[5] == 20 and calls["score"]["tasks"] == ()


def test_help_is_asked_from_anywhere_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["generate", "--help"], ["generate", "--seed", "5", "--help"], ["score", "--", "--help"]):
        code, out, err = run(argv, capsys)
        assert code == 0 and out.startswith(("dp - ", "usage: dp ")) and not err, (argv, out, err)


def test_overlap_takes_training_files_by_position_and_as_a_comma_list() -> None:
    invocation = parse_command_line(DP, ["overlap", "a.txt", "b.txt", "--n", "8"], CONSTRAINTS)
    assert invocation.args == ["a.txt", "b.txt"] and invocation.kwargs == {"n": 8}
    invocation = parse_command_line(DP, ["overlap", "--train", "a.txt,b.txt", "c.txt"], CONSTRAINTS)
    assert invocation.args == ["a.txt", "b.txt", "c.txt"]


def test_every_verb_signature_can_be_read() -> None:
    """A new parameter with an annotation the command line cannot read fails here, not for a user."""
    for verb, method in verbs(DP).items():
        for parameter in verb_parameters(method, verb, CONSTRAINTS):
            assert parameter.kind.name in {"bool", "int", "float", "str", "path", "list", "choice"}, (verb, parameter)


def test_new_flags_are_validated_with_no_extra_code() -> None:
    """What the lead adds to evaluate/score (--retry-errors, --permute-options K, ...) is checked from its type."""

    class Tool:
        def evaluate(self, system: str, retry_errors: bool = False, restart: bool = False,
                     permute_options: Annotated[int | None, at_least(1)] = None, partial: bool = False,
                     mode: Literal["fast", "full"] = "full", temperature: float = 0.0) -> None:
            """A verb."""

    ok = parse_command_line(Tool, ["evaluate", "x", "--retry-errors", "--restart=false", "--permute-options", "3",
                                   "--partial", "yes", "--mode", "fast", "--temperature", "0.5"])
    assert ok.kwargs == {"system": "x", "retry_errors": True, "restart": False, "permute_options": 3,
                         "partial": True, "mode": "fast", "temperature": 0.5}
    for argv, needle in ((["--permute-options", "0"], ">= 1"), (["--permute-options", "two"], "an integer"),
                         (["--retry-error"], "did you mean --retry-errors?"), (["--mode", "slow"], "one of fast, full"),
                         (["--temperature", "nan"], "a number"), (["--partial", "maybe"], "true or false")):
        with pytest.raises(CommandLineError) as caught:
            parse_command_line(Tool, ["evaluate", "x", *argv])
        assert needle in str(caught.value) and caught.value.usage.startswith("usage: dp evaluate SYSTEM")


def test_a_table_entry_constrains_a_parameter_of_every_verb_or_of_one() -> None:
    class Tool:
        def a(self, k: int = 1) -> None: ...

        def b(self, k: int = 1) -> None: ...

    table = {"*": {"k": at_least(1)}, "b": {"k": at_least(5)}}
    with pytest.raises(CommandLineError, match=">= 1"):
        parse_command_line(Tool, ["a", "--k", "0"], table)
    assert parse_command_line(Tool, ["a", "--k", "2"], table).kwargs == {"k": 2}
    with pytest.raises(CommandLineError, match=">= 5"):
        parse_command_line(Tool, ["b", "--k", "2"], table)


# ------------------------------------------------------------------------------------- item 8


@pytest.mark.parametrize(("argv", "needle"), [
    (["evaluate", "--system", "uniform", "--limit", "-1"], "--limit: expected a number >= 0, got -1"),
    (["evaluate", "--system", "uniform", "--limit=-1"], "--limit: expected a number >= 0"),
    (["generate", "--jobs", "0"], "--jobs: expected a number >= 1, got 0"),
    (["generate", "--jobs", "-3"], "--jobs: expected a number >= 1, got -3"),
    (["score", "--resamples", "0"], "--resamples: expected a number >= 1"),
    (["compare", "a", "b", "--resamples", "-5"], "--resamples: expected a number >= 1"),
    (["overlap", "t.txt", "--n", "0"], "--n: expected a number >= 1"),
    (["verify", "--show", "-1"], "--show: expected a number >= 0"),
])
def test_counts_out_of_range_are_refused(argv: list[str], needle: str, calls: dict,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert_refused(code, err, needle)
    assert not calls


# ------------------------------------------------------------------------------------- item 9


@pytest.mark.parametrize(("words", "expected"), [
    (["--figures", "false"], False), (["--figures=False"], False), (["--figures", "0"], False),
    (["--figures", "no"], False), (["--nofigures"], False), (["--figures"], True), (["--figures", "YES"], True),
    (["--figures=1"], True), ([], True),
])
def test_booleans_mean_what_they_say(words: list[str], expected: bool, calls: dict,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["score", *words], capsys)
    assert code == 0, err
    assert calls["score"]["figures"] is expected


def test_manifest_and_allow_uncovered_false_are_false(calls: dict, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(["generate", "--manifest", "false"], capsys)[0] == 0
    assert calls["generate"]["write_manifest"] is False
    assert run(["download", "--repo-id", "org/name", "--allow-uncovered", "false"], capsys)[0] == 0
    assert calls["download"]["allow_uncovered"] is False
    assert run(["download", "org/name", "--allow-uncovered"], capsys)[0] == 0
    assert calls["download"]["allow_uncovered"] is True


def test_every_boolean_flag_of_every_verb_parses_false() -> None:
    for verb, method in verbs(DP).items():
        for parameter in verb_parameters(method, verb, CONSTRAINTS):
            if parameter.kind.name != "bool":
                continue
            required = [p for p in verb_parameters(method, verb) if p.required]
            base = [verb, *("x/y" if p.name == "repo_id" else p.kind.metavar.strip("{}").split("|")[0]
                            if p.kind.name == "choice" else "." if p.name in CONSTRAINTS.get(verb, {}) else "x"
                            for p in required)]  # a choice: its first value; a folder the verb reads: one that exists
            for word in ("false", "False", "0", "no"):
                assert parse_command_line(DP, [*base, parameter.flag, word], CONSTRAINTS).kwargs[parameter.name] \
                    is False, (verb, parameter.flag, word)
            with pytest.raises(CommandLineError, match=r"expected true or false"):
                parse_command_line(DP, [*base, f"{parameter.flag}=nope"], CONSTRAINTS)


def test_strict_false_does_not_gate_the_audit(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_command_line(DP, ["audit", "--strict", "false"], CONSTRAINTS).kwargs == {"strict": False}
    code, _, err = run(["audit", "--strict", "sometimes"], capsys)
    assert_refused(code, err, "--strict: expected true or false")


# ------------------------------------------------------------------------------------ item 12


@pytest.mark.parametrize("argv", [
    ["generate", "--families", "fact_answerable", "--out", "/dev/null/x"],
    ["score", "--out", "/dev/null/x"],
    ["reconstruct", "llmbar", "--out", "/dev/null/x"],
    ["evaluate", "--system", "uniform", "--runs", "/dev/null"],
    ["score", "--runs", "/dev/null"],
    ["licenses", "--out", "/tmp"],
    ["evaluate", "--system", "uniform", "--config", "/tmp"],
])
def test_paths_that_cannot_work_are_refused_before_any_work(argv: list[str], calls: dict,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert_refused(code, err, "/")
    assert not calls


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_generate_into_proc_fails_fast_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import decisionpivot.generate.run as generate_run

    def no_draw(*args: Any) -> Any:
        raise Ran("drew items before checking the output folder")

    monkeypatch.setattr(generate_run, "_draw_and_serialise", no_draw)
    code, _, err = run(["generate", "--families", "fact_answerable", "--out", "/proc/decisionpivot-test/x"], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: cannot create the folder /proc/"), err


@pytest.mark.parametrize("repo_id", ["x/y/z", "x", "/x", "x/", "-a/b", "a/b-", "a/b..c", "a/b c", "a/" + "b" * 97])
def test_download_repo_id_must_be_org_name(repo_id: str, calls: dict, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["download", f"--repo-id={repo_id}"], capsys)
    assert_refused(code, err, "expected ORG/NAME")
    assert not calls


def test_download_release_checks_the_repo_id_itself() -> None:
    from decisionpivot.release.hub import download_release, upload_release, validate_repo_id

    assert validate_repo_id("dp-org/decisionpivot_1.1") == "dp-org/decisionpivot_1.1"
    with pytest.raises(DecisionPivotError, match="expected ORG/NAME"):
        download_release("x/y/z", "out", endpoint="http://127.0.0.1:9")
    with pytest.raises(DecisionPivotError, match="expected ORG/NAME"):
        upload_release("release", "x/y/z", endpoint="http://127.0.0.1:9")


@pytest.mark.parametrize("error", [
    IsADirectoryError(21, "Is a directory", "runs/x/t.jsonl"),
    PermissionError(13, "Permission denied", "/root/secret"),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
])
def test_os_and_unicode_errors_that_escape_are_one_line(error: Exception, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import decisionpivot.score.pipeline as pipeline

    monkeypatch.chdir(tmp_path)
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(pipeline, "score_runs", fail)
    code, _, err = run(["score"], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    if isinstance(error, OSError):
        assert str(error.filename) in err and str(error.strerror) in err


def test_an_answer_path_that_is_a_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.release.conftest import write_core

    items = write_core(tmp_path / "items", {"alpha_check": ("A", 6)})
    assert run(["evaluate", "--system", "uniform", "--items", str(items), "--runs", str(tmp_path / "runs"),
                "--allow-modified-items"], capsys)[0] == 0  # a hand-made core: no draw of this package
    answers = tmp_path / "runs" / "uniform" / "alpha_check.jsonl"
    answers.unlink()
    answers.mkdir()
    code, _, err = run(["score", "--runs", str(tmp_path / "runs"), "--items", str(items), "--reference", "",
                        "--out", str(tmp_path / "reports"), "--nofigures", "--resamples", "10",
                        "--allow-modified-items"], capsys)
    assert code == 2 and err.count("\n") == 1 and "alpha_check.jsonl" in err, err


# ------------------------------------------------------------------------------------ item 13


def test_empty_families_is_an_error_not_every_family(calls: dict, capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("", ",", " , "):
        code, _, err = run(["generate", "--families", value], capsys)
        assert_refused(code, err, "--families: expected a comma-separated list of at least one name")
    assert not calls


def test_write_family_files_refuses_an_empty_list(tmp_path: Path) -> None:
    from decisionpivot.generate.run import rebuild_manifest, write_family_files

    with pytest.raises(DecisionPivotError, match="no family named"):
        write_family_files(tmp_path / "out", 1, [])
    with pytest.raises(DecisionPivotError, match="jobs must be at least 1"):
        write_family_files(tmp_path / "out", 1, ["fact_answerable"], jobs=0)
    with pytest.raises(DecisionPivotError, match="no family named"):
        rebuild_manifest(tmp_path / "out", 1, [""])
    assert not (tmp_path / "out" / "fact_answerable.jsonl").exists()


# ------------------------------------------------------------------------------------ item 11


def test_every_error_line_is_redacted(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import decisionpivot.release.hub as hub

    token = "hf_" + "a1B2c3D4e5" * 3
    monkeypatch.setenv("MY_SERVICE_API_KEY", "k-7f3e9a2b1c")

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise DecisionPivotError(f"the hub answered 400: echo authorization: Bearer {token}; key k-7f3e9a2b1c")

    monkeypatch.setattr(hub, "download_release", fail)
    code, _, err = run(["download", "--repo-id", "org/name"], capsys)
    assert code == 2 and token not in err and "k-7f3e9a2b1c" not in err and "[REDACTED]" in err, err


def test_main_reads_sys_argv_when_given_no_list(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["dp", "generate", "--jobs", "0"])
    code, _, err = run(None, capsys)  # type: ignore[arg-type]
    assert_refused(code, err, "--jobs")


def test_verb_signatures_keep_their_defaults() -> None:
    """The command line passes only what was given; every default stays the verb's own."""
    invocation = parse_command_line(DP, ["score"], CONSTRAINTS)
    assert invocation.kwargs == {} and invocation.args == []
    assert inspect.signature(DP.score).parameters["resamples"].default == 1000


@pytest.mark.parametrize("argv", [
    ["score", "--out", ""], ["score", "--runs="], ["evaluate", "--system", "uniform", "--runs", ""],
    ["overlap", "t.txt", "--out="], ["reconstruct", "--all", "--source", ""], ["audit", "--out", " "],
])
def test_an_empty_path_that_would_mean_the_current_folder_is_refused(argv: list[str], calls: dict,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert_refused(code, err, "empty path")
    assert not calls


def test_empty_values_that_mean_the_default_still_work() -> None:
    for argv in (["generate", "--out="], ["licenses", "--out="], ["score", "--reference", ""], ["score", "--items="],
                 ["datasheet", "--reference="], ["evaluate", "uniform", "--config="]):
        parse_command_line(DP, argv, CONSTRAINTS)


def test_annotations_the_command_line_reads() -> None:
    class Tool:
        def verb(self, where: Path = Path("."), names: list[str] | None = None, level: int | None = 3,
                 tag: str | bool = "x", *, only_flag: int = 1) -> None: ...

        def odd(self, mapping: dict[str, int] | None = None) -> None: ...

    bound = parse_command_line(Tool, ["verb", "sub/dir", "a,b", "none", "--notag", "--only-flag", "4"]).kwargs
    assert bound == {"where": Path("sub/dir"), "names": ["a", "b"], "level": None, "tag": None, "only_flag": 4}
    with pytest.raises(CommandLineError, match="too many arguments: '5'"):
        parse_command_line(Tool, ["verb", "w", "n", "1", "t", "5"])  # keyword-only parameters take no position
    with pytest.raises(TypeError, match="cannot read the annotation"):
        parse_command_line(Tool, ["odd"])


def test_more_jobs_than_families_start_one_process_per_family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import decisionpivot.generate.run as generate_run

    started: list[int] = []

    class Pool:
        def __init__(self, max_workers: int) -> None:
            started.append(max_workers)

        def __enter__(self) -> Pool:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def map(self, fn: Any, work: Any) -> Any:
            return map(fn, work)

    monkeypatch.setattr(generate_run, "ProcessPoolExecutor", Pool)
    generate_run.write_family_files(tmp_path, 5, ["fact_answerable", "policy_case"], jobs=1000)
    assert started == [2]


def test_noreference_still_means_no_reference_tasks(calls: dict, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["score", "--noreference", "--resamples", "10"], capsys)[0] == 0
    assert calls["score"]["args"][2] is None and calls["score"]["tasks"] == ()


def test_warnings_of_any_verb_reach_stderr_redacted(calls: dict, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import decisionpivot.score.pipeline as pipeline

    token = "hf_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3"
    warning = f"runs/x/t.jsonl: server said authorization: Bearer {token}"
    monkeypatch.setattr(pipeline, "score_runs",
                        lambda *a, **k: SimpleNamespace(warnings=[warning], partial=(), exclusions=()))
    code, _, err = run(["score"], capsys)
    assert code == 0 and "warning: runs/x/t.jsonl: server said authorization: Bearer [REDACTED]" in err, err
    assert token not in err
    assert type(sys.stderr).__name__ != "RedactingStream"  # restored after main()
