"""tabfact (layer E): is the statement entailed or refuted by the table? (TabFact test, 200 tables).

Files: ``test_examples.json`` (the official test split as released in ``tokenized_data/``: table id
-> [statements, labels (1 entailed / 0 refuted), table caption]), ``small_test_id.json`` (the
official "small test" table ids) and the tables ``all_csv/<table id>`` ('#'-separated, header row
first). The reconstruction uses the tables whose csv files are distributed with the task's official
copy: the first ``TABLES`` (200) entries of ``small_test_id.json``, in that order. A missing table is
an error, so a user holding the full ``all_csv/`` folder gets the same items.

One item per (table, statement), statements in their file order. The state is the table as a
structure (``title`` = caption, ``columns`` = header cells, ``rows`` = data rows as lists of cells,
unchanged strings) plus the statement. Group = table id, so the bootstrap resamples tables.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

EXAMPLES = "test_examples.json"
TABLE_IDS = "small_test_id.json"
TABLES = 200
LABELS = {1: "entailed", 0: "refuted"}


def read_table(source: SourceFolder, table_id: str) -> tuple[list[str], list[list[str]]]:
    """Header cells and data rows of one '#'-separated table; every row must have the header's width."""
    relative = f"all_csv/{table_id}"
    lines = source.text(relative).splitlines()
    if not lines or not lines[0]:
        raise SourceError(f"{source.path(relative)}: empty table")
    columns = lines[0].split("#")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("#")
        if len(cells) != len(columns):
            raise SourceError(f"{source.path(relative)}:{number}: {len(cells)} cells, header has {len(columns)}")
        rows.append(cells)
    if not rows:
        raise SourceError(f"{source.path(relative)}: no data rows")
    return columns, rows


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    examples = source.json(EXAMPLES)
    table_ids = source.json(TABLE_IDS)
    if not isinstance(examples, dict) or not isinstance(table_ids, list):
        raise SourceError(f"{source.root}: {EXAMPLES} should be a JSON object and {TABLE_IDS} a JSON array")
    if len(table_ids) < TABLES:
        raise SourceError(f"{source.path(TABLE_IDS)}: {len(table_ids)} table ids, expected at least {TABLES}")
    items = []
    for table_id in table_ids[:TABLES]:
        entry = examples.get(table_id)
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], list)
                and isinstance(entry[1], list) and len(entry[0]) == len(entry[1]) and isinstance(entry[2], str)):
            raise SourceError(f"{source.path(EXAMPLES)}: table {table_id!r} is missing or not "
                              "[statements, labels, caption]")
        statements, labels, caption = entry
        columns, rows = read_table(source, table_id)
        table = {"title": caption, "columns": columns, "rows": rows}
        for k, (statement, label) in enumerate(zip(statements, labels, strict=True)):
            if label not in LABELS or isinstance(label, bool) or not isinstance(statement, str) or not statement:
                raise SourceError(f"{source.path(EXAMPLES)}: table {table_id!r} statement {k}: "
                                  f"label {label!r} (expected 1 or 0) or empty statement")
            state = {"table": table, "statement": statement}
            items.append(reference_item(card, state, LABELS[label], group=table_id.removesuffix(".html.csv")))
    return items
