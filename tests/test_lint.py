"""The project's lint: README command 2 fails on what `ruff check` finds, not only CI.

The rules are pyproject.toml's ``[tool.ruff]`` with the pinned ruff; a contributor who runs the tests before a
commit sees a lint finding the same way as a failing test (a loop left for speed once reached CI unlinted).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What ruff checks: the package, the tests, the benchmark scripts and the documentation site's hooks.
LINTED = ("src", "tests", "benchmarks", "docs/hooks")


def test_ruff_finds_nothing() -> None:
    """Every linted path exists (a rename would silently shrink the check) and ruff reports nothing in them."""
    assert all((ROOT / path).is_dir() for path in LINTED)
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *LINTED], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
