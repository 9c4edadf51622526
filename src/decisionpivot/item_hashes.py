"""Which items an items file holds: its SHA-256 against what was recorded when they were made.

Every consumer of items files (``dp evaluate``, ``dp score``, the harness imports) asks this module
before it trusts a file, so a changed gold label or a half-edited file is never scored silently:

* a **core** file is checked against its folder's ``MANIFEST.json`` and, when that manifest says the
  folder holds a released edition (its version with the release seed), against the manifest of that
  edition shipped in the package (``released/core-<version>.MANIFEST.json``, next to this module);
* a **reference** file (its stem is a task card's id) is checked against the items SHA-256 its card
  records when the card is verified (reconstructed from official files); the card of an unverified
  task has no hash to check, and the result says so.

:func:`check_items_file` returns how the file was checked (recorded in answer metadata and on the
leaderboard) and raises :class:`ModifiedItemsError` on any mismatch, naming both hashes.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError

RELEASED = Path(__file__).with_name("released")
"""The manifests of the released core editions (``core-<version>.MANIFEST.json``)."""

UNCHECKED = "unchecked"
"""Prefix of a check result that compared nothing (no manifest, an unverified card)."""


class ModifiedItemsError(DecisionPivotError):
    """An items file whose SHA-256 differs from the one recorded for it."""


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
    return path


def released_suite(version: str) -> dict[str, Any] | None:
    """The manifest of released invariance suite ``version`` shipped in the package
    (``released/invariance-<version>.MANIFEST.json``), or None."""
    path = RELEASED / f"invariance-{version}.MANIFEST.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def record_released_suite(suite: Path, target: Path | None = None) -> Path:
    """Maintainers: ship the invariance suite folder ``suite``'s MANIFEST.json as the released suite's (with
    ``dp release --record-manifest``), into ``target`` (default :data:`RELEASED`, read when called)."""
    from decisionpivot.items import atomic_write_bytes

    data = (suite / "MANIFEST.json").read_bytes()
    version = json.loads(data)["version"]
    path = (target if target is not None else RELEASED) / f"invariance-{version}.MANIFEST.json"
    atomic_write_bytes(path, data)
    return path


def released_sha256(version: str, family: str) -> str | None:
    """SHA-256 of ``family``'s file in released core edition ``version`` (None: not released)."""
    entry = ((released_manifest(version) or {}).get("families") or {}).get(family)
    return entry.get("sha256") if isinstance(entry, dict) else None


def _refuse(path: Path, found: str, recorded: str, where: str, fix: str) -> ModifiedItemsError:
    return ModifiedItemsError(
        f"{path}: SHA-256 {found} differs from {recorded} recorded in {where}: the items were changed after they "
        f"were made. {fix}, or evaluate and score them as they are with --allow-modified-items (recorded in the "
        "meta file and on the leaderboard)"
    )


def _reference_card(task: str) -> Any:
    from decisionpivot.reconstruct.card import all_cards

    return all_cards().get(task)


def check_reference_file(task: str, path: Path, sha256: str) -> str | None:
    """How a reference task's file was checked against its card (None: ``task`` has no card)."""
    card = _reference_card(task)
    if card is None:
        return None
    if not card.verified or not card.expected_sha256:
        return f"{UNCHECKED} (task card {task} is unverified: no items hash recorded)"
    if card.expected_sha256 != sha256:
        raise _refuse(path, sha256, card.expected_sha256, f"the task card {Path(card.path).name}",
                      f"Rebuild them from the official files (`dp reconstruct {task} --source DIR`)")
    return "card"


def check_items_file(folder: Path, task: str, path: Path, sha256: str) -> str:
    """How ``path`` (task ``task`` in ``folder``, SHA-256 ``sha256``) was checked; raises on a mismatch.

    Results: ``manifest`` (the folder's manifest), ``manifest+release`` (also the released edition's
    hashes), ``card`` (a verified task card), or ``unchecked (...)`` saying why nothing was compared.
    """
    manifest_path = folder / "MANIFEST.json"
    if not manifest_path.exists():
        by_card = check_reference_file(task, path, sha256)
        return by_card if by_card is not None else f"{UNCHECKED} (no MANIFEST.json)"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        entry = manifest["families"][task]
        recorded = entry["sha256"]
    except (ValueError, UnicodeDecodeError, KeyError, TypeError):
        by_card = check_reference_file(task, path, sha256)
        if by_card is not None:
            return by_card
        raise ModifiedItemsError(f"{manifest_path}: no SHA-256 for {task!r}; regenerate the items "
                                 "(`dp generate`) or pass --allow-modified-items") from None
    if recorded != sha256:
        raise _refuse(path, sha256, recorded, manifest_path.name, "Regenerate them (`dp generate`)")
    from decisionpivot import RELEASE_SEED

    version = str(manifest.get("version"))
    if entry.get("seed") != RELEASE_SEED:
        return "manifest"  # a fresh draw: its own manifest is all there is
    shipped = released_sha256(version, task)
    if shipped is None:
        return "manifest"
    if shipped != sha256:
        raise _refuse(path, sha256, shipped, f"the package's released core {version} manifest (although "
                      f"{manifest_path.name} says these are the released items)", "Regenerate them (`dp generate`)")
    return "manifest+release"
