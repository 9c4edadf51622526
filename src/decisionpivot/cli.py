"""The `dp` command: one verb per pipeline stage (generate, verify, show, ...).

Every verb explains itself with ``dp VERB --help``. Errors in input (a malformed items file, a hash
that does not match) print one clear line and exit with status 2; failed checks exit with 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import fire

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED, __version__
from decisionpivot.errors import DecisionPivotError

DEFAULT_CORE_DIR = Path("datasets") / "core" / BENCHMARK_VERSION


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    """Accept 'a,b', ('a', 'b') or None from the command line."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def _default_items_dir(seed: int) -> Path:
    return DEFAULT_CORE_DIR if seed == RELEASE_SEED else Path("datasets") / "fresh" / f"seed-{seed}"


class DP:
    """DecisionPivot: a diagnostic benchmark for decision models in LLM systems.

    Pipeline: generate -> verify -> evaluate -> score. Start with `dp generate` then `dp verify`;
    `dp show ID` prints one item as a person would read it.
    """

    def version(self) -> None:
        """Print the package version and the core benchmark version."""
        print(f"decisionpivot {__version__} "
              f"(core items version {BENCHMARK_VERSION}, release seed {RELEASE_SEED})")

    def generate(
        self,
        seed: int = RELEASE_SEED,
        families: str | Sequence[str] | None = None,
        out: str | None = None,
        jobs: int = 1,
    ) -> None:
        """Draw the core items and write <out>/<family>.jsonl plus <out>/MANIFEST.json.

        Args:
          seed: draw seed. The default is the release seed, giving the released items byte for byte
            in datasets/core/<version>/; any other seed draws fresh items into datasets/fresh/seed-N/.
          families: comma-separated family names (default: all registered families).
          out: output folder (default as described under seed).
          jobs: worker processes; the bytes written are the same for any number.
        """
        from decisionpivot.generate.run import write_family_files
        from decisionpivot.verify import chance_pair_accuracy

        folder = Path(out) if out else _default_items_dir(int(seed))
        manifest = write_family_files(
            folder, int(seed), _names(families), jobs=int(jobs), benchmark_version=BENCHMARK_VERSION,
            progress=int(jobs) == 1 and sys.stderr.isatty(),
        )
        print(f"wrote {folder}/ (seed {seed})")
        print(f"{'family':<18} {'layer':<5} {'items':>6} {'groups':>6}  sha256")
        from decisionpivot.items import read_items

        chances = []
        for name, entry in manifest["families"].items():
            print(f"{name:<18} {entry['layer']:<5} {entry['items']:>6} {entry['groups']:>6}  "
                  f"{entry['sha256']}")
            chances.append(chance_pair_accuracy(read_items(folder / entry["file"])))
        if chances:
            print(f"uniform-guess pair accuracy, macro over {len(chances)} families: "
                  f"{100 * sum(chances) / len(chances):.2f}%")

    def verify(self, items: str | None = None, families: str | Sequence[str] | None = None,
               show: int = 10) -> None:
        """Re-derive every gold answer with the independent solvers; exit 1 on any disagreement.

        Also checks each file's SHA-256 and item count against MANIFEST.json.

        Args:
          items: items folder (default datasets/core/<version>).
          families: comma-separated family names (default: every family in the manifest).
          show: how many disagreeing items to list per family.
        """
        from decisionpivot.verify import verify_folder

        folder = Path(items) if items else DEFAULT_CORE_DIR
        results = verify_folder(folder, _names(families))
        print(f"{'family':<18} {'items':>6} {'agree':>6} {'rate':>8} {'chance pair acc':>16}")
        failed = False
        for r in results:
            print(f"{r.family:<18} {r.items:>6} {r.agree:>6} {100 * r.rate:>7.2f}% "
                  f"{100 * r.chance_pair_accuracy:>15.2f}%")
            for d in r.disagreements[: int(show)]:
                detail = d.error if d.error else f"solver {d.solved!r}"
                print(f"    DISAGREE {d.item_id}: gold {d.gold!r}, {detail}")
            if len(r.disagreements) > int(show):
                print(f"    ... and {len(r.disagreements) - int(show)} more")
            failed = failed or bool(r.disagreements)
        macro = sum(r.chance_pair_accuracy for r in results) / len(results)
        print(f"uniform-guess pair accuracy, macro over {len(results)} families: {100 * macro:.2f}%")
        if failed:
            print("verify FAILED: solver and gold answers disagree", file=sys.stderr)
            raise SystemExit(1)
        print(f"verify OK: {sum(r.items for r in results)} items, 100% solver agreement")

    def show(self, item_id: str, items: str | None = None) -> None:
        """Print one item (state, question, options, gold answer) as a person would read it.

        Args:
          item_id: item id such as fact_answerable:00007.
          items: items folder (default datasets/core/<version>).
        """
        from decisionpivot.show import find_item, format_item

        folder = Path(items) if items else DEFAULT_CORE_DIR
        print(format_item(find_item(folder, str(item_id))))

    def score(self, runs: str = "runs", items: str | None = None, reference: str = "datasets/reference",
              out: str = "reports", systems: str | Sequence[str] | None = None, resamples: int = 1000,
              figures: bool = True) -> None:
        """Score runs/<system>/<task>.jsonl: metrics with 95% bootstrap intervals, tables and figures.

        Writes <out>/scores.json, scoring.json, leaderboard.md/.csv/.tex, per-family, per-level and
        reference tables, and <out>/figures/*.png|svg. A malformed answer file is an error naming the
        file and line; a task with records for fewer than 99% of items is excluded and reported.

        Args:
          runs: folder of answer files, one sub-folder per system.
          items: core items folder (default datasets/core/<version>).
          reference: folder of reference task items (<task>.jsonl), for registered reference tasks.
          out: output folder.
          systems: comma-separated system names (default: every folder under runs).
          resamples: bootstrap resamples per interval (seed 20261007; recorded in the outputs).
          figures: also draw the figures.
        """
        from decisionpivot.score.pipeline import score_runs
        from decisionpivot.score.report import leaderboard_markdown

        folder = Path(items) if items else DEFAULT_CORE_DIR
        chosen = _names(systems)
        scoring = score_runs(runs, folder, reference, out, chosen, int(resamples), figures=bool(figures))
        print(leaderboard_markdown(scoring))
        for warning in scoring.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print(f"wrote {out}/")

    def compare(self, system_a: str, system_b: str, runs: str = "runs", items: str | None = None,
                reference: str = "datasets/reference", resamples: int = 1000) -> None:
        """Paired differences A - B with 95% intervals from matched bootstrap resamples.

        Args:
          system_a: first system (folder under runs).
          system_b: second system.
          runs: folder of answer files.
          items: core items folder (default datasets/core/<version>).
          reference: folder of reference task items.
          resamples: bootstrap resamples.
        """
        from decisionpivot.score.pipeline import compare_runs, format_comparison

        folder = Path(items) if items else DEFAULT_CORE_DIR
        rows, notes = compare_runs(str(system_a), str(system_b), runs, folder, reference, int(resamples))
        print(format_comparison(str(system_a), str(system_b), rows, notes))


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `dp` console script."""
    os.environ.setdefault("PAGER", "cat")  # fire's help must not wait in a pager
    try:
        fire.Fire(DP, command=list(argv) if argv is not None else None, name="dp")
    except DecisionPivotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
