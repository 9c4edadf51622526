"""`dp evaluate --systems A,B,...`: several systems in one process (the pipeline's baselines stage), names or
patterns of declared names, each written as `dp evaluate SYSTEM` writes it."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.evaluate.systems import SystemConfigError, expand_systems, heuristic_systems
from tests.conftest import write_release_sample


def _dp(cwd: Path, *args: str) -> tuple[int, str, str]:
    out, err, code = io.StringIO(), io.StringIO(), 0
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        os.chdir(previous)
    return code, out.getvalue(), err.getvalue()


def test_patterns_expand_to_declared_names_in_order_each_once() -> None:
    heuristics = sorted(heuristic_systems())
    assert expand_systems(["uniform", "heuristic.*"]) == ["uniform", *heuristics]
    assert expand_systems(["heuristic.policy_case.*", "uniform", "heuristic.policy_case.first_match"]) == [
        *sorted(h for h in heuristics if h.startswith("heuristic.policy_case.")), "uniform"]
    with pytest.raises(SystemConfigError, match=r"no system matches 'heuristc\.\*'"):
        expand_systems(["heuristc.*"])
    with pytest.raises(SystemConfigError, match="names no system"):
        expand_systems([])


def test_several_systems_write_what_each_one_writes_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # the meta files' times, as the pipeline fixes them
    items = write_release_sample(tmp_path / "items", ["policy_case", "log_claim"])
    code, out, err = _dp(tmp_path, "evaluate", "--systems", "uniform,heuristic.policy_case.*", "--items", str(items),
                         "--runs", "together", "--allow-modified-items")
    assert code == 0, err
    names = ["uniform", *sorted(h for h in heuristic_systems() if h.startswith("heuristic.policy_case."))]
    assert sorted(p.name for p in (tmp_path / "together").iterdir()) == sorted(names)
    for name in names:
        code, _, err = _dp(tmp_path, "evaluate", name, "--items", str(items), "--runs", "alone",
                           "--allow-modified-items")
        assert code == 0, err
        for path in sorted((tmp_path / "alone" / name).iterdir()):
            assert (tmp_path / "together" / name / path.name).read_bytes() == path.read_bytes(), path
    assert out.count("items answered") == len(names)


def test_system_and_systems_together_or_neither_is_one_error_line(tmp_path: Path) -> None:
    code, _, err = _dp(tmp_path, "evaluate", "uniform", "--systems", "uniform")
    assert code == 2 and "give SYSTEM or --systems, not both" in err and "Traceback" not in err
    code, _, err = _dp(tmp_path, "evaluate")
    assert code == 2 and "name the system to evaluate" in err and "Traceback" not in err
