"""Drawing the scale suite: plan -> seeded groups -> checked contracts -> numbered score items -> files + MANIFEST.

As for the core (``generate/run.py``), every group gets its own ``random.Random`` seeded by hashing (family,
seed, level, group index), so a draw does not depend on the order or the number of processes that build it;
each group is checked against the contrast-group contract of ``generate/family.py`` (members differ only at
the decisive fact, distinct states, the planned answers) and the boundary contract of
:mod:`decisionpivot.scale.boundary` (the gold moves by exactly one level across the boundary).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import LEVELS, FamilyConfig, Group, GroupContractError, check_group
from decisionpivot.generate.run import FamilyDraw
from decisionpivot.items import Item, atomic_write_bytes, items_bytes, make_folder, sha256_file
from decisionpivot.scale import SCALE_BENCHMARK, SCALE_SEED, SCALE_VERSION
from decisionpivot.scale.boundary import ScaleConfig, check_boundary_group
from decisionpivot.scale.registry import families, family
from decisionpivot.score_questions import QUESTION_TYPE_KEY, SCORE, check_score_item

MANIFEST_NAME = "MANIFEST.json"
BENCHMARK = SCALE_BENCHMARK
MANIFEST_KEYS = ("benchmark", "version", "question_type", "families", "items")
"""The keys of the suite's MANIFEST.json, in the order `dp scale` writes them."""
ENTRY_KEYS = ("file", "layer", "items", "groups", "sha256", "generator_version", "seed", "scale_levels")
"""The keys of one family's entry in it."""


def default_folder(seed: int) -> Path:
    """datasets/scale/<version>/ for the release seed, datasets/scale/fresh/seed-N/ for any other."""
    root = Path("datasets") / "scale"
    return root / SCALE_VERSION if seed == SCALE_SEED else root / "fresh" / f"seed-{seed}"


def draw_groups(name: str, seed: int, config: FamilyConfig | None = None) -> Iterator[tuple[str, Group]]:
    """The contrast groups of one scale family for ``seed`` in file order, each checked against both contracts,
    with the id its items carry (``<family>:g<4 digits>``)."""
    spec = family(name)
    config = config if config is not None else spec.config_type()
    if not isinstance(config, spec.config_type):
        raise TypeError(f"{name}: config must be a {spec.config_type.__name__}")
    config.validate()
    plans = sorted(spec.plan(config), key=lambda p: (p.level, p.index))
    if {p.level for p in plans} - set(LEVELS):
        raise GroupContractError(f"{name}: plan uses levels outside 1-3")
    for number, plan in enumerate(plans):
        group = spec.build_group(plan, group_rng(name, seed, plan.level, plan.index), config)
        check_group(name, plan, group, spec.expected_answers(plan) if spec.expected_answers else None)
        check_boundary_group(name, plan, group)
        yield f"{name}:g{number:04d}", group


def draw_family(name: str, seed: int, config: FamilyConfig | None = None) -> FamilyDraw:
    """Every score item of one scale family for ``seed``, numbered in file order."""
    spec = family(name)
    config = config if config is not None else spec.config_type()
    items: list[Item] = []
    per_level: Counter[int] = Counter()
    seen: dict[str, str] = {}
    for group_id, group in draw_groups(name, seed, config):
        for member in group.members:
            item = Item(
                id=f"{name}:{len(items):05d}", family=name, layer=spec.layer, version=spec.version, group=group_id,
                level=group.level, variation=member.variation, domain=group.domain, state=member.state,
                question=member.question or spec.question, options=member.options, answer=member.answer,
                extra={QUESTION_TYPE_KEY: SCORE},
            )
            check_score_item(item)
            key = json.dumps(item.state, sort_keys=True, ensure_ascii=False)
            if key in seen:
                raise GroupContractError(f"{name}: {item.id} repeats the state of {seen[key]}")
            seen[key] = item.id
            items.append(item)
            per_level[group.level] += 1
    for level in LEVELS:
        if per_level[level] != config.items_per_level:
            raise GroupContractError(f"{name}: level {level} has {per_level[level]} items, "
                                     f"expected {config.items_per_level}")
    return FamilyDraw(family=name, seed=seed, version=spec.version, items=tuple(items))


@dataclass(frozen=True)
class DrawnFile:
    """One family's items file as a worker hands it back."""

    family: str
    """Family name."""
    version: str
    """Generator version."""
    data: bytes
    """The JSON Lines bytes."""
    items: int
    """Items in the file."""
    groups: int
    """Contrast groups in the file."""


def manifest_entry(name: str, items: int, groups: int, sha256: str, generator_version: str,
                   seed: int) -> dict[str, Any]:
    """One family's entry in the suite's MANIFEST.json (keys :data:`ENTRY_KEYS`): what `dp scale` writes, and what
    :mod:`decisionpivot.item_origin` re-derives to compare with."""
    spec = family(name)
    config = spec.config_type()
    assert isinstance(config, ScaleConfig)
    return {"file": f"{name}.jsonl", "layer": spec.layer, "items": items, "groups": groups, "sha256": sha256,
            "generator_version": generator_version, "seed": seed, "scale_levels": list(config.levels)}


def _draw_file(args: tuple[str, int]) -> DrawnFile:
    name, seed = args
    draw = draw_family(name, seed)
    return DrawnFile(name, draw.version, items_bytes(draw.items), len(draw.items), len({i.group for i in draw.items}))


def read_scale_manifest(folder: str | Path) -> dict[str, Any]:
    """The MANIFEST.json of a scale suite folder; refused, naming the file, when there is none or it is another's."""
    from decisionpivot.generate.run import read_manifest

    path = Path(folder) / MANIFEST_NAME
    if not path.exists():
        raise DecisionPivotError(f"{path}: no scale suite here (draw it with `dp scale`)")
    manifest = read_manifest(folder)
    if manifest.get("benchmark") != BENCHMARK or not isinstance(manifest.get("families"), dict):
        raise DecisionPivotError(f"{path}: not a scale suite manifest (expected benchmark {BENCHMARK!r} and a "
                                 f"'families' object, as `dp scale` writes; found benchmark "
                                 f"{manifest.get('benchmark')!r})")
    return manifest


def write_suite(out: str | Path, seed: int = SCALE_SEED, names: Sequence[str] | None = None, jobs: int = 1,
                progress: bool = False) -> dict[str, Any]:
    """Draw the named scale families (all by default), write ``<family>.jsonl`` and merge MANIFEST.json.

    Files are written atomically; the manifest keeps the entries of families not drawn this time (whose files
    are still there). A folder holding another benchmark's manifest is refused. Returns the manifest.
    """
    out = Path(out)
    if names is not None and not [n for n in names if str(n).strip()]:
        raise DecisionPivotError("no family named (an empty list of families; leave it out to draw every family)")
    chosen = list(names) if names is not None else [s.name for s in families()]
    for name in chosen:
        family(name)  # unknown names fail before any work
    if jobs < 1:
        raise DecisionPivotError(f"jobs must be at least 1, got {jobs}")
    make_folder(out)
    entries: dict[str, Any] = {}
    if (out / MANIFEST_NAME).exists():
        old = read_scale_manifest(out)
        entries = {k: v for k, v in old["families"].items()
                   if isinstance(v, dict) and (out / str(v.get("file", ""))).is_file()}
    work = [(name, seed) for name in chosen]
    jobs = min(jobs, len(work))
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            drawn = list(pool.map(_draw_file, work))
    else:
        iterator: Any = work
        if progress:
            from tqdm import tqdm

            iterator = tqdm(work, desc="scale", unit="family")
        drawn = [_draw_file(args) for args in iterator]
    for result in drawn:
        path = out / f"{result.family}.jsonl"
        atomic_write_bytes(path, result.data)
        entries[result.family] = manifest_entry(result.family, result.items, result.groups, sha256_file(path),
                                                result.version, seed)
    manifest = {"benchmark": BENCHMARK, "version": SCALE_VERSION, "question_type": SCORE,
                "families": dict(sorted(entries.items())),
                "items": sum(int(e.get("items", 0)) for e in entries.values())}
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(out / MANIFEST_NAME, text.encode("utf-8"))
    return manifest
