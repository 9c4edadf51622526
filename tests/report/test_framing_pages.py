"""The report's framing view (issue 30): each group's plain and framed members side by side, what changed marked,
answers that moved marked - for a suite scored as the items folder and for one scored beside the core."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import Item, Option, write_items
from decisionpivot.report.framing_pages import framing_change
from decisionpivot.report.inputs import read_inputs
from decisionpivot.report.site import build_files, report_site, suite_runs
from decisionpivot.score.pipeline import score_runs
from tests.conftest import cached_draw
from tests.score.framed import SYSTEMS, framed_family, write_runs, write_suite

FAMILIES = ("fact_answerable", "policy_case")
CHOSEN = {name: SYSTEMS[name] for name in ("oracle", "steering_follower", "negation_ignorer")}


@pytest.fixture(scope="module")
def scored_suite(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("framing-view")
    suite = write_suite(root / "suite", {f: framed_family(cached_draw(f).items, 2) for f in FAMILIES})
    runs = write_runs(root / "runs", suite, CHOSEN)
    score_runs(runs, suite, None, root / "reports", resamples=10, tasks=(), figures=False,
               allow_modified_items=True)  # a hand-framed suite: no draw of this package
    built = report_site(root / "reports", suite, runs, progress=False, allow_modified_items=True)
    return {"root": root, "suite": suite, "runs": runs, "reports": root / "reports", "site": built.out}


def _row(page: str, item_id: str) -> str:
    match = re.search(f'<tr id="{re.escape(item_id)}">(.*?)</tr>', page, re.DOTALL)
    assert match, item_id
    return match.group(1)


def test_the_framing_view_is_linked_and_lists_every_family(scored_suite: dict[str, Path]) -> None:
    site = scored_suite["site"]
    assert 'href="framings.html"' in (site / "index.html").read_text()  # the navigation bar
    assert '<a href="framings.html">Framings</a>' in (site / "groups.html").read_text()
    index = (site / "framings.html").read_text()
    for family in FAMILIES:
        assert f'href="framings/{family}.html"' in index
    assert "steering_success" in index and "100.0" in index  # figures from scoring.json's invariance section
    heads = re.findall(r'<th scope="col"><abbr title="([a-z_]+): [^"]+">([^<]+)</abbr></th>', index)
    assert dict(heads) == {"robust_pair_accuracy": "Robust pair acc.", "plain_pair_accuracy": "Plain pair acc.",
                           "flip_rate": "Flip rate", "negation_coherence": "Negation coherence (NOT in question only)",
                           "negation_in_options_coherence": "Negation coherence (NOT also in options)",
                           "steering_success": "Steering success", "request_interference": "Request interference"}


def test_a_groups_plain_and_framed_members_side_by_side_with_what_changed(scored_suite: dict[str, Path]) -> None:
    page = (scored_suite["site"] / "framings" / "fact_answerable.html").read_text()
    base = cached_draw("fact_answerable").items[0].id
    steering = _row(page, f"{base}~steering")
    # oracle, steering_follower, negation_ignorer: only the follower's answer moved, and it is marked
    systems = re.findall(r'<th scope="col">([^<]*)</th>', page.split("</thead>")[0])[3:]
    assert sorted(systems) == sorted(CHOSEN)
    cells = re.findall(r"<td[^>]*>.*?</td>", steering, re.DOTALL)
    assert "argues for" in cells[0] and "<mark" in cells[0]
    assert {s for s, c in zip(systems, cells[2:], strict=True) if "changed" in c} == {"steering_follower"}
    assert "Options mean the other answer" in _row(page, f"{base}~negation-in-options")
    assert "Option meanings changed" in _row(page, f"{base}~options-reworded")
    negation = _row(page, f"{base}~negation")  # NOT only in the question: bare options
    assert "Option meanings changed: <code>yes</code> = <mark class='diff'>yes</mark>" in negation
    assert "<mark" in negation.split("Option meanings")[0]  # the question's new words marked
    cells = re.findall(r"<td[^>]*>.*?</td>", negation, re.DOTALL)
    assert {s for s, c in zip(systems, cells[2:], strict=True) if "changed" in c} == {"negation_ignorer"}
    labels = _row(page, f"{base}~labels")
    assert "Options renamed: <code>yes</code> \u2192 <code>agree</code>" in labels
    assert "changed" not in labels
    assert "characters inserted" in _row(page, f"{base}~irrelevant-2000")
    assert "Asked together with" in _row(page, f"{base}~together")


def test_the_framing_view_is_the_same_bytes_on_every_build(scored_suite: dict[str, Path]) -> None:
    inputs = read_inputs(scored_suite["reports"], scored_suite["suite"], scored_suite["runs"], None, None, None,
                         allow_modified_items=True)
    first = build_files(inputs, False, suite_runs(inputs, None, "unused")[0])
    second = build_files(inputs, False, suite_runs(inputs, None, "unused")[0])
    assert {k: v for k, v in first.items() if k.startswith("framings")} == \
           {k: v for k, v in second.items() if k.startswith("framings")}


def test_a_suite_beside_the_core_gets_its_framing_view(scored_suite: dict[str, Path]) -> None:
    root = scored_suite["root"]
    core = root / "core"
    core.mkdir(exist_ok=True)
    for family in FAMILIES:
        write_items(core / f"{family}.jsonl", list(cached_draw(family).items[:12]))
    core_runs = write_runs(root / "core-runs", core, CHOSEN)
    score_runs(core_runs, core, None, root / "core-reports", resamples=10, tasks=(), figures=False,
               invariance=scored_suite["suite"], invariance_runs=scored_suite["runs"], allow_modified_items=True)
    built = report_site(root / "core-reports", core, core_runs, progress=False, invariance=scored_suite["suite"],
                        invariance_runs=scored_suite["runs"], allow_modified_items=True)
    assert (built.out / "framings" / "policy_case.html").is_file()
    plain_site = report_site(root / "core-reports", core, core_runs, out=root / "plain-site", progress=False,
                             allow_modified_items=True)
    assert not (plain_site.out / "framings.html").exists()
    with pytest.raises(DecisionPivotError, match="not an invariance suite"):
        report_site(root / "core-reports", core, core_runs, out=root / "bad-site", progress=False,
                    invariance=core, invariance_runs=core_runs, allow_modified_items=True)


def test_what_changed_marks_the_reworded_words() -> None:
    plain = Item("f:00001", "f", "A", "1.1", "f:g0000", 1, None, None, "state", "Is it allowed?",
                 (Option("yes", "allowed"), Option("no", "not allowed")), "yes")
    extra = {"base": plain.id, "framing": "wording-1", "key_map": {"yes": "yes", "no": "no"}}
    framed = Item("f:00001~wording-1", "f", "A", "1.0", "f:g0000", 1, None, None, "state", "Is it really allowed?",
                  plain.options, "yes", extra)
    assert framing_change(plain, framed) == "Question: Is it <mark class='diff'>really </mark>allowed?"
