"""raha_beers (layer F): is the named cell of the beers table erroneous? (Raha benchmark, dirty vs clean).

Files: ``dirty.csv``, ``clean.csv``. Items, labels (dirty != clean after Raha's normaliser, columns
aligned by position), state, grouping: see ``decisionpivot.reconstruct.tasks._raha``.
"""

from __future__ import annotations

from decisionpivot.reconstruct.tasks._raha import convert

__all__ = ["convert"]
