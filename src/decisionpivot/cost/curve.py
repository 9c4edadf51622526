"""The cost curve of one set of answers, as small pure functions."""

from __future__ import annotations

import numpy as np

PER = 1000
"""Costs are per this many decisions."""
ESCALATE_ALL = float("inf")
"""The threshold that automates nothing (every item goes to a person)."""


def cost_per_thousand(confidence: np.ndarray, correct: np.ndarray, threshold: float, cost_wrong: float,
                      cost_escalated: float) -> float:
    """Expected cost of 1,000 decisions at ``threshold``:
    ``1000 * (share automated and wrong * cost_wrong + share escalated * cost_escalated)``.

    An item is automated when its confidence is at least the threshold, escalated otherwise; an escalated
    item costs ``cost_escalated`` whatever its answer (the person, or the larger model, decides it), a wrong
    automated one ``cost_wrong``, a right automated one nothing.
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    automated = confidence >= threshold
    wrong = automated & ~np.asarray(correct, dtype=bool)
    n = confidence.size
    return PER * (cost_wrong * wrong.sum() + cost_escalated * (n - automated.sum())) / n


def cost_curve(confidence: np.ndarray, correct: np.ndarray, cost_wrong: float,
               cost_escalated: float) -> tuple[np.ndarray, np.ndarray]:
    """Thresholds and their :func:`cost_per_thousand`: every distinct confidence (decreasing) and, last,
    :data:`ESCALATE_ALL` first. The cost is a step function of the threshold that changes only at these points,
    so its minimum over all thresholds is the minimum over them."""
    confidence = np.asarray(confidence, dtype=np.float64)
    n = confidence.size
    order = np.argsort(-confidence, kind="stable")
    sorted_confidence = confidence[order]
    wrong = np.cumsum(~np.asarray(correct, dtype=bool)[order])
    ends = np.flatnonzero(np.r_[sorted_confidence[1:] != sorted_confidence[:-1], True])
    automated = ends + 1
    costs = PER * (cost_wrong * wrong[ends] + cost_escalated * (n - automated)) / n
    thresholds = np.r_[ESCALATE_ALL, sorted_confidence[ends]]
    return thresholds, np.r_[PER * cost_escalated, costs]


def minimum_cost_threshold(thresholds: np.ndarray, costs: np.ndarray) -> tuple[float, float]:
    """The threshold of least cost and that cost; among equal costs the highest threshold (fewest automated)."""
    best = int(np.argmin(costs))  # thresholds decrease, so the first minimum is the highest threshold
    return float(thresholds[best]), float(costs[best])
