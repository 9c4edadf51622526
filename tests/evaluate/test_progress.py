"""Progress off a terminal: a line at a steady interval in the log, counts that agree with the summary."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.evaluate.progress import ProgressLines, duration
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from tests.evaluate.conftest import FAMILY


def slow(items: Sequence[Any]) -> list[Any]:
    """One item at a time, 30 ms each; the third item fails."""
    time.sleep(0.03 * len(items))
    return [None if item.id.endswith(("3", "7")) else {k: 1.0 for k in item.option_keys} for item in items]


def test_a_batch_log_gets_lines_at_a_steady_interval_that_agree_with_the_summary(
        tmp_path: Path, items_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    system = get_system("python:tests.evaluate.test_progress:slow?batch_size=1&name=slow")
    [run] = evaluate_system(system, items_dir, tmp_path / "runs", tasks=[FAMILY], limit=20, progress=None,
                            progress_interval_s=0.1)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dp evaluate: slow")]
    assert len(lines) >= 3, lines
    pattern = re.compile(r"dp evaluate: slow fact_answerable: (\d+)/20 done \((\d+) answered, (\d+) errors\), "
                         r"[\d.]+ items/s, (about \S+ left|finished in \S+)")
    done = [int(pattern.fullmatch(line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert done == sorted(done) and 0 < done[0] < 20
    last = pattern.fullmatch(lines[-1])
    assert last is not None and last.group(4).startswith("finished")
    assert (int(last.group(1)), int(last.group(2)), int(last.group(3))) == (20, run.answered, run.errors)
    assert run.errors > 0


def test_quiet_and_short_runs_write_no_lines(tmp_path: Path, items_dir: Path, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    evaluate_system(get_system("uniform"), items_dir, tmp_path / "runs", tasks=[FAMILY], limit=5, progress=None)
    evaluate_system(get_system("uniform"), items_dir, tmp_path / "runs2", tasks=[FAMILY], limit=5, progress=False,
                    progress_interval_s=0.0001)
    assert "dp evaluate:" not in capsys.readouterr().err


def test_a_line_while_nothing_is_answered_and_time_left() -> None:
    now = [0.0]
    stream = io.StringIO()
    lines = ProgressLines("s t", 10, interval_s=3600, stream=stream, clock=lambda: now[0])
    now[0] = 5.0
    assert lines.line() == "dp evaluate: s t: 0/10 done, 0.00 items/s, time left unknown (nothing answered yet)"
    lines.update(2)
    lines.set_postfix(answered=1, errors=1, retries=3)
    now[0] = 10.0
    assert lines.line() == "dp evaluate: s t: 2/10 done (1 answered, 1 errors, 3 retries), 0.20 items/s, about 40s left"
    lines.close()
    assert stream.getvalue() == ""
    assert (duration(45), duration(141), duration(3725)) == ("45s", "2m21s", "1h02m")
