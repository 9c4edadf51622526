"""Provenance flags: does a system's public training documentation name a reference task's source?

The paper filtered overlap for its own models only; for other models it records, per reference task,
whether the model's public training documentation names the task's source or a related data family,
marking missing or inconclusive information as unknown (Appendix C). These are source-level flags
for context, not item-level proof of exposure or of its absence.

One file per evaluated system, ``provenance/<system>.yaml`` in the folder that holds the ``runs``
folder (so ``dp score --runs runs`` reads ``provenance/``)::

    documents:                        # optional: the documents read, cited below by their key
      card: "https://example.org/model-x/card (2026-09-01), section Training data"
    tasks:                            # reference task -> what the documents say; tasks not listed: unknown
      toxigen_annotated: {named: yes, document: card, note: "lists ToxiGen among its safety data"}
      hatecheck: {named: no, document: card, note: "lists its safety data; HateCheck is not among them"}
      rewardbench: {named: unknown, document: card, note: "only 'public preference data'"}

``named`` is ``yes``, ``no`` or ``unknown``; ``yes`` and ``no`` need the ``document`` they came from
(a key of ``documents`` or the citation itself): nothing is ever inferred, unknown is the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from decisionpivot.errors import DecisionPivotError, did_you_mean

YES, NO, UNKNOWN = "yes", "no", "unknown"
ANSWERS = (YES, NO, UNKNOWN)
FOLDER = "provenance"
"""The folder name, next to the runs folder."""
_TASK_KEYS = ("named", "document", "note")


@dataclass(frozen=True)
class TaskProvenance:
    """What one system's training documentation says about one reference task's source."""

    system: str
    """Evaluated system."""
    task: str
    """Reference task."""
    named: str
    """``yes``, ``no`` or ``unknown``: does the documentation name the task's source or a related data family?"""
    document: str
    """The document it came from (empty for an unlisted task)."""
    note: str
    """What the document says, in brief (may be empty)."""
    file: str
    """The provenance file."""


def provenance_folder(runs: str | Path) -> Path:
    """Where the provenance files of the systems in ``runs`` are: ``provenance/`` beside the runs folder."""
    return Path(runs).resolve().parent / FOLDER


def _known_tasks() -> list[str]:
    from decisionpivot.reconstruct.card import all_cards

    return sorted(all_cards())


def _sources() -> dict[str, str]:
    from decisionpivot.reconstruct.card import all_cards

    return {name: card.title for name, card in all_cards().items()}


def _fail(path: Path, node: yaml.Node | None, message: str) -> DecisionPivotError:
    line = f":{node.start_mark.line + 1}" if node is not None else ""
    return DecisionPivotError(f"{path}{line}: {message}")


def _mapping(path: Path, node: yaml.Node, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise _fail(path, node, f"{what} must be a mapping")
    found: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode):
            raise _fail(path, key, f"{what}: keys must be names")
        if key.value in found:
            raise _fail(path, key, f"{what}: {key.value!r} is given twice")
        found[key.value] = (key, value)
    return found


def _text(path: Path, node: yaml.Node, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode) or not str(node.value).strip():
        raise _fail(path, node, f"{what} must be a non-empty text")
    return str(node.value).strip()


def read_file(path: Path, system: str, tasks: Sequence[str]) -> list[TaskProvenance]:
    """The record of every task in ``tasks`` for one system's provenance file (unlisted tasks: unknown)."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DecisionPivotError(f"{path}: cannot read the provenance file ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise DecisionPivotError(f"{path}{line}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    top = _mapping(path, root, "the file") if root is not None else {}
    for key, (node, _) in top.items():
        if key not in ("system", "documents", "tasks"):
            raise _fail(path, node, f"unknown key {key!r} (expected system, documents, tasks)")
    if "system" in top and _text(path, top["system"][1], "system") != system:
        raise _fail(path, top["system"][1], f"system {top['system'][1].value!r} does not match the file name "
                                            f"({system}.yaml)")
    documents = {key: _text(path, value, f"documents.{key}")
                 for key, (_, value) in (_mapping(path, top["documents"][1], "documents").items()
                                         if "documents" in top else [])}
    listed: dict[str, TaskProvenance] = {}
    entries = _mapping(path, top["tasks"][1], "tasks") if "tasks" in top else {}
    for task, (key, value) in entries.items():
        if task not in tasks:
            raise _fail(path, key, f"tasks: {task!r} is not a reference task{did_you_mean(task, tasks)}")
        if isinstance(value, yaml.ScalarNode):
            fields = {"named": (key, value)}
        else:
            fields = _mapping(path, value, f"tasks.{task}")
        for name, (node, _) in fields.items():
            if name not in _TASK_KEYS:
                raise _fail(path, node, f"tasks.{task}: unknown key {name!r} (expected {', '.join(_TASK_KEYS)})")
        if "named" not in fields:
            raise _fail(path, value, f"tasks.{task}: say named: yes, no or unknown")
        named = _text(path, fields["named"][1], f"tasks.{task}.named").lower()
        if named not in ANSWERS:
            raise _fail(path, fields["named"][1], f"tasks.{task}.named: expected yes, no or unknown, got {named!r}")
        document = _text(path, fields["document"][1], f"tasks.{task}.document") if "document" in fields else ""
        if named != UNKNOWN and not document:
            raise _fail(path, value, f"tasks.{task}: {named!r} needs the document it came from (document: ...); "
                                     "without one the answer is unknown")
        note = _text(path, fields["note"][1], f"tasks.{task}.note") if "note" in fields else ""
        listed[task] = TaskProvenance(system, task, named, documents.get(document, document), note, str(path))
    return [listed.get(task, TaskProvenance(system, task, UNKNOWN, "", "", str(path))) for task in tasks]


def read_provenance(folder: str | Path, systems: Sequence[str],
                    tasks: Sequence[str] | None = None) -> tuple[TaskProvenance, ...]:
    """Every record of the systems that have a file ``<folder>/<system>.yaml`` (the others: none, i.e. all
    unknown). ``tasks``: the reference tasks (default: every task card)."""
    folder = Path(folder)
    if not folder.is_dir():
        return ()
    names = list(tasks) if tasks is not None else _known_tasks()
    records: list[TaskProvenance] = []
    for system in systems:
        path = folder / f"{system}.yaml"
        if path.is_file():
            records += read_file(path, system, names)
    return tuple(records)


def provenance_notes(records: Sequence[TaskProvenance], system: str) -> list[str]:
    """The leaderboard note of a system: how many task sources its training documentation names."""
    own = [r for r in records if r.system == system]
    if not own:
        return []
    counts = {answer: sum(r.named == answer for r in own) for answer in ANSWERS}
    return [f"training docs name {counts[YES]} of {len(own)} reference task sources ({counts[NO]} no, "
            f"{counts[UNKNOWN]} unknown; provenance.md)"]


def provenance_footnote() -> str:
    """The leaderboard footnote explaining the provenance notes."""
    return ("Training docs: whether a system's public training documentation names a reference task's source or a "
            "related data family (provenance/<system>.yaml; unknown unless a cited document says yes or no); "
            "source-level context as in the paper's Appendix C, not item-level proof of exposure or of its absence. "
            "dp overlap filters items found in training files one has.")


def provenance_markdown(records: Sequence[TaskProvenance], systems: Sequence[str]) -> str:
    """The provenance table: one row per reference task, one column per system with a provenance file."""
    with_file = [s for s in systems if any(r.system == s for r in records)]
    without = [s for s in systems if s not in with_file]
    tasks = list(dict.fromkeys(r.task for r in records))
    by_key = {(r.system, r.task): r for r in records}
    text = ("# Training-data provenance\n\nDoes the public training documentation of each system name the "
            "reference task's source or a related data family? yes / no / unknown, from the cited document "
            "(provenance/<system>.yaml); unknown where the documentation is missing or inconclusive. Source-level "
            "flags for context, not item-level proof of exposure or of its absence (paper, Appendix C).\n\n")
    if with_file:
        sources = _sources()
        text += "| Task | Source | " + " | ".join(with_file) + " |\n|---|---|" + "---|" * len(with_file) + "\n"
        for task in tasks:
            cells = [by_key[(s, task)].named for s in with_file]
            text += f"| {task} | {sources.get(task, '')} | " + " | ".join(cells) + " |\n"
        text += "\n## Documents\n\n"
        for record in records:
            if record.named != UNKNOWN or record.document:
                note = f": {record.note}" if record.note else ""
                text += f"- {record.system} / {record.task}: {record.named} - {record.document}{note}\n"
    if without:
        text += f"\nNo provenance file (every task unknown): {', '.join(without)}.\n"
    return text
