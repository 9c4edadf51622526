"""Runners that answer in-process: built-in baselines and python decision-model plugins."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.systems import SystemConfig
from decisionpivot.items import Item

Decide = Callable[[Sequence[Item]], Sequence[Any]]


def checked_probabilities(item: Item, answer: Any) -> dict[str, Any]:
    """A record from a plugin's answer for one item: probabilities, or an error with the reason."""
    if answer is None:
        return {"id": item.id, "error": "plugin returned no answer"}
    if isinstance(answer, BaseException):
        return {"id": item.id, "error": f"plugin error: {type(answer).__name__}: {answer}"}
    if not isinstance(answer, Mapping):
        return {"id": item.id, "error": f"plugin returned {type(answer).__name__}, expected a mapping"}
    missing = [k for k in item.option_keys if k not in answer]
    if missing:
        return {"id": item.id, "error": f"plugin answer misses option key(s) {missing}"}
    probs = {}
    for key in item.option_keys:
        value = answer[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            reason = f"plugin value for {key!r} is not a finite non-negative number: {value!r}"
            return {"id": item.id, "error": reason}
        probs[key] = float(value)
    if sum(probs.values()) <= 0:
        return {"id": item.id, "error": "plugin probabilities are all zero"}
    return {"id": item.id, "p": probs}


def load_callable(spec: str) -> Callable[..., Sequence[Any]]:
    """Import ``package.module:callable``; clear errors for every way it can be wrong."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise DecisionPivotError(f"plugin {spec!r}: expected 'package.module:callable'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise DecisionPivotError(f"plugin {spec!r}: cannot import {module_name!r} ({exc})") from None
    target: Any = module
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise DecisionPivotError(f"plugin {spec!r}: {module_name} has no attribute {attr!r}")
    if not callable(target):
        raise DecisionPivotError(f"plugin {spec!r}: {attr!r} is not callable")
    return target


def uniform(items: Sequence[Item]) -> list[dict[str, float]]:
    return [{k: 1.0 / len(item.options) for k in item.option_keys} for item in items]


def local_decider(system: SystemConfig) -> tuple[Decide, int]:
    """(batch function, batch size) for a baseline or python system."""
    s = system.settings
    if system.kind == "baseline" and s["baseline"] == "uniform":
        return uniform, 512
    if system.kind == "baseline":
        from decisionpivot.generate.registry import family

        heuristic = family(str(s["family"])).heuristics.get(str(s["heuristic"]))
        if heuristic is None:
            raise DecisionPivotError(
                f"system {system.name!r}: family {s['family']} has no heuristic {s['heuristic']!r}"
            )

        def run_heuristic(items: Sequence[Item]) -> list[Any]:
            out: list[Any] = []
            for item in items:
                try:
                    out.append(heuristic(item))
                except Exception as exc:  # recorded per item, like any decision model's failure
                    out.append(exc)
            return out

        return run_heuristic, 256
    if system.kind == "python":
        target = load_callable(str(s["callable"]))
        options = dict(s.get("options") or {})
        return (lambda items: target(items, **options)), int(s["batch_size"])
    raise DecisionPivotError(f"system {system.name!r}: kind {system.kind!r} is not a local runner")


def answer_batch(decide: Decide, batch: Sequence[Item]) -> list[dict[str, Any]]:
    """Records for one batch; a raising or mis-sized plugin turns into per-item errors."""
    try:
        answers = list(decide(batch))
    except Exception as exc:
        return [{"id": item.id, "error": f"plugin raised {type(exc).__name__}: {exc}"} for item in batch]
    if len(answers) != len(batch):
        return [{"id": item.id, "error": f"plugin returned {len(answers)} answers for {len(batch)} items"}
                for item in batch]
    return [checked_probabilities(item, answer) for item, answer in zip(batch, answers, strict=True)]
