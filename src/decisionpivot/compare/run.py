"""Reading two run folders against one items folder and comparing them item by item and group by group.

The baseline and the candidate are answer folders of one system each (``runs/<system>``, possibly from two
different runs roots); both are read by the scorer's rules (:func:`decisionpivot.score.pipeline.load_runs`)
against the same items, so the same files are checked the same way. A family is compared when both have it
scored (records for at least 99% of its items); the others are listed in the notes, and one that either side
has answers to makes the verdict **cannot pass** (:data:`CANNOT_PASS`, exit 3): "not significantly worse on
any family" cannot be said of a family that was not compared (a candidate missing 9 of 600 answers of the
family it broke would otherwise pass).

The test unit is the **contrast group**, since groups are independent draws where the items of one group
are not (the bootstrap resamples groups too). A group is *better* when the candidate answers more of its
members correctly than the baseline, *worse* when fewer; the exact McNemar test (a sign test) compares the
two counts. For groups of one item this is McNemar's test on items; for a contrast pair it uses every
change of a member, not only the pairs that flip between solved and unsolved (weak systems solve almost no
pair, and their changes would go unseen). Groups fixed and broken (solved before and not after, or the
reverse: the pair-accuracy criterion) and items fixed and broken are reported beside.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from decisionpivot.compare.significance import holm_adjusted, mcnemar_exact_p
from decisionpivot.errors import DecisionPivotError
from decisionpivot.item_origin import modified_note
from decisionpivot.score.answers import TaskAnswers
from decisionpivot.score.bootstrap import BOOTSTRAP_SEED, DEFAULT_RESAMPLES, Difference, paired_difference
from decisionpivot.score.layout import TaskLayout
from decisionpivot.score.pipeline import LoadedRuns, default_jobs, load_runs, score_loaded
from decisionpivot.score.results import CORE, MACRO
from decisionpivot.user_files import FRACTION, POINTS, RESAMPLES

BASELINE = "baseline"
"""Name the baseline's answers are scored under (the real folders are recorded beside it)."""
CANDIDATE = "candidate"
"""Name the candidate's answers are scored under."""
OVERALL = "overall"
"""Row of every compared family together (not part of Holm's correction)."""
DEFAULT_ALPHA = 0.05
"""Family-wise error rate of the test across families."""
DEFAULT_MIN_EFFECT = 0.0
"""Smallest drop of item accuracy (percentage points) that fails the comparison."""
PASSES, FAILS, CANNOT_PASS = "passes", "fails", "cannot pass"
"""The verdicts: not significantly worse on any family; significantly worse on one; a family could not be
compared (so "not worse on any family" cannot be stated)."""
EXIT_CODES = {PASSES: 0, FAILS: 1, CANNOT_PASS: 3}
"""The exit status of `dp compare --baseline --candidate` per verdict (2 stays bad input, as for every verb)."""


@dataclass(frozen=True)
class ChangedGroup:
    """A contrast group where one run answers more members correctly than the other."""

    group: str
    """The group id (the item id for an item without a group)."""
    first_item: str
    """Id of its first member in file order (the group browser opens the group from it)."""
    changed_items: tuple[str, ...]
    """Members whose correctness changed in the direction of the group's change (broken, or fixed, members)."""
    solved_changed: bool
    """The group went from solved to unsolved (or the reverse): it changes pair accuracy."""


@dataclass(frozen=True)
class FamilyComparison:
    """Baseline against candidate on one family (or :data:`OVERALL`)."""

    family: str
    """Family name, or ``overall``."""
    items: int
    """Items compared."""
    groups: int
    """Contrast groups compared."""
    items_fixed: int
    """Items wrong in the baseline and right in the candidate."""
    items_broken: int
    """Items right in the baseline and wrong in the candidate."""
    groups_fixed: int
    """Groups unsolved by the baseline and solved by the candidate."""
    groups_broken: int
    """Groups solved by the baseline and unsolved by the candidate."""
    groups_better: int
    """Groups where the candidate answers more members correctly (the test's discordant units in its favour)."""
    groups_worse: int
    """Groups where the candidate answers fewer members correctly."""
    baseline_pair_accuracy: float
    """Baseline pair accuracy, percent (family-macro for ``overall``)."""
    candidate_pair_accuracy: float
    """Candidate pair accuracy, percent."""
    difference: Difference
    """Candidate - baseline pair accuracy in points, with the matched-resample 95% interval."""
    baseline_item_accuracy: float
    """Baseline item accuracy, percent."""
    candidate_item_accuracy: float
    """Candidate item accuracy, percent."""
    item_difference: Difference
    """Candidate - baseline item accuracy in points, with the matched-resample 95% interval."""
    p_value: float
    """Exact McNemar p-value of groups better against groups worse (two-sided)."""
    p_holm: float | None
    """Holm-adjusted p-value across families (None for ``overall``)."""
    worse: bool
    """Significantly worse: p_holm <= alpha, more groups worse than better, and item accuracy down by at least
    min_effect points."""
    broken: tuple[ChangedGroup, ...]
    """The worse groups (fewer members right; the broken ones among them), in file order (empty for ``overall``)."""
    fixed: tuple[ChangedGroup, ...]
    """The better groups, in file order (empty for ``overall``)."""


@dataclass(frozen=True)
class Comparison:
    """Everything ``dp compare --baseline --candidate`` reports."""

    baseline: str
    """The baseline's answer folder, as given."""
    candidate: str
    """The candidate's answer folder, as given."""
    items: str
    """The items folder both were read against."""
    families: tuple[FamilyComparison, ...]
    """Per compared family, in the scorer's order (layer, then name)."""
    overall: FamilyComparison
    """All compared families together."""
    alpha: float
    """Family-wise level of the test."""
    min_effect: float
    """Smallest item-accuracy drop (points) that fails."""
    resamples: int
    """Bootstrap resamples."""
    seed: int
    """Bootstrap seed."""
    notes: tuple[str, ...]
    """Families left out and why."""
    not_compared: tuple[str, ...] = ()
    """Families one side has answers to that could not be compared (the other side has none, or either side
    fewer than 99% of the items): each makes the verdict "cannot pass"."""

    @property
    def failed(self) -> bool:
        """True when the candidate is significantly worse on some family (the verb exits 1)."""
        return any(f.worse for f in self.families)

    @property
    def verdict(self) -> str:
        """:data:`FAILS` when significantly worse on a compared family, else :data:`CANNOT_PASS` when a family
        could not be compared, else :data:`PASSES`."""
        if self.failed:
            return FAILS
        return CANNOT_PASS if self.not_compared else PASSES


def _groups(layout: TaskLayout) -> list[list[int]]:
    members: dict[int, list[int]] = {}
    for position, group in enumerate(layout.group_index.tolist()):
        members.setdefault(group, []).append(position)
    return [members[g] for g in sorted(members)]


def members_correct(correct: np.ndarray, group_index: np.ndarray) -> np.ndarray:
    """``(G,)`` how many members of each group g are answered correctly (groups numbered 0..G-1)."""
    groups = int(group_index.max()) + 1 if group_index.size else 0
    return np.bincount(group_index, weights=np.asarray(correct, dtype=bool), minlength=groups).astype(np.int64)


def group_solved(correct: np.ndarray, group_index: np.ndarray) -> np.ndarray:
    """``(G,)`` True where every member of group g is correct (groups numbered 0..G-1)."""
    sizes = np.bincount(group_index, minlength=int(group_index.max()) + 1 if group_index.size else 0)
    return members_correct(correct, group_index) == sizes


def _changed(layout: TaskLayout, members: list[list[int]], chosen: np.ndarray, items: np.ndarray,
             flipped: np.ndarray) -> tuple[ChangedGroup, ...]:
    out = []
    for g in np.flatnonzero(chosen).tolist():
        first = layout.items[members[g][0]]
        out.append(ChangedGroup(first.group if first.group is not None else first.id, first.id,
                                tuple(layout.item_ids[p] for p in members[g] if items[p]), bool(flipped[g])))
    return tuple(out)


def _side(folder: str | Path, items: Path, role: str, allow_modified_items: bool = False) -> tuple[str, LoadedRuns]:
    path = Path(folder)
    if not path.is_dir():
        raise DecisionPivotError(f"--{role} {folder}: no such answer folder "
                                 "(expected RUNS/<system>, e.g. runs/uniform)")
    loaded = load_runs(path.parent, items, None, [path.name], tasks=(), allow_modified_items=allow_modified_items)
    return path.name, loaded


def _has_file(loaded: LoadedRuns, system: str, task: str) -> bool:
    """Whether ``system`` has an answer file for ``task`` (scorable or not)."""
    return any(s.system == system and s.task == task for s in loaded.answer_files)


def _why(loaded: LoadedRuns, system: str, task: str) -> str:
    """Why ``system``'s answers to ``task`` are not scorable, in the scorer's words."""
    reason = next((e.reason for e in loaded.exclusions if e.system == system and e.task == task), None)
    return f"has no scored answers ({reason or 'fewer than 99% of items'})"


def _renamed(loaded: LoadedRuns, system: str, label: str) -> dict[tuple[str, str], TaskAnswers]:
    return {(label, task): replace(a, system=label) for (s, task), a in loaded.answers.items() if s == system}


def compare_folders(
    baseline: str | Path, candidate: str | Path, items: str | Path, alpha: float = DEFAULT_ALPHA,
    min_effect: float = DEFAULT_MIN_EFFECT, resamples: int = DEFAULT_RESAMPLES, seed: int = BOOTSTRAP_SEED,
    allow_modified_items: bool = False,
) -> Comparison:
    """Compare the baseline's and the candidate's answers to the core items (see the module docstring); items the
    rule of every verb refuses stop it unless ``allow_modified_items`` (a note then says so)."""
    FRACTION.require(alpha, "--alpha")
    POINTS.require(min_effect, "--min-effect")
    RESAMPLES.require(resamples, "--resamples")
    items = Path(items)
    base_name, base = _side(baseline, items, "baseline", allow_modified_items)
    cand_name, cand = _side(candidate, items, "candidate", allow_modified_items)
    answers = _renamed(base, base_name, BASELINE) | _renamed(cand, cand_name, CANDIDATE)
    notes = [note] if (note := modified_note(base.item_checks)) else []
    blocking = []
    kept: dict[tuple[str, str], TaskAnswers] = {}
    for layout in base.core:
        present = [(label, layout.task) in answers for label in (BASELINE, CANDIDATE)]
        if all(present):
            kept.update({(label, layout.task): answers[(label, layout.task)] for label in (BASELINE, CANDIDATE)})
            continue
        reasons = [f"the {label} {_why(loaded, name, layout.task)}"
                   for label, name, loaded, ok in ((BASELINE, base_name, base, present[0]),
                                                   (CANDIDATE, cand_name, cand, present[1])) if not ok]
        answered = [_has_file(loaded, name, layout.task) for name, loaded in ((base_name, base), (cand_name, cand))]
        if any(answered):
            blocking.append(layout.task)
            notes.append(f"{layout.task}: not compared, so the candidate cannot pass: {' and '.join(reasons)}")
        else:
            notes.append(f"{layout.task}: not compared, neither has answers to it")
    if not kept:
        raise DecisionPivotError(f"{baseline} and {candidate}: no family that both have scored answers for")
    common = replace(base, systems=(BASELINE, CANDIDATE), answers=kept, short={}, exclusions=(), warnings=())
    scoring = score_loaded(common, resamples, seed, default_jobs())

    def row(family: str, counts: tuple[int, ...], p: float, p_holm: float | None,
            broken: tuple[ChangedGroup, ...] = (), fixed: tuple[ChangedGroup, ...] = ()) -> FamilyComparison:
        task = MACRO if family == OVERALL else family
        a = scoring.get(BASELINE, CORE, task, "pair_accuracy")
        b = scoring.get(CANDIDATE, CORE, task, "pair_accuracy")
        ia = scoring.get(BASELINE, CORE, task, "item_accuracy")
        ib = scoring.get(CANDIDATE, CORE, task, "item_accuracy")
        assert a is not None and b is not None and ia is not None and ib is not None
        items = paired_difference(ib.value, ib.samples, ia.value, ia.samples)
        worse = (p_holm is not None and p_holm <= alpha and counts[7] > counts[6] and -items.value >= min_effect)
        return FamilyComparison(family, *counts, a.value, b.value, paired_difference(b.value, b.samples, a.value,
                                a.samples), ia.value, ib.value, items, p, p_holm, worse, broken, fixed)

    compared = [layout for layout in base.core if (BASELINE, layout.task) in kept]
    per_family = []
    for layout in compared:
        before, after = kept[(BASELINE, layout.task)].correct, kept[(CANDIDATE, layout.task)].correct
        solved_before, solved_after = group_solved(before, layout.group_index), group_solved(after, layout.group_index)
        members = _groups(layout)
        right_before = members_correct(before, layout.group_index)
        right_after = members_correct(after, layout.group_index)
        counts = (layout.size, layout.groups, int((~before & after).sum()), int((before & ~after).sum()),
                  int((~solved_before & solved_after).sum()), int((solved_before & ~solved_after).sum()),
                  int((right_after > right_before).sum()), int((right_after < right_before).sum()))
        per_family.append((layout, counts, _changed(layout, members, right_after < right_before, before & ~after,
                                                    solved_before & ~solved_after),
                           _changed(layout, members, right_after > right_before, ~before & after,
                                    ~solved_before & solved_after)))
    p_values = [mcnemar_exact_p(counts[6], counts[7]) for _, counts, _, _ in per_family]
    adjusted = holm_adjusted(p_values)
    families = tuple(row(layout.task, counts, p, q, broken, fixed)
                     for (layout, counts, broken, fixed), p, q in zip(per_family, p_values, adjusted, strict=True))
    totals = tuple(int(sum(counts[k] for _, counts, _, _ in per_family)) for k in range(8))
    overall = row(OVERALL, totals, mcnemar_exact_p(totals[6], totals[7]), None)
    return Comparison(str(baseline), str(candidate), str(items), families, overall, alpha, min_effect, resamples,
                      seed, tuple(notes), tuple(blocking))

