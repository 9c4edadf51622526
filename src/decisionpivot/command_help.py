"""What ``dp --help`` and ``dp VERB --help`` print: every verb, and every argument as it is typed.

Written from the same signatures :mod:`decisionpivot.command_line` checks, and from each verb's
docstring (Google style: a summary line, paragraphs, an ``Args:`` section of ``name: text`` entries
whose continuation lines are indented further). Flags are shown as typed (``--retry-errors``), with
their kind (``INT``, ``A,B,...``, ``--flag / --noflag``) and default; the text of an argument is read
whole, colons included (fire's help cut "partial: ... ("partial, not comparable": for ..." at the
second colon and took "their" for an argument).
"""

from __future__ import annotations

import inspect
import re
import shutil
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from decisionpivot.command_line import Constraints, Parameter, usage, verb_name, verb_parameters


@dataclass(frozen=True)
class Docstring:
    """A verb's docstring, split."""

    summary: str
    """The first line."""
    body: tuple[str, ...]
    """Paragraphs between the summary and ``Args:`` (each joined into one line, lists kept as lines)."""
    args: dict[str, str]
    """Argument name -> its whole text, continuation lines joined."""


def parse_docstring(doc: str | None) -> Docstring:
    """Split a Google-style docstring; an ``Args:`` entry is ``name: text`` at the section's first indent."""
    lines = inspect.cleandoc(doc or "").splitlines()
    first = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    summary = " ".join(line.strip() for line in lines[:first])  # the summary may wrap over several lines
    rest = lines[first:]
    cut = next((i for i, line in enumerate(rest) if line.strip() == "Args:"), len(rest))
    body: list[str] = []
    for block in "\n".join(rest[:cut]).strip().split("\n\n"):
        if block.strip():
            body.append(block.strip())
    args: dict[str, str] = {}
    entries = [line for line in rest[cut + 1:] if line.strip()]
    if entries:
        indent = len(entries[0]) - len(entries[0].lstrip())
        name = None
        for line in entries:
            depth = len(line) - len(line.lstrip())
            entry = re.match(r"\*{0,2}([A-Za-z_][A-Za-z0-9_]*):\s*(.*)$", line.strip())
            if depth == indent and entry:
                name = entry.group(1)
                args[name] = entry.group(2)
            elif depth < indent:
                break
            elif name is not None:
                args[name] = f"{args[name]} {line.strip()}".strip()
    return Docstring(summary, tuple(body), args)


def _fill(text: str, width: int, **indents: str) -> str:
    """Wrap at spaces only: flags such as --allow-modified-items and paths are never broken."""
    return textwrap.fill(text, width, break_on_hyphens=False, break_long_words=False, **indents)


def _width() -> int:
    return max(60, min(110, shutil.get_terminal_size((100, 24)).columns))


def _default(parameter: Parameter) -> str:
    value = parameter.default
    if parameter.required or parameter.varargs:
        return "required" if parameter.required else ""
    if parameter.kind.boolean:
        return f"default: {'yes' if value else 'no'}"
    if value is None or value == "":
        return ""
    return f"default: {value}"


def _flag(parameter: Parameter) -> str:
    """How the argument is typed: ``NAME``, ``NAME ...``, ``--flag / --noflag`` or ``--flag KIND``."""
    if parameter.varargs:
        return f"{parameter.name.upper()} ..."
    if parameter.kind.boolean:
        return f"{parameter.flag} / --no{parameter.name.replace('_', '-')}"
    if parameter.required and parameter.positional:
        return parameter.name.upper()
    return f"{parameter.flag} {parameter.kind.metavar or parameter.name.upper()}"


def verb_help(verb: str, method: Callable[..., Any], constraints: Constraints | None = None,
              program: str = "dp") -> str:
    """The whole help of one verb."""
    parameters = verb_parameters(method, verb, constraints)
    doc = parse_docstring(method.__doc__)
    width = _width()
    out = [usage(verb, parameters, program).splitlines()[0], "", doc.summary]
    for paragraph in doc.body:
        out.append("")
        if paragraph.lstrip().startswith(("-", "*")) or "\n  " in paragraph:
            out.append(paragraph)
        else:
            out.append(_fill(" ".join(paragraph.split()), width))
    if parameters:
        out += ["", "Arguments:"]
        for parameter in parameters:
            default = _default(parameter)
            text = " ".join(part for part in (doc.args.get(parameter.name, ""), f"({default})" if default else "")
                            if part)
            out.append(f"  {_flag(parameter)}")
            out.append(_fill(text, width, initial_indent="      ", subsequent_indent="      "))
    return "\n".join(out).rstrip() + "\n"


def verb_order(component: type, verbs: dict[str, Callable[..., Any]]) -> list[str]:
    """The verbs in the order the class and its verb groups (its bases, first to last) declare them: the order of
    ``dp --help`` and of the documentation site's CLI reference."""
    classes = [*component.__mro__[1:-1], component]  # the verb groups in the order DP lists them, then DP's own
    declared = [name for cls in classes for name in vars(cls)]
    return list(dict.fromkeys(verb_name(name) for name in declared if verb_name(name) in verbs))


def overview(component: type, verbs: dict[str, Callable[..., Any]], program: str = "dp") -> str:
    """``dp --help``: what the program is and every verb with its summary, in the order the class and its verb
    groups (its bases, first to last) declare them."""
    doc = parse_docstring(component.__doc__)
    order = verb_order(component, verbs)
    width = _width()
    name_width = max(len(name) for name in order) + 2
    lines = [f"{program} - {doc.summary}", "", f"usage: {program} COMMAND [ARGS]   "
             f"(`{program} COMMAND --help` explains a command and every argument)"]
    for paragraph in doc.body:
        lines += ["", _fill(" ".join(paragraph.split()), width)]
    lines += ["", "Commands:"]
    for name in order:
        summary = parse_docstring(verbs[name].__doc__).summary
        lines.append(_fill(summary, width, initial_indent=f"  {name:<{name_width}}",
                           subsequent_indent=" " * (name_width + 2)))
    return "\n".join(lines) + "\n"
