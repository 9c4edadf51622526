"""The hashes of items the package ships: what :mod:`decisionpivot.item_origin` compares items files with
before drawing them again.

* ``released/core-<version>.MANIFEST.json``: the MANIFEST.json of every released core edition, byte for byte
  (``dp release --record-manifest`` records it);
* ``released/invariance-<version>.MANIFEST.json``: the released invariance suite's;
* ``released/scale-<version>.MANIFEST.json`` and ``released/scale-invariance-<version>.MANIFEST.json``: the released
  scale suite's (``dp scale``) and its framings' (``dp scale --framings``);
* ``released/draws/core-<version>-seed-<seed>.MANIFEST.json``: the MANIFEST.json ``dp generate --seed <seed>``
  writes for every family, for the fresh draws the pipeline itself uses (params.yaml's ``gate.seeds`` and
  ``monitor.seed``), so that its verbs do not draw them again (:func:`record_known_draw` writes them, a test
  draws them again and compares);
* the items SHA-256 a verified reference task card records (:func:`check_reference_file`).

Which items a verb accepts is decided in one place, :mod:`decisionpivot.item_origin`; this module only says
what the package recorded.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError

RELEASED = Path(__file__).with_name("released")
"""The manifests of the released core editions (``core-<version>.MANIFEST.json``), of the released invariance
suite (``invariance-<version>.MANIFEST.json``) and of the known fresh draws (``draws/``)."""

KNOWN_DRAWS = "draws"
"""Sub-folder of :data:`RELEASED` holding the manifests of the known fresh draws."""

UNCHECKED = "unchecked"
"""Prefix of a check result that compared nothing (an unverified task card)."""


ALLOW_HINT = "or read them as they are with --allow-modified-items (every output then says so)"
"""How every refusal of an items file ends: the one way past it, and what it costs."""


class ModifiedItemsError(DecisionPivotError):
    """An items file this package neither re-derives nor records: one line naming the file (``where``), what did
    not match (``what``) and how to go on (``fix``, then :data:`ALLOW_HINT` unless ``hint`` is False: the refusal of
    a caller that offers no ``--allow-modified-items``)."""

    def __init__(self, where: Path, what: str, fix: str, hint: bool = True) -> None:
        super().__init__(f"{where}: {what}. {fix}, {ALLOW_HINT}" if hint else f"{where}: {what}. {fix}.")
        self.where = where
        """The file (or manifest) that did not match."""
        self.what = what
        """What did not match, without the file and the way on (the reason a ``modified (...)`` result gives)."""
        self.fix = fix
        """How to go on besides ``--allow-modified-items``."""

    def without_hint(self) -> ModifiedItemsError:
        """The same refusal naming no ``--allow-modified-items`` (for a caller that offers none)."""
        return ModifiedItemsError(self.where, self.what, self.fix, hint=False)


@cache
def released_manifest(version: str) -> dict[str, Any] | None:
    """The manifest of released core edition ``version`` shipped in the package, or None."""
    path = RELEASED / f"core-{version}.MANIFEST.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def record_released_core(core: Path, target: Path | None = None) -> Path:
    """Maintainers: ship ``core``'s MANIFEST.json as the released edition's (with ``dp release --record-manifest``),
    into ``target`` (default :data:`RELEASED`, read when called)."""
    from decisionpivot.items import atomic_write_bytes

    data = (core / "MANIFEST.json").read_bytes()
    version = json.loads(data)["version"]
    path = (target if target is not None else RELEASED) / f"core-{version}.MANIFEST.json"
    atomic_write_bytes(path, data)
    released_manifest.cache_clear()
    known_draw.cache_clear()
    return path


def released_suite(version: str) -> dict[str, Any] | None:
    """The manifest of released invariance suite ``version`` shipped in the package
    (``released/invariance-<version>.MANIFEST.json``), or None."""
    path = RELEASED / f"invariance-{version}.MANIFEST.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def released_scale(version: str, framed: bool = False) -> dict[str, Any] | None:
    """The manifest of released scale suite ``version`` (``released/scale-<version>.MANIFEST.json``), or with
    ``framed`` of its released framings (``released/scale-invariance-<version>.MANIFEST.json``), or None."""
    path = RELEASED / f"scale{'-invariance' if framed else ''}-{version}.MANIFEST.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def record_released_scale(folder: Path, framed: bool = False, target: Path | None = None) -> Path:
    """Maintainers: ship the scale suite folder's MANIFEST.json (or, ``framed``, its framings') as the released one
    (``released/scale[-invariance]-<version>.MANIFEST.json``; with ``dp release --record-manifest``)."""
    from decisionpivot.items import atomic_write_bytes

    data = (folder / "MANIFEST.json").read_bytes()
    version = json.loads(data)["version"]
    name = f"scale{'-invariance' if framed else ''}-{version}.MANIFEST.json"
    path = (target if target is not None else RELEASED) / name
    atomic_write_bytes(path, data)
    released_scale.cache_clear()
    return path


def record_released_suite(suite: Path, target: Path | None = None) -> Path:
    """Maintainers: ship the invariance suite folder ``suite``'s MANIFEST.json as the released suite's (with
    ``dp release --record-manifest``), into ``target`` (default :data:`RELEASED`, read when called)."""
    from decisionpivot.items import atomic_write_bytes

    data = (suite / "MANIFEST.json").read_bytes()
    version = json.loads(data)["version"]
    path = (target if target is not None else RELEASED) / f"invariance-{version}.MANIFEST.json"
    atomic_write_bytes(path, data)
    return path


def known_draw_path(version: str, seed: int, target: Path | None = None) -> Path:
    """Where the manifest of the known draw of core ``version`` with ``seed`` is shipped (``target``: instead of
    :data:`RELEASED`, read when called)."""
    return (target if target is not None else RELEASED) / KNOWN_DRAWS / f"core-{version}-seed-{seed}.MANIFEST.json"


@cache
def known_draw(version: str, seed: int) -> dict[str, Any] | None:
    """The MANIFEST.json ``dp generate --seed <seed> --version <version>`` writes for every family, when the package
    ships it: the released edition's for the release seed, a known fresh draw's otherwise (None: not shipped)."""
    from decisionpivot import RELEASE_SEED

    if seed == RELEASE_SEED:
        return released_manifest(version)
    path = known_draw_path(version, seed)
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def record_known_draw(version: str, seed: int, target: Path | None = None) -> Path:
    """Maintainers: draw every family of core ``version`` with ``seed`` and ship the manifest `dp generate` writes
    for it (``python -m decisionpivot.item_hashes VERSION SEED``), into ``target`` (default :data:`RELEASED`)."""
    import tempfile

    from decisionpivot.generate import editions

    with tempfile.TemporaryDirectory() as folder:
        editions.module(version, "run").write_family_files(folder, seed, benchmark_version=version)
        data = (Path(folder) / "MANIFEST.json").read_bytes()
    from decisionpivot.items import atomic_write_bytes

    path = known_draw_path(version, seed, target)
    atomic_write_bytes(path, data)
    known_draw.cache_clear()
    return path


def _reference_card(task: str) -> Any:
    from decisionpivot.reconstruct.card import all_cards

    return all_cards().get(task)


def check_reference_file(task: str, path: Path, sha256: str) -> str | None:
    """How a reference task's file was checked against its card (None: ``task`` has no card); a file whose
    SHA-256 differs from the one a verified card records raises :class:`ModifiedItemsError`."""
    card = _reference_card(task)
    if card is None:
        return None
    if not card.verified or not card.expected_sha256:
        return f"{UNCHECKED} (task card {task} is unverified: no items hash recorded)"
    if card.expected_sha256 != sha256:
        raise ModifiedItemsError(path, f"SHA-256 {sha256} differs from {card.expected_sha256} recorded in the task "
                                 f"card {Path(card.path).name}: the items were changed after they were made",
                                 f"Rebuild them from the official files (`dp reconstruct {task} --source DIR`)")
    return "card"


if __name__ == "__main__":  # python -m decisionpivot.item_hashes VERSION SEED: ship a known draw's manifest
    import sys

    if len(sys.argv) != 3:
        sys.exit("usage: python -m decisionpivot.item_hashes VERSION SEED")
    print(record_known_draw(sys.argv[1], int(sys.argv[2])))
