"""From scores to a deployment decision: recalibrate, cost, monitor (``dp compare --baseline`` is in scoring).

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

from decisionpivot._cli.arguments import DEFAULT_CORE_DIR, name_list
from decisionpivot._cli.pipeline_outputs import default_out
from decisionpivot.errors import DecisionPivotError
from decisionpivot.user_files import FRACTION, PRICE, RESAMPLES


class DeploymentVerbs:
    """From scores to a deployment decision."""

    def recalibrate(self, action: Literal["fit", "apply"] = "fit", runs: str = "runs", items: str | None = None,
                    calibration_runs: str = "runs-calibration", calibration_items: str = "datasets/fresh",
                    seeds: str | Sequence[str] | None = None, systems: str | Sequence[str] | None = None,
                    target_risk: Annotated[float, FRACTION.check] = 0.05,
                    delta: Annotated[float, FRACTION.check] = 0.10, resamples: Annotated[int, RESAMPLES.check] = 200,
                    out: str | None = None, map: str | None = None, answers: str | None = None,
                    csv: str | None = None, method: Literal["isotonic", "temperature", "none"] | None = None,
                    allow_modified_items: bool = False) -> None:
        """Fit temperature scaling and isotonic recalibration on fresh draws and measure them on the release;
        or apply a fitted map.

        `dp recalibrate` (fit): per system under --runs, both maps are fitted on half of the contrast groups of
        the calibration draws (runs-calibration/seed-N/, never the release); the release ECE, accuracy and share
        at confidence >= 0.90 and the certified coverage (`dp gate`'s test on the other half, checked on the
        release) are reported before and after. Writes <out>/recalibration.md, recalibration.json and
        maps/<system>.json (the map, versioned, with the draws it was fitted on; default out reports/recalibrate).

        `dp recalibrate apply --map M.json --answers runs/S --out S.csv` writes each answer's recalibrated
        confidence (task, id, predicted, confidence, recalibrated_confidence); `--csv traffic.csv` instead adds a
        recalibrated_confidence column to a CSV with a confidence column (isotonic maps, or two-option items).

        Args:
          action: fit (default) or apply.
          runs: release answer folders, one per system (measured on, never fitted on).
          items: release core items folder (default datasets/core/<version>); for apply --answers, their items.
          calibration_runs: folder of seed-N/<system>/ answer folders on the calibration draws.
          calibration_items: folder of the calibration draws' seed-N/ items folders.
          seeds: comma-separated calibration seeds (default: every seed-N folder under calibration_runs).
          systems: comma-separated systems (default: every folder under runs).
          target_risk: risk target of the certified coverage (a fraction).
          delta: allowed failure probability of the certification (a fraction).
          resamples: bootstrap resamples of the release check.
          out: output folder (fit; default reports/recalibrate) or CSV file (apply; default: print).
          map: apply: the map file (maps/<system>.json).
          answers: apply: an answer folder RUNS/<system> to recalibrate.
          csv: apply: a CSV file with a confidence column to recalibrate.
          method: apply: the map to use (default: the file's recommended one).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so (apply --answers: a last column modified_items). Without it such a file
            stops dp recalibrate.
        """
        if action == "apply":
            _apply_map(map, answers, csv, Path(items) if items else DEFAULT_CORE_DIR, out, method,
                       bool(allow_modified_items))
            return
        from decisionpivot.gate.calibration import parse_seeds
        from decisionpivot.recalibrate.report import recalibration_markdown, write_recalibration
        from decisionpivot.recalibrate.run import recalibrate_runs

        out = default_out("recalibrate", out, "reports/recalibrate")
        chosen = parse_seeds(name_list(seeds), Path(calibration_runs))
        result = recalibrate_runs(Path(runs), Path(items) if items else DEFAULT_CORE_DIR, Path(calibration_runs),
                                  Path(calibration_items), chosen, name_list(systems), float(target_risk),
                                  float(delta), int(resamples), allow_modified_items=bool(allow_modified_items))
        print(recalibration_markdown(result))
        for path in write_recalibration(result, Path(out)):
            print(f"wrote {path}")


def _apply_map(map_path: str | None, answers: str | None, csv_path: str | None, items: Path, out: str | None,
               method: str | None, allow_modified_items: bool = False) -> None:
    from decisionpivot.recalibrate.apply import apply_to_answers, apply_to_csv
    from decisionpivot.recalibrate.map_file import read_map

    if map_path is None or (answers is None) == (csv_path is None):
        raise DecisionPivotError("recalibrate apply needs --map M.json and one of --answers RUNS/S or --csv FILE")
    mapping = read_map(map_path, method)
    text = (apply_to_answers(mapping, Path(answers), items, allow_modified_items) if answers
            else apply_to_csv(mapping, Path(str(csv_path))))
    if out is None:
        print(text, end="")
        return
    from decisionpivot.items import atomic_write_bytes

    atomic_write_bytes(Path(out), text.encode("utf-8"))
    print(f"wrote {out}")


class CostVerb:
    """What automation costs (a separate class only to keep each verb's imports beside it)."""

    def cost(self, runs: str = "runs", items: str | None = None, costs: str | None = None,
             cost_wrong: Annotated[float | None, PRICE.check] = None,
             cost_escalated: Annotated[float | None, PRICE.check] = None, gate: str | None = None,
             systems: str | Sequence[str] | None = None, out: str | None = None,
             allow_modified_items: bool = False) -> None:
        """Expected cost per 1,000 decisions against the confidence threshold, per system and family.

        An item is automated when the system's confidence is at least the threshold and costs --cost-wrong when
        its answer is wrong; every other item is escalated and costs --cost-escalated. Reports the minimum-cost
        threshold (retrospective: chosen with these answers' labels) and the cost at the threshold `dp gate`
        certified (--gate). Writes <out>/cost.md, cost.json and figures/cost-<system>.svg.

        Args:
          runs: answer folders, one per system.
          items: core items folder (default datasets/core/<version>).
          costs: YAML cost file: `wrong: 50`, `escalated: 2`, optional `families: {policy_case: {wrong: 200}}`.
          cost_wrong: cost of one wrong automated decision, 0 to 1e12 (wins over the file).
          cost_escalated: cost of one escalated item, 0 to 1e12 (wins over the file).
          gate: `dp gate`'s gate.json, for the certified thresholds (default: none); refused when made from
            other answers or items.
          systems: comma-separated systems (default: every folder under runs).
          out: output folder (default reports/cost).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so. Without it such a file stops dp cost.
        """
        from decisionpivot.cost.report import cost_markdown, write_cost
        from decisionpivot.cost.run import cost_runs, read_prices
        from decisionpivot.score.scale import score_items_note

        if note := score_items_note(items):
            print(f"note: {note}")

        out = default_out("cost", out, "reports/cost")
        prices = read_prices(Path(costs) if costs else None, cost_wrong, cost_escalated)
        entries = cost_runs(Path(runs), Path(items) if items else DEFAULT_CORE_DIR, prices,
                            Path(gate) if gate else None, name_list(systems), bool(allow_modified_items))
        print(cost_markdown(entries, gate))
        for path in write_cost(entries, Path(out), gate):
            print(f"wrote {path}")


class MonitorVerb:
    """Re-check a certificate after deployment."""

    def monitor(self, certificate: str, answers: str | None = None, items: str | None = None,
                csv: str | None = None, alpha: Annotated[float, FRACTION.check] = 0.05, map: str | None = None,
                out: str | None = None, allow_modified_items: bool = False) -> None:
        """Apply a `dp gate` certificate to a labelled sample of the team's own traffic; exit 1 when the certified
        risk is exceeded with confidence.

        Per family of the sample: the items at or above the certified threshold are automated; the realised
        risk (errors among them) and coverage are reported with exact (Clopper-Pearson) 95% intervals, and the
        certified risk counts as exceeded when the one-sided exact binomial test of risk > target rejects at
        alpha. Writes <out>/monitor.md and monitor.json when --out is given.

        Args:
          certificate: `dp gate`'s reports/gate/<system>.json.
          answers: labelled sample as answer files RUNS/<system>/<family>.jsonl (with --items), of the
            configuration the certificate certified (their .meta.json fingerprint).
          items: the labelled items those answers answer (default datasets/core/<version>).
          csv: labelled sample as a CSV with columns confidence, correct (0/1) and optionally family and id
            (no other column; each id once).
          alpha: level of the exceedance test (a fraction).
          map: a `dp recalibrate` map applied to the confidences first: required when the certificate was made on
            recalibrated confidences (`dp gate --recalibration`), and then the very map it records (SHA-256).
          out: folder for monitor.md and monitor.json (default: print only).
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            every output then says so. Without it such a file stops dp monitor.
        """
        import json

        from decisionpivot.items import atomic_write_bytes
        from decisionpivot.monitor.run import (
            Sample,
            check_configuration,
            check_map,
            monitor,
            monitoring_markdown,
            monitoring_record,
            read_answers_sample,
            read_certificate,
            read_csv_sample,
        )

        if (answers is None) == (csv is None):
            raise DecisionPivotError("monitor needs one labelled sample: --answers RUNS/<system> or --csv FILE")
        cert = read_certificate(Path(certificate))
        if answers is not None:
            samples, fingerprints = read_answers_sample(Path(answers), Path(items) if items else DEFAULT_CORE_DIR,
                                                        bool(allow_modified_items))
            check_configuration(cert, fingerprints, str(answers))
        else:
            samples = read_csv_sample(Path(str(csv)), cert.thresholds)
        mapping = None
        if map is not None:
            from decisionpivot.recalibrate.map_file import read_map

            mapping = read_map(map)
        check_map(cert, map, None if mapping is None else mapping.sha256)
        if mapping is not None:
            from decisionpivot.recalibrate.map_file import recalibrated_confidence

            samples = [Sample(s.family, recalibrated_confidence(mapping, s.confidence, s.probabilities, s.option_count),
                              s.correct, items_check=s.items_check) for s in samples]
        result = monitor(cert, samples, str(answers or csv), float(alpha), map)
        print(monitoring_markdown(result))
        if out is not None:
            folder = Path(out)
            atomic_write_bytes(folder / "monitor.md", monitoring_markdown(result).encode("utf-8"))
            atomic_write_bytes(folder / "monitor.json", (json.dumps(monitoring_record(result), indent=2,
                                                                     sort_keys=True, allow_nan=False) + "\n").encode())
            print(f"wrote {folder / 'monitor.md'}\nwrote {folder / 'monitor.json'}")
        if result.exceeded:
            raise SystemExit(1)
