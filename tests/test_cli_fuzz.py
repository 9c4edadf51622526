"""Property tests of the `dp` command line (issue 15, "Also": fuzz the command lines).

Hypothesis builds command lines from each verb's real flags (also misspelt, negated, with ``=``,
given twice), values that are valid, of the wrong type, empty, negative, paths that cannot work,
unicode and lone surrogates, and runs ``main()`` in process in a fresh copy of a small project
folder (one family of core items, a uniform run, a training file). Each example must

- end with exit status 0, 1 or 2, never with another exception or a traceback on stderr;
- leave every file that existed in ``runs/`` untouched when the command failed (and, for input errors
  (exit 2), every file that existed anywhere in the folder).

The network is closed (only 127.0.0.1, and HF_ENDPOINT points at a closed port), so `dp download`
and `dp release` fail fast. Generation and scoring are kept small: `dp generate` is given
``--families fact_answerable``, `dp scale` ``--families support_priority`` and `dp score`/`dp compare`
``--resamples 20`` unless the command line already names those flags. `dp audit` (ten seconds per family) is
only parsed, in the second test.
Set DP_FUZZ_EXAMPLES=N for a longer, randomised run; CI runs a fixed, derandomised set.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import decisionpivot
from decisionpivot import BENCHMARK_VERSION
from decisionpivot.cli import CONSTRAINTS, DP, main
from decisionpivot.command_line import CommandLineError, Invocation, parse_command_line, verb_parameters, verbs

EXAMPLES = int(os.environ.get("DP_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=EXAMPLES or 150, deadline=None, derandomize=not EXAMPLES, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PARSE_ONLY = settings(max_examples=(EXAMPLES or 150) * 4, deadline=None, derandomize=not EXAMPLES, database=None)

FAMILY = "fact_answerable"
CORE = f"datasets/core/{BENCHMARK_VERSION}"
ALL_VERBS = sorted(verbs(DP))
RUN_VERBS = [v for v in ALL_VERBS if v != "audit"]
VALUES = [
    "", " ", "0", "1", "2", "-1", "-3", "1.5", "1e3", "abc", "true", "false", "FALSE", "yes", "no", "none", "nan",
    FAMILY, f"{FAMILY}:00001", f"{FAMILY}:99999", "uniform", "example-plugin", f"heuristic.{FAMILY}.names_in_table",
    "runs", CORE, "ref-items", "datasets/reference", "reports", "out", "train.txt", "missing.txt", ".", "/dev/null",
    "/dev/null/x", "/proc/dp-fuzz", "org/name", "x/y/z", "0/2", "3/2", "a,b", ",", f"{FAMILY},nope", "policy_case",
    "é", "日本語", "\u2028", "\udcff", "-", "--", "--help", "-h", "'", "{}", "[1]", "9" * 400,
]


def _digests(root: Path, below: str = "") -> dict[str, str]:
    base = root / below if below else root
    if not base.is_dir():
        return {}
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(base.rglob("*"))
            if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts}


PACKAGE = Path(decisionpivot.__file__).resolve().parent


@pytest.fixture(scope="module")
def package_untouched() -> Iterator[None]:
    """`--record-manifest` and `reconstruct --record` write the package's data files; the fuzz must not (checked
    after; source files are left out, a developer may edit them during a long run)."""
    before = {p: h for p, h in _digests(PACKAGE).items() if not p.endswith(".py")}
    yield
    after = _digests(PACKAGE)
    assert {p for p, h in before.items() if after.get(p) != h} == set(), "the fuzz changed files of the package"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, package_untouched: None) -> Path:
    """A small project: one family of core items, runs of two systems (and shards), a training file."""
    return build_project(tmp_path_factory.mktemp("fuzz-template"))


def build_project(root: Path) -> Path:
    with _inside(root), contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(["generate", "--families", FAMILY])
        main(["evaluate", "--system", "uniform"])
        main(["evaluate", "--system", f"heuristic.{FAMILY}.names_in_table"])
        for shard in ("0/2", "1/2"):
            main(["evaluate", "--system", "uniform", "--shard", shard, "--limit", "50"])
    (root / "train.txt").write_text("some training text about nothing in particular\n", encoding="utf-8")
    (root / "ref-items").mkdir()
    shutil.copyfile(root / CORE / f"{FAMILY}.jsonl", root / "ref-items" / f"{FAMILY}.jsonl")
    assert (root / "runs" / "uniform" / f"{FAMILY}.jsonl").is_file()
    return root


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _offline() -> Iterator[None]:
    """Only 127.0.0.1 resolves; HF_ENDPOINT points at a closed port; no token; maintainers' records stay in the cwd."""
    real = socket.getaddrinfo

    def local_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise socket.gaierror(socket.EAI_NONAME, f"the fuzz test resolves no host ({host!r})")
        return real(host, *args, **kwargs)

    import decisionpivot.item_hashes as item_hashes
    import decisionpivot.reconstruct.run as reconstruct_run
    import decisionpivot.release.manifest as release_manifest

    record_manifest, record_card = release_manifest.record_expected_manifest, reconstruct_run.record_expected
    record_core, record_suite = item_hashes.record_released_core, item_hashes.record_released_suite

    def into_cwd(manifest: dict[str, Any], target: Path | None = None) -> Path:  # not into the package
        return record_manifest(manifest, Path("recorded-expected-manifest.json"))

    def card_untouched(card: Any, result: Any) -> None:
        Path("recorded-card.txt").write_text(f"{card.path}: {result.items} {result.sha256}\n", encoding="utf-8")

    release_manifest.record_expected_manifest, reconstruct_run.record_expected = into_cwd, card_untouched
    item_hashes.record_released_core = lambda core, target=None: record_core(core, Path("."))  # not the package
    item_hashes.record_released_suite = lambda suite, target=None: record_suite(suite, Path("."))
    saved = {k: os.environ.get(k) for k in ("HF_ENDPOINT", "HF_TOKEN", "HF_HUB_OFFLINE", "MPLBACKEND")}
    os.environ.update({"HF_ENDPOINT": "http://127.0.0.1:9", "MPLBACKEND": "Agg"})
    os.environ.pop("HF_TOKEN", None)
    socket.getaddrinfo = local_only
    try:
        yield
    finally:
        socket.getaddrinfo = real
        release_manifest.record_expected_manifest, reconstruct_run.record_expected = record_manifest, record_card
        item_hashes.record_released_core, item_hashes.record_released_suite = record_core, record_suite
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _flag_spellings(verb: str) -> list[str]:
    spellings = []
    for p in verb_parameters(verbs(DP)[verb], verb, CONSTRAINTS):
        spellings += [p.flag, "--" + p.name, "-" + p.name]
        if p.negatable:
            spellings += ["--no" + p.name, "--no-" + p.name.replace("_", "-")]
    return spellings


def _typo(word: str, data: st.DataObject) -> str:
    if len(word) < 4:
        return word + "x"
    i = data.draw(st.integers(2, len(word) - 1), label="typo position")
    kind = data.draw(st.sampled_from(["drop", "swap", "double", "case"]), label="typo kind")
    if kind == "drop":
        return word[:i] + word[i + 1:]
    if kind == "swap" and i + 1 < len(word):
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == "case":
        return word.upper()
    return word[:i] + word[i] + word[i:]


@st.composite
def command_lines(draw: st.DrawFn, verb_choices: list[str]) -> list[str]:
    data = draw(st.data())
    odd = draw(st.integers(0, 19)) == 0  # now and then a verb that does not exist
    verb = draw(st.sampled_from(["", "genrate", "--help", "-x", "é"] if odd else verb_choices))
    flags = (_flag_spellings(verb) if verb in verb_choices else []) or ["--x"]
    values = st.sampled_from(VALUES) | st.text(max_size=12)
    argv = [verb]
    for _ in range(draw(st.integers(0, 6))):
        piece = draw(st.sampled_from(["flag value", "flag=value", "flag", "typo value", "value", "text"]))
        flag = draw(st.sampled_from(flags))
        if piece == "flag value":
            argv += [flag, draw(values)]
        elif piece == "flag=value":
            argv.append(f"{flag}={draw(values)}")
        elif piece == "flag":
            argv.append(flag)
        elif piece == "typo value":
            argv += [_typo(flag, data), draw(values)]
        elif piece == "value":
            argv.append(draw(values))
        else:
            argv.append(draw(st.text(min_size=0, max_size=20)))
    return argv


TEXT_VALUES = {
    "system": ["uniform", "example-plugin", f"heuristic.{FAMILY}.names_in_table", "nope", ""],
    "system_a": ["uniform", "nope"], "system_b": ["uniform", f"heuristic.{FAMILY}.names_in_table"],
    "item_id": [f"{FAMILY}:00001", f"{FAMILY}:99999", "nope"], "repo_id": ["org/name", "x/y/z"],
    "shard": ["0/2", "1/2", "3/2", "x", ""], "task": ["llmbar", "nope"],
    "items": [CORE, "ref-items", "", "missing", "/dev/null", "train.txt"],
}
PATHS = ["", "runs", CORE, "ref-items", "reports", "out", "train.txt", "missing", ".", "/dev/null", "/dev/null/x",
         "/proc/dp-fuzz"]


@st.composite
def plausible_command_lines(draw: st.DrawFn, verb_choices: list[str]) -> list[str]:
    """Only real flags with values of about the right type: these get past the parser and make the verbs work."""
    verb = draw(st.sampled_from(verb_choices))
    argv = [verb]
    for p in verb_parameters(verbs(DP)[verb], verb, CONSTRAINTS):
        if not (p.required or p.varargs or draw(st.integers(0, 3)) == 0):
            continue
        if p.kind.boolean:
            argv += draw(st.sampled_from([[p.flag], [f"--no{p.name}"], [p.flag, "false"], [f"{p.flag}=yes"]]))
            continue
        if p.kind.name == "int":
            value = str(draw(st.sampled_from([-1, 0, 1, 2, 5, 20])))
        elif p.kind.listing:
            value = draw(st.sampled_from([FAMILY, f"{FAMILY},policy_case", "nope", "uniform", ""]))
        else:
            value = draw(st.sampled_from(TEXT_VALUES.get(p.name, PATHS)))
        if p.varargs:
            argv += draw(st.lists(st.sampled_from(["train.txt", "train.txt", "missing.txt", "."]), max_size=2))
        elif p.required and p.positional and draw(st.booleans()):
            argv.append(value)
        else:
            argv += [p.flag, value] if draw(st.booleans()) else [f"{p.flag}={value}"]
    return argv


def _keep_small(argv: list[str]) -> list[str]:
    """Bound the work of valid command lines (see the module docstring)."""
    verb, rest = argv[0], argv[1:]
    named = " ".join(rest)
    if verb == "generate" and "fam" not in named and not any(a == "-f" or a.startswith("-f=") for a in rest):
        rest = [*rest, "--families", FAMILY]
    if verb == "scale" and "fam" not in named and not any(a == "-f" or a.startswith("-f=") for a in rest):
        rest = [*rest, "--families", "support_priority"]
    if verb in ("score", "compare") and "resamp" not in named and "-r" not in rest:
        rest = [*rest, "--resamples", "20"]
    if verb == "score" and "fig" not in named:
        rest = [*rest, "--nofigures"]
    return [verb, *rest]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except BaseException as exc:  # the property: nothing but SystemExit leaves main()
            raise AssertionError(f"dp {argv!r} raised {type(exc).__name__}: {exc}\nstderr:\n{err.getvalue()}") from exc
    return code, out.getvalue(), err.getvalue()


@FUZZ
@given(argv=command_lines(RUN_VERBS) | plausible_command_lines(RUN_VERBS))
def test_any_command_line_exits_0_1_or_2_and_a_failure_changes_no_existing_file(template: Path,
                                                                                argv: list[str]) -> None:
    argv = _keep_small(argv)
    with tempfile.TemporaryDirectory(prefix="dp-fuzz-") as scratch:
        work = Path(scratch) / "project"
        shutil.copytree(template, work, symlinks=True)
        before_runs, before_all = _digests(work, "runs"), _digests(work)
        with _inside(work), _offline():
            code, _, err = _run(argv)
        assert code in (0, 1, 2), (argv, code, err)
        assert "Traceback" not in err, (argv, err)
        if code == 2:
            assert err.startswith("error: ") or "error: " in err, (argv, err)
        if code != 0:
            after_runs = _digests(work, "runs")
            changed = {p for p, h in before_runs.items() if after_runs.get(p) != h}
            assert not changed, (argv, code, sorted(changed), err)
        if code == 2:
            after_all = _digests(work)
            changed = {p for p, h in before_all.items() if after_all.get(p) != h}
            assert not changed, (argv, sorted(changed), err)


@PARSE_ONLY
@given(argv=command_lines(ALL_VERBS) | plausible_command_lines(ALL_VERBS))
def test_parsing_either_binds_every_argument_or_says_why(argv: list[str]) -> None:
    """The parser alone, for every verb (audit too): an Invocation or a CommandLineError with usage, nothing else."""
    try:
        invocation = parse_command_line(DP, argv, CONSTRAINTS)
    except CommandLineError as exc:
        assert str(exc) and "\n" not in str(exc).split(": ", 1)[0]
        assert exc.usage.startswith("usage: dp"), exc.usage
        return
    assert isinstance(invocation, Invocation)
    if invocation.help:
        return
    assert invocation.verb in ALL_VERBS
    parameters = {p.name: p for p in verb_parameters(verbs(DP)[invocation.verb], invocation.verb, CONSTRAINTS)}
    for name, value in invocation.kwargs.items():
        kind = parameters[name].kind.name
        if value is None:
            assert parameters[name].nullable
        elif kind == "bool":
            assert value is True or value is False
        elif kind == "int":
            assert type(value) is int
        elif kind == "list":
            assert isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)
        else:
            assert isinstance(value, str)
