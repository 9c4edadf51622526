"""The reference track and the release: reconstruct, overlap, licenses, datasheet, release, download.

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from decisionpivot._cli.arguments import DEFAULT_CORE_DIR, reference_folder
from decisionpivot.errors import DecisionPivotError


class ReferenceVerbs:
    """The reference track and the release."""

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

    def datasheet(self, core: str | None = None, reference: str | None = "datasets/reference",
                  out: str = "datasheet", invariance: str | None = None, scale: str | None = None,
                  scale_invariance: str | None = None) -> None:
        """Write the datasheet (DATASHEET.md, Gebru et al. questions) and Croissant 1.1 metadata (croissant.json).

        Every number is computed from the items files and the task cards.

        Args:
          core: core items folder (default datasets/core/<version>).
          reference: reconstructed reference items folder (tasks whose file is absent are listed as such);
            `--reference ""` describes no reference items (every task listed as absent), as the DVC
            pipeline's datasheet stage does.
          out: output folder.
          invariance: invariance suite folder drawn from --core (default datasets/invariance/<suite version>
            when it exists); the datasheet describes it and croissant.json lists its files and record sets.
            `--invariance ""` describes no suite.
          scale: the scale suite folder (`dp scale`; default datasets/scale/<version> when it exists): a section on
            it and its files and record sets in croissant.json. `--scale ""` describes none (and says nothing of it).
          scale_invariance: its framings (`dp scale --framings`; default datasets/scale-invariance/<version> when it
            exists); `--scale-invariance ""` describes none.
        """
        from decisionpivot.datasheet import write_datasheet
        from decisionpivot.frame.framings import SUITE_VERSION
        from decisionpivot.scale import SCALE_VERSION
        from decisionpivot.scale.framing import FRAMED_VERSION

        reference_dir = reference_folder(reference)
        core_dir = Path(core) if core else DEFAULT_CORE_DIR
        if invariance is None:
            default = Path("datasets") / "invariance" / SUITE_VERSION
            suite = default if (default / "MANIFEST.json").exists() else None
            if suite is None:
                print(f"note: no invariance suite at {default}/ (run `dp frame`); the datasheet does not describe it",
                      file=sys.stderr)
        else:
            found = reference_folder(invariance)
            suite = Path(found) if found else None
        def optional(value: str | None, default: Path) -> Path | None:
            if value is None:
                return default if (default / "MANIFEST.json").exists() else None
            found = reference_folder(value)
            return Path(found) if found else None

        scale_dir = optional(scale, Path("datasets") / "scale" / SCALE_VERSION)
        framed_dir = optional(scale_invariance, Path("datasets") / "scale-invariance" / FRAMED_VERSION)
        for path in write_datasheet(core_dir, Path(reference_dir) if reference_dir else None, Path(out),
                                    invariance_dir=suite, scale_dir=scale_dir,
                                    scale_invariance_dir=framed_dir if scale_dir is not None else None):
            print(f"wrote {path}")

    def release(self, repo_id: str | None = None, core: str | None = None, reference: str | None = "datasets/reference",
                out: str = "release", private: bool = False, dry_run: bool = False, endpoint: str | None = None,
                record_manifest: bool = False, invariance: str | None = None, scale: str | None = None,
                scale_invariance: str | None = None) -> None:
        """Build the gated Hugging Face dataset folder and upload it (create repo, upload, gate manually).

        The folder holds the core items, the invariance suite (configs invariance-<family>), the scale suite and
        its framings (configs scale-<family>, scale-invariance-<family>), the
        redistributable reference tasks only, licences, a dataset card with the access conditions, and
        MANIFEST.json (SHA-256 and size of every file). The token comes from HF_TOKEN or `hf auth login`;
        it is never printed.

        Args:
          repo_id: dataset repository ORG/NAME (not needed with --dry-run or --record-manifest alone).
          core: core items folder (default datasets/core/<version>).
          invariance: invariance suite folder drawn from --core (default datasets/invariance/<suite version>);
            "" leaves the suite out (said in the notes and the card).
          scale: scale suite folder (`dp scale`; default datasets/scale/<version> when it exists, else left out
            with a note); "" leaves it out.
          scale_invariance: its framings (`dp scale --framings`; default datasets/scale-invariance/<version> when it
            exists); "" leaves them out.
          reference: reconstructed reference items folder ("" for a core-only release).
          out: release folder to build.
          private: create the repository private (default public, gated).
          dry_run: build the folder only; upload nothing.
          endpoint: hub URL (default HF_ENDPOINT, else huggingface.co).
          record_manifest: maintainers - store the built MANIFEST.json as the package's expected
            manifest (src/decisionpivot/release/expected_manifest.json) that `dp download` verifies against, and
            the core folder's and the suite folder's MANIFEST.json as the released editions'
            (src/decisionpivot/released/) that `dp evaluate` and `dp score` check release items against.
        """
        from decisionpivot.frame.framings import SUITE_VERSION
        from decisionpivot.release.hub import build_release, upload_release
        from decisionpivot.release.manifest import expected_manifest, record_expected_manifest

        if not (repo_id or dry_run or record_manifest):
            raise DecisionPivotError("name the dataset repository with --repo-id ORG/NAME (or build only: --dry-run)")
        suite = Path("datasets") / "invariance" / SUITE_VERSION if invariance is None else reference_folder(invariance)
        from decisionpivot.scale import SCALE_VERSION
        from decisionpivot.scale.framing import FRAMED_VERSION

        def optional(value: str | None, default: Path) -> Path | None:
            return (default if default.is_dir() else None) if value is None else reference_folder(value)

        scale_dir = optional(scale, Path("datasets") / "scale" / SCALE_VERSION)
        framed_dir = optional(scale_invariance, Path("datasets") / "scale-invariance" / FRAMED_VERSION)
        built = build_release(Path(core) if core else DEFAULT_CORE_DIR, reference_folder(reference), out,
                              invariance_dir=suite, scale_dir=scale_dir, scale_invariance_dir=framed_dir)
        manifest = built.manifest
        for note in built.notes:
            print(f"note: {note}", file=sys.stderr)
        suite_families = len((manifest["invariance"] or {}).get("families", {}))
        scale_families = len((manifest.get("scale") or {}).get("families", {}))
        print(f"built {out}/ (core families: {len(manifest['core'])}, invariance suite families: {suite_families}, "
              f"scale suite families: {scale_families}, "
              f"reference tasks: {len(manifest['reference'])}, files: {len(manifest['files']) + 1}), content digest "
              f"{manifest['digest']}")
        if record_manifest:
            from decisionpivot.item_hashes import record_released_core, record_released_suite

            released = [record_released_core(Path(core) if core else DEFAULT_CORE_DIR)]
            if manifest["invariance"] and suite is not None:
                released.append(record_released_suite(Path(suite)))
            if manifest.get("scale") and scale_dir is not None:
                from decisionpivot.item_hashes import record_released_scale

                released.append(record_released_scale(Path(scale_dir)))
                if framed_dir is not None and manifest["scale"].get("framings"):
                    released.append(record_released_scale(Path(framed_dir), framed=True))
            print(f"recorded the expected manifest in {record_expected_manifest(manifest)} and the released items' "
                  f"hashes in {' and '.join(map(str, released))} (commit them)")
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
        if (Path(result.folder) / "invariance" / "MANIFEST.json").exists():
            print(f"and the invariance suite with: dp evaluate --system uniform --items {result.folder}/invariance "
                  "--runs runs-invariance")
