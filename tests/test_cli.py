"""The `dp` command end to end: generate, verify, show, help, determinism across processes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FAMILY = "fact_answerable"


def dp(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "decisionpivot.cli", *args], capture_output=True, text=True,
        env={**os.environ, **(env or {})}, cwd=cwd, timeout=600,
    )


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_generation_is_identical_across_hash_seeds_locales_and_jobs(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    r1 = dp("generate", "--out", str(a), env={"PYTHONHASHSEED": "0", "LC_ALL": "C"})
    r2 = dp("generate", "--out", str(b), env={"PYTHONHASHSEED": "987654", "LC_ALL": "C.UTF-8", "TZ": "Asia/Tokyo"})
    r3 = dp("generate", "--out", str(c), "--jobs", "2", env={"PYTHONHASHSEED": "42"})
    for r in (r1, r2, r3):
        assert r.returncode == 0, r.stderr
    assert digest(a) == digest(b) == digest(c)
    manifest = json.loads((a / "MANIFEST.json").read_text())
    for name, entry in manifest["families"].items():
        assert entry["sha256"] == hashlib.sha256((a / f"{name}.jsonl").read_bytes()).hexdigest()
        assert entry["items"] == 600 and entry["seed"] == 20261008 and entry["generator_version"]


def test_generate_verify_show(tmp_path: Path) -> None:
    out = tmp_path / "items"
    assert dp("generate", "--families", FAMILY, "--out", str(out)).returncode == 0
    verified = dp("verify", "--items", str(out))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "100.00%" in verified.stdout and "uniform-guess pair accuracy" in verified.stdout
    shown = dp("show", f"{FAMILY}:00003", "--items", str(out))
    assert shown.returncode == 0 and "QUESTION" in shown.stdout and "<- gold" in shown.stdout


def test_verify_fails_and_names_the_item_when_a_gold_answer_is_wrong(tmp_path: Path) -> None:
    out = tmp_path / "items"
    assert dp("generate", "--families", FAMILY, "--out", str(out)).returncode == 0
    path = out / f"{FAMILY}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[5])
    record["answer"] = "no" if record["answer"] == "yes" else "yes"
    lines[5] = json.dumps(record, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    manifest = json.loads((out / "MANIFEST.json").read_text())
    manifest["families"][FAMILY]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (out / "MANIFEST.json").write_text(json.dumps(manifest))
    refused = dp("verify", "--items", str(out))  # a re-manifested edit is not the release: refused first
    assert refused.returncode == 2 and "is not" in refused.stderr and "released core" in refused.stderr
    result = dp("verify", "--items", str(out), "--allow-modified-items")  # read anyway: the solver disagrees
    assert result.returncode == 1
    assert f"DISAGREE {FAMILY}:00005" in result.stdout
    assert result.stdout.startswith(f"Items read with --allow-modified-items (neither re-derived by this package nor "
                                    f"released): {FAMILY}")


def test_tampered_file_is_reported_without_traceback(tmp_path: Path) -> None:
    out = tmp_path / "items"
    assert dp("generate", "--families", FAMILY, "--out", str(out)).returncode == 0
    with (out / f"{FAMILY}.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("{}\n")
    result = dp("verify", "--items", str(out))
    assert result.returncode == 2
    assert f"{FAMILY}.jsonl: SHA-256" in result.stderr and "the package's released core" in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_help_lists_every_verb_with_its_summary() -> None:
    """`dp --help` once showed `SYNOPSIS dp -` and no verb at all."""
    from decisionpivot.cli import DP
    from decisionpivot.command_help import parse_docstring
    from decisionpivot.command_line import verbs

    result = dp("--help")
    assert result.returncode == 0 and not result.stderr
    assert "INFO: Showing help" not in result.stdout
    for verb, method in verbs(DP).items():
        line = next((line for line in result.stdout.splitlines() if line.startswith(f"  {verb} ")), None)
        assert line is not None, verb
        assert parse_docstring(method.__doc__).summary.split()[0] in line, verb
    assert dp().stdout == result.stdout, "`dp` alone shows the same overview"


@pytest.mark.parametrize("verb", sorted(__import__("decisionpivot.command_line", fromlist=["verbs"]).verbs(
    __import__("decisionpivot.cli", fromlist=["DP"]).DP)))
def test_help_explains_every_argument_as_it_is_typed(verb: str) -> None:
    from decisionpivot.cli import CONSTRAINTS, DP
    from decisionpivot.command_help import parse_docstring
    from decisionpivot.command_line import verb_parameters, verbs

    result = dp(verb, "--help")
    assert result.returncode == 0 and not result.stderr and result.stdout.startswith(f"usage: dp {verb}")
    method = verbs(DP)[verb]
    documented = parse_docstring(method.__doc__).args
    for parameter in verb_parameters(method, verb, CONSTRAINTS):
        assert parameter.name in documented, f"dp {verb}: --{parameter.name} has no text in Args:"
        if not parameter.varargs and not (parameter.required and parameter.positional):
            assert parameter.flag in result.stdout, (verb, parameter.flag)
        assert " ".join(documented[parameter.name].split()[-3:]) in " ".join(result.stdout.split()), \
            (verb, parameter.name)  # the whole text, to its last words
    flag_lines = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("  --")]
    assert not [f for f in flag_lines if "_" in f], "flags are typed with -"


def _bash_completions(script: Path, *words: str) -> list[str]:
    """What bash offers for `words` (the last one being completed) with dp's completion script loaded."""
    line = " ".join(words)
    program = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}';"
               " _complete-dp; printf '%s\\n' \"${COMPREPLY[@]}\"")
    result = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_bash_completion_offers_verbs_and_their_flags_as_typed(tmp_path: Path) -> None:
    """fire offered `import-` for the verb `import` (the method `import_`)."""
    result = dp("completion")
    assert result.returncode == 0 and not result.stderr
    script = tmp_path / "dp.bash"
    script.write_text(result.stdout, encoding="utf-8")
    assert _bash_completions(script, "dp", "im") == ["import"]
    assert "--harness" in _bash_completions(script, "dp", "import", "--")
    assert "--allow-modified-items" in _bash_completions(script, "dp", "score", "--al")
    assert set(_bash_completions(script, "dp", "st")) == {"stability"}
    fish = dp("completion", "--shell", "fish")
    assert fish.returncode == 0 and "import-" not in fish.stdout and "import_" not in fish.stdout


def test_score_help_keeps_the_whole_partial_text() -> None:
    """fire cut --partial at the colon in '("partial, not comparable": for quick tries ...'."""
    text = " ".join(dp("score", "--help").stdout.split())
    assert '("partial, not comparable": for quick tries such as `dp evaluate --limit 20`)' in text
    evaluate = dp("evaluate", "--help").stdout
    assert "--retry_errors" not in evaluate and "--retry-errors" in evaluate


def test_unknown_family_is_a_clear_error(tmp_path: Path) -> None:
    result = dp("generate", "--families", "nope", "--out", str(tmp_path))
    assert result.returncode == 2 and "unknown family 'nope'" in result.stderr
