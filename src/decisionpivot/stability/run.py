"""`dp stability`: do rankings and scores survive a revision of the items, or a fresh draw?

Given two item sets A and B (core versions 1.1 and 1.2, or the release and a fresh draw) and the answer
folders of systems answered on both, the paper's three kinds of figures (its Table E3 and Section 5):

(a) **rank stability** - Spearman's rho between the systems' macro pair accuracy on A and on B, with a
    95% percentile interval over bootstrap resamples (rho recomputed on each resample);
(b) **score change** per system, B - A, with a 95% interval, and how many intervals include zero. When
    the item sets are *paired* (identical files, or the same item ids drawn with the same seed, as two
    versions of one draw are; a fresh draw reuses the ids but not the cases) the resamples are matched:
    the same contrast groups drawn on both sides. Otherwise they are *independent* (B's resamples are
    shuffled, so no pairing by position is implied). The report says which;
(c) **answer churn** - for item sets with identical items (two runs of one system on the same files),
    the share of individual predicted options that changed between the runs (the paper: 5.6%).

Plus, for reasoning runs, Table D5: per system the mean output tokens and the share of replies the
model ended itself (``closed``), over all items and over the **balanced subset** (``--subset
balanced``): per family, complete contrast groups only, the same number at every level (the smallest
level's count, the first groups in file order), so the figure does not lean on one level.

Both items folders are accepted by the rule of every verb that reads items (:mod:`decisionpivot.item_origin`): a file
it refuses stops the verb unless ``allow_modified_items`` (``--allow-modified-items``), and then stability.json
(``modified_items``: ``A/<family>`` or ``B/<family>`` -> what did not match), stability.md and what `dp stability`
prints say so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy.stats import rankdata, spearmanr

from decisionpivot.errors import DecisionPivotError
from decisionpivot.item_origin import modified_items, modified_note
from decisionpivot.items import atomic_write_bytes
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, paired_difference, percentile_interval
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.pipeline import LoadedRuns, load_runs, score_loaded
from decisionpivot.score.results import CORE, MACRO, UNIFORM_GUESS, Scoring

METRIC = "pair_accuracy"
SUBSETS = ("all", "balanced")


@dataclass(frozen=True)
class ScoreChange:
    """One system's macro pair accuracy on A and B and the change B - A (0-100 scale)."""

    system: str
    """System name."""
    score_a: float
    """Macro pair accuracy on A."""
    score_b: float
    """Macro pair accuracy on B."""
    change: float
    """B - A."""
    ci_low: float
    """Lower end of the 95% interval of the change."""
    ci_high: float
    """Upper end."""
    includes_zero: bool
    """The interval includes 0 (no detectable change)."""


@dataclass(frozen=True)
class ReasoningFigures:
    """Table D5 for one system on one side: reasoning length and closed replies (None when not recorded)."""

    system: str
    """System name."""
    side: str
    """``A`` or ``B``."""
    subset: str
    """``all`` or ``balanced``."""
    items: int
    """Items in the subset with a recorded token count."""
    mean_output_tokens: float | None
    """Mean output tokens over those items."""
    closed_share: float | None
    """Share of replies the model ended itself (percent)."""


@dataclass(frozen=True)
class Stability:
    """Everything `dp stability` reports."""

    resampling: str
    """``matched`` (paired item sets) or ``independent``."""
    systems: tuple[str, ...]
    """Systems scored on both sides."""
    rho: float
    """Spearman's rho of macro pair accuracy, A vs B."""
    rho_ci: tuple[float, float]
    """95% bootstrap interval of rho."""
    changes: tuple[ScoreChange, ...]
    """Per system score change."""
    churn: dict[str, float]
    """System -> share of changed predictions (percent), when A and B hold identical items."""
    reasoning: tuple[ReasoningFigures, ...]
    """Table D5 rows."""
    resamples: int
    """Bootstrap resamples."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(``A/<family>`` or ``B/<family>``, how its items file was accepted:
    :func:`decisionpivot.item_origin.accept_items_file`)."""

    @property
    def intervals_including_zero(self) -> int:
        return sum(c.includes_zero for c in self.changes)

    @property
    def modified_note(self) -> str | None:
        """The sentence every output carries when items were read only under ``--allow-modified-items``."""
        return modified_note(self.item_checks)


def balanced_subset(layout: TaskLayout) -> np.ndarray:
    """Items of the balanced subset: complete groups, the same number at every level, first in file order."""
    groups_by_level: dict[int, list[int]] = {}
    for group in dict.fromkeys(layout.group_index.tolist()):  # groups in file order
        levels = set(layout.level[layout.group_index == group].tolist())
        if len(levels) == 1:  # a contrast group sits at one level; one that does not is left out
            groups_by_level.setdefault(levels.pop(), []).append(group)
    if not groups_by_level:
        return np.zeros(layout.size, dtype=bool)
    keep = min(len(groups) for groups in groups_by_level.values())
    return np.isin(layout.group_index, [g for groups in groups_by_level.values() for g in groups[:keep]])


def _draw_seeds(items: Path) -> dict[str, object]:
    """Family -> the seed its items were drawn with (from MANIFEST.json; empty without one)."""
    try:
        manifest = json.loads((items / "MANIFEST.json").read_text(encoding="utf-8"))
        return {name: entry.get("seed") for name, entry in manifest["families"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _identical(a: LoadedRuns, b: LoadedRuns) -> bool:
    by_task = {layout.task: layout.items_sha256 for layout in b.core}
    return bool(a.core) and len(a.core) == len(b.core) \
        and all(by_task.get(layout.task) == layout.items_sha256 for layout in a.core)


def _paired(a: LoadedRuns, b: LoadedRuns, items_a: Path, items_b: Path) -> bool:
    """The same cases on both sides: identical files, or the same ids drawn with the same seed (two versions
    of one draw). A fresh draw reuses the ids but not the cases, so it is not paired."""
    if _identical(a, b):
        return True
    ids = {layout.task: layout.item_ids for layout in b.core}
    seeds_a, seeds_b = _draw_seeds(items_a), _draw_seeds(items_b)
    return bool(a.core) and len(a.core) == len(b.core) and all(
        ids.get(layout.task) == layout.item_ids and seeds_a.get(layout.task) is not None
        and seeds_a.get(layout.task) == seeds_b.get(layout.task) for layout in a.core)


def _resampled_rho(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho per resample: ``a``, ``b`` are ``(R, S)`` scores of S systems."""
    ra, rb = rankdata(a, axis=1), rankdata(b, axis=1)
    ra -= ra.mean(axis=1, keepdims=True)
    rb -= rb.mean(axis=1, keepdims=True)
    denominator = np.sqrt((ra**2).sum(axis=1) * (rb**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (ra * rb).sum(axis=1) / denominator, np.nan)


def _reasoning(loaded: LoadedRuns, side: str, systems: Sequence[str]) -> list[ReasoningFigures]:
    subsets = {layout.task: balanced_subset(layout) for layout in loaded.core}
    rows = []
    for system in systems:
        for subset in SUBSETS:
            tokens, closed = [], []
            for layout in loaded.core:
                answers = loaded.answers.get((system, layout.task))
                if answers is None:
                    continue
                mask = subsets[layout.task] if subset == "balanced" else np.ones(layout.size, dtype=bool)
                tokens.append(answers.tokens[mask])
                closed.append(answers.closed[mask])
            token_values = np.concatenate(tokens) if tokens else np.array([])
            closed_values = np.concatenate(closed) if closed else np.array([])
            present = token_values[~np.isnan(token_values)]
            shut = closed_values[~np.isnan(closed_values)]
            if not present.size and not shut.size:
                continue
            rows.append(ReasoningFigures(system, side, subset, int(present.size),
                                         float(present.mean()) if present.size else None,
                                         100 * float(shut.mean()) if shut.size else None))
    return rows


def stability(items_a: Path, runs_a: Path, items_b: Path, runs_b: Path, systems: Sequence[str] | None = None,
              resamples: int = 1000, seed: int = BOOTSTRAP_SEED, allow_modified_items: bool = False) -> Stability:
    """The figures of the module docstring for the systems answered on both sides; items files the rule of every
    verb refuses stop it unless ``allow_modified_items`` (the result then says so)."""
    loaded_a = load_runs(runs_a, items_a, None, systems, tasks=(), allow_modified_items=allow_modified_items)
    loaded_b = load_runs(runs_b, items_b, None, systems, tasks=(), allow_modified_items=allow_modified_items)
    scoring_a: Scoring = score_loaded(loaded_a, resamples, seed)
    scoring_b: Scoring = score_loaded(loaded_b, resamples, seed)
    paired = _paired(loaded_a, loaded_b, Path(items_a), Path(items_b))
    common = []
    for system in sorted(set(loaded_a.systems) & set(loaded_b.systems) - {UNIFORM_GUESS}):
        a = scoring_a.get(system, CORE, MACRO, METRIC)
        b = scoring_b.get(system, CORE, MACRO, METRIC)
        full = len(scoring_a.core_tasks)
        if a is not None and b is not None and a.n == full and b.n == len(scoring_b.core_tasks) \
                and not math.isnan(a.value) and not math.isnan(b.value):
            common.append((system, a, b))
    if len(common) < 2:
        raise DecisionPivotError(
            f"stability needs at least two systems scored on every family of both item sets; found "
            f"{[s for s, _, _ in common]} (systems on A: {list(loaded_a.systems)}, on B: {list(loaded_b.systems)})")
    order = np.arange(resamples)
    if not paired:  # independent item sets: break the positional pairing of the two sides' resamples
        order = np.random.default_rng(np.random.SeedSequence([seed, 2])).permutation(resamples)
    samples_a = np.stack([a.samples for _, a, _ in common], axis=1)
    samples_b = np.stack([b.samples[order] for _, _, b in common], axis=1)
    # rounded to 12 decimals, as confidences are: a rho of 1 must not read 0.9999999999999999
    rho = round(float(spearmanr([a.value for _, a, _ in common], [b.value for _, _, b in common]).statistic), 12)
    rho_low, rho_high = (round(v, 12) for v in percentile_interval(_resampled_rho(samples_a, samples_b)))
    changes = []
    for system, a, b in common:
        difference = paired_difference(b.value, b.samples[order], a.value, a.samples)
        changes.append(ScoreChange(system, a.value, b.value, difference.value, difference.ci_low, difference.ci_high,
                                   bool(difference.ci_low <= 0 <= difference.ci_high)))
    churn: dict[str, float] = {}
    if _identical(loaded_a, loaded_b):
        for system, _, _ in common:
            changed = total = 0
            for layout in loaded_a.core:
                first, second = loaded_a.answers[(system, layout.task)], loaded_b.answers[(system, layout.task)]
                both = ~first.failed & ~second.failed
                changed += int((first.predicted[both] != second.predicted[both]).sum())
                total += int(both.sum())
            churn[system] = 100 * changed / total if total else math.nan
    names = [s for s, _, _ in common]
    reasoning = _reasoning(loaded_a, "A", names) + _reasoning(loaded_b, "B", names)
    checks = [(f"A/{task}", how) for task, how in loaded_a.item_checks]
    checks += [(f"B/{task}", how) for task, how in loaded_b.item_checks]
    return Stability("matched" if paired else "independent", tuple(names), rho, (rho_low, rho_high),
                     tuple(changes), churn, tuple(reasoning), resamples, tuple(checks))


def _n(value: float | None, digits: int = 1) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def stability_markdown(result: Stability, label_a: str, label_b: str) -> str:
    how = ("the same contrast groups on both sides: paired item sets" if result.resampling == "matched"
           else "the item sets are not paired: independent resamples")
    note = result.modified_note
    lines = [f"# Stability: {label_a} (A) vs {label_b} (B)", "", *([f"**{note}**", ""] if note else []),
             f"Systems scored on every family of both: {len(result.systems)}. Resampling: **{result.resampling}** "
             f"({how}), {result.resamples} resamples.", "",
             f"Spearman rank correlation of macro pair accuracy: **{result.rho:.3f}** "
             f"[{_n(result.rho_ci[0], 3)}, {_n(result.rho_ci[1], 3)}]", "",
             f"Score changes (B - A) whose 95% interval includes zero: **{result.intervals_including_zero} of "
             f"{len(result.changes)}**", "",
             "| System | A | B | B - A [95% CI] |", "|---|---|---|---|"]
    for c in result.changes:
        lines.append(f"| {c.system} | {c.score_a:.1f} | {c.score_b:.1f} | {c.change:+.1f} "
                     f"[{_n(c.ci_low)}, {_n(c.ci_high)}] |")
    if result.churn:
        lines += ["", "Answers changed between the two runs on identical items (share of predicted options):", "",
                  "| System | Changed % |", "|---|---|"]
        lines += [f"| {s} | {_n(v)} |" for s, v in result.churn.items()]
    if result.reasoning:
        lines += ["", "Reasoning (Table D5): mean output tokens and share of replies the model closed itself", "",
                  "| System | Side | Subset | Items | Mean output tokens | Closed % |", "|---|---|---|---|---|---|"]
        lines += [f"| {r.system} | {r.side} | {r.subset} | {r.items} | {_n(r.mean_output_tokens)} | "
                  f"{_n(r.closed_share)} |" for r in result.reasoning]
    return "\n".join(lines) + "\n"


def write_stability(result: Stability, out: Path, label_a: str, label_b: str) -> list[Path]:
    record = {"resampling": result.resampling, "systems": list(result.systems), "rho": result.rho,
              "rho_ci": list(result.rho_ci), "intervals_including_zero": result.intervals_including_zero,
              "changes": [asdict(c) for c in result.changes], "churn": result.churn,
              "reasoning": [asdict(r) for r in result.reasoning], "resamples": result.resamples,
              "a": label_a, "b": label_b}
    if modified := modified_items(result.item_checks):
        record["modified_items"] = modified
    text = json.dumps(record, indent=2, allow_nan=True).replace("NaN", "null") + "\n"
    paths = [out / "stability.json", out / "stability.md"]
    atomic_write_bytes(paths[0], text.encode("utf-8"))
    atomic_write_bytes(paths[1], stability_markdown(result, label_a, label_b).encode("utf-8"))
    return paths
