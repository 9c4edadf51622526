"""System kinds behind one runner protocol, as families are behind ``FamilySpec``.

A kind is one module under ``decisionpivot.evaluate`` that registers a :class:`KindSpec`: the
settings a system of that kind takes (each with its default, its check and whether it changes the
answers), and a factory for the :class:`Runner` that answers items. ``dp evaluate`` only ever talks to
the protocol, so adding a kind is adding a module to :data:`KIND_MODULES`.

Settings are checked when the systems file is read, so a typo or a wrong type (``timeout_s: "abc"``,
``max_attempts: true``, ``requests_per_minute: -5``, ``timeout_s: .inf``) is an error naming the file, the
system and the key before any request is sent.

**What is written.** A system's settings reach meta files, logs and reports only through
:meth:`SystemConfig.public` and :meth:`SystemConfig.identity`, by an allow-list: a setting's value is written as
it is only when it is a value of a closed set (a number, a boolean, one of named choices: its check says so) or
a text setting of :data:`CLEAR_SETTINGS` (``model``, ``path``, ``tokenizer``...: what the system *is*). Every
other value (``serve:`` arguments, ``serve_env:`` and header values, ``extra_body``, ``api_key_env``) is written
as salted hashes (:func:`decisionpivot.redact.hashed`) or not at all (:data:`WRITTEN_FORMS`), ``base_url``
without its user name, password and query values. The fingerprint is the SHA-256 of the written identity, so a
changed secret still changes it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from decisionpivot.errors import did_you_mean
from decisionpivot.redact import written_command, written_environment, written_url, written_value
from decisionpivot.user_files import Bound

if TYPE_CHECKING:
    from decisionpivot.items import Item

KIND_MODULES = (
    "decisionpivot.evaluate.chat",
    "decisionpivot.evaluate.systemone",
    "decisionpivot.evaluate.openai_decisions",
    "decisionpivot.evaluate.sglang_decisions",
    "decisionpivot.evaluate.decision",
    "decisionpivot.evaluate.hf",
    "decisionpivot.evaluate.logprobs",
    "decisionpivot.evaluate.local",
)
"""Modules that register kinds (imported on first use)."""

Record = dict[str, Any]
Emit = Callable[[Record], None]
INPUT_RESTRICTION = "input restriction"
"""Prefix of the error of an item the system could not take as it stands (counted on the leaderboard)."""
REQUEST_DIGEST = "request_sha256"
"""Field of a record: the SHA-256 of the request body sent for the item, as the HTTP kinds write it (what reached
the model, byte for byte; the scorer tells framings that changed nothing on the wire by it)."""
SAME_REQUEST_AS = "same_request_as"
"""Record field: the id of the earlier item of the run whose reply this item got, its request being byte for byte the
same (the ``ask_each_request_once`` setting of a deterministic server); its timing fields are not copied."""
RECORD_FIELDS = frozenset({
    "id", "p", "error", "transient",  # every kind; transient: the HTTP kinds, decision, an inspect import
    "closed",  # chat, an inspect import
    "tokens", "input_tokens",  # the usage a server reports (http.usage_fields), decision; input_tokens: hf too
    "latency_s", "queued_s",  # latency_s: HTTP kinds, hf, decision, an inspect import; queued_s: HTTP kinds
    "label_mass", "interface_score", "interface_confidence",  # the decision-API kinds' extras (systemone.py)
    REQUEST_DIGEST, SAME_REQUEST_AS,  # HTTP kinds
})
"""Every field a record of an answer file may hold, and no other: the one allow-list of the answer-file format. The
runners of every kind write nothing else (:class:`~decisionpivot.evaluate.answers.AnswerWriter` refuses any other key,
as ``dp import`` writes through it too), and the scorer (:func:`decisionpivot.score.answers.read_task_answers`)
refuses a record holding any other, naming the file, the line and the key."""
SAMPLE_FIELDS = (RECORD_FIELDS - {"p"}) | {"text"}
"""The fields of a record of ``dp sample`` (``runs/<system>/samples/<task>.jsonl``): a sampled reply's whole ``text``
where an answer has ``p``; never read by the scorer."""


def unknown_field(record: Mapping[str, Any], fields: frozenset[str] = RECORD_FIELDS) -> str | None:
    """What is wrong with a record holding a key that is not one of ``fields`` (the first such key, the nearest field
    and every field), or None when it holds none."""
    for key in record:
        if key not in fields:
            shown = repr(key) if len(repr(key)) <= 60 else repr(key)[:57] + "...'"
            return (f"unknown field {shown}{did_you_mean(str(key), fields)}; a record holds only "
                    f"{', '.join(sorted(fields))}")
    return None


@dataclass
class RunCounters:
    """Live counts shown on the progress bar and recorded in the metadata."""

    answered: int = 0
    """Records with probabilities written in this run."""
    errors: int = 0
    """Error records written in this run."""
    retries: int = 0
    """Retries spent in this run."""
    in_flight_limit: int | None = None
    """The adaptive in-flight limit of an HTTP runner at the end of the run (None for local kinds)."""
    server: dict[str, Any] | None = None
    """What the system's own server (``serve:``) said about itself (model, version), when dp started one."""
    answered_before: int = 0
    """Items of this run whose answer file already held an answer or a final record when it began (a resumed run:
    the system has answered under this configuration, so a run of failures is not a configuration error)."""


class Runner(Protocol):
    """Answers items; ``emit`` receives each record (``{"id", "p"}`` or ``{"id", "error"}``) once.

    A runner may also have ``close()``: ``dp evaluate`` calls it once when the evaluation ends (a server
    the runner started is stopped there).
    """

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        """Answer every item, emitting exactly one record per item (or raising to stop the run)."""


class SettingError(ValueError):
    """A setting value that does not pass its check; the message says what was expected."""


@dataclass(frozen=True)
class Setting:
    """One key of a kind's settings."""

    default: Any
    """Value when the key is absent (None: unset)."""
    check: Callable[[Any], Any]
    """Returns the value to use (possibly converted) or raises SettingError."""
    doc: str
    """One line for the documentation and error messages."""
    identity: bool = True
    """Whether the key changes the answers (part of the run's fingerprint); transport keys are not."""

    def written(self, key: str, value: Any) -> Any:
        """``value`` of setting ``key`` as meta files, logs and reports may hold it: as it is when the check's values
        form a closed set (:func:`closed`: numbers, booleans, named choices) or ``key`` is in
        :data:`CLEAR_SETTINGS`; else by its form in :data:`WRITTEN_FORMS` (by default every string and number in it
        hashed: :func:`decisionpivot.redact.written_value`)."""
        if value is None or key in CLEAR_SETTINGS or getattr(self.check, "closed", False):
            return value
        return WRITTEN_FORMS.get(key, written_value)(value, key)


def _message(expected: str, value: Any) -> SettingError:
    shown = repr(value)
    return SettingError(f"expected {expected}, got {shown if len(shown) <= 80 else shown[:77] + '...'}")


Check = TypeVar("Check", bound=Callable[..., Any])

CLEAR_SETTINGS = frozenset({"model", "gguf_file", "tokenizer", "path", "serve_prefix", "callable", "baseline", "family",
                            "heuristic", "device", "dtype", "reasoning_effort", "auth_header"})
"""The text settings written as they are to meta files, logs and reports: what the system is (its model, the
tokenizer, the path of its interface, the plugin) and the documented answer-changing texts - an allow-list. Values
of closed checks (numbers, booleans, named choices) are written as they are too; every other value by its form in
:data:`WRITTEN_FORMS`."""
WRITTEN_FORMS: dict[str, Callable[[Any, str], Any]] = {
    "base_url": written_url, "serve": written_command, "serve_env": written_environment}
"""How the values of these settings are written (the rest: :func:`decisionpivot.redact.written_value`, each string
and number hashed): ``base_url`` without user name, password and query values, a ``serve:`` command with its option
names, ``serve_env`` with its variable names and ``${NAME}`` references in clear."""


def closed(check: Check) -> Check:
    """Mark ``check`` as one whose values form a closed set (numbers, booleans, named choices): written in clear."""
    check.closed = True  # type: ignore[attr-defined]
    return check


def text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _message("a non-empty string", value)
    return value


def url_path(value: Any) -> str:
    if not isinstance(value, str) or not value.startswith("/"):
        raise _message("a URL path starting with '/'", value)
    return value


def optional_text(value: Any) -> str | None:
    return None if value is None else text(value)


MAX_COUNT = 10 ** 9
"""The largest whole number a setting takes unless it says otherwise (a count, a size, a number of tokens)."""


def _bounded(bound: Bound, value: Any) -> Any:
    """``value`` when ``bound`` holds it (:class:`decisionpivot.user_files.Bound`, the one check of every number a
    user gives: finite, in range), else SettingError saying what was expected."""
    if not bound.holds(value):
        raise _message(bound.text, value)
    return value


def integer(minimum: int, maximum: int = MAX_COUNT) -> Callable[[Any], int]:
    bound = Bound(minimum, maximum, "a whole number", integer=True)
    return closed(lambda value: _bounded(bound, value))


def optional_integer(minimum: int, maximum: int = MAX_COUNT) -> Callable[[Any], int | None]:
    inner = integer(minimum, maximum)
    return closed(lambda value: None if value is None else inner(value))


def number(minimum: float, *, strict: bool = False, maximum: float = 1e9) -> Callable[[Any], float]:
    """A finite real number above ``minimum`` (or at least it, unless ``strict``) and at most ``maximum``."""
    bound = Bound(minimum, maximum, "a number", low_open=strict)
    return closed(lambda value: float(_bounded(bound, value)))


def optional_number(minimum: float, *, strict: bool = False, maximum: float = 1e9) -> Callable[[Any], float | None]:
    inner = number(minimum, strict=strict, maximum=maximum)
    return closed(lambda value: None if value is None else inner(value))


@closed
def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _message("true or false", value)
    return value


def one_of(*choices: str) -> Callable[[Any], str]:
    @closed
    def check(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            hint = did_you_mean(value, choices) if isinstance(value, str) else ""
            raise SettingError(f"{_message('one of ' + ', '.join(repr(c) for c in choices), value)}{hint}")
        return value

    return check


def _json_value(value: Any, where: str) -> None:
    """Refuse what a JSON request body cannot carry: a non-string key, NaN or an infinity, or another type."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise SettingError(f"expected string keys, got {key!r}{where}")
            _json_value(item, f"{where}.{key}" if where else f" at {key}")
    elif isinstance(value, list):
        for item in value:
            _json_value(item, where)
    elif isinstance(value, float) and not math.isfinite(value):
        raise SettingError(f"expected finite numbers, got {value!r}{where}")
    elif not (value is None or isinstance(value, str | int | float | bool)):
        raise SettingError(f"expected JSON values (text, numbers, true/false, lists, mappings), got "
                           f"{type(value).__name__}{where}")


def mapping(value: Any) -> dict[str, Any]:
    """A mapping with string keys whose values a JSON body can carry (no NaN, no infinities, no dates)."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise _message("a mapping with string keys", value)
    _json_value(value, "")
    return dict(value)


def optional_command(value: Any) -> list[str] | None:
    """A command as a list of its words (``[prog, arg, ...]``), or None."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str | int) and not isinstance(v, bool)
                                                           for v in value) or not str(value[0]).strip():
        raise _message("a command as a list of words, e.g. [prog, --port, '{port}']", value)
    return [str(v) for v in value]


def string_mapping(value: Any) -> dict[str, str]:
    checked = mapping(value)
    if not all(isinstance(v, str) for v in checked.values()):
        raise _message("a mapping of strings to strings", value)
    return checked


@dataclass(frozen=True)
class KindSpec:
    """One system kind: its settings and how to build its runner."""

    name: str
    """The ``kind:`` value in a systems file."""
    doc: str
    """What the kind reaches, one line."""
    settings: Mapping[str, Setting]
    """Allowed keys (besides ``kind``) with defaults and checks."""
    required: tuple[str, ...]
    """Keys that must be given."""
    make_runner: Callable[[SystemConfig], Runner]
    """Builds the runner (heavy imports happen here, not at registration)."""
    readout: Callable[[Mapping[str, Any]], str] = field(default=lambda settings: "")
    """How the kind reads an answer, for the meta file and the leaderboard (e.g. ``systemone/noul``)."""
    validate: Callable[[Mapping[str, Any]], None] = field(default=lambda settings: None)
    """Checks across keys (raise SettingError); single keys are checked by their Setting."""
    instead: Mapping[str, str] = field(default_factory=dict)
    """Required key -> the key that may stand in for it (``base_url`` -> ``serve``: the runner starts the
    server and knows its URL)."""
    questions_per_request: str = "one"
    """``several``: the kind sends an item's ``companions`` (invariance suite, framing ``together``) with its question
    in one request; ``one``: it asks the item's question alone. Recorded in the meta of items files with companions."""


_KINDS: dict[str, KindSpec] = {}


def register(spec: KindSpec) -> KindSpec:
    if spec.name in _KINDS and _KINDS[spec.name] is not spec:
        raise ValueError(f"kind {spec.name!r} registered twice")
    _KINDS[spec.name] = spec
    return spec


def kinds() -> dict[str, KindSpec]:
    """Every registered kind, by name (imports the kind modules on first use)."""
    for module in KIND_MODULES:
        importlib.import_module(module)
    return dict(_KINDS)


@dataclass(frozen=True)
class SystemConfig:
    """One declared system."""

    name: str
    """Name used on the command line and as the folder under runs/."""
    kind: str
    """A registered kind (see decisionpivot.evaluate.kinds)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The kind's keys with defaults filled in."""
    source: str = "built-in"
    """Where it was declared (file path), for messages."""

    def public(self) -> dict[str, Any]:
        """The config as meta files, logs and reports hold it: the name, the kind and each setting as it may be
        written (:meth:`Setting.written`: clear values as they are, every other value hashed or left out)."""
        return {"name": self.name, "kind": self.kind, **self._written_settings()}

    @property
    def spec(self) -> KindSpec:
        return kinds()[self.kind]

    def identity(self) -> dict[str, Any]:
        """The settings that change the answers (model, prompt, readout...), without transport keys, as written."""
        settings = self.spec.settings
        return {"kind": self.kind, **{k: v for k, v in self._written_settings().items() if settings[k].identity}}

    def _written_settings(self) -> dict[str, Any]:
        """Every setting as :meth:`Setting.written` writes it."""
        specs = self.spec.settings
        return {key: specs[key].written(key, value) for key, value in self.settings.items()}

    def hidden_strings(self, shortest: int = 6) -> list[str]:
        """Every string of the settings (``shortest`` characters or more, longest first) that is not written in clear,
        nor a value of another setting that is (a model name), for free text that might quote it: a server's message,
        a served process's output. A ``--db=VALUE`` word gives VALUE too."""
        specs = self.spec.settings
        hidden: set[str] = set()

        def walk(value: Any, written: Any) -> None:
            if isinstance(value, dict) and isinstance(written, dict):
                for key, item in value.items():
                    walk(item, written.get(str(key)))
            elif isinstance(value, list) and isinstance(written, list) and len(value) == len(written):
                for item, shown in zip(value, written, strict=True):
                    walk(item, shown)
            elif isinstance(value, str) and value != written:
                hidden.update(part for part in (value, value.partition("=")[2]) if len(part) >= shortest)

        clear: set[str] = set()
        for key, value in self.settings.items():
            written = specs[key].written(key, value)
            if written == value and isinstance(value, str):
                clear.add(value)
            walk(value, written)
        return sorted(hidden - clear, key=len, reverse=True)

    def fingerprint(self) -> str:
        """SHA-256 of :meth:`identity` as canonical JSON: a resumed run must have the same one."""
        canonical = json.dumps(self.identity(), sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def readout(self) -> str:
        """How this system's answers are read (e.g. ``systemone/noul``), for the meta file and leaderboard."""
        return self.spec.readout(self.settings) or self.kind

    @property
    def families(self) -> tuple[str, ...] | None:
        """Families this system can answer (None: every task)."""
        if self.kind == "baseline" and self.settings.get("baseline") == "heuristic":
            return (str(self.settings["family"]),)
        return None
