"""The one check of probabilities and log-probabilities, whatever their source.

Every number that becomes an option probability passes here: a decision API's answer (``systemone``,
``openai_decisions``, ``sglang_decisions``, the ``decision`` pipeline), a chat model's JSON object, a
``python`` plugin's mapping, a served model's log-probabilities (``logprobs``), an lm-eval or inspect log
(``dp import``) and every ``p`` an answer file holds when ``dp score`` reads it. The rules:

* **a probability** is a real number (not a boolean, not text), finite, in [0, 1]; a value above 1 by at
  most :data:`VALUE_SLACK` (float rounding) is read as 1;
* **a distribution** over an item's options gives every option key one probability, and their sum lies
  within ``max(tolerance, 0.005 x options)`` of 1 (:func:`sum_allowance`: providers round to two decimals or
  sum to 1 +- 0.01, DECISION-APIS.md section 4; ``tolerance`` is a decision kind's ``sum_tolerance``,
  :data:`DEFAULT_SUM_TOLERANCE` elsewhere); it is then renormalised to sum to 1;
* **a log-probability** is a real number, finite, at most 0; a value above 0 by at most :data:`LOG_SLACK`
  (float32 rounding of a sum of log-probabilities near 0) is read as 0. A distribution from
  log-likelihoods is their softmax (:func:`from_log_likelihoods`).

Anything else raises :class:`ProbabilityError`, whose message names the value and what was expected.
What the caller makes of it depends on who produced the number (:mod:`decisionpivot.evaluate.outcome`):
numbers a server computes (a decision API, log-probabilities) that are not probabilities are a fault of
that server - retried, never an answer; a chat model's or a plugin's own numbers are its answer, a failed
one; an import refuses the log; the scorer counts the record as failed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

VALUE_SLACK = 1e-6
"""A probability may exceed 1 by this much (float rounding); it is read as 1. No more."""
LOG_SLACK = 1e-4
"""A log-probability may exceed 0 by this much (float32 rounding of a sum near 0); it is read as 0. No more."""
ROUNDING_SLACK = 0.005
"""Largest error of rounding one probability to two decimals: a distribution of K options may miss 1 by K x this."""
DEFAULT_SUM_TOLERANCE = 0.02
"""How far from 1 a distribution's sum may be (before :data:`ROUNDING_SLACK` per option) when its source sets none."""


class ProbabilityError(ValueError):
    """A value that is not a probability (or a log-probability); the message says which and why."""


def _real(value: Any, where: str) -> float:
    """``value`` as a float when it is a real number of any size; ProbabilityError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProbabilityError(f"{where} is not a number: {str(value)[:60]!r}")
    try:
        number = float(value)
    except OverflowError:
        digits = int(value.bit_length() * 0.30103) + 1  # str() of a huge int raises past 4,300 digits
        raise ProbabilityError(f"{where} is too large for a probability (about {digits} digits)") from None
    if not math.isfinite(number):
        raise ProbabilityError(f"{where} is not a finite number: {value!r}")
    return number


def probability(value: Any, where: str = "the probability") -> float:
    """One probability: a finite real number in [0, 1] (within :data:`VALUE_SLACK` above 1, read as 1)."""
    number = _real(value, where)
    if number < 0 or number > 1 + VALUE_SLACK:
        raise ProbabilityError(f"{where} is not a probability in [0, 1]: {value!r}")
    return min(number, 1.0)


def log_probability(value: Any, where: str = "the log-probability") -> float:
    """One log-probability: a finite real number <= 0 (within :data:`LOG_SLACK` above 0, read as 0)."""
    number = _real(value, where)
    if number > LOG_SLACK:
        raise ProbabilityError(f"{where} is {value!r}, impossible for the log of a probability (a finite number "
                               "no greater than 0)")
    return min(number, 0.0)


def sum_allowance(options: int, tolerance: float = DEFAULT_SUM_TOLERANCE) -> float:
    """How far from 1 the sum of a distribution over ``options`` options may be: ``max(tolerance, 0.005 x K)``."""
    return max(tolerance, ROUNDING_SLACK * options)


def distribution(values: Mapping[str, Any], keys: Sequence[str],
                 tolerance: float = DEFAULT_SUM_TOLERANCE) -> dict[str, float]:
    """The checked distribution over ``keys`` (in their order), renormalised to sum to 1 (see the module docstring).

    Every key of ``keys`` needs a value and no other key may have one (a caller that fills missing keys with 0,
    as the scorer does, or ignores unknown ones, does so before calling).
    """
    unknown = sorted(str(k) for k in values if k not in keys)
    if unknown:
        raise ProbabilityError(f"names option(s) the item does not offer: {unknown[:5]}")
    missing = [k for k in keys if k not in values]
    if missing:
        raise ProbabilityError(f"misses option(s) {missing[:5]}")
    checked = {key: probability(values[key], f"the probability of {key!r}") for key in keys}
    total = math.fsum(checked.values())
    allowed = sum_allowance(len(keys), tolerance)
    if abs(total - 1.0) > allowed:
        raise ProbabilityError(f"probabilities sum to {total:.4g}, outside 1 +- {allowed:g}")
    return {key: value / total for key, value in checked.items()}


def from_log_likelihoods(keys: Sequence[str], values: Sequence[Any], where: str = "key") -> dict[str, float]:
    """Softmax over the keys' checked log-likelihoods: ``p(k) = exp(l_k - max l) / sum_j exp(l_j - max l)``."""
    if len(values) != len(keys) or not keys:
        raise ProbabilityError(f"{len(values)} log-likelihoods for {len(keys)} option keys")
    checked = [log_probability(value, f"the log-likelihood of {where} {key!r}")
               for key, value in zip(keys, values, strict=True)]
    top = max(checked)
    weights = [math.exp(v - top) for v in checked]
    total = sum(weights)
    return {key: w / total for key, w in zip(keys, weights, strict=True)}
