"""Invariance for scales: every sampled score item asked in other ways that change nothing decisive (issue 40, item 5).

A decision model must keep its level when nothing decisive changes. Four framings of a score item, each with exact
gold, in the invariance suite's format (``docs/invariance.md``: id ``<base id>~<framing>``, the keys ``base``,
``framing``, ``key_map`` {framed option key: base option key}, ``steer_to`` and ``companions`` null):

* ``plain`` - the item itself, so a run compares within itself;
* ``reversed`` - the scale listed highest first. Every level keeps its key and its meaning; only the order of the
  listing changes. An interface that names levels by their position (System One's ``criteria`` array, whose index 0
  is read as the lowest level) now sees the top level first: a model that answers by position, not by what the level
  says, answers the mirror level - what a peer suite's reversed-scale check found of the sparrow models;
* ``letters`` and ``words`` - the level keys renamed, numbers to letters (``"0"`` -> ``"A"``, lowest first) or to
  words (``"0"`` -> ``"one"``): what a chat model writes or a key readout scores changes, the levels do not (an
  interface that never shows keys, such as System One, is asked the very same question);
* ``rubric`` - the rules reworded by hand: the state's heading of the rules and each sentence of the rubric that
  states how the level is found, rewritten with the same meaning (:data:`REWORDINGS`, per family). Band lines,
  thresholds and facts are left as they are, so the family's solver, which reads them, re-derives every gold.

The suite frames **a third of the contrast groups** of each family of the scale suite at every difficulty level
(whole groups, every member), chosen so that the gold stays spread evenly over the levels (:func:`sampled_groups`),
drawn again by this package from the suite's seed: no sampling seed, so a scale suite and its framings are one pair.
`dp verify` re-derives every framed gold with the scale solvers (which answer framed items through ``key_map``,
:mod:`decisionpivot.solve.framed`), :mod:`decisionpivot.item_origin` accepts the suite only when this module frames
the same bytes again, and ``dp score --scale-invariance`` scores it with the invariance suite's metric functions
(:mod:`decisionpivot.score.scale_invariance`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, Option, atomic_write_bytes, items_bytes, make_folder
from decisionpivot.scale import SCALE_SEED, SCALE_VERSION
from decisionpivot.scale.registry import families, family
from decisionpivot.score_questions import QUESTION_TYPE_KEY, SCORE, check_score_item

FRAMED_BENCHMARK = "DecisionPivot scale invariance"
"""The ``benchmark`` of the framed suite's MANIFEST.json."""
FRAMED_VERSION = "1.0"
"""Version of the framings (and of the framed suite's bytes)."""
PLAIN = "plain"
SCALE_FRAMINGS = (PLAIN, "reversed", "letters", "words", "rubric")
"""The framings, in file order within each member."""
GROUP_STRIDE = 3
"""One contrast group in GROUP_STRIDE of each family and difficulty level is framed (:func:`sampled_groups`)."""
MANIFEST_KEYS = ("benchmark", "version", "question_type", "scale_version", "framings", "group_stride", "families",
                 "items")
"""The keys of the framed suite's MANIFEST.json, in the order it is written."""
ENTRY_KEYS = ("file", "layer", "items", "base_items", "groups", "sha256", "generator_version", "seed")
"""The keys of one family's entry in it."""
WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
"""Level keys of the ``words`` framing, lowest first."""

REWORDINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "support_priority": (
        ("Queue rules:", "How the desk ranks the requests in its queue:"),
        ("- A request's priority depends only on how long it has been open.",
         "- Nothing but the time a request has been open sets its priority."),
        ("- Time open runs from the moment the request is logged (not from when a message arrived) to the moment "
         "the queue is checked.",
         "- The time open is counted from when the request was logged - not from when any message came in - until "
         "the queue is checked."),
        ("- Every minute counts, nights and weekends included.",
         "- Nights and weekends count too: every minute is counted."),
        ("- Priorities:", "- Priority by the time open:"),
    ),
    "breach_severity": (
        ("How the office rates an incident:", "The office's rubric for rating an incident:"),
        ("- Data exposed: points for each kind of data, each kind counted once:",
         "- Data exposed: each kind of data exposed adds its points once, however often it appears:"),
        ("- Severity by total points:", "- The total of the points sets the severity:"),
    ),
    "supplier_risk": (
        ("The procurement team's risk policy:", "How the procurement team sets a supplier's risk tier:"),
        ("- Each figure below can put the supplier in a risk tier; the supplier's tier is the highest tier any of its "
         "figures reaches.",
         "- The supplier's tier is the highest tier reached by any one of the figures below, each of which can "
         "reach a tier on its own."),
    ),
    "reconcile_band": (
        ("The team's rules:", "How the team bands a reconciliation:"),
        ("- The difference is the statement's balance less the ledger's balance; its band depends on its size, "
         "whichever way it goes.",
         "- Take the ledger's balance from the statement's balance: that is the difference, and its size alone, in "
         "either direction, sets the band."),
        ("- Bands:", "- Band by the size of the difference:"),
    ),
    "listing_match": (
        ("How the team scores a match:", "How the team scores a listing against a brief:"),
        ("- Each requirement of the brief the listing meets earns its points; the others earn none.",
         "- A listing earns the points of every requirement of the brief it meets, and nothing for one it misses."),
        ("- Each requirement of the brief the listing meets earns its points (1 point each); the others earn none.",
         "- A listing earns the points of every requirement of the brief it meets (1 point each), and nothing for one "
         "it misses."),
        ("- Grades by points:", "- The points earned set the grade:"),
    ),
}
"""Per scale family, (sentence of the rubric, the same rule reworded): whole lines of the state, each replaced where
it occurs; every item has at least its heading and one rule reworded (:func:`reworded_state`)."""


def reworded_state(item: Item) -> str:
    """The item's state with its rubric reworded (:data:`REWORDINGS`); an error when no rule line of it is."""
    if not isinstance(item.state, str):
        raise DecisionPivotError(f"{item.id}: scale states are text")
    lines = item.state.split("\n")
    changed = 0
    for old, new in REWORDINGS[item.family]:
        for i, line in enumerate(lines):
            if line == old:
                lines[i] = new
                changed += 1
    if changed < 2:
        raise DecisionPivotError(f"{item.id}: only {changed} line(s) of its rubric could be reworded")
    return "\n".join(lines)


def _framed(item: Item, framing: str, options: Sequence[Option], key_map: dict[str, str], answer: str,
            state: str | None = None) -> Item:
    extra = {QUESTION_TYPE_KEY: SCORE, "base": item.id, "framing": framing, "key_map": key_map, "steer_to": None,
             "companions": None}
    return replace(item, id=f"{item.id}~{framing}", options=tuple(options), answer=answer, extra=extra,
                   state=item.state if state is None else state)


def frame_item(item: Item, framing: str) -> Item:
    """``item`` (a score item of the suite) in one framing of :data:`SCALE_FRAMINGS`."""
    check_score_item(item)
    keys = list(item.option_keys)
    identity = {key: key for key in keys}
    gold = str(item.answer)
    if framing == PLAIN:
        return _framed(item, framing, item.options, identity, gold)
    if framing == "reversed":
        return _framed(item, framing, tuple(reversed(item.options)), identity, gold)
    if framing in ("letters", "words"):
        names = [chr(ord("A") + i) for i in range(len(keys))] if framing == "letters" else list(WORDS[:len(keys)])
        renamed = {key: name for key, name in zip(keys, names, strict=True)}
        options = tuple(Option(renamed[o.key], o.meaning) for o in item.options)
        return _framed(item, framing, options, {name: key for key, name in renamed.items()}, renamed[gold])
    if framing == "rubric":
        return _framed(item, framing, item.options, identity, gold, reworded_state(item))
    raise DecisionPivotError(f"unknown scale framing {framing!r}; expected one of {', '.join(SCALE_FRAMINGS)}")


def check_framed_item(item: Item, where: str = "") -> None:
    """Raise ItemError unless ``item`` is a framed score item: a framing of :data:`SCALE_FRAMINGS`, and its options
    put back through ``key_map`` and in level order a well-formed score item (:func:`check_score_item`)."""
    from decisionpivot.items import ItemError

    where = where or item.id
    key_map = item.extra.get("key_map")
    if item.extra.get("framing") not in SCALE_FRAMINGS:
        raise ItemError(f"{where}: field 'framing': expected one of {list(SCALE_FRAMINGS)}, found "
                        f"{item.extra.get('framing')!r}")
    if not isinstance(key_map, dict) or sorted(key_map) != sorted(item.option_keys):
        raise ItemError(f"{where}: field 'key_map': expected every option key once, found {key_map!r}")
    options = sorted((Option(str(key_map[o.key]), o.meaning) for o in item.options),
                     key=lambda o: (len(o.key), o.key))
    check_score_item(replace(item, options=tuple(options), answer=str(key_map.get(str(item.answer)))), where)


def _spread(counts: Sequence[int], golds: Sequence[int]) -> tuple[int, int]:
    """(most - least frequent gold level, most frequent) of ``counts`` with a group of ``golds`` added."""
    after = list(counts)
    for gold in golds:
        after[gold] += 1
    return max(after) - min(after), max(after)


def sampled_groups(items: Sequence[Item]) -> set[str]:
    """A third (rounded up) of each difficulty level's contrast groups: taken one at a time, each the group (earliest
    in file order among equals) that leaves the gold counts of the level's scale closest to even (the smallest spread
    between its most and least frequent level, then the fewest items on the most frequent), so the middle level is
    no more often gold than any other (the audit's middle-level check holds on the framings too)."""
    from decisionpivot.score_questions import gold_level

    by_level: dict[int, dict[str, list[int]]] = {}
    for item in items:
        by_level.setdefault(item.level or 0, {}).setdefault(item.group or item.id, []).append(gold_level(item))
    chosen: set[str] = set()
    for level in sorted(by_level):
        groups = by_level[level]
        size = max(len(next(i for i in items if (i.level or 0) == level).options), 1)
        counts = [0] * size
        remaining = list(groups)
        for _ in range(-(-len(groups) // GROUP_STRIDE)):
            best = min(remaining, key=lambda g, now=tuple(counts): _spread(now, groups[g]))  # first of equals
            remaining.remove(best)
            for gold in groups[best]:
                counts[gold] += 1
            chosen.add(best)
    return chosen


def framed_groups(items: Sequence[Item]) -> list[Item]:
    """The sampled contrast groups of a family's items (:func:`sampled_groups`), every member in every framing, in
    file order."""
    chosen = sampled_groups(items)
    return [frame_item(item, framing) for item in items if (item.group or item.id) in chosen
            for framing in SCALE_FRAMINGS]


def framed_family(name: str, seed: int = SCALE_SEED) -> list[Item]:
    """Scale family ``name`` drawn with ``seed`` (as `dp scale` draws it) and framed."""
    from decisionpivot.scale.run import draw_family

    return framed_groups(draw_family(name, seed).items)


def framed_entry(name: str, items: Sequence[Item], sha256: str, seed: int) -> dict[str, Any]:
    """One family's entry in the framed suite's MANIFEST.json (:data:`ENTRY_KEYS`)."""
    return {"file": f"{name}.jsonl", "layer": family(name).layer, "items": len(items),
            "base_items": len({i.extra["base"] for i in items}), "groups": len({i.group for i in items}),
            "sha256": sha256, "generator_version": items[0].version, "seed": seed}


def default_framed_folder(seed: int) -> Path:
    """datasets/scale-invariance/<version>/ for the release seed, datasets/scale-invariance/fresh/seed-N/ else."""
    root = Path("datasets") / "scale-invariance"
    return root / FRAMED_VERSION if seed == SCALE_SEED else root / "fresh" / f"seed-{seed}"


def write_framed(out: str | Path, seed: int = SCALE_SEED, names: Sequence[str] | None = None) -> dict[str, Any]:
    """Frame the named scale families (all by default) of the suite drawn with ``seed``; write ``<family>.jsonl`` and
    MANIFEST.json (keeping the entries of families framed before whose files are there). Returns the manifest."""
    out = Path(out)
    chosen = list(names) if names else [spec.name for spec in families()]
    for name in chosen:
        family(name)
    make_folder(out)
    entries: dict[str, Any] = {}
    manifest_path = out / "MANIFEST.json"
    if manifest_path.exists():
        from decisionpivot.data_file import read_json_file

        old = read_json_file(manifest_path, "the MANIFEST.json `dp scale --framings` writes")
        if not isinstance(old, dict) or old.get("benchmark") != FRAMED_BENCHMARK:
            raise DecisionPivotError(f"{manifest_path}: not a framed scale suite's manifest (expected benchmark "
                                     f"{FRAMED_BENCHMARK!r}); choose another --out")
        if old.get("families") and any(e.get("seed") != seed for e in old["families"].values()
                                       if isinstance(e, dict)):
            raise DecisionPivotError(f"{manifest_path}: framed from another seed; choose another --out")
        entries = {k: v for k, v in (old.get("families") or {}).items()
                   if isinstance(v, dict) and (out / str(v.get("file", ""))).is_file()}
    for name in chosen:
        items = framed_family(name, seed)
        data = items_bytes(items)
        atomic_write_bytes(out / f"{name}.jsonl", data)
        entries[name] = framed_entry(name, items, hashlib.sha256(data).hexdigest(), seed)
    manifest = {"benchmark": FRAMED_BENCHMARK, "version": FRAMED_VERSION, "question_type": SCORE,
                "scale_version": SCALE_VERSION, "framings": list(SCALE_FRAMINGS), "group_stride": GROUP_STRIDE,
                "families": dict(sorted(entries.items())),
                "items": sum(int(e.get("items", 0)) for e in entries.values())}
    atomic_write_bytes(manifest_path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return manifest
