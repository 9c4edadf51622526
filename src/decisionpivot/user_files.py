"""The strict-input rule: every file a user writes or hands a verb is read by one schema for its format, and
every number a user gives (in a file or as a flag) is checked against one :class:`Bound`.

What is accepted is defined by what is good, never by a list of what is bad:

* **Keys and names** are an allow-list per format: an unknown key, family, heuristic or column is refused with
  the nearest known name (:func:`~decisionpivot.errors.did_you_mean`), a key given twice in a YAML mapping is
  refused (:func:`~decisionpivot.data_file.read_yaml_document`), a CSV column given twice is refused.
* **Numbers** are finite and inside a range a user can read (:class:`Bound`: "a cost from 0 to 1e12 per
  decision"); the same bound checks the flag and the file key of a setting (``--cost-wrong`` and ``wrong:``).
  The bounds are chosen so that every figure a verb computes from them stays finite.
* **Ids** are unique: a CSV with an ``id`` column refuses an id given twice (its rows would count twice).
* **Text** is UTF-8 without a byte-order mark (a BOM would glue itself to the first column name).

Errors are one line: the file, the line (YAML keys and CSV rows keep theirs), the place and what was
expected, never a traceback. The YAML and JSON schemas are JSON Schema (draft 2020-12, checked by
``jsonschema``, a dependency already) with two added keywords, ``finite`` (JSON Schema's ranges let NaN
through: NaN compares false with every limit) and ``whole`` (its ``integer`` takes 1.0). The formats and who
reads them:

============================  =====================================  ==============================================
Format                        Schema                                 Read by
============================  =====================================  ==============================================
cost file (YAML)              :func:`cost_file_schema`               ``dp cost --costs`` (cost/run.py)
params ``gate:`` section      :func:`gate_params_schema`             ``dp gate --params`` (gate/run.py)
params ``audit:`` section     :func:`audit_params_schema`            ``dp audit --params`` (audit/run.py)
labelled traffic CSV          :data:`MONITOR_COLUMNS`                ``dp monitor --csv`` (monitor/run.py)
confidences CSV               :data:`RECALIBRATE_COLUMNS`            ``dp recalibrate apply --csv`` (recalibrate/apply)
certificate (JSON)            :func:`certificate_schema`             ``dp monitor`` (monitor/run.py)
recalibration map (JSON)      :func:`map_schema`                     ``dp recalibrate apply``, ``dp monitor --map``,
                                                                     ``dp gate --recalibration`` (map_file.py)
official question files       :func:`question_schema`                ``dp sample`` (sample/run.py)
============================  =====================================  ==============================================
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisionpivot.data_file import YamlDocument, read_json_file, read_text_file, read_yaml_document
from decisionpivot.errors import DecisionPivotError, did_you_mean

BOM = "\ufeff"

# ------------------------------------------------------------------------------------------------- numbers


def _shown(value: Any) -> str:
    if isinstance(value, float) and math.isfinite(value) and value and not 1e-4 <= abs(value) < 1e7:
        return f"{value:.6g}".replace("e+", "e")
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number_text(value: float) -> str:
    """A bound's end as people write it: 1e+12 as 1e12, 100000 as 100,000, 0.5 as 0.5."""
    if value == int(value) and abs(value) < 1e7:
        return f"{int(value):,}"
    return f"{value:g}".replace("e+", "e")


@dataclass(frozen=True)
class Bound:
    """A range of numbers a user can read: what one setting accepts, in a file and as a flag."""

    low: float
    """Smallest value."""
    high: float
    """Largest value."""
    what: str
    """What the number is, for messages ("a cost per decision", "a fraction", "an integer")."""
    low_open: bool = False
    """``low`` itself is refused."""
    high_open: bool = False
    """``high`` itself is refused."""
    integer: bool = False
    """Only whole numbers (an int; a float with no fraction is refused too)."""

    @property
    def text(self) -> str:
        """What is expected, in words: "a fraction between 0 and 1, both excluded"."""
        low, high = _number_text(self.low), _number_text(self.high)
        if self.low_open and self.high_open:
            return f"{self.what} between {low} and {high}, both excluded"
        if self.low_open or self.high_open:
            excluded = low if self.low_open else high
            return f"{self.what} from {low} to {high}, {excluded} excluded"
        return f"{self.what} from {low} to {high}"

    def holds(self, value: Any) -> bool:
        """Whether ``value`` is a number (not a bool) inside the bound (NaN and infinities never are)."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.integer and not isinstance(value, int):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def require(self, value: Any, where: str) -> Any:
        """``value`` when it holds, else an error: ``{where}: expected {text}, got {value}``."""
        if not self.holds(value):
            raise DecisionPivotError(f"{where}: expected {self.text}, got {_shown(value)}")
        return value

    def check(self, value: Any) -> None:
        """The command line's check of a flag (None, "not given", passes): ``ValueError("expected ...")``."""
        if value is not None and not self.holds(value):
            raise ValueError(f"expected {self.text}, got {_shown(value)}")

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the bound (with the ``finite`` keyword of :data:`Validator`)."""
        node: dict[str, Any] = {"type": "integer" if self.integer else "number", "finite": True,
                                "description": self.text}
        if self.integer:
            node["whole"] = True  # JSON Schema's integer takes 1.0; a setting that is a count does not
        node["exclusiveMinimum" if self.low_open else "minimum"] = self.low
        node["exclusiveMaximum" if self.high_open else "maximum"] = self.high
        return node


MAX_PRICE = 1e12
"""Largest price per decision: at most 2e15 per 1,000 decisions, far from overflowing (1e308 x 1,000 did)."""
PRICE = Bound(0, MAX_PRICE, "a cost per decision")
"""`dp cost`: ``--cost-wrong``, ``--cost-escalated``, a cost file's ``wrong:`` and ``escalated:``."""
FRACTION = Bound(0, 1, "a fraction", low_open=True, high_open=True)
"""A level or a risk: ``--alpha``, ``--target-risk``, ``--delta``, params ``gate.target_risk`` and ``gate.delta``."""
PROBABILITY = Bound(0, 1, "a probability")
"""A confidence, a threshold, an accuracy or a p-value: 0 and 1 included."""
MAX_RESAMPLES = 100_000
"""Most bootstrap resamples: their matrices are resamples x groups numbers (800 MB at 100,000 x 1,000 groups)."""
RESAMPLES = Bound(1, MAX_RESAMPLES, "a whole number of resamples", integer=True)
"""``--resamples`` of the deployment verbs and ``gate.resamples`` (`dp gate` needs at least 2 besides)."""
POINTS = Bound(0, 100, "percentage points")
"""``dp compare --min-effect``: a drop of item accuracy in points."""
SEED = Bound(0, 2**63 - 1, "a seed (a whole number)", integer=True)
"""A draw's seed (params ``gate.seeds``)."""
MIN_OPTIONS = 2
"""An item has at least two options."""
OPTIONS = Bound(MIN_OPTIONS, 1000, "a whole number of options", integer=True)
"""The ``options`` column of a confidences CSV."""


# ------------------------------------------------------------------------------------------------ schemas


def _finite(validator: Any, finite: bool, instance: Any, schema: Mapping[str, Any]) -> Iterable[Any]:
    from jsonschema import ValidationError

    if finite and isinstance(instance, float) and not math.isfinite(instance):
        yield ValidationError(f"{instance!r} is not a finite number")


def _whole(validator: Any, whole: bool, instance: Any, schema: Mapping[str, Any]) -> Iterable[Any]:
    from jsonschema import ValidationError

    if whole and isinstance(instance, float):
        yield ValidationError(f"{instance!r} is not a whole number")


def _validator(schema: Mapping[str, Any]) -> Any:
    from jsonschema import Draft202012Validator, validators

    checked = validators.extend(Draft202012Validator, {"finite": _finite, "whole": _whole})
    return checked(schema)


def record(properties: Mapping[str, Any], description: str, required: Sequence[str] = (),
           min_properties: int = 0) -> dict[str, Any]:
    """The schema of a mapping with exactly these keys (others refused), ``required`` among them."""
    node: dict[str, Any] = {"type": "object", "properties": dict(properties), "additionalProperties": False,
                            "description": description}
    if required:
        node["required"] = list(required)
    if min_properties:
        node["minProperties"] = min_properties
    return node


def listing(items: Mapping[str, Any], description: str, unique: bool = False, min_items: int = 0) -> dict[str, Any]:
    """The schema of a list of ``items``."""
    node: dict[str, Any] = {"type": "array", "items": dict(items), "description": description}
    if unique:
        node["uniqueItems"] = True
    if min_items:
        node["minItems"] = min_items
    return node


def nonempty_text(description: str, pattern: str | None = None) -> dict[str, Any]:
    """The schema of a non-empty string."""
    node: dict[str, Any] = {"type": "string", "minLength": 1, "description": description}
    if pattern is not None:
        node["pattern"] = pattern
    return node


def _dotted(where: Sequence[Any]) -> str:
    return ".".join(str(part) for part in where)


def _message(error: Any, prefix: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """(the place the error is about, its message) for one ``jsonschema`` error."""
    where = (*prefix, *(str(part) for part in error.absolute_path))
    at = _dotted(where)
    instance, schema = error.instance, error.schema
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = sorted(schema.get("properties") or {})
        unknown = sorted(str(key) for key in instance if key not in (schema.get("properties") or {}))
        name = unknown[0]
        inside = f" in {at}" if at else ""
        return ((*where, name), f"unknown key {name!r}{inside}{did_you_mean(name, allowed)}; known: "
                                f"{', '.join(allowed) or 'none'}")
    if error.validator == "required" and isinstance(instance, dict):
        missing = next(key for key in error.validator_value if key not in instance)
        inside = f"{at}: " if at else ""
        return where, f"{inside}missing key {missing!r} (expected {schema.get('description', 'see the format')})"
    expected = schema.get("description") or error.message
    if error.validator == "uniqueItems" and isinstance(instance, list):
        repeated = next(v for i, v in enumerate(instance) if v in instance[:i])
        return where, f"{at}: {_shown(repeated)} given twice (expected {expected})"
    if not at and instance is None:
        return where, f"empty; expected {expected}"
    note = ""
    if isinstance(instance, str) and NUMBER_TEXT.fullmatch(instance.strip()):
        note = " (YAML reads it as text: write an exponent with a dot and a sign, 1.0e+3, or the plain number)"
    return where, f"{at or 'the file'}: expected {expected}, got {_shown(instance)}{note}"


def check_schema(schema: Mapping[str, Any], data: Any, path: Path | str, line: Callable[[Sequence[str]], int] | None,
                 prefix: Sequence[str] = ()) -> None:
    """Refuse ``data`` unless it matches ``schema``: one error naming ``path``, the line (``line(where)``, when the
    format has lines) and the first problem in file order, with what was expected."""
    errors = list(_validator(schema).iter_errors(data))
    if not errors:
        return
    found = []
    for error in errors:
        where, message = _message(error, prefix)
        found.append((line(where) if line is not None else 0, len(where), where, message))
    number, _, _, message = min(found)
    raise DecisionPivotError(f"{path}:{number}: {message}" if line is not None else f"{path}: {message}")


def no_bom(content: str, path: Path | str) -> str:
    """``content`` unless it starts with a byte-order mark (refused: it would join the first key or column name)."""
    if content.startswith(BOM):
        raise DecisionPivotError(f"{path}:1: starts with a byte-order mark (U+FEFF); save the file as UTF-8 "
                                 "without one")
    return content


def read_yaml_user_file(path: Path | str, what: str) -> YamlDocument:
    """A YAML file a user writes, with its lines (:func:`~decisionpivot.data_file.read_yaml_document`), no BOM."""
    path = Path(path)
    no_bom(read_text_file(path, what), path)
    return read_yaml_document(path, what)


def read_yaml_checked(path: Path | str, what: str, schema: Mapping[str, Any]) -> Any:
    """The data of the YAML file ``path``, refused unless it matches ``schema`` (see :func:`check_schema`)."""
    document = read_yaml_user_file(path, what)
    check_schema(schema, document.data, document.path, document.line)
    return document.data


def read_json_checked(path: Path | str, what: str, schema: Mapping[str, Any]) -> Any:
    """The data of the JSON file ``path``, refused unless it matches ``schema`` (see :func:`check_schema`)."""
    data = read_json_file(path, what)
    check_schema(schema, data, path, None)
    return data


def section(document: YamlDocument, name: str, schema: Mapping[str, Any], required: bool = False) -> Any:
    """The section ``name`` of a params file (None when absent and not ``required``; ``{}`` when empty), checked
    against ``schema``; the file's other sections belong to other verbs and are not read."""
    data = document.data
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise DecisionPivotError(f"{document.path}:1: expected a mapping of sections (gate:, audit:, ...), got "
                                 f"{_shown(data)}")
    if name not in data:
        if required:
            raise DecisionPivotError(f"{document.path}: no '{name}' section{did_you_mean(name, map(str, data))}")
        return None
    if data[name] is None:  # `gate:` with every key commented out: an empty section
        return {}
    check_schema(schema, data[name], document.path, document.line, (name,))
    return data[name]


# --------------------------------------------------------------------------------------------- the formats


def cost_file_schema(families: Collection[str]) -> dict[str, Any]:
    """A cost file: ``wrong:``, ``escalated:`` and ``families: {<family>: {wrong:, escalated:}}``; prices within
    :data:`PRICE`, families among ``families`` (the registered ones), each entry with at least one price."""
    price = PRICE.schema()
    entry = record({"wrong": price, "escalated": price}, "a family's wrong: and/or escalated:", min_properties=1)
    return record({"wrong": price, "escalated": price,
                   "families": record({name: entry for name in sorted(families)},
                                      "a mapping of family -> {wrong:, escalated:} over the known families")},
                  "a cost file: wrong:, escalated: and optional families:")


def gate_params_schema() -> dict[str, Any]:
    """A params file's ``gate:`` section (`dp gate --params`)."""
    return record({"seeds": listing(SEED.schema(), "a list of distinct calibration seeds (integers >= 0)",
                                    unique=True, min_items=1),
                   "target_risk": FRACTION.schema(), "delta": FRACTION.schema(), "resamples": RESAMPLES.schema(),
                   "systems": nonempty_text("comma-separated system names, as --systems takes them",
                                            r"^[A-Za-z0-9._+\-]+(,[A-Za-z0-9._+\-]+)*$")},
                  "the gate: section: seeds, target_risk, delta, resamples, systems")


def audit_params_schema(heuristics: Collection[str]) -> dict[str, Any]:
    """A params file's ``audit:`` section (`dp audit --params`): margins and limits as probabilities, heuristic
    limits keyed by known ``family.heuristic`` names."""
    probability = PROBABILITY.schema()
    return record({"probe_margin": probability, "heuristic_margin": probability,
                   "heuristic_limits": record({name: probability for name in sorted(heuristics)},
                                              "a mapping of family.heuristic -> largest pair accuracy"),
                   "balance_p_min": probability, "near_duplicate_cosine": probability},
                  "the audit: section: probe_margin, heuristic_margin, heuristic_limits, balance_p_min, "
                  "near_duplicate_cosine")


def certificate_schema() -> dict[str, Any]:
    """The part of a `dp gate` certificate (``reports/gate/<system>.json``) `dp monitor` relies on; other keys
    are `dp gate`'s record of how it was made and are not read."""
    decisions = {"enum": ["automate", "do not automate", "refused"],
                 "description": "one of automate, do not automate, refused"}
    threshold = {"anyOf": [PROBABILITY.schema(), {"type": "null"}],
                 "description": f"{PROBABILITY.text}, or null (nothing automated)"}
    entry = {"type": "object", "required": ["decision", "threshold"], "description": "an entry with decision and "
             "threshold", "properties": {"decision": decisions, "threshold": threshold,
                                         "fingerprint": {"type": ["string", "null"],
                                                         "description": "a configuration fingerprint or null"}}}
    return {"type": "object", "required": ["system", "target_risk", "families", "pooled"],
            "description": "`dp gate`'s gate/<system>.json (system, target_risk, families, pooled)",
            "properties": {"system": nonempty_text("the system's name"), "target_risk": FRACTION.schema(),
                           "families": {"type": "object", "additionalProperties": entry, "minProperties": 1,
                                        "description": "a mapping of family -> entry"},
                           "pooled": entry,
                           "recalibration": {"type": ["object", "null"], "required": ["sha256"],
                                             "properties": {"sha256": nonempty_text("the map's SHA-256",
                                                                           "^[0-9a-f]{64}$")},
                                             "description": "an object with the map's sha256, or null"}}}


def map_schema(methods: Sequence[str], format_name: str, format_version: int, temperature: Bound) -> dict[str, Any]:
    """A recalibration map file (``maps/<system>.json``): every key `dp recalibrate` writes and no other; the
    temperature within ``temperature`` (the range `dp recalibrate` searches)."""
    knots = listing(PROBABILITY.schema(), "a list of probabilities", min_items=1)
    return record({
        "format": {"const": format_name, "description": f"the text {format_name}"},
        "format_version": {"const": format_version, "description": f"the version {format_version}"},
        "system": nonempty_text("the system's name"),
        "method": {"enum": list(methods), "description": f"one of {', '.join(methods)}"},
        "temperature": temperature.schema(),
        "isotonic": record({"confidence": knots, "calibrated": knots}, "the knots: confidence and calibrated",
                           required=("confidence", "calibrated")),
        "fitted_on": record({"seeds": listing(SEED.schema(), "a list of seeds"),
                             "draws": {"type": "object",
                                       "additionalProperties": nonempty_text("a MANIFEST.json SHA-256"),
                                       "description": "a mapping of seed -> MANIFEST.json SHA-256"},
                             "families": listing(nonempty_text("a family"), "a list of families"),
                             "items": Bound(0, 2**63 - 1, "a whole count", integer=True).schema(),
                             "groups": Bound(0, 2**63 - 1, "a whole count", integer=True).schema(),
                             "split": nonempty_text("how the groups were split"),
                             "fingerprints": {"type": "object",
                                              "additionalProperties": {"type": ["string", "null"]},
                                              "description": "a mapping of family -> configuration fingerprint"},
                             "modified_items": {"type": "object", "additionalProperties": {"type": "string"},
                                                "description": "a mapping of seed-N/family -> what did not match "
                                                               "(items read with --allow-modified-items)"}},
                            "what the map was fitted on: seeds, draws, families, items, groups, split, fingerprints",
                            required=("seeds", "draws")),
        "package_version": nonempty_text("the version of dp that wrote it"),
    }, "a map written by `dp recalibrate`", required=("format", "format_version", "system", "method", "temperature",
                                                       "isotonic", "fitted_on"))


def question_schema(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A line of an official question file of `dp sample`: ``question`` and the task's ``answer`` (which
    `dp reconstruct` needs to grade the samples; a line without one would waste its samples)."""
    return record({"question": nonempty_text("the question's text"), "answer": dict(answer)},
                  "an object with question and answer", required=("question", "answer"))


# ---------------------------------------------------------------------------------------------------- CSV

NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
"""A decimal number as a CSV cell may hold it (no nan, inf, hex or thousands separators)."""


def number_cell(bound: Bound) -> Callable[[str], Any]:
    """A cell parser: a decimal number (an integer for integer bounds) inside ``bound``."""

    def parse(cell: str) -> Any:
        stripped = cell.strip()
        if bound.integer:
            if not re.fullmatch(r"[+-]?[0-9]{1,30}", stripped):
                raise ValueError(bound.text)
            value: float | int = int(stripped)
        else:
            if not NUMBER_TEXT.fullmatch(stripped):
                raise ValueError(bound.text)
            value = float(stripped)
        if not bound.holds(value):
            raise ValueError(bound.text)
        return value

    return parse


def choice_cell(values: Mapping[str, Any], description: str) -> Callable[[str], Any]:
    """A cell parser: one of the texts ``values`` (after stripping spaces)."""

    def parse(cell: str) -> Any:
        if cell.strip() not in values:
            raise ValueError(description)
        return values[cell.strip()]

    return parse


def name_cell(cell: str) -> str:
    """A cell parser: a name (spaces around it dropped; may be empty where the column allows it)."""
    return cell.strip()


@dataclass(frozen=True)
class Column:
    """One column a CSV format allows."""

    name: str
    """The header name."""
    parse: Callable[[str], Any]
    """Cell text -> value; raises ``ValueError(what was expected)``."""
    required: bool = False
    """The header must have it."""
    blank: Any = field(default=None)
    """The value of an empty cell; None: an empty cell is parsed like any other (and usually refused)."""
    unique: bool = False
    """No value may repeat (ids); empty cells excepted."""


MONITOR_COLUMNS = (
    Column("confidence", number_cell(PROBABILITY), required=True),
    Column("correct", choice_cell({"0": False, "1": True}, "1 or 0"), required=True),
    Column("family", name_cell, blank=""),
    Column("id", name_cell, unique=True),
)
"""`dp monitor --csv`: confidence and correct, optionally family (empty: the pooled threshold) and id (unique)."""

RECALIBRATE_COLUMNS = (
    Column("confidence", number_cell(PROBABILITY), required=True),
    Column("options", number_cell(OPTIONS), blank=0),
    Column("id", name_cell, unique=True),
)
"""`dp recalibrate apply --csv`: a confidence column, optionally options (for temperature maps) and id (unique);
the CSV's other columns are passed through untouched."""


@dataclass(frozen=True)
class CsvRow:
    """One row of a CSV read by :func:`read_csv_file`."""

    line: int
    """Its first line in the file (1 is the header)."""
    values: dict[str, Any]
    """Column -> parsed value, for the format's columns the header has."""
    cells: dict[str, str]
    """Column -> cell text, for every column of the header."""


@dataclass(frozen=True)
class CsvTable:
    """A CSV read by :func:`read_csv_file`."""

    path: Path
    """The file."""
    header: tuple[str, ...]
    """Its column names, in file order."""
    rows: tuple[CsvRow, ...]
    """Its rows below the header (blank lines skipped)."""


def read_csv_file(path: Path | str, what: str, columns: Sequence[Column], other_columns: bool = False) -> CsvTable:
    """A CSV with a header, every cell of the format's ``columns`` parsed; errors name the file and line.

    Refused: a BOM, an empty file, a header without a required column or with a column twice, a column the
    format does not know (unless ``other_columns``: then passed through), a row with more or fewer cells than
    the header, a cell its column's parser refuses, a value of a unique column given twice, no rows.
    """
    path = Path(path)
    known = {c.name: c for c in columns}
    names = ", ".join(c.name for c in columns)
    content = no_bom(read_text_file(path, what), path)
    reader = csv.reader(io.StringIO(content, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise DecisionPivotError(f"{path}:1: empty; expected a header line with the columns {names} "
                                     f"({what})")
        header = [name.strip() for name in header]
        seen: set[str] = set()
        for name in header:
            if name in seen:
                raise DecisionPivotError(f"{path}:1: column {name!r} given twice")
            seen.add(name)
            if name not in known and not other_columns:
                raise DecisionPivotError(f"{path}:1: unknown column {name!r}{did_you_mean(name, known)} "
                                         f"(expected {names})")
        for column in columns:
            if column.required and column.name not in seen:
                raise DecisionPivotError(f"{path}:1: no {column.name!r} column"
                                         f"{did_you_mean(column.name, header)} (expected a header with {names})")
        rows: list[CsvRow] = []
        firsts: dict[tuple[str, str], int] = {}
        end = reader.line_num
        for cells in reader:
            line, end = end + 1, reader.line_num
            if not cells or (len(cells) == 1 and not cells[0].strip() and len(header) > 1):
                continue
            if len(cells) != len(header):
                raise DecisionPivotError(f"{path}:{line}: {len(cells)} cells, but the header has {len(header)} "
                                         f"columns")
            row = dict(zip(header, cells, strict=True))
            values = {}
            for name, cell in row.items():
                column = known.get(name)
                if column is None:
                    continue
                if column.blank is not None and not cell.strip():
                    values[name] = column.blank
                    continue
                try:
                    values[name] = column.parse(cell)
                except ValueError as exc:
                    raise DecisionPivotError(f"{path}:{line}: {name}: expected {exc}, got {_shown(cell)}") from None
                if column.unique:
                    if not values[name]:
                        raise DecisionPivotError(f"{path}:{line}: {name}: empty (every row needs one)")
                    first = firsts.setdefault((name, values[name]), line)
                    if first != line:
                        raise DecisionPivotError(f"{path}:{line}: {name} {values[name]!r} given twice (first on "
                                                 f"line {first}): each row must be another item")
            rows.append(CsvRow(line, values, row))
    except csv.Error as exc:
        raise DecisionPivotError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from None
    if not rows:
        raise DecisionPivotError(f"{path}: no rows below the header ({what})")
    return CsvTable(path, tuple(header), tuple(rows))


def known_name(name: str, known: Collection[str], where: str, what: str) -> str:
    """``name`` when it is one of ``known``; else an error naming ``where`` with the nearest known name."""
    if name not in known:
        listed = ", ".join(sorted(known))
        raise DecisionPivotError(f"{where}: unknown {what} {name!r}{did_you_mean(name, known)} (known: {listed})")
    return name
