"""Drawing the scale suite (score questions): scale.

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from decisionpivot._cli.arguments import name_list
from decisionpivot.scale import SCALE_SEED, SCALE_VERSION


class ScaleVerbs:
    """Drawing the scale suite."""

    def scale(self, seed: int = SCALE_SEED, families: str | Sequence[str] | None = None, out: str | None = None,
              jobs: int = 1, framings: bool = False) -> None:
        """Draw the scale suite: score questions, a level on an ordered scale with exact gold, in contrast groups.

        Each family asks for a level (a priority, a severity, a risk tier, a discrepancy band, a match grade) that
        follows exactly from the rules and facts in the state; the options are the scale's levels, lowest first,
        keyed "0", "1", ..., and every item carries "question_type": "score" (docs/score-questions.md). Writes
        <out>/<family>.jsonl and <out>/MANIFEST.json (counts, SHA-256, seed); `dp verify --items <out>` re-derives
        every gold level, `dp audit --items <out>` runs the shortcut audit on it.

        Args:
          seed: draw seed. The default is the released suite's seed, giving datasets/scale/<version>/ byte for
            byte; any other seed draws a fresh suite (default folder datasets/scale/fresh/seed-N/).
          families: comma-separated scale family names (default: every family of the suite).
          out: output folder (default as described under seed).
          jobs: worker processes; the bytes written are the same for any number.
          framings: write the suite's framings instead (invariance for scales: a third of the contrast groups, every
            member as it is, with the scale listed highest first, with the level keys renamed to letters or words,
            and with the rubric reworded; exact gold; the invariance suite's format) into
            datasets/scale-invariance/<version>/ (fresh seeds: datasets/scale-invariance/fresh/seed-N/).
        """
        from decisionpivot.items import read_items
        from decisionpivot.scale.run import default_folder, write_suite
        from decisionpivot.verify import chance_pair_accuracy

        seed = int(seed)
        if framings:
            from decisionpivot.scale.framing import FRAMED_VERSION, default_framed_folder, write_framed

            folder = Path(out) if out else default_framed_folder(seed)
            framed = write_framed(folder, seed, name_list(families))
            print(f"wrote {folder}/ (framings {FRAMED_VERSION} of scale suite {SCALE_VERSION}, seed {seed}: "
                  f"{', '.join(framed['framings'])})")
            print(f"{'family':<18} {'layer':<5} {'items':>6} {'base':>6} {'groups':>6}  sha256")
            for name, entry in framed["families"].items():
                print(f"{name:<18} {entry['layer']:<5} {entry['items']:>6} {entry['base_items']:>6} "
                      f"{entry['groups']:>6}  {entry['sha256']}")
            print(f"{framed['items']} framed score items in all")
            return
        folder = Path(out) if out else default_folder(seed)
        manifest = write_suite(folder, seed, name_list(families), jobs=int(jobs),
                               progress=int(jobs) == 1 and sys.stderr.isatty())
        print(f"wrote {folder}/ (scale suite {SCALE_VERSION}, seed {seed})")
        print(f"{'family':<18} {'layer':<5} {'items':>6} {'groups':>6} {'levels':<7}  sha256")
        chances = []
        for name, entry in manifest["families"].items():
            levels = "/".join(str(n) for n in entry.get("scale_levels", []))
            print(f"{name:<18} {entry['layer']:<5} {entry['items']:>6} {entry['groups']:>6} {levels:<7}  "
                  f"{entry['sha256']}")
            chances.append(chance_pair_accuracy(read_items(folder / entry["file"])))
        print(f"{manifest['items']} score items in all; uniform-guess pair accuracy, macro over {len(chances)} "
              f"families: {100 * sum(chances) / max(len(chances), 1):.2f}%")
