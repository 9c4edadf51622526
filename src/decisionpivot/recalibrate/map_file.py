"""The fitted map as a file a team applies: ``<out>/maps/<system>.json``, versioned, with what it was fitted on.

Format (``format: decisionpivot-recalibration``, ``format_version: 1``)::

    {"system": ..., "method": "isotonic",          # the recommended map, applied by default
     "temperature": 1.83,                          # p_T(o) = p(o)^(1/T) / sum p(o')^(1/T)
     "isotonic": {"confidence": [...], "calibrated": [...]},   # knots, linear between, constant beyond
     "fitted_on": {"seeds": [...], "draws": {"101": "<MANIFEST.json SHA-256>"}, "families": [...],
                   "items": n, "groups": g, "split": "...", "fingerprints": {family: "<config>"}},
     "package_version": ...}

:func:`recalibrated_confidence` is the one place a map is applied (``dp recalibrate apply``, ``dp monitor
--map``, and ``dp gate --recalibration``, which maps every calibration and release confidence before the test
and the check and records ``RecalibrationMap.sha256`` and ``record["fitted_on"]`` in the certificate, so a
team applies the same map at the same threshold: :mod:`decisionpivot.gate.recalibration`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from decisionpivot import __version__
from decisionpivot.data_file import read_bytes_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.recalibrate.maps import TEMPERATURE_RANGE, IsotonicMap, isotonic_applied, temperature_scaled
from decisionpivot.recalibrate.run import ISOTONIC, METHODS, NONE, TEMPERATURE, FittedMaps
from decisionpivot.user_files import Bound, check_schema, map_schema

FORMAT = "decisionpivot-recalibration"
FORMAT_VERSION = 1
SPLIT = ("contrast groups of the calibration draws split by SHA-256 of 'recalibrate seed N <group id>': "
         "fitted on the even half, certified and compared on the odd half")


@dataclass(frozen=True)
class RecalibrationMap:
    """A map read from its file."""

    path: Path
    """The file it was read from."""
    system: str
    """The system it was fitted for."""
    method: str
    """The map applied: ``temperature``, ``isotonic`` or ``none``."""
    temperature: float
    """The fitted temperature."""
    isotonic: IsotonicMap
    """The fitted isotonic knots."""
    record: dict[str, Any]
    """The whole file (for certificates that name the map)."""
    sha256: str
    """SHA-256 of the file's bytes: the fingerprint a certificate made on recalibrated confidences records."""


def map_record(maps: FittedMaps, method: str) -> dict[str, Any]:
    """The JSON of a map file; ``method`` is the one applied by default (the recommended one)."""
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "system": maps.system, "method": method,
        "temperature": maps.temperature,
        "isotonic": {"confidence": list(maps.isotonic.confidence), "calibrated": list(maps.isotonic.calibrated)},
        "fitted_on": {"seeds": list(maps.seeds), "draws": {str(seed): sha for seed, sha in maps.draws},
                      "families": list(maps.families), "items": maps.items, "groups": maps.groups, "split": SPLIT,
                      "fingerprints": {family: fingerprint for family, fingerprint in maps.fingerprints},
                      **({"modified_items": dict(maps.modified_items)} if maps.modified_items else {})},
        "package_version": __version__,
    }


def map_bytes(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")


def _fail(path: Path, what: str) -> DecisionPivotError:
    return DecisionPivotError(f"{path}: {what} (expected a map written by `dp recalibrate`)")


def read_map(path: str | Path, method: str | None = None) -> RecalibrationMap:
    """Read and check a map file by :func:`~decisionpivot.user_files.map_schema` (every key `dp recalibrate`
    writes and no other; knots probabilities, the temperature within the search range); ``method`` overrides the
    file's recommended one."""
    path = Path(path)
    data = read_bytes_file(path, "a map written by `dp recalibrate` (maps/<system>.json)")
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _fail(path, f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise _fail(path, f"not JSON ({exc})") from None
    except RecursionError:
        raise _fail(path, "not JSON (nested too deeply)") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise _fail(path, f"no \"format\": \"{FORMAT}\"")
    if record.get("format_version") != FORMAT_VERSION:
        raise _fail(path, f"format_version {record.get('format_version')!r}, this dp reads {FORMAT_VERSION}")
    check_schema(map_schema(METHODS, FORMAT, FORMAT_VERSION, Bound(*TEMPERATURE_RANGE, "a temperature")), record,
                 path, None)
    chosen = method or record["method"]
    if chosen not in METHODS:
        raise _fail(path, f"method {chosen!r} is not one of {', '.join(METHODS)}")
    x, y = record["isotonic"]["confidence"], record["isotonic"]["calibrated"]
    if len(x) != len(y) or any(b <= a for a, b in pairwise(x)) or any(b < a for a, b in pairwise(y)):
        raise _fail(path, "isotonic knots are not two equally long lists, increasing confidences and "
                          "non-decreasing calibrated values")
    return RecalibrationMap(path, str(record["system"]), str(chosen), float(record["temperature"]),
                            IsotonicMap(tuple(map(float, x)), tuple(map(float, y))), record,
                            hashlib.sha256(data).hexdigest())


def recalibrated_confidence(mapping: RecalibrationMap, confidence: np.ndarray,
                            probabilities: np.ndarray | None = None,
                            option_count: np.ndarray | None = None) -> np.ndarray:
    """The recalibrated confidence of each item: isotonic needs only ``confidence`` (``max_o p(o)``);
    temperature needs the items' ``probabilities`` (n, K) and ``option_count`` (n,) - for two options the
    confidence alone suffices and is used when they are not given."""
    confidence = np.asarray(confidence, dtype=np.float64)
    if mapping.method == NONE:
        return confidence
    if mapping.method == ISOTONIC:
        return isotonic_applied(mapping.isotonic, confidence)
    assert mapping.method == TEMPERATURE
    if probabilities is None:
        if option_count is None or not np.all(np.asarray(option_count) == 2):
            raise DecisionPivotError(f"{mapping.path}: temperature scaling needs every option's probability "
                                     "(answer files), or items with two options; use --method isotonic")
        probabilities = np.stack([confidence, 1.0 - confidence], axis=1)
        option_count = np.full(confidence.size, 2)
    assert option_count is not None
    return temperature_scaled(probabilities, option_count, mapping.temperature).max(axis=1)
