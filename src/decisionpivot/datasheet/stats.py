"""Statistics the datasheet and the Croissant file report, computed from the items files and task cards.

Everything is counted from the files as they are (``iter_items`` validates each line), so the
datasheet cannot drift from the items. Quantiles use the nearest-rank method on integer lengths,
so they are exact integers and identical on every host.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import IRRELEVANT_LENGTHS, PLAIN, STEERING
from decisionpivot.items import Item, iter_items, render_state, sha256_file
from decisionpivot.reconstruct.card import TaskCard

QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Reported state-length quantiles: min, lower quartile, median, upper quartile, max."""
NO_VALUE = "(none)"

if TYPE_CHECKING:
    from decisionpivot.datasheet.scale import ScaleStats


def nearest_rank(sorted_values: Sequence[int], q: float) -> int:
    """The nearest-rank ``q`` quantile of sorted integers (q=0 gives the minimum)."""
    if not sorted_values:
        raise ValueError("no values")
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def _counts(values: Iterable[Any]) -> dict[str, int]:
    """Counts keyed by the value as text (``(none)`` for None), sorted by key."""
    counter = Counter(NO_VALUE if v is None else str(v) for v in values)
    return dict(sorted(counter.items()))


@dataclass(frozen=True)
class PartStats:
    """Statistics of one items file: a core family or a reference task."""

    name: str
    kind: str
    """``core`` or ``reference``."""
    layer: str
    path: Path
    sha256: str
    bytes: int
    items: int
    groups: int
    """Distinct contrast groups (0 when the items are ungrouped)."""
    levels: dict[str, int]
    answers: dict[str, int]
    option_counts: dict[str, int]
    """Number of options -> items."""
    state_chars: tuple[int, ...]
    """State length in characters (as rendered to a model) at QUANTILES."""
    structured_states: int
    """Items whose state is a JSON object."""
    domains: dict[str, int]
    variations: dict[str, int]
    versions: tuple[str, ...]
    extra_keys: tuple[str, ...]
    """Keys beyond the common schema (reference metrics)."""


def part_stats(name: str, kind: str, path: Path) -> PartStats:
    """Read one items file and compute its statistics."""
    items: list[Item] = list(iter_items(path))
    if not items:
        raise DecisionPivotError(f"{path}: no items")
    lengths = sorted(len(render_state(i.state)) for i in items)
    layers = {i.layer for i in items}
    if len(layers) != 1:
        raise DecisionPivotError(f"{path}: items of several layers {sorted(layers)}")
    return PartStats(
        name=name, kind=kind, layer=layers.pop(), path=path, sha256=sha256_file(path), bytes=path.stat().st_size,
        items=len(items),
        groups=len({i.group for i in items if i.group is not None}),
        levels=_counts(i.level for i in items),
        answers=_counts(i.answer for i in items),
        option_counts=_counts(len(i.options) for i in items),
        state_chars=tuple(nearest_rank(lengths, q) for q in QUANTILES),
        structured_states=sum(1 for i in items if isinstance(i.state, dict)),
        domains=_counts(i.domain for i in items),
        variations=_counts(i.variation for i in items),
        versions=tuple(sorted({i.version for i in items})),
        extra_keys=tuple(sorted({k for i in items for k in i.extra})),
    )


@dataclass(frozen=True)
class CardRow:
    """One task card as the datasheet reports it."""

    task: str
    layer: str
    title: str
    license: str
    license_class: str
    label_source: str
    route: str
    metric: str
    target: int
    present: bool
    """Whether the reconstructed items file was found."""
    restriction: str = ""
    """For a reconstruct-only task: restricted by its terms, or held back by the route rules only
    (``licenses.routes.restriction_basis``); empty when redistributed."""


@dataclass(frozen=True)
class DatasheetStats:
    """Everything the datasheet and the Croissant file report."""

    core: tuple[PartStats, ...]
    reference: tuple[PartStats, ...]
    cards: tuple[CardRow, ...]
    core_manifest: dict[str, Any]
    seeds: tuple[int, ...] = field(default_factory=tuple)
    """Seeds of the core families (from the core manifest)."""
    invariance: SuiteStats | None = None
    """The invariance suite; None when no suite folder was given."""
    scale: ScaleStats | None = None
    """The scale suite (and its framings); None when no scale folder was given."""

    @property
    def core_items(self) -> int:
        return sum(p.items for p in self.core)

    @property
    def reference_items(self) -> int:
        return sum(p.items for p in self.reference)

    def card_counts(self, attribute: str) -> dict[str, int]:
        """Counts of one CardRow attribute (license_class, label_source, route, layer) over all cards."""
        return _counts(getattr(c, attribute) for c in self.cards)


def _card_row(card: TaskCard, present: bool) -> CardRow:
    from decisionpivot.licenses.routes import restriction_basis
    from decisionpivot.release.hub import release_route

    basis = restriction_basis(card)
    return CardRow(task=card.id, layer=card.layer, title=card.title,
                   license=card.license.spdx or card.license.name, license_class=card.license.license_class,
                   label_source=card.label_source, route=release_route(card).route, metric=card.metric,
                   target=card.target, present=present, restriction=basis.kind if basis else "")


def collect(core_dir: Path, reference_dir: Path | None, cards: dict[str, TaskCard],
            invariance_dir: Path | None = None, scale_dir: Path | None = None,
            scale_invariance_dir: Path | None = None) -> DatasheetStats:
    """Statistics of every core family in the core manifest, every present reference task, every card, and the
    invariance suite.

    ``reference_dir`` None reads no reference items: every card counts as absent. ``invariance_dir`` None
    describes no suite; ``scale_dir`` None no scale suite (``scale_invariance_dir``: its framings).
    """
    from decisionpivot.datasheet.scale import collect_scale
    from decisionpivot.generate.run import read_manifest

    manifest = read_manifest(core_dir)
    families = manifest.get("families", {})
    core = tuple(part_stats(name, "core", core_dir / entry["file"]) for name, entry in families.items())
    present = {} if reference_dir is None else {task: reference_dir / f"{task}.jsonl" for task in sorted(cards)}
    present = {task: path for task, path in present.items() if path.exists()}
    reference = tuple(part_stats(task, "reference", path) for task, path in present.items())
    rows = tuple(_card_row(cards[task], task in present) for task in sorted(cards))
    seeds = tuple(sorted({int(e["seed"]) for e in families.values() if "seed" in e}))
    suite = None if invariance_dir is None else collect_suite(invariance_dir)
    if suite is not None:
        drawn_from = (read_manifest(invariance_dir).get("core") or {}).get("manifest_sha256")
        core_hash = sha256_file(core_dir / "MANIFEST.json")
        if drawn_from != core_hash:
            raise DecisionPivotError(f"{invariance_dir}/MANIFEST.json: the suite was drawn from a core whose "
                                     f"MANIFEST.json has SHA-256 {drawn_from}, not {core_dir}/MANIFEST.json "
                                     f"({core_hash}); describe the suite drawn from this core (`dp frame --items "
                                     f"{core_dir}`)")
    return DatasheetStats(core=core, reference=reference, cards=rows, core_manifest=manifest, seeds=seeds,
                          invariance=suite,
                          scale=None if scale_dir is None else collect_scale(scale_dir, scale_invariance_dir))


# --------------------------------------------------------------------------------------------- invariance suite

INSERTING_FRAMINGS = (*IRRELEVANT_LENGTHS, STEERING)
"""Framings that add text to the state; the datasheet reports how much."""


@dataclass(frozen=True)
class SuiteFamilyStats:
    """Statistics of one family of the invariance suite."""

    name: str
    layer: str
    path: Path
    sha256: str
    bytes: int
    items: int
    base_items: int
    """Core items framed (plain items)."""
    groups: int
    """Contrast groups sampled whole."""
    framings: dict[str, int]
    """Framing -> items, in the suite's framing order (framings without items left out)."""
    added_chars: dict[str, tuple[int, ...]]
    """Inserting framing -> characters it added to the state as shown to a model (framed minus plain rendered
    state length), at QUANTILES."""


@dataclass(frozen=True)
class SuiteStats:
    """The invariance suite as the datasheet reports it: its manifest's facts and counts from its files."""

    folder: Path
    version: str
    seed: int
    core_version: str
    """The core release the groups were sampled from."""
    base_items_per_family: int
    framings: tuple[str, ...]
    """Every framing of the suite's format, in order (from the manifest)."""
    families: tuple[SuiteFamilyStats, ...]

    @property
    def items(self) -> int:
        return sum(f.items for f in self.families)

    @property
    def base_items(self) -> int:
        return sum(f.base_items for f in self.families)

    @property
    def groups(self) -> int:
        return sum(f.groups for f in self.families)


def suite_family_stats(name: str, path: Path, framings: Sequence[str]) -> SuiteFamilyStats:
    """Read one family file of the suite and count its framings and the text they add."""
    items: list[Item] = list(iter_items(path))
    if not items:
        raise DecisionPivotError(f"{path}: no items")
    for number, item in enumerate(items, start=1):
        if not isinstance(item.extra.get("framing"), str) or not isinstance(item.extra.get("base"), str):
            raise DecisionPivotError(f"{path}, line {number}: not a framed item (expected 'base' and 'framing', "
                                     "as `dp frame` writes)")
    plain = {i.extra["base"]: len(render_state(i.state)) for i in items if i.extra["framing"] == PLAIN}
    found = Counter(i.extra["framing"] for i in items)
    added: dict[str, tuple[int, ...]] = {}
    for framing in INSERTING_FRAMINGS:
        sizes = sorted(len(render_state(i.state)) - plain[i.extra["base"]] for i in items
                       if i.extra["framing"] == framing and i.extra["base"] in plain)
        if sizes:
            added[framing] = tuple(nearest_rank(sizes, q) for q in QUANTILES)
    layers = sorted({i.layer for i in items})
    if len(layers) != 1:
        raise DecisionPivotError(f"{path}: items of several layers {layers}")
    return SuiteFamilyStats(
        name=name, layer=layers[0], path=path, sha256=sha256_file(path), bytes=path.stat().st_size, items=len(items),
        base_items=len({i.extra["base"] for i in items}), groups=len({i.group for i in items if i.group is not None}),
        framings={f: found[f] for f in framings if found[f]}, added_chars=added)


def collect_suite(folder: Path) -> SuiteStats:
    """Statistics of every family of the invariance suite in ``folder``, after checking each file against the
    suite's MANIFEST.json (hash and item count)."""
    from decisionpivot.frame.suite import read_suite_manifest

    where = folder / "MANIFEST.json"
    manifest = read_suite_manifest(folder, 'describe none with --invariance ""')
    framings = tuple(str(f) for f in manifest.get("framings") or ())
    if not framings:
        raise DecisionPivotError(f"{where}: lists no framings")
    families = []
    for name, entry in manifest["families"].items():
        path = folder / entry["file"]
        if not path.exists():
            raise DecisionPivotError(f"{path}: listed in {where} but missing (run `dp frame`)")
        part = suite_family_stats(name, path, framings)
        if part.sha256 != entry["sha256"] or part.items != entry["items"]:
            raise DecisionPivotError(f"{path}: SHA-256 {part.sha256} and {part.items} items, {where} records "
                                     f"{entry['sha256']} and {entry['items']}; redraw the suite with `dp frame`")
        families.append(part)
    return SuiteStats(folder=folder, version=str(manifest.get("version")), seed=int(manifest.get("seed", 0)),
                      core_version=str((manifest.get("core") or {}).get("version")),
                      base_items_per_family=int(manifest.get("base_items_per_family", 0)), framings=framings,
                      families=tuple(families))
