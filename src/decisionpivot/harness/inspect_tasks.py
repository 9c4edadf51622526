"""The inspect_ai tasks of DecisionPivot: ``inspect eval decisionpivot/core`` or ``decisionpivot/<family>``.

inspect loads this module through the package's ``inspect_ai`` entry point (pyproject.toml), so it may
import inspect_ai at the top; nothing else in :mod:`decisionpivot` imports it.

* A sample is one item: its id, the paper's Appendix B messages
  (:func:`~decisionpivot.evaluate.prompt.chat_messages`, the ``chat`` kind's request) as input, the gold
  key as target, and the id, family, layer, group (with its size), level, variation, option keys and
  :func:`~decisionpivot.harness.release_items.item_sha256` in the metadata.
* The solver is ``generate()`` with the ``chat`` kind's defaults (temperature 0, at most 2048 tokens);
  inspect's ``--temperature`` / ``--max-tokens`` ... override them and end up in the imported fingerprint.
* The scorer :func:`option_probabilities` reads the reply with
  :func:`~decisionpivot.evaluate.chat.completion_record`, the function the ``chat`` kind calls, and
  records the probabilities (or the reason there are none) in the score's metadata; the value is 1
  when the argmax (ties to the first listed option) is the gold key, as ``dp score`` counts it.
  Metrics: item accuracy and pair accuracy over the complete contrast groups in the run.

inspect's own ``hf/`` provider (a transformers model in inspect's process) samples by default
(``do_sample=True``), and transformers refuses to sample at the task's temperature 0 ("temperature (=0.0)
has to be a strictly positive float ... set do_sample=False"): every sample fails. Pass the model argument
``-M do_sample=False`` (greedy decoding, what temperature 0 asks for); it is recorded in the log's model
arguments and so in the imported system's identity (``tests/harness/test_inspect_hf.py``).

Task arguments (``-T name=value``): ``level`` (1, 2 or 3: only that level's items), ``items`` (the items
folder; default ``datasets/core/<version>``, generated first when absent, as ``dp evaluate`` does) and,
for ``core``, ``families`` (comma-separated). The items are checked as ``dp evaluate`` checks them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Target, accuracy, metric, scorer, stderr
from inspect_ai.solver import TaskState, generate

from decisionpivot import BENCHMARK_VERSION
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.chat import CHAT_SETTINGS, completion_record
from decisionpivot.evaluate.kinds import Record
from decisionpivot.evaluate.prompt import chat_messages
from decisionpivot.generate.registry import families as registered_families
from decisionpivot.harness.inspect_import import completion_body
from decisionpivot.harness.release_items import ReleaseTask, ensure_release_items, item_sha256, release_tasks
from decisionpivot.items import Item
from decisionpivot.score.metrics import pair_accuracy as pair_accuracy_of

SCORER = "option_probabilities"
"""The scorer's name in the log (``decisionpivot/option_probabilities``)."""
DEFAULTS = GenerateConfig(temperature=float(CHAT_SETTINGS["temperature"].default),
                          max_tokens=int(CHAT_SETTINGS["max_tokens"].default))
"""The ``chat`` kind's sampling defaults; inspect's command-line generate options override them."""


def inspect_messages(item: Item) -> list[ChatMessage]:
    """The Appendix B request of :func:`~decisionpivot.evaluate.prompt.chat_messages` as inspect messages."""
    kinds: dict[str, Callable[..., ChatMessage]] = {"system": ChatMessageSystem, "user": ChatMessageUser}
    return [kinds[m["role"]](content=m["content"]) for m in chat_messages(item)]


def sample_metadata(item: Item, group_size: int) -> dict[str, Any]:
    """What a sample carries besides its messages: the item's identity, its group and its content hash."""
    return {"id": item.id, "family": item.family, "layer": item.layer, "group": item.group,
            "group_size": group_size, "level": item.level, "variation": item.variation,
            "option_keys": list(item.option_keys), "item_sha256": item_sha256(item)}


def item_sample(item: Item, group_size: int) -> Sample:
    return Sample(id=item.id, input=inspect_messages(item), target=item.answer or "",
                  metadata=sample_metadata(item, group_size))


def predicted_key(probabilities: dict[str, float], keys: tuple[str, ...]) -> str:
    """The argmax option, ties to the first listed one (as ``dp score`` predicts)."""
    return keys[int(np.argmax([probabilities[k] for k in keys]))]


@lru_cache(maxsize=8)
def _checked(items_dir: str, families: tuple[str, ...] | None) -> dict[str, ReleaseTask]:
    """The checked tasks of an items folder (once per process: the task and its scorer share them)."""
    return release_tasks(Path(items_dir), families)


@lru_cache(maxsize=8)
def _items_by_id(items_dir: str, families: tuple[str, ...] | None) -> dict[str, Item]:
    return {item.id: item for t in _checked(items_dir, families).values() for item in t.items}


@metric
def pair_accuracy() -> Metric:
    """Pair accuracy: the share of contrast groups whose every member is correct, over the groups complete in the run.

    ``dp score``'s definition (:func:`decisionpivot.score.metrics.pair_accuracy`); a group cut by
    ``--limit`` or ``-T level`` is left out, as ``dp score --partial`` leaves it out.
    """

    def compute(scores: list[SampleScore]) -> float:
        members: dict[str, list[float]] = {}
        sizes: dict[str, int] = {}
        for s in scores:
            meta = s.sample_metadata or {}
            if meta.get("group") is None:
                continue
            members.setdefault(meta["group"], []).append(float(s.score.as_float()))
            sizes[meta["group"]] = int(meta.get("group_size") or 0)
        complete = [g for g, values in members.items() if len(values) == sizes[g]]
        if not complete:
            return float("nan")
        correct = [v == 1.0 for g in complete for v in members[g]]
        index = [n for n, g in enumerate(complete) for _ in members[g]]
        return float(pair_accuracy_of(np.array(correct), np.array(index)))

    return compute


@scorer(metrics=[accuracy(), stderr(), pair_accuracy()], name=SCORER)
def option_probabilities(items: str, families: list[str] | None = None) -> Callable[..., Any]:
    """Reads the reply's option probabilities exactly as the ``chat`` kind does; 1 when the argmax is the gold key.

    Args:
      items: the items folder the task was built from (the item of each sample is looked up there).
      families: the families of the task (None: every items file of the folder).
    """
    wanted = tuple(families) if families else None

    async def score(state: TaskState, target: Target) -> Score:
        item = _items_by_id(items, wanted).get(str(state.sample_id))
        if item is None:
            raise DecisionPivotError(f"sample {state.sample_id!r} is not an item of {items}")
        record: Record = completion_record(item, completion_body(state.output))
        probabilities = record.get("p")
        answer = predicted_key(probabilities, item.option_keys) if probabilities else None
        return Score(value=1.0 if answer is not None and answer == target.text else 0.0, answer=answer,
                     explanation=record.get("error"),
                     metadata={"p": probabilities, "error": record.get("error"), "closed": record.get("closed")})

    return score


def _level(level: object) -> int | None:
    """``-T level=N`` (inspect passes it as parsed YAML): 1, 2 or 3, or None for every level."""
    if level is None or level == "":
        return None
    if isinstance(level, bool) or str(level).strip() not in ("1", "2", "3"):
        raise DecisionPivotError(f"-T level={level!r}: expected 1, 2 or 3")
    return int(str(level).strip())


def _families(families: object) -> tuple[str, ...] | None:
    """``-T families=a,b`` (or a YAML list): the family names, or None for every items file."""
    if families is None or families == "":
        return None
    if isinstance(families, str):
        names = families.split(",")
    elif isinstance(families, list | tuple):
        names = [str(f) for f in families]
    else:
        names = [str(families)]
    return tuple(name.strip() for name in names if name.strip()) or None


def decisionpivot_task(families: tuple[str, ...] | None, level: object, items: str | None) -> Task:
    """The inspect task over the checked items of ``families`` (None: every items file), optionally one level."""
    folder = str(ensure_release_items(Path(items) if items else None).resolve())
    wanted_level = _level(level)
    checked = _checked(folder, families)
    samples = []
    for release_task in checked.values():
        sizes: dict[str | None, int] = {}
        for item in release_task.items:
            sizes[item.group] = sizes.get(item.group, 0) + 1
        samples += [item_sample(item, sizes[item.group]) for item in release_task.items
                    if wanted_level is None or item.level == wanted_level]
    if not samples:
        raise DecisionPivotError(f"{folder}: no items of level {wanted_level} in {sorted(checked)}")
    metadata = {"benchmark_version": BENCHMARK_VERSION, "items": folder, "level": wanted_level,
                "items_files": {name: {"sha256": t.sha256, "items_check": t.check, "items": len(t.items)}
                                for name, t in checked.items()}}
    return Task(dataset=MemoryDataset(samples, name=f"decisionpivot-{BENCHMARK_VERSION}", location=folder),
                solver=generate(), scorer=option_probabilities(folder, list(families) if families else None),
                config=DEFAULTS, version=BENCHMARK_VERSION, metadata=metadata)


@task
def core(level: int | None = None, items: str | None = None, families: str | None = None) -> Task:
    """Every core family of DecisionPivot (or ``-T families=a,b``), optionally one level (``-T level=2``)."""
    return decisionpivot_task(_families(families), level, items)


def _family_task(family: str) -> Callable[..., Task]:
    def family_task(level: int | None = None, items: str | None = None) -> Task:
        return decisionpivot_task((family,), level, items)

    family_task.__name__ = family_task.__qualname__ = family
    family_task.__doc__ = f"The {family} family of DecisionPivot, optionally one level (``-T level=2``)."
    return task(name=family)(family_task)


FAMILY_TASKS = {spec.name: _family_task(spec.name) for spec in registered_families()}
"""One task per core family: ``inspect eval decisionpivot/policy_case``."""
globals().update(FAMILY_TASKS)
