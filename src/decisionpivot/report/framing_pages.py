"""The framing view: for every contrast group of an invariance suite, each member's plain item and its framings
side by side, with what each framing changed marked and where a system's answer moved.

``framings.html`` lists the suite's families with their invariance figures (scoring.json's ``invariance``
section, when the scoring has one); ``framings/<family>.html`` shows, per group and member, one row per framing:
what changed against the plain item (the reworded question with the changed words marked, renamed option keys,
the inserted text, the option the steering text argues for, the companion questions), the gold, and each
system's answer read on the plain item's options (``key_map``) - marked when it differs from the system's
answer to the plain item. Plain HTML without scripts; the same inputs give the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from decisionpivot.frame.framings import FRAMING_NAMES, FRAMINGS
from decisionpivot.items import Item, render_state
from decisionpivot.report.html import esc, number, paragraph, section
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.invariance import (
    INVARIANCE_METRICS,
    PLAIN,
    FramedLayout,
    SystemView,
    framed_layout,
    is_framed,
    system_view,
)
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.report import INVARIANCE_COLUMNS

INSERTED_SHOWN = 240
"""Characters of inserted state text shown (the rest is counted)."""
SUMMARY = ("robust_pair_accuracy", "plain_pair_accuracy", "flip_rate", "negation_coherence",
           "negation_in_options_coherence", "steering_success", "request_interference")
"""Invariance figures shown per family on the index page."""
LABELS = {**{metric: heading for metric, _, heading in INVARIANCE_COLUMNS}, "plain_pair_accuracy": "Plain pair acc.",
          "negation_coherence": "Negation coherence (NOT in question only)",
          "negation_in_options_coherence": "Negation coherence (NOT also in options)",
          "steering_success": "Steering success", "request_interference": "Request interference"}
"""Column heads of :data:`SUMMARY`: the leaderboard's labels where it has the figure (leaderboard.md's), words for
the rest; the metric's name and meaning are the heading's tooltip."""


@dataclass(frozen=True)
class FramedRuns:
    """A suite's families and the answers the scoring included, as the framing view reads them."""

    layouts: tuple[TaskLayout, ...]
    """Framed families (items files of an invariance suite)."""
    answers: Mapping[tuple[str, str], TaskAnswers]
    """(system, family) -> answers."""
    systems: tuple[str, ...]
    """Systems in leaderboard order."""
    records: tuple[Mapping[str, object], ...] = ()
    """scoring.json's ``invariance`` records (empty when the scoring has none)."""


def framed_runs(layouts: Sequence[TaskLayout], answers: Mapping[tuple[str, str], TaskAnswers],
                systems: Sequence[str], records: Sequence[Mapping[str, object]] = ()) -> FramedRuns | None:
    """The framed families among ``layouts`` with their answers, or None when there is none."""
    framed = tuple(layout for layout in layouts if is_framed(layout))
    if not framed:
        return None
    kept = {key: value for key, value in answers.items() if key[1] in {x.task for x in framed}}
    return FramedRuns(framed, kept, tuple(systems), tuple(records))


def _split(before: str, after: str) -> tuple[str, str, str, str]:
    """(common prefix, removed middle, inserted middle, common suffix) of two texts."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return after[:start], before[start:len(before) - end], after[start:len(after) - end], after[len(after) - end:]


def _marked(before: str, after: str) -> str:
    prefix, _, middle, suffix = _split(before, after)
    return f"{esc(prefix)}<mark class='diff'>{esc(middle)}</mark>{esc(suffix)}"


def framing_change(plain: Item, framed: Item) -> str:
    """HTML saying what ``framed`` changed against its plain item (empty for the plain item itself)."""
    if framed.extra.get("framing") == PLAIN:
        return esc(plain.question)
    parts = []
    if framed.question != plain.question:
        parts.append(f"Question: {_marked(plain.question, framed.question)}")
    key_map = framed.extra.get("key_map") or {}
    meaning = {o.key: o.meaning for o in plain.options}
    kept = all(o.meaning == meaning.get(key_map.get(o.key, o.key)) for o in framed.options)
    if set(framed.option_keys) != set(plain.option_keys):
        parts.append("Options renamed: " + ", ".join(
            f"<code>{esc(key_map.get(k, k))}</code> \u2192 <code>{esc(k)}</code>" for k in framed.option_keys))
    elif not kept:
        parts.append("Option meanings changed: " + ", ".join(
            f"<code>{esc(o.key)}</code> = <mark class='diff'>{esc(o.meaning)}</mark>" for o in framed.options))
    elif any(key_map.get(k, k) != k for k in framed.option_keys):
        parts.append("Options mean the other answer: " + ", ".join(
            f"<code>{esc(o.key)}</code> = {esc(o.meaning)}" for o in framed.options))
    before, after = render_state(plain.state), render_state(framed.state)
    if before != after:
        _, removed, inserted, _ = _split(before, after)
        shown = inserted[:INSERTED_SHOWN] + ("\u2026" if len(inserted) > INSERTED_SHOWN else "")
        parts.append(f"State: {len(inserted):,} characters inserted"
                     + (f", {len(removed):,} removed" if removed else "") + f": <mark class='diff'>{esc(shown)}</mark>")
    target = framed.extra.get("steer_to")
    if target is not None:
        parts.append(f"The inserted text argues for <code>{esc(target)}</code>.")
    for companion in framed.extra.get("companions") or []:
        if isinstance(companion, dict):
            parts.append(f"Asked together with: {esc(companion.get('question', ''))}")
    return "<br>".join(parts) or "nothing visible"


def _answer_cell(framed: FramedLayout, view: SystemView, answers: TaskAnswers, i: int) -> str:
    layout = framed.layout
    if answers.failed[i]:
        return '<td class="failed">failed</td>'
    own = layout.option_keys[i][int(answers.predicted[i])]
    plain = framed.plain[i]
    base_keys = layout.option_keys[plain] if plain >= 0 else layout.option_keys[i]
    base = base_keys[int(view.predicted[i])]
    p = float(view.mapped[i, view.predicted[i]])
    shown = f"<code>{esc(own)}</code>" + ("" if own == base else f" (= <code>{esc(base)}</code>)")
    if view.past_window[i]:
        shown += " <em>past the read window</em>"
    right = "right" if view.correct[i] else "wrong"
    if framed.framing[i] != PLAIN and view.usable[i] and view.predicted[i] != view.plain_predicted[i]:
        return f'<td class="{right} changed"><strong>{shown} {number(100 * p)}% \u2260 plain</strong></td>'
    return f'<td class="{right}">{shown} {number(100 * p)}%</td>'


def family_framing_body(runs: FramedRuns, layout: TaskLayout) -> str:
    """One family's framing view: per group and member, the plain item and every framing side by side."""
    framed = framed_layout(layout)
    systems = [s for s in runs.systems if (s, layout.task) in runs.answers]
    views = {s: system_view(framed, runs.answers[(s, layout.task)]) for s in systems}
    members: dict[int, dict[str, list[int]]] = {}
    for i, item in enumerate(layout.items):
        members.setdefault(int(layout.group_index[i]), {}).setdefault(str(item.extra["base"]), []).append(i)
    head = "".join(f"<th scope=\"col\">{esc(s)}</th>" for s in systems)
    out = [paragraph("Each member of a contrast group under every framing: what the framing changed (marked), its "
                     "gold, and each system's answer with its probability, read on the plain item's options. "
                     "<strong>\u2260 plain</strong> marks an answer that moved although the decision did not; "
                     "<em>past the read window</em> an answer to an item whose inserted text alone fills the "
                     "system's declared read window (the model read none of the state after its opening: truncation, "
                     "reported apart from the flip rate).")]
    for group in sorted(members):
        tables = []
        for base, positions in members[group].items():
            positions = sorted(positions, key=lambda i: FRAMINGS.index(framed.framing[i]))
            plain = layout.items[framed.plain[positions[0]]] if framed.plain[positions[0]] >= 0 else None
            rows = []
            for i in positions:
                item = layout.items[i]
                change = framing_change(plain, item) if plain is not None else ""
                cells = "".join(_answer_cell(framed, views[s], runs.answers[(s, layout.task)], i) for s in systems)
                name = framed.framing[i]
                rows.append(f'<tr id="{esc(item.id)}"><th scope="row">{esc(FRAMING_NAMES.get(name, name))} '
                            f'(<code>{esc(name)}</code>)</th><td>{change}</td>'
                            f"<td><code>{esc(item.answer)}</code></td>{cells}</tr>")
            tables.append(f'<h3>{esc(base)}</h3><table class="data framings"><thead><tr>'
                          f'<th scope="col">Framing</th><th scope="col">What changed</th><th scope="col">Gold</th>'
                          f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
        name = layout.items[next(iter(members[group].values()))[0]].group or f"group {group}"
        out.append(section(f"Group {name}", "".join(tables), ident=f"g{group}"))
    return "".join(out)


def _figure(runs: FramedRuns, system: str, family: str, metric: str) -> str:
    for r in runs.records:
        if r.get("system") == system and r.get("task") == family and r.get("metric") == metric:
            value = r.get("value")
            return number(value if isinstance(value, int | float) else None)
    return "\u2013"


def framing_index_body(runs: FramedRuns) -> str:
    """The framing view's index: one link per family, with its invariance figures per system."""
    rows = []
    for layout in runs.layouts:
        family = layout.task
        for system in runs.systems:
            if (system, family) not in runs.answers:
                continue
            cells = "".join(f"<td>{_figure(runs, system, family, m)}</td>" for m in SUMMARY)
            rows.append(f'<tr><th scope="row"><a href="framings/{esc(family)}.html">{esc(family)}</a></th>'
                        f"<td>{esc(system)}</td>{cells}</tr>")
    head = "".join(f'<th scope="col"><abbr title="{esc(m)}: {esc(INVARIANCE_METRICS[m])}">{esc(LABELS[m])}</abbr></th>'
                   for m in SUMMARY)
    return (paragraph("The invariance suite: every member of a sample of contrast groups asked again reworded, "
                      "negated, with renamed options, padded with irrelevant text, carrying steering text, and "
                      "together with other questions - gold is the same decision every time. Open a family to see "
                      "each group's plain and framed members side by side.")
            + '<table class="data framing-index"><thead><tr><th scope="col">Family</th><th scope="col">System</th>'
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def framing_pages(runs: FramedRuns) -> dict[str, tuple[str, str]]:
    """Page path -> (title, body) of the framing view."""
    pages = {"framings.html": ("Framings (invariance suite)", framing_index_body(runs))}
    for layout in runs.layouts:
        pages[f"framings/{layout.task}.html"] = (f"Framings of {layout.task}", family_framing_body(runs, layout))
    return pages
