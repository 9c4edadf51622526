"""The `dp` command: one verb per pipeline stage (generate, verify, show, ...).

Every verb explains itself with ``dp VERB --help``. Errors in input (a malformed items file, a hash
that does not match) print one clear line and exit with status 2; failed checks exit with 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import fire

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED, __version__
from decisionpivot.command_line import (
    CommandLineError,
    Constraints,
    at_least,
    file,
    file_or_default,
    folder,
    folder_or_default,
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
              figures: bool = True, partial: bool = False) -> None:
        """Score runs/<system>/<task>.jsonl: metrics with 95% bootstrap intervals, tables and figures.

        Writes <out>/scores.json, scoring.json, leaderboard.md/.csv/.tex, per-family, per-level and
        reference tables, and <out>/figures/*.png|svg. A malformed answer file is an error naming the
        file and line; a task with records for fewer than 99% of items is excluded and reported.
        Training-data provenance flags are read from provenance/<system>.yaml beside the runs folder
        (leaderboard notes and <out>/provenance.md; see decisionpivot.overlap.provenance).

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
                             figures=bool(figures), partial=bool(partial))
        print(leaderboard_markdown(scoring))
        if scoring.partial:
            from decisionpivot.score.partial import partial_markdown

            print(partial_markdown(list(scoring.partial)))
        for warning in scoring.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print(f"wrote {out}/")

    def compare(self, system_a: str, system_b: str, runs: str = "runs", items: str | None = None,
                reference: str | None = "datasets/reference", resamples: int = 1000) -> None:
        """Paired differences A - B with 95% intervals from matched bootstrap resamples.

        Args:
          system_a: first system (folder under runs).
          system_b: second system.
          runs: folder of answer files.
          items: core items folder (default datasets/core/<version>).
          reference: folder of reference task items (`--reference ""`: none).
          resamples: bootstrap resamples.
        """
        from decisionpivot.reconstruct.scoring import register_card_tasks
        from decisionpivot.score.pipeline import compare_runs, format_comparison

        reference_dir = _reference_dir(reference)
        if reference_dir is not None:
            register_card_tasks(reference_dir)
        folder = Path(items) if items else DEFAULT_CORE_DIR
        rows, notes = compare_runs(str(system_a), str(system_b), runs, folder, reference_dir, int(resamples),
                                   tasks=None if reference_dir is not None else ())
        print(format_comparison(str(system_a), str(system_b), rows, notes))


    def audit(
        self,
        items: str | None = None,
        strict: bool = False,
        params: str = "params.yaml",
        out: str = "reports",
        families: str | Sequence[str] | None = None,
        train_seed: int | None = None,
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
        """
        from decisionpivot.audit.run import AuditLimits, audit_family, write_reports
        from decisionpivot.generate.registry import families as registered
        from decisionpivot.generate.run import draw_family, read_manifest
        from decisionpivot.items import read_items

        folder = Path(items) if items else DEFAULT_CORE_DIR
        limits = AuditLimits.from_params(params)
        manifest = read_manifest(folder)
        names = _names(families) or list(manifest["families"])
        specs = {spec.name: spec for spec in registered()}
        reports = []
        for name in names:
            if name not in manifest["families"]:
                raise DecisionPivotError(f"{folder}/MANIFEST.json has no family {name!r}")
            family_items = read_items(folder / manifest["families"][name]["file"])
            train = list(draw_family(name, int(train_seed)).items) if train_seed is not None else None
            heuristics = specs[name].heuristics if name in specs else {}
            report = audit_family(name, family_items, limits, heuristics, train)
            reports.append(report)
            worst = max(report["probes"].items(), key=lambda kv: kv[1]["margin"])
            status = "ok" if not report["failures"] else f"{len(report['failures'])} finding(s)"
            print(f"{name:<18} worst probe {worst[0]:<15} margin {100 * worst[1]['margin']:+5.1f} pts  {status}")
            for failure in report["failures"]:
                print(f"    {failure}")
        json_path, md_path = write_reports(reports, Path(out), limits, str(folder))
        print(f"wrote {json_path} and {md_path}")
        if strict and any(r["failures"] for r in reports):
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
               runs: str = "runs", limit: int | None = None) -> None:
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
        """
        from decisionpivot.evaluate.systems import get_system
        from decisionpivot.sample.run import sample_answers

        chosen = [get_system(name, config) for name in _names(systems) or []]
        target = Path(out) if out else Path("sampled") / f"{task}.answers.jsonl"
        results = sample_answers(str(task), source, chosen, int(n), float(temperature), target, runs,
                                 None if limit is None else int(limit))
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
                n: int = 13, engine: Literal["local", "dask"] = "local", workers: int = 1, address: str | None = None,
                text_column: str = "text", part_mb: int = 256, state: str | None = None,
                progress: bool = True) -> None:
        """Remove reference items that share a long n-gram with training files (and their groups).

        Streams the training inputs (plain text, JSON Lines, Parquet; .gz or .zst; local paths, folders,
        globs or fsspec URLs such as s3://), here or on a Dask cluster, writes a filtered copy of every
        items file to --out plus overlap.json (each flagged item with the file, place and n-gram), and
        prints the counts per task. Finished files are journaled in <out>/overlap.state: after a crash
        the same command resumes; changed or added files are the only ones scanned again.

        Args:
          train: training files, folders, globs or URLs (.txt, .jsonl, .json, .parquet; optionally .gz or
            .zst); also accepted as --train a,b.
          items: folder of reference items to filter.
          out: folder for the filtered copy.
          n: n-gram length in word tokens.
          engine: local (this process) or dask (a Dask cluster: --workers N local processes, or --address).
          workers: with --engine dask and no --address: worker processes of a local cluster.
          address: with --engine dask: the scheduler of a running cluster, e.g. tcp://10.0.0.5:8786.
          text_column: the Parquet column that holds the text.
          part_mb: uncompressed text and JSON Lines files above this size are scanned in parts of this many MB.
          state: the resume journal (default <out>/overlap.state; --state= keeps none).
          progress: show a progress bar (bytes, throughput) on a terminal.
        """
        from decisionpivot.overlap.run import overlap_command

        overlap_command(list(train), items, out, n, engine, workers, address, text_column, part_mb, state, progress)

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
            manifest (src/decisionpivot/release/expected_manifest.json) that `dp download` verifies against.
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
            print(f"recorded the expected manifest in {record_expected_manifest(manifest)} (commit it)")
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
          restart: start each task afresh (old answers kept as <task>.jsonl.bak); needed to resume
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
        print(f"{chosen.name}: {answered} of {total} items answered, {sum(r.errors for r in results)} errors "
              f"({sum(r.transient for r in results)} transient) in {len(results)} task(s), readout {chosen.readout}")
        if short and limit is None and shard is None:
            names = ", ".join(r.task for r in short)
            print(f"evaluate INCOMPLETE: {len(short)} task(s) below the 99% of items the scorer needs ({names}); "
                  "run again to ask the transient errors, or with --retry-errors to ask every error again",
                  file=sys.stderr)
            raise SystemExit(1)

    def repair(self, system: str, runs: str = "runs") -> None:
        """Fold duplicate ids in a system's answer files into one record per id (the original kept as .bak).

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
            folded, differing = fold_duplicates(path)
            if folded:
                note = f" ({differing} with differing answers: the first kept)" if differing else ""
                print(f"{path}: folded {folded} duplicate id(s){note}; original kept as {path.name}.bak")
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


def _shard(value: str | None) -> None:
    """`--shard i/n` is checked before any work (evaluate reads it only after generating missing items)."""
    if value is None:
        return
    from decisionpivot.evaluate.answers import Shard

    try:
        Shard.parse(value)
    except DecisionPivotError as exc:
        raise ValueError(str(exc)) from None


def _training_input(value: str) -> None:
    """dp overlap's inputs: files, folders, globs or URLs (the "*" file check would refuse the last three)."""
    if not str(value).strip():
        raise ValueError("expected a training file, folder, glob or URL, got an empty path")


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
    },
    "generate": {"out": folder_or_default},  # --out= : the default folder for the seed
    "licenses": {"out": file_or_default},  # --out= : print only
    "sample": {"out": file_or_default, "source": folder_or_default},  # --out names the sampled-answers file
    "overlap": {"train": _training_input, "workers": at_least(1), "part_mb": at_least(1), "state": file_or_default},
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
    os.environ.setdefault("PAGER", "cat")  # fire's help must not wait in a pager
    command = list(sys.argv[1:] if argv is None else argv)
    stderr = sys.stderr
    sys.stderr = RedactingStream(stderr)  # warnings, notes and errors of every verb reach the terminal redacted
    try:
        _run(command)
    finally:
        sys.stderr = stderr


def _run(command: list[str]) -> None:
    try:
        invocation = parse_command_line(DP, command, CONSTRAINTS)
        if invocation.help:
            fire.Fire(DP, command=[invocation.verb, "--help"] if invocation.verb else ["--help"], name="dp")
            return
        assert invocation.verb is not None
        getattr(DP(), invocation.verb)(*invocation.args, **invocation.kwargs)
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
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
