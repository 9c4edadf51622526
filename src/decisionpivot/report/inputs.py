"""Reading what the site is built from: ``dp score``'s outputs, the core items and the answer files.

Required: ``<reports>/scores.json`` and ``scoring.json`` (``dp score``), the core items folder the
scoring read, and the runs folder with every answer file the scoring included (re-read, with the
scorer's own reader, for per-item probabilities: risk-coverage curves, reliability, pair direction and
the group browser). Optional, shown when present: ``partial.csv`` (``dp score --partial``),
``gate.json`` (``dp gate``), ``stability.json`` files (``dp stability``), option-order robustness
(recorded in ``scoring.json``). Every problem is a :class:`~decisionpivot.errors.DecisionPivotError`
naming the file.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.item_origin import accept_items_file, modified_note
from decisionpivot.report.deployment_pages import read_deployment
from decisionpivot.score.answers import TaskAnswers, read_task_answers
from decisionpivot.score.certified import answer_fingerprints, read_gate_for
from decisionpivot.score.layout import TaskLayout, read_layout
from decisionpivot.score.results import CORE, UNIFORM_GUESS

SCORE_KEYS = ("system", "track", "task", "level", "metric", "value", "ci_low", "ci_high", "n")

Key = tuple[str, str, str, int | None, str]
"""(system, track, task, level, metric) of a score record."""


@dataclass(frozen=True)
class Score:
    """One record of ``scores.json`` (0-100 scale)."""

    value: float | None
    """Point estimate, None when undefined."""
    ci_low: float | None
    """Lower end of the 95% interval, None without one."""
    ci_high: float | None
    """Upper end."""
    n: int
    """Units averaged over (items, groups, families, layers...)."""


@dataclass(frozen=True)
class Stability:
    """One ``dp stability`` result as written to its ``stability.json``."""

    path: Path
    """The file it was read from."""
    record: Mapping[str, Any]
    """Its content (``a``, ``b``, ``rho``, ``rho_ci``, ``changes``, ``churn``, ``reasoning``...)."""


@dataclass(frozen=True)
class ReportInputs:
    """Everything the site shows, read and checked."""

    reports: Path
    """The ``dp score`` output folder."""
    scores: Mapping[Key, Score]
    """Every score record by key: scores.json's, and the invariance suite's from scoring.json (track
    ``invariance``)."""
    scoring: Mapping[str, Any]
    """``scoring.json``."""
    layouts: tuple[TaskLayout, ...]
    """Core families in the scoring's order."""
    answers: Mapping[tuple[str, str], TaskAnswers]
    """(system, family) -> the answers the scoring included."""
    manifest: Mapping[str, Any] | None
    """The items folder's MANIFEST.json, if any."""
    partial: tuple[Mapping[str, Any], ...] = ()
    """Rows of ``partial.csv`` (partial, not comparable)."""
    gate: Mapping[str, Any] | None = None
    """``gate.json`` when given or found."""
    stability: tuple[Stability, ...] = ()
    """``dp stability`` results given or found."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """What each input was (for the site's footer): name -> path as given."""
    deployment: Mapping[str, Any] = field(default_factory=dict)
    """What the deployment verbs wrote under the reports folder (:mod:`decisionpivot.report.deployment_pages`)."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(family, or ``invariance/<family>``, how its items file was accepted:
    :func:`decisionpivot.item_origin.accept_items_file`); with those ``scoring.json`` records, what the site's
    footer states when items were read with ``--allow-modified-items``."""

    @property
    def modified_note(self) -> str | None:
        """The sentence every page carries when the report or the scoring it shows read items with
        ``--allow-modified-items`` (None otherwise)."""
        recorded = self.scoring.get("item_checks")
        checks = dict(recorded) if isinstance(recorded, dict) else {}
        return modified_note({**checks, **dict(self.item_checks)}.items())

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.scoring.get("systems", ()))

    @property
    def leaderboard_ranks(self) -> dict[str, str | None]:
        """System -> the rank leaderboard.md shows (None: not ranked), in its order; empty for a scoring.json
        from before `dp score` recorded them."""
        return {entry["system"]: entry.get("rank") for entry in self.scoring.get("leaderboard", ())}

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(self.scoring.get("core_tasks", ()))

    @property
    def reference_tasks(self) -> tuple[str, ...]:
        return tuple(self.scoring.get("reference_tasks", ()))

    def get(self, system: str, track: str, task: str, metric: str, level: int | None = None) -> Score | None:
        return self.scores.get((system, track, task, level, metric))

    def value(self, system: str, track: str, task: str, metric: str, level: int | None = None) -> float | None:
        score = self.get(system, track, task, metric, level)
        return None if score is None else score.value

    def layout(self, family: str) -> TaskLayout:
        return next(layout for layout in self.layouts if layout.task == family)

    def scored_families(self, system: str) -> list[str]:
        """Core families with answers included for ``system``, in the scoring's order."""
        return [f for f in self.families if (system, f) in self.answers]

    def operations(self, system: str) -> Mapping[str, Any]:
        return next((o for o in self.scoring.get("operations", ()) if o.get("system") == system), {})

    def answer_files(self, system: str) -> list[Mapping[str, Any]]:
        return [a for a in self.scoring.get("answer_files", ()) if a.get("system") == system]

    def exclusions(self, system: str) -> list[Mapping[str, Any]]:
        return [x for x in self.scoring.get("exclusions", ()) if x.get("system") == system]

    def robustness(self, system: str | None = None) -> list[Mapping[str, Any]]:
        rows = list(self.scoring.get("robustness", ()))
        return rows if system is None else [r for r in rows if r.get("system") == system]

    def partial_rows(self, system: str | None = None) -> list[Mapping[str, Any]]:
        return list(self.partial) if system is None else [r for r in self.partial if r.get("system") == system]

    def gate_system(self, system: str) -> Mapping[str, Any] | None:
        if self.gate is None:
            return None
        entry = self.gate.get("systems", {}).get(system)
        return entry if isinstance(entry, Mapping) else None

    def meta(self, system: str) -> Mapping[str, Any]:
        """The meta file of the system's first included answer file (its config, readout...), or {}."""
        for family in self.families:
            answers = self.answers.get((system, family))
            if answers is not None:
                return answers.meta
        return {}


def _number(value: Any, where: str, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DecisionPivotError(f"{where}: field {name!r}: expected a finite number or null, found {value!r}")
    return float(value)


def read_scores(path: Path) -> dict[Key, Score]:
    """``scores.json``: a list of flat records (see decisionpivot.score.report)."""
    records = read_json_file(path, "the scores `dp score` writes")
    if not isinstance(records, list):
        raise DecisionPivotError(f"{path}: expected a JSON list of score records, found {type(records).__name__}")
    return score_records(records, f"{path}: record")


def invariance_scores(scoring: Mapping[str, Any], path: Path) -> dict[Key, Score]:
    """The invariance suite's figures as ``dp score`` wrote them, in scoring.json's ``invariance`` section (the same
    flat records as scores.json, track ``invariance``); empty for a scoring without a suite."""
    section = scoring.get("invariance")
    if section is None:
        return {}
    if not isinstance(section, dict) or not isinstance(section.get("records"), list):
        raise DecisionPivotError(f"{path}: field 'invariance': expected an object with a 'records' list")
    return score_records(section["records"], f"{path}: invariance record")


def score_records(records: Sequence[Any], label: str) -> dict[Key, Score]:
    """Flat score records by key, each checked (``label`` and its number name a bad one)."""
    scores: dict[Key, Score] = {}
    for i, record in enumerate(records):
        where = f"{label} {i + 1}"
        if not isinstance(record, dict) or set(SCORE_KEYS) - set(record):
            raise DecisionPivotError(f"{where}: expected an object with keys {', '.join(SCORE_KEYS)}")
        level = record["level"]
        if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
            raise DecisionPivotError(f"{where}: field 'level': expected an integer or null, found {level!r}")
        names = [record[k] for k in ("system", "track", "task", "metric")]
        if not all(isinstance(v, str) for v in names):
            raise DecisionPivotError(f"{where}: system, track, task and metric must be strings")
        n = record["n"]
        if isinstance(n, bool) or not isinstance(n, int):
            raise DecisionPivotError(f"{where}: field 'n': expected an integer, found {n!r}")
        key = (names[0], names[1], names[2], level, names[3])
        scores[key] = Score(*(_number(record[k], where, k) for k in ("value", "ci_low", "ci_high")), n)
    return scores


def read_scoring(path: Path) -> dict[str, Any]:
    scoring = read_json_file(path, "the scoring metadata `dp score` writes")
    if not isinstance(scoring, dict):
        raise DecisionPivotError(f"{path}: expected a JSON object, found {type(scoring).__name__}")
    for key, kind in (("systems", list), ("core_tasks", list), ("reference_tasks", list), ("exclusions", list)):
        if not isinstance(scoring.get(key), kind):
            raise DecisionPivotError(f"{path}: no {key!r} list (written by an older `dp score`? score again)")
    for i, entry in enumerate(scoring.get("leaderboard", [])):
        if not (isinstance(entry, dict) and isinstance(entry.get("system"), str)
                and (entry.get("rank") is None or isinstance(entry["rank"], str))):
            raise DecisionPivotError(f"{path}: leaderboard entry {i + 1}: expected an object with a 'system' name and "
                                     "a 'rank' text or null")
    return scoring


def read_partial(path: Path) -> tuple[dict[str, Any], ...]:
    """``partial.csv`` rows with numbers parsed (empty cells None)."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DecisionPivotError(f"{path}: cannot read the partial scores ({exc})") from None
    parsed = []
    for number, row in enumerate(rows, start=2):
        out: dict[str, Any] = {}
        for key, text in row.items():
            if key in ("system", "task"):
                out[key] = text
                continue
            try:
                out[key] = None if text in ("", None) else float(text)
            except ValueError:
                raise DecisionPivotError(f"{path}:{number}: column {key!r}: expected a number, "
                                         f"found {text!r}") from None
        parsed.append(out)
    return tuple(parsed)


def read_stability(path: Path) -> Stability:
    record = read_json_file(path, "the figures `dp stability` writes")
    if not isinstance(record, dict) or not isinstance(record.get("changes"), list) or "rho" not in record:
        raise DecisionPivotError(f"{path}: expected a `dp stability` result (an object with 'rho' and 'changes')")
    return Stability(path, record)


def find_stability(reports: Path) -> list[Path]:
    """``stability.json`` files under the reports folder (``dp stability``'s default is reports/stability/)."""
    return sorted(reports.glob("stability*.json")) + sorted(reports.glob("*/stability.json"))


def _stability_file(path: Path) -> Path:
    """A ``stability.json``, or the folder ``dp stability --out`` wrote it into."""
    file = path / "stability.json" if path.is_dir() else path
    if not file.exists():
        raise DecisionPivotError(f"{file}: not found (a `dp stability` result: its stability.json or its --out folder)")
    return file


def _optional(value: str | None, default: Path) -> Path | None:
    """None/'auto': the default if it exists; '': none; else the path, which must exist."""
    if value is None:
        return default if default.exists() else None
    if str(value).strip() == "":
        return None
    path = Path(value)
    if not path.exists():
        raise DecisionPivotError(f"{path}: not found")
    return path


def _core_layouts(items: Path, families: Sequence[str], scoring_path: Path,
                  allow_modified_items: bool = False) -> tuple[list[TaskLayout], list[tuple[str, str]]]:
    """The layouts of the scored families and how each file was accepted (the rule of every verb that reads items,
    :mod:`decisionpivot.item_origin`: one it refuses stops the report unless ``allow_modified_items``)."""
    if not items.is_dir():
        raise DecisionPivotError(f"{items}: no core items folder (pass --items, the folder `dp score` read)")
    layouts, checks = [], []
    for family in families:
        path = items / f"{family}.jsonl"
        if not path.exists():
            raise DecisionPivotError(f"{path}: not found, but {scoring_path} scored family {family!r} "
                                     "(pass --items, the folder `dp score` read)")
        layout = read_layout(path)
        checks.append((family, accept_items_file(path, layout.items_sha256, allow_modified_items, family)))
        layouts.append(layout)
    return layouts, checks


def _read_answers(runs: Path, systems: Iterable[str], layouts: Sequence[TaskLayout],
                  scores: Mapping[Key, Score], scores_path: Path) -> dict[tuple[str, str], TaskAnswers]:
    answers = {}
    for system in systems:
        for layout in layouts:
            if (system, CORE, layout.task, None, "item_accuracy") not in scores:
                continue  # excluded for this system: no answers to show
            path = runs / system / f"{layout.task}.jsonl"
            if not path.exists():
                raise DecisionPivotError(f"{path}: not found, but {scores_path} has scores of {system} on "
                                         f"{layout.task} (pass --runs, the folder `dp score` read)")
            answers[(system, layout.task)] = read_task_answers(path, layout, system)
    return answers


def _manifest(items: Path) -> dict[str, Any] | None:
    path = items / "MANIFEST.json"
    if not path.exists():
        return None
    manifest = read_json_file(path, "the items manifest")
    return manifest if isinstance(manifest, dict) else None


def read_inputs(reports: str | Path = "reports", items: str | Path | None = None, runs: str | Path = "runs",
                gate: str | None = None, stability: Sequence[str] | None = None,
                partial: str | None = None, allow_modified_items: bool = False) -> ReportInputs:
    """Read and check every input; ``gate``/``partial`` None look in ``reports`` (an empty string: none),
    ``stability`` None finds ``stability*.json`` and ``*/stability.json`` there (an empty list: none)."""
    reports = Path(reports)
    if not reports.is_dir():
        raise DecisionPivotError(f"{reports}: no reports folder (run `dp score` first, or pass --reports)")
    scores_path, scoring_path = reports / "scores.json", reports / "scoring.json"
    scores = read_scores(scores_path)
    scoring = read_scoring(scoring_path)
    if items is None:
        raise DecisionPivotError("no core items folder given (--items)")
    items = Path(items)
    layouts, checks = _core_layouts(items, scoring["core_tasks"], scoring_path, allow_modified_items)
    runs = Path(runs)
    if layouts and not runs.is_dir():
        raise DecisionPivotError(f"{runs}: no runs folder (pass --runs, the folder `dp score` read)")
    systems = [s for s in scoring["systems"] if s != UNIFORM_GUESS]
    answers = _read_answers(runs, systems, layouts, scores, scores_path)
    gate_path = _optional(gate, reports / "gate.json")
    partial_path = _optional(partial, reports / "partial.csv")
    if stability is None:
        stability_paths = find_stability(reports)
    else:
        stability_paths = [_stability_file(Path(s)) for s in stability if str(s).strip()]
    sources = {"reports": str(reports), "items": str(items), "runs": str(runs)}
    gate_record = None
    if gate_path is not None:
        sources["gate"] = str(gate_path)
        gate_record = read_gate_for(gate_path, {layout.task: layout.items_sha256 for layout in layouts},
                                    answer_fingerprints(answers))
    return ReportInputs(
        reports=reports,
        scores={**scores, **invariance_scores(scoring, scoring_path)},
        scoring=scoring,
        layouts=tuple(layouts),
        answers=answers,
        manifest=_manifest(items),
        partial=read_partial(partial_path) if partial_path is not None else (),
        gate=gate_record,
        stability=tuple(read_stability(p) for p in stability_paths),
        sources=sources,
        deployment=read_deployment(reports),
        item_checks=tuple(checks),
    )

