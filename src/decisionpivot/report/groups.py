"""The contrast-group browser: its page and the data files it loads on demand.

The page (``groups.html``) holds only the controls; ``assets/groups.js`` loads, when a family is chosen,

* ``data/family/<family>.js`` - the family's index: groups (level, members, chunk), items (gold, option
  keys, variation) and, per system scored on the family, each item's probabilities, correctness and each
  binary pair's direction;
* ``data/items/<family>-<k>.js`` - the texts of a block of :data:`GROUPS_PER_CHUNK` groups (state,
  question, options), the character ranges where members' rendered states differ, and the groups'
  declared decisive paths (:mod:`decisionpivot.report.decisive`), when a group of the block is opened.

Data files are scripts calling ``DP.load(name, data)`` (JSONP), since a page opened from ``file://`` may
not ``fetch()`` JSON. Probabilities are per-mille integers written as two base-36 digits each (``"0r"``
= 27 = 0.027), a third of the size of JSON numbers; correctness is one character per item (``1`` right,
``0`` wrong, ``f`` failed: error, unusable probabilities or no record, scored as wrong).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from decisionpivot.report.decisive import FamilyDecisive, member_differences, rendered_states
from decisionpivot.report.facts import ranked_systems
from decisionpivot.report.html import esc, paragraph
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.score.layout import TaskLayout

GROUPS_PER_CHUNK = 25
"""Groups whose texts share one data file (about 50-100 items, 100-300 kB)."""
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def per_mille_code(probabilities: np.ndarray) -> str:
    """Probabilities as per-mille integers, each two base-36 digits (0-1000 fits in 36**2 = 1296)."""
    values = np.rint(np.clip(probabilities, 0.0, 1.0) * 1000).astype(np.int64).tolist()
    return "".join(_DIGITS[v // 36] + _DIGITS[v % 36] for v in values)


def script(name: str, data: Any) -> bytes:
    """A data file: ``DP.load("<name>", <JSON>);`` with sorted keys and no spaces (deterministic bytes)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return f"DP.load({json.dumps(name)},{text});\n".encode()


def _groups(layout: TaskLayout) -> list[list[int]]:
    members: dict[int, list[int]] = {}
    for position, group in enumerate(layout.group_index.tolist()):
        members.setdefault(group, []).append(position)
    return [members[g] for g in sorted(members)]


def family_index(inputs: ReportInputs, family: str) -> dict[str, Any]:
    """The browser's index of one family (see the module docstring)."""
    layout = inputs.layout(family)
    groups = _groups(layout)
    systems = [s for s in ranked_systems(inputs) if (s, family) in inputs.answers]
    pair_of_group: dict[int, int] = {}
    for p, (plus, _) in enumerate(layout.pairs.tolist()):
        pair_of_group[int(layout.group_index[plus])] = p
    probabilities, correct, direction = {}, {}, {}
    for system in systems:
        answers = inputs.answers[(system, family)]
        rows = [answers.probabilities[i, : layout.option_count[i]] for i in range(layout.size)]
        probabilities[system] = per_mille_code(np.concatenate(rows))
        correct[system] = "".join("f" if f else ("1" if c else "0") for f, c in
                                  zip(answers.failed.tolist(), answers.correct.tolist(), strict=True))
        marks = []
        for g in range(len(groups)):
            p = pair_of_group.get(g)
            if p is None:
                marks.append(".")
                continue
            plus, minus = layout.pairs[p]
            column = layout.pair_positive_column[p]
            marks.append("1" if answers.probabilities[plus, column] > answers.probabilities[minus, column] else "0")
        direction[system] = "".join(marks)
    return {
        "family": family,
        "layer": layout.layer,
        "question": layout.items[0].question,
        "systems": systems,
        "groups": [{"id": layout.items[m[0]].group or layout.items[m[0]].id, "level": int(layout.level[m[0]]),
                    "members": m, "chunk": g // GROUPS_PER_CHUNK, "binary": g in pair_of_group}
                   for g, m in enumerate(groups)],
        "items": [{"id": item.id, "gold": int(layout.gold_index[i]), "keys": list(item.option_keys),
                   "variation": item.variation} for i, item in enumerate(layout.items)],
        "p": probabilities,
        "correct": correct,
        "direction": direction,
    }


def chunk_texts(layout: TaskLayout, groups: Sequence[Sequence[int]], decisive: FamilyDecisive) -> dict[str, Any]:
    """Texts, rendered differences and decisive paths of a block of groups."""
    items: dict[str, Any] = {}
    paths: dict[str, Any] = {}
    for members in groups:
        chosen = [layout.items[i] for i in members]
        states = rendered_states(chosen)
        marks = member_differences(states)
        for item, state, ranges in zip(chosen, states, marks, strict=True):
            items[item.id] = {"state": state, "question": item.question, "domain": item.domain,
                              "options": [[o.key, o.meaning] for o in item.options],
                              "marks": [list(r) for r in ranges]}
        group_id = chosen[0].group or chosen[0].id
        found = decisive.groups.get(group_id)
        if found is not None:
            paths[group_id] = {"paths": list(found.paths), "values": [[leaf, list(v)] for leaf, v in found.values]}
    return {"items": items, "decisive": paths, "note": decisive.note}


def data_files(inputs: ReportInputs, decisive: Mapping[str, FamilyDecisive]) -> dict[str, bytes]:
    """Every data file of the browser: path in the site -> bytes."""
    files: dict[str, bytes] = {}
    for layout in inputs.layouts:
        family = layout.task
        files[f"data/family/{family}.js"] = script(f"family/{family}", family_index(inputs, family))
        groups = _groups(layout)
        for start in range(0, len(groups), GROUPS_PER_CHUNK):
            k = start // GROUPS_PER_CHUNK
            name = f"items/{family}-{k}"
            files[f"data/{name}.js"] = script(name, chunk_texts(layout, groups[start:start + GROUPS_PER_CHUNK],
                                                                decisive[family]))
    return files


def browser_body(inputs: ReportInputs) -> str:
    """The controls; groups.js fills the list and the group view."""
    if not inputs.families:
        return paragraph("No core family was scored, so there is no contrast group to browse.")
    families = "".join(f'<option value="{esc(f)}">{esc(f)}</option>' for f in inputs.families)
    return (
        paragraph("Choose a family, a level and a filter; open a group to see its members side by side: the "
                  "highlighted text is where their states differ (the decisive variation), with the generator's "
                  "declared decisive paths, the gold answers and every system's probabilities for every member. "
                  "Each item id is a link: its URL opens that item.")
        + '<form class="controls" id="controls" onsubmit="return false">'
        f'<label>Family <select id="family" name="family">{families}</select></label>'
        '<label>Level <select id="level" name="level"><option value="">all</option><option value="1">1</option>'
        '<option value="2">2</option><option value="3">3</option></select></label>'
        '<label>Filter <select id="filter" name="filter"><option value="all">all groups</option>'
        '<option value="ab">solved by system A, not by B</option>'
        '<option value="none">solved by no system</option>'
        '<option value="direction">direction right, a label wrong (system A)</option>'
        '<option value="fails">not solved by system A</option></select></label>'
        '<label>System A <select id="system-a" name="a"></select></label>'
        '<label>System B <select id="system-b" name="b"></select></label>'
        "</form>"
        '<p id="status" role="status" aria-live="polite">Loading\u2026</p>'
        '<div class="browser"><nav aria-label="Contrast groups" id="group-list-nav"><h2 id="list-heading">Groups</h2>'
        '<ol id="group-list"></ol><p class="pager"><button type="button" id="more" hidden>Show more groups</button></p>'
        '</nav><section id="group-view" aria-labelledby="group-heading" tabindex="-1">'
        '<h2 id="group-heading">No group open</h2><p>Open a group from the list.</p></section></div>'
        "<noscript><p>The group browser needs JavaScript; every other page works without it.</p></noscript>"
    )
