"""A whole JSON or YAML file read, every way it can fail turned into one error naming the file (and line).

The readers of the files the verbs hand each other (MANIFEST.json, answer metas, gate.json and its
certificates, the deployment reports, lm-eval's results) and of the files users write (a cost file, the
``gate`` and ``audit`` sections of a params file) share it, so a folder, an unreadable file, a file that is not
UTF-8 or not valid JSON/YAML is one clear line however it was reached, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError


def read_text_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> str:
    """The UTF-8 text of ``path``.

    ``what`` says what the file should be and where it comes from (it ends the message of a missing file or a
    folder: "not found (the gate.json `dp gate` writes)"). Every failure raises ``error`` naming the file: not
    found, a folder, unreadable (permissions, I/O) or not UTF-8 (the byte).
    """
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: not found ({what})") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, expected a file ({what})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid UTF-8 (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_json_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> Any:
    """The parsed content of the JSON file ``path``; the failures of :func:`read_text_file`, and not valid JSON
    (line and column) or nested too deeply for the parser, raise ``error`` naming the file."""
    text = read_text_file(path, what, error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise error(f"{path}: not valid JSON (nested too deeply)") from None


def read_yaml_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> Any:
    """The parsed content of the YAML file ``path`` (safe loading: plain data only; an empty file is None); the
    failures of :func:`read_text_file`, and not valid YAML (line and column), raise ``error`` naming the file."""
    import yaml

    text = read_text_file(path, what, error)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        column = f", column {mark.column + 1}" if mark is not None else ""
        raise error(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc}{column})") from None
    except RecursionError:
        raise error(f"{path}: not valid YAML (nested too deeply)") from None
