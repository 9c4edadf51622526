"""The check on the release, which calibration never sees: realised risk and coverage at the certified
threshold with 95% intervals, whether the bound held, and the paper's retrospective C(target).

Intervals are 95% percentile bootstrap intervals over contrast groups with the scorer's resamples (seed
20261007, one index matrix per family, families side by side for the pooled entry): the same draws
`dp score` uses for C(0.05). The retrospective coverage is the scorer's own
:func:`~decisionpivot.score.metrics.selective_coverage` on the release answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from decisionpivot.gate.calibration import FamilyAnswers
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, Multiplicities, percentile_interval, unit_weights
from decisionpivot.score.metrics import accuracy_at_confidence, selective_coverage, share_at_confidence

Interval = tuple[float, float]


@dataclass(frozen=True)
class ReleaseCheck:
    """What a certified threshold did on the release items."""

    items: int
    """Release items of the entry."""
    automated: int
    """Items at or above the threshold (0 without one)."""
    errors: int
    """Wrong decisions among them."""
    coverage: float
    """``automated / items``: the certified coverage on the release (0 when nothing is certified)."""
    coverage_ci: Interval
    """Its 95% bootstrap interval."""
    risk: float | None
    """``errors / automated``; None when nothing is automated."""
    risk_ci: Interval | None
    """Its 95% bootstrap interval (resamples without an automated item are dropped)."""
    bound_held: bool | None
    """``risk <= target`` (exactly); None when nothing is automated."""
    retrospective_coverage: float
    """C(target) of the release answers: the largest coverage whose release error rate is at most target."""


def release_weights(family: str, answers: FamilyAnswers, resamples: int) -> Multiplicities:
    """The scorer's group-resample multiplicities of one family's release items."""
    return unit_weights(family, answers.group_index, resamples, BOOTSTRAP_SEED)


def check_release(
    answers: FamilyAnswers, weights: Multiplicities, threshold: float | None, target: float
) -> ReleaseCheck:
    """Realised risk and coverage of ``threshold`` on the release answers (see the module docstring): the
    scorer's :func:`~decisionpivot.score.metrics.share_at_confidence` (coverage) and
    :func:`~decisionpivot.score.metrics.accuracy_at_confidence` (risk = 1 - accuracy), point and resampled."""
    retrospective = float(selective_coverage(answers.confidence, answers.correct, target))
    items = int(answers.confidence.size)
    if threshold is None:
        return ReleaseCheck(items, 0, 0, 0.0, (0.0, 0.0), None, None, None, retrospective)
    automated = answers.confidence >= threshold
    count, errors = int(automated.sum()), int((automated & ~answers.correct).sum())
    coverage = float(share_at_confidence(answers.confidence, threshold))
    coverage_ci = percentile_interval(share_at_confidence(answers.confidence, threshold, weights))
    if count == 0:
        return ReleaseCheck(items, 0, 0, coverage, coverage_ci, None, None, None, retrospective)
    risk = 1.0 - float(accuracy_at_confidence(answers.confidence, answers.correct, threshold))
    resampled_risk = 1.0 - accuracy_at_confidence(answers.confidence, answers.correct, threshold, weights)
    held = Fraction(errors) <= Fraction(target).limit_denominator(1_000_000) * count
    return ReleaseCheck(items, count, errors, coverage, coverage_ci, risk, percentile_interval(resampled_risk),
                        held, retrospective)
