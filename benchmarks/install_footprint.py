"""How heavy each README command's environment is: venv size, packages and install time of both locks.

    python benchmarks/install_footprint.py [--no-cache]

Creates two fresh venvs in a temporary folder, one per lock - ``requirements-main.lock`` (README command 1,
the main job: core + pipeline) and ``requirements.lock`` (command 2, the tests: everything) - installs each
with ``pip install -U pip``, ``pip install --require-hashes`` and the package with ``--no-deps -e .``, in the
same run (as the README's commands do), and
prints wall time, size on disk, number of installed distributions and whether torch is there. With
``--no-cache`` pip downloads every file (what a fresh machine does); by default pip's cache is used, so the
figures compare the installs themselves. On this kind of machine torch's CPU wheel comes from /opt/wheels.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCKS = {"main job (requirements-main.lock)": "requirements-main.lock",
         "tests (requirements.lock)": "requirements.lock"}


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())


def measure(lock: str, work: Path, cache: bool) -> dict[str, object]:
    venv = work / lock.replace(".", "-")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if not cache:
        pip.append("--no-cache-dir")
    wheels = ["--find-links", "/opt/wheels"] if Path("/opt/wheels").is_dir() else []
    started = time.perf_counter()
    subprocess.run([*pip, "-U", "pip"], check=True, cwd=ROOT)  # as the README's commands: pip 23.2 refuses the locks
    subprocess.run([*pip, "--require-hashes", *wheels, "-r", str(ROOT / lock)], check=True, cwd=ROOT)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    names = {line.split("==")[0].lower() for line in listed}
    return {"seconds": elapsed, "bytes": _size(venv), "packages": len(listed), "torch": "torch" in names,
            "nvidia": sum(name.startswith("nvidia-") for name in names)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-cache", action="store_true", help="download every file (a fresh machine)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dp-install-footprint-"))
    try:
        print(f"{'environment':<36} {'install s':>9} {'size MB':>8} {'packages':>8}  torch  nvidia-*")
        for label, lock in LOCKS.items():
            row = measure(lock, work, cache=not args.no_cache)
            print(f"{label:<36} {row['seconds']:>9.0f} {row['bytes'] / 1e6:>8.0f} {row['packages']:>8}  "
                  f"{'yes' if row['torch'] else 'no':<5}  {row['nvidia']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
