"""The scale suite's pages of the report (issue 40): its leaderboard and families, and its contrast groups with the
scale.

``scale.html`` shows what ``dp score --scale`` wrote into scores.json (tracks ``scale`` and ``scale_invariance``):
the suite's leaderboard, macro over its families, and a table per family, every value with its 95% interval.
``scale/<family>-<k>.html`` (:data:`GROUPS_PER_PAGE` groups each) are the scale suite's group browser: each contrast
group opens to its members side by side - the lines of the state where they differ (the decisive fact one step either
side of a level boundary), the gold level on the scale, and every system's probabilities over the levels, drawn as the
scale itself with the gold level marked and the expected level as a tick. Static HTML: no script, so it reads from
``file://`` as every page does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.report.html import Cell, Table, esc, interval, number, paragraph, section, sort_key, text_cell
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.results import MACRO, UNIFORM_GUESS
from decisionpivot.score.scale import LEVEL_METRICS, SCALE, SCALE_METRICS
from decisionpivot.score.scale_invariance import SCALE_INVARIANCE, SCALE_INVARIANCE_METRICS
from decisionpivot.score_questions import level_name

PAGE = "scale.html"
"""The scale suite's page (in the navigation when the site has a scale suite)."""
GROUPS_PER_PAGE = 40
"""Contrast groups per page of a family's groups (about 150 kB with three systems: the report's page budget)."""
FRAMED = (("robust_pair_accuracy", "Robust pair acc."), ("flip_rate", "Flip rate"), ("position_share",
                                                                                     "Position share"))
"""Columns from the suite's framings, when scored."""


@dataclass(frozen=True)
class ScaleRuns:
    """The scale suite's items and the answers the scoring read, for the group pages."""

    layouts: tuple[TaskLayout, ...]
    """Scale families, in name order."""
    answers: Mapping[tuple[str, str], TaskAnswers]
    """(system, family) -> answers."""
    systems: tuple[str, ...]
    """Systems with answers, in the scale leaderboard's order."""


def read_scale_runs(inputs: ReportInputs, items: str | Path, runs: str | Path,
               allow_modified_items: bool = False) -> tuple[ScaleRuns, tuple[tuple[str, str], ...]]:
    """The scale suite ``items`` answered under ``runs`` by the systems its scoring ranked (scoring.json's ``scale``
    section), read by the scorer's own rules; with how each file was accepted (``scale/<family>``)."""
    from decisionpivot.score.pipeline import is_scale_folder, load_runs

    section_ = inputs.scoring.get("scale")
    if not isinstance(section_, dict):
        raise DecisionPivotError(f"{inputs.reports}/scoring.json has no 'scale' section: score the scale suite first "
                                 "(`dp score --scale`)")
    if not is_scale_folder(items):
        raise DecisionPivotError(f"{items}: not a scale suite (its MANIFEST.json must say 'DecisionPivot scale')")
    ranked = [str(row["system"]) for row in section_.get("leaderboard", []) if isinstance(row, dict)]
    present = [s for s in ranked if (Path(runs) / s).is_dir()]
    if not present:
        raise DecisionPivotError(f"{runs}: no answers of {', '.join(ranked) or 'any scored system'} to the scale "
                                 f"suite {items}")
    loaded = load_runs(runs, items, None, present, (), allow_modified_items)
    layouts = tuple(sorted(loaded.core, key=lambda layout: layout.task))
    return (ScaleRuns(layouts, loaded.answers, tuple(present)),
            tuple((f"{SCALE}/{task}", how) for task, how in loaded.item_checks))


def _cell(inputs: ReportInputs, system: str, track: str, task: str, metric: str) -> Cell:
    score = inputs.get(system, track, task, metric)
    if score is None:
        return text_cell("-")
    digits = 2 if metric in LEVEL_METRICS else 1
    return Cell(interval(score.value, score.ci_low, score.ci_high, digits), sort_key(score.value), "num")


def _framed_columns(inputs: ReportInputs) -> list[tuple[str, str]]:
    return [(m, heading) for m, heading in FRAMED if any(k[1] == SCALE_INVARIANCE and k[4] == m for k in inputs.scores)]


def scale_body(inputs: ReportInputs, scale: ScaleRuns) -> str:
    """``scale.html``: the suite's leaderboard, a table per family, links to each family's groups."""
    section_ = inputs.scoring.get("scale") or {}
    families = [layout.task for layout in scale.layouts]
    framed = _framed_columns(inputs)
    headings = ["#", "System", *(heading for heading, _, _ in SCALE_METRICS.values()),
                *(heading for _, heading in framed), "Readout"]
    tips = ["", "", *(meaning for _, meaning, _ in SCALE_METRICS.values()),
            *(SCALE_INVARIANCE_METRICS[m] for m, _ in framed), ""]
    rows, classes = [], []
    for row in section_.get("leaderboard", []):
        system = str(row["system"])
        rows.append([text_cell(row.get("rank") or ""), text_cell(system, header=True),
                     *(_cell(inputs, system, SCALE, MACRO, m) for m in SCALE_METRICS),
                     *(_cell(inputs, system, SCALE_INVARIANCE, MACRO, m) for m, _ in framed),
                     text_cell(row.get("readout") or "-")])
        classes.append("")
    chance = inputs.get(UNIFORM_GUESS, SCALE, MACRO, "chance_pair_accuracy")
    exact = inputs.get(UNIFORM_GUESS, SCALE, MACRO, "chance_exact_accuracy")
    if chance is not None and exact is not None:
        rows.append([text_cell(""), text_cell("uniform guessing", header=True),
                     Cell(number(chance.value, small=True)), text_cell("-"), Cell(number(exact.value)),
                     *[text_cell("-")] * (len(SCALE_METRICS) - 3 + len(framed)), text_cell("expected")])
        classes.append("pinned")
    body = paragraph(
        "Score questions: a level on an ordered scale (a priority, a severity, a risk tier, a band, a grade) whose "
        f"gold follows exactly from the rules in the state; {len(families)} families, contrast groups whose members "
        "sit one step either side of a level boundary. Ranked by pair accuracy (every member's level exact); values "
        "are percentages, errors and bias in levels, with 95% intervals over contrast groups. Hover a heading for "
        "its definition.")
    body += Table("Scale suite leaderboard, macro over its families", headings, rows, sortable=True,
                  row_classes=classes, ident="scale-leaderboard", heading_tips=tips).render()
    for family in families:
        family_rows = [[text_cell(system, header=True), *(_cell(inputs, system, SCALE, family, m)
                                                          for m in SCALE_METRICS)]
                       for system in scale.systems if inputs.get(system, SCALE, family, "pair_accuracy") is not None]
        table = Table(f"{family}: every metric over its items",
                      ["System", *(h for h, _, _ in SCALE_METRICS.values())], family_rows, sortable=True).render()
        layout = next(x for x in scale.layouts if x.task == family)
        links = ", ".join(f'<a href="{esc(path)}">{esc(span)}</a>' for path, span in group_pages_of(layout))
        body += section(family, paragraph(f"Its contrast groups with the scale: {links}.") + table,
                        f"family-{family}")
    return body


def _differing_lines(states: Sequence[str]) -> list[list[str]]:
    """Per member, the lines of its state that not every member of the group has."""
    shared = set.intersection(*(set(state.split("\n")) for state in states)) if states else set()
    return [[line for line in state.split("\n") if line not in shared] for state in states]


def scale_figure(probabilities: np.ndarray, gold: int, width: int = 12, height: int = 24) -> str:
    """An inline SVG of one answer over a scale: a bar per level (lowest left), the gold level outlined, a tick at the
    expected level; the probabilities in its label."""
    n = probabilities.size
    bars = "".join(f"M{level * width + 1} {height - h}h{width - 2}v{h}h-{width - 2}z"
                   for level, h in enumerate(np.rint(probabilities * (height - 2)).astype(int).tolist()) if h > 0)
    expected = float((np.arange(n) * probabilities).sum())
    label = ", ".join(f"{level}: {p:.2f}" for level, p in enumerate(probabilities.tolist()))
    return (f'<svg class="scale" width="{n * width}" height="{height}" fill="#3b528b" role="img" '
            f'aria-label="{label}; expected level {expected:.2f}"><path d="{bars}"/>'
            f'<rect x="{gold * width + 0.5}" y="0.5" width="{width - 1}" height="{height - 1}" fill="none" '
            f'stroke="#111"/><path d="M{expected * width + width / 2:.1f} 0v{height}" stroke="#e8590c" '
            'stroke-width="2"/></svg>')


def _members(layout: TaskLayout) -> list[list[int]]:
    members: dict[int, list[int]] = {}
    for position, group in enumerate(layout.group_index.tolist()):
        members.setdefault(group, []).append(position)
    return [members[g] for g in sorted(members)]


def group_pages_of(layout: TaskLayout) -> list[tuple[str, str]]:
    """(path, "groups a-b") of each page of a family's groups."""
    count = len(_members(layout))
    return [(f"scale/{layout.task}-{k // GROUPS_PER_PAGE}.html",
             f"groups {k + 1}-{min(k + GROUPS_PER_PAGE, count)}") for k in range(0, count, GROUPS_PER_PAGE)]


def group_page(scale: ScaleRuns, layout: TaskLayout, page_number: int = 0) -> str:
    """One page of ``scale/<family>-<k>.html``: its contrast groups, each member side by side with the scale."""
    systems = [s for s in scale.systems if (s, layout.task) in scale.answers]
    chosen = _members(layout)[page_number * GROUPS_PER_PAGE:(page_number + 1) * GROUPS_PER_PAGE]
    pages = group_pages_of(layout)
    parts = [paragraph("Pages: " + " | ".join(
        esc(span) if k == page_number else f'<a href="{esc(path.removeprefix("scale/"))}">{esc(span)}</a>'
        for k, (path, span) in enumerate(pages)) + f' (<a href="../{PAGE}#family-{esc(layout.task)}">back to the '
        "scale suite</a>)."), paragraph(
        f"{esc(layout.items[0].question)} Each group's members differ at one decisive fact placed at a level boundary "
        "(the lines shown are where their states differ); the scale is drawn lowest level left, the gold level "
        "outlined, the orange tick each system's expected level. Systems: " + esc(", ".join(systems)) + ".")]
    for positions in chosen:
        items = [layout.items[i] for i in positions]
        scale_names = " &lt; ".join(esc(level_name(o)) for o in items[0].options)
        lines = _differing_lines([str(item.state) for item in items])
        headings = ["Member", "Where the state differs", "Gold", *systems]
        rows = []
        for i, item, changed in zip(positions, items, lines, strict=True):
            gold = int(layout.gold_index[i])
            cells = [text_cell(f"{item.id} ({item.variation})", header=True),
                     Cell("<br>".join(esc(line) for line in changed) or "-"),
                     text_cell(f"{gold} {level_name(item.options[gold])}")]
            for system in systems:
                answers = scale.answers[(system, layout.task)]
                p = answers.probabilities[i, : layout.option_count[i]]
                mark = " (failed)" if answers.failed[i] else ""
                cells.append(Cell(scale_figure(p, gold) + esc(mark)))
            rows.append(cells)
        title = f"{items[0].group} - level {int(layout.level[positions[0]])}, scale {scale_names}"
        parts.append(f'<details id="{esc(items[0].group or items[0].id)}"><summary>{title}</summary>'
                     + Table(f"Contrast group {items[0].group}", headings, rows).render() + "</details>")
    return "".join(parts)


def scale_pages(inputs: ReportInputs, scale: ScaleRuns) -> dict[str, tuple[str, str]]:
    """Path -> (title, body) of every scale page."""
    pages = {PAGE: ("Scale suite: score questions", scale_body(inputs, scale))}
    for layout in scale.layouts:
        for k, (path, span) in enumerate(group_pages_of(layout)):
            pages[path] = (f"Scale groups: {layout.task}, {span}", group_page(scale, layout, k))
    return pages
