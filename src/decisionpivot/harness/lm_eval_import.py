"""``dp import lm-eval SAMPLES --system NAME``: the samples of an lm-eval run of the exported tasks become answer files.

SAMPLES is one ``samples_decisionpivot_<family>_<time>.jsonl`` that ``lm_eval --log_samples
--output_path OUT`` wrote, or a folder holding the samples files of one run (e.g. ``OUT/<model>/``); the
run's ``results_<time>.json`` beside them names the model. Every sample must be an item of the local
items folder (checked as ``dp evaluate`` checks it): its doc's id an item id, its ``item_sha256`` that
item's, the context lm-eval scored the item's prompt - exactly :func:`~decisionpivot.evaluate.hf.plain_prompt`
for ``decisionpivot``, a chat-template rendering holding the system message and
:func:`~decisionpivot.evaluate.hf.key_body` for ``decisionpivot_chat`` run with ``--apply_chat_template`` -
and the continuations the option keys in order (after a space for the plain tasks). A run with
few-shot examples (``--num_fewshot N``: release items with their gold answers before each item, also as
chat turns with ``--fewshot_as_multiturn``) or a ``--system_instruction`` is another system (and its
examples leak answers): its results file and its contexts are checked for them. Each log-likelihood must
pass :func:`decisionpivot.probability.log_probability`, the check of every log-probability ``dp`` reads (a
finite number no greater than 0: NaN, infinities, ``+50`` or ``true`` are not the log of a probability).
Anything else refuses the run before a byte is written.

Each record is :func:`decisionpivot.probability.from_log_likelihoods` over the keys' log-likelihoods, the
``hf`` kind's readout. The fingerprint holds the model, its arguments (credentials and batch sizes left
out), revision, dtype, device, the task variant, the chat template's hash and the context length;
the lm-eval version, the task hashes, the limit and the files are recorded in the meta's ``harness`` block.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.data_file import read_json_file, read_text_file
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.hf import INSTRUCTION, key_body, plain_prompt
from decisionpivot.evaluate.kinds import Record
from decisionpivot.evaluate.prompt import SYSTEM_MESSAGE
from decisionpivot.evaluate.systems import validate_system_name
from decisionpivot.harness.imported import ImportedSystem, ImportedTask, without_secrets, write_imported
from decisionpivot.harness.lm_eval_export import CHAT_GROUP, GROUP, family_of_task
from decisionpivot.harness.release_items import ReleaseTask, ensure_release_items, item_sha256, release_tasks
from decisionpivot.items import Item
from decisionpivot.probability import ProbabilityError, from_log_likelihoods, log_probability

READOUT = "hf/key-logits"
"""The ``hf`` kind's readout: softmax over whole option keys' log-likelihoods after the prompt."""
SAMPLES_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
"""lm-eval's samples file name: ``samples_<task>_<date>T<time>.jsonl``."""
TRANSPORT_ARGS = frozenset({"batch_size", "max_batch_size"})
"""Model arguments that change how many sequences go through at once, not the answers."""


@dataclass(frozen=True)
class SamplesFile:
    """One samples file of an lm-eval run of an exported task."""

    path: Path
    """The file."""
    task: str
    """The lm-eval task name (``decisionpivot_<family>`` or ``decisionpivot_chat_<family>``)."""
    family: str
    """The family."""
    chat: bool
    """A ``decisionpivot_chat`` task (run with ``--apply_chat_template``)."""
    time: str
    """The run's time stamp in the file name (the results file has the same)."""


def samples_files(path: Path) -> list[SamplesFile]:
    """The DecisionPivot samples files of ``path`` (a file, or a folder searched below)."""
    if path.is_file():
        candidates = [path]
    elif path.is_dir():
        candidates = sorted(path.rglob("samples_*.jsonl"))
    else:
        raise DecisionPivotError(f"{path}: no such samples file or folder (lm_eval --log_samples --output_path OUT "
                                 "writes OUT/<model>/samples_<task>_<time>.jsonl)")
    found = []
    for candidate in candidates:
        match = SAMPLES_FILE.match(candidate.name)
        family = family_of_task(match["task"]) if match else None
        if match is None or family is None:
            if path.is_file():
                raise DecisionPivotError(f"{path}: not a samples file of a `dp export lm-eval` task "
                                         "(expected samples_decisionpivot_<family>_<time>.jsonl)")
            continue
        found.append(SamplesFile(candidate, match["task"], family, match["task"].startswith(CHAT_GROUP + "_"),
                                 match["time"]))
    if not found:
        raise DecisionPivotError(f"{path}: no samples_decisionpivot_*.jsonl below it (run lm_eval with --log_samples)")
    runs = sorted({(f.path.parent, f.time) for f in found})
    if len(runs) > 1:
        shown = ", ".join(f"{folder}/*_{time}" for folder, time in runs[:4])
        raise DecisionPivotError(f"{path}: holds {len(runs)} lm-eval runs ({shown}); name the samples file or "
                                 "the folder of one run")
    if len({f.chat for f in found}) > 1:
        raise DecisionPivotError(f"{path}: holds both {GROUP} and {CHAT_GROUP} tasks (two prompts: two systems); "
                                 "import each task's samples file under its own system name")
    return found


def read_json(path: Path) -> Any:
    return read_json_file(path, "lm-eval writes it with --output_path; it names the model")


def model_args(value: Any) -> dict[str, Any]:
    """lm-eval's ``model_args``: a mapping, or the command line's ``k=v,k=v`` text."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, str) and value.strip():
        return dict(part.split("=", 1) if "=" in part else (part, True) for part in value.split(","))
    return {}


def imported_system(name: str, results: dict[str, Any], chat: bool) -> ImportedSystem:
    """The imported system of a run: what changes the answers, from its results file."""
    config = results.get("config") or {}
    arguments = {k: v for k, v in model_args(config.get("model_args")).items() if k not in TRANSPORT_ARGS}
    settings = {"model": config.get("model"), "model_args": without_secrets(arguments),
                "model_revision": config.get("model_revision"), "model_sha": config.get("model_sha"),
                "model_dtype": config.get("model_dtype"), "device": config.get("device"),
                "tasks": CHAT_GROUP if chat else GROUP, "chat_template_sha": results.get("chat_template_sha"),
                "system_instruction_sha": results.get("system_instruction_sha"),
                "max_length": results.get("max_length")}
    return ImportedSystem(name=name, kind="lm-eval", readout=READOUT, settings=settings)


def _pairs(arguments: Any, where: str) -> list[tuple[str, str]]:
    """(context, continuation) of each request: ``{"gen_args_0": {"arg_0": ..., "arg_1": ...}}`` or a list of pairs."""
    if isinstance(arguments, dict):
        rows = [arguments[k] for k in sorted(arguments, key=lambda k: int(str(k).rsplit("_", 1)[-1]))]
        pairs = [(r.get("arg_0"), r.get("arg_1")) if isinstance(r, dict) else (None, None) for r in rows]
    elif isinstance(arguments, list):
        pairs = [tuple(r[:2]) if isinstance(r, list) and len(r) >= 2 else (None, None) for r in arguments]
    else:
        pairs = []
    if not pairs or any(not isinstance(c, str) or not isinstance(k, str) for c, k in pairs):
        raise DecisionPivotError(f"{where}: 'arguments' are not (context, continuation) pairs")
    return [(str(c), str(k)) for c, k in pairs]


def _log_likelihoods(sample: dict[str, Any], count: int, where: str) -> list[float]:
    responses = sample.get("filtered_resps")
    if not isinstance(responses, list) or len(responses) != count:
        raise DecisionPivotError(f"{where}: expected {count} log-likelihoods in 'filtered_resps'")
    values = []
    for response in responses:
        value = response[0] if isinstance(response, list) and response else response
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise DecisionPivotError(f"{where}: log-likelihood {value!r} is not a number")
        try:
            values.append(log_probability(float(value) if isinstance(value, str) else value, "log-likelihood"))
        except ValueError as exc:  # ProbabilityError, or text that is no number
            reason = exc if isinstance(exc, ProbabilityError) else f"log-likelihood {value!r} is not a number"
            raise DecisionPivotError(f"{where}: {reason}; the run's samples are damaged") from None
    return values


def check_run_settings(results: dict[str, Any], files: list[SamplesFile], results_path: Path) -> None:
    """Refuse a run with few-shot examples or a system instruction, as its results file records them."""
    shots = results.get("n-shot") if isinstance(results.get("n-shot"), dict) else {}
    configs = results.get("configs") if isinstance(results.get("configs"), dict) else {}
    for file in files:
        task_config = configs.get(file.task) if isinstance(configs.get(file.task), dict) else {}
        for value in (shots.get(file.task), task_config.get("num_fewshot")):
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                raise DecisionPivotError(
                    f"{results_path}: {file.task} was run with {value:g} few-shot examples (--num_fewshot): release "
                    "items with their gold answers before each item - another system, and answers leaked into "
                    "the prompt. DecisionPivot's items are asked 0-shot: run lm_eval without --num_fewshot")
    if results.get("system_instruction") or results.get("system_instruction_sha"):
        raise DecisionPivotError(f"{results_path}: the run added a system instruction (--system_instruction) to "
                                 "the Appendix B prompt: another prompt, not importable as DecisionPivot's; run "
                                 "lm_eval without it")


def check_context(item: Item, pairs: list[tuple[str, str]], chat: bool, where: str) -> None:
    """Refuse a sample whose context is not the item's prompt or whose continuations are not its keys."""
    contexts = {c for c, _ in pairs}
    context = next(iter(contexts))
    if len(contexts) != 1:
        raise DecisionPivotError(f"{where}: the options were scored after different contexts")
    if chat:
        if context.startswith(SYSTEM_MESSAGE + key_body(item)):
            raise DecisionPivotError(f"{where}: {CHAT_GROUP} was run without --apply_chat_template "
                                     f"(run it with it, or run {GROUP} for a model without a chat template)")
        if SYSTEM_MESSAGE not in context or key_body(item) not in context:
            raise DecisionPivotError(f"{where}: the context is not the chat rendering of {item.id}'s prompt "
                                     "(edited task, --system_instruction or few-shot examples?)")
        if context.count(INSTRUCTION) != 1 or context.count(SYSTEM_MESSAGE) != 1:
            raise DecisionPivotError(f"{where}: the context holds {context.count(INSTRUCTION)} items' prompts, not "
                                     f"{item.id}'s alone: few-shot examples (--num_fewshot, "
                                     "--fewshot_as_multiturn), which DecisionPivot's 0-shot items never have")
        expected = list(item.option_keys)
    else:
        if context != plain_prompt(item):
            hint = (" (run with --apply_chat_template: use the decisionpivot_chat tasks for that)"
                    if plain_prompt(item) in context or key_body(item) in context else
                    " (edited task, --system_instruction or few-shot examples?)")
            raise DecisionPivotError(f"{where}: the context is not {item.id}'s prompt{hint}")
        expected = [" " + key for key in item.option_keys]
    if [k for _, k in pairs] != expected:
        raise DecisionPivotError(f"{where}: the continuations {[k for _, k in pairs]} are not the option keys "
                                 f"{expected}")


def sample_record(sample: Any, items: dict[str, Item], chat: bool, where: str) -> Record:
    """The answer record of one checked sample: softmax over its keys' log-likelihoods."""
    doc = sample.get("doc") if isinstance(sample, dict) else None
    if not isinstance(doc, dict) or not isinstance(doc.get("id"), str):
        raise DecisionPivotError(f"{where}: not a sample of a `dp export lm-eval` task (no doc with an id)")
    item = items.get(doc["id"])
    if item is None:
        raise DecisionPivotError(f"{where}: {doc['id']!r} is not an item of the items folder")
    if doc.get("item_sha256") != item_sha256(item):
        raise DecisionPivotError(f"{where}: item_sha256 {doc.get('item_sha256')} is not {item.id}'s in the release "
                                 f"({item_sha256(item)}): the run answered other items")
    pairs = _pairs(sample.get("arguments"), where)
    check_context(item, pairs, chat, where)
    return {"id": item.id, "p": from_log_likelihoods(item.option_keys, _log_likelihoods(sample, len(pairs), where))}


def read_samples(file: SamplesFile, task: ReleaseTask) -> list[Record]:
    """Every sample of one file as a record, each checked against the release item."""
    items = {item.id: item for item in task.items}
    records: list[Record] = []
    seen: dict[str, int] = {}
    lines = read_text_file(file.path, "a samples file lm-eval writes with --log_samples").splitlines()
    for number, line in enumerate(lines, start=1):
        where = f"{file.path}:{number}"
        try:
            sample = json.loads(line)
        except ValueError as exc:
            raise DecisionPivotError(f"{where}: not valid JSON ({exc})") from None
        record = sample_record(sample, items, file.chat, where)
        if record["id"] in seen:
            raise DecisionPivotError(f"{where}: {record['id']!r} again (first on line {seen[record['id']]})")
        seen[record["id"]] = number
        records.append(record)
    return records


def import_lm_eval_samples(path: Path, system: str, runs_dir: Path, items_dir: Path | None,
                           restart: bool = False) -> list[ImportedTask]:
    """Import the samples of one lm-eval run into ``runs_dir/system/``; refuses it whole on any mismatch.

    ``items_dir`` None: the release items (generated first when absent), once the run's files have been found.
    """
    validate_system_name(system)
    files = samples_files(path)
    results_path = files[0].path.parent / f"results_{files[0].time}.json"
    results = read_json(results_path)
    if not isinstance(results, dict):
        raise DecisionPivotError(f"{results_path}: not an lm-eval results file")
    check_run_settings(results, files, results_path)
    tasks = release_tasks(ensure_release_items(items_dir), sorted({f.family for f in files}))
    records = {f.family: read_samples(f, tasks[f.family]) for f in files}
    config = results.get("config") or {}
    harness = {"name": "lm-evaluation-harness", "version": results.get("lm_eval_version"),
               "model": results.get("model_name") or config.get("model"),
               "transformers_version": results.get("transformers_version")}
    entry = {"files": [str(f.path) for f in files], "results_file": str(results_path),
             "tasks": [f.task for f in files], "task_hashes": results.get("task_hashes"),
             "date": results.get("date"), "limit": config.get("limit"),
             "apply_chat_template": results.get("chat_template") is not None}
    return write_imported(imported_system(system, results, files[0].chat), runs_dir, tasks, records, harness, entry,
                          restart)
