"""The registry of the scale suite's families: each family module calls :func:`register` when imported.

Kept apart from the core registry (``generate/registry.py``), which lists exactly the core's 13 families.
Family modules are found by listing this package (sorted, so the order never depends on the file system);
families are listed in layer order, then by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from decisionpivot.errors import DecisionPivotError, unknown_names
from decisionpivot.generate.family import FamilySpec

_FAMILIES: dict[str, FamilySpec] = {}
_NOT_FAMILIES = {"boundary", "framing", "names", "registry", "run"}


def register(spec: FamilySpec) -> FamilySpec:
    """Add a family; registering two families under one name is an error."""
    existing = _FAMILIES.get(spec.name)
    if existing is not None and existing is not spec:
        raise ValueError(f"scale family {spec.name!r} is registered twice")
    _FAMILIES[spec.name] = spec
    return spec


@cache
def _load_all() -> None:
    """Import every family module, once."""
    import decisionpivot.scale as package

    for name in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
        if name not in _NOT_FAMILIES and not name.startswith("_"):
            importlib.import_module(f"decisionpivot.scale.{name}")


def families() -> list[FamilySpec]:
    """All scale families in layer order, then by name."""
    _load_all()
    return sorted(_FAMILIES.values(), key=lambda s: (s.layer, s.name))


def family(name: str) -> FamilySpec:
    """One scale family by name; an unknown name is an error naming the known ones."""
    _load_all()
    try:
        return _FAMILIES[name]
    except KeyError:
        raise DecisionPivotError(unknown_names("scale family", [name], [s.name for s in families()],
                                               plural="scale families")) from None


def is_scale_family(name: str) -> bool:
    """True when ``name`` is a family of the scale suite."""
    _load_all()
    return name in _FAMILIES
