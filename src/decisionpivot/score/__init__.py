"""score: answer files -> the paper's metrics with bootstrap intervals, tables and figures.

Modules, in the order data flows through them:

* :mod:`~decisionpivot.score.layout` - an items file as aligned arrays (groups, levels, binary pairs);
* :mod:`~decisionpivot.score.answers` - reading ``runs/<system>/<task>.jsonl`` under the paper's rules;
* :mod:`~decisionpivot.score.metrics` - every metric as a small pure numpy function (definitions in
  the docstrings), each with a vectorised bootstrap path (resample multiplicities as weights);
* :mod:`~decisionpivot.score.bootstrap` - index matrices (seed 20261007, one per task, shared by all
  systems), percentile intervals, paired differences, Spearman rank correlation;
* :mod:`~decisionpivot.score.core` / :mod:`~decisionpivot.score.reference` - the two tracks;
* :mod:`~decisionpivot.score.results`, :mod:`~decisionpivot.score.report`,
  :mod:`~decisionpivot.score.figures` - estimates, tables, plots;
* :mod:`~decisionpivot.score.pipeline` - ``dp score`` and ``dp compare``.

How core aggregates are formed (stated once, in :data:`decisionpivot.score.core.CORE_METRICS`, and
repeated in every leaderboard's footnote): pair accuracy, item accuracy, pair direction (binary
families only), C(0.05), Brier and AURC are **family-macro** - computed per family, then averaged over
the families, as the paper's "macro-averaged over 13 families" (C(0.05) therefore allows a different
confidence cut per family). Accuracy and share at confidence >= 0.90 and the calibration error are
computed on the **pooled items** of all families, as the paper's Table D1. Every value has a 95% percentile
bootstrap interval (ECE too, which the paper reports as a point estimate), and ``ece_noise_floor`` is the
ECE a perfectly calibrated system would show on the same confidences (:mod:`decisionpivot.score.calibration`).

Entry points: :func:`~decisionpivot.score.pipeline.score_runs`,
:func:`~decisionpivot.score.pipeline.compare_runs`, and for the reference track
:class:`~decisionpivot.score.reference.ReferenceTask` with
:func:`~decisionpivot.score.reference.register_reference_task`.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "score_runs": "decisionpivot.score.pipeline",
    "compare_runs": "decisionpivot.score.pipeline",
    "load_runs": "decisionpivot.score.pipeline",
    "score_loaded": "decisionpivot.score.pipeline",
    "ReferenceTask": "decisionpivot.score.reference",
    "register_reference_task": "decisionpivot.score.reference",
    "reference_tasks": "decisionpivot.score.reference",
    "spearman": "decisionpivot.score.bootstrap",
    "system_scores": "decisionpivot.score.results",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import the public names lazily, so that ``decisionpivot.score.metrics`` stays light to import."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'decisionpivot.score' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
