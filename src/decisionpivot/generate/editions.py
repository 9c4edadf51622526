"""Earlier core editions, still drawable: ``dp generate --version 1.1`` draws core 1.1 with any seed.

A core edition is the set of family generators a core version was released with. The current edition
is this package's own ``decisionpivot.generate``. Earlier editions are kept exactly as they were
released, as an archive of that ``src/decisionpivot/generate`` folder taken from the git commit of the
release (``archive/core-<version>.zip``), with its imports renamed from ``decisionpivot.generate`` to
``decisionpivot_core_<version>.generate`` so that both editions can be imported side by side. The
archived generators still use this package's item records and errors (``decisionpivot.items``,
``decisionpivot.errors``), whose bytes a test pins, so a draw of an earlier edition gives exactly the
bytes that edition's release gave (tests/generate/test_editions.py redraws core 1.1 with the release
seed and compares every file's SHA-256 with the 1.1 manifest recorded at its release).

Keeping the old code frozen, rather than branching every revised template on a version number, keeps
the current generators readable and makes it impossible for a 1.2 fix to change a 1.1 byte.

Maintainers archive an edition once, before its generators change::

    python -m decisionpivot.generate.editions 1.1 ded7c48
"""

from __future__ import annotations

import importlib
import io
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.errors import DecisionPivotError

ARCHIVE = Path(__file__).with_name("archive")
"""Folder of the archived editions (``core-<version>.zip``)."""

EDITION_COMMITS = {"1.1": "ded7c48", "1.2": "ddbc246"}
"""Core version -> the git commit whose ``src/decisionpivot/generate`` the archive holds."""


def editions() -> tuple[str, ...]:
    """Every core version that can be drawn: the archived ones and the current one, oldest first."""
    return (*sorted(EDITION_COMMITS, key=_version_key), BENCHMARK_VERSION)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def package_name(version: str) -> str:
    """Top-level package an archived edition is imported as: ``decisionpivot_core_1_1``."""
    return "decisionpivot_core_" + version.replace(".", "_")


def generate_package(version: str = BENCHMARK_VERSION) -> str:
    """Dotted name of the ``generate`` package of a core version (``decisionpivot.generate`` for the current one)."""
    check_version(version)
    return "decisionpivot.generate" if version == BENCHMARK_VERSION else f"{package_name(version)}.generate"


def check_version(version: str) -> None:
    """Raise a DecisionPivotError naming the drawable versions unless ``version`` is one of them."""
    if version not in editions():
        raise DecisionPivotError(
            f"core version {version!r} cannot be drawn; drawable versions: {', '.join(editions())}"
        )


def module(version: str, name: str) -> ModuleType:
    """Module ``name`` (``run``, ``registry``) of the ``generate`` package of a core version."""
    package = generate_package(version)
    if version != BENCHMARK_VERSION:
        archive = ARCHIVE / f"core-{version}.zip"
        if not archive.is_file():
            raise DecisionPivotError(f"{archive}: the archived generators of core {version} are missing")
        if str(archive) not in sys.path:
            sys.path.append(str(archive))
    return importlib.import_module(f"{package}.{name}")


def archive_edition(version: str, commit: str, repo: Path, target: Path | None = None) -> Path:
    """Write ``archive/core-<version>.zip`` from ``src/decisionpivot/generate`` at ``commit`` of ``repo``.

    The zip's bytes depend only on the archived sources: members are sorted and carry a fixed date.
    """
    listing = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit,
                              "src/decisionpivot/generate"], check=True, capture_output=True, text=True)
    paths = sorted(p for p in listing.stdout.split() if p.endswith(".py"))
    if not paths:
        raise DecisionPivotError(f"{repo} at {commit}: no src/decisionpivot/generate/*.py")
    top = package_name(version)
    renamed = re.compile(r"\bdecisionpivot\.generate\b")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        init = zipfile.ZipInfo(f"{top}/__init__.py", date_time=(1980, 1, 1, 0, 0, 0))
        archive.writestr(init, f'"""Core {version} generators as released (git commit {commit})."""\n')
        for path in paths:
            source = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True,
                                    capture_output=True).stdout.decode("utf-8")
            member = zipfile.ZipInfo(f"{top}/" + path.removeprefix("src/decisionpivot/"),
                                     date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(member, renamed.sub(f"{top}.generate", source))
    target = target or ARCHIVE / f"core-{version}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(buffer.getvalue())
    return target


if __name__ == "__main__":  # python -m decisionpivot.generate.editions VERSION COMMIT
    if len(sys.argv) != 3:
        sys.exit("usage: python -m decisionpivot.generate.editions VERSION COMMIT")
    print(archive_edition(sys.argv[1], sys.argv[2], Path(__file__).resolve().parents[3]))
