"""Reading answer files: ``runs/<system>/<task>.jsonl`` plus ``<task>.meta.json``.

One record per item, ``{"id": ..., "p": {option: probability}}`` or ``{"id": ..., "error": "..."}``,
optionally with ``tokens`` (int, output tokens), ``input_tokens`` (int), ``closed`` (bool),
``latency_s`` (number) and ``request_sha256`` (the SHA-256 of the request body sent, which the HTTP kinds write:
what reached the model), and what the runners keep besides (``queued_s``, ``label_mass``, ``interface_score``,
``interface_confidence``, ``same_request_as``: checked, not scored). The rules (the paper's "Answer files" and
"Requests and predictions"):

* a record holds the fields of :data:`~decisionpivot.evaluate.kinds.RECORD_FIELDS` and no other - the keys some
  writer of this package writes: any other key (``"transiant"``, ``"erorr"``, a note added by hand) is an error
  naming the file, the line, the key and the nearest field, never a field silently ignored;
* probabilities are normalised over the item's listed options; keys that are not listed options are
  ignored and counted (a warning in the report); a listed option without a key has probability 0;
* probabilities that do not pass the one check of every probability ``dp`` reads
  (:func:`decisionpivot.probability.distribution`: each a number in [0, 1], their sum within
  ``max(0.02, 0.005 x options)`` of 1) make the record *failed*;
* the predicted option is the argmax, ties broken by the listed order;
* failed records (explicit errors or invalid probabilities) and missing records are incorrect and use
  the uniform distribution over the item's options for confidence-based metrics;
* a task needs records (answers or errors) for at least 99% of its items, else it is excluded for
  that system and the report says why (see :func:`coverage_shortfall`); an error marked
  ``"transient": true`` (the server was down, the retries ran out) says nothing about the system and
  counts as missing - ``dp evaluate`` asks it again;
* errors starting ``input restriction`` (the system could not take the item as it stands: too many
  options, too long a state) are failed predictions like any other, and are counted for the leaderboard;
* the meta file must name the SHA-256 of the items file scored, else the error names both hashes;
* malformed lines, duplicate ids and ids that are not items of the task are errors naming the file
  and line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from decisionpivot.data_file import RepeatedKeyError, object_without_repeated_keys, read_json_file
from decisionpivot.errors import DecisionPivotError, unknown_names
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    RECORD_FIELDS,
    REQUEST_DIGEST,
    SAME_REQUEST_AS,
    unknown_field,
)
from decisionpivot.probability import ProbabilityError, distribution
from decisionpivot.score.layout import TaskLayout

MIN_RECORD_SHARE = (99, 100)
"""A task is scored for a system only if records exist for >= 99/100 of its items."""
CONFIDENCE_DECIMALS = 12
"""Confidences are rounded to this many decimals (ties and thresholds must not hinge on float noise)."""


class AnswerFileError(DecisionPivotError):
    """An answer or meta file that cannot be scored; the message names the file (and line)."""


@dataclass(frozen=True)
class TaskAnswers:
    """One system's answers to one task, aligned with the task's :class:`TaskLayout`."""

    system: str
    """System name (the folder under ``runs/``)."""
    task: str
    """Task name (the answer file stem)."""
    path: Path
    """The answer file."""
    probabilities: np.ndarray
    """``(n, K)`` normalised probabilities in listed option order, zero-padded beyond an item's
    options; uniform over the item's options where ``failed``."""
    answered: np.ndarray
    """``(n,)`` True where the file has a record (answer or explicit error) for the item."""
    failed: np.ndarray
    """``(n,)`` True where no usable probabilities exist: error record, invalid values, or no record."""
    gold_index: np.ndarray
    """``(n,)`` gold option column (copied from the layout so derived arrays need nothing else)."""
    error_records: int
    """Records carrying an explicit ``error``."""
    invalid_records: int
    """Records whose probabilities failed the probability check (:func:`decisionpivot.probability.distribution`)."""
    ignored_keys: int
    """Probability entries for keys that are not listed options (ignored)."""
    tokens: np.ndarray
    """``(n,)`` reasoning tokens per item, NaN where not recorded."""
    closed: np.ndarray
    """``(n,)`` 1.0 where the model ended its reasoning itself, 0.0 where not, NaN where not recorded."""
    latency_s: np.ndarray
    """``(n,)`` request latency in seconds, NaN where not recorded."""
    input_tokens: np.ndarray | None = None
    """``(n,)`` input tokens the server reported, NaN where not recorded (None: not read)."""
    request_sha256: tuple[str, ...] = ()
    """Per item, the SHA-256 of the request body the runner sent (``""`` where the record has none: a local
    system, an older run; ``()`` when no record has one): what reached the model, byte for byte. Two framings of
    an item whose requests are equal did not differ on the wire (:func:`same_request`)."""
    restricted: int = 0
    """Error records whose reason is an input restriction."""
    transient: int = 0
    """Transient error records (counted as missing)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """The answer file's ``.meta.json`` (system config, readout, items check)."""

    @property
    def size(self) -> int:
        return int(self.answered.size)

    @property
    def records(self) -> int:
        return int(self.answered.sum())

    @cached_property
    def predicted(self) -> np.ndarray:
        """Predicted option column: argmax, ties to the first listed option."""
        return np.argmax(self.probabilities, axis=1)

    @cached_property
    def correct(self) -> np.ndarray:
        """Prediction equals gold; failed and missing predictions are never correct."""
        return (self.predicted == self.gold_index) & ~self.failed

    @cached_property
    def confidence(self) -> np.ndarray:
        """``c_i = max_o p(o)`` (1/|O_i| for failed items), rounded to 12 decimals."""
        return np.round(self.probabilities.max(axis=1), CONFIDENCE_DECIMALS)


@dataclass(frozen=True)
class AnswerSummary:
    """Counts and means of one answer file, for the report."""

    system: str
    """System name."""
    task: str
    """Task name."""
    items: int
    """Items of the task."""
    records: int
    """Records in the file (answers and errors)."""
    failed: int
    """Items scored as failed: error records, invalid probabilities and missing records."""
    error_records: int
    """Records with an explicit error."""
    invalid_records: int
    """Records with unusable probabilities."""
    ignored_keys: int
    """Probability entries for keys that are not listed options."""
    mean_tokens: float | None
    """Mean reasoning tokens over records that report them."""
    closed_share: float | None
    """Share of records that report closed=true among those reporting closed."""
    mean_latency_s: float | None
    """Mean latency over records that report it."""
    restricted: int = 0
    """Error records whose reason is an input restriction."""
    transient: int = 0
    """Transient error records (counted as missing)."""


def _mean(values: np.ndarray) -> float | None:
    present = values[~np.isnan(values)]
    return round(float(present.mean()), 6) if present.size else None


def summarise(answers: TaskAnswers) -> AnswerSummary:
    return AnswerSummary(
        system=answers.system,
        task=answers.task,
        items=answers.size,
        records=answers.records,
        failed=int(answers.failed.sum()),
        error_records=answers.error_records,
        invalid_records=answers.invalid_records,
        ignored_keys=answers.ignored_keys,
        mean_tokens=_mean(answers.tokens),
        closed_share=_mean(answers.closed),
        mean_latency_s=_mean(answers.latency_s),
        restricted=answers.restricted,
        transient=answers.transient,
    )


def coverage_shortfall(answers: TaskAnswers) -> str | None:
    """Why the task must be excluded for this system, or None when records cover >= 99% of items."""
    numerator, denominator = MIN_RECORD_SHARE
    if denominator * answers.records >= numerator * answers.size:
        return None
    return (
        f"records for {answers.records} of {answers.size} items "
        f"({100 * answers.records / answers.size:.1f}%), below the 99% a task needs"
    )


def meta_path(answer_path: Path) -> Path:
    return answer_path.with_name(answer_path.name[: -len(".jsonl")] + ".meta.json")


def check_items_hash(answer_path: Path, layout: TaskLayout) -> dict[str, Any]:
    """Read ``<task>.meta.json`` and require the SHA-256 of the items file being scored."""
    path = meta_path(answer_path)
    if not path.exists():
        raise AnswerFileError(f"{path}: missing (it records the SHA-256 of the items file answered)")
    meta = read_json_file(path, "the meta file `dp evaluate` writes beside the answers", AnswerFileError)
    found = meta.get("items_sha256") if isinstance(meta, dict) else None
    if not isinstance(found, str):
        raise AnswerFileError(f"{path}: no 'items_sha256' string")
    if found != layout.items_sha256:
        raise AnswerFileError(
            f"{answer_path}: answers items with SHA-256 {found} (per {path.name}) but "
            f"{layout.items_path} has SHA-256 {layout.items_sha256}; re-run the system on these items"
        )
    return meta


def _optional_fields(record: dict[str, Any], where: str) -> tuple[float, ...]:
    """``tokens``, ``closed``, ``latency_s`` and ``input_tokens`` of a record (NaN when absent or null); the fields
    kept but not read (:data:`_KEPT_FIELDS`) are checked too."""
    values = []
    for name, kinds, expected in _OPTIONAL_FIELDS:
        value = record.get(name)
        if value is None:
            values.append(math.nan)
        elif type(value) in kinds and (type(value) is bool or value >= 0):
            values.append(float(value))
        else:
            raise AnswerFileError(f"{where}: field {name!r} must be {expected} or null, found {value!r}")
    for name, holds, expected in _KEPT_FIELDS:
        value = record.get(name)
        if value is not None and not holds(value):
            raise AnswerFileError(f"{where}: field {name!r} must be {expected} or null, found {value!r}")
    return tuple(values)


_SHA256 = re.compile(r"[0-9a-f]{64}")


def same_request(digests: Sequence[str], plain: np.ndarray) -> np.ndarray:
    """``(n,)`` True where item ``i``'s recorded request is byte-identical to that of item ``plain[i]`` (its plain
    member; -1 where it has none): the framing changed nothing the model received. False where either request is
    unrecorded."""
    out = np.zeros(len(digests), dtype=bool)
    for i, p in enumerate(plain):
        out[i] = p >= 0 and p != i and digests[i] != "" and digests[i] == digests[p]
    return out


_OPTIONAL_FIELDS = (
    ("tokens", {int}, "a non-negative integer"),
    ("closed", {bool}, "true or false"),
    ("latency_s", {int, float}, "a non-negative number"),
    ("input_tokens", {int}, "a non-negative integer"),
)


def _number(value: Any) -> bool:
    """A JSON number other than a boolean, and finite (an integer of any size is)."""
    return type(value) is int or (type(value) is float and math.isfinite(value))


_KEPT_FIELDS: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("queued_s", lambda v: _number(v) and v >= 0, "a non-negative number"),
    ("label_mass", lambda v: _number(v) and 0 <= v <= 1, "a number in [0, 1]"),
    ("interface_score", _number, "a finite number"),
    ("interface_confidence", _number, "a finite number"),
    (SAME_REQUEST_AS, lambda v: type(v) is str and v != "", "an item's id"),
)
"""Fields the runners keep that the scorer does not read, each checked as the runner writes it."""


def normalised_rows(raw: np.ndarray, usable: np.ndarray) -> np.ndarray:
    """Each usable row of non-negative finite values with a positive sum, as probabilities summing to 1.

    ``p_k = v_k / sum_i v_i``; when that sum overflows (two values of 1e308 sum to infinity, and ``v / inf`` is 0
    for every option), ``p_k = (v_k / max_j v_j) / sum_i (v_i / max_j v_j)`` instead - the same in exact
    arithmetic, finite in floating point. Rows whose sum is finite are divided by it as they always were
    (their bytes do not change). Rows that are not usable come back as 0 (the caller puts the uniform
    distribution there).
    """
    with np.errstate(invalid="ignore", over="ignore"):
        sums = raw.sum(axis=1)
        overflowed = usable & ~np.isfinite(sums)
        peaks = np.where(overflowed, raw.max(axis=1, initial=0.0), 1.0)[:, None]
        scaled = np.where(overflowed[:, None], raw / peaks, raw)
        totals = np.where(usable, scaled.sum(axis=1), 1.0)[:, None]
        return np.where(usable[:, None], scaled / totals, 0.0)


def read_task_answers(path: str | Path, layout: TaskLayout, system: str) -> TaskAnswers:
    """Read one answer file against its task layout (see the module docstring for the rules)."""
    path = Path(path)
    meta = check_items_hash(path, layout)
    n, width = layout.size, layout.max_options
    position = layout.position()
    key_sets = [frozenset(keys) for keys in layout.option_keys]
    padding = [[0.0] * (width - k) for k in range(width + 1)]
    line_of = [0] * n  # line of each item's record, 0 while none
    valued: list[int] = []  # items with numeric probabilities, and the values (padded to width)
    values_rows: list[list[float]] = []
    optional: dict[int, tuple[float, ...]] = {}
    digests = [""] * n
    error_records = invalid = ignored_keys = restricted = 0
    transient: list[int] = []
    try:
        handle = path.open("rb")  # lines split on \n only; each decoded as UTF-8 by json.loads
    except FileNotFoundError:
        raise AnswerFileError(f"{path}: no such answer file") from None
    except IsADirectoryError:
        raise AnswerFileError(f"{path}: is a folder, not an answer file") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            try:
                record = json.loads(line, object_pairs_hook=object_without_repeated_keys)
            except RepeatedKeyError as exc:
                raise AnswerFileError(f"{path}:{number}: key {exc.args[0]!r} given twice in one object (one value "
                                      "would be dropped silently)") from None
            except json.JSONDecodeError as exc:
                raise AnswerFileError(
                    f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})"
                ) from None
            except UnicodeDecodeError:
                raise AnswerFileError(f"{path}:{number}: not UTF-8") from None
            except (ValueError, RecursionError) as exc:  # e.g. an integer of over 4300 digits, deep nesting
                raise AnswerFileError(f"{path}:{number}: not readable JSON ({str(exc)[:80]})") from None
            if type(record) is not dict:
                raise AnswerFileError(
                    f"{path}:{number}: expected a JSON object, found {type(record).__name__}"
                )
            if not RECORD_FIELDS.issuperset(record):
                raise AnswerFileError(f"{path}:{number}: {unknown_field(record)}")
            item_id = record.get("id")
            i = position.get(item_id) if type(item_id) is str else None
            if i is None:
                if type(item_id) is not str:
                    raise AnswerFileError(f"{path}:{number}: missing or non-string 'id'")
                raise AnswerFileError(
                    f"{path}:{number}: unknown id {item_id!r} (not an item of {layout.items_path})"
                )
            if line_of[i]:
                raise AnswerFileError(
                    f"{path}:{number}: duplicate id {item_id!r} (first on line {line_of[i]})"
                )
            line_of[i] = number
            if len(record) > 2:
                optional[i] = _optional_fields(record, f"{path}:{number}")
                digest = record.get(REQUEST_DIGEST)
                if digest is not None:
                    if type(digest) is not str or not _SHA256.fullmatch(digest):
                        raise AnswerFileError(f"{path}:{number}: field {REQUEST_DIGEST!r} must be a SHA-256 in 64 "
                                              f"lower-case hex digits or null, found {digest!r}")
                    digests[i] = digest
            flag = record.get("transient")
            if flag is not None and type(flag) is not bool:
                raise AnswerFileError(f"{path}:{number}: field 'transient' must be true or false, found {flag!r}")
            if flag:  # no answer, whatever else the record holds: asked again by the next run, never scored
                transient.append(i)
                continue
            if record.get("error") is not None:
                error_records += 1
                restricted += str(record["error"]).startswith(INPUT_RESTRICTION)
                continue
            probabilities = record.get("p")
            if type(probabilities) is not dict:
                raise AnswerFileError(
                    f"{path}:{number}: needs 'p' (an object of option probabilities) or 'error'"
                )
            keys = layout.option_keys[i]
            if probabilities.keys() != key_sets[i]:
                ignored_keys += sum(1 for key in probabilities if key not in key_sets[i])
            values = {key: probabilities.get(key, 0.0) for key in keys}
            try:
                distribution(values, keys)
            except ProbabilityError:
                invalid += 1
                continue
            valued.append(i)
            values_rows.append([float(v) for v in values.values()] + padding[len(keys)])
    raw = np.zeros((n, width))
    has_values = np.zeros(n, dtype=bool)
    if valued:
        raw[valued] = np.array(values_rows, dtype=np.float64)
        has_values[valued] = True
    extra = np.full((n, len(_OPTIONAL_FIELDS)), math.nan)
    if optional:
        extra[list(optional)] = np.array(list(optional.values()))
    usable = has_values  # every row of values passed the probability check
    failed = ~usable
    uniform = (np.arange(width) < layout.option_count[:, None]) / layout.option_count[:, None]
    normalised = np.where(failed[:, None], uniform, normalised_rows(raw, usable))
    answered = np.array(line_of) > 0
    answered[transient] = False
    return TaskAnswers(
        system=system,
        task=layout.task,
        path=path,
        probabilities=normalised,
        answered=answered,
        failed=failed,
        gold_index=layout.gold_index,
        error_records=error_records,
        invalid_records=invalid,
        ignored_keys=ignored_keys,
        tokens=extra[:, 0],
        closed=extra[:, 1],
        latency_s=extra[:, 2],
        input_tokens=extra[:, 3],
        request_sha256=tuple(digests) if any(digests) else (),
        restricted=restricted,
        transient=len(transient),
        meta=meta,
    )


def find_systems(runs: str | Path, wanted: list[str] | None = None) -> list[str]:
    """System folders under ``runs`` (sorted), or the wanted ones, each checked to exist."""
    runs = Path(runs)
    if not runs.is_dir():
        raise AnswerFileError(f"{runs}: no runs folder (expected runs/<system>/<task>.jsonl)")
    present = sorted(p.name for p in runs.iterdir() if p.is_dir() and not p.name.startswith("."))
    if wanted is None:
        if not present:
            raise AnswerFileError(f"{runs}: no system folders")
        return present
    problem = unknown_names("system", wanted, present)
    if problem:
        raise AnswerFileError(f"{runs} (a system is a folder there): {problem}")
    return list(wanted)
