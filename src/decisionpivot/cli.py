"""The `dp` command: one verb per pipeline stage (generate, verify, show, ...).

Every verb explains itself with ``dp VERB --help``. Errors in input (a malformed items file, a hash
that does not match) print one clear line and exit with status 2; failed checks exit with 1.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED, __version__
from decisionpivot.command_line import (
    CommandLineError,
    Constraints,
    at_least,
    file,
    file_or_default,
    folder,
    folder_or_default,
    method_name,
    parse_command_line,
)
from decisionpivot.errors import DecisionPivotError
from decisionpivot.redact import RedactingStream, redact

DEFAULT_CORE_DIR = Path("datasets") / "core" / BENCHMARK_VERSION


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    """Accept 'a,b', ('a', 'b') or None from the command line."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def _reference_dir(value: str | bool | None) -> str | None:
    """The reference items folder, or None for "no reference tasks" (`--reference ""`, `--noreference`).

    An empty value must not become Path("") -- the current folder -- whose stray <task>.jsonl files would
    then be scored; the DVC pipeline passes `--reference ""` so its outputs depend on declared inputs only.
    """
    if value is None or value is False or str(value).strip() == "":
        return None
    return str(value)


def _default_items_dir(seed: int, version: str = BENCHMARK_VERSION) -> Path:
    """datasets/core/<version>/ for the release seed, datasets/fresh/seed-N/ (earlier versions:
    datasets/fresh/<version>/seed-N/) for any other."""
    if seed == RELEASE_SEED:
        return Path("datasets") / "core" / version
    fresh = Path("datasets") / "fresh"
    return fresh / f"seed-{seed}" if version == BENCHMARK_VERSION else fresh / version / f"seed-{seed}"


class DP:
    """DecisionPivot: a diagnostic benchmark for decision models in LLM systems.

    Pipeline: generate -> verify -> evaluate -> score. Start with `dp generate` then `dp verify`;
    `dp show ID` prints one item as a person would read it.
    """

    def version(self) -> None:
        """Print the package version, the core benchmark version and the SHA-256 of the environment's lock.

        The lock is requirements.lock (README "Locked environment"): the copy the Docker image keeps in its
        environment's prefix, else the one of the source checkout this package runs from (an editable
        install); without either the second line says so.
        """
        import hashlib

        print(f"decisionpivot {__version__} "
              f"(core items version {BENCHMARK_VERSION}, release seed {RELEASE_SEED})")
        for lock in (Path(sys.prefix) / "requirements.lock", Path(__file__).resolve().parents[2] / "requirements.lock"):
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
            builds the manifest afterwards, as the DVC pipeline does).
          version: core version to draw (default the current one). Earlier versions are drawn with
            their generators as released (CHANGELOG.md says what changed), e.g. --version 1.1.
        """
        from decisionpivot.generate import editions

        version = str(version)
        run = editions.module(version, "run")
        folder = Path(out) if out else _default_items_dir(int(seed), version)
        written = run.write_family_files(
            folder, int(seed), _names(families), jobs=int(jobs), benchmark_version=version,
            progress=int(jobs) == 1 and sys.stderr.isatty(), write_manifest=bool(manifest),
        )
        print(f"wrote {folder}/ (core {version}, seed {seed})")
        self._print_manifest(folder, written)

    def manifest(self, items: str | None = None, seed: int = RELEASE_SEED,
                 families: str | Sequence[str] | None = None, version: str = BENCHMARK_VERSION) -> None:
        """Write <items>/MANIFEST.json (counts, SHA-256, seed) from the items files already there.

        Gives the same bytes as `dp generate` would for those files; the DVC pipeline draws one
        family per stage with `dp generate --families F --nomanifest` and then runs this once.

        Args:
          items: items folder (default datasets/core/<version>, or datasets/fresh/seed-N/ for other seeds).
          seed: the seed the files were drawn with (recorded in the manifest).
          families: comma-separated family names (default: every registered family with a file there).
          version: core version of the files (default the current one; e.g. 1.1 for a draw of --version 1.1).
        """
        from decisionpivot.generate import editions

        version = str(version)
        run = editions.module(version, "run")
        folder = Path(items) if items else _default_items_dir(int(seed), version)
        written = run.rebuild_manifest(folder, int(seed), _names(families), benchmark_version=version)
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

    def score(self, runs: str = "runs", items: str | None = None, reference: str | None = "datasets/reference",
              out: str = "reports", systems: str | Sequence[str] | None = None, resamples: int = 1000,
              figures: bool = True, partial: bool = False, allow_modified_items: bool = False,
              gate: str | None = None) -> None:
        """Score runs/<system>/<task>.jsonl: metrics with 95% bootstrap intervals, tables and figures.

        Writes <out>/scores.json, scoring.json, leaderboard.md/.csv/.tex, per-family, per-level and
        reference tables, and <out>/figures/*.png|svg. A malformed answer file is an error naming the
        file and line; a task with records for fewer than 99% of items is excluded and reported.

        Args:
          runs: folder of answer files, one sub-folder per system.
          items: core items folder (default datasets/core/<version>).
          reference: folder of reference task items (<task>.jsonl), one per task card; tasks without a
            file are left out. `--reference ""` scores no reference tasks at all (the DVC pipeline's
            score stage does this, so it reads only declared inputs).
          out: output folder.
          systems: comma-separated system names (default: every folder under runs).
          resamples: bootstrap resamples per interval (seed 20261007; recorded in the outputs).
          figures: also draw the figures.
          partial: also score tasks below 99% coverage on their answered items only, in
            <out>/partial.md ("partial, not comparable": for quick tries such as `dp evaluate --limit 20`).
          allow_modified_items: score items files whose SHA-256 differs from the one recorded for them (core:
            their MANIFEST.json and the released edition; reference: their verified task card); the leaderboard
            says so. Without it such a file stops the scoring.
          gate: gate.json of `dp gate` (e.g. reports/gate.json): adds the leaderboard column "Cert. cov.",
            coverage at thresholds certified on fresh draws, beside the retrospective C(0.05). Default: none.
        """
        from decisionpivot.reconstruct.scoring import register_card_tasks
        from decisionpivot.score.pipeline import score_runs
        from decisionpivot.score.report import leaderboard_markdown

        reference_dir = _reference_dir(reference)
        if reference_dir is not None and not Path(reference_dir).is_dir():
            if reference_dir != "datasets/reference":  # named on the command line: a typo must not pass silently
                raise DecisionPivotError(f"--reference {reference_dir}: no such folder of reference items "
                                         '(`--reference ""` scores the core families only)')
            reference_dir = None  # the default folder, before any `dp reconstruct`: core families only
        if reference_dir is not None:
            register_card_tasks(reference_dir)
        tasks = None if reference_dir is not None else ()  # () = no reference tasks, not even registered ones
        folder = Path(items) if items else DEFAULT_CORE_DIR
        chosen = _names(systems)
        scoring = score_runs(runs, folder, reference_dir, out, chosen, int(resamples), tasks=tasks,
                             figures=bool(figures), partial=bool(partial),
                             allow_modified_items=bool(allow_modified_items), gate=gate)
        print(leaderboard_markdown(scoring))
        if scoring.partial:
            from decisionpivot.score.partial import partial_markdown

            print(partial_markdown(list(scoring.partial)))
        for warning in scoring.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print(f"wrote {out}/")

    def compare(self, system_a: str, system_b: str, runs: str = "runs", items: str | None = None,
                reference: str | None = "datasets/reference", resamples: int = 1000,
                allow_modified_items: bool = False) -> None:
        """Paired differences A - B with 95% intervals from matched bootstrap resamples.

        Args:
          system_a: first system (folder under runs).
          system_b: second system.
          runs: folder of answer files.
          items: core items folder (default datasets/core/<version>).
          reference: folder of reference task items (`--reference ""`: none).
          resamples: bootstrap resamples.
          allow_modified_items: compare on items files whose SHA-256 differs from the one recorded for them.
        """
        from decisionpivot.reconstruct.scoring import register_card_tasks
        from decisionpivot.score.pipeline import compare_runs, format_comparison

        reference_dir = _reference_dir(reference)
        if reference_dir is not None:
            register_card_tasks(reference_dir)
        folder = Path(items) if items else DEFAULT_CORE_DIR
        rows, notes = compare_runs(str(system_a), str(system_b), runs, folder, reference_dir, int(resamples),
                                   tasks=None if reference_dir is not None else (),
                                   allow_modified_items=bool(allow_modified_items))
        print(format_comparison(str(system_a), str(system_b), rows, notes))


    def audit(
        self,
        items: str | None = None,
        strict: bool = False,
        params: str = "params.yaml",
        out: str = "reports",
        families: str | Sequence[str] | None = None,
        train_seed: int | None = None,
        jobs: int | None = None,
    ) -> None:
        """Shortcut audit: content-blind probes, family heuristics, balance and hygiene.

        Writes <out>/audit.json and <out>/audit.md. Probes are logistic regressions cross-validated
        with whole contrast groups on one side (GroupKFold); heuristics are the partial-information
        shortcuts each family module exposes.

        Args:
          items: items folder (default datasets/core/<version>).
          strict: exit 1 when any probe, heuristic or hygiene rule exceeds the limits in params.yaml, or
            the text check (doubled words, agreement, a/an, spelling, misplaced function words) finds anything.
          params: parameters file whose `audit:` section sets the limits (defaults apply if absent).
          out: report folder.
          families: comma-separated family names (default: every family in the folder's manifest).
          train_seed: train the probes on a fresh draw with this seed and test them on the items,
            instead of cross-validating on the items.
          jobs: worker processes (default: one per CPU); the reports are the same bytes for any number.
        """
        from decisionpivot.audit.run import audit_command

        folder = Path(items) if items else DEFAULT_CORE_DIR
        if not audit_command(folder, _names(families), params, Path(out), train_seed, jobs) and strict:
            print("audit FAILED (--strict)", file=sys.stderr)
            raise SystemExit(1)

    def reconstruct(
        self,
        task: str | None = None,
        source: str = "reference-sources",
        out: str = "datasets/reference",
        all: bool = False,
        sampled_answers: str | None = None,
        record: bool = False,
    ) -> None:
        """Rebuild reference tasks from official files, checking every hash and count against the task card.

        On any mismatch nothing is written and the differences are printed (file, expected vs found).

        Args:
          task: task id (see `dp licenses` for the list); or use --all.
          source: folder holding <task>/ folders of official files (or the task's own folder).
          out: output folder for <task>.jsonl.
          all: rebuild every task whose official files are present in --source.
          sampled_answers: sampled-answers file (JSONL: question_id, model, answer) for the
            capability-boundary tasks capb_gsm8k and capb_nq_open.
          record: maintainers only - write the reconstructed count and items hash into the card
            (official files must still match the card's hashes).
        """
        from decisionpivot.reconstruct.card import get_card
        from decisionpivot.reconstruct.run import reconstruct_all, reconstruct_task, record_expected

        inputs = {"sampled_answers": sampled_answers} if sampled_answers else {}
        if all:
            done, skipped, failed = reconstruct_all(source, out, **inputs)
            for r in done:
                print(f"rebuilt  {r.task:<22} {r.items:>5} items  sha256 {r.sha256}  "
                      f"{'verified' if r.verified else 'UNVERIFIED card'}")
            for name, reason in skipped.items():
                print(f"skipped  {name:<22} {reason}")
            for name, reason in failed.items():
                print(f"FAILED   {name:<22} {reason}")
            print(f"{len(done)} rebuilt, {len(skipped)} skipped, {len(failed)} failed")
            if failed:
                raise SystemExit(1)
            return
        if not task:
            raise DecisionPivotError("name a task or pass --all")
        result = reconstruct_task(str(task), source, out, **inputs)
        if record:
            card = get_card(str(task))
            record_expected(card, result)
            print(f"recorded {result.items} items, sha256 {result.sha256} in {card.path}")
        print(f"rebuilt {result.task}: {result.items} items, sha256 {result.sha256} -> {result.path}"
              f"{'' if result.verified else ' (card unverified: count and hash not checked)'}")

    def sample(self, task: str, systems: str | Sequence[str], source: str = "reference-sources",
               config: str | None = None, n: int = 5, temperature: float = 0.7, out: str | None = None,
               runs: str = "runs", limit: int | None = None, restart: bool = False) -> None:
        """Sample N answers per question from chat systems, for the capability-boundary tasks.

        Asks each question of the official file (GSM8K test.jsonl, NQ-open NQ-open.dev.jsonl) N times per
        system, with the same runner as `dp evaluate` (retries, rate limits, resume, locks), and writes the
        sampled-answers file that `dp reconstruct capb_gsm8k|capb_nq_open --sampled-answers FILE` grades,
        with FILE.meta.json (models, N, temperature, date) beside it.

        Args:
          task: capb_gsm8k or capb_nq_open.
          systems: comma-separated chat systems (declared in --config).
          source: folder holding the official question file (or <task>/ folders of official files).
          config: YAML file declaring the systems.
          n: samples per question and system.
          temperature: sampling temperature (overrides the systems' own).
          out: sampled-answers file to write (default sampled/<task>.answers.jsonl).
          runs: folder of the resumable per-system samples (runs/<system>/samples/).
          limit: sample only the first Q questions.
          restart: start each system's samples afresh (old ones kept as .bak); needed after a change of a
            system's config, which is otherwise refused.
        """
        from decisionpivot.evaluate.systems import get_system
        from decisionpivot.sample.run import sample_answers

        chosen = [get_system(name, config) for name in _names(systems) or []]
        target = Path(out) if out else Path("sampled") / f"{task}.answers.jsonl"
        results = sample_answers(str(task), source, chosen, int(n), float(temperature), target, runs,
                                 None if limit is None else int(limit), restart=bool(restart))
        for r in results:
            print(f"{r.system:<28} model {r.model:<24} {r.samples:>7} samples {r.errors:>6} errors  {r.path}")
        print(f"wrote {target} and {target.name}.meta.json; next: dp reconstruct {task} --source {source} "
              f"--sampled-answers {target}")

    def stability(self, items_a: str, runs_a: str, items_b: str, runs_b: str,
                  systems: str | Sequence[str] | None = None, resamples: int = 1000,
                  out: str = "reports/stability") -> None:
        """Do rankings and scores survive a revision of the items or a fresh draw? (the paper's Table E3)

        Reports Spearman's rho of macro pair accuracy between item sets A and B with a bootstrap interval,
        each system's score change B - A with a 95% interval (matched resamples for paired item sets,
        independent otherwise; the report says which) and how many include zero, the share of changed
        answers when A and B hold identical items (two runs of one system), and for reasoning runs the
        mean output tokens and closed replies, over all items and the balanced subset (Table D5).
        Writes <out>/stability.md and stability.json.

        Args:
          items_a: core items folder A (e.g. datasets/core/1.1).
          runs_a: answer folders of the systems on A.
          items_b: core items folder B (e.g. datasets/core/1.2 or datasets/fresh/seed-7).
          runs_b: answer folders of the systems on B.
          systems: comma-separated systems (default: every system with answers on both).
          resamples: bootstrap resamples.
          out: output folder.
        """
        from decisionpivot.stability.run import stability, stability_markdown, write_stability

        chosen = _names(systems)
        result = stability(Path(items_a), Path(runs_a), Path(items_b), Path(runs_b), chosen, int(resamples))
        print(stability_markdown(result, str(items_a), str(items_b)))
        for path in write_stability(result, Path(out), str(items_a), str(items_b)):
            print(f"wrote {path}")

    def licenses(self, out: str | None = "licenses/REVIEW.md") -> None:
        """Print the reference-track licence review (task, licence, class, route, reason) and counts.

        Args:
          out: also write the review as Markdown here (pass --out= to skip writing).
        """
        from decisionpivot.licenses.routes import review_markdown
        from decisionpivot.reconstruct.card import all_cards

        text = review_markdown(all_cards())
        print(text)
        if out:
            from decisionpivot.items import atomic_write_bytes

            atomic_write_bytes(Path(out), text.encode("utf-8"))

    def overlap(self, *train: str, items: str = "datasets/reference", out: str = "datasets/reference-filtered",
                n: int = 13) -> None:
        """Remove reference items that share a long n-gram with training files (and their groups).

        Streams the training files (plain text, JSON Lines, .gz), writes a filtered copy of every
        items file to --out plus overlap.json, and prints the counts per task.

        Args:
          train: training files (plain text, .jsonl, optionally .gz); also accepted as --train a,b.
          items: folder of reference items to filter.
          out: folder for the filtered copy.
          n: n-gram length in word tokens.
        """
        from decisionpivot.release.overlap import filter_folder

        paths = [Path(p) for p in train]
        if not paths:
            raise DecisionPivotError("name at least one training file: dp overlap FILE [FILE ...]")
        reports = filter_folder(Path(items), paths, Path(out), int(n))
        print(f"{'task':<22} {'items':>6} {'flagged':>8} {'removed':>8}")
        for r in reports:
            print(f"{r.task:<22} {r.items:>6} {r.flagged:>8} {r.removed:>8}")
        print(f"wrote {out}/ ({sum(r.removed for r in reports)} items removed)")

    def release(self, repo_id: str | None = None, core: str | None = None, reference: str | None = "datasets/reference",
                out: str = "release", private: bool = False, dry_run: bool = False, endpoint: str | None = None,
                record_manifest: bool = False) -> None:
        """Build the gated Hugging Face dataset folder and upload it (create repo, upload, gate manually).

        The folder holds the core items, the redistributable reference tasks only, licences, a dataset
        card with the access conditions, and MANIFEST.json (SHA-256 and size of every file). The token
        comes from HF_TOKEN or `hf auth login`; it is never printed.

        Args:
          repo_id: dataset repository ORG/NAME (not needed with --dry-run or --record-manifest alone).
          core: core items folder (default datasets/core/<version>).
          reference: reconstructed reference items folder ("" for a core-only release).
          out: release folder to build.
          private: create the repository private (default public, gated).
          dry_run: build the folder only; upload nothing.
          endpoint: hub URL (default HF_ENDPOINT, else huggingface.co).
          record_manifest: maintainers - store the built MANIFEST.json as the package's expected
            manifest (src/decisionpivot/release/expected_manifest.json) that `dp download` verifies against, and
            the core folder's MANIFEST.json as the released edition's (src/decisionpivot/released/) that
            `dp evaluate` and `dp score` check release items against.
        """
        from decisionpivot.release.hub import build_release, upload_release
        from decisionpivot.release.manifest import expected_manifest, record_expected_manifest

        if not (repo_id or dry_run or record_manifest):
            raise DecisionPivotError("name the dataset repository with --repo-id ORG/NAME (or build only: --dry-run)")
        built = build_release(Path(core) if core else DEFAULT_CORE_DIR, _reference_dir(reference), out)
        manifest = built.manifest
        for note in built.notes:
            print(f"note: {note}", file=sys.stderr)
        print(f"built {out}/ (core families: {len(manifest['core'])}, reference tasks: {len(manifest['reference'])}, "
              f"files: {len(manifest['files']) + 1}), content digest {manifest['digest']}")
        if record_manifest:
            from decisionpivot.item_hashes import record_released_core

            print(f"recorded the expected manifest in {record_expected_manifest(manifest)} and the released core "
                  f"items' hashes in {record_released_core(Path(core) if core else DEFAULT_CORE_DIR)} (commit both)")
        elif (expected_manifest() or {}).get("digest") != manifest["digest"]:
            print("note: the package's expected manifest describes another build; `dp download` will not verify "
                  "this release until a maintainer runs `dp release --record-manifest` and publishes the package",
                  file=sys.stderr)
        if dry_run or not repo_id:
            return
        result = upload_release(out, str(repo_id), private=bool(private), endpoint=endpoint)
        print(f"uploaded {result.files} files to {result.url} (commit {result.commit}); gating: manual approval")

    def download(self, repo_id: str, revision: str | None = None, out: str = "datasets/hub",
                 endpoint: str | None = None, allow_uncovered: bool = False) -> None:
        """Download the gated dataset with your token and verify every SHA-256 against the package's manifest.

        Only a fully verified download is written to --out. Request access on the dataset page first and
        log in (`hf auth login`) or set HF_TOKEN.

        Args:
          repo_id: dataset repository ORG/NAME.
          revision: branch, tag or commit (default main).
          out: folder to write the verified files to.
          endpoint: hub URL (default HF_ENDPOINT, else huggingface.co).
          allow_uncovered: accept a revision the package's manifest does not describe, checked only
            against the revision's own MANIFEST.json (not an independent check).
        """
        from decisionpivot.release.hub import download_release

        result = download_release(str(repo_id), out, revision=revision, endpoint=endpoint,
                                  allow_uncovered=bool(allow_uncovered))
        against = "the package manifest" if result.covered else "the revision's own manifest ONLY (not covered)"
        print(f"verified {result.files} files of {repo_id} at commit {result.commit} against {against}: "
              f"release {result.release}, content digest {result.digest} -> {result.folder}/")
        print(f"evaluate with: dp evaluate --system uniform --items {result.folder}/core")

    def datasheet(self, core: str | None = None, reference: str | None = "datasets/reference",
                  out: str = "datasheet") -> None:
        """Write the datasheet (DATASHEET.md, Gebru et al. questions) and Croissant 1.1 metadata (croissant.json).

        Every number is computed from the items files and the task cards.

        Args:
          core: core items folder (default datasets/core/<version>).
          reference: reconstructed reference items folder (tasks whose file is absent are listed as such);
            `--reference ""` describes no reference items (every task listed as absent), as the DVC
            pipeline's datasheet stage does.
          out: output folder.
        """
        from decisionpivot.datasheet import write_datasheet

        reference_dir = _reference_dir(reference)
        core_dir = Path(core) if core else DEFAULT_CORE_DIR
        for path in write_datasheet(core_dir, Path(reference_dir) if reference_dir else None, Path(out)):
            print(f"wrote {path}")

    def systems(self, config: str | None = None, kinds: bool = False) -> None:
        """List the systems `dp evaluate` knows: built-in, family heuristics, and those in --config.

        Args:
          config: a YAML systems file (see decisionpivot/evaluate/default_systems.yaml).
          kinds: list every kind instead, with its keys, defaults and what each key does.
        """
        from decisionpivot.evaluate.kinds import kinds as registered
        from decisionpivot.evaluate.systems import load_systems

        if kinds:
            for name, spec in sorted(registered().items()):
                print(f"{name}: {spec.doc}")
                for key, setting in spec.settings.items():
                    need = "required" if key in spec.required else f"default {setting.default!r}"
                    print(f"    {key:<32} {need:<22} {setting.doc}")
            return
        for name, system in sorted(load_systems(config).items()):
            detail = system.settings.get("model") or system.settings.get("callable") or system.settings.get("baseline")
            print(f"{name:<48} {system.kind:<16} {detail}  ({system.source})")

    def evaluate(
        self,
        system: str,
        config: str | None = None,
        items: str | None = None,
        runs: str = "runs",
        tasks: str | Sequence[str] | None = None,
        limit: int | None = None,
        shard: str | None = None,
        retry_errors: bool = False,
        restart: bool = False,
        allow_modified_items: bool = False,
        permute_options: int = 0,
    ) -> None:
        """Run one system over the benchmark and write runs/<system>/<task>.jsonl (+ .meta.json).

        Re-running answers only what is missing (also after a crash or kill -9) and asks again the
        items whose record is a transient error (server down, retries spent). Each answer file is
        locked while it is written: a second run on it refuses, naming the holder. The items are
        checked against their MANIFEST.json (and the release hashes shipped in the package) before
        anything is asked. Exits 1 when a task ends below the 99% of items the scorer needs.
        Without --items and with no items generated yet, the release core items are generated first.

        Args:
          system: a declared system (`dp systems` lists them), e.g. uniform.
          config: YAML file declaring more systems (two lines suffice for an OpenAI-compatible or
            System One endpoint).
          items: items folder (default datasets/core/<version>).
          runs: folder of answer files.
          tasks: comma-separated task names (default: every items file in the folder).
          limit: answer at most this many items per task (quick tries; `dp score --partial` scores them).
          shard: i/n - answer only items whose index % n == i, into runs/<system>/shards/; fold the
            shards together with `dp merge`.
          retry_errors: ask again every item whose record is an error (replacing that record).
          restart: start each task afresh (old answers kept as <task>.jsonl.bak, or the next free .bak.N: a
            backup is never overwritten); needed to resume
            under a changed system config, which is otherwise refused.
          allow_modified_items: evaluate items whose hash differs from their manifest (recorded in the
            meta file and on the leaderboard).
          permute_options: also ask every item under K seeded re-orderings of its options
            (runs/<system>/permuted/); `dp score` then reports accuracy under permutation.
        """
        from decisionpivot.evaluate.answers import Shard
        from decisionpivot.evaluate.run import evaluate_system
        from decisionpivot.evaluate.systems import get_system

        chosen = get_system(str(system), config)
        folder = Path(items) if items else DEFAULT_CORE_DIR
        if items is None and not (folder / "MANIFEST.json").exists():
            print(f"{folder}/ not found: generating the release core items first", file=sys.stderr)
            self.generate()
        results = evaluate_system(chosen, folder, Path(runs), _names(tasks), None if limit is None else int(limit),
                                  Shard.parse(shard), restart=bool(restart), retry_errors=bool(retry_errors),
                                  allow_modified_items=bool(allow_modified_items),
                                  permute_options=int(permute_options))
        print(f"{'task':<26} {'items':>6} {'resumed':>8} {'answers':>8} {'errors':>7} {'retries':>8}  file")
        for r in results:
            print(f"{r.task:<26} {r.items:>6} {r.already:>8} {r.answered:>8} {r.errors:>7} {r.retries:>8}  {r.path}")
        short = [r for r in results if not r.covered]
        answered = sum(r.answered for r in results)
        total = sum(r.items for r in results)
        unanswered = sum(r.transient for r in results)
        print(f"{chosen.name}: {answered} of {total} items answered, {sum(r.errors for r in results)} errors "
              f"({unanswered} transient) in {len(results)} task(s), readout {chosen.readout}")
        if short and limit is None and shard is None:
            names = ", ".join(r.task for r in short)
            print(f"evaluate INCOMPLETE: {len(short)} task(s) below the 99% of items the scorer needs ({names}); "
                  "run again to ask the transient errors, or with --retry-errors to ask every error again",
                  file=sys.stderr)
            raise SystemExit(1)
        if unanswered:
            tasks_left = ", ".join(f"{r.task} {r.transient}" for r in results if r.transient)
            print(f"evaluate INCOMPLETE: {unanswered} item(s) unanswered after their retries (transient errors: "
                  f"{tasks_left}); the scorer counts them as failed predictions. Run the same command again to ask "
                  "them again", file=sys.stderr)
            raise SystemExit(1)

    def gate(self, runs: str = "runs", items: str | None = None, calibration_runs: str = "runs-calibration",
             calibration_items: str = "datasets/fresh", seeds: str | Sequence[str] | None = None,
             target_risk: float | None = None, delta: float | None = None,
             systems: str | Sequence[str] | None = None, out: str = "reports", resamples: int | None = None,
             params: str | None = None) -> None:
        """Certify a confidence threshold per system and family on fresh draws; check it on the release.

        With probability >= 1 - delta over the calibration draws, the error rate among the items a system
        decides alone (confidence >= threshold) is at most target_risk (Learn then Test, Angelopoulos et
        al. 2021; binomial tail p-values, fallback procedure over a fixed grid, one member per contrast
        group). "do not automate" when no threshold is certified; "refused" when a draw's answers cover
        less than 99% of its items. Writes <out>/gate.md, <out>/gate.json and <out>/gate/<system>.json.
        Calibration answers: dp generate --seed N; dp evaluate --system S --items datasets/fresh/seed-N
        --runs runs-calibration/seed-N.

        Args:
          runs: release answer folders, one per system (every system there is gated).
          items: release core items folder (default datasets/core/<version>); only checked on, never calibrated on.
          calibration_runs: folder of seed-N/<system>/ answer folders on the calibration draws.
          calibration_items: folder of the calibration draws' seed-N/ items folders.
          seeds: comma-separated calibration seeds (default: the params file's gate.seeds, else every
            seed-N folder under calibration_runs).
          target_risk: largest error rate allowed among automated items (a fraction; default 0.05).
          delta: allowed probability that the guarantee fails (a fraction; default 0.10).
          systems: comma-separated systems (default: every folder under runs).
          out: output folder.
          resamples: bootstrap resamples of the release intervals (seed 20261007, as dp score; default 1000).
          params: YAML file whose `gate:` section gives seeds, target_risk, delta and resamples (the DVC
            stage passes params.yaml); flags given on the command line win.
        """
        from decisionpivot.gate.report import gate_summary, write_gate
        from decisionpivot.gate.run import gate_runs, resolve_settings

        chosen, settings = resolve_settings(Path(params) if params else None, _names(seeds), target_risk, delta,
                                            resamples, Path(calibration_runs))
        gating = gate_runs(Path(runs), Path(items) if items else DEFAULT_CORE_DIR, Path(calibration_runs),
                           Path(calibration_items), chosen, settings, _names(systems))
        print(gate_summary(gating))
        for path in write_gate(gating, Path(out)):
            print(f"wrote {path}")

    def report(self, reports: str = "reports", items: str | None = None, runs: str = "runs", out: str | None = None,
               gate: str | None = None, stability: str | None = None,
               partial: str | None = None) -> None:
        """Write the static HTML report of a scoring: <out>/index.html and its pages (open it in a browser).

        Leaderboard, systems x families heat map, levels, confidence (risk-coverage, reliability, pair
        direction), reference track, how each system ran, one page per family and per system, and the
        contrast-group browser. Reads what `dp score` wrote plus the items and answer files it read; works
        from file:// and any static host (no network); the same inputs give the same bytes.

        Args:
          reports: the `dp score` output folder (scores.json, scoring.json; partial.csv, gate.json and
            stability results are shown when there).
          items: core items folder the scoring read (default datasets/core/<version>).
          runs: folder of answer files the scoring read.
          out: folder of the site (default <reports>/site); replaced whole, and only if dp report wrote it.
          gate: `dp gate`'s gate.json (default <reports>/gate.json if present; --gate "" for none).
          stability: comma-separated `dp stability` results (stability.json files or their folders;
            default every <reports>/stability*.json and <reports>/*/stability.json; --stability "" for none).
          partial: `dp score --partial`'s partial.csv (default <reports>/partial.csv if present; "" for none).
        """
        from decisionpivot.report.site import report_site

        built = report_site(reports, items if items else DEFAULT_CORE_DIR, runs, out, gate, stability, partial)
        print(f"wrote {built.out}/ ({built.pages} pages, {built.files} files, {built.bytes / 1e6:.1f} MB); "
              f"open {built.out}/index.html")

    def export(self, harness: Literal["lm-eval"], out: str, items: str | None = None,
               tasks: str | Sequence[str] | None = None) -> None:
        """Write the benchmark as another harness's tasks: `dp export lm-eval DIR` for lm-evaluation-harness.

        DIR then holds a YAML task per family (multiple_choice over the option keys, the hf kind's prompt),
        the groups `decisionpivot` (models without a chat template) and `decisionpivot_chat` (with
        --apply_chat_template), and the docs they read; run `lm_eval --include_path DIR --tasks decisionpivot
        --log_samples --output_path OUT` and bring the answers back with `dp import lm-eval OUT`. The items
        are checked against their manifest and the release hashes first. inspect_ai needs no export: the
        package registers `inspect eval decisionpivot/core` (README "Running inside inspect_ai ...").

        Args:
          harness: lm-eval (lm-evaluation-harness).
          out: the task folder to write: new, empty, or an earlier export (overwritten).
          items: items folder (default datasets/core/<version>, generated first when absent).
          tasks: comma-separated families (default: every items file of the folder).
        """
        from decisionpivot.harness.lm_eval_export import CHAT_GROUP, GROUP, export_lm_eval

        result = export_lm_eval(Path(out), Path(items) if items else None, _names(tasks))
        for task in result.tasks:
            print(f"{task.task:<18} {len(task.items):>6} items  {task.check:<16} {task.sha256[:16]}")
        print(f"wrote {result.folder}/ ({len(result.files)} files): lm_eval --include_path {result.folder} "
              f"--tasks {GROUP} (or {CHAT_GROUP} with --apply_chat_template)")

    def import_(self, harness: Literal["inspect", "lm-eval"], log: str, system: str, items: str | None = None,
                runs: str = "runs", restart: bool = False) -> None:
        """Turn a harness's log into answer files: runs/<system>/<task>.jsonl (+ .meta.json), scored like any run.

        `dp import inspect LOG` reads an inspect_ai log of `inspect eval decisionpivot/...`; `dp import lm-eval
        SAMPLES` reads the samples files of `lm_eval --tasks decisionpivot... --log_samples` (one file, or the
        folder of one run). Every sample must be an item of the items folder (checked against its manifest
        and the release hashes) with the same content hash and prompt, else the whole log is refused and
        nothing is written. The meta records the harness, its version, the model and the log's identifiers;
        importing more logs of the same system and config adds the items not yet answered.

        Args:
          harness: inspect (inspect_ai) or lm-eval (lm-evaluation-harness).
          log: the inspect log file (.eval or .json), or the lm-eval samples file or run folder.
          system: the system name to record the answers under (folder under runs).
          items: items folder the log answered (default datasets/core/<version>, generated first when absent).
          runs: folder of answer files.
          restart: start each task's answer file afresh (old answers kept as .bak); needed to import a
            log of another model or config under a name that holds answers already.
        """
        if harness == "inspect":
            from decisionpivot.harness.inspect_import import import_inspect_log as import_log
        else:
            from decisionpivot.harness.lm_eval_import import import_lm_eval_samples as import_log
        written = import_log(Path(log), str(system), Path(runs), Path(items) if items else None, restart=bool(restart))
        print(f"{'task':<18} {'items':>6} {'in log':>7} {'kept':>6} {'answers':>8} {'errors':>7}  file")
        for t in written:
            print(f"{t.task:<18} {t.items:>6} {t.in_log:>7} {t.already:>6} {t.answers:>8} {t.errors:>7}  {t.path}")
        short = [t.task for t in written if 100 * (t.answers + t.errors) < 99 * t.items]
        if short:
            print(f"{system}: {len(short)} task(s) below the 99% of items `dp score` needs ({', '.join(short)}); "
                  "`dp score --partial` scores them on the answered items", file=sys.stderr)

    def repair(self, system: str, runs: str = "runs") -> None:
        """Fold duplicate ids in a system's answer files into one record per id (the original kept as .bak).

        A backup is never overwritten: when <task>.jsonl.bak exists the original goes to .bak.1, .bak.2, ...

        Per id the first answer with probabilities is kept (an answer beats an error). Needed only for
        files written before answer files were locked, or edited by hand.

        Args:
          system: the system whose answer files to repair (folder under runs).
          runs: folder of answer files.
        """
        from decisionpivot.evaluate.answers import fold_duplicates
        from decisionpivot.evaluate.systems import validate_system_name

        folder = Path(runs) / validate_system_name(str(system))
        if not folder.is_dir():
            raise DecisionPivotError(f"{folder}: no answers folder for system {system!r}")
        paths = [p for p in sorted(folder.rglob("*.jsonl")) if not p.name.endswith(".raw.jsonl")]
        for path in paths:
            folded, differing, backup = fold_duplicates(path)
            if backup is not None:
                note = f" ({differing} with differing answers: the first kept)" if differing else ""
                print(f"{path}: folded {folded} duplicate id(s){note}; original kept as {backup.name}")
        print(f"checked {len(paths)} answer file(s) of {system}")

    def merge(self, system: str, items: str | None = None, runs: str = "runs") -> None:
        """Fold the shard answer files of a system (from `dp evaluate --shard i/n`) into its task files.

        Every id must appear at most once across shards; ids still missing are listed.

        Args:
          system: the system whose shards to merge.
          items: items folder the shards answered (default datasets/core/<version>).
          runs: folder of answer files.
        """
        from decisionpivot.evaluate.answers import merge_shards
        from decisionpivot.evaluate.run import task_files
        from decisionpivot.evaluate.systems import validate_system_name
        from decisionpivot.items import iter_items

        folder = Path(items) if items else DEFAULT_CORE_DIR
        order = {task: [i.id for i in iter_items(path)] for task, path in task_files(folder).items()}
        for task, count, missing in merge_shards(Path(runs), validate_system_name(str(system)), order):
            note = f", {len(missing)} missing (e.g. {missing[:3]})" if missing else ""
            print(f"{task}: {count} records{note}")

    def completion(self, shell: Literal["bash", "fish"] = "bash") -> None:
        """Print a shell completion script for dp (verbs and their flags), generated by python-fire.

        Install it with `dp completion > ~/.local/share/bash-completion/completions/dp` (bash) or
        `dp completion --shell fish > ~/.config/fish/completions/dp.fish`.

        Args:
          shell: bash or fish.
        """
        import fire.completion

        print(fire.completion.Script("dp", DP(), shell=shell), end="")


def _shard(value: str | None) -> None:
    """`--shard i/n` is checked before any work (evaluate reads it only after generating missing items)."""
    if value is None:
        return
    from decisionpivot.evaluate.answers import Shard

    try:
        Shard.parse(value)
    except DecisionPivotError as exc:
        raise ValueError(str(exc)) from None


def _repo_id(value: str | None) -> None:
    if value is None:
        return
    from decisionpivot.release.hub import validate_repo_id

    try:
        validate_repo_id(value)
    except DecisionPivotError as exc:
        raise ValueError(str(exc)) from None


CONSTRAINTS: Constraints = {
    "*": {
        "limit": at_least(0), "jobs": at_least(1), "resamples": at_least(1), "n": at_least(1), "show": at_least(0),
        "runs": folder, "out": folder, "source": folder, "params": file, "train": file,
        "items": folder_or_default, "core": folder_or_default, "reference": folder_or_default,
        "config": file_or_default, "sampled_answers": file_or_default,
        "repo_id": _repo_id, "shard": _shard,
        "permute_options": at_least(0),  # evaluate --permute-options K: 0 = the official order only
        "calibration_runs": folder, "calibration_items": folder, "gate": file,
    },
    "generate": {"out": folder_or_default},  # --out= : the default folder for the seed
    "licenses": {"out": file_or_default},  # --out= : print only
    "sample": {"out": file_or_default, "source": folder_or_default},  # --out names the sampled-answers file
    "report": {"reports": folder, "gate": file_or_default, "partial": file_or_default},  # "" = none
}
"""What the annotations cannot say, checked before any verb runs: ``{verb or "*": {parameter: check(s)}}``.

A verb's own entry replaces the "*" entry of that parameter. Types (int, bool, comma lists, ...) need no
entry: they come from the signature (see decisionpivot.command_line). A new count flag needs one line here,
e.g. ``"retries": at_least(0)``, or an Annotated type in the signature.
"""


def _describe_os_error(exc: OSError) -> str:
    if exc.filename is not None:
        other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
        return f"{exc.filename}{other}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (tests capture it)
        pass


def _print_error(message: str, usage: str = "") -> None:
    print(f"error: {redact(message)}", file=sys.stderr)
    if usage:
        print(usage, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `dp` console script: check the whole command line, then run the verb.

    Errors in input print one `error:` line (secrets redacted) and exit 2; a command line the verb cannot
    take also prints the verb's usage, before anything has run.
    """
    command = list(sys.argv[1:] if argv is None else argv)
    stderr = sys.stderr
    sys.stderr = RedactingStream(stderr)  # warnings, notes and errors of every verb reach the terminal redacted
    previous = _on_sigterm()
    try:
        _run(command)
    finally:
        sys.stderr = stderr
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM (what Slurm, Kubernetes and `kill` send) arrived: unwind like Ctrl-C, so every answer file's
    meta is brought up to date and every lock released on the way out."""


def _on_sigterm() -> Any:
    """Turn SIGTERM into :class:`Terminated` in the main thread; returns the previous handler (None: not set)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def terminate(signum: int, frame: Any) -> None:
        raise Terminated()

    return signal.signal(signal.SIGTERM, terminate)


def _run(command: list[str]) -> None:
    try:
        invocation = parse_command_line(DP, command, CONSTRAINTS)
        if invocation.help:
            from decisionpivot.command_help import overview, verb_help
            from decisionpivot.command_line import verbs

            table = verbs(DP)
            print(verb_help(invocation.verb, table[invocation.verb], CONSTRAINTS) if invocation.verb
                  else overview(DP, table), end="")
            return
        assert invocation.verb is not None
        getattr(DP(), method_name(invocation.verb))(*invocation.args, **invocation.kwargs)
    except CommandLineError as exc:
        _print_error(str(exc), exc.usage)
        raise SystemExit(2) from None
    except DecisionPivotError as exc:
        _print_error(str(exc))
        raise SystemExit(2) from None
    except BrokenPipeError:  # `dp systems | head`: the reader has gone; say nothing more
        _silence_stdout()
        raise SystemExit(1) from None
    except OSError as exc:  # last line of defence; the places that read and write files say more
        _print_error(_describe_os_error(exc))
        raise SystemExit(2) from None
    except UnicodeDecodeError as exc:
        _print_error(f"a file that should be UTF-8 text is not ({exc})")
        raise SystemExit(2) from None
    except UnicodeError as exc:
        _print_error(f"text that cannot be used here ({exc})")
        raise SystemExit(2) from None
    except Terminated:
        print("terminated (SIGTERM): answers so far are kept; the same command resumes", file=sys.stderr)
        raise SystemExit(128 + signal.SIGTERM) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
