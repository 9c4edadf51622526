"""frame: the invariance suite (``dp frame``) - every core item asked in other ways, each with exact gold.

:mod:`.framings` derives the framed items of one core item; one module per family in this package
holds that family's hand-written material (``FAMILY`` and ``MATERIAL``) - kept here rather than in the
generator modules because a framing reads only the rendered item, never the generator's case, and
the generators' bytes stay those of the release; :mod:`.suite` samples whole contrast groups from a
release and writes the suite with its manifest.
"""

from __future__ import annotations

import importlib
import pkgutil

from decisionpivot.errors import DecisionPivotError
from decisionpivot.frame.framings import FamilyMaterial

_NOT_FAMILIES = {"framings", "suite"}


def materials() -> dict[str, FamilyMaterial]:
    """Family name -> framing material, for every family module of this package (sorted by name)."""
    found: dict[str, FamilyMaterial] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name in _NOT_FAMILIES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        material = getattr(module, "MATERIAL", None)
        if isinstance(material, FamilyMaterial):
            if material.family in found:
                raise ValueError(f"two framing modules claim family {material.family!r}")
            found[material.family] = material
    return found


def material(name: str) -> FamilyMaterial:
    """One family's framing material, with a clear error for a family without any."""
    found = materials()
    if name not in found:
        raise DecisionPivotError(f"no framing material for family {name!r} (expected frame/{name}.py); "
                                 f"families with material: {', '.join(found)}")
    return found[name]
