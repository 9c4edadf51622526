"""Do rankings survive the 1.1 -> 1.2 text revision and fresh draws? (the README's rank-stability table)

Run from the repository root (about 2-3 minutes on two cores):

    python benchmarks/rank_stability.py [--work /tmp/dp-rank-stability] [--seeds 7,11,23] [--resamples 1000]

Draws core 1.1 (its archived generators, release seed), core 1.2 (release seed) and three fresh 1.2 draws;
answers all of them with every built-in baseline (uniform and the 24 family heuristics) and with twenty
synthetic systems of graded skill; then runs `dp stability` for 1.1 vs 1.2 (paired: same seed, same item
ids, so matched resamples) and 1.2 vs each fresh draw (independent resamples), and a second run of the
synthetic systems on 1.2 for answer churn. The heuristic baselines answer one family each, so they are
not ranked by macro pair accuracy over all families; a second table gives each one's pair accuracy on its
own family in every item set (did the revision change what a shortcut achieves?). Prints the summary
tables (Markdown) and writes every report under ``--work``.

The synthetic systems are not decision models: system ``graded-S`` picks the gold option with probability
S, adjusted per family (+-0.15, fixed per system and family) and per level (+0.05, 0, -0.05), else the
next option. Its coin is a hash of the system, the item id and the item's text, so an item whose text
did not change between versions gets the same answer, as a deterministic model would give; a rerun
re-tosses 10% of the coins (the paper's reruns changed 5.6% of answers).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SKILLS = tuple(round(0.55 + 0.02 * k, 2) for k in range(20))
"""Twenty systems 2 points of item skill apart (0.55-0.93), close enough for ranks to swap under resampling."""
RERUN_SHARE = 0.1


def _unit(*parts: object) -> float:
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def graded(items: Sequence[Any], skill: float, name: str, rerun: bool = False) -> list[dict[str, float]]:
    """The synthetic system of the module docstring (a `kind: python` plugin)."""
    out = []
    for item in items:
        text = json.dumps([item.state, item.question, [o.meaning for o in item.options]], sort_keys=True)
        coin = _unit(name, item.id, text)
        if rerun and _unit("rerun", name, item.id) < RERUN_SHARE:
            coin = _unit("rerun-coin", name, item.id, text)
        p = skill + 0.3 * (_unit(name, item.family) - 0.5) + 0.05 * (2 - (item.level or 2))
        keys = list(item.option_keys)
        gold = keys.index(item.answer)
        chosen = gold if coin < p else (gold + 1) % len(keys)
        out.append({k: (0.8 if i == chosen else 0.2 / (len(keys) - 1)) for i, k in enumerate(keys)})
    return out


def _systems_file(work: Path, rerun: bool) -> Path:
    """The synthetic systems; the rerun file declares them under the same names (for answer churn)."""
    lines = ["systems:"]
    for skill in SKILLS:
        name = f"graded-{skill:.2f}"
        lines.append(f"  {name}: {{kind: python, callable: 'rank_stability:graded', "
                     f"options: {{skill: {skill}, name: '{name}', rerun: {str(rerun).lower()}}}}}")
    path = work / ("systems-rerun.yaml" if rerun else "systems.yaml")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _heuristics_table(folders: dict[str, tuple[Path, Path]], resamples: int) -> str:
    """Pair accuracy (%) of every heuristic baseline on its own family, per item set."""
    from decisionpivot.score.pipeline import load_runs, score_loaded
    from decisionpivot.score.results import CORE

    columns = {}
    for label, (items, runs) in folders.items():
        columns[label] = score_loaded(load_runs(runs, items, None, None, tasks=()), resamples, 20261007)
    names = sorted(n for n in next(iter(columns.values())).systems if n.startswith("heuristic."))
    lines = ["", "| heuristic (pair accuracy % on its family) | " + " | ".join(columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for name in names:
        family = name.split(".")[1]
        cells = []
        for scoring in columns.values():
            estimate = scoring.get(name, CORE, family, "pair_accuracy")
            cells.append("-" if estimate is None else f"{estimate.value:.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/dp-rank-stability"))
    parser.add_argument("--seeds", default="7,11,23")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
    from decisionpivot.evaluate.run import evaluate_system
    from decisionpivot.evaluate.systems import get_system, load_systems
    from decisionpivot.generate import editions
    from decisionpivot.stability.run import stability, stability_markdown, write_stability

    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    config, rerun_config = _systems_file(work, False), _systems_file(work, True)
    seeds = [int(s) for s in args.seeds.split(",")]
    sets = {"1.1": ("1.1", RELEASE_SEED), BENCHMARK_VERSION: (BENCHMARK_VERSION, RELEASE_SEED)}
    sets.update({f"{BENCHMARK_VERSION} seed {s}": (BENCHMARK_VERSION, s) for s in seeds})
    baselines = [n for n, s in load_systems(None).items() if s.kind == "baseline"]
    synthetic = [f"graded-{k:.2f}" for k in SKILLS]
    started = time.monotonic()
    folders: dict[str, tuple[Path, Path]] = {}
    for label, (version, seed) in sets.items():
        items = work / "items" / label.replace(" ", "-")
        runs = work / "runs" / label.replace(" ", "-")
        if not (items / "MANIFEST.json").exists():
            editions.module(version, "run").write_family_files(items, seed, benchmark_version=version)
        for name in [*baselines, *synthetic]:
            evaluate_system(get_system(name, config), items, runs, progress=False)
        folders[label] = (items, runs)
        print(f"[{time.monotonic() - started:.0f}s] answered {label} with {len(baselines) + len(synthetic)} systems",
              file=sys.stderr)
    items_12, runs_12 = folders[BENCHMARK_VERSION]
    rerun_runs = work / "runs" / f"{BENCHMARK_VERSION}-rerun"
    for name in synthetic:
        evaluate_system(get_system(name, rerun_config), items_12, rerun_runs, progress=False)
    comparisons = [("1.1", BENCHMARK_VERSION)] + [(BENCHMARK_VERSION, f"{BENCHMARK_VERSION} seed {s}") for s in seeds]
    rows = ["| A | B | systems | resampling | Spearman rho [95% CI] | score-change intervals including zero |",
            "|---|---|---:|---|---|---|"]
    for a, b in comparisons:
        result = stability(*folders[a], *folders[b], resamples=args.resamples)
        write_stability(result, work / "reports" / f"{a}-vs-{b}".replace(" ", "-"), a, b)
        print(stability_markdown(result, a, b), file=sys.stderr)
        rows.append(f"| {a} | {b} | {len(result.systems)} | {result.resampling} | {result.rho:.3f} "
                    f"[{result.rho_ci[0]:.3f}, {result.rho_ci[1]:.3f}] | "
                    f"{result.intervals_including_zero} of {len(result.changes)} |")
    churn = stability(items_12, runs_12, items_12, rerun_runs, systems=synthetic, resamples=args.resamples)
    write_stability(churn, work / "reports" / "rerun", BENCHMARK_VERSION, f"{BENCHMARK_VERSION} rerun")
    shares = sorted(churn.churn.values())
    print("\n".join(rows))
    print(_heuristics_table(folders, args.resamples))
    print(f"\nAnswer churn of a second run of the {len(shares)} synthetic systems on {BENCHMARK_VERSION}: "
          f"{min(shares):.1f}-{max(shares):.1f}% of answers changed (mean {sum(shares) / len(shares):.1f}%).")
    print(f"[{time.monotonic() - started:.0f}s] reports in {work / 'reports'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
