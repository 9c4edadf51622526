"""README command 1 as a new user runs it: a fresh clone, a fresh venv, empty installer caches, the install and
`dvc repro`, timed apart, with the machine's load while it ran.

    python benchmarks/main_job.py [--cache] [--keep]

The command is read from the README (its first indented command line), so what is timed is what the README
says. The clone is made from this checkout's HEAD (commit what you want measured first). Without ``--cache``
the installers download every file (``PIP_NO_CACHE_DIR=1``, ``UV_NO_CACHE=1``), as on a fresh machine.
Afterwards the clone must hold every output pinned in ``dvc.lock`` and ``git status`` must be clean: the run is
reported as failed otherwise. Prints one Markdown row for docs/benchmarks.md (install, repro, total, load
average over the run: mean and highest of one sample every 5 s, and the number of CPUs).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_command() -> str:
    """README command 1: the first indented line between the commands markers."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("--8<-- [start:commands]", 1)[1].split("--8<-- [end:commands]", 1)[0]
    return next(line.strip() for line in block.splitlines() if line.startswith("    ") and line.strip())


class LoadSampler(threading.Thread):
    """The 1-minute load average every ``every`` seconds until stopped."""

    def __init__(self, every: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.every, self.samples, self._stopped = every, [os.getloadavg()[0]], threading.Event()

    def run(self) -> None:
        while not self._stopped.wait(self.every):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> tuple[float, float]:
        self._stopped.set()
        self.join()
        return sum(self.samples) / len(self.samples), max(self.samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", action="store_true", help="keep the installers' caches (not a fresh machine)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and its venv (printed)")
    args = parser.parse_args()
    command = readme_command()
    install, repro = (part.strip() for part in command.rsplit("&&", 1))
    if repro != "dvc repro":
        raise SystemExit(f"README command 1 does not end in '&& dvc repro': {command}")
    work = Path(tempfile.mkdtemp(prefix="dp-main-job-"))
    clone, venv = work / "clone", work / "venv"
    subprocess.run(["git", "clone", "--quiet", "--no-local", str(ROOT), str(clone)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    if not args.cache:
        env.update(PIP_NO_CACHE_DIR="1", UV_NO_CACHE="1")
    load = LoadSampler()
    load.start()
    times = {}
    try:
        for name, part in (("install", install), ("repro", repro)):
            started = time.perf_counter()
            done = subprocess.run(["bash", "-c", part], cwd=clone, env=env, capture_output=True, text=True)
            times[name] = time.perf_counter() - started
            if done.returncode != 0:
                raise SystemExit(f"{name} failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        mean_load, top_load = load.stop()
        status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True,
                                check=True).stdout
        verdict = "`dvc.lock` and `git status` unchanged" if not status.strip() else f"CHANGED: {status.strip()}"
        stages = len(re.findall(r"^  \S.*:$", (clone / "dvc.lock").read_text(encoding="utf-8"), re.MULTILINE))
        total = times["install"] + times["repro"]
        cache = "caches kept" if args.cache else "empty caches"
        print(f"| README command 1 | fresh clone and venv, {cache}, {os.cpu_count()} CPUs | "
              f"install {times['install']:.0f} s, `dvc repro` {times['repro']:.0f} s ({stages} stages), "
              f"**total {total // 60:.0f} min {total % 60:.0f} s**; {verdict} | "
              f"{mean_load:.1f} mean, {top_load:.1f} highest |")
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
