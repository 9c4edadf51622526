"""Synthetic items and answer files for scorer tests and the speed benchmark.

The full synthetic core mirrors the real group structure: eight yes/no families of 300 pairs,
policy_case and clause_change with 3 options in groups of 3, triage_order with 5 options in groups
of 3, ledger_reconcile with 6 options in groups of 3, record_rule with 7-10 options in groups of 4;
600 items per family, levels 1-3 in equal thirds of the groups.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from decisionpivot.items import Item, Option, write_items
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.layout import TaskLayout, layout_from_items

YES_NO = ("yes", "no")


@dataclass(frozen=True)
class FamilyShape:
    """Group structure of one synthetic family."""

    name: str
    """Family name."""
    layer: str
    """Layer A-G."""
    groups: int
    """Number of contrast groups."""
    group_size: int
    """Members per group."""
    options: tuple[int, int]
    """Inclusive range of option counts (yes/no families: (2, 2))."""


CORE_SHAPES = (
    FamilyShape("fact_answerable", "A", 300, 2, (2, 2)),
    FamilyShape("access_request", "B", 300, 2, (2, 2)),
    FamilyShape("policy_case", "B", 200, 3, (3, 3)),
    FamilyShape("log_claim", "C", 300, 2, (2, 2)),
    FamilyShape("booking_check", "D", 300, 2, (2, 2)),
    FamilyShape("goal_check", "D", 300, 2, (2, 2)),
    FamilyShape("toolcall_valid", "D", 300, 2, (2, 2)),
    FamilyShape("triage_order", "E", 200, 3, (5, 5)),
    FamilyShape("clause_change", "E", 200, 3, (3, 3)),
    FamilyShape("install_check", "G", 300, 2, (2, 2)),
    FamilyShape("ledger_reconcile", "F", 200, 3, (6, 6)),
    FamilyShape("record_rule", "F", 150, 4, (7, 10)),
    FamilyShape("filter_match", "G", 300, 2, (2, 2)),
)


def family_items(shape: FamilyShape, seed: int = 0) -> list[Item]:
    """Items of one synthetic family; yes/no pairs have one yes and one no member."""
    rng = np.random.default_rng([seed, len(shape.name)])
    items: list[Item] = []
    for g in range(shape.groups):
        level = 1 + (3 * g) // shape.groups
        k = int(rng.integers(shape.options[0], shape.options[1] + 1))
        keys = YES_NO if k == 2 else tuple(f"o{j}" for j in range(k))
        for m in range(shape.group_size):
            answer = keys[m % 2] if k == 2 else keys[int(rng.integers(0, k))]
            items.append(
                Item(
                    id=f"{shape.name}:{len(items):05d}",
                    family=shape.name,
                    layer=shape.layer,
                    version="1.1",
                    group=f"{shape.name}:g{g:04d}",
                    level=level,
                    variation=None,
                    domain=None,
                    state=f"synthetic case {len(items)}",
                    question="Which option?",
                    options=tuple(Option(key, key) for key in keys),
                    answer=answer,
                )
            )
    return items


def synthetic_probabilities(
    items: Sequence[Item], skill: float, seed: int, decimals: int = 2
) -> list[dict[str, float]]:
    """Option probabilities of a system: softmax of noise plus ``skill`` on the gold option, rounded
    (rounding produces confidence ties, as real systems do)."""
    rng = np.random.default_rng(seed)
    out = []
    for item in items:
        keys = item.option_keys
        logits = rng.normal(0.0, 1.0, len(keys))
        logits[keys.index(item.answer)] += skill
        p = np.exp(logits - logits.max())
        p /= p.sum()
        out.append({key: round(float(v), decimals) for key, v in zip(keys, p, strict=True)})
    return out


def write_answers(run_dir: Path, task: str, items_sha256: str, records: Sequence[dict[str, object]]) -> Path:
    """Write ``<run_dir>/<task>.jsonl`` and its meta file."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / f"{task}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (run_dir / f"{task}.meta.json").write_text(json.dumps({"items_sha256": items_sha256}), encoding="utf-8")
    return path


def write_synthetic_core(
    root: Path, systems: int, shapes: Sequence[FamilyShape] = CORE_SHAPES, fail_rate: float = 0.01
) -> tuple[Path, Path, list[str]]:
    """Items under ``root/items`` and answers of ``systems`` systems under ``root/runs``."""
    items_dir, runs_dir = root / "items", root / "runs"
    names = [f"system{i:02d}" for i in range(systems)]
    for f, shape in enumerate(shapes):
        items = family_items(shape)
        sha = write_items(items_dir / f"{shape.name}.jsonl", items)
        for s, name in enumerate(names):
            skill = 0.5 + 4.0 * s / max(1, systems - 1)
            probabilities = synthetic_probabilities(items, skill, seed=1000 * s + f)
            rng = np.random.default_rng([s, f])
            records: list[dict[str, object]] = []
            for item, p in zip(items, probabilities, strict=True):
                if rng.random() < fail_rate:
                    records.append({"id": item.id, "error": "timeout"})
                else:
                    records.append({"id": item.id, "p": p})
            write_answers(runs_dir / name, shape.name, sha, records)
    return items_dir, runs_dir, names


def layout_of(items: Sequence[Item], task: str | None = None) -> TaskLayout:
    """The layout of in-memory items (no file; the hash is a placeholder)."""
    return layout_from_items(task or items[0].family, items, Path(f"<{task or items[0].family}>"), "0" * 64)


def answers_of(
    layout: TaskLayout, system: str, probabilities: np.ndarray, failed: np.ndarray | None = None
) -> TaskAnswers:
    """In-memory answers: ``probabilities`` ``(n, K)`` in listed order (normalised here); failed rows
    become uniform, as the reader does."""
    n, width = layout.size, layout.max_options
    failed = np.zeros(n, bool) if failed is None else np.asarray(failed, bool)
    raw = np.zeros((n, width))
    raw[:, : probabilities.shape[1]] = probabilities
    uniform = (np.arange(width) < layout.option_count[:, None]) / layout.option_count[:, None]
    normalised = np.where(failed[:, None], uniform, raw / np.where(failed, 1.0, raw.sum(axis=1))[:, None])
    nan = np.full(n, np.nan)
    return TaskAnswers(
        system=system,
        task=layout.task,
        path=Path(f"<{system}/{layout.task}>"),
        probabilities=normalised,
        answered=np.ones(n, bool),
        failed=failed,
        gold_index=layout.gold_index,
        error_records=int(failed.sum()),
        invalid_records=0,
        ignored_keys=0,
        tokens=nan,
        closed=nan,
        latency_s=nan,
    )


def random_answers(
    layout: TaskLayout, system: str, skill: float, seed: int, fail_rate: float = 0.03, decimals: int = 1
) -> TaskAnswers:
    """Answers drawn like :func:`synthetic_probabilities`, coarsely rounded so that confidences tie."""
    rng = np.random.default_rng(seed)
    width = layout.max_options
    logits = rng.normal(0.0, 1.0, (layout.size, width))
    logits[np.arange(layout.size), layout.gold_index] += skill
    logits[np.arange(width) >= layout.option_count[:, None]] = -np.inf
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = np.round(p / p.sum(axis=1, keepdims=True), decimals) + 1e-3 * (
        np.arange(width) < layout.option_count[:, None]
    )
    return answers_of(layout, system, p, rng.random(layout.size) < fail_rate)
