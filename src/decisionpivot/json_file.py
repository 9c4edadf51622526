"""A whole JSON file read, every way it can fail turned into one error naming the file (and line): the readers
of the files the pipeline hands between verbs (MANIFEST.json, answer metas, gate.json and its certificates,
scores.json, the deployment reports, lm-eval's results) share it, so a folder, an unreadable file, a broken or
non-UTF-8 file is one clear line however it was reached, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError


def read_json_file(path: str | Path, what: str, error: type[DecisionPivotError] = DecisionPivotError) -> Any:
    """The parsed content of the JSON file ``path``.

    ``what`` says what the file should be and where it comes from (it ends the message of a missing file or a
    folder: "not found (the gate.json `dp gate` writes)"). Every failure raises ``error`` naming the file: not
    found, a folder, unreadable (permissions, I/O), not UTF-8 (the byte), not valid JSON (line and column) or
    nested too deeply for the parser.
    """
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: not found ({what})") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, expected a file ({what})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not valid UTF-8 (byte {exc.start}: {exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise error(f"{path}: not valid JSON (nested too deeply)") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
