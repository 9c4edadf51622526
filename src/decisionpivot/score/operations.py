"""What a decision model costs to run, as decision-model benchmarks report it: readout, losses, speed, cost.

Per system, from its answer files and their meta files:

* **readout** - how answers were read (``systemone/noul``, ``systemone/choice``, ``chat/verbalised``,
  ``pipeline/noul``, ...): a yes/no item read as P(true) and one read as a two-option choice are
  different measurements, so the leaderboard says which;
* **input restrictions** - items the system could not take as they stood (more options than it
  reads, a state beyond its context: the paper's Table B1), which score as failed predictions;
* **failed predictions** - items of the included tasks scored as failed: error records (transient ones
  too: an item left unanswered), unusable probabilities and missing records;
* **latency** p50 / p95 over the records' ``latency_s`` (request time, not time queued for a slot), and
  the **concurrency** it was measured at (the client's in-flight limit): a server that queues requests
  internally answers one client 10x slower at 16 in flight than at 1, so latencies taken at different
  concurrency are not comparable and the leaderboard marks them;
* **cost per 1,000 decisions** from the recorded ``input_tokens`` / ``tokens`` and the prices per
  million tokens in the system's config (``price_per_million_input_tokens`` / ``..._output_tokens``);
  absent when no price is configured or no usage was recorded;
* whether any task was evaluated with ``--allow-modified-items``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from decisionpivot.score.answers import AnswerSummary, TaskAnswers


def latency_percentiles(latency_s: np.ndarray) -> tuple[float | None, float | None]:
    """(p50, p95) in seconds of the recorded latencies (NaN = not recorded), linear interpolation."""
    present = latency_s[~np.isnan(latency_s)]
    if not present.size:
        return None, None
    p50, p95 = np.percentile(present, [50, 95])
    return float(p50), float(p95)


def cost_per_thousand(input_tokens: np.ndarray, output_tokens: np.ndarray, price_input: float | None,
                      price_output: float | None) -> float | None:
    """Cost of 1,000 decisions: 1000 x mean over records with usage of (in x p_in + out x p_out) / 1e6.

    Records without ``input_tokens`` are left out; a missing output count costs 0 output tokens.
    None without a configured price or without any usage.
    """
    if price_input is None and price_output is None:
        return None
    has_usage = ~np.isnan(input_tokens)
    if not has_usage.any():
        return None
    outputs = np.nan_to_num(output_tokens[has_usage], nan=0.0)
    per_decision = (input_tokens[has_usage] * (price_input or 0.0) + outputs * (price_output or 0.0)) / 1e6
    return float(1000 * per_decision.mean())


@dataclass(frozen=True)
class SystemOperations:
    """One system's readout, input-restriction losses, speed and cost."""

    system: str
    """System name."""
    readout: str
    """How answers were read (from the meta files; several joined with '+' if they differ)."""
    input_restrictions: int
    """Error records whose reason is an input restriction, over every answer file read."""
    latency_p50_s: float | None
    """Median request latency in seconds (None when not recorded)."""
    latency_p95_s: float | None
    """95th percentile of the request latency in seconds."""
    concurrency: str
    """In-flight limit the latencies were measured at (``"1"``, ``"16"``; ``"4+16"`` when tasks differ; ``""`` when
    no latency was recorded)."""
    failed_predictions: int
    """Items of the included tasks scored as failed (error records, unusable probabilities, missing records)."""
    unanswered: int
    """Of those, transient error records: items the system never answered (server down, retries spent)."""
    cost_per_1000: float | None
    """Cost of 1,000 decisions in the configured price's currency (None: no price or no usage)."""
    modified_items: bool
    """Some task was evaluated with --allow-modified-items."""


def _price(answers: Sequence[TaskAnswers], key: str) -> float | None:
    prices = {(a.meta.get("system") or {}).get(key) for a in answers}
    prices.discard(None)
    return float(prices.pop()) if len(prices) == 1 else None


def system_operations(system: str, answers: Sequence[TaskAnswers],
                      summaries: Iterable[AnswerSummary]) -> SystemOperations:
    """The operations figures of one system from its included answers and every file summary."""
    readouts = sorted({str(a.meta.get("readout") or (a.meta.get("system") or {}).get("kind") or "?")
                       for a in answers})
    latency = np.concatenate([a.latency_s for a in answers]) if answers else np.array([])
    p50, p95 = latency_percentiles(latency)
    empty = np.full(0, np.nan)
    inputs = np.concatenate([a.input_tokens if a.input_tokens is not None else np.full(a.size, np.nan)
                             for a in answers]) if answers else empty
    outputs = np.concatenate([a.tokens for a in answers]) if answers else empty
    cost = cost_per_thousand(inputs, outputs, _price(answers, "price_per_million_input_tokens"),
                             _price(answers, "price_per_million_output_tokens"))
    timed = [a for a in answers if not np.isnan(a.latency_s).all()]
    levels = sorted({str((a.meta.get("system") or {}).get("concurrency", "?")) for a in timed},
                    key=lambda c: (not c.isdigit(), int(c) if c.isdigit() else 0, c))
    return SystemOperations(
        system=system,
        readout="+".join(readouts) or "-",
        input_restrictions=sum(s.restricted for s in summaries if s.system == system),
        latency_p50_s=p50,
        latency_p95_s=p95,
        concurrency="+".join(levels),
        failed_predictions=int(sum(int(a.failed.sum()) for a in answers)),
        unanswered=int(sum(a.transient for a in answers)),
        cost_per_1000=cost,
        modified_items=any(bool(a.meta.get("allow_modified_items")) for a in answers),
    )
