"""Writing a run that a harness made as ``dp evaluate`` writes one: ``runs/<system>/<task>.jsonl`` + ``.meta.json``.

An imported system is recorded with the meta fields ``dp evaluate`` writes (through the same
:class:`~decisionpivot.evaluate.answers.AnswerWriter`: lock, atomic meta, resume rules), its ``kind``
being the harness (``inspect``, ``lm-eval``), its ``readout`` the native kind's whose reading it shares,
its ``identity`` the harness settings that change answers (so the ``fingerprint`` refuses mixing two
configurations in one answer file, as a resumed ``dp evaluate`` does), and a ``harness`` block with the
harness, its version, the model and the log's own identifiers. ``dp score``, ``dp stability`` and the
report read these files like any other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import AnswerWriter, answer_paths
from decisionpivot.evaluate.kinds import Record
from decisionpivot.evaluate.run import COVERAGE
from decisionpivot.evaluate.systems import SystemConfig, validate_system_name
from decisionpivot.harness.release_items import ReleaseTask
from decisionpivot.redact import redact_data

SECRET_WORDS = ("key", "token", "secret", "password", "auth")
"""Model arguments whose name holds one of these are never recorded (a harness may take credentials there)."""


def without_secrets(settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` without the entries whose name suggests a credential, secrets in the rest redacted."""
    return redact_data({k: v for k, v in settings.items() if not any(word in str(k).lower() for word in SECRET_WORDS)})


@dataclass(frozen=True)
class ImportedSystem:
    """A system whose answers come from a harness log; it offers what an answer file's meta records of a system."""

    name: str
    """System name (the folder under runs/)."""
    kind: str
    """The harness: ``inspect`` or ``lm-eval``."""
    readout: str
    """How the answers were read, named as the native kind that reads them the same way (``chat/verbalised``)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The harness settings that change the answers (model, sampling, prompt variant...)."""

    def public(self) -> dict[str, Any]:
        """The config as recorded in the meta file."""
        return {"name": self.name, "kind": self.kind, **self.settings}

    def identity(self) -> dict[str, Any]:
        """The settings that change the answers, with the harness."""
        return {"kind": self.kind, **self.settings}

    fingerprint = SystemConfig.fingerprint
    """SHA-256 of :meth:`identity` as canonical JSON, computed as for a declared system."""


@dataclass(frozen=True)
class ImportedTask:
    """What one import wrote for one task."""

    task: str
    """Task (family) name."""
    items: int
    """Items of the task."""
    in_log: int
    """Records the log holds for the task."""
    already: int
    """Of those, ids the answer file held already (kept: an earlier import of the same system)."""
    answers: int
    """Records with probabilities now in the answer file."""
    errors: int
    """Error records now in the answer file (final and transient)."""
    transient: int
    """Of those, transient errors (samples the harness could not finish): missing for ``dp score``."""
    path: Path
    """Answer file written."""

    @property
    def covered(self) -> bool:
        """Records other than transient errors cover the share of the items ``dp score`` needs."""
        return COVERAGE[1] * (self.answers + self.errors - self.transient) >= COVERAGE[0] * self.items


def _previous_logs(meta_path: Path) -> list[dict[str, Any]]:
    """The logs an earlier import into this answer file came from (none when it holds no import)."""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    logs = (meta.get("harness") or {}).get("logs") if isinstance(meta, dict) else None
    return [entry for entry in logs if isinstance(entry, dict)] if isinstance(logs, list) else []


def write_imported(system: ImportedSystem, runs_dir: Path, tasks: Mapping[str, ReleaseTask],
                   records: Mapping[str, Sequence[Record]], harness: dict[str, Any], log: dict[str, Any],
                   restart: bool = False) -> list[ImportedTask]:
    """Write each task's records (already checked against the release) in item order; returns what was written.

    ``harness`` (name, version, model...) and ``log`` (the log's file and identifiers) go into the meta's
    ``harness`` block; ``log`` is appended to the logs of an earlier import into the same answer file.
    """
    validate_system_name(system.name)
    if not any(records.values()):
        raise DecisionPivotError("the log holds no samples of DecisionPivot items; nothing to import")
    written = []
    for task, task_records in records.items():
        if not task_records:
            continue
        release = tasks[task]
        answers_path, meta_path = answer_paths(runs_dir, system.name, task)
        logs = [] if restart else _previous_logs(meta_path)
        extra = {"items_check": release.check, "allow_modified_items": False, "permutation": None,
                 "harness": redact_data({**harness, "logs": [*logs, log]})}
        writer, done = AnswerWriter.open(answers_path, meta_path, task=task, items_file=release.path,
                                         items_sha256=release.sha256, system=system, shard=None, restart=restart,
                                         extra_meta=extra)
        finished = False
        try:
            by_id = {r["id"]: r for r in task_records}
            for item in release.items:
                record = by_id.get(item.id)
                if record is not None and item.id not in done:
                    writer.write(record)
            finished = True
        finally:
            writer.close(items=len(release.items), retries=0, finished=finished)
        written.append(ImportedTask(task, len(release.items), len(task_records), len(done & set(by_id)),
                                    writer.meta["answers"], writer.meta["errors"], writer.transient, answers_path))
    return written
