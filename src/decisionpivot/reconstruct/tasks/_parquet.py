"""Reading a published Parquet file row by row (file order) for converters; needs ``pyarrow``."""

from __future__ import annotations

import io
from typing import Any

from decisionpivot.reconstruct.sources import SourceError, SourceFolder


def parquet_rows(source: SourceFolder, relative: str) -> list[dict[str, Any]]:
    """Every row of a Parquet file as a dict, in file order."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise SourceError(f"{source.path(relative)}: reading Parquet needs pyarrow (pip install pyarrow)") from None
    try:
        table = pq.read_table(io.BytesIO(source.raw(relative)))
    except (OSError, ValueError) as exc:
        raise SourceError(f"{source.path(relative)}: not a readable Parquet file ({exc})") from None
    return table.to_pylist()


def require_columns(source: SourceFolder, relative: str, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    """Raise naming the file and the first row that lacks one of ``columns``."""
    for i, row in enumerate(rows):
        missing = [c for c in columns if c not in row]
        if missing:
            raise SourceError(f"{source.path(relative)}: row {i} lacks column(s) {', '.join(missing)}")
