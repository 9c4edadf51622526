"""Numbers of the kind a real ledger, room, rule or catalogue holds (core 1.3, issue #38).

1.2 worked limits back from the record ("at most 578.44 USD", a threshold of 36.01 EUR, rooms open 08:02-19:03),
which no careful writer sets. A limit is a round sum; the decisive boundary stays exact by moving the record, not
the limit: a total one cent over a round limit (600.01 against "at most 600.00").
"""

from __future__ import annotations

STEPS = (1, 2, 5)
"""A round step is 1, 2 or 5 times a power of ten."""


def round_step(cents: int) -> int:
    """The step limits near ``cents`` are rounded to, in cents: the largest 1-2-5 step of whole units at most a
    tenth of the amount (100.00 for 1,200.00, 1.00 below 20.00)."""
    target = max(abs(cents) // 10, 100)
    step = 100
    power = 100
    while power <= target:
        for k in STEPS:
            if k * power <= target:
                step = k * power
        power *= 10
    return step


def round_amount(cents: int, up: bool) -> int:
    """``cents`` rounded up or down to its :func:`round_step`: 628.99 -> 650.00 (up) or 600.00 (down)."""
    step = round_step(cents)
    down = cents - cents % step
    return down if not up or down == cents else down + step


def on_the_half_hour(minutes: int, up: bool) -> int:
    """A clock time (minutes after midnight) moved up or down to the hour or half hour: 08:02 -> 08:00 or 08:30."""
    down = minutes - minutes % 30
    return down if not up or down == minutes else down + 30
