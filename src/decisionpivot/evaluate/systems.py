"""Systems: what `dp evaluate --system NAME` runs, declared in YAML.

The built-in file ``default_systems.yaml`` (next to this module) declares ``uniform`` and
commented examples; a user file given with ``--config`` adds systems or overrides built-in ones by
name. Every family heuristic (``FamilySpec.heuristics``) is also a system, named
``heuristic.<family>.<heuristic>``; it answers only its family.

Kinds and their keys (unknown keys are an error, so typos do not pass silently):

``chat``   any OpenAI-compatible chat-completions endpoint.
           ``base_url`` (required), ``model`` (required), ``api_key_env`` (name of the environment
           variable holding the key; the key itself is never written anywhere), ``temperature``
           (default 0), ``max_tokens`` (2048), ``reasoning_effort`` (sent when set), ``concurrency``
           (16), ``requests_per_minute`` (0 = unlimited), ``timeout_s`` (120), ``max_attempts`` (6),
           ``backoff_base_s`` (1.0: retry n waits a random time up to base x 2^n, at least Retry-After),
           ``retry_budget`` (retries allowed per task; default 50 + 10% of the items),
           ``context_tokens`` (inputs longer than this, estimated at 4 characters a token, are
           recorded as errors), ``extra_body`` (a mapping merged into each request).
``hf``     a local transformers causal LM: ``model`` (path or hub id; loading never downloads unless
           the user's environment allows it), ``device`` (``cpu``, ``cuda``, ``auto``),
           ``batch_size`` (8), ``dtype`` (``float32``...), ``context_tokens``.
``python`` a decision-model plugin: ``callable`` (``package.module:function``), ``batch_size`` (32),
           ``options`` (a mapping passed to the callable as keyword arguments).
``baseline`` built-in baselines: ``baseline`` = ``uniform`` or ``heuristic`` (with ``family`` and
           ``heuristic``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from decisionpivot.errors import DecisionPivotError

SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")

_KEYS: dict[str, dict[str, Any]] = {
    "chat": {
        "base_url": None, "model": None, "api_key_env": None, "temperature": 0.0, "max_tokens": 2048,
        "reasoning_effort": None, "concurrency": 16, "requests_per_minute": 0, "timeout_s": 120.0,
        "max_attempts": 6, "backoff_base_s": 1.0, "retry_budget": None, "context_tokens": None, "extra_body": {},
    },
    "hf": {"model": None, "device": "auto", "batch_size": 8, "dtype": "float32", "context_tokens": None},
    "python": {"callable": None, "batch_size": 32, "options": {}},
    "baseline": {"baseline": None, "family": None, "heuristic": None},
}
_REQUIRED = {"chat": ("base_url", "model"), "hf": ("model",), "python": ("callable",), "baseline": ("baseline",)}


class SystemConfigError(DecisionPivotError):
    """A systems file or system declaration that cannot be used."""


@dataclass(frozen=True)
class SystemConfig:
    """One declared system."""

    name: str
    """Name used on the command line and as the folder under runs/."""
    kind: str
    """chat, hf, python or baseline."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The kind's keys with defaults filled in."""
    source: str = "built-in"
    """Where it was declared (file path), for messages."""

    def public(self) -> dict[str, Any]:
        """The config as recorded in answer-file metadata: never a secret, only the variable's name."""
        return {"name": self.name, "kind": self.kind, **self.settings}

    @property
    def families(self) -> tuple[str, ...] | None:
        """Families this system can answer (None: every task)."""
        if self.kind == "baseline" and self.settings.get("baseline") == "heuristic":
            return (str(self.settings["family"]),)
        return None


def validate_system_name(name: str) -> str:
    """System names become folder names: letters, digits, '.', '_', '+', '-' only; no '..'."""
    if not isinstance(name, str) or not SYSTEM_NAME.match(name) or ".." in name:
        raise SystemConfigError(
            f"invalid system name {name!r}: use letters, digits, '.', '_', '+' or '-' "
            "(no path separators, no '..', at most 128 characters)"
        )
    return name


def _declare(name: str, raw: Any, source: str) -> SystemConfig:
    validate_system_name(name)
    if not isinstance(raw, dict):
        raise SystemConfigError(f"{source}: system {name!r} must be a mapping of settings")
    kind = raw.get("kind")
    if kind not in _KEYS:
        raise SystemConfigError(f"{source}: system {name!r}: kind must be one of {sorted(_KEYS)}, got {kind!r}")
    unknown = sorted(set(raw) - set(_KEYS[kind]) - {"kind"})
    if unknown:
        raise SystemConfigError(
            f"{source}: system {name!r} ({kind}): unknown key(s) {unknown}; allowed: {sorted(_KEYS[kind])}"
        )
    settings = {**_KEYS[kind], **{k: v for k, v in raw.items() if k != "kind"}}
    for key in _REQUIRED[kind]:
        if settings.get(key) in (None, ""):
            raise SystemConfigError(f"{source}: system {name!r} ({kind}) needs {key!r}")
    if kind == "chat":
        for key in ("concurrency", "max_tokens", "max_attempts"):
            if not isinstance(settings[key], int) or settings[key] < 1:
                raise SystemConfigError(f"{source}: system {name!r}: {key} must be a positive integer")
        if "api_key" in raw:
            raise SystemConfigError(f"{source}: system {name!r}: put the key in an environment variable "
                                    "and name it with api_key_env")
    if kind == "baseline" and settings["baseline"] not in ("uniform", "heuristic"):
        raise SystemConfigError(f"{source}: system {name!r}: baseline must be 'uniform' or 'heuristic'")
    return SystemConfig(name=name, kind=kind, settings=settings, source=source)


def _read_file(text: str, source: str) -> dict[str, SystemConfig]:
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        raise SystemConfigError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict) or not isinstance(data.get("systems", {}), dict):
        raise SystemConfigError(f"{source}: expected a top-level 'systems:' mapping")
    return {name: _declare(str(name), raw, source) for name, raw in (data.get("systems") or {}).items()}


def heuristic_systems() -> dict[str, SystemConfig]:
    """One baseline system per heuristic exposed by a family module."""
    from decisionpivot.generate.registry import families

    found = {}
    for spec in families():
        for heuristic in spec.heuristics:
            name = f"heuristic.{spec.name}.{heuristic}"
            found[name] = _declare(name, {"kind": "baseline", "baseline": "heuristic", "family": spec.name,
                                          "heuristic": heuristic}, "built-in")
    return found


def load_systems(config: str | Path | None = None) -> dict[str, SystemConfig]:
    """Built-in systems, family heuristics, then the user's file (which may override by name)."""
    text = resources.files("decisionpivot.evaluate").joinpath("default_systems.yaml").read_text("utf-8")
    systems = {**_read_file(text, "default_systems.yaml"), **heuristic_systems()}
    if config is not None:
        path = Path(config)
        if not path.exists():
            raise SystemConfigError(f"{path}: no such systems file")
        systems.update(_read_file(path.read_text(encoding="utf-8"), str(path)))
    return systems


def get_system(name: str, config: str | Path | None = None) -> SystemConfig:
    validate_system_name(name)
    systems = load_systems(config)
    if name not in systems:
        listed = ", ".join(sorted(systems))
        raise SystemConfigError(f"unknown system {name!r}; declared systems: {listed}. "
                                "Declare yours in a YAML file and pass it with --config.")
    return systems[name]
