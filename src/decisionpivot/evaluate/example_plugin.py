"""An example decision-model plugin for systems of kind ``python``.

Protocol. A plugin is any callable reachable as ``package.module:callable``. It receives a list of
:class:`decisionpivot.items.Item` (at most ``batch_size`` of them, in file order) plus the system's
``options`` mapping as keyword arguments, and returns a list of the same length whose i-th entry
answers the i-th item, either

* a mapping ``{option_key: probability}`` covering every option key of the item (each value in [0, 1],
  summing to 1 within ``max(0.02, 0.005 x options)``: :func:`decisionpivot.probability.distribution`), or
* ``None`` or an ``Exception`` instance, recorded as an error for that item.

If the callable raises, every item of the batch is recorded as an error with the exception's text.
Declare it in a systems file::

    systems:
      my-decider: {kind: python, callable: mypackage.decider:decide, batch_size: 16, options: {threshold: 0.7}}

This example is a toy: it prefers the first listed option by ``weight`` and spreads the rest evenly.
"""

from __future__ import annotations

from collections.abc import Sequence

from decisionpivot.items import Item


def decide(items: Sequence[Item], weight: float = 0.55) -> list[dict[str, float]]:
    """Probability ``weight`` for the first option, the rest shared evenly by the others."""
    answers = []
    for item in items:
        keys = item.option_keys
        rest = (1.0 - weight) / (len(keys) - 1)
        answers.append({key: (weight if i == 0 else rest) for i, key in enumerate(keys)})
    return answers
