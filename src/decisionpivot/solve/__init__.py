"""solve: independent solvers, one module per family, that re-derive gold answers from the rendered item.

A solver module defines ``FAMILY`` (the family name) and ``solve(item) -> str`` (the option key it
derives). It reads only the rendered item - state, question, options - and never imports
``decisionpivot.generate``: the solvers are the independent check of the generators. Framed items of the
invariance suite are answered through :mod:`.framed` (the decision in the core item's keys, put back in
the framed item's keys).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

from decisionpivot.items import Item
from decisionpivot.solve.framed import answering_framed

Solver = Callable[[Item], str]


def solvers() -> dict[str, Solver]:
    """Family name -> solve function, for every solver module in this package."""
    found: dict[str, Solver] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module: ModuleType = importlib.import_module(f"{__name__}.{info.name}")
        name = getattr(module, "FAMILY", None)
        solve = getattr(module, "solve", None)
        if isinstance(name, str) and callable(solve):
            if name in found:
                raise ValueError(f"two solver modules claim family {name!r}")
            found[name] = answering_framed(solve)
    return found
