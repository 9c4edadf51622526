"""How verbs read their common arguments: comma lists, the reference folder, the default items folders."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED

DEFAULT_CORE_DIR = Path("datasets") / "core" / BENCHMARK_VERSION
"""Where ``dp generate`` writes the release core items (relative to the working folder)."""


def name_list(value: str | Sequence[str] | None) -> list[str] | None:
    """Accept 'a,b', ('a', 'b') or None from the command line."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def reference_folder(value: str | bool | None) -> str | None:
    """The reference items folder, or None for "no reference tasks" (`--reference ""`, `--noreference`).

    An empty value must not become Path("") -- the current folder -- whose stray <task>.jsonl files would
    then be scored; the DVC pipeline passes `--reference ""` so its outputs depend on declared inputs only.
    """
    if value is None or value is False or str(value).strip() == "":
        return None
    return str(value)


def default_items_folder(seed: int, version: str = BENCHMARK_VERSION) -> Path:
    """datasets/core/<version>/ for the release seed, datasets/fresh/seed-N/ (earlier versions:
    datasets/fresh/<version>/seed-N/) for any other."""
    if seed == RELEASE_SEED:
        return Path("datasets") / "core" / version
    fresh = Path("datasets") / "fresh"
    return fresh / f"seed-{seed}" if version == BENCHMARK_VERSION else fresh / version / f"seed-{seed}"
