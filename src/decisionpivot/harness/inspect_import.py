"""``dp import inspect LOG --system NAME``: an inspect_ai log of DecisionPivot tasks becomes answer files.

Each sample of the log (epoch 1) must be an item of the local items folder (checked as ``dp
evaluate`` checks it): its id an item id, its ``item_sha256`` that item's, and the messages sent before
the reply exactly the item's Appendix B request; anything else refuses the whole log before a byte
is written. The reply is read again here with :func:`~decisionpivot.evaluate.chat.completion_record`
(the ``chat`` kind's reading, which the task's scorer used too; its probabilities pass
:func:`decisionpivot.probability.distribution`, the one check of every probability ``dp`` reads), so a log
scored by another scorer imports the same. An item may appear once in epoch 1 (a log holding it twice is refused: which
reply is the model's cannot be told), and no member of a ``.eval`` file may unpack to more than
:data:`MAX_MEMBER_BYTES` (a small file can hold a huge compressed member; it is refused before
inspect reads it into memory). A sample inspect could not finish (its ``error``: retries spent, a limit hit) is
recorded as a transient error: missing for ``dp score``, filled by a later import of a retried log.

The fingerprint holds what changes the answers: the model, its base URL and arguments (credentials
left out) and the effective generate config (the task's defaults under the command line's options,
without transport settings such as ``max_connections``); the log's eval, run and task ids, its file,
status and the inspect version are recorded in the meta's ``harness`` block.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.chat import completion_record
from decisionpivot.evaluate.kinds import Record
from decisionpivot.evaluate.prompt import chat_messages
from decisionpivot.evaluate.run import task_files
from decisionpivot.evaluate.systems import validate_system_name
from decisionpivot.harness.imported import ImportedSystem, ImportedTask, without_secrets, write_imported
from decisionpivot.harness.release_items import ReleaseTask, ensure_release_items, item_sha256, release_tasks
from decisionpivot.items import Item

READOUT = "chat/verbalised"
"""The ``chat`` kind's readout: the reply's JSON object of option probabilities."""
TRANSPORT = frozenset({"max_retries", "timeout", "attempt_timeout", "stream_idle_timeout", "max_connections",
                       "adaptive_connections", "extra_headers", "cache", "batch", "cache_prompt", "max_tool_output",
                       "parallel_tool_calls", "internal_tools"})
"""Generate-config fields that change how requests travel, not what the model answers (left out of the fingerprint)."""


MAX_MEMBER_BYTES = 256 * 2**20
"""Largest uncompressed member of a ``.eval`` file read (a sample with a long transcript is a few MB)."""


def check_members(path: Path, limit: int = MAX_MEMBER_BYTES) -> None:
    """Refuse a ``.eval`` (zip) log with a member that unpacks to more than ``limit`` bytes, from its directory
    alone (nothing is unpacked). Python's zip reader stops at the declared size, so a member cannot lie larger."""
    if not zipfile.is_zipfile(path):
        return
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise DecisionPivotError(f"{path}: not a readable inspect log ({exc})") from None
    for member in members:
        if member.file_size > limit:
            raise DecisionPivotError(
                f"{path}: member {member.filename!r} unpacks to {member.file_size / 2**20:.0f} MiB (from "
                f"{member.compress_size / 2**10:.0f} KiB), more than the {limit / 2**20:.0f} MiB an inspect log's "
                "member may hold here; the log is refused unread")


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise DecisionPivotError("dp import inspect needs inspect_ai: pip install inspect-ai") from None
    if not path.is_file():
        raise DecisionPivotError(f"{path}: no such inspect log file (inspect writes logs/<time>_<task>_<id>.eval)")
    check_members(path)
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # inspect raises ValueError, KeyError, zipfile and pydantic errors for a bad file
        raise DecisionPivotError(f"{path}: not a readable inspect log ({type(exc).__name__}: "
                                 f"{str(exc).splitlines()[0][:200] if str(exc) else 'no detail'})") from None


def _config_fields(config: Any) -> dict[str, Any]:
    if config is None:
        return {}
    dumped = config.model_dump(exclude_none=True)
    return {k: v for k, v in dumped.items() if k not in TRANSPORT}


def generate_settings(log: Any) -> dict[str, Any]:
    """The effective generate config of a log: the task's (the plan's) under the eval's own options."""
    plan = getattr(log, "plan", None)
    return {**_config_fields(getattr(plan, "config", None)), **_config_fields(log.eval.model_generate_config)}


def imported_system(name: str, log: Any) -> ImportedSystem:
    """The imported system of a log: model, base URL, model arguments and generate config as its identity."""
    spec = log.eval
    settings = {"model": spec.model, "base_url": spec.model_base_url,
                "model_args": without_secrets({k: v for k, v in (spec.model_args or {}).items() if v is not None}),
                "generate_config": generate_settings(log)}
    return ImportedSystem(name=name, kind="inspect", readout=READOUT, settings=settings)


def _text(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part.text for part in content if getattr(part, "type", None) == "text")


def check_sample(sample: Any, item: Item | None, where: str) -> Item:
    """The release item of a sample, or DecisionPivotError saying how the sample differs from it."""
    if item is None:
        raise DecisionPivotError(f"{where}: {sample.id!r} is not an item of the items folder")
    recorded = (sample.metadata or {}).get("item_sha256")
    if recorded != item_sha256(item):
        raise DecisionPivotError(f"{where}: item_sha256 {recorded} is not {item.id}'s in the release "
                                 f"({item_sha256(item)}): the log answered other items")
    sent = [m for m in sample.messages if m.role != "assistant"]
    expected = chat_messages(item)
    if [(m.role, _text(m)) for m in sent] != [(m["role"], m["content"]) for m in expected] \
            or any(m.role != "assistant" for m in sample.messages[len(sent):]):
        raise DecisionPivotError(f"{where}: the messages sent are not the Appendix B request of {item.id} "
                                 "(another solver or system message?); only `inspect eval decisionpivot/...` "
                                 "logs with the task's own solver can be imported")
    return item


def completion_body(output: Any) -> dict[str, Any]:
    """An inspect ``ModelOutput`` as the chat completion the ``chat`` kind reads: text, reasoning, finish reason, usage.

    Text parts are joined as the ``chat`` kind joins content parts; reasoning parts become
    ``reasoning_content`` (never the answer); a stop at the token limit is ``finish_reason: length``.
    """
    message: dict[str, Any] = {"content": ""}
    stop_reason = None
    if output is not None and output.choices:
        choice = output.choices[0]
        stop_reason = choice.stop_reason
        content = choice.message.content
        if isinstance(content, str):
            message["content"] = content
        else:
            message["content"] = "".join(part.text for part in content if part.type == "text")
            reasoning = [part.reasoning for part in content if part.type == "reasoning" and part.reasoning]
            if reasoning:
                message["reasoning_content"] = "\n".join(reasoning)
    finish = "length" if stop_reason in ("max_tokens", "model_length") else stop_reason
    body: dict[str, Any] = {"choices": [{"message": message, "finish_reason": finish}]}
    usage = getattr(output, "usage", None)
    if usage is not None:
        body["usage"] = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    return body


def sample_record(sample: Any, item: Item) -> Record:
    """The answer record of one sample: the reply read as the ``chat`` kind reads it, or a transient error."""
    if sample.error is not None:
        message = str(getattr(sample.error, "message", sample.error)).splitlines()[0][:300]
        return {"id": item.id, "error": f"inspect could not finish the sample: {message}", "transient": True}
    record = completion_record(item, completion_body(sample.output))
    if sample.output is not None and sample.output.time is not None:
        record["latency_s"] = round(float(sample.output.time), 3)
    return record


def records_by_task(log: Any, items_dir: Path, path: Path) -> tuple[dict[str, ReleaseTask], dict[str, list[Record]]]:
    """The checked tasks the log's epoch-1 samples belong to, and each sample as a record, checked against its item."""
    samples = [s for s in log.samples or [] if s.epoch == 1]
    available = task_files(items_dir)
    families = sorted({str(s.id).split(":", 1)[0] for s in samples} & set(available))
    tasks = release_tasks(items_dir, families) if families else {}
    items = {item.id: item for t in tasks.values() for item in t.items}
    found: dict[str, list[Record]] = {name: [] for name in tasks}
    seen: set[str] = set()
    for sample in samples:
        if str(sample.id) in seen:
            raise DecisionPivotError(f"{path}: sample {sample.id!r} appears twice in epoch 1 (an edited or merged "
                                     "log): which reply is the model's cannot be told; the log is refused")
        seen.add(str(sample.id))
        item = check_sample(sample, items.get(str(sample.id)), f"{path}: sample {sample.id!r}")
        found[item.family].append(sample_record(sample, item))
    return tasks, found


def import_inspect_log(path: Path, system: str, runs_dir: Path, items_dir: Path | None,
                       restart: bool = False) -> list[ImportedTask]:
    """Import one inspect log into ``runs_dir/system/``; refuses it whole if any sample is not a release item.

    ``items_dir`` None: the release items (generated first when absent), once the log has been read.
    """
    validate_system_name(system)
    log = _read_log(path)
    if not log.samples:
        raise DecisionPivotError(f"{path}: the log holds no samples (none finished, or --no-log-samples)")
    added = generate_settings(log).get("system_message")
    if added:
        raise DecisionPivotError(f"{path}: every request began with another system message ({str(added)[:60]!r}, "
                                 "--system-message): not the Appendix B request")
    tasks, records = records_by_task(log, ensure_release_items(items_dir), path)
    spec = log.eval
    harness = {"name": "inspect_ai", "version": (spec.packages or {}).get("inspect_ai"), "model": spec.model,
               "epochs": getattr(spec.config, "epochs", None), "imported_epoch": 1}
    entry = {"file": str(path), "eval_id": spec.eval_id, "run_id": spec.run_id, "task": spec.task,
             "task_id": spec.task_id, "task_args": spec.task_args, "created": spec.created, "status": log.status}
    return write_imported(imported_system(system, log), runs_dir, tasks, records, harness, entry, restart)
