"""The registry of core families: each family module calls :func:`register` when imported.

Family modules are found by listing this package (sorted, so the order never depends on the file
system), which lets a new family land by adding one file. Families are listed in layer order, then
by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from decisionpivot.errors import check_names
from decisionpivot.generate.family import FamilySpec

_FAMILIES: dict[str, FamilySpec] = {}
_NOT_FAMILIES = {"archive", "common", "editions", "family", "registry", "run"}


def register(spec: FamilySpec) -> FamilySpec:
    """Add a family; registering two families under one name is an error."""
    existing = _FAMILIES.get(spec.name)
    if existing is not None and existing is not spec:
        raise ValueError(f"family {spec.name!r} is registered twice")
    _FAMILIES[spec.name] = spec
    return spec


@cache
def _load_all() -> None:
    """Import every family module, once (listing the package on every ``family()`` call cost 1% of a draw)."""
    import decisionpivot.generate as package

    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    for name in names:
        if name not in _NOT_FAMILIES and not name.startswith("_"):
            importlib.import_module(f"decisionpivot.generate.{name}")


def families() -> list[FamilySpec]:
    """All registered families in layer order, then by name."""
    _load_all()
    return sorted(_FAMILIES.values(), key=lambda s: (s.layer, s.name))


def family(name: str) -> FamilySpec:
    """One family by name, with a helpful error for an unknown one."""
    _load_all()
    if name not in _FAMILIES:
        check_names("family", [name], [s.name for s in families()])
    return _FAMILIES[name]
