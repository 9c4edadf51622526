"""How task cards plug into the scorer: one :class:`ReferenceTask` per card with rebuilt items.

The card names the original metric and, where the source fixes it, the chance baseline b. Where the
card leaves b open (``chance: {value: null}``) it is computed on the sampled items, as REFERENCE.md
says: the majority share for accuracy and micro-F1; 2p/(1+p) for F1 of a class at prevalence p; the
prevalence for precision and AUPRC; 0.5 for AUROC and balanced accuracy; mean 1/n_i where options
vary per item; mean over classes of 2 p_k (1/K) / (p_k + 1/K) for macro-F1 (uniform guessing); the
exact expected nDCG@10 of a random order for reranking; 1 - Var(s) for success-rate tasks.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from decisionpivot.items import Item, read_items
from decisionpivot.reconstruct.card import TaskCard, all_cards
from decisionpivot.score.reference import ReferenceTask, register_reference_task

METRIC_NAMES = {"ndcg10": "ndcg@10", "brier_skill": "one_minus_brier"}
"""Card metric names that the scorer spells differently."""
DEFAULT_POSITIVE = {"ndcg10": "relevant", "brier_skill": "success"}


def _expected_random_ndcg10(items: Sequence[Item], positive: str) -> float:
    """Exact E[nDCG@10] of a uniformly random order, averaged over queries (binary gains)."""
    by_query: dict[str, list[float]] = defaultdict(list)
    for item in items:
        by_query[item.group or item.id].append(1.0 if item.answer == positive else 0.0)
    values = []
    for gains in by_query.values():
        n = len(gains)
        ideal = sum(g / math.log2(rank + 2) for rank, g in enumerate(sorted(gains, reverse=True)[:10]))
        if ideal == 0:
            continue
        discount = sum(1 / math.log2(p + 2) for p in range(min(10, n))) / n
        values.append(sum(gains) * discount / ideal)
    return sum(values) / len(values) if values else 0.0


def chance_for(card: TaskCard, items: Sequence[Item]) -> float:
    """The card's chance baseline, or the one computed on the sampled items (module docstring)."""
    if card.chance is not None:
        return float(card.chance)
    positive = card.metric_options.get("positive") or DEFAULT_POSITIVE.get(card.metric)
    answers = [i.answer for i in items if i.answer is not None]
    counts = Counter(answers)
    n = max(len(answers), 1)
    prevalence = counts.get(positive, 0) / n if positive else 0.0
    if card.metric in ("accuracy", "micro_f1"):
        if len({i.option_keys for i in items}) > 1 or "1/n" in card.chance_method:
            return sum(1 / len(i.options) for i in items) / max(len(items), 1)
        return max(counts.values()) / n if counts else 0.0
    if card.metric == "f1":
        return 2 * prevalence / (1 + prevalence)
    if card.metric in ("precision", "auprc"):
        return prevalence
    if card.metric in ("auroc", "balanced_accuracy"):
        return 0.5
    if card.metric == "macro_f1":
        k = len(card.options)
        return sum(2 * (c / n) * (1 / k) / (c / n + 1 / k) for c in counts.values()) / k
    if card.metric == "ndcg10":
        return _expected_random_ndcg10(items, positive or "relevant")
    if card.metric == "brier_skill":
        rates = [float(i.extra["success_rate"]) for i in items if "success_rate" in i.extra]
        mean = sum(rates) / max(len(rates), 1)
        return 1.0 - sum((s - mean) ** 2 for s in rates) / max(len(rates), 1)
    raise ValueError(f"{card.id}: no chance rule for metric {card.metric!r}")


def reference_task(card: TaskCard, items: Sequence[Item]) -> ReferenceTask:
    positive = card.metric_options.get("positive") or DEFAULT_POSITIVE.get(card.metric)
    chance = min(chance_for(card, items), 0.999)
    return ReferenceTask(card.id, card.layer, METRIC_NAMES.get(card.metric, card.metric), chance,
                         unit=card.resample, positive=positive)


def register_card_tasks(reference_dir: str | Path) -> list[str]:
    """Register every card whose items file exists in ``reference_dir``; returns the task ids."""
    folder = Path(reference_dir)
    registered = []
    for task, card in all_cards().items():
        path = folder / f"{task}.jsonl"
        if path.is_file():
            register_reference_task(reference_task(card, read_items(path)))
            registered.append(task)
    return registered
