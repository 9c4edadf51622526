"""Shared converter of the Raha cell-level error-detection tasks (raha_hospital, raha_beers, raha_rayyan).

Files: ``dirty.csv`` and ``clean.csv`` (same shape; comma-separated, header row, read as strings with
Python's csv module, which gives the same cells as Raha's ``pandas.read_csv(dtype=str,
keep_default_na=False)``). Columns are aligned by position, as Raha does (``iloc``): in hospital and
beers the clean header spells the names differently, and the dirty header names the columns.

A cell is erroneous when its dirty and clean values differ after Raha's own ``value_normalizer``
(raha/dataset.py), applied to both: ``html.unescape``; then runs of tab/newline/space are replaced by
one space via ``re.sub("[\\t\\n ]+", " ", value, re.UNICODE)`` - the flag lands in the ``count``
argument, so at most 32 runs are collapsed, reproduced here; then ``strip("\\t\\n ")``.

One item per cell, row-major in file order (every column, including identifier columns, as Raha
scores every cell). State: the whole dirty row as a mapping column -> raw dirty value, plus the
named column (``cell``). ``extra.cell`` = ``{"row": 0-based data-row index, "column": dirty header
name}``; group = the row, so the bootstrap keeps a row's cells together; domain = the column.
"""

from __future__ import annotations

import csv
import html
import io
import re
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

DIRTY = "dirty.csv"
CLEAN = "clean.csv"
_WHITESPACE = re.compile("[\t\n ]+")
_RAHA_COUNT = int(re.UNICODE)  # 32: Raha passes re.UNICODE positionally, i.e. as re.sub's count


def raha_normalize(value: str) -> str:
    """Raha's value_normalizer, including its 32-substitution limit."""
    value = html.unescape(value)
    value = _WHITESPACE.sub(" ", value, count=_RAHA_COUNT)
    return value.strip("\t\n ")


def read_rows(source: SourceFolder, relative: str) -> tuple[list[str], list[list[str]]]:
    rows = list(csv.reader(io.StringIO(source.text(relative), newline="")))
    if not rows:
        raise SourceError(f"{source.path(relative)}: empty file")
    header, body = rows[0], rows[1:]
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise SourceError(f"{source.path(relative)}: row {number}: {len(row)} cells, header has {len(header)}")
    return header, body


def convert_cells(source: SourceFolder, card: TaskCard) -> list[Item]:
    header, dirty = read_rows(source, DIRTY)
    clean_header, clean = read_rows(source, CLEAN)
    if len(header) != len(clean_header) or len(dirty) != len(clean):
        raise SourceError(f"{source.root}: {DIRTY} is {len(dirty)}x{len(header)} but {CLEAN} is "
                          f"{len(clean)}x{len(clean_header)}")
    if len(set(header)) != len(header) or not all(header):
        raise SourceError(f"{source.path(DIRTY)}: header names must be unique and non-empty: {header}")
    width = len(str(len(dirty) - 1))
    items = []
    for i, (dirty_row, clean_row) in enumerate(zip(dirty, clean, strict=True)):
        row = dict(zip(header, dirty_row, strict=True))
        for column, dirty_value, clean_value in zip(header, dirty_row, clean_row, strict=True):
            answer = "erroneous" if raha_normalize(dirty_value) != raha_normalize(clean_value) else "clean"
            items.append(reference_item(card, {"row": row, "cell": column}, answer, group=f"r{i:0{width}d}",
                                        domain=column, extra={"cell": {"row": i, "column": column}}))
    return items


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    return convert_cells(source, card)
