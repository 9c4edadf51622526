"""From answers to figures: score, compare, stability, gate, report.

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from decisionpivot._cli.arguments import DEFAULT_CORE_DIR, name_list, reference_folder
from decisionpivot._cli.pipeline_outputs import default_out
from decisionpivot.errors import DecisionPivotError

DEFAULT_SCORE_OUT = "reports"
"""`dp score`'s and `dp gate`'s output folder when --out is not given."""


class ScoringVerbs:
    """From answers to figures."""

    def score(self, runs: str = "runs", items: str | None = None, reference: str | None = "datasets/reference",
              out: str | None = None, systems: str | Sequence[str] | None = None, resamples: int = 1000,
              figures: bool = True, partial: bool = False, allow_modified_items: bool = False,
              gate: str | None = None, invariance: str | None = None,
              invariance_runs: str = "runs-invariance", scale: str | None = None,
              scale_runs: str = "runs-scale", scale_invariance: str | None = None,
              scale_invariance_runs: str = "runs-scale-invariance") -> None:
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
          out: output folder (default reports; refused when reports/ holds the DVC pipeline's outputs of `dp score`
            as dvc.lock records them, which a quick try would replace: then name it, --out reports to replace them
            or another folder to keep them; your own earlier scores there are replaced).
          systems: comma-separated system names (default: every folder under runs).
          resamples: bootstrap resamples per interval (seed 20261007; recorded in the outputs).
          figures: also draw the figures.
          partial: also score tasks below 99% coverage on their answered items only, in
            <out>/partial.md ("partial, not comparable": for quick tries such as `dp evaluate --limit 20`).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so. Without it such a file stops the scoring.
            Reference items: their verified task card's SHA-256.
          gate: gate.json of `dp gate` (e.g. reports/gate.json): adds the leaderboard column "Cert. cov.",
            coverage at thresholds certified on fresh draws, beside the retrospective C(0.05). Default: none.
          invariance: an invariance suite's items folder (e.g. datasets/invariance/1.1): its metrics (robust pair
            accuracy, flip rate, negation coherence, steering success, request interference, accuracy per framing)
            go into scoring.json's "invariance" section, <out>/invariance.md/.csv and two leaderboard columns.
            A suite given as --items is scored the same way. Default: none.
          invariance_runs: the suite's answer files, one sub-folder per system (`dp evaluate --items <suite>
            --runs runs-invariance`).
          scale: the scale suite's items folder (`dp scale`, e.g. datasets/scale/1.0): its score-question metrics
            (pair accuracy, ordinal pair direction, exact and within-one accuracy, errors in levels, kappa, ranked
            probability score, score confidence) go into scores.json (track "scale"), scoring.json's "scale"
            section and <out>/scale_leaderboard.md/.csv, scale_families.md and scale.csv. A scale folder given as
            --items is scored alone (its answers under --runs). Default: none.
          scale_runs: the scale suite's answer files, one sub-folder per system (`dp evaluate --items <scale suite>
            --runs runs-scale`).
          scale_invariance: the scale suite's framings (`dp scale --framings`, e.g. datasets/scale-invariance/1.0):
            robust pair accuracy, flip rate and position share (a reversed scale answered by position) join the
            scale leaderboard, every metric per framing in <out>/scale_invariance.md/.csv. Default: none.
          scale_invariance_runs: their answer files, one sub-folder per system (default runs-scale-invariance).
        """
        from decisionpivot.reconstruct.scoring import register_card_tasks
        from decisionpivot.score.pipeline import is_scale_folder, score_runs
        from decisionpivot.score.report import leaderboard_markdown
        from decisionpivot.score.scale import leaderboard_markdown as scale_leaderboard

        out = default_out("score", out, DEFAULT_SCORE_OUT)
        if items and is_scale_folder(items):
            scored = score_runs(runs, items, None, out, name_list(systems), int(resamples), figures=False,
                                allow_modified_items=bool(allow_modified_items),
                                scale_invariance=scale_invariance or None,
                                scale_invariance_runs=scale_invariance_runs)
            print(scale_leaderboard(scored.scale, dict(scored.scale_readouts)))
            return
        reference_dir = reference_folder(reference)
        if reference_dir is not None and not Path(reference_dir).is_dir():
            if reference_dir != "datasets/reference":  # named on the command line: a typo must not pass silently
                raise DecisionPivotError(f"--reference {reference_dir}: no such folder of reference items "
                                         '(`--reference ""` scores the core families only)')
            reference_dir = None  # the default folder, before any `dp reconstruct`: core families only
        if reference_dir is not None:
            register_card_tasks(reference_dir)
        tasks = None if reference_dir is not None else ()  # () = no reference tasks, not even registered ones
        folder = Path(items) if items else DEFAULT_CORE_DIR
        chosen = name_list(systems)
        scoring = score_runs(runs, folder, reference_dir, out, chosen, int(resamples), tasks=tasks,
                             figures=bool(figures), partial=bool(partial),
                             allow_modified_items=bool(allow_modified_items), gate=gate,
                             invariance=invariance or None, invariance_runs=invariance_runs,
                             scale=scale or None, scale_runs=scale_runs,
                             scale_invariance=scale_invariance or None, scale_invariance_runs=scale_invariance_runs)
        print(leaderboard_markdown(scoring))
        if scoring.partial:
            from decisionpivot.score.partial import partial_markdown

            print(partial_markdown(list(scoring.partial)))
        for warning in scoring.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        short = [x for x in scoring.exclusions if x.reason != "no answer file"]
        if short and not partial:
            print(f"note: {len(short)} task(s) left out for answering too few items (a `dp evaluate --limit` "
                  "run, or an unfinished one); `dp score --partial` scores them on their answered items in "
                  "partial.md (partial, not comparable)", file=sys.stderr)
        print(f"wrote {out}/")

    def compare(self, system_a: str | None = None, system_b: str | None = None, runs: str = "runs",
                items: str | None = None, reference: str | None = "datasets/reference", resamples: int = 1000,
                allow_modified_items: bool = False, baseline: str | None = None, candidate: str | None = None,
                alpha: float = 0.05, min_effect: float = 0.0, out: str | None = None) -> None:
        """Paired differences A - B with 95% intervals from matched bootstrap resamples; or, with --baseline and
        --candidate, what an upgrade fixes and breaks.

        `dp compare --baseline runs/A --candidate runs/B`: per family and overall, the items and contrast groups
        fixed and broken, an exact McNemar test on the groups per family with Holm's correction across families
        and the paired bootstrap of pair accuracy. Exit status: 0 passes (not significantly worse on any family);
        1 fails (significantly worse on a family: Holm-adjusted p <= alpha, more groups worse than better, a drop
        of at least min_effect points of item accuracy); 3 cannot pass (no family is worse, but a family one side
        has answers to could not be compared: the other side has none, or fewer than 99% of its items); 2 bad
        input.

        Args:
          system_a: first system (folder under runs).
          system_b: second system.
          baseline: answer folder of the deployed system (RUNS/<system>); with --candidate.
          candidate: answer folder of the system that would replace it.
          alpha: family-wise level of the test across families (with --baseline; a fraction).
          min_effect: smallest drop of item accuracy, in points (0 to 100), that fails (with --baseline).
          out: folder for compare.json and compare.md (with --baseline; default: print only).
          runs: folder of answer files.
          items: core items folder (default datasets/core/<version>).
          reference: folder of reference task items (`--reference ""`: none).
          resamples: bootstrap resamples.
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so. Without it such a file stops the comparison.
        """
        from decisionpivot.score.scale import score_items_note

        if note := score_items_note(items):
            print(f"note: {note}")
        if baseline is not None or candidate is not None:
            _compare_folders(baseline, candidate, system_a, items, resamples, alpha, min_effect, out,
                             bool(allow_modified_items))
            return
        if system_a is None or system_b is None:
            raise DecisionPivotError("compare needs SYSTEM_A SYSTEM_B, or --baseline RUNS/A --candidate RUNS/B")
        from decisionpivot.reconstruct.scoring import register_card_tasks
        from decisionpivot.score.pipeline import compare_runs, format_comparison

        reference_dir = reference_folder(reference)
        if reference_dir is not None:
            register_card_tasks(reference_dir)
        folder = Path(items) if items else DEFAULT_CORE_DIR
        rows, notes = compare_runs(str(system_a), str(system_b), runs, folder, reference_dir, int(resamples),
                                   tasks=None if reference_dir is not None else (),
                                   allow_modified_items=bool(allow_modified_items))
        print(format_comparison(str(system_a), str(system_b), rows, notes))

    def stability(self, items_a: str, runs_a: str, items_b: str, runs_b: str,
                  systems: str | Sequence[str] | None = None, resamples: int = 1000,
                  out: str | None = None, allow_modified_items: bool = False) -> None:
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
          out: output folder (default reports/stability).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            stability.json, stability.md and stderr then say so. Without it such a file stops dp stability.
        """
        from decisionpivot.stability.run import stability, stability_markdown, write_stability

        out = default_out("stability", out, "reports/stability")
        chosen = name_list(systems)
        result = stability(Path(items_a), Path(runs_a), Path(items_b), Path(runs_b), chosen, int(resamples),
                           allow_modified_items=bool(allow_modified_items))
        if result.modified_note:
            print(f"note: {result.modified_note}", file=sys.stderr)
        print(stability_markdown(result, str(items_a), str(items_b)))
        for path in write_stability(result, Path(out), str(items_a), str(items_b)):
            print(f"wrote {path}")

    def gate(self, runs: str = "runs", items: str | None = None, calibration_runs: str = "runs-calibration",
             calibration_items: str = "datasets/fresh", seeds: str | Sequence[str] | None = None,
             target_risk: float | None = None, delta: float | None = None,
             systems: str | Sequence[str] | None = None, out: str | None = None, resamples: int | None = None,
             params: str | None = None, recalibration: str | None = None,
             allow_modified_items: bool = False) -> None:
        """Certify a confidence threshold per system and family on fresh draws; check it on the release.

        With probability >= 1 - delta over the calibration draws, the error rate among the items a system
        decides alone (confidence >= threshold) is at most target_risk (Learn then Test, Angelopoulos et
        al. 2021; binomial tail p-values, fixed-sequence testing down a fixed grid of thresholds from the
        start a pilot split of the groups chooses, one member per contrast group). "do not automate" when no
        threshold is certified; "refused" when a draw's answers cover less than 99% of its items or come from
        another configuration than the release answers (fingerprints). Draws must be fresh and independent
        (no item state shared with another draw or the release; one folder per seed) and drawn to the
        release's plan by its generators: this package draws each again with its recorded seed and compares.
        Writes <out>/gate.md, <out>/gate.json and <out>/gate/<system>.json; docs/gate-guarantee.md states the
        guarantee's assumptions and scope.
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
          systems: comma-separated systems (default: the params file's gate.systems, else every folder under runs).
          out: output folder (default reports; refused, as for `dp score`, when the DVC pipeline's gate outputs
            are there).
          resamples: bootstrap resamples of the release intervals (seed 20261007, as dp score; default 1000).
          params: YAML file whose `gate:` section gives seeds, target_risk, delta, resamples and systems (the DVC
            stage passes params.yaml); flags given on the command line win.
          recalibration: a `dp recalibrate` map file (maps/<system>.json; gate only its system), or a folder of
            them (<system>.json or maps/<system>.json): certify and check on recalibrated confidences. Refused
            when a map was fitted on any of the calibration draws; its SHA-256 goes into the certificate.
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so. Without it such a file stops the gating.
        """
        from decisionpivot.gate.report import gate_summary, write_gate
        from decisionpivot.gate.run import gate_runs, gated_systems, resolve_settings
        from decisionpivot.score.scale import score_items_note

        if note := score_items_note(items):
            print(f"note: {note}")

        out = default_out("gate", out, DEFAULT_SCORE_OUT)
        chosen, settings = resolve_settings(Path(params) if params else None, name_list(seeds), target_risk, delta,
                                            resamples, Path(calibration_runs))
        gating = gate_runs(Path(runs), Path(items) if items else DEFAULT_CORE_DIR, Path(calibration_runs),
                           Path(calibration_items), chosen, settings,
                           gated_systems(Path(params) if params else None, name_list(systems)),
                           recalibration=Path(recalibration) if recalibration else None,
                           allow_modified_items=bool(allow_modified_items))
        print(gate_summary(gating))
        for path in write_gate(gating, Path(out)):
            print(f"wrote {path}")

    def report(self, reports: str = "reports", items: str | None = None, runs: str = "runs", out: str | None = None,
               gate: str | None = None, stability: str | None = None,
               partial: str | None = None, invariance: str | None = None,
               invariance_runs: str = "runs-invariance", allow_modified_items: bool = False,
               scale: str | None = None, scale_runs: str = "runs-scale") -> None:
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
          out: folder of the site (default <reports>/site, refused when it is the DVC pipeline's site); replaced
            whole, and only if dp report wrote it.
          gate: `dp gate`'s gate.json (default <reports>/gate.json if present; --gate "" for none).
          stability: comma-separated `dp stability` results (stability.json files or their folders;
            default every <reports>/stability*.json and <reports>/*/stability.json; --stability "" for none).
          partial: `dp score --partial`'s partial.csv (default <reports>/partial.csv if present; "" for none).
          invariance: an invariance suite's items folder (scored with `dp score --invariance`): adds the framing
            view (framings.html: each group's plain and framed members side by side). A suite given as --items
            gets it too. Default: none.
          invariance_runs: the suite's answer files (default runs-invariance).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every page's footer then says so. Without it such a file stops the report.
          scale: the scale suite's items folder (scored with `dp score --scale`): adds scale.html (its leaderboard
            and families) and scale/<family>.html (its contrast groups with the scale). Default: none.
          scale_runs: the scale suite's answer files (default runs-scale).
        """
        from decisionpivot.report.site import report_site

        out = default_out("report", out, str(Path(reports) / "site"))
        built = report_site(reports, items if items else DEFAULT_CORE_DIR, runs, out, gate, stability, partial,
                            invariance=invariance or None, invariance_runs=invariance_runs,
                            allow_modified_items=bool(allow_modified_items), scale=scale or None,
                            scale_runs=scale_runs)
        print(f"wrote {built.out}/ ({built.pages} pages, {built.files} files, {built.bytes / 1e6:.1f} MB); "
              f"open {built.out}/index.html")


def _compare_folders(baseline: str | None, candidate: str | None, system: str | None, items: str | None,
                     resamples: int, alpha: float, min_effect: float, out: str | None,
                     allow_modified_items: bool = False) -> None:
    """`dp compare --baseline --candidate` (decisionpivot.compare); exits 1 when the candidate is worse, 3 when a
    family could not be compared."""
    from decisionpivot.compare.report import comparison_markdown, write_comparison
    from decisionpivot.compare.run import EXIT_CODES, compare_folders

    if baseline is None or candidate is None or system is not None:
        raise DecisionPivotError("compare: give both --baseline RUNS/A and --candidate RUNS/B (and no system names)")
    comparison = compare_folders(baseline, candidate, Path(items) if items else DEFAULT_CORE_DIR, float(alpha),
                                 float(min_effect), int(resamples), allow_modified_items=allow_modified_items)
    print(comparison_markdown(comparison))
    if out is not None:
        for path in write_comparison(comparison, Path(out)):
            print(f"wrote {path}")
    if EXIT_CODES[comparison.verdict]:
        raise SystemExit(EXIT_CODES[comparison.verdict])
