"""Writing a comparison: ``compare.json`` (every figure and every changed group) and ``compare.md``.

Pair accuracies and differences are in percentage points; p-values are fractions. Numbers are rounded to 6
decimals and keys sorted, so the bytes depend on the inputs only.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from decisionpivot import __version__
from decisionpivot.compare.run import CANNOT_PASS, FAILS, PASSES, ChangedGroup, Comparison, FamilyComparison
from decisionpivot.items import atomic_write_bytes
from decisionpivot.score.bootstrap import Difference
from decisionpivot.score.report import markdown_table, markdown_text

DECIMALS = 6
TEST = ("exact McNemar (sign) test, two-sided, of the contrast groups where the candidate answers more members "
        "correctly against those where it answers fewer, Holm's correction across families; 95% intervals of the "
        "accuracy differences from the scorer's matched group resamples")


def _number(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), DECIMALS) + 0.0


def _group(group: ChangedGroup) -> dict[str, Any]:
    return {"group": group.group, "first_item": group.first_item, "changed_items": list(group.changed_items),
            "solved_changed": group.solved_changed}


def family_record(f: FamilyComparison) -> dict[str, Any]:
    """One family (or the overall row) of compare.json."""
    d = f.difference
    return {
        "items": f.items, "groups": f.groups,
        "items_fixed": f.items_fixed, "items_broken": f.items_broken,
        "groups_fixed": f.groups_fixed, "groups_broken": f.groups_broken,
        "groups_better": f.groups_better, "groups_worse": f.groups_worse,
        "baseline_pair_accuracy": _number(f.baseline_pair_accuracy),
        "candidate_pair_accuracy": _number(f.candidate_pair_accuracy),
        "difference": _number(d.value), "difference_ci": [_number(d.ci_low), _number(d.ci_high)],
        "baseline_item_accuracy": _number(f.baseline_item_accuracy),
        "candidate_item_accuracy": _number(f.candidate_item_accuracy),
        "item_difference": _number(f.item_difference.value),
        "item_difference_ci": [_number(f.item_difference.ci_low), _number(f.item_difference.ci_high)],
        "p_value": _number(f.p_value), "p_holm": _number(f.p_holm), "worse": f.worse,
        "broken": [_group(g) for g in f.broken], "fixed": [_group(g) for g in f.fixed],
    }


def comparison_record(c: Comparison) -> dict[str, Any]:
    """The whole of compare.json."""
    return {
        "baseline": c.baseline, "candidate": c.candidate, "items": c.items,
        "test": TEST, "alpha": c.alpha, "min_effect": c.min_effect,
        "resamples": c.resamples, "seed": c.seed, "package_version": __version__,
        "failed": c.failed, "verdict": c.verdict, "not_compared": list(c.not_compared),
        "families": {f.family: family_record(f) for f in c.families},
        "overall": family_record(c.overall),
        "notes": list(c.notes),
    }


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _change(before: float, after: float, d: Difference) -> str:
    interval = "" if math.isnan(d.ci_low) else f" [{d.ci_low:+.1f}, {d.ci_high:+.1f}]"
    return f"{before:.1f} -> {after:.1f} ({d.value:+.1f}{interval})"


def _row(f: FamilyComparison) -> list[str]:
    return [f.family, f"{f.groups}", f"{f.groups_better}", f"**{f.groups_worse}**" if f.worse else f"{f.groups_worse}",
            f"{f.groups_fixed}", f"{f.groups_broken}", f"{f.items_fixed}", f"{f.items_broken}",
            _change(f.baseline_item_accuracy, f.candidate_item_accuracy, f.item_difference),
            _change(f.baseline_pair_accuracy, f.candidate_pair_accuracy, f.difference), _p(f.p_value), _p(f.p_holm),
            "**worse**" if f.worse else ""]


def comparison_markdown(c: Comparison) -> str:
    """compare.md: the verdict, the table per family and the broken groups."""
    worse = ", ".join(f.family for f in c.families if f.worse)
    verdict = {FAILS: f"**Fails**: the candidate is significantly worse on {worse}",
               CANNOT_PASS: f"**Cannot pass**: {', '.join(c.not_compared)} could not be compared (see the notes), "
                            "so the candidate is not shown to be no worse there",
               PASSES: "**Passes**: the candidate is not significantly worse on any family"}[c.verdict]
    lines = [
        f"# {markdown_text(c.candidate)} against {markdown_text(c.baseline)}\n",
        f"{verdict} (family-wise alpha {c.alpha:g}, minimum drop {c.min_effect:g} points of item accuracy).\n",
        f"Items: {markdown_text(c.items)}. Test: {TEST} ({c.resamples} resamples, seed {c.seed}). Better / worse: "
        "groups where the candidate answers more / fewer members correctly. Fixed: wrong (a group: unsolved) in "
        "the baseline, right (solved) in the candidate; broken: the reverse.\n",
        markdown_table(["Family", "Groups", "Better", "Worse", "Groups fixed", "Groups broken", "Items fixed",
                        "Items broken", "Item acc. [95%]", "Pair acc. [95%]", "p", "p (Holm)", ""],
                       [_row(f) for f in (*c.families, c.overall)]),
    ]
    lines += [f"- {note}" for note in c.notes]
    broken = [(f.family, g) for f in c.families for g in f.broken]
    if broken:
        lines.append(f"\n## Worse groups ({len(broken)}): members broken\n")
        lines += [f"- {family} `{markdown_text(g.group)}`{' (was solved)' if g.solved_changed else ''}: "
                  f"{', '.join(g.changed_items)}" for family, g in broken]
    return "\n".join(lines) + "\n"


def write_comparison(c: Comparison, out: Path) -> list[Path]:
    """``<out>/compare.json`` and ``<out>/compare.md``; returns the paths."""
    files = {
        out / "compare.json": (json.dumps(comparison_record(c), indent=2, sort_keys=True, allow_nan=False)
                               + "\n").encode("utf-8"),
        out / "compare.md": comparison_markdown(c).encode("utf-8"),
    }
    for path, data in files.items():
        atomic_write_bytes(path, data)
    return list(files)
