"""Drawing families: plan -> seeded groups -> checked contract -> numbered items -> files + MANIFEST.

Every group gets its own ``random.Random`` seeded by hashing (family, seed, level, group index),
so a draw does not depend on the order or the number of processes that build it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import LEVELS, FamilyConfig, Group, GroupContractError, check_group
from decisionpivot.generate.registry import families, family
from decisionpivot.items import Item, atomic_write_bytes, items_bytes, make_folder, sha256_file

MANIFEST_NAME = "MANIFEST.json"
CORE_BENCHMARK = "DecisionPivot core"
"""``benchmark`` of a core folder's MANIFEST.json (what tells a core draw from an invariance suite)."""
MANIFEST_KEYS = ("benchmark", "version", "families")
"""The keys of a core MANIFEST.json, in the order written."""
ENTRY_KEYS = ("file", "layer", "items", "groups", "sha256", "generator_version", "seed")
"""The keys of one family's entry in a core MANIFEST.json, in the order written."""


@dataclass(frozen=True)
class FamilyDraw:
    """The items of one family drawn with one seed, and what the manifest records of them."""

    family: str
    """Family name."""
    seed: int
    """Seed the draw was made with."""
    version: str
    """Generator version."""
    items: tuple[Item, ...]
    """The items in file order."""


def draw_groups(name: str, seed: int, config: FamilyConfig | None = None) -> Iterator[tuple[str, Group]]:
    """The contrast groups of one family for ``seed`` in file order, each checked against the group
    contract, with the id its items carry (``<family>:g<4 digits>``): what :func:`draw_family` numbers
    into items, and what ``dp report`` reads the declared decisive paths from."""
    spec = family(name)
    config = config if config is not None else spec.config_type()
    if not isinstance(config, spec.config_type):
        raise TypeError(f"{name}: config must be a {spec.config_type.__name__}")
    config.validate()
    plans = list(spec.plan(config))
    per_level = Counter(p.level for p in plans)
    if set(per_level) - set(LEVELS):
        raise GroupContractError(f"{name}: plan uses levels outside 1-3: {sorted(per_level)}")
    for group_number, plan in enumerate(sorted(plans, key=lambda p: (p.level, p.index))):
        rng = group_rng(name, seed, plan.level, plan.index)
        group = spec.build_group(plan, rng, config)
        expected = spec.expected_answers(plan) if spec.expected_answers else None
        check_group(name, plan, group, expected)
        yield f"{name}:g{group_number:04d}", group


def draw_family(name: str, seed: int, config: FamilyConfig | None = None) -> FamilyDraw:
    """Generate all items of one family for ``seed`` (checked against the group contract)."""
    spec = family(name)
    config = config if config is not None else spec.config_type()
    items: list[Item] = []
    level_items: Counter[int] = Counter()
    seen_states: dict[tuple[bool, str], str] = {}
    for group_id, group in draw_groups(name, seed, config):
        for member in group.members:
            item = Item(
                id=f"{name}:{len(items):05d}",
                family=name,
                layer=spec.layer,
                version=spec.version,
                group=group_id,
                level=group.level,
                variation=member.variation,
                domain=group.domain,
                state=member.state,
                question=member.question or spec.question,
                options=member.options,
                answer=member.answer,
            )
            key = _state_key(item.state)
            if key in seen_states:
                raise GroupContractError(f"{name}: {item.id} repeats the state of {seen_states[key]}")
            seen_states[key] = item.id
            items.append(item)
            level_items[group.level] += 1
    for level in LEVELS:
        if level_items[level] != config.items_per_level:
            raise GroupContractError(
                f"{name}: level {level} has {level_items[level]} items, expected {config.items_per_level}"
            )
    return FamilyDraw(family=name, seed=seed, version=spec.version, items=tuple(items))


def _state_key(state: str | dict[str, Any]) -> tuple[bool, str]:
    """What two items' states must share to repeat each other: their JSON text with sorted keys. A plain
    ``str`` state keys by itself, which tells strings apart exactly as their JSON text does (the flag keeps
    them apart from JSON texts, which never equalled a string's: that starts with a quote), without
    escaping every state (a twentieth of a draw)."""
    if type(state) is str:
        return True, state
    return False, json.dumps(state, sort_keys=True, ensure_ascii=False)


def _draw_and_serialise(args: tuple[str, int]) -> tuple[str, str, bytes, int, int]:
    name, seed = args
    draw = draw_family(name, seed)
    groups = len({i.group for i in draw.items})
    return name, draw.version, items_bytes(draw.items), len(draw.items), groups


def manifest_entry(name: str, layer: str, items: int, groups: int, sha256: str, generator_version: str,
                   seed: int) -> dict[str, Any]:
    """One family's entry in a core MANIFEST.json (keys :data:`ENTRY_KEYS`): what ``dp generate`` and
    ``dp manifest`` write, and what :mod:`decisionpivot.item_origin` re-derives to compare with."""
    return {"file": f"{name}.jsonl", "layer": layer, "items": items, "groups": groups, "sha256": sha256,
            "generator_version": generator_version, "seed": seed}


def read_manifest(folder: str | Path) -> dict[str, Any]:
    path = Path(folder) / MANIFEST_NAME
    if not Path(folder).is_dir():
        raise DecisionPivotError(f"{folder}: no such folder (run `dp generate` first)")
    if not path.exists():
        raise DecisionPivotError(f"{path}: no MANIFEST.json (run `dp generate` first)")
    manifest = read_json_file(path, "the MANIFEST.json `dp generate` writes")
    if not isinstance(manifest, dict):
        raise DecisionPivotError(f"{path}: expected a JSON object, found {type(manifest).__name__}")
    return manifest


def write_family_files(
    out: str | Path,
    seed: int,
    names: Sequence[str] | None = None,
    jobs: int = 1,
    benchmark_version: str = BENCHMARK_VERSION,
    progress: bool = False,
    write_manifest: bool = True,
) -> dict[str, Any]:
    """Draw the named families (all by default), write ``<family>.jsonl`` and merge MANIFEST.json.

    Files are written atomically; the manifest keeps entries of families not drawn this time.
    With ``write_manifest=False`` only the items files are written (the DVC pipeline draws one
    family per stage and builds the manifest once with :func:`rebuild_manifest`). Returns the manifest.
    """
    out = Path(out)
    if names is not None and not [n for n in names if str(n).strip()]:
        raise DecisionPivotError("no family named (an empty list of families; leave it out to draw every family)")
    names = list(names) if names is not None else [s.name for s in families()]
    for name in names:
        family(name)  # unknown names fail before any work
    if jobs < 1:
        raise DecisionPivotError(f"jobs must be at least 1, got {jobs}")
    make_folder(out)  # an output path that cannot be a folder fails before any work, not after the draw
    manifest_path = out / MANIFEST_NAME
    manifest: dict[str, Any] = {"benchmark": CORE_BENCHMARK, "version": benchmark_version, "families": {}}
    if manifest_path.exists():
        old = read_manifest(out)
        if old.get("families"):
            manifest["families"] = {
                k: v for k, v in old["families"].items() if (out / v.get("file", "")).exists()
            }
    work = [(name, seed) for name in names]
    jobs = min(jobs, len(work))  # one process per family at most: `--jobs 1000` must not start 1000 processes
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_draw_and_serialise, work))
    else:
        results = []
        iterator: Any = work
        if progress:
            from tqdm import tqdm

            iterator = tqdm(work, desc="generate", unit="family")
        for args in iterator:
            results.append(_draw_and_serialise(args))
    for name, version, data, count, groups in results:
        path = out / f"{name}.jsonl"
        atomic_write_bytes(path, data)
        manifest["families"][name] = manifest_entry(name, family(name).layer, count, groups, sha256_file(path),
                                                    version, seed)
    manifest["families"] = dict(sorted(manifest["families"].items()))
    if write_manifest:
        _write_manifest(manifest_path, manifest)
    return manifest


def _write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(path, text.encode("utf-8"))


def rebuild_manifest(
    out: str | Path, seed: int, names: Sequence[str] | None = None, benchmark_version: str = BENCHMARK_VERSION
) -> dict[str, Any]:
    """Write ``<out>/MANIFEST.json`` from the ``<family>.jsonl`` files already in ``out``.

    The result is byte-identical to the manifest ``write_family_files`` writes for the same files,
    so the pipeline may draw each family in its own step. ``names`` default to every registered
    family whose file exists; a named family without a file is an error. Each file must hold items
    of its own family (checked), and ``seed`` is recorded as the seed they were drawn with.
    """
    from decisionpivot.items import read_items

    out = Path(out)
    if names is not None and not [n for n in names if str(n).strip()]:
        raise DecisionPivotError("no family named (an empty list of families; leave it out for every family there)")
    if names:
        chosen = list(names)
        for name in chosen:
            family(name)
            if not (out / f"{name}.jsonl").exists():
                raise DecisionPivotError(f"{out}/{name}.jsonl not found (draw it with `dp generate --families {name}`)")
    else:
        chosen = [s.name for s in families() if (out / f"{s.name}.jsonl").exists()]
        if not chosen:
            raise DecisionPivotError(f"{out}/: no items files of any registered family")
    manifest: dict[str, Any] = {"benchmark": CORE_BENCHMARK, "version": benchmark_version, "families": {}}
    for name in chosen:
        path = out / f"{name}.jsonl"
        items = read_items(path)
        spec = family(name)
        strangers = sorted({i.family for i in items} - {name})
        if strangers:
            raise DecisionPivotError(f"{path}: holds items of other families {strangers}")
        versions = sorted({i.version for i in items})
        if len(versions) != 1:
            raise DecisionPivotError(f"{path}: items carry several generator versions {versions}")
        manifest["families"][name] = manifest_entry(name, spec.layer, len(items), len({i.group for i in items}),
                                                    sha256_file(path), versions[0], seed)
    manifest["families"] = dict(sorted(manifest["families"].items()))
    _write_manifest(out / MANIFEST_NAME, manifest)
    return manifest
