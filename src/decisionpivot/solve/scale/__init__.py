"""Independent solvers of the scale suite's families (``dp scale``), one module per family.

As for the core solvers (:mod:`decisionpivot.solve`), a module defines ``FAMILY`` and ``solve(item) -> str``
(the key of the level it derives), reads only the rendered item - state, question, options - and never imports
the generators (``decisionpivot.scale``, ``decisionpivot.generate``): the solvers are the independent check of
the suite's gold. A solver finds its answer's option by the level's name, as the option's meaning gives it
(:func:`decisionpivot.score_questions.level_name`), never by position.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from decisionpivot.items import Item, Option
from decisionpivot.score_questions import level_name
from decisionpivot.solve import Solver
from decisionpivot.solve.framed import answering_framed


def scale_solvers() -> dict[str, Solver]:
    """Scale family name -> solve function, for every solver module in this package."""
    found: dict[str, Solver] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module: ModuleType = importlib.import_module(f"{__name__}.{info.name}")
        name = getattr(module, "FAMILY", None)
        solve = getattr(module, "solve", None)
        if isinstance(name, str) and callable(solve):
            if name in found:
                raise ValueError(f"two scale solver modules claim family {name!r}")
            found[name] = answering_framed(solve)
    return found


def key_of_level(item: Item, name: str) -> str:
    """The key of the option whose level is called ``name``; a ValueError when no option or several are."""
    matches: list[Option] = [o for o in item.options if level_name(o) == name]
    if len(matches) != 1:
        raise ValueError(f"{item.id}: {len(matches)} options name the level {name!r}")
    return matches[0].key
