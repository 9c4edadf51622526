"""The page shell, tables and number formats every page of the site shares.

Pages are plain HTML5 with one stylesheet and one script (``assets/``), relative links only, so the
site works from ``file://`` and from any static host. Tables marked sortable get header buttons from the
script; rows of class ``pinned`` (the uniform-guess row) stay last. Nothing here reads a clock.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

DASH = "\u2013"
"""Shown for a value that is undefined or not recorded."""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def number(value: float | None, digits: int = 1, small: bool = False) -> str:
    """A value with fixed decimals, or a dash; with ``small``, a value that would round to zero keeps two
    significant digits (chance pair accuracy of many-option families is far below 0.1%)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    if small and 0 < abs(value) < 0.05 and digits < 3:
        decimals = min(8, 1 - math.floor(math.log10(abs(value))))  # two significant digits
        return f"{value:.{decimals}f}"  # a small non-zero value (record_rule's chance pair accuracy) is not 0.0
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def interval(value: float | None, low: float | None, high: float | None, digits: int = 1) -> str:
    """``value [low, high]`` as HTML (the interval smaller), or the value alone without an interval."""
    if value is None:
        return DASH
    if low is None or high is None:
        return number(value, digits)
    return f'{number(value, digits)} <span class="ci">[{number(low, digits)}, {number(high, digits)}]</span>'


def sort_key(value: float | None) -> str:
    """The ``data-sort`` of a numeric cell: undefined values sort last."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.6f}"


@dataclass(frozen=True)
class Cell:
    """One table cell: HTML content, an optional numeric sort key and attributes."""

    content: str
    """Inner HTML (escape text with :func:`esc`)."""
    sort: str | None = None
    """``data-sort`` value for sortable tables (numbers as text; empty sorts last)."""
    cls: str = ""
    """CSS class."""
    attrs: str = ""
    """Further attributes, already escaped (``title="..."``, ``style="..."``)."""
    header: bool = False
    """Render as a row header (``<th scope="row">``)."""


def text_cell(text: object, cls: str = "", header: bool = False) -> Cell:
    """A cell of plain text (escaped)."""
    return Cell(esc(text), cls=cls, header=header)


@dataclass(frozen=True)
class Table:
    """A table with a caption, column headings and rows of cells."""

    caption: str
    """Caption (plain text), read by screen readers and shown above the table."""
    headings: Sequence[str]
    """Column headings (plain text)."""
    rows: Sequence[Sequence[Cell]]
    """Body rows."""
    sortable: bool = False
    """Header buttons sort by a column."""
    row_classes: Sequence[str] = field(default_factory=tuple)
    """CSS class per row (``pinned`` keeps a row last when sorting)."""
    cls: str = ""
    """Extra CSS class of the table."""
    ident: str = ""
    """``id`` of the table."""
    heading_tips: Sequence[str] = field(default_factory=tuple)
    """Per heading, an explanation shown as its title (may be empty)."""

    def render(self) -> str:
        classes = " ".join(c for c in ("data", "sortable" if self.sortable else "", self.cls) if c)
        ident = f' id="{esc(self.ident)}"' if self.ident else ""
        out = [f'<div class="scroll"><table class="{classes}"{ident}><caption>{esc(self.caption)}</caption><thead><tr>']
        for i, heading in enumerate(self.headings):
            tip = self.heading_tips[i] if i < len(self.heading_tips) else ""
            title = f' title="{esc(tip)}"' if tip else ""
            out.append(f'<th scope="col"{title}>{esc(heading)}</th>')
        out.append("</tr></thead><tbody>")
        for r, row in enumerate(self.rows):
            cls = self.row_classes[r] if r < len(self.row_classes) and self.row_classes[r] else ""
            out.append(f'<tr class="{cls}">' if cls else "<tr>")
            for cell in row:
                tag = "th" if cell.header else "td"
                scope = ' scope="row"' if cell.header else ""
                attrs = [f'class="{cell.cls}"' if cell.cls else "", f'data-sort="{esc(cell.sort)}"'
                         if cell.sort is not None else "", cell.attrs]
                joined = " ".join(a for a in attrs if a)
                out.append(f"<{tag}{scope}{' ' + joined if joined else ''}>{cell.content}</{tag}>")
            out.append("</tr>")
        out.append("</tbody></table></div>")
        return "".join(out)


NAV: tuple[tuple[str, str], ...] = (
    ("index.html", "Leaderboard"),
    ("families.html", "Families"),
    ("levels.html", "Levels"),
    ("confidence.html", "Confidence"),
    ("reference.html", "Reference track"),
    ("runs.html", "Runs"),
    ("groups.html", "Group browser"),
)
"""The navigation bar (pages present on every site); stability and gate pages are added when built."""


@dataclass(frozen=True)
class SiteInfo:
    """What every page's header and footer show."""

    title: str
    """Site title."""
    footer: str
    """Footer HTML: where the numbers come from (no dates)."""
    extra_nav: tuple[tuple[str, str], ...] = ()
    """(page, label) of optional pages built for this site (stability, gate)."""


def page(site: SiteInfo, path: str, title: str, body: str, scripts: Sequence[str] = (),
         description: str = "") -> str:
    """A complete page; ``path`` is the page's own path in the site (``systems/x.html``) for relative links."""
    depth = path.count("/")
    root = "../" * depth
    nav = []
    for target, label in (*NAV, *site.extra_nav):
        current = ' aria-current="page"' if target == path else ""
        nav.append(f'<li><a href="{root}{target}"{current}>{esc(label)}</a></li>')
    script_tags = "".join(f'<script src="{root}{esc(s)}"></script>' for s in ("assets/report.js", *scripts))
    meta = f'<meta name="description" content="{esc(description)}">' if description else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, '
        f'initial-scale=1">{meta}<title>{esc(title)} \u2013 {esc(site.title)}</title>'
        f'<link rel="stylesheet" href="{root}assets/style.css"></head>'
        f'<body data-root="{root}"><a class="skip" href="#main">Skip to content</a>'
        f'<header><p class="brand"><a href="{root}index.html">{esc(site.title)}</a></p>'
        f'<nav aria-label="Pages"><ul>{"".join(nav)}</ul></nav></header>'
        f'<main id="main" tabindex="-1"><h1>{esc(title)}</h1>{body}</main>'
        f"<footer>{site.footer}</footer>{script_tags}</body></html>\n"
    )


def section(heading: str, content: str, ident: str = "", level: int = 2) -> str:
    anchor = f' id="{esc(ident)}"' if ident else ""
    return f"<section{anchor}><h{level}>{esc(heading)}</h{level}>{content}</section>"


def paragraph(text: str) -> str:
    """A paragraph of already-escaped HTML."""
    return f"<p>{text}</p>"


def notes(items: Sequence[str], cls: str = "notes") -> str:
    """A list of already-escaped HTML notes."""
    return f'<ul class="{cls}">' + "".join(f"<li>{item}</li>" for item in items) + "</ul>" if items else ""


def system_link(system: str, root: str) -> str:
    return f'<a href="{root}systems/{esc(system)}.html">{esc(system)}</a>'


def family_link(family: str, root: str) -> str:
    return f'<a href="{root}families/{esc(family)}.html">{esc(family)}</a>'


def badge(text: str, cls: str, tip: str = "") -> str:
    title = f' title="{esc(tip)}"' if tip else ""
    return f'<span class="badge {cls}"{title}>{esc(text)}</span>'


def heat_colour(value: float | None) -> tuple[str, str]:
    """Background and text colour for a 0-100 value on a colour-blind-safe blue-yellow scale (viridis
    anchors, linearly interpolated); grey for no value."""
    if value is None or math.isnan(value):
        return "#e8e8e8", "#333333"
    anchors = ((0.0, (68, 1, 84)), (25.0, (59, 82, 139)), (50.0, (33, 145, 140)), (75.0, (94, 201, 98)),
               (100.0, (253, 231, 37)))
    v = min(100.0, max(0.0, value))
    for (a, ca), (b, cb) in itertools.pairwise(anchors):
        if v <= b:
            t = (v - a) / (b - a)
            rgb = tuple(round(x + (y - x) * t) for x, y in zip(ca, cb, strict=True))
            break
    text = "#ffffff" if v < 62 else "#111111"
    return "#{:02x}{:02x}{:02x}".format(*rgb), text
