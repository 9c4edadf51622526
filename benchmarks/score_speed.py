"""How fast is the core scorer? 40 synthetic systems, the full 13-family 7,800-item core, 1,000 resamples.

Run from the repository root:

    python benchmarks/score_speed.py [--systems 40] [--resamples 1000] [--loop-resamples 10] [--jobs 2]
                                      [--end-to-end]

The synthetic core mirrors the real group structure (tests/score/synthetic.py): eight yes/no families
of 300 pairs; policy_case and clause_change with 3 options and ledger_reconcile with 6 options in groups
of 3; triage_order with 5 options in groups of 3; record_rule with 7-10 options in groups of 4.

Printed: wall and CPU time and peak traced memory of the vectorised scoring (every core metric per
family, per level and aggregated, with intervals); the obvious per-resample loop (tests/score/
bootstrap_loop.py) timed on ``--loop-resamples`` resamples and extrapolated to ``--resamples``; their
ratio. ``--end-to-end`` also writes the answer files and times ``dp score`` as a whole (reading, scoring,
tables, figures). Not a timed test: the machine's load changes the figures, so CPU time is printed too.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the loop and the synthetic core live with the tests

from tests.score.bootstrap_loop import loop_core_samples  # noqa: E402
from tests.score.synthetic import CORE_SHAPES, family_items, layout_of, random_answers  # noqa: E402

from decisionpivot.score.bootstrap import BOOTSTRAP_SEED  # noqa: E402
from decisionpivot.score.core import score_core  # noqa: E402


def timed(label: str, action: Callable[[], T], *, trace: bool = False) -> tuple[T, float, float]:
    """Run ``action``, print its wall and CPU time (and peak traced memory); return result and times."""
    if trace:
        tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
    if trace:
        tracemalloc.stop()
    memory = f", peak traced memory {peak:.0f} MiB" if peak is not None else ""
    print(f"{label}: wall {wall:.2f} s, CPU {cpu:.2f} s{memory}")
    return result, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=40)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--end-to-end", action="store_true")
    args = parser.parse_args()

    layouts = [layout_of(family_items(shape)) for shape in CORE_SHAPES]
    systems = [f"system{i:02d}" for i in range(args.systems)]
    answers = {
        (system, layout.task): random_answers(
            layout, system, skill=0.5 + 4.0 * s / max(1, args.systems - 1), seed=100 * s + f, decimals=2
        )
        for s, system in enumerate(systems)
        for f, layout in enumerate(layouts)
    }
    items = sum(layout.size for layout in layouts)
    groups = sum(layout.groups for layout in layouts)
    print(f"synthetic core: {len(layouts)} families, {items} items, {groups} groups; {len(systems)} systems")

    estimates, wall, cpu = timed(
        f"vectorised scoring, {args.resamples} resamples, {args.jobs} thread(s)",
        lambda: score_core(layouts, answers, systems, args.resamples, BOOTSTRAP_SEED, jobs=args.jobs),
        trace=True,
    )
    print(f"  {len(estimates)} estimates; peak resident set of the process {peak_rss_mib():.0f} MiB")

    _, loop_wall, loop_cpu = timed(
        f"per-resample loop, {args.loop_resamples} resamples",
        lambda: loop_core_samples(layouts, answers, systems, args.loop_resamples, BOOTSTRAP_SEED),
    )
    scale = args.resamples / args.loop_resamples
    print(
        f"  extrapolated to {args.resamples} resamples: wall {loop_wall * scale:.0f} s, "
        f"CPU {loop_cpu * scale:.0f} s"
    )
    print(
        f"speed-up of the vectorised scorer: {loop_wall * scale / wall:.0f}x wall, "
        f"{loop_cpu * scale / cpu:.0f}x CPU"
    )

    if args.end_to_end:
        end_to_end(args.systems, args.resamples)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def end_to_end(systems: int, resamples: int) -> None:
    from tests.score.synthetic import write_synthetic_core

    from decisionpivot.score.pipeline import score_runs

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        written, _, _ = timed("writing synthetic answer files", lambda: write_synthetic_core(root, systems))
        items, runs, _ = written
        timed(
            f"dp score end to end (read, score, tables, figures), {resamples} resamples",
            lambda: score_runs(runs, items, None, root / "reports", resamples=resamples),
        )


if __name__ == "__main__":
    main()
