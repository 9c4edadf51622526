"""Answer files: ``runs/<system>/<task>.jsonl`` plus ``<task>.meta.json``, safe against crashes.

Each record is one JSON line, written with a single ``write`` and flushed, so after ``kill -9`` the
file holds complete lines and at most one torn last line. Opening the file again:

* takes an exclusive lock (``<task>.lock``, an ``flock`` the kernel drops when the process dies; the
  file is removed when the run ends), so a second ``dp evaluate`` on the same answer file refuses at
  once, naming the holder;
* drops a torn last line;
* refuses a file holding a record of an id that is not an item of its items file (naming the line): its
  counts would not be counts of the items ("601 of 600 answered");
* refuses a file made for a different items file (both hashes shown) or under a different system
  config (the meta file's ``fingerprint`` of the settings that change answers; both shown) - unless it holds
  transient records only, which are asked again anyway - unless
  ``restart``, which moves the old answers to ``<task>.jsonl.bak`` (``.bak.1``, ``.bak.2``... when that
  exists: a backup is never overwritten) and starts afresh - when the first record that is not transient
  arrives: a restart against a server that is down (only transient failures, or none at all) leaves the
  old answers where they were;
* names the file in every error writing it (a full disk, a quota);
* writes a record only when each of its keys is a field of the answer-file format
  (:data:`~decisionpivot.evaluate.kinds.RECORD_FIELDS`, the allow-list the scorer reads by): what it writes, the
  scorer reads;
* forgets *transient* error records (the server was down, the retry budget ran out) and, with
  ``retry_errors``, every error record - rewriting the file atomically without them - so that they
  are asked again and each id still has exactly one record.

Shards (``--shard i/n``) write ``runs/<system>/shards/<task>.shard-<i>-of-<n>.jsonl``; option-order
runs (``--permute-options K``) write ``runs/<system>/permuted/<task>.perm-<k>.jsonl``.
:func:`merge_shards` folds shards into the task file; :func:`fold_duplicates` repairs a file that
holds an id twice (``dp repair``).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import sys
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot import __version__
from decisionpivot.data_file import read_json_file
from decisionpivot.errors import DecisionPivotError, did_you_mean
from decisionpivot.evaluate.kinds import RECORD_FIELDS, unknown_field
from decisionpivot.items import atomic_write_bytes


class AnswerFileError(DecisionPivotError):
    """An answer file that cannot be resumed or merged as it stands."""


@dataclass(frozen=True)
class Shard:
    """Which part of a task's items a process answers: items whose index % count == index."""

    index: int
    """0-based shard number."""
    count: int
    """Number of shards."""

    @classmethod
    def parse(cls, text: str | None) -> Shard | None:
        if text in (None, ""):
            return None
        try:
            i, n = (int(part) for part in str(text).split("/"))
        except ValueError:
            raise AnswerFileError(f"--shard must look like i/n (e.g. 0/4), got {text!r}") from None
        if not 0 <= i < n:
            raise AnswerFileError(f"--shard {text}: need 0 <= i < n")
        return cls(i, n)

    def suffix(self) -> str:
        return f"shard-{self.index}-of-{self.count}"


def now() -> str:
    """The current UTC time in ISO 8601, or SOURCE_DATE_EPOCH's time when that variable is set.

    SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/) makes the .meta.json
    files byte-reproducible; the DVC pipeline sets it so a fresh clone reproduces the locked hashes.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            return dt.datetime.fromtimestamp(int(epoch), dt.UTC).isoformat()
        except (ValueError, OverflowError, OSError):
            raise AnswerFileError(f"SOURCE_DATE_EPOCH={epoch!r} is not a whole number of seconds") from None
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


TIMINGS = ("latency_s", "queued_s")
"""Record fields that measure wall-clock time."""


def reproducible() -> bool:
    """Whether this run must give the same bytes every time: ``SOURCE_DATE_EPOCH`` is set (the DVC pipeline).

    Then the meta files carry that time, records carry no wall-clock measurement (``latency_s``,
    ``queued_s``) and the meta no adaptive in-flight limit: a reproducible output holds no time.
    """
    return bool(os.environ.get("SOURCE_DATE_EPOCH", "").strip())


def answer_paths(runs: Path, system: str, task: str, shard: Shard | None = None,
                 permutation: int | None = None) -> tuple[Path, Path]:
    """(answers path, meta path) of one system's task, of one shard of it, or of one option order."""
    folder = runs / system
    if permutation is not None:
        folder, task = folder / "permuted", f"{task}.perm-{permutation}"
    stem = folder / "shards" / f"{task}.{shard.suffix()}" if shard is not None else folder / task
    return stem.with_name(stem.name + ".jsonl"), stem.with_name(stem.name + ".meta.json")


def lock_path(answers: Path) -> Path:
    return answers.with_name(answers.name.removesuffix(".jsonl") + ".lock")


class AnswerLock:
    """An exclusive ``flock`` on ``<task>.lock``; released by :meth:`release` or by the process's death.

    :meth:`release` removes the lock file, so a finished run leaves nothing behind. That is safe because a
    lock counts only while its file is still the one at the path: after taking the ``flock`` the holder
    checks the path still names the file it locked, and starts again if a releasing holder removed it
    in between (two processes could otherwise each hold a lock on a different file of the same name).
    """

    def __init__(self, answers: Path) -> None:
        self.path = lock_path(answers)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(self._fd, 4096, 0).decode("utf-8", "replace").strip() or "another process"
                os.close(self._fd)
                raise AnswerFileError(
                    f"{answers}: being written by {holder}; wait for it to finish or stop it "
                    "(two runs appending to one answer file would duplicate ids)"
                ) from None
            try:
                current = os.stat(self.path).st_ino
            except FileNotFoundError:
                current = -1
            if current == os.fstat(self._fd).st_ino:
                break
            os.close(self._fd)  # removed (and maybe re-created) by a holder releasing it: lock the file there now
        verb = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1].isalpha() else ""
        holder = f"pid {os.getpid()} on {socket.gethostname()} since {now()} (dp {verb})".replace(" ()", "")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, holder.encode("utf-8"), 0)

    def release(self) -> None:
        if self._fd >= 0:
            self.path.unlink(missing_ok=True)  # while still locked: a newcomer then locks a new file
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1


def backup_paths(*paths: Path) -> list[Path]:
    """Backup names for ``paths`` that hold nothing yet: ``<name>.bak``, else ``<name>.bak.1``, ``.bak.2``...

    One number for all of them (an answer file and its meta file stay a pair), the first that is free
    for every one: a backup is never overwritten, so a second ``--restart`` (a scheduler's retry, a
    command from the shell history) cannot destroy the answers the first one kept.
    """
    number = 0
    while True:
        suffix = ".bak" if number == 0 else f".bak.{number}"
        candidates = [p.with_name(p.name + suffix) for p in paths]
        if not any(c.exists() or c.is_symlink() for c in candidates):
            return candidates
        number += 1


def keep_as_backup(answers: Path, meta: Path) -> list[Path]:
    """Move an answer file and its meta file aside under fresh backup names; returns the names used.

    An empty answer file holds nothing to keep and is just removed (with its meta file).
    """
    present = [p for p in (answers, meta) if p.exists()]
    if not present:
        return []
    if not answers.exists() or answers.stat().st_size == 0:
        for p in present:
            p.unlink()
        return []
    targets = dict(zip((answers, meta), backup_paths(answers, meta), strict=True))
    for p in present:
        os.replace(p, targets[p])
    return [targets[p] for p in present]


def read_answer_lines(path: Path, *, repair: bool, allow_duplicates: bool = False) -> list[dict[str, Any]]:
    """Records of an answer file. A torn last line (no newline) is dropped, and cut off when ``repair``."""
    if path.is_dir():
        raise AnswerFileError(f"{path}: is a folder, not an answer file")
    if not path.exists():
        return []
    whole = path.read_bytes()
    cut = whole.rfind(b"\n") + 1 if whole and not whole.endswith(b"\n") else len(whole)
    data = whole[:cut]
    records: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise AnswerFileError(f"{path}:{line}: not UTF-8 (byte {exc.start})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerFileError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise AnswerFileError(f"{path}:{number}: expected an object with a string 'id'")
        if record["id"] in seen and not allow_duplicates:
            first = seen[record["id"]]
            raise AnswerFileError(f"{path}:{number}: duplicate id {record['id']!r} (first on line {first}); "
                                  "`dp repair --system NAME` folds duplicates into one record per id")
        seen[record["id"]] = number
        records.append(record)
    if repair and cut < len(whole):  # only once the rest is known to be good: a refused file stays as it was
        cut_torn_line(path)
    return records


def cut_torn_line(path: Path) -> None:
    """Cut an unfinished last line (a write interrupted by a crash) off an answer file."""
    whole = path.read_bytes() if path.exists() else b""
    if whole and not whole.endswith(b"\n"):
        with path.open("r+b") as handle:
            handle.truncate(whole.rfind(b"\n") + 1)


def _identity_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = sorted(set(old) | set(new))
    changed = [f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]
    return "; ".join(changed) or "(settings not recorded)"


def _same_config(old_meta: dict[str, Any], system: Any) -> bool:
    """Whether answers recorded under ``old_meta`` were made under ``system``'s answer-changing settings.

    The fingerprints are equal; or the recorded ``identity`` holds keys that no longer change answers (an
    earlier version counted ``base_url``) and equals the current identity without them.
    """
    if old_meta.get("fingerprint") == system.fingerprint():
        return True
    old = old_meta.get("identity")
    if not isinstance(old, dict):
        return False
    current = system.identity()
    spec = getattr(system, "spec", None)  # an imported harness log's system has no kind spec
    transport = {key for key, setting in spec.settings.items() if not setting.identity} if spec else set()
    answering = {k: v for k, v in old.items() if k not in transport}
    if answering == current:
        return True
    if spec is None:
        return False
    raw = {"kind": system.kind, **{k: v for k, v in system.settings.items() if spec.settings[k].identity}}
    return _recorded_before(answering, raw)


def _recorded_before(old: Any, value: Any) -> bool:
    """Whether ``old`` is ``value`` as earlier versions recorded an identity: every value in clear but the
    secret-named ones, written ``sha256:`` and 16 hex digits of their SHA-256 (``NAME=`` or ``--option=`` kept),
    so an answer file made then resumes under the same settings (its meta is then rewritten as now)."""
    if isinstance(old, dict) and isinstance(value, dict):
        return old.keys() == value.keys() and all(_recorded_before(old[k], value[k]) for k in old)
    if isinstance(old, list) and isinstance(value, list):
        return len(old) == len(value) and all(_recorded_before(a, b) for a, b in zip(old, value, strict=True))
    if isinstance(old, str) and isinstance(value, str) and old != value:
        name, equals, rest = value.partition("=")
        return old == _sha256_16(value) or bool(equals and old == f"{name}={_sha256_16(rest)}")
    return bool(old == value)


def _sha256_16(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]


def _records_bytes(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in records).encode("utf-8")


def is_transient(record: dict[str, Any]) -> bool:
    """An error that says nothing about the system (server down, retries spent): asked again on resume."""
    return "error" in record and record.get("transient") is True


def outcome_of(record: dict[str, Any]) -> str:
    """``answer`` (probabilities or a sampled text), ``transient`` or ``error`` (final)."""
    if "p" in record or "text" in record:
        return "answer"
    return "transient" if is_transient(record) else "error"


_ATTEMPTS = re.compile(r" \((?:gave up after \d+ attempts|retry budget of the task spent)\)$")
_STATUS = re.compile(r"^(?:input restriction: )?HTTP \d{3}\b")


def cause_of(record: dict[str, Any]) -> tuple[str, str]:
    """(what an error record's failures have in common, its reason): the status of an ``HTTP NNN: ...`` error
    (its message may quote the item), else the reason itself, either without how many attempts it took."""
    reason = _ATTEMPTS.sub("", " ".join(str(record.get("error", "")).split()))[:300]
    status = _STATUS.match(reason)
    return (status[0] if status else reason), reason


def _check_ids(path: Path, records: list[dict[str, Any]], item_ids: Collection[str], items_file: Path) -> None:
    """Refuse an answer file holding a record of an id that is not an item of ``items_file``."""
    known = item_ids if isinstance(item_ids, set | frozenset | dict) else set(item_ids)
    for line, record in enumerate(records, start=1):
        if record["id"] not in known:
            raise AnswerFileError(
                f"{path}:{line}: id {record['id']!r} is not an item of {items_file}"
                f"{did_you_mean(record['id'], known)}; an answer file holds records of its items only (its counts are "
                "counts of the items): remove the line, or start the task afresh with --restart")


class AnswerWriter:
    """Append-only writer of one answer file with its metadata, holding the file's lock."""

    def __init__(self, path: Path, meta_path: Path, meta: dict[str, Any], lock: AnswerLock,
                 restarting: bool = False, fields: frozenset[str] = RECORD_FIELDS) -> None:
        self.path = path
        self.meta_path = meta_path
        self.meta = meta
        self.lock = lock
        self.fields = fields
        """The keys a record may hold (:data:`~decisionpivot.evaluate.kinds.RECORD_FIELDS`, the allow-list the scorer
        reads by); :meth:`write` refuses a record with any other."""
        self.transient = 0
        """Transient error records written by this writer (a resumed file starts without any)."""
        self.timeless = reproducible()
        """Records lose their wall-clock fields (see :func:`reproducible`)."""
        self.written = 0
        """Records written by this writer."""
        self.unchanged_meta: dict[str, Any] | None = None
        """The meta file of a finished task, kept unwritten until a record arrives (a no-op re-run changes
        nothing, so ``dvc status`` stays clean)."""
        self.restarting = restarting
        """``restart`` asked, the old answers still in place: they move aside on the first record that is not
        transient (transient ones are held back until then, and dropped if none comes)."""
        self.held_back: list[dict[str, Any]] = []
        """Transient records of a restart that has not begun."""
        self.outcomes: dict[str, str] = {}
        """Item id -> ``answer``, ``error`` or ``transient``: what the file holds for it once this writer is done."""
        self.causes: Counter[tuple[str, str]] = Counter()
        """The errors this writer wrote, by outcome (``transient`` or ``error``) and what they have in common
        (:func:`cause_of`): what a summary points at."""
        self.examples: dict[tuple[str, str], str] = {}
        """A whole reason of each cause (the first written)."""
        self._handle: Any = None if restarting else self._append_handle()

    def _append_handle(self) -> Any:
        try:
            return self.path.open("ab")
        except OSError as exc:
            raise AnswerFileError(f"cannot write {self.path}: {exc.strerror or exc}") from None

    def _begin_restart(self) -> None:
        """Move the old answers aside and start the file afresh (see :attr:`restarting`)."""
        try:
            keep_as_backup(self.path, self.meta_path)
        except OSError as exc:
            raise AnswerFileError(f"cannot move {self.path} aside for --restart: {exc.strerror or exc}") from None
        self.restarting = False
        self._handle = self._append_handle()
        self.save_meta()

    @classmethod
    def open(cls, path: Path, meta_path: Path, *, task: str, items_file: Path, items_sha256: str,
             system: Any, shard: Shard | None, restart: bool = False, retry_errors: bool = False,
             extra_meta: dict[str, Any] | None = None, item_ids: Collection[str] | None = None,
             fields: frozenset[str] = RECORD_FIELDS) -> tuple[AnswerWriter, set[str]]:
        """Open (creating or resuming) and return the writer and the ids already answered.

        ``system`` is a :class:`~decisionpivot.evaluate.systems.SystemConfig`. ``item_ids``: the ids of the items
        file; a record of any other id refuses the file (its counts would not be counts of the items). ``fields``:
        the keys a record may hold (``dp sample``: :data:`~decisionpivot.evaluate.kinds.SAMPLE_FIELDS`).
        """
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise AnswerFileError(f"{path.parent}: cannot create the answers folder ({exc.strerror})") from None
        if path.is_dir():
            raise AnswerFileError(f"{path}: is a folder, not an answer file")
        lock = AnswerLock(path)
        try:
            writer, done = cls._open_locked(path, meta_path, lock, task=task, items_file=items_file,
                                            items_sha256=items_sha256, system=system, shard=shard, restart=restart,
                                            retry_errors=retry_errors, extra_meta=extra_meta or {},
                                            item_ids=item_ids, fields=fields)
        except BaseException:
            lock.release()
            raise
        return writer, done

    @classmethod
    def _open_locked(cls, path: Path, meta_path: Path, lock: AnswerLock, *, task: str, items_file: Path,
                     items_sha256: str, system: Any, shard: Shard | None, restart: bool, retry_errors: bool,
                     extra_meta: dict[str, Any], item_ids: Collection[str] | None,
                     fields: frozenset[str] = RECORD_FIELDS) -> tuple[AnswerWriter, set[str]]:
        # old answers stay until the first record that is not transient (AnswerWriter.restarting)
        deferred = restart and path.is_file() and path.stat().st_size > 0
        if restart and not deferred:
            keep_as_backup(path, meta_path)  # nothing to keep: an empty file and its meta go now
        old_meta: dict[str, Any] = {}
        if deferred:
            pass
        elif meta_path.exists():
            try:
                old_meta = read_json_file(meta_path, "the meta file of these answers", AnswerFileError)
            except AnswerFileError as exc:
                raise AnswerFileError(f"{exc}; start over with --restart (the old answers are kept as .bak)") from None
            if not isinstance(old_meta, dict):
                raise AnswerFileError(f"{meta_path}: not a JSON object; start over with --restart")
        elif path.exists() and path.stat().st_size:
            raise AnswerFileError(f"{path}: answers without {meta_path.name}; cannot tell which items they answer "
                                  "(--restart starts afresh, keeping them as .bak)")
        records = [] if deferred else read_answer_lines(path, repair=False)  # a torn line is cut only on resume
        if item_ids is not None:
            _check_ids(path, records, item_ids, items_file)
        if any(not is_transient(r) for r in records):  # transient records are asked again: nothing to mix
            if old_meta.get("items_sha256") != items_sha256:
                raise AnswerFileError(
                    f"{path}: answers were made for items with SHA-256 {old_meta.get('items_sha256')}, but "
                    f"{items_file} now has SHA-256 {items_sha256}. Start the task afresh with --restart, or use "
                    "another system name to evaluate the changed items."
                )
            recorded = old_meta.get("fingerprint")
            if recorded is not None and not _same_config(old_meta, system):
                raise AnswerFileError(
                    f"{path}: answers were made by system {system.name!r} with another config "
                    f"(fingerprint {str(recorded)[:12]}, now {system.fingerprint()[:12]}: "
                    f"{_identity_difference(old_meta.get('identity') or {}, system.identity())}). "
                    "Resuming would mix two systems' answers: use --restart to start the task afresh, or "
                    "declare the changed config under another system name."
                )
        if not deferred:
            cut_torn_line(path)  # resuming is allowed: now the torn line may go
        forget = [r for r in records if is_transient(r) or (retry_errors and "error" in r)]
        if forget:
            records = [r for r in records if not (is_transient(r) or (retry_errors and "error" in r))]
            atomic_write_bytes(path, _records_bytes(records))
        done = {r["id"] for r in records}
        meta = {
            "task": task,
            "system": system.public(),
            "kind": system.kind,
            "readout": system.readout,
            "fingerprint": system.fingerprint(),
            "identity": system.identity(),
            "items_file": str(items_file),
            "items_sha256": items_sha256,
            **extra_meta,
            "package_version": __version__,
            "shard": None if shard is None else {"index": shard.index, "count": shard.count},
            "started": old_meta.get("started") or now(),
            "finished": None,
            "items": None,
            "answers": sum(1 for r in records if "p" in r or "text" in r),
            "errors": sum(1 for r in records if "error" in r),
            "retried": len(forget),
            "retries": int(old_meta.get("retries") or 0),
            "runs": int(old_meta.get("runs") or 0) + 1,
        }
        writer = cls(path, meta_path, meta, lock, restarting=deferred, fields=fields)
        writer.outcomes = {r["id"]: outcome_of(r) for r in records}
        writer.unchanged_meta = old_meta if old_meta.get("finished") and not forget else None
        if writer.unchanged_meta is None and not deferred:
            writer.save_meta()
        return writer, done

    def write(self, record: dict[str, Any]) -> None:
        """Append one whole record line and flush it to the operating system; a record holding a key that is not one
        of :attr:`fields` is refused (never written: the scorer would refuse the file)."""
        problem = unknown_field(record, self.fields)
        if problem is not None:
            raise AnswerFileError(f"{self.path}: the record of {record.get('id')!r} was not written: {problem}")
        if self.restarting:
            if is_transient(record):
                self.held_back.append(record)
                self.transient += 1
                self.outcomes[record["id"]] = "transient"
                self._count_cause(record)
                return
            self._begin_restart()
            held, self.held_back = self.held_back, []
            self.transient -= len(held)
            self.causes.subtract(("transient", cause_of(earlier)[0]) for earlier in held)
            for earlier in held:
                self.write(earlier)
        if self.unchanged_meta is not None:  # a finished task that gets a record after all: say so first
            self.unchanged_meta = None
            self.save_meta()
        if self.timeless:
            record = {k: v for k, v in record.items() if k not in TIMINGS}
        line = json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            self._handle.write(line.encode("utf-8"))
            self._handle.flush()
        except OSError as exc:
            raise AnswerFileError(f"cannot write {self.path}: {exc.strerror or exc} (the answers written so far "
                                  "are kept; free space and run again to answer the rest)") from None
        self.meta["answers" if "p" in record or "text" in record else "errors"] += 1
        self.transient += is_transient(record)
        self.written += 1
        self.outcomes[record["id"]] = outcome_of(record)
        if "error" in record:
            self._count_cause(record)

    def _count_cause(self, record: dict[str, Any]) -> None:
        cause, reason = cause_of(record)
        key = (outcome_of(record), cause)
        self.causes[key] += 1
        self.examples.setdefault(key, reason)

    def save_meta(self) -> None:
        atomic_write_bytes(self.meta_path, (json.dumps(self.meta, indent=2, ensure_ascii=False) + "\n").encode())

    def close(self, *, items: int, retries: int, finished: bool, in_flight_limit: int | None = None,
              server: dict[str, Any] | None = None, order: list[str] | None = None) -> None:
        """Flush, record the counts (and the adaptive in-flight limit an HTTP runner ended at, and what a server
        dp started said about itself), release the lock.

        A finished task's records are put in ``order`` (the items' order), whatever order concurrent requests
        came back in, so the same answers are the same bytes; ids not in ``order`` keep their place after it.
        """
        try:
            if self.restarting:  # nothing but transient failures: the old answers stay as they were
                return
            try:
                self._handle.flush()
                os.fsync(self._handle.fileno())
                self._handle.close()
            except OSError as exc:
                raise AnswerFileError(f"cannot write {self.path}: {exc.strerror or exc}") from None
            if finished and order is not None and self.written:
                _put_in_order(self.path, order)
            if self.unchanged_meta is not None and finished and self.unchanged_meta.get("items") == items:
                return  # a re-run of a finished task that asked nothing: its meta file stays byte for byte
            self.meta["items"] = items
            self.meta["retries"] += retries
            if in_flight_limit is not None and not self.timeless:
                self.meta["in_flight_limit"] = in_flight_limit
            if server is not None:
                self.meta["server"] = server
            if finished:
                self.meta["finished"] = now()
            self.save_meta()
        finally:
            self.lock.release()


def _put_in_order(path: Path, order: list[str]) -> None:
    """Rewrite an answer file (atomically) with its records in ``order``, when they are not already."""
    records = read_answer_lines(path, repair=False)
    rank = {item_id: i for i, item_id in enumerate(order)}
    ordered = sorted(records, key=lambda r: rank.get(r["id"], len(rank)))  # stable: unknown ids keep their place
    if ordered != records:
        atomic_write_bytes(path, _records_bytes(ordered))


def fold_duplicates(path: Path) -> tuple[int, int, Path | None]:
    """Rewrite an answer file with one record per id (``dp repair``): (ids folded, ids whose answers differed,
    where the original was kept or None when nothing was folded).

    Per id the first answer with probabilities is kept (an answer beats an error; among errors, the
    first); the original is kept as ``<task>.jsonl.bak`` (or the next free ``.bak.N``). The file's lock is
    held throughout.
    """
    lock = AnswerLock(path)
    try:
        records = read_answer_lines(path, repair=True, allow_duplicates=True)
        kept: dict[str, dict[str, Any]] = {}
        folded: set[str] = set()
        differing: set[str] = set()
        for record in records:
            first = kept.get(record["id"])
            if first is None:
                kept[record["id"]] = record
                continue
            folded.add(record["id"])
            if "p" in first and "p" in record and first["p"] != record["p"]:
                differing.add(record["id"])
            if "p" not in first and "p" in record:
                kept[record["id"]] = record
        backup = None
        if folded:
            backup = backup_paths(path)[0]
            shutil.copy2(path, backup)  # the original stays in place until its replacement is whole
            atomic_write_bytes(path, _records_bytes(list(kept.values())))
        return len(folded), len(differing), backup
    finally:
        lock.release()


def merge_shards(runs: Path, system: str, task_order: dict[str, list[str]]) -> list[tuple[str, int, list[str]]]:
    """Fold every shard file of ``system`` into its task file; ids must appear exactly once.

    ``task_order`` maps task -> item ids in file order (records are written in that order).
    Returns (task, records written, missing ids) per task merged.
    """
    shard_dir = runs / system / "shards"
    if not shard_dir.is_dir():
        raise AnswerFileError(f"{shard_dir}: no shard files to merge")
    by_task: dict[str, list[Path]] = {}
    for path in sorted(shard_dir.glob("*.shard-*-of-*.jsonl")):
        if path.name.endswith(".raw.jsonl"):
            continue  # a shard's log of unreadable replies, not answers
        task = path.name.split(".shard-")[0]
        by_task.setdefault(task, []).append(path)
    results = []
    for task, paths in by_task.items():
        if task not in task_order:
            raise AnswerFileError(f"{paths[0]}: task {task!r} is not in the items folder")
        metas = []
        for shard_path in paths:
            shard_meta = shard_path.with_name(shard_path.name.removesuffix(".jsonl") + ".meta.json")
            metas.append(read_json_file(shard_meta, f"without it, which items {shard_path.name} answers is unknown",
                                        AnswerFileError))
            if not isinstance(metas[-1], dict) or not isinstance(metas[-1].get("shard"), dict) \
                    or "items_sha256" not in metas[-1]:
                raise AnswerFileError(f"{shard_meta}: not the meta file of a shard (no items_sha256 or shard)")
        hashes = {m["items_sha256"] for m in metas}
        if len(hashes) != 1:
            raise AnswerFileError(f"{shard_dir}: shards of {task!r} answered different items files: {sorted(hashes)}")
        prints = {m.get("fingerprint") for m in metas}
        if len(prints) != 1:
            raise AnswerFileError(f"{shard_dir}: shards of {task!r} were answered under different system configs "
                                  f"(fingerprints {sorted(str(p)[:12] for p in prints)})")
        counts = {m["shard"]["count"] for m in metas}
        main_path, meta_path = answer_paths(runs, system, task)
        lock = AnswerLock(main_path)
        try:
            results.append(_merge_task(task, paths, metas, hashes, counts, main_path, meta_path, task_order[task],
                                       shard_dir))
        finally:
            lock.release()
    return results


def _merge_task(task: str, paths: list[Path], metas: list[dict[str, Any]], hashes: set[str], counts: set[int],
                main_path: Path, meta_path: Path, order: list[str], shard_dir: Path) -> tuple[str, int, list[str]]:
    """Fold one task's shard files into its task file (the caller holds the task file's lock)."""
    merged: dict[str, dict[str, Any]] = {r["id"]: r for r in read_answer_lines(main_path, repair=False)}
    if main_path.exists() and meta_path.exists():
        try:
            main_meta = read_json_file(meta_path, f"the meta file of {main_path.name}", AnswerFileError)
        except AnswerFileError as exc:
            raise AnswerFileError(f"{exc}; cannot tell which items {main_path.name} answers (move both aside to "
                                  "merge the shards alone)") from None
        if not isinstance(main_meta, dict) or main_meta.get("items_sha256") not in hashes:
            raise AnswerFileError(f"{main_path}: answers a different items file than its shards")
    for path in paths:
        for record in read_answer_lines(path, repair=False):
            if record["id"] in merged and merged[record["id"]] != record:
                raise AnswerFileError(f"{path}: id {record['id']!r} answered twice with different records")
            merged[record["id"]] = record
    unknown = sorted(set(merged) - set(order))
    if unknown:
        raise AnswerFileError(f"{shard_dir}: ids not in the items file of {task!r}: {unknown[:5]}")
    ordered = [merged[i] for i in order if i in merged]
    atomic_write_bytes(main_path, _records_bytes(ordered))
    meta = {**metas[0], "shard": None, "merged_from": [p.name for p in paths], "shard_count": sorted(counts),
            "answers": sum(1 for r in ordered if "p" in r), "errors": sum(1 for r in ordered if "error" in r),
            "retries": sum(int(m.get("retries") or 0) for m in metas), "items": len(order),
            "started": min((str(m.get("started") or "") for m in metas), default="") or None,
            "finished": max((str(m.get("finished") or "") for m in metas), default="") or None}
    atomic_write_bytes(meta_path, (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode())
    missing = [i for i in order if i not in merged]
    return task, len(ordered), missing
