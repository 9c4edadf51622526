"""The files the package's docstrings and messages send a reader to are in the repository (issue #39: frame/framings.py
named the format's home as a file on the maintainers' machine, /work/briefs/INVARIANCE-FORMAT.md)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"(?<![\w/.-])((?:docs|tests|benchmarks|src)/[\w./-]+\.(?:md|py|yaml|json))")
OUTSIDE = re.compile(r"(?<![\w$\"'])/work/|\bbriefs/")
"""A path into the machine the package was written on, which a user's clone does not have."""


def test_every_file_the_source_names_exists_and_none_lies_outside_the_repository() -> None:
    missing, outside = [], []
    for path in sorted((ROOT / "src" / "decisionpivot").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        missing += [f"{where}: {name}" for name in REFERENCE.findall(text) if not (ROOT / name).exists()]
        outside += [f"{where}:{text.count(chr(10), 0, m.start()) + 1}" for m in OUTSIDE.finditer(text)]
    assert not missing, f"files named but not in the repository: {missing}"
    assert not outside, f"paths outside the repository: {outside}"
