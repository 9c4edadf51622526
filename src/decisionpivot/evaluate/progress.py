"""Progress of ``dp evaluate``: a bar on a terminal, a line at a steady interval in a batch job's log.

On a terminal the bar (tqdm) moves with every record written, not with every batch (``miniters=1``), and its
answered / errors counts are set before the bar is drawn, so they are the ones the summary then prints. Off a
terminal (a batch job, CI, ``nohup``) a bar writes nothing readable, so :class:`ProgressLines` writes one line
to stderr every ``interval_s`` seconds - also while no record comes, so a stuck server shows in the log -
and a last one when a task that wrote any ends (a task shorter than one interval writes none)::

    dp evaluate: gpt-x fact_answerable: 120/600 done (118 answered, 2 errors), 3.4 items/s, about 2m21s left
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

DEFAULT_INTERVAL_S = 30.0
"""Seconds between two progress lines off a terminal."""


def duration(seconds: float) -> str:
    """``1h02m``, ``2m21s`` or ``45s``."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class ProgressLines:
    """The bar's interface (``update``, ``set_postfix``, ``close``) writing lines at a steady interval."""

    def __init__(self, label: str, total: int, interval_s: float = DEFAULT_INTERVAL_S, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label = label
        self.total = total
        self.interval_s = interval_s
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.counts: dict[str, Any] = {}
        self.lines = 0
        """Lines written so far (a task shorter than one interval writes none, not even the last)."""
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        if total:
            self._thread.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.write()

    def line(self) -> str:
        """The current progress as one line."""
        with self._lock:
            done, counts = self.done, dict(self.counts)
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = done / elapsed
        if done >= self.total:
            left = f"finished in {duration(elapsed)}"
        elif done:
            left = f"about {duration((self.total - done) / rate)} left"
        else:
            left = "time left unknown (nothing answered yet)"
        detail = ", ".join(f"{counts[k]} {k}" for k in ("answered", "errors") if k in counts)
        retries = f", {counts['retries']} retries" if counts.get("retries") else ""
        return (f"dp evaluate: {self.label}: {done}/{self.total} done" + (f" ({detail}{retries})" if detail else "")
                + f", {rate:.2f} items/s, {left}")

    def write(self) -> None:
        print(self.line(), file=self.stream, flush=True)
        self.lines += 1

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.done += n

    def set_postfix(self, refresh: bool = False, **counts: Any) -> None:
        with self._lock:
            self.counts.update(counts)

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self.lines:
            self.write()

    def __enter__(self) -> ProgressLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_bar(label: str, total: int, progress: bool | None, interval_s: float = DEFAULT_INTERVAL_S) -> Any:
    """A tqdm bar when stderr is a terminal, :class:`ProgressLines` when it is not, and nothing (a disabled bar)
    when ``progress`` is False."""
    if progress is False:
        return tqdm(total=total, disable=True)
    if sys.stderr.isatty():
        return tqdm(total=total, desc=label, unit="item", leave=False, miniters=1)
    return ProgressLines(label, total, interval_s)
