"""Drawing the invariance suite: frame.

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from decisionpivot._cli.arguments import DEFAULT_CORE_DIR, name_list
from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import SUITE_VERSION
from decisionpivot.frame.suite import BASE_ITEMS_PER_FAMILY, MODIFIED_CORE, SUITE_SEED


class FrameVerbs:
    """Drawing the invariance suite."""

    def frame(self, items: str | None = None, seed: int = SUITE_SEED, out: str | None = None,
              families: str | Sequence[str] | None = None, base_items: int = BASE_ITEMS_PER_FAMILY,
              version: str = SUITE_VERSION, allow_modified_items: bool = False) -> None:
        """Write the invariance suite: whole contrast groups of the release, every member in every framing.

        Each sampled core item is written as itself (plain), three rewordings of its question, its question
        negated with NOT in the question only and with the option meanings swapped too (yes/no families), its
        option keys renamed, as a two-option choice A/B (yes/no families), its option meanings reworded and
        removed, typos and look-alike letters in its state's prose, about 2,000 and 8,000 characters of
        irrelevant text before and after its decisive facts, text that argues for a wrong option, and its
        question asked together with two others - each with exact gold (docs/invariance.md).
        Writes <out>/<family>.jsonl and <out>/MANIFEST.json; the bytes depend only on the items and the seed.

        Args:
          items: the core release folder to sample from (default datasets/core/<version>).
          seed: sample seed. The default is the released suite's seed, giving datasets/invariance/<version> byte
            for byte; any other seed draws a fresh suite (default folder datasets/invariance/fresh/seed-N).
          out: output folder (default as described under seed).
          families: comma-separated family names (default: every family of the release's manifest).
          base_items: core items framed per family (whole contrast groups are taken until there are this many).
          version: suite version to write; this package writes only its own (params.yaml `frame.version`
            names the folder, and a mismatch is an error rather than a mislabelled folder).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            the suite's MANIFEST.json records it under core.modified, and every verb refuses that suite
            unless given this flag too. Without it such a file stops dp frame.
        """
        from decisionpivot.frame.suite import write_suite

        if str(version) != SUITE_VERSION:
            raise DecisionPivotError(f"this package writes invariance suite {SUITE_VERSION}, not {version!r} "
                                     "(an earlier suite is drawn with the package version that released it)")
        core = Path(items) if items else DEFAULT_CORE_DIR
        seed = int(seed)
        default = Path("datasets") / "invariance" / (SUITE_VERSION if seed == SUITE_SEED else f"fresh/seed-{seed}")
        folder = Path(out) if out else default
        manifest = write_suite(core, folder, seed, name_list(families), base_items=int(base_items),
                               allow_modified_items=bool(allow_modified_items))
        print(f"wrote {folder}/ (invariance suite {manifest['version']}, seed {seed}, "
              f"from core {manifest['core']['version']})")
        modified = manifest["core"].get(MODIFIED_CORE)
        if modified:
            print(f"framed from core items read with --allow-modified-items: {', '.join(modified)} (recorded in "
                  "MANIFEST.json: every verb refuses this suite without the flag)")
        print(f"{'family':<18} {'base':>5} {'groups':>6} {'items':>6}  sha256")
        for name, entry in manifest["families"].items():
            print(f"{name:<18} {entry['base_items']:>5} {entry['groups']:>6} {entry['items']:>6}  {entry['sha256']}")
        print(f"{manifest['items']} framed items in all")
