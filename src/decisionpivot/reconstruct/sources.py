"""Reading official source files safely: hashes of raw bytes, stated decodings, gzip, archives.

Hashes are always taken over the raw bytes as published. Text is decoded with UTF-8 (BOM allowed),
then the fallbacks a card may state (e.g. cp1252, latin-1), never silently. Archives are unpacked
member by member, refusing absolute paths, ``..`` components and links, so nothing lands outside
the target folder.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import tarfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from decisionpivot.errors import DecisionPivotError

DEFAULT_ENCODINGS = ("utf-8-sig",)


class SourceError(DecisionPivotError):
    """An official file that is missing, altered or unreadable."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SourceFolder:
    """The official files of one task, read with hash checks and stated decodings."""

    def __init__(self, root: Path, encodings: Sequence[str] = DEFAULT_ENCODINGS) -> None:
        self.root = Path(root)
        self.encodings = tuple(encodings)

    def path(self, relative: str) -> Path:
        candidate = (self.root / relative).resolve()
        if self.root.resolve() not in candidate.parents and candidate != self.root.resolve():
            raise SourceError(f"{relative}: path leaves the source folder {self.root}")
        return candidate

    def raw(self, relative: str) -> bytes:
        path = self.path(relative)
        if not path.is_file():
            raise SourceError(f"{path}: official file missing")
        return path.read_bytes()

    def data(self, relative: str) -> bytes:
        """Raw bytes, gunzipped when the file is gzip-compressed."""
        raw = self.raw(relative)
        if raw[:2] == b"\x1f\x8b":
            try:
                return gzip.decompress(raw)
            except (OSError, EOFError) as exc:
                raise SourceError(f"{self.path(relative)}: corrupt gzip ({exc})") from None
        return raw

    def text(self, relative: str) -> str:
        data = self.data(relative)
        for encoding in self.encodings:
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                continue
        raise SourceError(f"{self.path(relative)}: not decodable as {', '.join(self.encodings)}")

    def json(self, relative: str) -> Any:
        try:
            return json.loads(self.text(relative))
        except json.JSONDecodeError as exc:
            raise SourceError(f"{self.path(relative)}:{exc.lineno}: not valid JSON ({exc.msg})") from None

    def jsonl(self, relative: str) -> list[Any]:
        return [value for _, value in self._json_lines(relative)]

    def records(self, relative: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """The JSON objects of a JSON Lines file, each with where it stands (``path:line``) for messages."""
        for where, value in self._json_lines(relative):
            if not isinstance(value, dict):
                raise SourceError(f"{where}: expected a JSON object")
            yield where, value

    def _json_lines(self, relative: str) -> Iterator[tuple[str, Any]]:
        for number, line in enumerate(self.text(relative).splitlines(), start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SourceError(f"{self.path(relative)}:{number}: not valid JSON ({exc.msg})") from None
            yield f"{self.path(relative)}:{number}", value

    def csv(self, relative: str, delimiter: str = ",") -> list[dict[str, str]]:
        return list(csv.DictReader(io.StringIO(self.text(relative), newline=""), delimiter=delimiter))


def safe_members(names: Sequence[str]) -> None:
    for name in names:
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise SourceError(f"archive member {name!r} would be written outside the target folder")


def extract_archive(archive: Path, target: Path) -> list[Path]:
    """Unpack a .zip, .tar, .tar.gz or .tgz into ``target``; refuses escaping paths and links."""
    target.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            safe_members(zf.namelist())
            for info in zf.infolist():
                if info.is_dir():
                    continue
                if (info.external_attr >> 16) & 0o170000 == 0o120000:
                    raise SourceError(f"{archive}: member {info.filename!r} is a symbolic link")
                out = target / info.filename
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(zf.read(info))
                written.append(out)
        return written
    try:
        tf = tarfile.open(archive)  # noqa: SIM115 - closed by the with-block below
    except tarfile.TarError:
        raise SourceError(f"{archive}: not a zip or tar archive") from None
    with tf:
        members = tf.getmembers()
        safe_members([m.name for m in members])
        for member in members:
            if member.issym() or member.islnk() or member.isdev():
                raise SourceError(f"{archive}: member {member.name!r} is a link or device")
            if not member.isfile():
                continue
            handle = tf.extractfile(member)
            if handle is None:
                continue
            out = target / member.name
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(handle.read())
            written.append(out)
    return written


