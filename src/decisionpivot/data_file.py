"""A whole JSON or YAML file read, every way it can fail turned into one error naming the file (and line).

The readers of the files the verbs hand each other (MANIFEST.json, answer metas, gate.json and its
certificates, the deployment reports, lm-eval's results) and of the files users write (a cost file, the
``gate`` and ``audit`` sections of a params file) share it, so a folder, an unreadable file, a file that is not
UTF-8 or not valid JSON/YAML is one clear line however it was reached, never a traceback.

:func:`read_yaml_document` also keeps the line of every key and list entry and refuses a key given twice in one
mapping (plain YAML loading keeps the last value silently): the schemas of the files users write
(:mod:`decisionpivot.user_files`) name the line of what they refuse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError


def read_bytes_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> bytes:
    """The bytes of ``path`` (for a file whose SHA-256 is recorded); fails as :func:`read_text_file` does."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: not found ({what})") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, expected a file ({what})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_text_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> str:
    """The UTF-8 text of ``path``.

    ``what`` says what the file should be and where it comes from (it ends the message of a missing file or a
    folder: "not found (the gate.json `dp gate` writes)"). Every failure raises ``error`` naming the file: not
    found, a folder, unreadable (permissions, I/O) or not UTF-8 (the byte).
    """
    path = Path(path)
    data = read_bytes_file(path, what, error)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid UTF-8 (byte {exc.start}: {exc.reason})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as reading in text mode (universal newlines) did


class RepeatedKeyError(ValueError):
    """A JSON object names one key twice (``args[0]``: the key)."""


def object_without_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` for files a user may edit: the object, or :class:`RepeatedKeyError`
    when a key repeats (the plain reader keeps the last value without a word)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise RepeatedKeyError(key)
        seen.add(key)
    return dict(pairs)


def read_json_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> Any:
    """The parsed content of the JSON file ``path``; the failures of :func:`read_text_file`, not valid JSON
    (line and column), a key given twice in one object or nesting too deep for the parser raise ``error`` naming
    the file."""
    text = read_text_file(path, what, error)
    try:
        return json.loads(text, object_pairs_hook=object_without_repeated_keys)
    except RepeatedKeyError as exc:
        raise error(f"{path}: key {exc.args[0]!r} given twice in one object: one value would be dropped "
                    "silently") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise error(f"{path}: not valid JSON (nested too deeply)") from None


def _yaml_error(path: Path, exc: Exception, error: type[DecisionPivotError]) -> DecisionPivotError:
    mark = getattr(exc, "problem_mark", None)
    where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
    column = f", column {mark.column + 1}" if mark is not None else ""
    return error(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc}{column})")


def read_yaml_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> Any:
    """The parsed content of the YAML file ``path`` (safe loading: plain data only; an empty file is None); the
    failures of :func:`read_text_file`, and not valid YAML (line and column), raise ``error`` naming the file."""
    import yaml

    text = read_text_file(path, what, error)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _yaml_error(Path(path), exc, error) from None
    except RecursionError:
        raise error(f"{path}: not valid YAML (nested too deeply)") from None


Where = tuple[str, ...]
"""A place in a parsed file: the keys (and list positions, as text) from the top, e.g. ``("families", "x")``."""


@dataclass(frozen=True)
class YamlDocument:
    """A YAML file's data with the line of every key and list entry."""

    path: Path
    """The file."""
    data: Any
    """The parsed content (safe loading: plain data only; None for an empty file)."""
    lines: Mapping[Where, int]
    """Where -> 1-based line of that key (of a list entry: of its first token); ``()`` is the document's start."""

    def line(self, where: Sequence[Any]) -> int:
        """The line of ``where``, or of the nearest enclosing key that has one (keys are compared as text)."""
        place = tuple(str(part) for part in where)
        while place and place not in self.lines:
            place = place[:-1]
        return self.lines.get(place, 1)


def _node_lines(path: Path, root: Any, error: type[DecisionPivotError]) -> dict[Where, int]:
    """The line of every key and list entry below ``root``; a key given twice in one mapping is an error."""
    import yaml

    lines: dict[Where, int] = {(): root.start_mark.line + 1 if root is not None else 1}
    seen: set[int] = set()  # an alias repeats a node: walk it once (no blow-up on nested aliases)
    stack: list[tuple[Where, Any]] = [((), root)]
    while stack:
        where, node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                name = str(key.value) if isinstance(key, yaml.ScalarNode) else f"<{key.id}>"
                line = key.start_mark.line + 1
                if name == "<<" and isinstance(key, yaml.ScalarNode) and key.tag.endswith(":merge"):
                    raise error(f"{path}:{line}: a YAML merge key (<<) under {'.'.join(where) or 'the top level'!r}: "
                                "its keys would give way silently to the mapping's own; write them out")
                if name in first:
                    shown = ".".join((*where, name))
                    raise error(f"{path}:{line}: key {shown!r} given twice (first on line {first[name]}): one "
                                "value would be dropped silently")
                first.setdefault(name, line)
                lines.setdefault((*where, name), line)
                stack.append(((*where, name), value))
        elif isinstance(node, yaml.SequenceNode):
            for index, value in enumerate(node.value):
                lines.setdefault((*where, str(index)), value.start_mark.line + 1)
                stack.append(((*where, str(index)), value))
    return lines


def read_yaml_document(path: str | Path, what: str,
                       error: type[DecisionPivotError] = DecisionPivotError) -> YamlDocument:
    """:func:`read_yaml_file` with the line of every key and list entry kept (:class:`YamlDocument`), and a key
    given twice in one mapping refused with both lines."""
    import yaml

    path = Path(path)
    text = read_text_file(path, what, error)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise _yaml_error(path, exc, error) from None
    except RecursionError:
        raise error(f"{path}: not valid YAML (nested too deeply)") from None
    return YamlDocument(path, data, _node_lines(path, root, error))
