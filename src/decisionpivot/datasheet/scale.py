"""The scale suite in the datasheet: its section of DATASHEET.md and its Croissant files and record sets (issue 40).

Every number is read from the suite's files (``dp scale``) and its framings' (``dp scale --framings``) after checking
each file against its folder's MANIFEST.json (hash and item count): items, contrast groups, the scale's size at each
difficulty level and how the gold spreads over the levels.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.datasheet.render import LAYER_NAMES, _q, _table, plural
from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import iter_items, sha256_file
from decisionpivot.score_questions import gold_level

SCALE_PREFIX = "scale"
"""Folder of the suite's files and prefix of its record sets (``scale-<family>``, as the release's configs)."""
FRAMED_PREFIX = "scale-invariance"
"""Folder and record-set prefix of its framings."""


@dataclass(frozen=True)
class ScaleFamilyStats:
    """One family file of the scale suite or of its framings."""

    name: str
    """Family name."""
    layer: str
    """Decision layer A-G."""
    path: Path
    """The file."""
    sha256: str
    """Its SHA-256."""
    bytes: int
    """Its size."""
    items: int
    """Items in it."""
    groups: int
    """Contrast groups."""
    levels: tuple[int, ...]
    """The scale's size at difficulty levels 1, 2, 3."""
    gold: dict[int, int]
    """Gold level -> items (plain items only for the framings)."""
    framings: dict[str, int]
    """Framing -> items (empty for the suite itself)."""


@dataclass(frozen=True)
class ScaleStats:
    """The scale suite and its framings as the datasheet reports them."""

    version: str
    """Suite version."""
    seed: int
    """Draw seed (every family's)."""
    families: tuple[ScaleFamilyStats, ...]
    """The suite's families."""
    framed_version: str | None
    """Version of the framings; None when they were not described."""
    framed: tuple[ScaleFamilyStats, ...]
    """The framings' families (empty when not described)."""

    @property
    def items(self) -> int:
        return sum(f.items for f in self.families)

    @property
    def framed_items(self) -> int:
        return sum(f.items for f in self.framed)


def _family(name: str, path: Path, entry: dict[str, Any], where: Path, remake: str) -> ScaleFamilyStats:
    if not path.exists():
        raise DecisionPivotError(f"{path}: listed in {where} but missing (run `{remake}`)")
    items = list(iter_items(path))
    found = sha256_file(path)
    if found != entry["sha256"] or len(items) != entry["items"]:
        raise DecisionPivotError(f"{path}: SHA-256 {found} and {len(items)} items, {where} records {entry['sha256']} "
                                 f"and {entry['items']}; write it again with `{remake}`")
    plain = [i for i in items if i.extra.get("framing", "plain") == "plain"]
    sizes = {i.level: len(i.options) for i in items}
    return ScaleFamilyStats(
        name=name, layer=items[0].layer, path=path, sha256=found, bytes=path.stat().st_size, items=len(items),
        groups=len({i.group for i in items}), levels=tuple(sizes[level] for level in sorted(sizes)),
        gold=dict(sorted(Counter(gold_level(i) for i in plain).items())),
        framings=dict(Counter(str(i.extra["framing"]) for i in items)) if "framing" in items[0].extra else {})


def collect_scale(folder: Path, framed_folder: Path | None = None) -> ScaleStats:
    """The scale suite in ``folder`` (and its framings in ``framed_folder``), each file checked against its
    folder's MANIFEST.json."""
    from decisionpivot.generate.run import read_manifest
    from decisionpivot.scale.framing import FRAMED_BENCHMARK
    from decisionpivot.scale.run import read_scale_manifest

    manifest = read_scale_manifest(folder)
    families = tuple(_family(name, folder / entry["file"], entry, folder / "MANIFEST.json", "dp scale")
                     for name, entry in manifest["families"].items())
    seeds = {int(entry["seed"]) for entry in manifest["families"].values()}
    framed: tuple[ScaleFamilyStats, ...] = ()
    framed_version = None
    if framed_folder is not None:
        found = read_manifest(framed_folder)
        if found.get("benchmark") != FRAMED_BENCHMARK:
            raise DecisionPivotError(f"{framed_folder}/MANIFEST.json: not the scale suite's framings (`dp scale "
                                     "--framings` writes them)")
        framed_version = str(found.get("version"))
        framed = tuple(_family(name, framed_folder / entry["file"], entry, framed_folder / "MANIFEST.json",
                               "dp scale --framings") for name, entry in found["families"].items())
    return ScaleStats(str(manifest.get("version")), min(seeds) if len(seeds) == 1 else -1, families, framed_version,
                      framed)


def scale_markdown(scale: ScaleStats) -> list[str]:
    """The datasheet's section on the scale suite."""
    rows = [(f.name, f.layer, f.items, f.groups, " / ".join(map(str, f.levels)),
             " ".join(f"{level}:{count}" for level, count in f.gold.items())) for f in scale.families]
    lines = [
        f"## Scale suite (version {scale.version})", "",
        *_q("Why does the suite exist?",
            "Every decision interface the project runs has three question types: yes/no, choice and score. A score "
            "question asks for a level on an ordered scale - a priority, a severity, a risk tier, a discrepancy band, "
            "a grade - answered with a probability per level. The core asks only the first two types; the scale "
            "suite asks the third, with exact gold and contrast groups in which one decisive fact moves the right "
            "level up or down by one."),
        *_q("What does it hold?",
            f"{scale.items} score items of {plural(len(scale.families), 'family', 'families')} (one per decision "
            "layer it covers), 200 at each of three difficulty levels per family; the options are the scale's "
            "levels, lowest first, keyed \"0\", \"1\", ..., and each item carries `\"question_type\": \"score\"`. "
            "Items per family, the scale's size at difficulty 1 / 2 / 3 and items per gold level:"),
        *_table(["family", "layer", "items", "groups", "levels", "gold level: items"], rows, right=2), "",
        *_q("How was it made?",
            f"Seeded generators (seed {scale.seed}), one per family, draw a case, apply rules stated in full in the "
            "state (a points rubric, queue rules, a scoring policy, reconciliation rules, a brief's requirements) "
            "and read the level off round band edges; a contrast group moves one decisive fact one step either side "
            "of one level boundary. Independent solvers re-derive every gold (`dp verify`), the shortcut audit runs "
            "content-blind probes and checks that the middle level is no shortcut (`dp audit`); no model wrote or "
            "labelled anything. `dp scale` writes the same bytes on every host; `dp scale --seed N` draws afresh."),
    ]
    if scale.framed:
        framings = sorted({f for part in scale.framed for f in part.framings})
        lines += _q("Is it asked in other ways too?",
                    f"Its framings ({scale.framed_version}; {scale.framed_items} items, a third of the contrast "
                    f"groups of each family) ask every member again: {', '.join(f'`{f}`' for f in framings)} - the "
                    "scale listed highest first, the level keys renamed to letters or words, the rubric reworded by "
                    "hand - each with exact gold through its `key_map`, re-derived by the same solvers.")
    lines += _q("What does it not cover?",
                "- Scales of 3 to 7 levels in five settings, in English; a level depends on one computed quantity.",
                "- Ordinal metrics treat every level step alike; a deployment may weigh a miss upwards and downwards "
                "differently.")
    return lines


def _file_object(part: ScaleFamilyStats, prefix: str, out_dir: Path) -> dict[str, Any]:
    return {"@type": "cr:FileObject", "@id": f"{prefix}/{part.name}.jsonl", "name": f"{prefix}/{part.name}.jsonl",
            "description": (f"{prefix} {part.name} (layer {part.layer}: {LAYER_NAMES.get(part.layer, '?')}), "
                            f"{plural(part.items, 'score item')} in {plural(part.groups, 'contrast group')}"),
            "contentUrl": Path(os.path.relpath(part.path.resolve(), out_dir.resolve())).as_posix(),
            "contentSize": f"{part.bytes} B", "encodingFormat": "application/jsonlines", "sha256": part.sha256}


def _record_set(part: ScaleFamilyStats, prefix: str, fields: tuple[tuple[str, str, str], ...]) -> dict[str, Any]:
    name, file_id = f"{prefix}-{part.name}", f"{prefix}/{part.name}.jsonl"
    levels = " / ".join(map(str, part.levels))
    return {"@type": "cr:RecordSet", "@id": name, "name": name,
            "description": (f"{'Framings of the s' if part.framings else 'S'}cale suite family {part.name}: score "
                            f"questions on scales of {levels} levels (difficulty 1 / 2 / 3), options the levels lowest "
                            "first keyed by their index, exact gold; each record also has `state`, `options` and "
                            "`question_type`" + (", `key_map` and `companions`." if part.framings else ".")),
            "key": {"@id": f"{name}/id"},
            "field": [{"@type": "cr:Field", "@id": f"{name}/{field}", "name": field, "description": description,
                       "dataType": data_type, "source": {"fileObject": {"@id": file_id},
                                                         "extract": {"column": field}}}
                      for field, data_type, description in fields]}


def croissant_parts(scale: ScaleStats, out_dir: Path, fields: tuple[tuple[str, str, str], ...],
                    framed_fields: tuple[tuple[str, str, str], ...]) -> tuple[list[dict[str, Any]],
                                                                            list[dict[str, Any]]]:
    """(file objects, record sets) of the suite and its framings for croissant.json."""
    files = [_file_object(p, SCALE_PREFIX, out_dir) for p in scale.families]
    files += [_file_object(p, FRAMED_PREFIX, out_dir) for p in scale.framed]
    sets = [_record_set(p, SCALE_PREFIX, fields) for p in scale.families]
    sets += [_record_set(p, FRAMED_PREFIX, (*fields, *framed_fields)) for p in scale.framed]
    return files, sets
