"""Shared runs: an external system's answer folder runs/<system>/ is DVC data (README "Shared runs").

The maintainer's clone evaluates a system, `dvc add`s its folder, commits the .dvc file and pushes the data to
the team's remote (a local folder here); a fresh `git clone` pulls it and `dp score` writes the same bytes.
Credentials go to .dvc/config.local only, which git never sees.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

from tests.release.test_dvc import _tracked_copy

ROOT = Path(__file__).resolve().parents[2]
DP = [sys.executable, "-m", "decisionpivot.cli"]
SYSTEM = "team-uniform"
GIT = ["git", "-c", "user.name=dp-test", "-c", "user.email=dp-test@example.invalid", "-c", "init.defaultBranch=main"]


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_pushed_run_pulls_and_scores_identically_in_a_fresh_clone(tmp_path: Path) -> None:
    dvc = shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc")
    assert dvc is not None, "dvc is not installed: it is in the test extra and requirements.lock"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("SOURCE_DATE_EPOCH", None)
    secret = f"s3cr3t-{secrets.token_hex(8)}"  # made here, so that no file of the repository holds it
    remote = tmp_path / "team-remote"
    origin = tmp_path / "maintainer"
    origin.mkdir()
    _tracked_copy(origin)  # also runs git init
    # The team's remote, committed (.dvc/config); a credential of a second remote, this clone only.
    _run([dvc, "remote", "add", "--default", "team", str(remote)], origin, env)
    _run([dvc, "remote", "add", "backup", "ssh://dvc.example.invalid/decisionpivot"], origin, env)
    _run([dvc, "remote", "modify", "--local", "backup", "password", secret], origin, env)
    (origin / "team-systems.yaml").write_text(f"systems:\n  {SYSTEM}: {{kind: baseline, baseline: uniform}}\n")
    _run([*GIT, "add", "-A"], origin)
    _run([*GIT, "commit", "-qm", "repository"], origin)

    _run([*DP, "generate", "--jobs", "2"], origin, env)
    _run([*DP, "evaluate", "--system", SYSTEM, "--config", "team-systems.yaml"], origin, env)
    answers = _files(origin / "runs" / SYSTEM)
    assert len([name for name in answers if name.endswith(".jsonl")]) >= 13
    _run([dvc, "add", f"runs/{SYSTEM}"], origin, env)
    _run([*GIT, "add", f"runs/{SYSTEM}.dvc"], origin)
    _run([*GIT, "commit", "-qm", f"shared run {SYSTEM}"], origin)
    assert _run(["git", "status", "--porcelain"], origin) == ""  # the answers are ignored, their .dvc file tracked
    tracked = _run(["git", "ls-files"], origin).split()
    assert f"runs/{SYSTEM}.dvc" in tracked and not any(t.startswith(f"runs/{SYSTEM}/") for t in tracked)
    _run([dvc, "push", "--remote", "team", f"runs/{SYSTEM}.dvc"], origin, env)
    _run([*DP, "score", "--runs", "runs", "--reference", "", "--out", "reports"], origin, env)
    reports = _files(origin / "reports")
    assert "leaderboard.md" in reports and SYSTEM in reports["leaderboard.md"].decode()

    # Secrets: only in .dvc/config.local, which git ignores; never in a committed file.
    assert secret in (origin / ".dvc" / "config.local").read_text()
    assert _run(["git", "check-ignore", ".dvc/config.local"], origin).strip() == ".dvc/config.local"
    grep = subprocess.run(["git", "grep", "-l", secret, "HEAD"], cwd=origin, capture_output=True, text=True)
    assert grep.returncode == 1 and grep.stdout == "", grep.stdout

    clone = tmp_path / "colleague"
    _run(["git", "clone", "-q", str(origin), str(clone)], tmp_path)
    assert not (clone / "runs" / SYSTEM).exists() and not (clone / ".dvc" / "config.local").exists()
    _run([dvc, "pull", f"runs/{SYSTEM}.dvc"], clone, env)  # from the committed default remote
    assert _files(clone / "runs" / SYSTEM) == answers
    _run([*DP, "generate", "--jobs", "2"], clone, env)
    _run([*DP, "score", "--runs", "runs", "--reference", "", "--out", "reports"], clone, env)
    assert _files(clone / "reports") == reports
    status = _run([dvc, "status", f"runs/{SYSTEM}.dvc"], clone, env)
    assert "changed" not in status and "modified" not in status, status
