"""Locale-independent formatting of money, numbers, dates, times and versions.

Nothing here consults the locale module, so output is the same on every host.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def grouped(n: int) -> str:
    """An integer with comma thousands separators: 4157 -> '4,157'."""
    sign = "-" if n < 0 else ""
    return sign + f"{abs(n):,}"


def money(cents: int, currency: str = "EUR") -> str:
    """Whole cents to text: 415770, 'SEK' -> '4,157.70 SEK'."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{frac:02d} {currency}"


def iso_date(day: dt.date) -> str:
    return day.isoformat()


def long_date(day: dt.date) -> str:
    """'14 March 2026'."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def weekday_date(day: dt.date) -> str:
    """'Saturday 14 March 2026'."""
    return f"{WEEKDAYS[day.weekday()]} {long_date(day)}"


def clock(minutes: int) -> str:
    """Minutes after midnight to 24-hour 'HH:MM' (0 <= minutes < 1440)."""
    if not 0 <= minutes < 24 * 60:
        raise ValueError(f"clock() needs 0 <= minutes < 1440, got {minutes}")
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def clock_seconds(seconds: int) -> str:
    """Seconds after midnight to 'HH:MM:SS'."""
    if not 0 <= seconds < 24 * 3600:
        raise ValueError(f"clock_seconds() needs 0 <= seconds < 86400, got {seconds}")
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def version(parts: Sequence[int], pre: str = "") -> str:
    """(3, 10, 0), 'rc1' -> '3.10.0rc1'."""
    return ".".join(str(p) for p in parts) + pre
