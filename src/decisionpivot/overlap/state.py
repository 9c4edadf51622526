"""The resume state of a scan: a journal of finished parts and their hits, one JSON line per part.

The first line names the item index (its digest covers the normalisation, ``n`` and every item's
tokens) and every other option that changes what a part yields (the text column); each further
line is one finished part: the file, its change key, the range, and the items it flagged with
their evidence. A line is appended (and synced to disk) as soon as its part is done, so a crash
loses at most the parts in flight; a torn last line is dropped on reading. A part is skipped
when the journal holds it for the same file, change key and range: a changed file (other size
or modification stamp) is scanned again, and a file added later is the only one scanned. A
journal written for other items, another ``n`` or another ``--text-column`` is replaced (said
once): a part's result depends on all of them. A URL is journaled without its credentials and
signatures (:func:`~decisionpivot.overlap.sources.shown`): a presigned URL signed again resumes,
and the change key (size and modification stamp or ETag) still tells a changed file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.normalise import NORMALISATION
from decisionpivot.overlap.scan import Evidence, PartResult
from decisionpivot.overlap.sources import Part, shown

FORMAT = 2
"""2: the header names the text column, and URLs are written without secrets."""
_ENTRY_KEYS = ("location", "key", "unit", "start", "end", "text_bytes", "tokens", "hits")


def _part_key(part: Part) -> tuple[str, str, str, int, int]:
    return (shown(part.file.location), part.file.key, part.unit, part.start, part.end)


class ScanState:
    """The finished parts of a scan, read from and appended to a journal file (or kept in memory only)."""

    def __init__(self, path: Path | None, index: ItemIndex, text_column: str = "text") -> None:
        self.path = path
        self.header = {"overlap_state": FORMAT, "index": index.digest, "n": index.n, "normalisation": NORMALISATION,
                       "text_column": text_column}
        self.finished: dict[tuple[str, str, str, int, int], dict[str, Any]] = {}
        self.note = ""
        """Said once to the user: resumed, or replaced a journal of another scan."""
        if path is None:
            return
        lines = self._read(path)
        if lines and lines[0] == self.header:
            for entry in lines[1:]:
                self.finished[(entry["location"], entry["key"], entry["unit"], entry["start"], entry["end"])] = entry
            if self.finished:
                self.note = f"resuming from {path}: {len(self.finished)} finished part(s) recorded"
            atomic_write_bytes(path, "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines).encode())
        else:
            if lines:
                self.note = (f"{path} was written for other items, another --n or another --text-column; "
                             "starting afresh")
            atomic_write_bytes(path, (json.dumps(self.header, sort_keys=True) + "\n").encode())

    @staticmethod
    def _read(path: Path) -> list[dict[str, Any]]:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            raise DecisionPivotError(f"{path}: cannot read the resume state ({exc})") from None
        lines = text.split("\n")
        if lines[-1]:
            lines = lines[:-1]  # a torn last line (crash while appending): that part is scanned again
        entries = []
        for number, line in enumerate(lines, start=1):
            if not line:
                continue
            try:
                entry = json.loads(line)
                valid = isinstance(entry, dict) and (number == 1 or all(k in entry for k in _ENTRY_KEYS))
            except json.JSONDecodeError:
                valid = False
            if not valid:
                raise DecisionPivotError(f"{path}:{number}: not a line of an overlap resume state; delete the file "
                                         "to scan everything again") from None
            entries.append(entry)
        return entries

    def result_for(self, part: Part) -> PartResult | None:
        """The recorded result of a part, if it was finished before (same file, change key and range)."""
        entry = self.finished.get(_part_key(part))
        if entry is None:
            return None
        hits = {item: Evidence(part.file.url, unit, position, ngram) for item, (unit, position, ngram)
                in entry["hits"].items()}
        return PartResult(part, hits, entry["text_bytes"], entry["tokens"])

    def record(self, result: PartResult) -> None:
        """Append a finished part to the journal (synced to disk before returning)."""
        part = result.part
        entry = {"file": part.file.url, "location": shown(part.file.location), "key": part.file.key, "unit": part.unit,
                 "start": part.start, "end": part.end, "text_bytes": result.text_bytes, "tokens": result.tokens,
                 "hits": {item: [e.unit, e.position, e.ngram] for item, e in result.hits.items()}}
        self.finished[_part_key(part)] = entry
        if self.path is None:
            return
        try:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise DecisionPivotError(f"cannot write {self.path}: {exc}") from None
