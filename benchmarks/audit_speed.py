"""How fast is `dp audit --strict` on the release, next to `dp generate` of the same items?

Run from the repository root (in the venv, with `dp` on the PATH):

    python benchmarks/audit_speed.py [--version 1.2] [--seed N] [--jobs J] [--no-parts] [--keep DIR]

Times, in the same run: `dp generate` of the release into a temporary folder, then `dp audit --strict` of those
items (``--jobs``: its worker processes, default one per CPU), each as a subprocess from start to exit (wall
time, and the CPU time of the process and its workers). Printed: both times, the audit/generate ratio, the
load average before and after, and whether the gate passed. Then, unless ``--no-parts``, where the audit's
CPU goes: one process times every part of the audit of every family in turn (each probe on its own, the
heuristics, the text check, balance and hygiene), summed over families, and the slowest families. Not a
timed test: the machine's load changes the wall times, so CPU times and the load average are printed too.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_command(label: str, command: list[str]) -> tuple[float, float, int]:
    """Run ``command``; print and return its wall time, CPU time (with its workers) and exit code."""
    load = os.getloadavg()[0]
    cpu, wall = children_cpu(), time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    print(f"{label}: wall {wall:.1f} s, CPU {cpu:.1f} s (load average {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after), exit {result.returncode}")
    if result.returncode not in (0, 1):
        print(result.stdout + result.stderr, file=sys.stderr)
        raise SystemExit(f"{label} failed")
    return wall, cpu, result.returncode


def cpu_of(action: Callable[..., T], *args: Any, **kwargs: Any) -> float:
    """CPU seconds of ``action(*args, **kwargs)`` in this process."""
    start = time.process_time()
    action(*args, **kwargs)
    return time.process_time() - start


def part_timings(items_folder: Path) -> None:
    """CPU time of each part of the audit, one process, families in turn, parts as ``audit_family`` runs them."""
    from threadpoolctl import threadpool_limits

    from decisionpivot.audit.probes import PROBES, probe_table
    from decisionpivot.audit.run import AuditLimits, _balance, _hygiene, _scored, heuristic_positions
    from decisionpivot.audit.terms import Tokens
    from decisionpivot.audit.text import load_text_resources, text_report
    from decisionpivot.generate.registry import families
    from decisionpivot.generate.run import read_manifest
    from decisionpivot.items import read_items, render_state

    parts: dict[str, float] = defaultdict(float)
    parts["text check: load the dictionary and inflect"] = cpu_of(load_text_resources)
    per_family: dict[str, float] = {}
    specs = {spec.name: spec for spec in families()}
    limits = AuditLimits()
    manifest = read_manifest(items_folder)
    for name, entry in manifest["families"].items():
        items = read_items(items_folder / entry["file"])
        spent: dict[str, float] = {}
        start = time.process_time()
        states = [render_state(i.state) for i in items]
        tokens = Tokens.of(states)
        spent["render and tokenise the states"] = time.process_time() - start
        with threadpool_limits(limits=1, user_api="blas"):
            for probe in PROBES:
                spent[f"probe {probe.name}"] = cpu_of(probe_table, items, probes=(probe,), states=states,
                                                      state_tokens=tokens)
        heuristics: dict[str, Any] = specs[name].heuristics if name in specs else {}
        spent["heuristics"] = sum(cpu_of(lambda h: _scored(items, heuristic_positions(h, items)), heuristic)  # noqa: B023
                                  for heuristic in heuristics.values())
        spent["text check"] = cpu_of(text_report, items)
        spent["balance"] = cpu_of(_balance, items)
        spent["hygiene (repeats, near-duplicates)"] = cpu_of(_hygiene, items, limits, states, tokens)
        for part, seconds in spent.items():
            parts[part] += seconds
        per_family[name] = sum(spent.values())
    total = sum(parts.values())
    print(f"\nwhere the audit's CPU goes (one process, {len(per_family)} families, {total:.1f} s CPU in all):")
    for part, seconds in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part:<45} {seconds:6.2f} s  {100 * seconds / total:5.1f}%")
    print("slowest families: " + ", ".join(f"{n} {s:.1f} s" for n, s in sorted(per_family.items(),
                                                                              key=lambda kv: -kv[1])[:4]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=None, help="release version to generate (default: the current one)")
    parser.add_argument("--seed", type=int, default=None, help="draw seed (default: the release seed)")
    parser.add_argument("--jobs", type=int, default=None, help="dp audit --jobs (default: one per CPU)")
    parser.add_argument("--no-parts", action="store_true", help="skip the per-part CPU breakdown")
    parser.add_argument("--keep", type=Path, default=None, help="write items and reports here and keep them")
    args = parser.parse_args()

    dp = shutil.which("dp")
    if dp is None:
        raise SystemExit("no `dp` on the PATH: activate the venv (pip install -e .)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="audit-speed-"))
    items, reports = work / "items", work / "reports"
    generate = [dp, "generate", "--out", str(items)]
    generate += ["--version", args.version] if args.version else []
    generate += ["--seed", str(args.seed)] if args.seed is not None else []
    audit = [dp, "audit", "--strict", "--items", str(items), "--params", str(ROOT / "params.yaml"),
             "--out", str(reports)] + (["--jobs", str(args.jobs)] if args.jobs else [])
    try:
        uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        print(f"{os.cpu_count()} CPUs; uptime: {uptime}")
        generate_wall, generate_cpu, _ = timed_command("dp generate", generate)
        audit_wall, audit_cpu, code = timed_command(f"dp audit --strict (--jobs {args.jobs or 'default'})", audit)
        print(f"audit / generate: {audit_wall / generate_wall:.1f} (wall), {audit_cpu / generate_cpu:.1f} (CPU); "
              f"gate {'passed' if code == 0 else 'FAILED'}")
        if not args.no_parts:
            part_timings(items)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
