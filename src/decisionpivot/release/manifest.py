"""The release manifest: every file of the Hugging Face dataset folder with its SHA-256 and size.

``MANIFEST.json`` at the top of the release folder lists every other file (``files``: path ->
sha256, bytes, and ``items`` for items files), the core families and reference tasks it carries,
and a ``digest``: the SHA-256 of the sorted ``<sha256>  <path>`` lines, which identifies the
release's content in one value.

The package ships the manifest of the release it was cut for, ``expected_manifest.json`` next to
this module; ``dp download`` verifies downloads against it (not against the downloaded manifest,
which whoever can write to the dataset repository could change too). Maintainers refresh it with
``dp release --record-manifest`` after building the release they are about to publish.

The core families' hashes have one home: the released core manifest
(``released/core-<version>.MANIFEST.json``, which ``dp evaluate`` and ``dp score`` check items
against). ``expected_manifest.json`` is stored without its ``core`` section, and
:func:`expected_manifest` derives that section from the released core manifest that is the very file
the release lists as ``core/MANIFEST.json`` (by its SHA-256 in ``files``). The invariance suite's
section is derived the same way from the released suite manifest
(``released/invariance-<version>.MANIFEST.json``) the release lists as ``invariance/MANIFEST.json``;
a release without the suite has ``invariance: null``. The scale suite (``dp scale``) and its framings (``dp scale
--framings``), when a release carries them, have a ``scale`` section derived likewise from the released scale manifests
(``released/scale-<version>.MANIFEST.json``, ``released/scale-invariance-<version>.MANIFEST.json``) the release lists as
``scale/MANIFEST.json`` and ``scale-invariance/MANIFEST.json``; a release without them has no ``scale`` key at all (so
the manifest of a release cut before the suite existed keeps its bytes).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes, iter_items, sha256_file

MANIFEST_NAME = "MANIFEST.json"
DATASET_NAME = "DecisionPivot"
EXPECTED_MANIFEST = Path(__file__).resolve().parent / "expected_manifest.json"
"""The manifest of the release this package verifies downloads against."""
HUB_FILES = frozenset({".gitattributes"})
"""Files the hub adds to every repository; they are not part of the release and not verified."""


CORE = "core"
"""The manifest's section of core families (derived, never stored in expected_manifest.json)."""
INVARIANCE = "invariance"
"""The manifest's section of the invariance suite, and its folder in the release (derived, never stored)."""
SCALE = "scale"
"""The manifest's section of the scale suite, and its folder in the release (derived, never stored)."""
SCALE_FRAMED = "scale-invariance"
"""The release folder of the scale suite's framings (their manifest is part of the ``scale`` section)."""
DERIVED = (CORE, INVARIANCE, SCALE)
"""Sections ``expected_manifest.json`` does not store: the released manifests shipped in the package hold them."""


def core_entry(family: Mapping[str, Any], items: int) -> dict[str, Any]:
    """A core family's entry in a release manifest, from its entry in the core folder's MANIFEST.json."""
    return {"file": f"core/{family['file']}", "layer": family["layer"], "items": items,
            "groups": family.get("groups"), "sha256": family["sha256"]}


def invariance_section(suite: Mapping[str, Any]) -> dict[str, Any]:
    """The release manifest's invariance section, from the suite folder's MANIFEST.json (``dp frame``)."""
    families = {name: {"file": f"{INVARIANCE}/{entry['file']}", "layer": entry["layer"], "items": entry["items"],
                       "base_items": entry.get("base_items"), "groups": entry.get("groups"),
                       "sha256": entry["sha256"]}
                for name, entry in suite.get("families", {}).items()}
    return {"version": suite.get("version"), "seed": suite.get("seed"), "core": suite.get("core"),
            "framings": suite.get("framings"), "items": suite.get("items"), "families": families}


def scale_section(suite: Mapping[str, Any], framed: Mapping[str, Any] | None) -> dict[str, Any]:
    """The release manifest's scale section, from the scale suite folder's MANIFEST.json (``dp scale``) and its
    framings' (``dp scale --framings``; None: left out)."""
    def families(manifest: Mapping[str, Any], folder: str) -> dict[str, Any]:
        return {name: {"file": f"{folder}/{entry['file']}", "layer": entry["layer"], "items": entry["items"],
                       "groups": entry.get("groups"), "sha256": entry["sha256"]}
                for name, entry in manifest.get("families", {}).items()}

    return {"version": suite.get("version"), "question_type": suite.get("question_type"), "items": suite.get("items"),
            "families": families(suite, SCALE),
            "framings": None if framed is None else {
                "version": framed.get("version"), "framings": framed.get("framings"), "items": framed.get("items"),
                "families": families(framed, SCALE_FRAMED)}}


def stored_form(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The expected manifest as the package stores it: without the sections the released manifests hold."""
    return {key: value for key, value in manifest.items() if key not in DERIVED}


def _shipped(manifest: dict[str, Any], path: Path, part: str, pattern: str) -> dict[str, Any] | None:
    """The released manifest (``released/<pattern>``) that is the very file the release lists as
    ``<part>/MANIFEST.json``, whatever version it holds; None when the release lists no such file."""
    from decisionpivot import item_hashes

    listed = (manifest["files"].get(f"{part}/{MANIFEST_NAME}") or {}).get("sha256")
    if listed is None and part != CORE:
        return None  # a release without the suite
    shipped = next((p for p in sorted(item_hashes.RELEASED.glob(pattern)) if sha256_file(p) == listed), None)
    if shipped is None:
        raise DecisionPivotError(f"{path}: the release lists {part}/{MANIFEST_NAME} with SHA-256 {listed}, and no "
                                 f"released {part} manifest in {item_hashes.RELEASED} has it; record both with "
                                 "`dp release --record-manifest`")
    return json.loads(shipped.read_text(encoding="utf-8"))


def _with_derived(manifest: dict[str, Any], path: Path) -> dict[str, Any]:
    """``manifest`` with its derived sections (core, invariance) put back after ``digest``, where a build has them."""
    core = _shipped(manifest, path, CORE, "core-*.MANIFEST.json") or {}
    derived = {name: core_entry(entry, entry["items"]) for name, entry in core.get("families", {}).items()}
    suite = _shipped(manifest, path, INVARIANCE, "invariance-*.MANIFEST.json")
    scale = _shipped(manifest, path, SCALE, "scale-*.MANIFEST.json")
    framed = _shipped(manifest, path, SCALE_FRAMED, "scale-invariance-*.MANIFEST.json") if scale else None
    keys = [k for k in manifest if k not in DERIVED]
    position = keys.index("digest") + 1 if "digest" in keys else 0
    return {**{k: manifest[k] for k in keys[:position]}, CORE: derived,
            INVARIANCE: None if suite is None else invariance_section(suite),
            **({SCALE: scale_section(scale, framed)} if scale is not None else {}),
            **{k: manifest[k] for k in keys[position:]}}


def file_entry(path: Path) -> dict[str, Any]:
    """SHA-256 and byte size of one file, plus the item count of a ``.jsonl`` items file."""
    entry: dict[str, Any] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    if path.suffix == ".jsonl":
        entry["items"] = sum(1 for _ in iter_items(path))
    return entry


def digest(files: dict[str, dict[str, Any]]) -> str:
    """SHA-256 over the sorted ``<sha256>  <path>`` lines: one value naming the release's content."""
    lines = "".join(f"{files[p]['sha256']}  {p}\n" for p in sorted(files))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The manifest as written: indented JSON, insertion order, trailing newline (byte-stable)."""
    return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def release_files(folder: Path) -> list[str]:
    """Every file under a release folder as a POSIX relative path, sorted; skips hub and cache files."""
    paths = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir() or rel in HUB_FILES or rel.split("/")[0] == ".cache":
            continue
        paths.append(rel)
    return sorted(paths)


def read_manifest_file(path: Path) -> dict[str, Any]:
    """Read and minimally check a release manifest."""
    data = read_json_file(path, "a release manifest")
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict) or "digest" not in data:
        raise DecisionPivotError(f"{path}: not a DecisionPivot release manifest (needs 'files' and 'digest')")
    return data


def expected_manifest() -> dict[str, Any] | None:
    """The release manifest shipped with the package, or None if none was recorded."""
    if not EXPECTED_MANIFEST.exists():
        return None
    manifest = read_manifest_file(EXPECTED_MANIFEST)
    return manifest if CORE in manifest and INVARIANCE in manifest else _with_derived(manifest, EXPECTED_MANIFEST)


def record_expected_manifest(manifest: dict[str, Any], target: Path = EXPECTED_MANIFEST) -> Path:
    """Maintainers: store ``manifest`` as the package's expected manifest, without its derived sections (commit the
    file afterwards, with the released core and suite manifests they are derived from)."""
    atomic_write_bytes(target, manifest_bytes(stored_form(manifest)))
    return target
