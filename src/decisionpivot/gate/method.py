"""The certification test: which confidence thresholds keep the error rate of automated items at most
the target, with probability at least 1 - delta over the calibration draw.

**What is controlled.** For a threshold ``lambda`` a system *decides alone* on an item when its
confidence ``c = max_o p(o)`` is at least ``lambda``. The risk of the threshold is the error rate among
those items,

    R(lambda) = E[wrong decisions with c >= lambda] / E[decisions with c >= lambda],

for items drawn as the release is drawn (same generators, levels and plan, another seed): the share
of wrong answers among the automated ones, over many release-like draws. The guarantee is

    P( R(lambda) <= alpha for every certified lambda ) >= 1 - delta,

probability over the calibration draws; the reported threshold is the certified one with the largest
coverage. It holds for each entry (a family, or all families pooled) on its own; for every entry of a
system at once (13 families and the pooled entry), a union bound needs delta / 14.

**What it assumes** (checked where a check is possible, see :mod:`~decisionpivot.gate.calibration` and
:mod:`~decisionpivot.gate.run`): the calibration draws are independent of each other and of the release
(fresh seeds, no shared item state), drawn to the release plan by the release's generators, answered
with the same answer-changing configuration as the release, and their seeds fixed before any answer is
seen. Its scope is the generators' distribution, not any team's real traffic.

**What it does not give**: the observed error rate at the selected threshold (``observed_risk``) is the
count the last test rejected on; being chosen because it passed, it is not a bound on R and is never
reported as one.

**The test** is Learn then Test (Angelopoulos, Bates, Candes, Jordan and Lei 2021, "Learn then Test:
Calibrating predictive algorithms to achieve risk control", arXiv:2110.01052), in the form of its
selective-classification example: for each threshold of a fixed grid, the null hypothesis
``R(lambda) > alpha`` is tested with the binomial tail p-value

    p(lambda) = P( Binomial(n(lambda), alpha) <= e(lambda) ),

``n`` the test items automated at ``lambda`` and ``e`` the wrong ones among them (exact for independent,
identically distributed items: given ``n``, ``e`` is Binomial(n, R(lambda)); p = 1 when ``n = 0``). The
hypotheses are tested by **fixed-sequence testing**, each at level ``delta``, from a start threshold
down the grid while they are rejected; every rejected threshold is certified, and fixed-sequence
testing keeps the family-wise error rate at ``delta`` (the first true null must be rejected before any
other can be). The order is fixed before the test data are seen, as LTT requires, and chosen as LTT
suggests with a separate split: a **pilot** of one contrast group in five (by hash) is used only to
pick the start - the grid threshold at which the pilot, scaled to the test's size, shows the smallest
p-value - and never in the test. Starting at the top of the grid instead stops at once whenever
confidences rarely reach 1.0, since too few items are automated there for any certificate
(``0.95^n > 0.10`` for ``n < 45``); spreading delta over the grid (the fallback procedure) leaves so
little level per threshold that a system with 3% errors at 90% coverage is not certified on two draws.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

METHOD = (
    "Learn then Test: binomial tail p-values P(Bin(n, alpha) <= e) per threshold of a fixed grid, "
    "fixed-sequence testing down the grid from the start a pilot split chooses (1 group in 5, not tested), "
    "one member per contrast group"
)
"""The method, as gate.json and the reports name it."""
REFERENCE = (
    "Angelopoulos, Bates, Candes, Jordan, Lei (2021). Learn then Test: Calibrating predictive algorithms "
    "to achieve risk control. arXiv:2110.01052"
)
"""Where the method comes from."""
PILOT_SHARE = 5
"""One contrast group in this many goes to the pilot (chooses the start, is never tested)."""
THRESHOLD_GRID: tuple[float, ...] = (
    1.0, 0.9999, 0.999, 0.998, 0.995, 0.99, 0.985, 0.98, 0.97, 0.96, 0.95, 0.94, 0.93, 0.92, 0.91,
    0.9, 0.875, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.0,
)
"""Confidence thresholds tested, highest first (fixed before any answer is seen; 0.0 automates all)."""


PERCENT_DECIMALS = 4
"""Decimals of the percentages the guarantee is stated with; a fraction needs at most this plus 2."""


def percent_text(fraction: float) -> str:
    """``fraction`` as an exact percentage: 0.05 -> ``5%``, 0.004 -> ``0.4%``, 0.9999 -> ``99.99%``."""
    text = f"{100 * fraction:.{PERCENT_DECIMALS}f}".rstrip("0").rstrip(".")
    return f"{text}%"


def statable(fraction: float) -> bool:
    """Whether ``fraction`` and ``1 - fraction`` are stated exactly by :func:`percent_text` (neither 0% nor 100%)."""
    scaled = round(fraction * 10 ** (PERCENT_DECIMALS + 2))
    return 0 < scaled < 10 ** (PERCENT_DECIMALS + 2) and abs(scaled - fraction * 10 ** (PERCENT_DECIMALS + 2)) < 1e-6


def guarantee_text(target_risk: float, delta: float, families: int) -> str:
    """The guarantee of a certified threshold in words (gate.md and the per-system JSON); the percentages are
    exact for values :func:`statable` accepts (`dp gate` refuses others). ``families``: how many families a
    system's entries cover (its union bound has one entry more, the pooled one)."""
    scope = f"{families} {'family' if families == 1 else 'families'} and pooled"
    return (
        f"With probability at least {percent_text(1 - delta)} over the calibration draws, the error rate among "
        f"the items a system decides alone (confidence >= threshold) is at most {percent_text(target_risk)} on "
        "items drawn as the release is drawn: expected wrong automated decisions divided by expected automated "
        "decisions, per family (or over all families for the pooled threshold). It assumes calibration draws "
        "independent of each other and of the release, drawn to the release plan, answered with the release "
        f"answers' configuration, their seeds fixed in advance; for all of a system's entries at once ({scope}) "
        f"use delta / {families + 1}. It is about the generators' distribution, not a team's own traffic."
    )


def _hash_integers(key: str) -> tuple[int, int, int]:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[k : k + 8], "big") for k in (0, 8, 16))  # type: ignore[return-value]


def sampled_members(group_index: np.ndarray, group_keys: Sequence[str], largest: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the items the test sees (at most one member per contrast group), and which of them
    are in the pilot.

    Group ``g`` (``group_keys[g]`` names it, e.g. ``"seed 101 access_request:g0007"``) with ``m_g``
    members is kept when ``h1 mod largest < m_g`` (probability ``m_g / largest``); its member
    ``h2 mod m_g`` in file order is the one seen, in the pilot when ``h3 mod 5 == 0``; ``h1, h2, h3``
    come from SHA-256 of the key, so every item has the same chance ``1 / largest`` and no choice
    depends on an answer. ``largest`` is the largest group size of the entry (of all families for the
    pooled one).
    """
    group_index = np.asarray(group_index)
    order = np.argsort(group_index, kind="stable")
    sorted_groups = group_index[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sizes = np.diff(np.r_[starts, group_index.size])
    chosen, pilot = [], []
    for start, size, group in zip(starts.tolist(), sizes.tolist(), sorted_groups[starts].tolist(), strict=True):
        keep, member, split = _hash_integers(group_keys[group])
        if keep % largest < size:
            chosen.append(int(order[start + member % size]))
            pilot.append(split % PILOT_SHARE == 0)
    positions = np.array(chosen, dtype=np.int64)
    by_position = np.argsort(positions, kind="stable")
    return positions[by_position], np.array(pilot, dtype=bool)[by_position]


def binomial_p_values(accepted: np.ndarray, errors: np.ndarray, risk: float) -> np.ndarray:
    """``P(Binomial(n, risk) <= e)`` per threshold: the p-value of ``R > risk`` (1 where ``n = 0``)."""
    accepted = np.asarray(accepted)
    p = stats.binom.cdf(np.asarray(errors), np.maximum(accepted, 1), risk)
    return np.where(accepted > 0, p, 1.0)


@dataclass(frozen=True)
class Certificate:
    """The outcome of the test for one entry (a family or the pooled families) of one system."""

    threshold: float | None
    """The certified threshold with the largest coverage; None when none is certified."""
    observed_risk: float | None
    """Errors / automated among the tested items at the threshold: observed, unadjusted for the threshold
    having been selected because it passed (not a bound on R)."""
    p_value: float | None
    """Binomial p-value of the threshold."""
    tested_items: int
    """Items in the test part (one member per kept group, pilot excluded)."""
    pilot_items: int
    """Items in the pilot (chose the start only)."""
    accepted: int
    """Test items automated at the threshold (0 without one)."""
    errors: int
    """Wrong ones among them."""
    start: float
    """The threshold the scan started at (chosen on the pilot)."""
    certified: tuple[float, ...]
    """Every certified threshold, highest first."""
    grid: tuple[float, ...]
    """The thresholds of the grid, highest first."""
    p_values: tuple[float, ...]
    """Per grid threshold: the binomial p-value on the test part."""
    grid_accepted: tuple[int, ...]
    """Per grid threshold: test items automated."""
    grid_errors: tuple[int, ...]
    """Per grid threshold: wrong ones among them."""

    def miss(self) -> str:
        """Why nothing is certified: the start threshold's test, for a "do not automate"."""
        j = self.grid.index(self.start)
        return (f"the scan starts at threshold {self.start:g} (chosen on the pilot): {self.grid_errors[j]} of "
                f"{self.grid_accepted[j]} test items wrong there, p-value {self.p_values[j]:.3g}")


def _counts(confidence: np.ndarray, wrong: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    automated = confidence[None, :] >= thresholds[:, None]
    return automated.sum(axis=1), (automated & wrong[None, :]).sum(axis=1)


def start_index(pilot_accepted: np.ndarray, pilot_errors: np.ndarray, scale: float, risk: float) -> int:
    """The grid position where the pilot, scaled by ``scale`` (test size / pilot size), shows the smallest
    binomial p-value; the highest such threshold on ties; the top of the grid without a pilot."""
    if not np.any(pilot_accepted):
        return 0
    scaled_n = np.round(pilot_accepted * scale).astype(np.int64)
    scaled_e = np.floor(pilot_errors * scale).astype(np.int64)
    return int(np.argmin(binomial_p_values(scaled_n, scaled_e, risk)))


def certify(
    confidence: np.ndarray, correct: np.ndarray, pilot: np.ndarray, risk: float, delta: float,
    grid: Sequence[float] = THRESHOLD_GRID,
) -> Certificate:
    """Test the grid thresholds on the sampled items (confidence, correct; ``pilot`` marks the pilot)
    and return the certified one with the largest coverage (see the module docstring)."""
    confidence = np.asarray(confidence, dtype=np.float64)
    wrong = ~np.asarray(correct, dtype=bool)
    pilot = np.asarray(pilot, dtype=bool)
    thresholds = np.asarray(grid, dtype=np.float64)
    accepted, errors = _counts(confidence[~pilot], wrong[~pilot], thresholds)
    pilot_accepted, pilot_errors = _counts(confidence[pilot], wrong[pilot], thresholds)
    tested, piloted = int((~pilot).sum()), int(pilot.sum())
    start = start_index(pilot_accepted, pilot_errors, tested / piloted if piloted else 0.0, risk)
    p_values = binomial_p_values(accepted, errors, risk)
    last = start - 1
    while last + 1 < len(thresholds) and p_values[last + 1] <= delta:
        last += 1
    certified = tuple(float(t) for t in thresholds[start : last + 1])
    detail = (tuple(float(t) for t in thresholds), tuple(float(p) for p in p_values),
              tuple(int(n) for n in accepted), tuple(int(e) for e in errors))
    if last < start:
        return Certificate(None, None, None, tested, piloted, 0, 0, float(thresholds[start]), (), *detail)
    observed = int(errors[last]) / int(accepted[last])
    return Certificate(float(thresholds[last]), observed, float(p_values[last]), tested, piloted, int(accepted[last]),
                       int(errors[last]), float(thresholds[start]), certified, *detail)
