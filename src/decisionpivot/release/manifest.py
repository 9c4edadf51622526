"""The release manifest: every file of the Hugging Face dataset folder with its SHA-256 and size.

``MANIFEST.json`` at the top of the release folder lists every other file (``files``: path ->
sha256, bytes, and ``items`` for items files), the core families and reference tasks it carries,
and a ``digest``: the SHA-256 of the sorted ``<sha256>  <path>`` lines, which identifies the
release's content in one value.

The package ships the manifest of the release it was cut for, ``expected_manifest.json`` next to
this module; ``dp download`` verifies downloads against it (not against the downloaded manifest,
which whoever can write to the dataset repository could change too). Maintainers refresh it with
``dp release --record-manifest`` after building the release they are about to publish.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes, iter_items, sha256_file

MANIFEST_NAME = "MANIFEST.json"
DATASET_NAME = "DecisionPivot"
EXPECTED_MANIFEST = Path(__file__).resolve().parent / "expected_manifest.json"
"""The manifest of the release this package verifies downloads against."""
HUB_FILES = frozenset({".gitattributes"})
"""Files the hub adds to every repository; they are not part of the release and not verified."""


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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DecisionPivotError(f"{path}: no release manifest") from None
    except json.JSONDecodeError as exc:
        raise DecisionPivotError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict) or "digest" not in data:
        raise DecisionPivotError(f"{path}: not a DecisionPivot release manifest (needs 'files' and 'digest')")
    return data


def expected_manifest() -> dict[str, Any] | None:
    """The release manifest shipped with the package, or None if none was recorded."""
    if not EXPECTED_MANIFEST.exists():
        return None
    return read_manifest_file(EXPECTED_MANIFEST)


def record_expected_manifest(manifest: dict[str, Any], target: Path = EXPECTED_MANIFEST) -> Path:
    """Maintainers: store ``manifest`` as the package's expected manifest (commit the file afterwards)."""
    atomic_write_bytes(target, manifest_bytes(manifest))
    return target
