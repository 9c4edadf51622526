"""``calibration.md``: each system's ECE per family and pooled, its interval and the noise floor beside it.

A family's ECE is read as miscalibration only when its whole 95% interval lies above the noise floor (the
ECE a perfectly calibrated system with the same confidences would show on as many items,
:func:`~decisionpivot.score.calibration.calibration_noise_floor`); otherwise it is within sampling noise.
"""

from __future__ import annotations

from decisionpivot.score.report import markdown_table, markdown_text
from decisionpivot.score.results import CORE, MACRO, Estimate, Scoring

WITHIN_NOISE = "within noise"
MISCALIBRATED = "miscalibrated"


def calibration_reading(ece: Estimate, floor: Estimate) -> str:
    """``miscalibrated`` when the ECE's interval lies wholly above the noise floor, else ``within noise``."""
    low = ece.ci[0]
    return MISCALIBRATED if low == low and low > floor.value else WITHIN_NOISE


def calibration_markdown(scoring: Scoring) -> str:
    """The table of calibration.md (values x100, as every table)."""
    rows = []
    for system in scoring.systems:
        for task in (*scoring.core_tasks, MACRO):
            ece = scoring.get(system, CORE, task, "ece")
            floor = scoring.get(system, CORE, task, "ece_noise_floor")
            if ece is None or floor is None:
                continue
            low, high = ece.ci
            rows.append([markdown_text(system), "pooled" if task == MACRO else task, str(ece.n),
                         f"{ece.value:.1f} [{low:.1f}, {high:.1f}]", f"{floor.value:.1f}",
                         calibration_reading(ece, floor)])
    return ("# Calibration error against its noise floor\n\n"
            "ECE x100 (15 equal-width bins) with its 95% interval over group resamples; the noise floor is the "
            "expected ECE of a perfectly calibrated system with the same confidences on as many items (seeded "
            "simulation). Read an ECE as miscalibration only when its interval lies wholly above the floor.\n\n"
            + markdown_table(["System", "Family", "Items", "ECE [95%]", "Noise floor", "Reading"], rows))
