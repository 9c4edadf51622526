"""Drawing, checking and reading the core items: version, generate, manifest, verify, show, audit.

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import decisionpivot
from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED, __version__
from decisionpivot._cli.arguments import DEFAULT_CORE_DIR, default_items_folder, name_list
from decisionpivot._cli.pipeline_outputs import default_out


class ItemVerbs:
    """Drawing, checking and reading the core items."""

    def version(self) -> None:
        """Print the package version, the core benchmark version and the SHA-256 of the environment's lock.

        The lock is requirements.lock (docs/installing.md): the copy the Docker image keeps in its
        environment's prefix, else the one of the source checkout this package runs from (an editable
        install); without either the second line says so.
        """
        import hashlib

        print(f"decisionpivot {__version__} "
              f"(core items version {BENCHMARK_VERSION}, release seed {RELEASE_SEED})")
        checkout = Path(decisionpivot.__file__).resolve().parents[2]  # src/decisionpivot/ -> the checkout
        for lock in (Path(sys.prefix) / "requirements.lock", checkout / "requirements.lock"):
            if lock.is_file():
                print(f"lock sha256:{hashlib.sha256(lock.read_bytes()).hexdigest()}")
                return
        print("lock none (installed without requirements.lock)")

    def generate(
        self,
        seed: int = RELEASE_SEED,
        families: str | Sequence[str] | None = None,
        out: str | None = None,
        jobs: int = 1,
        manifest: bool = True,
        version: str = BENCHMARK_VERSION,
    ) -> None:
        """Draw the core items and write <out>/<family>.jsonl plus <out>/MANIFEST.json.

        Args:
          seed: draw seed. The default is the release seed, giving the released items byte for byte
            in datasets/core/<version>/; any other seed draws fresh items into datasets/fresh/seed-N/
            (datasets/fresh/<version>/seed-N/ for an earlier version).
          families: comma-separated family names (default: all registered families).
          out: output folder (default as described under seed).
          jobs: worker processes; the bytes written are the same for any number.
          manifest: also write MANIFEST.json (--nomanifest writes only the items files; `dp manifest`
            builds the manifest afterwards, e.g. after drawing families one at a time).
          version: core version to draw (default the current one). Earlier versions are drawn with
            their generators as released (CHANGELOG.md says what changed), e.g. --version 1.1.
        """
        from decisionpivot.generate import editions

        version = str(version)
        run = editions.module(version, "run")
        folder = Path(out) if out else default_items_folder(int(seed), version)
        written = run.write_family_files(
            folder, int(seed), name_list(families), jobs=int(jobs), benchmark_version=version,
            progress=int(jobs) == 1 and sys.stderr.isatty(), write_manifest=bool(manifest),
        )
        print(f"wrote {folder}/ (core {version}, seed {seed})")
        self._print_manifest(folder, written)

    def manifest(self, items: str | None = None, seed: int = RELEASE_SEED,
                 families: str | Sequence[str] | None = None, version: str = BENCHMARK_VERSION) -> None:
        """Write <items>/MANIFEST.json (counts, SHA-256, seed) from the items files already there.

        Gives the same bytes as `dp generate` would for those files: families drawn one at a time with
        `dp generate --families F --nomanifest` (on several machines, say) get the manifest of one whole draw.

        Args:
          items: items folder (default datasets/core/<version>, or datasets/fresh/seed-N/ for other seeds).
          seed: the seed the files were drawn with (recorded in the manifest).
          families: comma-separated family names (default: every registered family with a file there).
          version: core version of the files (default the current one; e.g. 1.1 for a draw of --version 1.1).
        """
        from decisionpivot.generate import editions

        version = str(version)
        run = editions.module(version, "run")
        folder = Path(items) if items else default_items_folder(int(seed), version)
        written = run.rebuild_manifest(folder, int(seed), name_list(families), benchmark_version=version)
        print(f"wrote {folder}/MANIFEST.json (seed {seed})")
        self._print_manifest(folder, written)

    @staticmethod
    def _print_manifest(folder: Path, manifest: dict) -> None:
        from decisionpivot.items import read_items
        from decisionpivot.verify import chance_pair_accuracy

        print(f"{'family':<18} {'layer':<5} {'items':>6} {'groups':>6}  sha256")
        chances = []
        for name, entry in manifest["families"].items():
            print(f"{name:<18} {entry['layer']:<5} {entry['items']:>6} {entry['groups']:>6}  "
                  f"{entry['sha256']}")
            chances.append(chance_pair_accuracy(read_items(folder / entry["file"])))
        if chances:
            print(f"uniform-guess pair accuracy, macro over {len(chances)} families: "
                  f"{100 * sum(chances) / len(chances):.2f}%")

    def verify(self, items: str | None = None, families: str | Sequence[str] | None = None,
               show: int = 10, allow_modified_items: bool = False) -> None:
        """Re-derive every gold answer with the independent solvers; exit 1 on any disagreement.

        First each file is accepted only when this package draws it again byte for byte from its recorded
        version, seed and plan (or it is the release: the hashes shipped in the package). The last column is the
        uniform guess's pair accuracy; on an invariance suite it is taken over the plain members (a group
        holding every framing of every member is never guessed whole, so that figure would be about 0).

        Args:
          items: items folder (default datasets/core/<version>).
          families: comma-separated family names (default: every family in the manifest).
          show: how many disagreeing items to list per family.
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so. Without it such a file stops dp verify.
        """
        from decisionpivot.item_origin import modified_note
        from decisionpivot.verify import verify_folder

        folder = Path(items) if items else DEFAULT_CORE_DIR
        results = verify_folder(folder, name_list(families), bool(allow_modified_items))
        note = modified_note((r.family, r.items_check) for r in results)
        if note:
            print(note)
        framed = any(r.framed for r in results)
        chance = "plain chance pair acc" if framed else "chance pair acc"
        print(f"{'family':<18} {'items':>6} {'agree':>6} {'rate':>8} {chance:>{22 if framed else 16}}")
        failed = False
        for r in results:
            value = r.plain_chance_pair_accuracy if framed else r.chance_pair_accuracy
            print(f"{r.family:<18} {r.items:>6} {r.agree:>6} {100 * r.rate:>7.2f}% "
                  f"{100 * (value or 0.0):>{21 if framed else 15}.2f}%")
            for d in r.disagreements[: int(show)]:
                detail = d.error if d.error else f"solver {d.solved!r}"
                print(f"    DISAGREE {d.item_id}: gold {d.gold!r}, {detail}")
            if len(r.disagreements) > int(show):
                print(f"    ... and {len(r.disagreements) - int(show)} more")
            failed = failed or bool(r.disagreements)
        if framed:
            macro = sum(r.plain_chance_pair_accuracy or 0.0 for r in results) / len(results)
            robust = max(r.chance_pair_accuracy for r in results)
            print(f"uniform-guess pair accuracy of the plain members, macro over {len(results)} families: "
                  f"{100 * macro:.2f}%")
            print(f"uniform-guess robust pair accuracy (every framing of every member right): at most "
                  f"{100 * robust:.2g}% in any family")
        else:
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
        from decisionpivot.show import benchmark_version, find_item, format_item

        folder = Path(items) if items else DEFAULT_CORE_DIR
        print(format_item(find_item(folder, str(item_id)), benchmark_version(folder)))

    def audit(
        self,
        items: str | None = None,
        strict: bool = False,
        params: str | None = None,
        out: str | None = None,
        families: str | Sequence[str] | None = None,
        train_seed: int | None = None,
        jobs: int | None = None,
        allow_modified_items: bool = False,
    ) -> None:
        """Shortcut audit: content-blind probes, family heuristics, balance and hygiene.

        Writes <out>/audit.json and <out>/audit.md. Probes are logistic regressions cross-validated
        with whole contrast groups on one side (GroupKFold); heuristics are the partial-information
        shortcuts each family module exposes.

        Args:
          items: items folder (default datasets/core/<version>).
          strict: exit 1 when any probe, heuristic or hygiene rule exceeds the limits in params.yaml, or
            the text check (doubled words, agreement, a/an, spelling, misplaced function words) finds anything.
          params: parameters file whose `audit:` section sets the limits (default: params.yaml when there is
            one; the built-in limits apply when the file has no `audit:` section). A file given that does not
            exist, an unknown key or heuristic, or a limit outside [0, 1] is an error.
          out: report folder (default reports; refused, as for `dp score`, when the DVC pipeline's audit outputs are
            there).
          families: comma-separated family names (default: every family in the folder's manifest).
          train_seed: train the probes on a fresh draw with this seed and test them on the items,
            instead of cross-validating on the items.
          jobs: worker processes (default: one per CPU); the reports are the same bytes for any number.
          allow_modified_items: audit items files this package neither re-derives nor released (a draw edited by
            hand, a subset); audit.json, audit.md and stderr then say so. Without it such a folder is refused.
        """
        from decisionpivot.audit.run import audit_command

        folder = Path(items) if items else DEFAULT_CORE_DIR
        if params is None and Path("params.yaml").is_file():
            params = "params.yaml"
        out = default_out("audit", out, "reports")
        if not audit_command(folder, name_list(families), params, Path(out), train_seed, jobs,
                             bool(allow_modified_items)) and strict:
            print("audit FAILED (--strict)", file=sys.stderr)
            raise SystemExit(1)
