"""Hand-written SVG charts for the site: small, deterministic, accessible, with no script needed to read them.

Every chart is an ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says in words what it
shows (screen readers read them, the browser test checks them). Coordinates are printed with one decimal
and values come in already rounded, so the same inputs give the same bytes. Elements that the page's
script makes interactive carry ``data-`` attributes (``data-system`` on a curve, ``data-tip`` for a
hover/focus tooltip); the charts read the same without the script.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RISK_TARGET = 0.05
"""The risk of C(0.05), drawn as a dashed line on risk-coverage charts."""
LABEL_LIMIT = 44
"""Row labels of interval charts longer than this are cut (the full label is the row's tooltip)."""


def fmt(value: float) -> str:
    """A coordinate with one decimal, never ``-0.0``."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


@dataclass(frozen=True)
class Frame:
    """A plotting area inside an SVG canvas, mapping data ranges to pixels."""

    width: float
    """Canvas width in pixels."""
    height: float
    """Canvas height in pixels."""
    left: float
    """Margin left of the plotting area."""
    top: float
    """Margin above."""
    right: float
    """Margin right."""
    bottom: float
    """Margin below."""
    x_range: tuple[float, float] = (0.0, 1.0)
    """Data range of the x axis."""
    y_range: tuple[float, float] = (0.0, 1.0)
    """Data range of the y axis."""

    def x(self, value: float) -> float:
        low, high = self.x_range
        return self.left + (value - low) / (high - low) * (self.width - self.left - self.right)

    def y(self, value: float) -> float:
        low, high = self.y_range
        return self.height - self.bottom - (value - low) / (high - low) * (self.height - self.top - self.bottom)


def canvas(frame: Frame, ident: str, title: str, description: str, body: Sequence[str], cls: str = "chart") -> str:
    """The ``<svg>`` element: title and description first (referenced by aria-labelledby), then the body."""
    return (
        f'<svg class="{cls}" viewBox="0 0 {fmt(frame.width)} {fmt(frame.height)}" width="{fmt(frame.width)}" '
        f'height="{fmt(frame.height)}" role="img" aria-labelledby="{ident}-t {ident}-d" '
        f'xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{ident}-t">{esc(title)}</title><desc id="{ident}-d">{esc(description)}</desc>'
        + "".join(body) + "</svg>"
    )


def axes(frame: Frame, x_ticks: Sequence[float], y_ticks: Sequence[float], x_label: str, y_label: str,
         x_format: str = "{:g}", y_format: str = "{:g}") -> list[str]:
    """Grid lines, tick labels and axis titles of a frame."""
    parts = ['<g class="axes">']
    x0, x1 = frame.x(frame.x_range[0]), frame.x(frame.x_range[1])
    y0, y1 = frame.y(frame.y_range[0]), frame.y(frame.y_range[1])
    for tick in y_ticks:
        y = fmt(frame.y(tick))
        parts.append(f'<line class="grid" x1="{fmt(x0)}" x2="{fmt(x1)}" y1="{y}" y2="{y}"/>')
        parts.append(f'<text class="tick" x="{fmt(x0 - 4)}" y="{y}" text-anchor="end" dominant-baseline="middle">'
                     f"{esc(y_format.format(tick))}</text>")
    for tick in x_ticks:
        x = fmt(frame.x(tick))
        parts.append(f'<line class="grid" x1="{x}" x2="{x}" y1="{fmt(y0)}" y2="{fmt(y1)}"/>')
        parts.append(f'<text class="tick" x="{x}" y="{fmt(y0 + 13)}" text-anchor="middle">'
                     f"{esc(x_format.format(tick))}</text>")
    parts.append(f'<rect class="frame" x="{fmt(x0)}" y="{fmt(y1)}" width="{fmt(x1 - x0)}" height="{fmt(y0 - y1)}"/>')
    parts.append(f'<text class="label" x="{fmt((x0 + x1) / 2)}" y="{fmt(frame.height - 4)}" '
                 f'text-anchor="middle">{esc(x_label)}</text>')
    parts.append(f'<text class="label" transform="translate(11 {fmt((y0 + y1) / 2)}) rotate(-90)" '
                 f'text-anchor="middle">{esc(y_label)}</text>')
    parts.append("</g>")
    return parts


def path_data(points: Sequence[tuple[float, float]]) -> str:
    """``M x y L x y ...`` with consecutive duplicate pixels and collinear runs dropped."""
    pixels: list[tuple[str, str]] = []
    for x, y in points:
        pixel = (fmt(x), fmt(y))
        if not pixels or pixels[-1] != pixel:
            pixels.append(pixel)
    kept: list[tuple[str, str]] = []
    for i, pixel in enumerate(pixels):
        if 0 < i < len(pixels) - 1:
            (ax, ay), (bx, by) = (float(v) for v in pixels[i - 1]), (float(v) for v in pixels[i + 1])
            px, py = float(pixel[0]), float(pixel[1])
            if (ax == px == bx) or (ay == py == by):
                continue  # the middle of a straight horizontal or vertical run
        kept.append(pixel)
    return " ".join(("M" if i == 0 else "L") + f"{x} {y}" for i, (x, y) in enumerate(kept))


@dataclass(frozen=True)
class IntervalRow:
    """One row of an interval chart: a label, a value with its 95% interval, an optional reference tick."""

    label: str
    """Row label (a family, a system, a level)."""
    value: float | None
    """Value on the 0-100 scale; None draws an empty row marked 'not scored'."""
    low: float | None
    """Lower end of the interval (None: no interval)."""
    high: float | None
    """Upper end."""
    reference: float | None = None
    """A reference value drawn as a tick (uniform-guess chance)."""
    tip: str = ""
    """Tooltip text of the row."""


def interval_chart(rows: Sequence[IntervalRow], ident: str, title: str, description: str,
                   axis_label: str, reference_label: str = "uniform guessing") -> str:
    """Horizontal bars with 95% interval whiskers on a 0-100 axis, one row per entry."""
    row_height = 18.0
    longest = max([len(r.label) for r in rows] + [8])
    label_width = min(LABEL_LIMIT * 6.4, 12.0 + 6.4 * longest)
    legend = any(r.reference is not None for r in rows)
    frame = Frame(label_width + 440.0, (24.0 if legend else 8.0) + 34.0 + row_height * len(rows), label_width,
                  24.0 if legend else 8.0, 16.0, 34.0, (0.0, 100.0))
    body = axes(frame, [0, 25, 50, 75, 100], [], axis_label, "")
    for i, row in enumerate(rows):
        y = frame.top + row_height * i + 3
        mid = y + (row_height - 6) / 2
        tip = f' data-tip="{esc(row.tip)}"' if row.tip else ""
        label = row.label if len(row.label) <= LABEL_LIMIT else row.label[: LABEL_LIMIT - 1] + "\u2026"
        body.append(f'<g class="row"{tip}><title>{esc(row.tip or row.label)}</title><text class="rowlabel" '
                    f'x="{fmt(label_width - 6)}" y="{fmt(mid)}" text-anchor="end" dominant-baseline="middle">'
                    f"{esc(label)}</text>")
        if row.value is None:
            body.append(f'<text class="na" x="{fmt(frame.x(1))}" y="{fmt(mid)}" dominant-baseline="middle">'
                        "not scored</text></g>")
            continue
        body.append(f'<rect class="bar" x="{fmt(frame.x(0))}" y="{fmt(y)}" '
                    f'width="{fmt(frame.x(row.value) - frame.x(0))}" height="{fmt(row_height - 6)}"/>')
        if row.low is not None and row.high is not None:
            lo, hi = fmt(frame.x(row.low)), fmt(frame.x(row.high))
            body.append(f'<path class="whisker" d="M{lo} {fmt(mid)} L{hi} {fmt(mid)} M{lo} {fmt(mid - 4)} '
                        f'L{lo} {fmt(mid + 4)} M{hi} {fmt(mid - 4)} L{hi} {fmt(mid + 4)}"/>')
        if row.reference is not None:
            x = fmt(frame.x(row.reference))
            body.append(f'<path class="reference" d="M{x} {fmt(y - 2)} L{x} {fmt(y + row_height - 4)}"/>')
        body.append("</g>")
    if legend:
        y = fmt(10.0)
        body.append(f'<path class="reference" d="M{fmt(label_width)} {y} L{fmt(label_width + 14)} {y}"/>'
                    f'<text class="tick" x="{fmt(label_width + 18)}" y="{y}" dominant-baseline="middle">'
                    f"{esc(reference_label)}</text>")
    return canvas(frame, ident, title, description, body)


@dataclass(frozen=True)
class Curve:
    """One system's risk-coverage curve on one family."""

    system: str
    """System name (``data-system`` of the path, for highlighting)."""
    coverage: np.ndarray
    """Coverage of each eligible prefix (tie boundaries), 0-1."""
    risk: np.ndarray
    """Risk of each prefix, 0-1."""
    c05: float | None
    """C(0.05) on 0-1 (None when not scored)."""


def risk_coverage_chart(curves: Sequence[Curve], ident: str, title: str, description: str,
                        size: tuple[float, float] = (420.0, 300.0), max_risk: float | None = None) -> str:
    """Risk against coverage for each curve, the 5% risk line dashed and each curve's C(0.05) as a dot."""
    top = max([float(c.risk.max()) for c in curves if c.risk.size] + [0.1])
    limit = max_risk if max_risk is not None else min(1.0, math.ceil(top * 10 + 1e-9) / 10)
    frame = Frame(size[0], size[1], 46.0, 10.0, 12.0, 34.0, (0.0, 1.0), (0.0, limit))
    ticks = [round(limit * k / 4, 3) for k in range(5)]
    body = axes(frame, [0, 0.25, 0.5, 0.75, 1], ticks, "coverage", "risk", "{:g}", "{:.2f}")
    y5 = fmt(frame.y(RISK_TARGET))
    body.append(f'<path class="target" d="M{fmt(frame.x(0))} {y5} L{fmt(frame.x(1))} {y5}"/>')
    for curve in curves:
        if not curve.coverage.size:
            continue
        points = [(frame.x(0.0), frame.y(min(float(curve.risk[0]), limit)))]
        points += [(frame.x(float(c)), frame.y(min(float(r), limit))) for c, r in zip(curve.coverage, curve.risk,
                                                                                       strict=True)]
        c05 = "-" if curve.c05 is None else f"{curve.c05 * 100:.1f}%"
        body.append(f'<g class="curve" data-system="{esc(curve.system)}" '
                    f'data-tip="{esc(curve.system)}: C(0.05) {c05}">'
                    f'<path d="{path_data(points)}"/>')
        if curve.c05 is not None:
            body.append(f'<circle class="c05" cx="{fmt(frame.x(curve.c05))}" cy="{y5}" r="3"/>')
        body.append("</g>")
    return canvas(frame, ident, title, description, body)


def reliability_chart(count: np.ndarray, accuracy: np.ndarray, ece: float | None, ident: str, title: str,
                      description: str, size: tuple[float, float] = (260.0, 230.0)) -> str:
    """Accuracy per equal-width confidence bin (bars, width = bin), the diagonal of perfect calibration."""
    frame = Frame(size[0], size[1], 40.0, 10.0, 10.0, 34.0)
    body = axes(frame, [0, 0.5, 1], [0, 0.5, 1], "confidence", "accuracy")
    body.append(f'<path class="diagonal" d="M{fmt(frame.x(0))} {fmt(frame.y(0))} L{fmt(frame.x(1))} '
                f'{fmt(frame.y(1))}"/>')
    bins = len(count)
    total = max(int(count.sum()), 1)
    for b in range(bins):
        if not count[b]:
            continue
        x0, x1 = frame.x(b / bins), frame.x((b + 1) / bins)
        y = frame.y(float(accuracy[b]))
        body.append(f'<rect class="bin" x="{fmt(x0)}" y="{fmt(y)}" width="{fmt(x1 - x0)}" '
                    f'height="{fmt(frame.y(0) - y)}" data-tip="confidence {b / bins:.2f}-{(b + 1) / bins:.2f}: '
                    f'{int(count[b])} items ({100 * count[b] / total:.1f}%), accuracy {100 * accuracy[b]:.1f}%"/>')
    if ece is not None:
        body.append(f'<text class="note" x="{fmt(frame.x(0.04))}" y="{fmt(frame.y(0.92))}">ECE {ece:.1f}</text>')
    return canvas(frame, ident, title, description, body)


def direction_scatter(p_minus: np.ndarray, p_plus: np.ndarray, ident: str, title: str, description: str,
                      size: tuple[float, float] = (260.0, 250.0), resolution: int = 100) -> str:
    """p+ (the yes member) against p- (the no member) for every binary pair; pairs at the same point
    (to 1/``resolution``) are one circle whose area grows with the count. Green above the diagonal."""
    frame = Frame(size[0], size[1], 40.0, 10.0, 10.0, 34.0)
    body = axes(frame, [0, 0.5, 1], [0, 0.5, 1], "p(yes) on the no member (p-)", "p(yes) on the yes member (p+)")
    body.append(f'<path class="diagonal" d="M{fmt(frame.x(0))} {fmt(frame.y(0))} L{fmt(frame.x(1))} '
                f'{fmt(frame.y(1))}"/>')
    if p_plus.size:
        cells = np.stack([np.round(p_minus * resolution), np.round(p_plus * resolution)], axis=1).astype(np.int64)
        unique, counts = np.unique(cells, axis=0, return_counts=True)  # sorted: deterministic order
        largest = float(counts.max())
        for (m, p), n in zip(unique.tolist(), counts.tolist(), strict=True):
            right = p > m
            radius = 1.6 + 5.0 * math.sqrt(n / largest)
            body.append(f'<circle class="{"right" if right else "wrong"}" cx="{fmt(frame.x(m / resolution))}" '
                        f'cy="{fmt(frame.y(p / resolution))}" r="{fmt(radius)}"/>')
        share = 100 * float(np.mean(p_plus > p_minus))
        body.append(f'<text class="note" x="{fmt(frame.x(0.5))}" y="{fmt(frame.y(0.04))}">p+ &gt; p-: '
                    f"{share:.1f}%</text>")
    return canvas(frame, ident, title, description, body)
