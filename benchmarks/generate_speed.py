"""How long does one seed of all 13 core families take to draw, and is a change faster without changing a byte?

Run from the repository root (in the venv):

    python benchmarks/generate_speed.py [--against REV] [--seed N] [--rounds 5]

Draws every family with ``--seed`` (default the release seed) in a worker process, ``--rounds`` times, and prints
per family the best time of the rounds and their sum: one seed of all 13 families, the unit the test suite
and ``dvc repro`` pay per draw. With ``--against REV`` a second worker draws the same families from the
source of git revision ``REV`` (``git archive`` into a temporary folder), one family at a time in turn with
the first, so both see the same load; it then prints both sums and checks that every family's items are the
same bytes (sha256 of ``items_bytes``) in both trees. Not a timed test: on a shared machine the times move
with the load (printed before and after); alternating per family and taking the best of the rounds keeps
the comparison fair.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = """
import hashlib, json, sys, time
from decisionpivot.generate.registry import families
from decisionpivot.generate.run import draw_family
from decisionpivot.items import items_bytes
print(json.dumps([s.name for s in families()]), flush=True)
for line in sys.stdin:
    name, seed = line.split()
    start = time.perf_counter()
    draw = draw_family(name, int(seed))
    elapsed = time.perf_counter() - start
    print(json.dumps([elapsed, hashlib.sha256(items_bytes(draw.items)).hexdigest()]), flush=True)
"""


class Worker:
    """A Python process that draws families from one source tree on request."""

    def __init__(self, src: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        self.families: list[str] = json.loads(self._read())

    def _read(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("a worker stopped (run from the repository root, in the venv)")
        return line

    def draw(self, name: str, seed: int) -> tuple[float, str]:
        """Seconds to draw ``name`` with ``seed``, and the sha256 of its items' bytes."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{name} {seed}\n")
        self.process.stdin.flush()
        elapsed, digest = json.loads(self._read())
        return float(elapsed), str(digest)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def source_of(revision: str, into: Path) -> Path:
    """The ``src`` folder of git revision ``revision``, unpacked under ``into``."""
    archive = into / "src.tar"
    with archive.open("wb") as handle:
        subprocess.run(["git", "archive", revision, "src"], cwd=ROOT, stdout=handle, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", metavar="REV", help="git revision to compare with (e.g. HEAD~1, main)")
    parser.add_argument("--seed", type=int, default=None, help="seed to draw (default: the release seed)")
    parser.add_argument("--rounds", type=int, default=5, help="draws of every family per tree (best one counts)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from decisionpivot import RELEASE_SEED

    seed = RELEASE_SEED if args.seed is None else args.seed
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this checkout": ROOT / "src"}
        if args.against:
            trees = {args.against: source_of(args.against, Path(tmp)), **trees}
        print(f"seed {seed}, best of {args.rounds} rounds, load average {os.getloadavg()[0]:.2f} before")
        workers = {label: Worker(src) for label, src in trees.items()}
        names = next(iter(workers.values())).families
        best = {label: dict.fromkeys(names, float("inf")) for label in workers}
        digests: dict[str, dict[str, str]] = {label: {} for label in workers}
        for round_number in range(args.rounds):
            order = list(workers) if round_number % 2 == 0 else list(reversed(workers))
            for name in names:
                for label in order:
                    elapsed, digest = workers[label].draw(name, seed)
                    best[label][name] = min(best[label][name], elapsed)
                    digests[label][name] = digest
        for worker in workers.values():
            worker.close()
    labels = list(workers)
    print(f"{'family':18s} " + " ".join(f"{label:>14s}" for label in labels))
    for name in names:
        print(f"{name:18s} " + " ".join(f"{best[label][name]:14.3f}" for label in labels))
    totals = {label: sum(best[label].values()) for label in labels}
    print(f"{'one seed, in all':18s} " + " ".join(f"{totals[label]:14.3f}" for label in labels))
    print(f"load average {os.getloadavg()[0]:.2f} after")
    if args.against:
        before, after = totals[labels[0]], totals[labels[1]]
        print(f"{after / before - 1:+.1%} against {args.against}")
        changed = [name for name in names if digests[labels[0]][name] != digests[labels[1]][name]]
        if changed:
            raise SystemExit(f"items differ from {args.against} in: {', '.join(changed)}")
        print(f"every family's items are the same bytes as at {args.against}")


if __name__ == "__main__":
    main()
