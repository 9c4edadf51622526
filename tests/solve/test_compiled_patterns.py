"""The solvers compile their patterns once (at import, or once per glossary or label set), not on every item: a
module-level ``re.match(r"...", text)`` looks its pattern up in ``re``'s cache on every call, which was a fifth of
the solver check's time (#33). Now at most one look-up per three items (a glossary's or a label set's patterns);
before, thousands per family."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from decisionpivot.solve import solvers
from tests.conftest import cached_draw


def test_solving_compiles_few_patterns(family_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    items = cached_draw(family_name).items
    solve = solvers()[family_name]
    lookups = 0
    real: Callable[..., Any] = re._compile  # type: ignore[attr-defined]

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal lookups
        lookups += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(re, "_compile", counting)
    for item in items:
        solve(item)
    assert lookups <= len(items) // 3, f"{family_name}: {lookups} pattern look-ups for {len(items)} items"
