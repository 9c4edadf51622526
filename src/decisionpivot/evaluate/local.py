"""Kinds that answer in process: ``python`` decision-model plugins and the built-in ``baseline`` systems.

A plugin is ``package.module:callable`` taking a batch of items and returning one answer per item:
a mapping option key -> probability, ``None`` (no answer) or an exception instance (that item's
failure). Every way a plugin can go wrong - an import that raises or has a syntax error, a batch that
raises, a wrong number of answers, values that are not a distribution over the item's options (a value outside
[0, 1] - of any size, ``10**400`` included - or a sum far from 1: :mod:`decisionpivot.probability`) - becomes an
error line or per-item error records, never a traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.kinds import (
    Emit,
    KindSpec,
    RunCounters,
    Setting,
    SettingError,
    SystemConfig,
    integer,
    mapping,
    optional_text,
    register,
    text,
)
from decisionpivot.items import Item
from decisionpivot.probability import ProbabilityError, distribution

Decide = Callable[[Sequence[Item]], Sequence[Any]]


def checked_probabilities(item: Item, answer: Any) -> dict[str, Any]:
    """A record from a plugin's answer for one item: its probabilities when they pass the one probability check
    (:func:`decisionpivot.probability.distribution`), else an error with the reason (the plugin's failed answer)."""
    if answer is None:
        return {"id": item.id, "error": "plugin returned no answer"}
    if isinstance(answer, BaseException):
        return {"id": item.id, "error": f"plugin error: {type(answer).__name__}: {answer}"}
    if not isinstance(answer, Mapping):
        return {"id": item.id, "error": f"plugin returned {type(answer).__name__}, expected a mapping"}
    values = {key: answer[key] for key in item.option_keys if key in answer}
    try:
        distribution(values, item.option_keys)
    except ProbabilityError as exc:
        return {"id": item.id, "error": f"plugin answer {exc}"}
    return {"id": item.id, "p": {key: float(value) for key, value in values.items()}}


def load_callable(spec: str) -> Callable[..., Sequence[Any]]:
    """Import ``package.module:callable``; clear errors for every way it can be wrong."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise DecisionPivotError(f"plugin {spec!r}: expected 'package.module:callable'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise DecisionPivotError(f"plugin {spec!r}: cannot import {module_name!r} ({exc})") from None
    except SyntaxError as exc:
        raise DecisionPivotError(f"plugin {spec!r}: {exc.filename}:{exc.lineno}: syntax error ({exc.msg})") from None
    except Exception as exc:  # the plugin's own code raised while importing
        raise DecisionPivotError(
            f"plugin {spec!r}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
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


class LocalRunner:
    """The :class:`~decisionpivot.evaluate.kinds.Runner` of plugins and baselines: batches, in process."""

    def __init__(self, system: SystemConfig) -> None:
        self.decide, self.batch = local_decider(system)

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        for start in range(0, len(items), self.batch):
            for record in answer_batch(self.decide, items[start:start + self.batch]):
                emit(record)


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


def _check_baseline(settings: Mapping[str, Any]) -> None:
    if settings["baseline"] not in ("uniform", "heuristic"):
        raise SettingError(f"baseline must be 'uniform' or 'heuristic', got {settings['baseline']!r}")
    if settings["baseline"] == "heuristic" and not (settings.get("family") and settings.get("heuristic")):
        raise SettingError("a heuristic baseline needs 'family' and 'heuristic'")


register(KindSpec(
    name="python",
    doc="a decision-model plugin package.module:callable (see decisionpivot/evaluate/example_plugin.py)",
    settings={
        "callable": Setting(None, text, "package.module:callable"),
        "batch_size": Setting(32, integer(1), "items per call", identity=False),
        "options": Setting({}, mapping, "keyword arguments passed to the callable"),
    },
    required=("callable",),
    make_runner=LocalRunner,
    readout=lambda settings: "python",
))
register(KindSpec(
    name="baseline",
    doc="built-in baselines: uniform guessing and each family's partial-information heuristics",
    settings={
        "baseline": Setting(None, text, "uniform or heuristic"),
        "family": Setting(None, optional_text, "the heuristic's family"),
        "heuristic": Setting(None, optional_text, "the heuristic's name"),
    },
    required=("baseline",),
    make_runner=LocalRunner,
    readout=lambda settings: "baseline",
    validate=_check_baseline,
))
