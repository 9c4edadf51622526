"""Training inputs of `dp overlap`: which files, in which format, cut into parts, read as blocks of text.

Inputs are local paths or fsspec URLs (``s3://``, ``gs://``, ``memory://``, ``file://``, ...; the
file system's own package must be installed, e.g. s3fs, and its credentials configured the usual
way, e.g. ``AWS_*`` variables). A folder stands for every file below it, a glob for its matches
(names starting with ``.`` or ``_`` are left out, like ``_SUCCESS`` markers). The format comes
from the name, after a compression suffix (``.gz``; ``.zst`` / ``.zstd``, needs zstandard):

* ``.jsonl``, ``.json``, ``.ndjson`` - JSON Lines; each record's string values (keys left out)
  joined by spaces are one document;
* ``.parquet``, ``.pq`` - one document per row of the text column (``--text-column``, default
  ``text``; needs pyarrow);
* anything else - plain UTF-8 text, one token stream (n-grams run across line breaks).

n-grams never span two documents. A file is one *part*, except an uncompressed text or JSON Lines
file larger than the part size, cut into byte ranges, and a Parquet file, cut into runs of row
groups. A byte-range part owns the tokens (lines) that start in its range, moved to the next
separator (line end), and reads on past its end only to finish its last n-grams: every n-gram is
seen exactly once, whichever worker reads which part. Compressed streams are decompressed in
bounded pieces, and a corrupt or truncated one is an error naming the file, never a partial scan.

A URL's format is read from its path, never from its query (``data.jsonl.zst?X-Amz-Signature=...``
is compressed JSON Lines), and a URL is reported with its credentials and signatures replaced by
``[REDACTED]`` (:func:`decisionpivot.redact.redact_url`): in messages, ``overlap.json`` and the
resume state. Memory stays bounded whatever the input: a JSON line longer than
:data:`MAX_LINE_BYTES` is refused with its place (a line is parsed whole), a zstd stream is fed to
its decompressor in pieces small enough that no call returns more than a few MiB, and a body that
ends before its announced length is an error naming the URL.
"""

from __future__ import annotations

import json
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import string_values
from decisionpivot.overlap.chunks import first_safe, safe_cut
from decisionpivot.redact import redact, redact_url

CHUNK_BYTES = 1 << 20
"""Bytes of text tokenised at a time (about 1 MB keeps the arrays of a chunk in the CPU caches)."""
READ_BYTES = 1 << 16
"""Compressed bytes read from a compressed file at a time."""
ZSTD_FEED_BYTES = 256
"""Compressed bytes given to one zstd decompression call. zstd expands a byte to at most about 32,768 (a run
block of 128 KiB is 4 bytes), so a call returns at most 8 MiB even for a decompression bomb (about 1 KiB on
ordinary text; the outputs are joined into pieces of about OUT_BYTES)."""
OUT_BYTES = 1 << 20
"""Most bytes one gzip decompression call returns."""
LOOKAHEAD_BYTES = 1 << 10
"""First read past a part's end (doubled until its last n-grams are complete)."""
MAX_UNCUT_BYTES = 64 << 20
"""Text longer than this without any ASCII whitespace or punctuation is refused (it cannot be cut exactly)."""
MAX_LINE_BYTES = 32 << 20
"""A JSON line longer than this is refused: a record is parsed whole, so a longer line would hold several times
its size in memory (a 105 MB line took 4.1 GB). Split such a record, or give its text as a plain text file."""
PARQUET_BATCH_ROWS = 2048
TEXT, JSONL, PARQUET = "text", "jsonl", "parquet"
BYTE, ROW_GROUP = "byte", "row_group"
_COMPRESSIONS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}
_FORMATS = {".jsonl": JSONL, ".json": JSONL, ".ndjson": JSONL, ".parquet": PARQUET, ".pq": PARQUET}
_CHANGE_STAMPS = ("mtime", "LastModified", "last_modified", "ETag", "etag", "md5Hash", "created", "updated")
EXTRA = "pip install 'decisionpivot[overlap]'"


@dataclass(frozen=True)
class TrainingFile:
    """One training file, as found when the inputs were expanded."""

    url: str
    """The file as reported (a local path as given, or a URL)."""
    location: str
    """What workers open: an absolute local path or a URL."""
    size: int
    """Size in bytes (compressed size for compressed files)."""
    key: str
    """Size and modification stamp: a changed file gets another key, so a resumed scan reads it again."""
    format: str
    """``text``, ``jsonl`` or ``parquet``."""
    compression: str
    """``""``, ``gzip`` or ``zstd``."""


@dataclass(frozen=True)
class Part:
    """A piece of a training file that one task scans: a byte range, or a run of Parquet row groups."""

    file: TrainingFile
    """The file."""
    start: int
    """First byte (``unit`` byte) or first row group (``unit`` row_group)."""
    end: int
    """End byte or row group, exclusive."""
    unit: str
    """``byte`` or ``row_group``."""
    weight: int
    """Bytes of the file this part stands for (for progress and throughput)."""


@dataclass(frozen=True)
class Block:
    """A piece of training text as it is tokenised: one stream segment, or several whole documents."""

    data: bytes
    """UTF-8 text; documents are separated by a newline."""
    origin: int
    """Byte offset of ``data`` in the decompressed file (streams; 0 for documents)."""
    lookahead: bool
    """Read past the part's end, only to finish n-grams that start inside it."""
    consumed: int
    """Bytes of the file read for this part so far (progress)."""
    span: int
    """Bytes of the (decompressed) file this block stands for: the training text it covers."""
    doc_starts: np.ndarray | None = None
    """Where each document starts in ``data`` (None: a stream, no documents)."""
    doc_origins: np.ndarray | None = None
    """Each document's place in the file: byte offset of its JSON line, or its Parquet row."""


def detect_format(name: str) -> tuple[str, str]:
    """(format, compression) of a training file from its name (a URL's path: its query says nothing)."""
    lowered = (urlsplit(name).path if _is_url(name) else name).lower().rstrip("/")
    compression = ""
    for suffix, kind in _COMPRESSIONS.items():
        if lowered.endswith(suffix):
            compression, lowered = kind, lowered[: -len(suffix)]
            break
    suffix = os.path.splitext(lowered)[1]
    return _FORMATS.get(suffix, TEXT), compression


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError:
        raise DecisionPivotError(f"{shown(url)}: reading training files needs fsspec ({EXTRA})") from None
    try:
        return fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise DecisionPivotError(f"{shown(url)}: cannot open this kind of URL ({_reason(exc)}); install its fsspec "
                                 "file system, e.g. s3fs for s3://") from None


def _is_url(spec: str) -> bool:
    return "://" in spec


def shown(spec: str) -> str:
    """A training input as it may be printed and written: a URL without its credentials and signatures (a URL
    with neither stays as it is, ``memory:///x`` included)."""
    if not _is_url(spec):
        return spec
    parts = urlsplit(spec)
    return redact_url(spec) if "@" in parts.netloc or parts.query else redact(spec)


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]+")


def _reason(exc: BaseException) -> str:
    """What went wrong, on one line, without the secrets of any URL it quotes."""
    text = " ".join((str(exc) or type(exc).__name__).split())
    return redact(_URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text))


def _transport_errors() -> tuple[type[BaseException], ...]:
    """What reading a file may raise besides OSError: the HTTP client's errors (a body shorter than its
    Content-Length, a reset) are not OSErrors."""
    errors: list[type[BaseException]] = [OSError, EOFError]
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is not None:
        errors.append(aiohttp.ClientError)
    return tuple(errors)


def _change_key(info: dict[str, Any]) -> str:
    stamp = next((str(info[k]) for k in _CHANGE_STAMPS if info.get(k) is not None), "")
    return f"{info.get('size')}:{stamp}"


def _hidden(path: str) -> bool:
    return os.path.basename(path.rstrip("/")).startswith((".", "_"))


def expand_inputs(specs: Sequence[str]) -> list[TrainingFile]:
    """The training files named by paths, folders, globs or URLs, in the order given (each file once)."""
    files: list[TrainingFile] = []
    seen: set[str] = set()
    for spec in specs:
        fs, path = _filesystem(spec)
        said = shown(spec)
        # in a URL "?" starts the query (every presigned URL has one): only its path may hold a pattern
        pattern = urlsplit(spec).path if _is_url(spec) else path
        try:
            fs.invalidate_cache()  # listings cached by an earlier call in this process may be stale
            if any(c in pattern for c in "*?["):
                matches = [m for m in sorted(fs.glob(path)) if not _hidden(m) and fs.isfile(m)]
                if not matches:
                    raise DecisionPivotError(f"{said}: no training files match")
            elif fs.isfile(path):  # before isdir: over HTTP, isdir downloads the whole file to look for links
                matches = [path]
            elif fs.isdir(path):
                matches = [m for m in sorted(fs.find(path)) if not _hidden(m)]
                if not matches:
                    raise DecisionPivotError(f"{said}: folder holds no training files")
            else:
                raise DecisionPivotError(f"{said}: no such training file")
            for match in matches:
                info = fs.info(match)
                location = fs.unstrip_protocol(match) if _is_url(spec) else match
                if location in seen:
                    continue
                seen.add(location)
                url = shown(spec if match == path else (location if _is_url(spec) or os.path.isabs(spec)
                                                        else os.path.relpath(match)))
                fmt, compression = detect_format(match)
                if fmt == PARQUET and compression:
                    raise DecisionPivotError(f"{url}: a Parquet file compresses its columns itself; "
                                             "remove the outer compression")
                files.append(TrainingFile(url, location, int(info.get("size") or 0), _change_key(info), fmt,
                                          compression))
        except _transport_errors() as exc:
            raise DecisionPivotError(f"{said}: cannot list training files ({_reason(exc)})") from None
    return files


def _open(file: TrainingFile) -> BinaryIO:
    fs, path = _filesystem(file.location)
    try:
        return fs.open(path, "rb")
    except _transport_errors() as exc:
        raise DecisionPivotError(f"{file.url}: cannot read training file ({_reason(exc)})") from None


def _parquet_module() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DecisionPivotError(f"reading Parquet training files needs pyarrow ({EXTRA})") from None
    return pq


def _parquet_file(file: TrainingFile, handle: BinaryIO) -> Any:
    pq = _parquet_module()
    import pyarrow as pa

    try:
        return pq.ParquetFile(handle)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DecisionPivotError(f"{file.url}: not a readable Parquet file ({_reason(exc)})") from None


def plan_parts(files: Sequence[TrainingFile], part_bytes: int) -> list[Part]:
    """Cut the files into parts of about ``part_bytes`` (compressed files stay whole)."""
    if part_bytes < 1:
        raise DecisionPivotError(f"the part size must be positive, got {part_bytes}")
    parts: list[Part] = []
    for file in files:
        if file.format == PARQUET:
            with _open(file) as handle:
                meta = _parquet_file(file, handle).metadata
                sizes = [sum(meta.row_group(g).column(c).total_compressed_size for c in range(meta.num_columns))
                         for g in range(meta.num_row_groups)]
            start, weight = 0, 0
            for group, size in enumerate(sizes):
                weight += size
                if weight >= part_bytes or group == len(sizes) - 1:
                    parts.append(Part(file, start, group + 1, ROW_GROUP, weight))
                    start, weight = group + 1, 0
            if not sizes:
                parts.append(Part(file, 0, 0, ROW_GROUP, file.size))
        elif file.compression or file.size <= part_bytes:
            parts.append(Part(file, 0, file.size, BYTE, file.size))
        else:
            for start in range(0, file.size, part_bytes):
                end = min(file.size, start + part_bytes)
                parts.append(Part(file, start, end, BYTE, end - start))
    return parts


class _Counted:
    """A binary file read in pieces, counting the bytes read; read errors name the file."""

    def __init__(self, handle: BinaryIO, url: str) -> None:
        self.handle, self.url, self.count = handle, url, 0

    def read(self, size: int) -> bytes:
        try:
            data = self.handle.read(size)
        except _transport_errors() as exc:
            raise DecisionPivotError(f"{self.url}: cannot read training file ({_reason(exc)})") from None
        self.count += len(data)
        return data


def _gzip_pieces(raw: _Counted) -> Iterator[bytes]:
    decompressor, started = zlib.decompressobj(31), False
    data = raw.read(READ_BYTES)
    while data:
        if not started:
            data = data.lstrip(b"\0")  # zero padding after a member, as gzip allows
            if not data:
                data = raw.read(READ_BYTES)
                continue
            started = True
        out = decompressor.decompress(data, OUT_BYTES)
        while True:
            if out:
                yield out
            if not decompressor.unconsumed_tail:
                break
            out = decompressor.decompress(decompressor.unconsumed_tail, OUT_BYTES)
        if decompressor.eof:  # a member ended; what follows may be another member
            data, decompressor, started = decompressor.unused_data, zlib.decompressobj(31), False
            data = data or raw.read(READ_BYTES)
        else:
            data = raw.read(READ_BYTES)
    if started:
        raise EOFError("the file ends inside a gzip member")


def _zstd_pieces(raw: _Counted) -> Iterator[bytes]:
    try:
        import zstandard
    except ImportError:
        raise DecisionPivotError(f"{raw.url}: reading .zst training files needs zstandard ({EXTRA})") from None
    context = zstandard.ZstdDecompressor()
    decompressor, started = context.decompressobj(), False
    pending: list[bytes] = []
    pending_bytes = 0
    data = raw.read(READ_BYTES)
    while data:
        started, fed = True, 0
        while fed < len(data) and not decompressor.eof:  # small pieces: one call's output stays bounded
            out = decompressor.decompress(data[fed : fed + ZSTD_FEED_BYTES])
            fed += ZSTD_FEED_BYTES
            pending.append(out)
            pending_bytes += len(out)
            if pending_bytes >= OUT_BYTES:
                yield b"".join(pending)
                pending, pending_bytes = [], 0
        if pending_bytes:
            yield b"".join(pending)
            pending, pending_bytes = [], 0
        if decompressor.eof:  # a frame ended; what follows may be another frame
            rest = decompressor.unused_data + data[fed:]
            decompressor, started = context.decompressobj(), False
            data = rest or raw.read(READ_BYTES)
        else:
            data = raw.read(READ_BYTES)
    if started:
        raise EOFError("the file ends inside a zstd frame")


class _Inflated:
    """The decompressed bytes of a gzip or zstd stream, read ``size`` bytes at a time."""

    def __init__(self, raw: _Counted, compression: str) -> None:
        self._pieces = _gzip_pieces(raw) if compression == "gzip" else _zstd_pieces(raw)
        self._buffer = bytearray()
        self._done = False

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size and not self._done:
            piece = next(self._pieces, None)
            if piece is None:
                self._done = True
            else:
                self._buffer += piece
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data


def _aligned(handle: BinaryIO, position: int, first_boundary: Callable[[bytes], int]) -> int:
    """The first position >= ``position`` right after a boundary byte (0 stays 0; the file's end if none)."""
    if position <= 0:
        return 0
    handle.seek(position - 1)
    offset = position - 1
    while True:
        data = handle.read(READ_BYTES)
        if not data:
            return offset
        found = first_boundary(data)
        if found >= 0:
            return offset + found + 1
        offset += len(data)


def _pieces(stream: _Counted | _Inflated, origin: int, end: int | None, cut: Callable[[bytes, int], int],
            limit: int, too_long: Callable[[int, int], str]) -> Iterator[tuple[bytes, int]]:
    """(piece, offset) of a stream from ``origin`` to ``end`` (None: its end), about CHUNK_BYTES each; a piece
    ends where ``cut(buffer, carried)`` says (0: read more), the last one at ``end`` or the stream's end. More
    than ``limit`` bytes without a cut is refused with ``too_long(bytes, offset)``."""
    position, carry = origin, b""
    while end is None or position + len(carry) < end:
        data = stream.read(CHUNK_BYTES if end is None else min(CHUNK_BYTES, end - position - len(carry)))
        if not data:
            break
        buffer = carry + data
        at = len(buffer) if end is not None and position + len(buffer) >= end else cut(buffer, len(carry))
        if at == 0:
            if len(buffer) > limit:
                raise DecisionPivotError(too_long(len(buffer), position))
            carry = buffer
            continue
        yield buffer[:at], position
        position, carry = position + at, buffer[at:]
    if carry:
        yield carry, position


def _stream_blocks(stream: _Counted | _Inflated, raw: _Counted, origin: int, end: int | None,
                   url: str) -> Iterator[Block]:
    """Text from ``origin`` to ``end`` (None: the end of the stream) cut after SAFE bytes, then lookahead blocks."""
    position = origin

    def too_long(size: int, offset: int) -> str:
        return (f"{url}: no ASCII whitespace or punctuation in {size} bytes from byte {offset}; "
                "not text that can be scanned")

    for piece, position in _pieces(stream, origin, end, lambda buffer, carried: safe_cut(buffer, max(0, carried - 1)),
                                   MAX_UNCUT_BYTES, too_long):
        yield Block(piece, position, False, raw.count, len(piece))
        position += len(piece)
    if end is None:
        return
    carry, want = b"", LOOKAHEAD_BYTES
    while True:  # lookahead: the consumer stops reading once its last n-grams are complete
        data = stream.read(want)
        want = min(2 * want, CHUNK_BYTES)
        if not data:
            if carry:
                yield Block(carry, position, True, raw.count, 0)
            return
        buffer = carry + data
        cut = safe_cut(buffer)
        if cut == 0:
            carry = buffer
            continue
        yield Block(buffer[:cut], position, True, raw.count, 0)
        position, carry = position + cut, buffer[cut:]


class JsonLineError(DecisionPivotError):
    """A JSON line that does not parse; the line number is worked out by the caller when the part does not
    start at the file's beginning."""

    def __init__(self, url: str, offset: int, line: int | None) -> None:
        where = f"{url}:{line}" if line else f"{url}: the line at byte {offset}"
        super().__init__(f"{where}: not valid JSON")
        self.url, self.offset, self.line = url, offset, line


def _documents(lines: bytes, origin: int, first_line: int | None, url: str, consumed: int) -> Block:
    texts: list[bytes] = []
    origins: list[int] = []
    offset = origin
    for number, line in enumerate(lines.split(b"\n")):
        text = line.decode("utf-8", "replace")
        if text.strip():
            try:
                record = json.loads(text)
            except json.JSONDecodeError:
                raise JsonLineError(url, offset, None if first_line is None else first_line + number) from None
            texts.append(" ".join(string_values(record)).encode("utf-8", "surrogatepass"))
            origins.append(offset)
        offset += len(line) + 1
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return Block(b"\n".join(texts), 0, False, consumed, len(lines), np.cumsum(lengths + 1) - lengths - 1,
                 np.array(origins, dtype=np.int64))


def _jsonl_blocks(stream: _Counted | _Inflated, raw: _Counted, origin: int, end: int | None, url: str,
                  first_line: int | None) -> Iterator[Block]:
    line = first_line

    def too_long(size: int, offset: int) -> str:
        where = f"{url}:{line}" if line is not None else f"{url}: the line at byte {offset}"
        return (f"{where}: a JSON line longer than {MAX_LINE_BYTES >> 20} MiB (over {size} bytes read); dp overlap "
                "parses a record whole and refuses longer lines to keep memory bounded: split the record, or give "
                "its text as a plain text file")

    for piece, position in _pieces(stream, origin, end, lambda buffer, carried: buffer.rfind(b"\n", carried) + 1,
                                   MAX_LINE_BYTES, too_long):
        yield _documents(piece, position, line, url, raw.count)
        if line is not None:
            line += piece.count(b"\n")


def _line_number(file: TrainingFile, offset: int) -> int:
    with _open(file) as handle:
        count, read = 1, 0
        while read < offset:
            data = handle.read(min(CHUNK_BYTES, offset - read))
            if not data:
                break
            count += data.count(b"\n")
            read += len(data)
    return count


def _parquet_blocks(file: TrainingFile, handle: BinaryIO, part: Part, text_column: str) -> Iterator[Block]:
    import pyarrow as pa

    parquet = _parquet_file(file, handle)
    schema = parquet.schema_arrow
    if text_column not in schema.names:
        raise DecisionPivotError(f"{file.url}: no column {text_column!r} (columns: {', '.join(schema.names)}); "
                                 "name the text column with --text-column")
    kind = schema.field(text_column).type
    value_kind = kind.value_type if pa.types.is_dictionary(kind) else kind
    if not (pa.types.is_string(value_kind) or pa.types.is_large_string(value_kind)
            or getattr(pa.types, "is_string_view", lambda _: False)(value_kind)):
        raise DecisionPivotError(f"{file.url}: column {text_column!r} holds {kind}, not text")
    meta = parquet.metadata
    row = sum(meta.row_group(g).num_rows for g in range(part.start))
    sizes = [sum(meta.row_group(g).column(c).total_compressed_size for c in range(meta.num_columns))
             for g in range(part.start, part.end)]
    consumed = 0
    for group, size in zip(range(part.start, part.end), sizes, strict=True):
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, row_groups=[group], columns=[text_column]):
            values = batch.column(0).to_pylist()
            texts = [v.encode("utf-8", "surrogatepass") for v in values if v is not None]
            origins = np.array([row + i for i, v in enumerate(values) if v is not None], dtype=np.int64)
            row += len(values)
            lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
            data = b"\n".join(texts)
            yield Block(data, 0, False, consumed, len(data), np.cumsum(lengths + 1) - lengths - 1, origins)
        consumed += size


def _corrupt(file: TrainingFile, exc: BaseException) -> DecisionPivotError:
    what = {"gzip": "gzip", "zstd": "zstd"}.get(file.compression, "")
    reason = _reason(exc)
    if what:
        return DecisionPivotError(f"{file.url}: corrupt or truncated {what} file ({reason}); nothing of it was counted")
    return DecisionPivotError(f"{file.url}: cannot read training file ({reason})")


def read_part(part: Part, text_column: str = "text") -> Iterator[Block]:
    """The blocks of text of one part, in file order (stream segments, or whole documents)."""
    file = part.file
    handle = _open(file)
    try:
        if file.format == PARQUET:
            import pyarrow as pa

            try:
                yield from _parquet_blocks(file, handle, part, text_column)
            except (pa.ArrowException, OSError) as exc:
                raise DecisionPivotError(f"{file.url}: not a readable Parquet file ({_reason(exc)})") from None
            return
        is_jsonl = file.format == JSONL
        if file.compression:
            raw = _Counted(handle, file.url)
            stream: _Counted | _Inflated = _Inflated(raw, file.compression)
            start, end = 0, None
        else:
            boundary = (lambda data: data.find(b"\n")) if is_jsonl else first_safe
            start = _aligned(handle, part.start, boundary)
            end = file.size if part.end >= file.size else _aligned(handle, part.end, boundary)
            handle.seek(start)
            raw = _Counted(handle, file.url)
            stream = raw
        blocks = (_jsonl_blocks(stream, raw, start, end, file.url, 1 if start == 0 else None) if is_jsonl
                  else _stream_blocks(stream, raw, start, end, file.url))
        try:
            yield from blocks
        except JsonLineError as exc:
            if exc.line is None:
                raise JsonLineError(file.url, exc.offset, _line_number(file, exc.offset)) from None
            raise
        except DecisionPivotError:
            raise
        except (EOFError, zlib.error, OSError, ValueError, *_transport_errors()) as exc:
            raise _corrupt(file, exc) from None
        except Exception as exc:
            if type(exc).__name__ == "ZstdError":
                raise _corrupt(file, exc) from None
            raise
    finally:
        handle.close()
