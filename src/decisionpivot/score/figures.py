"""Figures of a scoring, PNG and SVG, drawn with matplotlib's Agg backend (no display needed).

* ``risk_coverage`` - per core family, each system's risk-coverage curve (prefixes at tie boundaries)
  with the 5% risk target;
* ``reliability`` - per system, accuracy against mean confidence in 15 equal-width bins (pooled core
  items), with the ECE;
* ``pair_direction`` - per system, p+ against p- for every binary pair (above the diagonal: correct
  direction; upper-left quadrant: both members correct);
* ``family_heatmap`` - pair accuracy per system and family.

Output is deterministic (fixed SVG hash salt, no dates in the metadata).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from decisionpivot.score import metrics
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.results import CORE, MACRO, Scoring

FORMATS = ("png", "svg")
TITLE_WIDTH = 26
"""Characters per line of a panel title (longer system names wrap at their dots, dashes or underscores)."""
STYLES = ("-", "--", ":", "-.")


def wrapped(name: str, width: int = TITLE_WIDTH) -> str:
    """``name`` broken after a '.', '-' or '_' into lines of at most ``width`` characters where it can be."""
    lines, current = [], ""
    for piece in re.findall(r"[^._-]+[._-]?", name) or [name]:
        if current and len(current) + len(piece) > width:
            lines.append(current)
            current = ""
        current += piece
    return "\n".join([*lines, current])


def _style(index: int, total: int) -> dict[str, Any]:
    """Colour and dash of curve ``index`` of ``total``: 20 colours, then the next dash pattern."""
    colours = plt.cm.tab20(np.linspace(0, 1, 20, endpoint=False)) if total > 10 else plt.cm.tab10(np.arange(10))
    return {"color": colours[index % len(colours)], "linestyle": STYLES[(index // len(colours)) % len(STYLES)]}


def _save(figure: plt.Figure, folder: Path, name: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in FORMATS:
        path = folder / f"{name}.{fmt}"
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        figure.savefig(path, format=fmt, dpi=110, metadata=metadata)
        paths.append(path)
    plt.close(figure)
    return paths


def _panels(
    count: int, columns: int, size: float = 3.0, shared: bool = False
) -> tuple[plt.Figure, list[plt.Axes]]:
    """A grid of ``count`` panels; ``shared`` panels (same axes everywhere) label only the outer ones."""
    columns = max(1, min(columns, count))
    rows = max(1, math.ceil(count / columns))
    figure, axes = plt.subplots(
        rows, columns, figsize=(size * columns, size * rows), squeeze=False, sharex=shared, sharey=shared
    )
    flat = list(axes.ravel())
    for ax in flat[count:]:
        ax.set_visible(False)
    return figure, flat[:count]


def _space_shared_panels(figure: plt.Figure, title: str) -> None:
    """Title and fixed spacing for grids of shared-axis panels (tight_layout costs seconds on 40)."""
    height, width = figure.get_figheight(), figure.get_figwidth()
    figure.suptitle(title, y=1 - 0.2 / height)
    figure.subplots_adjust(
        left=0.7 / width,
        right=1 - 0.2 / width,
        bottom=0.7 / height,
        top=1 - 0.75 / height,
        wspace=0.15,
        hspace=0.55,
    )
    visible = [ax for ax in figure.axes if ax.get_visible()]
    for ax in visible:
        ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"])
        ax.label_outer()
    for ax in visible[-visible[0].get_gridspec().ncols :]:  # the lowest panel of each column
        ax.tick_params(labelbottom=True)
        ax.xaxis.get_label().set_visible(True)


def risk_coverage_figure(
    layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers], systems: Sequence[str]
) -> plt.Figure:
    figure, axes = _panels(len(layouts), 4)
    handles: dict[str, Any] = {}
    for ax, layout in zip(axes, layouts, strict=True):
        for index, system in enumerate(systems):
            a = answers.get((system, layout.task))
            if a is None:
                continue
            coverage, risk = metrics.risk_coverage_curve(a.confidence, a.correct)
            [line] = ax.step(
                np.r_[0.0, coverage],
                np.r_[risk[0] if risk.size else 0.0, risk],
                where="post",
                linewidth=0.9,
                label=system,
                **_style(index, len(systems)),
            )
            handles.setdefault(system, line)
        ax.axhline(metrics.RISK_TARGET, color="black", linestyle=(0, (1, 2)), linewidth=1.0)
        ax.set(title=layout.task, xlim=(0, 1), ylim=(0, None), xlabel="coverage", ylabel="risk")
    figure.tight_layout()
    height = figure.get_figheight()
    columns = 4 if len(handles) > 8 else 2
    extra = (0.22 * math.ceil(len(handles) / columns) + 0.3) if handles else 0.0
    figure.set_figheight(height + extra + 0.4)
    total = figure.get_figheight()
    figure.suptitle("Risk-coverage curves per family (black dotted line: 5% risk)", y=1 - 0.15 / total)
    figure.subplots_adjust(bottom=(extra + 0.55) / total, top=1 - 0.75 / total)
    if handles:  # every system named, below the panels, however many there are
        figure.legend([handles[s] for s in systems if s in handles], [s for s in systems if s in handles],
                      loc="lower center", ncol=columns, fontsize=7, frameon=False)
    return figure


def _pooled(
    layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers], system: str
) -> tuple[np.ndarray, np.ndarray]:
    parts = [answers[(system, layout.task)] for layout in layouts if (system, layout.task) in answers]
    if not parts:
        return np.zeros(0), np.zeros(0, bool)
    return np.concatenate([a.confidence for a in parts]), np.concatenate([a.correct for a in parts])


def reliability_figure(
    layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers], systems: Sequence[str]
) -> plt.Figure:
    figure, axes = _panels(len(systems), 5, size=2.4, shared=True)
    edges = np.linspace(0, 1, metrics.CALIBRATION_BINS + 1)
    for ax, system in zip(axes, systems, strict=True):
        confidence, correct = _pooled(layouts, answers, system)
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle=":")
        if confidence.size:
            count, _, accuracy = metrics.reliability_bins(confidence, correct)
            filled = count > 0
            ax.bar(
                edges[:-1][filled],
                accuracy[filled],
                width=np.diff(edges)[filled],
                align="edge",
                color="steelblue",
                edgecolor="white",
            )
            ece = 100 * float(metrics.expected_calibration_error(confidence, correct))
            ax.text(0.03, 0.9, f"ECE {ece:.1f}", transform=ax.transAxes, fontsize=8)
        ax.set(title=wrapped(system), xlim=(0, 1), ylim=(0, 1), xlabel="confidence", ylabel="accuracy")
        ax.title.set_fontsize(8)
    _space_shared_panels(figure, "Reliability diagrams (pooled core items, 15 bins)")
    return figure


def pair_direction_figure(
    layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers], systems: Sequence[str]
) -> plt.Figure:
    figure, axes = _panels(len(systems), 5, size=2.4, shared=True)
    for ax, system in zip(axes, systems, strict=True):
        plus, minus = [], []
        for layout in layouts:
            a = answers.get((system, layout.task))
            if a is None or not layout.pairs.size:
                continue
            column = layout.pair_positive_column
            plus.append(a.probabilities[layout.pairs[:, 0], column])
            minus.append(a.probabilities[layout.pairs[:, 1], column])
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8)
        ax.axhline(0.5, color="grey", linewidth=0.5, linestyle=":")
        ax.axvline(0.5, color="grey", linewidth=0.5, linestyle=":")
        if plus:
            p, m = np.concatenate(plus), np.concatenate(minus)
            ax.scatter(
                m,
                p,
                s=3,
                alpha=0.35,
                color=np.where(p > m, "seagreen", "crimson"),
                linewidths=0,
                rasterized=True,
            )  # thousands of points: an image inside the SVG
            ax.text(0.5, 0.04, f"p+ > p-: {100 * float(np.mean(p > m)):.1f}%", fontsize=7)
        ax.set(title=wrapped(system), xlim=(0, 1), ylim=(0, 1), xlabel="p- (gold no)", ylabel="p+ (gold yes)")
        ax.title.set_fontsize(8)
    _space_shared_panels(figure, "Pair direction: p(yes) on the yes member against the no member")
    return figure


def family_heatmap_figure(scoring: Scoring, systems: Sequence[str]) -> plt.Figure:
    families = list(scoring.core_tasks)
    values = np.full((len(systems), len(families) + 1), np.nan)
    for i, system in enumerate(systems):
        for j, family in enumerate([*families, MACRO]):
            e = scoring.get(system, CORE, family, "pair_accuracy")
            if e is not None:
                values[i, j] = e.value
    figure, ax = plt.subplots(figsize=(1.0 + 0.75 * (len(families) + 1), 1.0 + 0.32 * len(systems)))
    image = ax.imshow(values, cmap="viridis", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(families) + 1), [*families, "macro"], rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(systems)), systems, fontsize=7)
    for (i, j), v in np.ndenumerate(values):
        if not math.isnan(v):
            ax.text(
                j, i, f"{v:.0f}", ha="center", va="center", fontsize=6, color="white" if v < 60 else "black"
            )
    figure.colorbar(image, ax=ax, label="pair accuracy (%)")
    ax.set_title("Core pair accuracy by family")
    figure.tight_layout()
    return figure


def write_figures(
    scoring: Scoring,
    layouts: Sequence[TaskLayout],
    answers: Mapping[tuple[str, str], TaskAnswers],
    folder: str | Path,
    systems: Sequence[str] | None = None,
) -> list[Path]:
    """Draw every figure into ``folder`` (PNG and SVG); systems in leaderboard order by default."""
    folder = Path(folder)
    plt.rcParams["svg.hashsalt"] = "decisionpivot"
    systems = list(systems) if systems is not None else list(scoring.systems)
    if not layouts or not systems:
        return []
    paths = []
    paths += _save(risk_coverage_figure(layouts, answers, systems), folder, "risk_coverage")
    paths += _save(reliability_figure(layouts, answers, systems), folder, "reliability")
    if any(layout.pairs.size for layout in layouts):
        paths += _save(pair_direction_figure(layouts, answers, systems), folder, "pair_direction")
    paths += _save(family_heatmap_figure(scoring, systems), folder, "family_heatmap")
    return paths
