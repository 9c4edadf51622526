"""System kinds behind one runner protocol, as families are behind ``FamilySpec``.

A kind is one module under ``decisionpivot.evaluate`` that registers a :class:`KindSpec`: the
settings a system of that kind takes (each with its default, its check and whether it changes the
answers), and a factory for the :class:`Runner` that answers items. ``dp evaluate`` only ever talks to
the protocol, so adding a kind is adding a module to :data:`KIND_MODULES`.

Settings are checked when the systems file is read, so a typo or a wrong type (``timeout_s: "abc"``,
``max_attempts: true``, ``requests_per_minute: -5``) is an error naming the file, the system and the
key before any request is sent.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

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
    recorded: Callable[[Any], Any] | None = None
    """How a value that may hold secrets is written to meta files and fingerprints (each secret as a hash);
    None: as it is."""


def _message(expected: str, value: Any) -> SettingError:
    return SettingError(f"expected {expected}, got {value!r}")


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


def integer(minimum: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise _message(f"a whole number >= {minimum}", value)
        return value

    return check


def optional_integer(minimum: int) -> Callable[[Any], int | None]:
    inner = integer(minimum)
    return lambda value: None if value is None else inner(value)


def number(minimum: float, *, strict: bool = False) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        ok = not isinstance(value, bool) and isinstance(value, int | float)
        if ok:
            try:
                converted = float(value)
            except OverflowError:
                ok = False
            else:
                ok = math.isfinite(converted) and (converted > minimum if strict else converted >= minimum)
        if not ok:
            raise _message(f"a number {'>' if strict else '>='} {minimum:g}", value)
        return float(value)

    return check


def optional_number(minimum: float, *, strict: bool = False) -> Callable[[Any], float | None]:
    inner = number(minimum, strict=strict)
    return lambda value: None if value is None else inner(value)


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _message("true or false", value)
    return value


def one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise _message("one of " + ", ".join(repr(c) for c in choices), value)
        return str(value)

    return check


def mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise _message("a mapping with string keys", value)
    return dict(value)


def optional_command(value: Any) -> list[str] | None:
    """A command as a list of its words (``[prog, arg, ...]``), or None."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str | int) for v in value) \
            or not str(value[0]).strip():
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
        """The config as recorded in answer-file metadata: never a secret, only the key variable's name.

        Values of ``headers:`` are replaced (names kept), a URL loses its password and secret query values,
        and every other string goes through :func:`~decisionpivot.redact.redact`.
        """
        from decisionpivot.redact import MARK, redact_data, redact_url

        settings = self._recorded_settings()
        if isinstance(settings.get("headers"), dict):
            settings["headers"] = dict.fromkeys(settings["headers"], MARK)
        if isinstance(settings.get("base_url"), str):
            settings["base_url"] = redact_url(settings["base_url"])
        return redact_data({"name": self.name, "kind": self.kind, **settings})

    @property
    def spec(self) -> KindSpec:
        return kinds()[self.kind]

    def identity(self) -> dict[str, Any]:
        """The settings that change the answers (model, prompt, readout...), without transport keys."""
        settings = self.spec.settings
        return {"kind": self.kind, **{k: v for k, v in self._recorded_settings().items() if settings[k].identity}}

    def _recorded_settings(self) -> dict[str, Any]:
        """The settings with each secret a setting may hold replaced by its hash (``Setting.recorded``)."""
        specs = self.spec.settings
        return {k: specs[k].recorded(v) if k in specs and specs[k].recorded and v is not None else v
                for k, v in self.settings.items()}

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
