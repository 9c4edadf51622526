"""The released invariance suite: a seeded sample of whole contrast groups per family, every framing of
every member, written like the core (items files + MANIFEST.json with hashes) and byte-reproducible.

The sample depends only on the seed, the family and the release's group ids (never on PYTHONHASHSEED,
locale or the number of processes): each family's groups are shuffled within their level by a stable
stream, then taken level by level in turn until the family has :data:`BASE_ITEMS_PER_FAMILY` base items.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError, check_names
from decisionpivot.frame import material
from decisionpivot.frame.framings import FRAMINGS, SUITE_VERSION, frame_item
from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.generate.family import Group, flatten
from decisionpivot.generate.run import draw_groups
from decisionpivot.items import Item, atomic_write_bytes, items_bytes, make_folder, read_items

MANIFEST_NAME = "MANIFEST.json"
BENCHMARK = "DecisionPivot invariance"
"""``benchmark`` of a suite's MANIFEST.json (what tells a suite folder from a core folder)."""
SUITE_KEYS = ("benchmark", "version", "seed", "core", "base_items_per_family", "framings", "families", "items")
"""The keys of a suite's MANIFEST.json, in the order written."""
CORE_KEYS = ("version", "manifest_sha256")
"""The keys of its ``core`` object: the core version framed and the SHA-256 of that core's MANIFEST.json."""
MODIFIED_CORE = "modified"
"""Key ``core`` gains when the core was read with ``--allow-modified-items``: family -> what did not match (such
a suite is never re-derivable, and every verb refuses it without the flag)."""
ENTRY_KEYS = ("file", "layer", "items", "base_items", "groups", "sha256", "seed")
"""The keys of one family's entry, in the order written."""
OPTIONAL_ENTRY_KEYS = ("core_seed",)
"""Keys an entry has only sometimes: ``core_seed``, the seed of the core draw framed, when it is not the release
seed (the released suite 1.0, whose manifest the release pins, was framed from the release and does not say so)."""
SUITE_SEED = 20261030
"""The released suite's seed (params.yaml ``frame.seed``)."""
BASE_ITEMS_PER_FAMILY = 25
"""Core items framed per family: whole groups are taken until a family has at least this many. With 18 framings of a
yes/no item and 15 of a choice item the suite holds 5,744 items (suite 1.0: 56 items, 11 framings, 7,758), so the main
job's invariance runs take minutes. 22 would give 4,936 items, but on 8 triage_order groups the shortcut audit's
bag-of-words probe then beats its baseline by 6.5 points by chance (5 allowed; -0.2 on the whole core); 25 is the
smallest size from 22 up at which every family passes the audit's gate."""


def sample_groups(items: Sequence[Item], seed: int, base_items: int = BASE_ITEMS_PER_FAMILY) -> list[str]:
    """Group ids of the sample, in file order: levels taken in turn, each level's groups in a seeded order."""
    by_level: dict[int, list[str]] = defaultdict(list)
    sizes: dict[str, int] = defaultdict(int)
    for item in items:
        if item.group is None or item.level is None:
            raise DecisionPivotError(f"{item.id}: only core items (with a contrast group and a level) are framed")
        if item.group not in sizes:
            by_level[item.level].append(item.group)
        sizes[item.group] += 1
    family = items[0].family if items else ""
    queues = []
    for level in sorted(by_level):
        groups = sorted(by_level[level])
        random.Random(stable_seed("decisionpivot-frame-sample", seed, family, level)).shuffle(groups)
        queues.append(groups)
    chosen: list[str] = []
    total = 0
    while total < base_items and any(queues):
        for queue in queues:
            if queue and total < base_items:
                group = queue.pop(0)
                chosen.append(group)
                total += sizes[group]
    order = {g: i for i, g in enumerate(dict.fromkeys(i.group for i in items))}
    return sorted(chosen, key=order.__getitem__)


MIN_DECISIVE_LENGTH = 4
"""Decisive strings this long or longer are kept out of irrelevant text (shorter ones - ``in``, ``A`` - are
words every text has; figures, dates and versions are kept out by the text carrying no digit at all)."""


def decisive_strings(group: Group) -> frozenset[str]:
    """Every string value at a decisive path of any member's case (at least :data:`MIN_DECISIVE_LENGTH` long)."""
    values: set[str] = set()
    for member in group.members:
        for path, value in flatten(dict(member.case)).items():
            if isinstance(value, str) and len(value.strip()) >= MIN_DECISIVE_LENGTH and any(
                    path == d or path.startswith(d + "/") for d in group.decisive):
                values.add(value.strip())
    return frozenset(values)


def rebuilt_groups(items: Sequence[Item], core_seed: int, chosen: set[str]) -> dict[str, Group]:
    """The chosen groups rebuilt with their cases from the generator's plan and seeded RNG (as the draw built
    them); each member's rendered state must be the item's, else the items are not this generator's draw."""
    name = items[0].family
    by_group: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_group[item.group or item.id].append(item)
    out: dict[str, Group] = {}
    for group_id, group in draw_groups(name, core_seed):
        if group_id not in chosen:
            continue
        if [m.state for m in group.members] != [i.state for i in by_group[group_id]]:
            raise DecisionPivotError(f"{name}: group {group_id} of the items is not what this package's generator "
                                     f"draws with seed {core_seed} (frame a release drawn by this package)")
        out[group_id] = group
    return out


def frame_family(items: Sequence[Item], seed: int, core_seed: int,
                 base_items: int = BASE_ITEMS_PER_FAMILY) -> list[Item]:
    """The framed items of one family's sample, ordered by base id then by framing."""
    if not items:
        return []
    name = items[0].family
    chosen = set(sample_groups(items, seed, base_items))
    groups = rebuilt_groups(items, core_seed, chosen)
    stuff = material(name)
    out: list[Item] = []
    for item in sorted((i for i in items if i.group in chosen), key=lambda i: i.id):
        out.extend(frame_item(item, stuff, seed, decisive_strings(groups[item.group or ""])))
    return out


def suite_entry(name: str, layer: str, framed: Sequence[Item], sha256: str, seed: int,
                core_seed: int) -> dict[str, Any]:
    """One family's entry in a suite's MANIFEST.json (:data:`ENTRY_KEYS`, and ``core_seed`` unless the release
    seed): what ``dp frame`` writes, and what :mod:`decisionpivot.item_origin` re-derives to compare with."""
    from decisionpivot import RELEASE_SEED

    entry: dict[str, Any] = {
        "file": f"{name}.jsonl", "layer": layer, "items": len(framed),
        "base_items": len({i.extra["base"] for i in framed}), "groups": len({i.group for i in framed}),
        "sha256": sha256, "seed": seed,
    }
    if core_seed != RELEASE_SEED:
        entry["core_seed"] = core_seed
    return entry


def read_suite_manifest(folder: Path, leave_out: str) -> dict[str, Any]:
    """The MANIFEST.json of the invariance suite in ``folder``, refused (naming the file) when there is none or it
    is not a suite's; ``leave_out`` says how the calling verb does without one (e.g. ``--invariance ""``)."""
    from decisionpivot.generate.run import read_manifest

    path = folder / "MANIFEST.json"
    if not path.exists():
        raise DecisionPivotError(f"{path}: no invariance suite here (draw it with `dp frame`, or {leave_out})")
    manifest = read_manifest(folder)
    if manifest.get("benchmark") != BENCHMARK or not isinstance(manifest.get("families"), dict):
        raise DecisionPivotError(f"{path}: not an invariance suite manifest (expected benchmark {BENCHMARK!r} and a "
                                 "'families' object, as `dp frame` writes)")
    return manifest


def _core_manifest(core: Path) -> tuple[dict[str, Any], str]:
    path = core / MANIFEST_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        missing = f"{core}: no such folder" if not core.is_dir() else f"{path}: no MANIFEST.json"
        raise DecisionPivotError(f"{missing} (draw the core first with `dp generate`)") from None
    except OSError as exc:
        raise DecisionPivotError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DecisionPivotError(f"{path}: not a valid JSON manifest ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("families"), dict):
        raise DecisionPivotError(f"{path}: expected a manifest object with a 'families' entry")
    return manifest, hashlib.sha256(data).hexdigest()


def write_suite(core: str | Path, out: str | Path, seed: int = SUITE_SEED, families: Sequence[str] | None = None,
                version: str = SUITE_VERSION, base_items: int = BASE_ITEMS_PER_FAMILY,
                allow_modified_items: bool = False) -> dict[str, Any]:
    """Frame the sample of every family of the release in ``core`` into ``out``; returns the manifest.

    Every core file is first accepted by :func:`decisionpivot.item_origin.accept_items_file` (a core this package
    re-derives or released); with ``allow_modified_items`` a file it refuses is framed all the same and the
    manifest's ``core`` records it under ``modified`` (such a suite is then refused without the flag).
    """
    from decisionpivot.item_origin import accept_items_file, modified_items
    from decisionpivot.items import sha256_file

    core, out = Path(core), Path(out)
    core_manifest, core_hash = _core_manifest(core)
    if out.resolve() == core.resolve():
        raise DecisionPivotError(f"{out}: the suite would overwrite the core items it is drawn from; "
                                 "write it to another folder (--out)")
    entries = core_manifest["families"]
    names = list(families) if families else list(entries)
    check_names("family", names, entries, where=f"{core}/MANIFEST.json", plural="families")
    for name in names:
        material(name)
    checks = []
    for name in sorted(names):  # every core file accepted before anything is written
        entry = entries[name]
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise DecisionPivotError(f"{core}/MANIFEST.json: family {name!r} names no items file")
        checks.append((name, accept_items_file(core / entry["file"], sha256_file(core / entry["file"]),
                                               allow_modified_items, name)))
    make_folder(out)
    manifest: dict[str, Any] = {
        "benchmark": BENCHMARK, "version": version, "seed": seed,
        "core": {"version": core_manifest.get("version", ""), "manifest_sha256": core_hash},
        "base_items_per_family": base_items, "framings": list(FRAMINGS), "families": {},
    }
    modified = modified_items(checks)
    if modified:
        manifest["core"][MODIFIED_CORE] = modified
    for name in sorted(names):
        entry = entries[name]
        items = read_items(core / entry["file"])
        core_seed = entry.get("seed")
        if not isinstance(core_seed, int):
            raise DecisionPivotError(f"{core}/MANIFEST.json: family {name!r} records no draw seed")
        framed = frame_family(items, seed, core_seed, base_items)
        data = items_bytes(framed)
        path = out / f"{name}.jsonl"
        atomic_write_bytes(path, data)
        manifest["families"][name] = suite_entry(name, entry.get("layer", framed[0].layer if framed else ""), framed,
                                                 hashlib.sha256(data).hexdigest(), seed, core_seed)
    manifest["items"] = sum(e["items"] for e in manifest["families"].values())
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(out / MANIFEST_NAME, text.encode("utf-8"))
    return manifest
