"""em_abt_buy (layer F): do the two product records refer to the same entity? (DeepMatcher test, Ditto format).

File: ``test.txt``. Parsing of the COL/VAL serialisation into the structured state
``{"left": {...}, "right": {...}}`` and the label mapping: see ``decisionpivot.reconstruct.tasks._ditto``.
"""

from __future__ import annotations

from decisionpivot.reconstruct.tasks._ditto import convert

__all__ = ["convert"]
