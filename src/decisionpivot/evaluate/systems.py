"""Systems: what `dp evaluate --system NAME` runs, declared in YAML.

The built-in file ``default_systems.yaml`` (next to this module) declares ``uniform`` and
commented examples; a user file given with ``--config`` adds systems or overrides built-in ones by
name. Every family heuristic (``FamilySpec.heuristics``) is also a system, named
``heuristic.<family>.<heuristic>``; it answers only its family.

Each ``kind`` is a module that registers a :class:`~decisionpivot.evaluate.kinds.KindSpec` with its
keys, defaults and checks (``dp systems --kinds`` lists them all). Every systems file - the built-in one,
a user's, the one-line spec - is read by one schema, :func:`_declare` over the kind's table: an unknown
kind or key is an error naming the file, the system and the key with the nearest known name; a value of the wrong
type, a number that is not finite or out of its range (``timeout_s: .inf``, ``concurrency: 0``) is one too,
each naming the line; a name given twice in one mapping (two systems called ``x``, ``model:`` twice) is
refused with both lines, where YAML would silently keep the last
(:func:`~decisionpivot.data_file.read_yaml_document`). Kinds:
``chat`` (OpenAI-compatible chat completions), ``systemone`` (the System One API),
``openai_decisions`` and ``sglang_decisions`` (the two Decisions-API shapes), ``decision``
(transformers' ``pipeline("decision")`` in process), ``hf`` (a causal LM's option-key logits),
``python`` (a plugin) and ``baseline``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from decisionpivot.data_file import YamlDocument, read_text_file, read_yaml_document
from decisionpivot.errors import DecisionPivotError, did_you_mean, unknown_names
from decisionpivot.evaluate.kinds import SettingError, SystemConfig, kinds
from decisionpivot.redact import written_url

SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$")


class SystemConfigError(DecisionPivotError):
    """A systems file or system declaration that cannot be used."""


def validate_system_name(name: str) -> str:
    """System names become folder names: letters, digits, '.', '_', '+', '-' only; no '..'."""
    if not isinstance(name, str) or not SYSTEM_NAME.match(name) or ".." in name:
        raise SystemConfigError(
            f"invalid system name {name!r}: use letters, digits, '.', '_', '+' or '-' "
            "(no path separators, no '..', at most 128 characters)"
        )
    return name


def _declare(name: str, raw: Any, source: str, where: Callable[[Sequence[str]], str] | None = None) -> SystemConfig:
    """The one schema of a system declaration: ``raw`` (a mapping of settings) checked against its kind's table.

    ``where`` names the place of a key in the file (``path:line``); by default ``source``."""
    place = where or (lambda keys: source)
    validate_system_name(name)
    if not isinstance(raw, dict):
        raise SystemConfigError(f"{place([name])}: system {name!r} must be a mapping of settings")
    registered = kinds()
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in registered:
        problem = unknown_names("kind", [kind], sorted(registered)) if isinstance(kind, str) else \
            f"needs 'kind', one of {', '.join(sorted(registered))}"
        raise SystemConfigError(f"{place([name, 'kind'])}: system {name!r}: {problem}")
    spec = registered[kind]
    if "api_key" in raw:
        raise SystemConfigError(f"{place([name, 'api_key'])}: system {name!r}: put the key in an environment "
                                "variable and name it with api_key_env")
    unknown = [str(key) for key in raw if key not in spec.settings and key != "kind"]
    if unknown:
        raise SystemConfigError(f"{place([name, unknown[0]])}: system {name!r} ({kind}): "
                                f"{unknown_names('key', unknown, ['kind', *sorted(spec.settings)])}")
    settings: dict[str, Any] = {}
    for key, setting in spec.settings.items():
        value = raw.get(key, setting.default)
        if key in spec.required and value in (None, ""):
            stand_in = spec.instead.get(key)
            if stand_in is None or raw.get(stand_in) in (None, "", []):
                also = f" (or {stand_in!r})" if stand_in else ""
                raise SystemConfigError(f"{place([name])}: system {name!r} ({kind}) needs {key!r}{also}")
            settings[key] = None
            continue
        try:
            settings[key] = setting.check(value) if value is not None or key in spec.required else None
        except SettingError as exc:
            raise SystemConfigError(f"{place([name, key])}: system {name!r} ({kind}): {key}: {exc}") from None
    try:
        spec.validate(settings)
    except SettingError as exc:
        raise SystemConfigError(f"{place([name])}: system {name!r} ({kind}): {exc}") from None
    return SystemConfig(name=name, kind=kind, settings=settings, source=source)


def _read_file(document: YamlDocument | None, data: Any, source: str) -> dict[str, SystemConfig]:
    """The systems of a parsed systems file (``document`` gives the line of each key; None for the built-in file)."""
    if data is None:
        data = {}
    if not isinstance(data, dict) or not isinstance(data.get("systems", {}), dict):
        raise SystemConfigError(f"{source}: expected a top-level 'systems:' mapping")
    _check_expanded_size(data, source)
    declared = data.get("systems") or {}
    for name in declared:
        if not isinstance(name, str):
            raise SystemConfigError(
                f"{source}: system name {name!r} is read as {type(name).__name__} by YAML, not as a name; "
                f"write it in quotes (\"{name}\": ...)"
            )

    def where(place: Sequence[str]) -> str:
        return f"{source}:{document.line(('systems', *place))}" if document is not None else source

    return {name: _declare(name, raw, source, where) for name, raw in declared.items()}


MAX_VALUES = 100_000
"""Most values a systems file may hold once YAML's aliases are expanded (an alias bomb grows without bound)."""


def _check_expanded_size(data: Any, source: str) -> None:
    """Refuse a file whose aliases expand to more than :data:`MAX_VALUES` values (a "billion laughs" file).

    ``yaml.safe_load`` shares one object per anchor, so the file loads in little memory; it is writing
    that object into every request (``extra_body``) that would expand it. Counting the values reached,
    repeats included, stops that before any request is built.
    """
    seen = 0
    stack = [data]
    while stack:
        value = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise SystemConfigError(f"{source}: more than {MAX_VALUES:,} values once its YAML aliases are expanded; "
                                    "not a systems file (an alias bomb?)")
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


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
    systems = {**_read_file(None, yaml.safe_load(text), "default_systems.yaml"), **heuristic_systems()}
    if config is not None:
        path = Path(config)
        if not path.exists():
            raise SystemConfigError(f"{path}: no such systems file")
        if read_text_file(path, "a systems file", SystemConfigError).startswith("\ufeff"):
            raise SystemConfigError(f"{path}:1: starts with a byte-order mark (U+FEFF); save the file as UTF-8 "
                                    "without one")
        document = read_yaml_document(path, "a systems file", SystemConfigError)  # a key given twice: refused
        systems.update(_read_file(document, document.data, str(path)))
    return systems


SPEC_URL = re.compile(r"@(?=https?://)")
"""Where a one-line system spec's model ends and its base URL begins."""
SPEC_ALIASES = {"key_env": "api_key_env"}
"""Short names a one-line spec may use for a kind's settings."""


def is_system_spec(text: str) -> bool:
    """Whether ``--system`` holds a one-line spec rather than a name (names have no ':' or '/')."""
    return isinstance(text, str) and ("/" in text or ":" in text) and not SYSTEM_NAME.match(text)


def system_from_spec(text: str) -> SystemConfig:
    """A system declared on the command line: ``KIND:MODEL[@BASE_URL][?KEY=VALUE&...]`` (or ``KIND/MODEL...``).

    ``chat:gpt-4o-mini@https://api.openai.com/v1?key_env=OPENAI_API_KEY``, ``hf:/models/qwen?batch_size=4``,
    ``hf/models/qwen`` (inspect_ai's provider/model form), ``logprobs:qwen@http://127.0.0.1:8000/v1?tokenizer=
    /models/qwen``. MODEL is the kind's first required setting (``model``; ``callable`` for ``python``), the
    URL its ``base_url``, and each KEY=VALUE one of its settings (values read as YAML scalars: ``4``, ``true``;
    ``key_env`` is ``api_key_env``; ``name`` names the system, by default ``KIND.<last part of MODEL>``). The
    system is checked and recorded exactly as a declared one, so the same line resumes the same answer files.
    """
    head, _, query = text.partition("?")
    source = f"--system {_shown_spec(text)!r}"
    kind, sep, rest = head.partition(":")
    registered = kinds()
    if not sep or "/" in kind:
        kind, sep, rest = head.partition("/")
    if not sep or kind not in registered:
        raise SystemConfigError(f"{source}: expected KIND:MODEL[@BASE_URL][?KEY=VALUE&...] with KIND one of "
                                f"{sorted(registered)}, e.g. chat:gpt-4o-mini@https://api.openai.com/v1"
                                "?key_env=OPENAI_API_KEY")
    parts = SPEC_URL.split(rest, maxsplit=1)
    model, base_url = parts[0], (parts[1] if len(parts) > 1 else "")
    spec = registered[kind]
    positional = next((key for key in spec.required if key != "base_url"), "model")
    raw: dict[str, Any] = {"kind": kind, positional: model}
    if base_url:
        raw["base_url"] = base_url
    name = ""
    given: set[str] = set()
    for pair in filter(None, query.split("&")):
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise SystemConfigError(f"{source}: {key or '=...'!r} is not KEY=VALUE")
        if SPEC_ALIASES.get(key, key) in given:
            raise SystemConfigError(f"{source}: {key!r} given twice")
        given.add(SPEC_ALIASES.get(key, key))
        if key == "name":
            name = value
            continue
        try:
            raw[SPEC_ALIASES.get(key, key)] = yaml.safe_load(value) if value else ""
        except yaml.YAMLError:
            raw[SPEC_ALIASES.get(key, key)] = value
    if not name:
        tail = re.sub(r"[^A-Za-z0-9._+-]+", "-", model.rstrip("/").rsplit("/", 1)[-1]).strip("-.") or "model"
        name = f"{kind}.{tail}"[:128]
    return _declare(name, raw, source)


def expand_systems(names: Sequence[str], config: str | Path | None = None) -> list[str]:
    """The systems ``names`` stand for, in order, each once: a name or one-line spec as it is, a pattern
    (``heuristic.*``, with ``*``, ``?`` or ``[...]``) as every declared name it matches, sorted. An unknown name
    (with the nearest declared names) or a pattern that matches nothing is an error naming it, before anything
    runs."""
    declared: dict[str, SystemConfig] | None = None
    chosen: list[str] = []
    for name in names:
        if is_system_spec(name) or not any(c in name for c in "*?["):
            get_system(name, config)  # an unknown name is refused before any system runs
            matched = [name]
        else:
            declared = load_systems(config) if declared is None else declared
            matched = sorted(n for n in declared if fnmatch.fnmatchcase(n, name))
            if not matched:
                raise SystemConfigError(f"no system matches {name!r}; `dp systems` lists them all"
                                        + (f" (with {config})" if config is not None else ""))
        chosen.extend(n for n in matched if n not in chosen)
    if not chosen:
        raise SystemConfigError("--systems names no system")
    return chosen


def _shown_spec(text: str) -> str:
    """A one-line spec as messages show it: its URL without user name, password and query values (written_url),
    and the value of each KEY=VALUE left out unless the key names a setting written in clear."""
    head, _, query = text.partition("?")
    parts = SPEC_URL.split(head, maxsplit=1)
    shown = parts[0] + (f"@{written_url(parts[1])}" if len(parts) > 1 else "")
    if query:
        shown += "?" + "&".join(pair.partition("=")[0] + ("=..." if "=" in pair else "")
                                for pair in query.split("&") if pair)
    return shown


def get_system(name: str, config: str | Path | None = None) -> SystemConfig:
    """The system called ``name`` (built in, a family heuristic or declared in ``config``), or one declared by a
    one-line spec (:func:`system_from_spec`)."""
    if is_system_spec(name):
        return system_from_spec(name)
    validate_system_name(name)
    systems = load_systems(config)
    if name not in systems:
        hint = did_you_mean(name, systems, most=3)
        where = f"neither built in nor declared in {config}" if config is not None else "not a built-in system"
        raise SystemConfigError(f"unknown system {name!r}{hint}: {where}; `dp systems` lists them all "
                                "(--config FILE adds yours)")
    return systems[name]
