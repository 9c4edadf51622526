"""Solver agreement over an items folder accepted by :mod:`decisionpivot.item_origin`, and the uniform-guess
baseline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from decisionpivot.errors import DecisionPivotError, check_names
from decisionpivot.frame.framings import PLAIN
from decisionpivot.item_origin import accept_items_file
from decisionpivot.items import Item, read_items, sha256_file
from decisionpivot.scale import SCALE_BENCHMARK
from decisionpivot.scale.framing import FRAMED_BENCHMARK, check_framed_item
from decisionpivot.score.metrics import chance_pair_accuracy
from decisionpivot.score_questions import check_score_item
from decisionpivot.solve import solvers
from decisionpivot.solve.scale import scale_solvers


@dataclass(frozen=True)
class Disagreement:
    """One item whose solver answer differs from its gold answer (or where the solver failed)."""

    item_id: str
    """Item id."""
    gold: str | None
    """Gold answer."""
    solved: str | None
    """Solver's answer, None when it raised."""
    error: str | None = None
    """The solver's exception, if it raised."""


@dataclass(frozen=True)
class FamilyAgreement:
    """Solver agreement on one family's items file."""

    family: str
    """Family name."""
    items: int
    """Items checked."""
    agree: int
    """Items where solver and gold answer agree."""
    chance_pair_accuracy: float
    """Uniform-guess pair accuracy of this family's group structure. For an invariance suite a group holds every
    framing of every member, so this is the uniform guess's *robust* pair accuracy (about 0)."""
    disagreements: tuple[Disagreement, ...] = field(default_factory=tuple)
    """Every disagreeing item."""
    plain_chance_pair_accuracy: float | None = None
    """For an invariance suite: uniform-guess pair accuracy over the plain members only (the core figure on the
    sampled groups, what a framed pair accuracy is compared with); None for items that are not framed."""
    items_check: str = ""
    """How the items file was accepted (:func:`decisionpivot.item_origin.accept_items_file`; ``""`` when not asked)."""

    @property
    def framed(self) -> bool:
        """Whether the items are an invariance suite's (framed items naming their ``framing``)."""
        return self.plain_chance_pair_accuracy is not None

    @property
    def rate(self) -> float:
        return self.agree / self.items if self.items else 0.0


def agreement(family: str, items: Sequence[Item]) -> FamilyAgreement:
    """Run the family's solver on every item."""
    available = {**solvers(), **scale_solvers()}
    if family not in available:
        raise DecisionPivotError(f"no independent solver for family {family!r} (expected solve/{family}.py, or "
                                 f"solve/scale/{family}.py for a family of the scale suite)")
    solve = available[family]
    agree = 0
    bad: list[Disagreement] = []
    for item in items:
        try:
            got = solve(item)
        except Exception as exc:  # a solver crash is a disagreement to report, not a crash of verify
            bad.append(Disagreement(item.id, item.answer, None, f"{type(exc).__name__}: {exc}"))
            continue
        if got == item.answer:
            agree += 1
        else:
            bad.append(Disagreement(item.id, item.answer, got))
    plain = [i for i in items if i.extra.get("framing") == PLAIN] if any("framing" in i.extra for i in items) else None
    return FamilyAgreement(family, len(items), agree, chance_pair_accuracy(items), tuple(bad),
                           None if plain is None else chance_pair_accuracy(plain))


def verify_folder(folder: str | Path, families: Sequence[str] | None = None,
                  allow_modified_items: bool = False) -> list[FamilyAgreement]:
    """Accept each family file of ``folder`` by the rule of every verb that reads items
    (:mod:`decisionpivot.item_origin`: a core draw or suite this package re-derives or released; with
    ``allow_modified_items`` any file, said in its result), then its solver agreement."""
    from decisionpivot.generate.run import read_manifest  # the manifest format lives with its writer

    folder = Path(folder)
    manifest = read_manifest(folder)
    entries = manifest.get("families", {})
    names = list(families) if families else list(entries)
    if not names:
        raise DecisionPivotError(f"{folder}/MANIFEST.json lists no families")
    check_names("family", names, entries, where=f"{folder}/MANIFEST.json", plural="families")
    accepted = []
    for name in names:  # every file accepted before any solver runs
        path = folder / f"{name}.jsonl"
        if not path.exists():
            raise DecisionPivotError(f"{path}: listed in MANIFEST.json but missing")
        accepted.append((name, path, accept_items_file(path, sha256_file(path), allow_modified_items, name)))
    results = []
    for name, path, how in accepted:
        items = read_items(path)
        if manifest.get("benchmark") == SCALE_BENCHMARK:  # the scale suite: every item a well-formed score question
            for number, item in enumerate(items, start=1):
                check_score_item(item, f"{path}:{number}")
        if manifest.get("benchmark") == FRAMED_BENCHMARK:  # its framings: each a score question through key_map
            for number, item in enumerate(items, start=1):
                check_framed_item(item, f"{path}:{number}")
        results.append(replace(agreement(name, items), items_check=how))
    return results
