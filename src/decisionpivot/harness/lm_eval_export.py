"""``dp export lm-eval DIR``: a task folder that lm-evaluation-harness runs as ``multiple_choice`` over option keys.

The folder holds, for every family, a task ``decisionpivot_<family>`` in two variants and a group of each:

* ``decisionpivot`` - for a model without a chat template (``lm_eval --include_path DIR --tasks
  decisionpivot``): the context is :func:`~decisionpivot.evaluate.hf.plain_prompt` and each option key
  is scored after a space, exactly the text the ``hf`` kind scores for such a model;
* ``decisionpivot_chat`` - for a chat model, run with ``--apply_chat_template``: the system message
  (:data:`~decisionpivot.evaluate.prompt.SYSTEM_MESSAGE`, given as the task's ``description``) and the user
  message :func:`~decisionpivot.evaluate.hf.key_body` go through the model's chat template, and lm-eval
  then scores each key right after the generation prompt, as the ``hf`` kind does for a chat model.

Both read "loglikelihood of each key after the prompt"; ``dp import lm-eval`` takes the softmax over
the keys' log-likelihoods, the ``hf`` kind's readout. The prompts are written at export time by the
same functions the ``hf`` kind calls, into ``docs/<family>.jsonl`` (one doc per item, with its id,
group, level and :func:`~decisionpivot.harness.release_items.item_sha256`), and read by
``decisionpivot_docs.py`` in the folder, so running the tasks needs lm-eval only, not this package.
The items are checked as ``dp evaluate`` checks them before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from decisionpivot import BENCHMARK_VERSION, __version__
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.hf import key_body, plain_prompt
from decisionpivot.evaluate.prompt import SYSTEM_MESSAGE
from decisionpivot.harness.release_items import ReleaseTask, ensure_release_items, item_sha256, release_tasks
from decisionpivot.items import Item, atomic_write_bytes, make_folder

GROUP = "decisionpivot"
"""The group of the plain-prompt tasks (models without a chat template)."""
CHAT_GROUP = "decisionpivot_chat"
"""The group of the chat-template tasks (run with ``--apply_chat_template``)."""
MARKER = "decisionpivot-export.json"
"""Written into every exported folder: what was exported from which items (and lets a re-export overwrite it)."""
DOCS_MODULE = "decisionpivot_docs"
"""The loader module in the exported folder (lm-eval imports it by ``!function``)."""

LOADER = '''"""Loads the DecisionPivot docs of one family for lm-evaluation-harness (written by `dp export lm-eval`).

Each line of docs/<family>.jsonl is one item: its id, group, level, the SHA-256 of its item line,
the prompts (`prompt` for models without a chat template, `system_message` + `chat_prompt` for
--apply_chat_template), the option keys (`choices`) and the gold key's index (`gold`).
"""

import json
from pathlib import Path

import datasets

DOCS = Path(__file__).resolve().parent / "docs"


def load_docs(family, **metadata):
    """The `test` split of one family's docs, in item order."""
    path = DOCS / f"{family}.jsonl"
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})
'''


class _Function(str):
    """A ``!function module.name`` reference in a task YAML."""


def _function_representer(dumper: yaml.SafeDumper, value: _Function) -> yaml.Node:
    return dumper.represent_scalar("!function", str(value))


class _TaskDumper(yaml.SafeDumper):
    """Dumps the task YAML with lm-eval's ``!function`` tag."""


_TaskDumper.add_representer(_Function, _function_representer)


def task_name(family: str, chat: bool) -> str:
    """The lm-eval task name of a family: ``decisionpivot_<family>`` or ``decisionpivot_chat_<family>``."""
    return f"{CHAT_GROUP if chat else GROUP}_{family}"


def family_of_task(name: str) -> str | None:
    """The family of an exported task name, or None for a name this export does not write."""
    for prefix in (CHAT_GROUP + "_", GROUP + "_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return None


def doc(item: Item) -> dict[str, Any]:
    """The lm-eval doc of one item: identity, content hash, both prompts, option keys and the gold index."""
    if item.answer is None:
        raise DecisionPivotError(f"{item.id}: has no gold answer; lm-eval's multiple_choice needs one")
    return {
        "id": item.id,
        "family": item.family,
        "group": item.group,
        "level": item.level,
        "layer": item.layer,
        "variation": item.variation,
        "item_sha256": item_sha256(item),
        "prompt": plain_prompt(item),
        "system_message": SYSTEM_MESSAGE,
        "chat_prompt": key_body(item),
        "choices": list(item.option_keys),
        "gold": item.option_keys.index(item.answer),
    }


def task_config(family: str, chat: bool) -> dict[str, Any]:
    """The YAML of one exported task."""
    config: dict[str, Any] = {
        "task": task_name(family, chat),
        "custom_dataset": _Function(f"{DOCS_MODULE}.load_docs"),
        "dataset_kwargs": {"family": family},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_text": "chat_prompt" if chat else "prompt",
        "doc_to_choice": "choices",
        "doc_to_target": "gold",
        "target_delimiter": " ",  # lm-eval drops it under --apply_chat_template: the key follows the generation prompt
        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": BENCHMARK_VERSION},
    }
    if chat:
        config["description"] = "system_message"  # a doc field: the system message, verbatim
    return config


def group_config(families: Sequence[str], chat: bool) -> dict[str, Any]:
    """The YAML of a group over every exported family (accuracy over all items)."""
    return {
        "group": CHAT_GROUP if chat else GROUP,
        "task": [task_name(f, chat) for f in families],
        "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean", "weight_by_size": True}],
        "metadata": {"version": BENCHMARK_VERSION},
    }


def _yaml_bytes(config: dict[str, Any]) -> bytes:
    text = yaml.dump(config, Dumper=_TaskDumper, sort_keys=False, allow_unicode=True, width=1000)
    return ("# written by `dp export lm-eval`; re-export rather than edit (the import checks every prompt)\n"
            + text).encode("utf-8")


def _docs_bytes(task: ReleaseTask) -> bytes:
    return "".join(json.dumps(doc(item), ensure_ascii=False) + "\n" for item in task.items).encode("utf-8")


@dataclass(frozen=True)
class ExportResult:
    """What ``dp export lm-eval`` wrote."""

    folder: Path
    """The task folder."""
    tasks: tuple[ReleaseTask, ...]
    """The families exported, checked."""
    files: tuple[Path, ...]
    """Every file written."""


def _check_target(folder: Path) -> None:
    """Refuse a folder that holds anything but an earlier export (whose files are then overwritten)."""
    if folder.exists() and not folder.is_dir():
        raise DecisionPivotError(f"{folder}: exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MARKER).is_file():
        raise DecisionPivotError(f"{folder}: not empty and not an earlier `dp export lm-eval` folder "
                                 f"(no {MARKER}); choose an empty or new folder")


def export_lm_eval(out: Path, items_dir: Path | None, tasks: Sequence[str] | None = None) -> ExportResult:
    """Write the lm-eval task folder ``out`` for the (checked) tasks of ``items_dir`` (None: the release items)."""
    _check_target(out)
    items_dir = ensure_release_items(items_dir)
    checked = release_tasks(items_dir, tasks)
    contents: dict[Path, bytes] = {}  # everything is built (and every item checked) before the first write
    for family, task in checked.items():
        contents[out / "docs" / f"{family}.jsonl"] = _docs_bytes(task)
        for chat in (False, True):
            contents[out / f"{task_name(family, chat)}.yaml"] = _yaml_bytes(task_config(family, chat))
    for chat in (False, True):
        contents[out / f"{CHAT_GROUP if chat else GROUP}.yaml"] = _yaml_bytes(group_config(list(checked), chat))
    contents[out / f"{DOCS_MODULE}.py"] = LOADER.encode("utf-8")
    marker = {"exported_by": f"decisionpivot {__version__}", "benchmark_version": BENCHMARK_VERSION,
              "items": str(items_dir), "tasks": {f: {"items_sha256": t.sha256, "items_check": t.check,
                                                     "items": len(t.items)} for f, t in checked.items()}}
    contents[out / MARKER] = (json.dumps(marker, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    stale = [path for path in _exported_files(out) if path not in contents]
    make_folder(out / "docs")
    for path, data in contents.items():
        atomic_write_bytes(path, data)
    for path in stale:  # families of an earlier export that this one leaves out
        path.unlink(missing_ok=True)
    return ExportResult(out, tuple(checked.values()), tuple(contents))


def _exported_files(folder: Path) -> list[Path]:
    """The task and docs files an earlier export wrote into ``folder`` (per its marker)."""
    try:
        families = json.loads((folder / MARKER).read_text(encoding="utf-8")).get("tasks") or {}
    except (OSError, ValueError, AttributeError):
        return []
    return [path for family in families
            for path in (folder / "docs" / f"{family}.jsonl", folder / f"{task_name(family, False)}.yaml",
                         folder / f"{task_name(family, True)}.yaml")]
