"""Shared fixtures: draws are cached per (family, seed) for the whole session."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import decisionpivot
from decisionpivot import RELEASE_SEED
from decisionpivot.generate.common.seeding import group_rng
from decisionpivot.generate.family import Group, GroupPlan
from decisionpivot.generate.registry import families, family
from decisionpivot.generate.run import FamilyDraw, draw_family, rebuild_manifest
from decisionpivot.items import Item, write_items

FAMILY_NAMES = [spec.name for spec in families()]


PACKAGE_DATA = ("released", "reconstruct/cards", "release/expected_manifest.json")
"""The package's recorded hashes, which maintainers' commands write (`--record-manifest`, `--record`)."""


def _recorded_hashes() -> dict[str, str]:
    root = Path(decisionpivot.__file__).resolve().parent
    paths = [p for name in PACKAGE_DATA for p in ([root / name] if (root / name).is_file()
                                                   else sorted((root / name).rglob("*")))]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


@pytest.fixture(scope="session", autouse=True)
def package_records_untouched() -> Iterator[None]:
    """No test may rewrite the hashes the package ships (a test once recorded its synthetic core as release 1.1)."""
    before = _recorded_hashes()
    yield
    changed = sorted(path for path, digest in _recorded_hashes().items() if before.get(path) != digest)
    assert not changed, f"tests changed the package's recorded hashes: {changed}"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """`-n 2` hands out whole test modules (pytest-xdist's ``loadscope``) rather than single tests, unless the
    command line names a ``--dist`` of its own. Per test (``load``), the tests of one module ran on both workers,
    so every module-scoped fixture - a `transformers serve` process, an lm-eval run, a Dask cluster, a built
    site - was made twice. Set here rather than in ``addopts``, where ``--dist`` would break ``-p no:xdist``.

    ``loadscope`` also reorders the modules by their number of tests unless told not to: a module of one
    40-second test (a pushed run pulled into a fresh clone) then came last and ran alone. The order of
    :func:`pytest_collection_modifyitems` is kept instead."""
    given = {str(arg).split("=")[0] for arg in config.invocation_params.args}
    if getattr(config.option, "dist", "no") == "load" and not given & {"--dist", "-d"}:
        config.option.dist = "loadscope"
    if not given & {"--loadscope-reorder", "--no-loadscope-reorder"}:
        config.option.loadscopereorder = False  # keep the order below: xdist would put the most tests first


LONGEST_FIRST = (
    "tests/verify/test_agreement.py",  # 145 s
    "tests/harness/test_inspect.py",  # 72 s
    "tests/audit/test_audit.py",  # 71 s
    "tests/harness/test_lm_eval.py",  # 69 s
    "tests/evaluate/test_systemone_serve.py",  # 59 s
    "tests/release/test_lock.py",  # 50 s
    "tests/report/test_site.py",  # 42 s
    "tests/release/test_shared_runs.py",  # 40 s
    "tests/test_cli.py",  # 26 s
    "tests/test_item_origin_verbs.py",  # 26 s (with the deployment project it builds when first)
    "tests/evaluate/test_checkpoints.py",  # 26 s
    "tests/overlap/test_scan.py",  # 24 s
    "tests/generate/test_all_families.py",  # 23 s
    "tests/generate/test_editions.py",  # 21 s
    "tests/evaluate/test_logprobs.py",  # 21 s
    "tests/frame/test_suite.py",  # 20 s
    "tests/evaluate/test_soak.py",  # 20 s
    "tests/frame/test_framings.py",  # 18 s
    "tests/evaluate/test_transport.py",  # 17 s
    "tests/gate/test_run.py",  # 16 s
    "tests/evaluate/test_hardened.py",  # 16 s
    "tests/reconstruct/test_official.py",  # 15 s
    "tests/evaluate/test_sparrow.py",  # 15 s
    "tests/evaluate/test_score_questions.py",  # 13 s
    "tests/score/test_figures.py",  # 14 s
    "tests/release/test_hub.py",  # 14 s
    "tests/scale/test_run.py",  # 14 s
    "tests/gate/test_simulation.py",  # 14 s
    "tests/harness/test_inspect_hf.py",  # 13 s
    "tests/score/test_score_cli.py",  # 12 s
    "tests/score/test_scale.py",  # 10 s
    "tests/evaluate/test_fuzz.py",  # 12 s
    "tests/scale/test_all_families.py",  # 12 s
    "tests/overlap/test_state.py",  # 11 s
    "tests/audit/test_ordinal.py",  # 11 s
    "tests/gate/test_cli.py",  # 10 s
    "tests/test_item_origin.py",  # 10 s
    "tests/test_cli_fuzz.py",  # 9 s
    "tests/overlap/test_object_store.py",  # 9 s
    "tests/overlap/test_hostile_inputs.py",  # 9 s
    "tests/generate/test_log_claim.py",  # 9 s
    "tests/gate/test_recalibration.py",  # 9 s
)
"""The modules that take longest (8 s or more each, summed over their tests and fixtures, measured with
``--durations=0`` on two idle cores), longest first: handed out first, so the short ones fill in around them."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put :data:`LONGEST_FIRST` at the front, every other test in its collected order.

    ``loadscope`` hands modules to the workers in collection order, and ``tests/verify`` sorts last: a module of
    three minutes handed out at the end ran alone while the other worker idled (685 s of wall clock for 1,237 s
    of tests). Longest first, the short modules fill in around them.
    """
    rank = {path: position for position, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@cache
def cached_draw(name: str, seed: int = RELEASE_SEED) -> FamilyDraw:
    return draw_family(name, seed)


@cache
def built_groups(name: str, seed: int = RELEASE_SEED) -> tuple[tuple[GroupPlan, Group], ...]:
    """A draw's groups rebuilt with their structured cases (same seeds as the draw), by level and index."""
    spec = family(name)
    config = spec.config_type()
    plans = sorted(spec.plan(config), key=lambda p: (p.level, p.index))
    return tuple((p, spec.build_group(p, group_rng(name, seed, p.level, p.index), config)) for p in plans)


def items_by_group(name: str, seed: int = RELEASE_SEED) -> dict[str, list[Item]]:
    """A draw's items by contrast group, in file order."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in cached_draw(name, seed).items:
        groups[item.group or item.id].append(item)
    return dict(groups)


def write_release_sample(folder: Path, names: list[str] | tuple[str, ...], every: int = 10) -> Path:
    """Every ``every``-th contrast group of each family's release draw, whole, as ``<family>.jsonl`` files with
    their MANIFEST.json, with every level and a tenth of the items. For tests whose point is not the item count (a
    served model against the same one in process, a resumed run): the full release made them run for minutes.
    A sample is no draw this package makes, so every verb reads it only with ``--allow-modified-items``
    (:mod:`decisionpivot.item_origin`). The draws are this process's cached ones (:func:`cached_draw`)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        items = cached_draw(name).items
        groups = list(dict.fromkeys(item.group or item.id for item in items))
        chosen = set(groups[::every])
        write_items(folder / f"{name}.jsonl", [item for item in items if (item.group or item.id) in chosen])
    rebuild_manifest(folder, RELEASE_SEED, list(names))
    return folder


@pytest.fixture(params=FAMILY_NAMES)
def family_name(request: pytest.FixtureRequest) -> str:
    return request.param


def write_small_suite(core: Path, suite: Path, names: tuple[str, ...]) -> tuple[Path, Path]:
    """The release's ``names`` families in ``core`` and a small invariance suite framed from them by `dp frame`'s
    own code (12 base items per family) in ``suite``."""
    from decisionpivot import BENCHMARK_VERSION
    from decisionpivot.frame.suite import write_suite

    for name in names:
        write_items(core / f"{name}.jsonl", cached_draw(name).items)
    rebuild_manifest(core, RELEASE_SEED, benchmark_version=BENCHMARK_VERSION)
    write_suite(core, suite, families=names, base_items=12)
    return core, suite
