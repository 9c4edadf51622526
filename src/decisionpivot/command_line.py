"""Check a whole `dp` command line against the verb's signature before the verb does any work.

python-fire consumes arguments while it runs: a misspelled flag (``--limt 5``) is only reported
after the verb has finished (a whole paid evaluation lost), ``bool("false")`` is true, and values
are guessed with ``ast.literal_eval`` (``--out 2026`` arrives as an int). This module reads the
verb's signature and type annotations instead and turns the command line into Python values, or
refuses it with one line that names the flag and what it expected, plus the verb's usage:

- flags: ``--flag value``, ``--flag=value``, ``-flag value``, an unambiguous one-letter shortcut
  ``-f value`` (as fire accepts), ``--dry-run`` = ``--dry_run``; a flag given twice is an error;
- booleans: ``--flag``, ``--noflag`` / ``--no-flag``, ``--flag=false``, ``--flag false``; the words
  true/false, yes/no, 1/0 in any case, nothing else;
- ``int`` (decimal digits only, no ``1.5``, no ``1e3``), ``float`` (finite), ``str`` (any text, also
  empty: ``--out=``), ``Literal[...]`` (one of the listed values), ``Sequence[str]`` (comma list,
  ``--families a,b``, at least one name), ``X | None`` (also ``none``; ``--noflag`` gives None);
- positionals fill the parameters not given as flags, in signature order; the rest go to
  ``*args`` if the verb has them (a flag named after ``*args`` adds a comma list), else it is an error;
- ``--help`` / ``-h`` anywhere (or after ``--``) asks for fire's help of the verb.

Constraints the annotations cannot express are declared, never coded into the verbs: either as
metadata of an ``Annotated`` type (``limit: Annotated[int | None, at_least(0)]``) or in a table
``{verb or "*": {parameter: check}}`` passed to :func:`parse_command_line` (see ``cli.CONSTRAINTS``).
A check is any callable that takes the converted value and raises ``ValueError`` with what it
expected; :func:`at_least`, :func:`folder`, :func:`existing_folder` (an input folder: a missing one is "no such
folder") and :func:`file` (and their ``_or_default`` variants, which let "" through) cover the common cases.
"""

from __future__ import annotations

import inspect
import keyword
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError, did_you_mean

Check = Callable[[Any], None]
"""A constraint on a converted value: returns nothing, raises ``ValueError("expected ...")``."""

Constraints = Mapping[str, Mapping[str, Check | Sequence[Check]]]
"""``{verb or "*": {parameter name: check or checks}}``; "*" applies to every verb with that parameter."""

HELP_FLAGS = ("--help", "-h")
TRUE_WORDS = ("true", "yes", "1")
FALSE_WORDS = ("false", "no", "0")
NONE_WORDS = ("none", "null")
MAX_INT_DIGITS = 100


class CommandLineError(DecisionPivotError):
    """A command line the verb cannot take; ``usage`` is the verb's usage text (printed after the message)."""

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


# ------------------------------------------------------------------------------------- constraints


def at_least(minimum: int | float) -> Check:
    """A number of at least ``minimum`` (None, the "not given" of an optional parameter, passes)."""

    def check(value: Any) -> None:
        if value is not None and value < minimum:
            raise ValueError(f"expected a number >= {minimum}, got {value}")

    check.__doc__ = f">= {minimum}"
    return check


def _nearest_existing(path: Path) -> Path:
    current = path
    while True:
        try:
            if current.exists() or current.is_symlink():
                return current
        except OSError:
            pass
        if current.parent == current:
            return current
        current = current.parent


def _path_problem(value: Any, want_folder: bool) -> str | None:
    if _blank(value):
        return None
    path = Path(str(value))
    try:
        if path.exists():
            if want_folder and not path.is_dir():
                return f"expected a folder, but {path} is not a folder"
            if not want_folder and path.is_dir():
                return f"expected a file, but {path} is a folder"
            return None
        anchor = _nearest_existing(path.parent if path.parent != path else path)
        if anchor.exists() and not anchor.is_dir():
            return f"cannot use {path}: {anchor} is not a folder"
    except OSError as exc:
        return f"cannot use {path}: {exc.strerror or exc}"
    return None


def _blank(value: Any) -> bool:
    return value is None or value is False or (isinstance(value, str) and not value.strip())


def folder(value: Any) -> None:
    """A folder path, not empty: an existing non-folder, or a path below something that is not a folder, fails."""
    if _blank(value) and value is not None:
        raise ValueError("expected a folder, got an empty path (it would mean the current folder)")
    folder_or_default(value)


def folder_or_default(value: Any) -> None:
    """Like :func:`folder`, but "" passes (for parameters where empty means "the default" or "none")."""
    problem = _path_problem(value, want_folder=True)
    if problem:
        raise ValueError(problem)


def existing_folder(value: Any) -> None:
    """A folder that must already be there (an input: items, answers, reports): a missing one is "no such folder"."""
    folder(value)
    existing_folder_or_default(value)


def existing_folder_or_default(value: Any) -> None:
    """Like :func:`existing_folder`, but "" passes (for parameters where empty means "the default" or "none")."""
    folder_or_default(value)
    if _blank(value):
        return
    path = Path(str(value))
    try:
        missing = not path.exists()
    except OSError as exc:
        raise ValueError(f"cannot use {path}: {exc.strerror or exc}") from None
    if missing:
        raise ValueError(f"no such folder: {path}")


def file(value: Any) -> None:
    """A file path, not empty: an existing folder, or a path below something that is not a folder, fails."""
    if _blank(value) and value is not None:
        raise ValueError("expected a file, got an empty path")
    file_or_default(value)


def file_or_default(value: Any) -> None:
    """Like :func:`file`, but "" passes (for parameters where empty means "the default" or "none")."""
    problem = _path_problem(value, want_folder=False)
    if problem:
        raise ValueError(problem)


# --------------------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Kind:
    """How one annotation reads text: its converter, its word for messages and its usage placeholder."""

    name: str
    metavar: str
    expected: str
    convert: Callable[[str], Any]
    boolean: bool = False
    listing: bool = False


def _to_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError


def _to_int(text: str) -> int:
    stripped = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", stripped) or len(stripped.lstrip("+-")) > MAX_INT_DIGITS:
        raise ValueError
    return int(stripped)


def _to_float(text: str) -> float:
    stripped = text.strip()
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", stripped):
        raise ValueError
    value = float(stripped)
    if not math.isfinite(value):
        raise ValueError
    return value


def _to_list(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError
    return names


BOOL = Kind("bool", "", "true or false (also yes/no, 1/0)", _to_bool, boolean=True)
INT = Kind("int", "INT", "an integer", _to_int)
FLOAT = Kind("float", "NUMBER", "a number", _to_float)
TEXT = Kind("str", "TEXT", "text", str)
PATH = Kind("path", "PATH", "a path", Path)
LIST = Kind("list", "A,B,...", "a comma-separated list of at least one name", _to_list, listing=True)


def _choice(values: tuple[Any, ...]) -> Kind:
    shown = ", ".join(str(v) for v in values)

    def convert(text: str) -> Any:
        for value in values:
            if text == str(value):
                return value
        raise ValueError

    return Kind("choice", "{" + "|".join(str(v) for v in values) + "}", f"one of {shown}", convert)


@dataclass(frozen=True)
class Parameter:
    """One parameter of a verb as the command line sees it."""

    name: str
    kind: Kind
    default: Any = inspect.Parameter.empty
    nullable: bool = False
    varargs: bool = False
    checks: tuple[Check, ...] = ()
    positional: bool = True
    """May be given by position (False for keyword-only parameters, after ``*args``)."""

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty and not self.varargs

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def negatable(self) -> bool:
        return self.kind.boolean or self.nullable

    def convert(self, text: str) -> Any:
        none_word = self.nullable and self.kind in (INT, FLOAT)  # "none" may be a file or family name
        if none_word and text.strip().lower() in NONE_WORDS:
            return None
        try:
            return self.kind.convert(text)
        except (ValueError, OverflowError):
            alternative = " or none" if none_word else ""
            raise ValueError(f"expected {self.kind.expected}{alternative}, got {_shown(text)}") from None

    def usage(self) -> str:
        placeholder = self.kind.metavar or self.name.upper()
        if self.varargs:
            return f"[{self.name.upper()} ...]"
        if self.required:
            return self.name.upper() if self.positional else f"{self.flag} {placeholder}"
        if self.kind.boolean:
            return f"[--[no]{self.name.replace('_', '-')}]"
        return f"[{self.flag} {placeholder}]"


def _shown(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "...'"


def _kind_of(annotation: Any, where: str) -> tuple[Kind, bool, tuple[Check, ...]]:
    """(kind, accepts None, checks) for a resolved annotation; TypeError for annotations the CLI cannot read."""
    checks: tuple[Check, ...] = ()
    if typing.get_origin(annotation) is typing.Annotated:
        base, *metadata = typing.get_args(annotation)
        kind, nullable, inner = _kind_of(base, where)
        return kind, nullable, inner + tuple(m for m in metadata if callable(m))
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = list(typing.get_args(annotation))
        nullable = type(None) in members
        members = [m for m in members if m is not type(None)]
        if any(_is_sequence(m) for m in members) and all(m is str or _is_sequence(m) for m in members):
            return LIST, nullable, checks
        if len(members) == 1:
            kind, _, inner = _kind_of(members[0], where)
            return kind, nullable, inner
        if set(members) == {str, bool}:
            return TEXT, True, checks  # text, or --noflag for "none"
        raise TypeError(f"{where}: the command line cannot read the annotation {annotation!r}")
    if origin is typing.Literal:
        return _choice(typing.get_args(annotation)), False, checks
    if _is_sequence(annotation):
        return LIST, False, checks
    simple = {bool: BOOL, int: INT, float: FLOAT, str: TEXT, Path: PATH}
    if annotation in simple:
        return simple[annotation], False, checks
    raise TypeError(f"{where}: the command line cannot read the annotation {annotation!r}")


def _is_sequence(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, Sequence, typing.Sequence) or annotation in (list, tuple):
        args = typing.get_args(annotation)
        return all(a in (str, Ellipsis) for a in args)
    return False


def verb_parameters(method: Callable[..., Any], verb: str, constraints: Constraints | None = None) -> list[Parameter]:
    """The command-line parameters of one verb, from its signature, annotations and the constraints table."""
    hints = typing.get_type_hints(method, include_extras=True)
    table = constraints or {}
    found = []
    for p in inspect.signature(method).parameters.values():
        if p.name == "self" or p.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        annotation = hints.get(p.name, str)
        kind, nullable, checks = _kind_of(annotation, f"dp {verb} --{p.name}")
        varargs = p.kind is inspect.Parameter.VAR_POSITIONAL
        if p.default is None:
            nullable = True
        entry = table.get(verb, {}).get(p.name, table.get("*", {}).get(p.name))  # the verb's own entry wins
        declared: list[Check] = list(entry) if isinstance(entry, Sequence) else [entry] if entry is not None else []
        found.append(Parameter(p.name, kind, p.default, nullable, varargs, checks + tuple(declared),
                               positional=p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD))
    return found


def verb_name(method: str) -> str:
    """The verb of a method: its name, or a Python keyword for a method named after it plus ``_`` (``import_``)."""
    return method[:-1] if method.endswith("_") and keyword.iskeyword(method[:-1]) else method


def method_name(verb: str) -> str:
    """The method of a verb: ``import`` is the method ``import_`` (a keyword cannot name a method)."""
    return verb + "_" if keyword.iskeyword(verb) else verb


def verbs(component: type) -> dict[str, Callable[..., Any]]:
    """The public methods of the command class by verb (``import_`` is the verb ``import``)."""
    return {verb_name(name): member for name, member in inspect.getmembers(component, inspect.isfunction)
            if not name.startswith("_")}


def usage(verb: str, parameters: Iterable[Parameter], program: str = "dp") -> str:
    parts = [program, verb, *(p.usage() for p in parameters)]
    return "usage: " + " ".join(parts) + f"\n       (`{program} {verb} --help` explains every argument)"


# -------------------------------------------------------------------------------------------- parse


@dataclass
class Invocation:
    """A checked command line: call ``getattr(instance, method_name(verb))(*args, **kwargs)``, or show help."""

    verb: str | None
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    help: bool = False


def _is_flag(token: str) -> bool:
    return token.startswith("--") or re.match(r"^-[A-Za-z]", token) is not None


def parse_command_line(component: type, argv: Sequence[str], constraints: Constraints | None = None,
                       program: str = "dp") -> Invocation:
    """Check ``argv`` (without the program name) against ``component``'s verbs; raises CommandLineError."""
    argv = list(argv)
    table = verbs(component)
    overview = f"usage: {program} COMMAND [ARGS]  (commands: {', '.join(sorted(table))}; `{program} --help` explains)"
    bad = next((a for a in argv if "\x00" in a), None)
    if bad is not None:
        raise CommandLineError(f"argument {_shown(bad)} contains a NUL character", overview)
    if not argv or argv[0] in HELP_FLAGS or (argv[0] == "--" and set(argv[1:]) <= set(HELP_FLAGS)):
        return Invocation(None, help=True)
    verb = argv[0]
    if verb not in table:
        what = "option" if verb.startswith("-") else "command"
        raise CommandLineError(f"unknown {what} {_shown(verb)}{did_you_mean(verb, table)}", overview)
    parameters = verb_parameters(table[verb], verb, constraints)
    text = usage(verb, parameters, program)
    rest = argv[1:]
    if "--" in rest:
        cut = rest.index("--")
        after = rest[cut + 1:]
        if after and set(after) <= set(HELP_FLAGS):
            return Invocation(verb, help=True)
        raise CommandLineError(f"{program} {verb}: only --help may follow '--' (found {' '.join(after) or 'nothing'})",
                               text)
    if any(a in HELP_FLAGS for a in rest):
        return Invocation(verb, help=True)
    return _bind(verb, parameters, rest, text, program)


def _fail(program: str, verb: str, message: str, text: str) -> CommandLineError:
    return CommandLineError(f"{program} {verb}: {message}", text)


def _resolve(key: str, by_name: dict[str, Parameter], single_dash: bool) -> tuple[Parameter, bool] | None:
    """(parameter, negated) for a flag name without dashes, or None."""
    name = key.replace("-", "_")
    if name in by_name:
        return by_name[name], False
    for prefix in ("no_", "no"):
        if name.startswith(prefix) and name[len(prefix):] in by_name and by_name[name[len(prefix):]].negatable:
            return by_name[name[len(prefix):]], True
    if single_dash and len(name) == 1:
        matches = [p for p in by_name.values() if p.name[0] == name]
        if len(matches) == 1:
            return matches[0], False
    return None


def _bind(verb: str, parameters: list[Parameter], rest: list[str], text: str, program: str) -> Invocation:
    by_name = {p.name: p for p in parameters}
    given: dict[str, Any] = {}
    extra: list[str] = []
    positionals: list[str] = []
    varargs = next((p for p in parameters if p.varargs), None)
    i = 0
    while i < len(rest):
        token = rest[i]
        i += 1
        if not _is_flag(token):
            positionals.append(token)
            continue
        key, has_value, value = token.lstrip("-").partition("=")
        if not key:
            raise _fail(program, verb, f"cannot read {_shown(token)} (flags look like --name VALUE)", text)
        if len(key) == 1 and not token.startswith("--"):
            ambiguous = [p.flag for p in parameters if p.name[0] == key]
            if len(ambiguous) > 1:
                raise _fail(program, verb, f"-{key} is ambiguous: {', '.join(ambiguous)}", text)
        found = _resolve(key, by_name, single_dash=not token.startswith("--"))
        if found is None:
            flags = [p.flag for p in parameters] + [f"--no{p.name}" for p in parameters if p.negatable]
            known = ", ".join(p.flag for p in parameters if not p.varargs) or "none"
            raise _fail(program, verb, f"unknown flag {_shown(token.split('=', 1)[0])}"
                                       f"{did_you_mean('--' + key.replace('_', '-'), flags)} (flags: {known})", text)
        parameter, negated = found
        if parameter.name in given and not parameter.varargs:
            raise _fail(program, verb, f"{parameter.flag} is given twice", text)
        if negated:
            if has_value:
                raise _fail(program, verb, f"--no{parameter.name.replace('_', '-')} takes no value", text)
            given[parameter.name] = False if parameter.kind.boolean else None
            continue
        if not has_value:
            following = rest[i] if i < len(rest) else None
            if parameter.kind.boolean:
                if following is not None and not _is_flag(following) and \
                        following.strip().lower() in TRUE_WORDS + FALSE_WORDS:
                    value, i = following, i + 1
                elif following is not None and not _is_flag(following):
                    raise _fail(program, verb, f"{parameter.flag}: expected {BOOL.expected}, got {_shown(following)} "
                                               f"(or give {parameter.flag} alone for true)", text)
                else:
                    value = "true"
            elif following is None or _is_flag(following):
                raise _fail(program, verb, f"{parameter.flag} needs a value ({parameter.kind.expected}); "
                                           f"write {parameter.flag}=VALUE for a value that starts with '-'", text)
            else:
                value, i = following, i + 1
        if parameter.varargs:  # --train a,b: a comma list added to *train
            try:
                extra.extend(parameter.convert(name) for name in _to_list(value))
            except ValueError as exc:
                problem = str(exc) or f"expected {LIST.expected}"
                raise _fail(program, verb, f"{parameter.flag}: {problem}", text) from None
            continue
        given[parameter.name] = _convert(program, verb, parameter, value, text)
    open_slots = [p for p in parameters if p.positional and p.name not in given]
    for parameter in open_slots:
        if not positionals:
            break
        given[parameter.name] = _convert(program, verb, parameter, positionals.pop(0), text,
                                         label=parameter.name.upper())
    if positionals:
        if varargs is None:
            raise _fail(program, verb, f"too many arguments: {' '.join(_shown(p) for p in positionals)}", text)
        for value in positionals:
            extra.append(_convert(program, verb, varargs, value, text, label=varargs.name.upper()))
    missing = [p for p in parameters if p.required and p.name not in given]
    if missing:
        names = ", ".join(f"{p.name.upper()} ({p.flag})" for p in missing)
        raise _fail(program, verb, f"missing required argument{'s' if len(missing) > 1 else ''} {names}", text)
    for parameter in parameters:
        values = extra if parameter.varargs else [given.get(parameter.name, parameter.default)]
        if not parameter.varargs and parameter.name not in given:
            continue  # defaults are the verb's own business
        for value in values:
            for check in parameter.checks:
                try:
                    check(value)
                except (ValueError, DecisionPivotError) as exc:
                    label = parameter.name.upper() if parameter.varargs else parameter.flag
                    raise _fail(program, verb, f"{label}: {exc}", text) from None
    kwargs = {name: value for name, value in given.items() if not by_name[name].varargs}
    if not extra:
        return Invocation(verb, [], kwargs)
    args: list[Any] = []
    for parameter in parameters:
        if parameter.varargs:
            break
        args.append(kwargs.pop(parameter.name, parameter.default))
    return Invocation(verb, args + extra, kwargs)


def _convert(program: str, verb: str, parameter: Parameter, value: str, text: str, label: str | None = None) -> Any:
    try:
        return parameter.convert(value)
    except ValueError as exc:
        raise _fail(program, verb, f"{label or parameter.flag}: {exc}", text) from None
