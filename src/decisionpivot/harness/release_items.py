"""The items a harness runs, checked exactly as ``dp evaluate`` checks them, and what identifies each one.

:func:`release_tasks` is the only place in :mod:`decisionpivot.harness` that checks an items file
(against its folder's ``MANIFEST.json`` and the release hashes shipped in the package): every task a
harness exports or runs, and every log imported, goes through it. :func:`item_sha256` is the content
hash a harness sample carries, so an imported log can be held against the release item by item.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
from decisionpivot.errors import check_names
from decisionpivot.evaluate.run import task_files
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import Item, item_line, read_items, sha256_file

DEFAULT_ITEMS_DIR = Path("datasets") / "core" / BENCHMARK_VERSION
"""Where ``dp generate`` writes the release core items (relative to the working folder)."""


@dataclass(frozen=True)
class ReleaseTask:
    """One checked items file: a core family (or any task of an items folder) as a harness runs it."""

    task: str
    """Task (family) name: the items file's stem."""
    path: Path
    """The items file."""
    sha256: str
    """SHA-256 of the items file (what an answer file's meta records)."""
    check: str
    """How it was accepted (:func:`decisionpivot.item_origin.accept_items_file`): ``released core 1.2``, ..."""
    items: tuple[Item, ...]
    """The items in file order."""


def item_sha256(item: Item) -> str:
    """SHA-256 of the item's JSON line as the items file holds it: the item's content, in one value."""
    return hashlib.sha256(item_line(item).encode("utf-8")).hexdigest()


def ensure_release_items(items_dir: Path | None) -> Path:
    """The items folder to use: ``items_dir``, or the release core items, generated first when absent.

    Without a folder given this behaves as ``dp evaluate`` does: the release core items of this
    package's version are drawn into ``datasets/core/<version>/`` (about ten seconds) if they are not there.
    """
    if items_dir is not None:
        return Path(items_dir)
    folder = DEFAULT_ITEMS_DIR
    if not (folder / "MANIFEST.json").exists():
        import sys

        from decisionpivot.generate.run import write_family_files

        print(f"{folder}/ not found: generating the release core items first", file=sys.stderr)
        write_family_files(folder, RELEASE_SEED, None, benchmark_version=BENCHMARK_VERSION)
    return folder


def release_tasks(items_dir: Path, tasks: Sequence[str] | None = None) -> dict[str, ReleaseTask]:
    """Every wanted task of ``items_dir``, each file checked as ``dp evaluate`` checks it (raises on a mismatch: a
    harness runs only items this package re-derives or released, so its refusal offers no --allow-modified-items).

    ``tasks`` None means every items file of the folder, in the folder's order.
    """
    files = task_files(items_dir)
    names = list(tasks) if tasks else list(files)
    check_names("task", names, files, where=f"{items_dir} (a task is an items file there)")
    found = {}
    for task in names:
        path = files[task]
        sha256 = sha256_file(path)
        check = accept_items_file(path, sha256, task=task, flag=False)  # no --allow-modified-items in a harness
        found[task] = ReleaseTask(task, path, sha256, check, tuple(read_items(path)))
    return found
