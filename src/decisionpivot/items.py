"""The item record, its validation, and deterministic JSON Lines files.

An item is a state, a typed question and an ordered option set with a gold answer (DESIGN.md
section 3). Items files are JSON Lines in UTF-8 with a fixed key order and ``\\n`` line ends, so the
same items give the same bytes on every host, under every PYTHONHASHSEED and locale.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError

LAYERS = ("A", "B", "C", "D", "E", "F", "G")
"""The seven decision layers of the paper: A answerability/routing ... G search/matching."""

ITEM_KEYS = (
    "id", "family", "layer", "version", "group", "level", "variation", "domain",
    "state", "question", "options", "answer",
)
"""Keys every item carries, in the order they are written. Extra keys (reference metadata such as
``query`` or ``success_rate``) follow in sorted order."""


class ItemError(DecisionPivotError):
    """An item or items file that does not follow the schema; the message names file, line, field."""


@dataclass(frozen=True)
class Option:
    """One answer option as shown to the system."""

    key: str
    """Machine key the system returns a probability for (``yes``, ``approve``, ``T-0412``)."""
    meaning: str
    """What choosing the key means, shown to chat models as ``key: meaning``."""


@dataclass(frozen=True)
class Item:
    """One benchmark item: state, question, ordered options and gold answer."""

    id: str
    """``<family>:<5-digit index>`` for core items, ``<task>:<index>`` for reference items."""
    family: str
    """Core family or reference task name."""
    layer: str
    """Decision layer, one of A-G."""
    version: str
    """Version of the generator (core) or the converter (reference) that made the item."""
    group: str | None
    """Contrast group id (``<family>:g<4 digits>``); None for ungrouped reference items."""
    level: int | None
    """Difficulty level 1-3 for core items; None for reference items."""
    variation: str | None
    """Type of the pivotal variation of this member (e.g. ``lookalike``), if any."""
    domain: str | None
    """Invented-world domain the case is drawn from (e.g. ``logistics``)."""
    state: str | dict[str, Any]
    """The case: text, or a JSON object for structured states."""
    question: str
    """The typed question."""
    options: tuple[Option, ...]
    """Ordered options; the order is part of the item and never shuffled at evaluation."""
    answer: str | None
    """Gold option key; None only for reference items scored by another label (success rate)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Further top-level keys a reference metric needs (``query``, ``success_rate``, ...)."""

    @property
    def option_keys(self) -> tuple[str, ...]:
        return tuple(o.key for o in self.options)

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": self.id,
            "family": self.family,
            "layer": self.layer,
            "version": self.version,
            "group": self.group,
            "level": self.level,
            "variation": self.variation,
            "domain": self.domain,
            "state": self.state,
            "question": self.question,
            "options": [{"key": o.key, "meaning": o.meaning} for o in self.options],
            "answer": self.answer,
        }
        for key in sorted(self.extra):
            if key in record:
                raise ItemError(f"item {self.id}: extra key {key!r} shadows a schema key")
            record[key] = self.extra[key]
        return record


def item_line(item: Item) -> str:
    """The item as one JSON line (no trailing newline), byte-stable across hosts."""
    return json.dumps(item.to_dict(), ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _fail(where: str, field_name: str, expected: str, found: Any) -> ItemError:
    shown = repr(found)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return ItemError(f"{where}: field {field_name!r}: expected {expected}, found {shown}")


def item_from_dict(record: Any, where: str = "<item>") -> Item:
    """Validate one decoded record and build the Item; ``where`` is ``file:line`` for messages."""
    if not isinstance(record, dict):
        raise ItemError(f"{where}: expected a JSON object, found {type(record).__name__}")
    missing = [k for k in ITEM_KEYS if k not in record]
    if missing:
        raise ItemError(f"{where}: missing field(s) {', '.join(missing)}")

    def text(name: str, *, optional: bool = False) -> str | None:
        value = record[name]
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value:
            raise _fail(where, name, "a non-empty string" + (" or null" if optional else ""), value)
        return value

    item_id = text("id")
    family = text("family")
    assert item_id is not None and family is not None  # for the type checker; text() raised otherwise
    if not item_id.startswith(family + ":"):
        raise _fail(where, "id", f"'{family}:<index>' (prefix must be the family)", item_id)
    layer = record["layer"]
    if layer not in LAYERS:
        raise _fail(where, "layer", f"one of {', '.join(LAYERS)}", layer)
    version = text("version")
    group = text("group", optional=True)
    if group is not None and not group.startswith(family + ":"):
        raise _fail(where, "group", f"'{family}:g<index>'", group)
    level = record["level"]
    if level is not None and (isinstance(level, bool) or level not in (1, 2, 3)):
        raise _fail(where, "level", "1, 2, 3 or null", level)
    variation = text("variation", optional=True)
    domain = text("domain", optional=True)
    state = record["state"]
    if not (isinstance(state, str) and state) and not isinstance(state, dict):
        raise _fail(where, "state", "a non-empty string or a JSON object", state)
    question = text("question")
    raw_options = record["options"]
    if not isinstance(raw_options, list) or len(raw_options) < 2:
        raise _fail(where, "options", "a list of at least two {key, meaning} objects", raw_options)
    options: list[Option] = []
    for i, raw in enumerate(raw_options):
        if (
            not isinstance(raw, dict)
            or set(raw) != {"key", "meaning"}
            or not isinstance(raw["key"], str)
            or not raw["key"]
            or not isinstance(raw["meaning"], str)
        ):
            raise _fail(where, f"options[{i}]", "an object with string 'key' and 'meaning'", raw)
        options.append(Option(raw["key"], raw["meaning"]))
    keys = [o.key for o in options]
    if len(set(keys)) != len(keys):
        raise _fail(where, "options", "unique option keys", keys)
    answer = record["answer"]
    if answer is not None and answer not in keys:
        raise _fail(where, "answer", f"one of the option keys {keys}", answer)
    if answer is None and level is not None:
        raise _fail(where, "answer", "an option key (core items always have a gold answer)", answer)
    extra = {k: v for k, v in record.items() if k not in ITEM_KEYS}
    return Item(
        id=item_id, family=family, layer=layer, version=version or "", group=group, level=level,
        variation=variation, domain=domain, state=state, question=question or "",
        options=tuple(options), answer=answer, extra=extra,
    )


def _os_problem(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def iter_items(path: str | os.PathLike[str]) -> Iterator[Item]:
    """Read and validate an items file line by line; errors name the file, line and field.

    Lines are split on ``\\n`` only and decoded one by one, so bytes that are not UTF-8 are reported
    with their line and column; a folder or an unreadable file is an ItemError too, never a traceback.
    """
    path = Path(path)
    seen: dict[str, int] = {}
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise ItemError(f"{path}: no such items file") from None
    except IsADirectoryError:
        raise ItemError(f"{path}: is a folder, not an items file") from None
    except OSError as exc:
        raise ItemError(f"{path}: cannot read the items file ({_os_problem(exc)})") from None
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline()
            except OSError as exc:
                raise ItemError(f"{path}:{number + 1}: cannot read the items file ({_os_problem(exc)})") from None
            if not raw:
                break
            number += 1
            where = f"{path}:{number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ItemError(f"{where}: not valid UTF-8 (byte {raw[exc.start:exc.start + 1]!r} at column "
                                f"{exc.start + 1}: {exc.reason})") from None
            if not line.endswith("\n"):
                raise ItemError(f"{where}: last line is not terminated by a newline (truncated file?)")
            if not line.strip():
                raise ItemError(f"{where}: blank line (items files hold one JSON object per line)")
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ItemError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise ItemError(f"{where}: not valid JSON (nested too deeply)") from None
            item = item_from_dict(record, where)
            if item.id in seen:
                raise ItemError(f"{where}: duplicate id {item.id!r} (first on line {seen[item.id]})")
            seen[item.id] = number
            yield item


def read_items(path: str | os.PathLike[str]) -> list[Item]:
    return list(iter_items(path))


def make_folder(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` and its parents if needed; a path that cannot be a folder is a DecisionPivotError naming it."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise DecisionPivotError(f"cannot create the folder {path}: it exists and is not a folder") from None
    except OSError as exc:
        where = f"{exc.filename}" if exc.filename and str(exc.filename) != str(path) else ""
        raise DecisionPivotError(f"cannot create the folder {path}: {_os_problem(exc)}"
                                 f"{f' ({where})' if where else ''}") from None
    return path


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: readers never see half a file.

    A path that cannot be written (below a file, on a read-only or special file system, a folder in the
    way) is a DecisionPivotError naming the path; nothing is left behind. The file gets the mode a plain
    ``open`` would give it (0666 less the umask), not ``mkstemp``'s 0600: a results folder shared with a
    group stays readable to it.
    """
    path = Path(path)
    make_folder(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise DecisionPivotError(f"cannot write {path}: {_os_problem(exc)} in {path.parent}") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise DecisionPivotError(f"cannot write {path}: {_os_problem(exc)}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def items_bytes(items: Iterable[Item]) -> bytes:
    return "".join(item_line(item) + "\n" for item in items).encode("utf-8")


def write_items(path: str | os.PathLike[str], items: Iterable[Item]) -> str:
    """Write items atomically as JSON Lines; returns the SHA-256 of the bytes written."""
    data = items_bytes(items)
    atomic_write_bytes(path, data)
    return hashlib.sha256(data).hexdigest()


def _umask() -> int:
    """The process's umask: from /proc on Linux, else by setting it and setting it back."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def render_state(state: str | Mapping[str, Any]) -> str:
    """The state as a person or a chat model reads it: text as is, structured states as indented JSON."""
    if isinstance(state, str):
        return state
    return json.dumps(state, ensure_ascii=False, indent=2)


def string_values(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like value (a structured state, a training record), keys left out, in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple):  # plain type checks first: dp overlap walks megabytes of records
        for sub in value:
            yield from string_values(sub)
    elif isinstance(value, dict | Mapping):
        for sub in value.values():
            yield from string_values(sub)
