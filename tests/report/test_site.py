"""`dp report` without a browser: what the pages say, determinism, optional inputs, errors, atomic replacement."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.report import site as site_module
from decisionpivot.report.groups import GROUPS_PER_CHUNK
from decisionpivot.report.inputs import read_inputs
from decisionpivot.report.site import MARKER, build_files, report_site, suite_runs
from tests.report.conftest import Built
from tests.report.fixture import FAMILIES, HEURISTIC, SKILLS

ROOT = Path(__file__).resolve().parents[2]


def text(built: Built, page: str) -> str:
    return (built.site.out / page).read_text(encoding="utf-8")


def data(built: Built, name: str) -> dict:
    raw = (built.site.out / "data" / f"{name}.js").read_text(encoding="utf-8")
    match = re.fullmatch(r'DP\.load\("([^"]+)",(.*)\);\n', raw, re.S)
    assert match and match[1] == name
    return json.loads(match[2])


def test_every_page_and_data_file_is_written(built: Built) -> None:
    out = built.site.out
    for page in ("index.html", "families.html", "levels.html", "confidence.html", "reference.html", "runs.html",
                 "groups.html", "stability.html", "gate.html", MARKER):
        assert (out / page).is_file(), page
    for family in FAMILIES:
        assert (out / "families" / f"{family}.html").is_file()
        assert (out / "data" / "family" / f"{family}.js").is_file()
        groups = len(data(built, f"family/{family}")["groups"])
        chunks = sorted((out / "data" / "items").glob(f"{family}-*.js"))
        assert len(chunks) == -(-groups // GROUPS_PER_CHUNK)
    for system in built.fixture.systems:
        assert (out / "systems" / f"{system}.html").is_file(), system
    assert all(oct(p.stat().st_mode)[-3:] == "644" for p in out.rglob("*") if p.is_file())


def _table(page: str, ident: str) -> str:
    return page.split(f'id="{ident}"', 1)[1].split("</table>", 1)[0]


def _headings(table: str) -> list[str]:
    return re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', table)


def test_leaderboard_separates_full_systems_from_heuristics_and_partial_runs(built: Built) -> None:
    page = text(built, "index.html")
    full, other, details = (_table(page, ident) for ident in ("leaderboard", "partial-systems", "details"))
    for system in ("graded-0.90", "graded-0.75", "graded-0.60", "uniform", "chat-sim"):
        assert f">{system}</a>" in full and f">{system}</a>" in details
    assert f">{HEURISTIC}</a>" in other and ">graded-partial</a>" in other and f">{HEURISTIC}</a>" in details
    assert "uniform guessing (expected)" in full and 'class="pinned"' in full
    # ranked by pair accuracy, with intervals
    order = [m for m in re.findall(r'systems/([^"]+)\.html', full) if m in SKILLS]
    assert order == sorted(SKILLS, key=SKILLS.get, reverse=True)
    assert re.search(r'\d+\.\d <span class="ci">\[\d+\.\d, \d+\.\d\]</span>', full)
    assert "partial, not comparable" in details and "answers only fact_answerable" in details
    assert "2 failed predictions" not in details  # chat-sim failed 1 + 1 per family
    assert re.search(r"\d+ failed predictions \(counted as incorrect; 1 input restrictions\)", details)
    assert "chat/verbalised" in full and "@ 8 (adaptive)" in details  # latency with its in-flight limit
    assert "Cert. cov." in _headings(full)  # the gate column, gate.json being there


def test_the_first_table_shows_both_axes_as_dp_score_wrote_them(built: Built) -> None:
    """Robust pair acc. and Flip rate were on leaderboard.md but not on the site; their figures are the ones
    `dp score` wrote (scoring.json's invariance section), never computed again, and equal leaderboard.md's."""
    page = text(built, "index.html")
    full = _table(page, "leaderboard")
    headings = _headings(full)
    assert headings == ["#", "System", "Pair acc.", "Item acc.", "Pair dir.", "C(0.05)", "Cert. cov.", "ECE",
                        "Robust pair acc.", "Flip rate", "Readout"]
    assert "Notes" not in headings and "Notes" in _headings(_table(page, "details"))
    board = (built.fixture.reports / "leaderboard.md").read_text(encoding="utf-8").split("## Not ranked")[0]
    lines = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in board.splitlines()
             if line.startswith("| ")]
    header, rows = lines[0], {row[1]: row for row in lines[1:]}
    scoring = json.loads((built.fixture.reports / "scoring.json").read_text())
    records = {(r["system"], r["metric"]): r for r in scoring["invariance"]["records"] if r["task"] == "macro"}
    shown = 0
    for system in SKILLS:
        row = re.search(rf'<tr[^>]*><td[^>]*>[^<]*</td><th[^>]*><a href="systems/{re.escape(system)}\.html".*?</tr>',
                        full, re.S)
        assert row is not None, system
        cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row.group(0))]
        for metric, heading in (("robust_pair_accuracy", "Robust pair acc."), ("flip_rate", "Flip rate")):
            record = records[(system, metric)]
            cell = cells[headings.index(heading)]
            assert cell == "{:.1f} [{:.1f}, {:.1f}]".format(*(record[k] for k in ("value", "ci_low", "ci_high")))
            assert rows[system][header.index(heading)] == cell, (system, heading)
            shown += 1
    assert shown == 2 * len(SKILLS)
    pinned = re.search(r'<tr class="pinned">.*?</tr>', full, re.S)
    assert pinned is not None and 'class="notes"' not in pinned.group(0)  # one line, its note in the tooltip


def test_system_page_shows_everything_recorded(built: Built) -> None:
    page = text(built, "systems/chat-sim.html")
    for heading in ("Headline", "Families", "Levels", "Confidence", "Coverage: risk-coverage curves",
                    "Errors and answer files", "How it ran"):
        assert f">{heading}</h2>" in page, heading
    assert "Mean tokens" in page and "Closed %" in page and "sim-7b" in page and "SIM_API_KEY" in page
    graded = text(built, f"systems/{next(iter(SKILLS))}.html")
    for heading in ("Option-order robustness", "Stability across versions and fresh draws",
                    "Certified automation (dp gate)"):
        assert f">{heading}</h2>" in graded, heading
    assert "figures/pair_direction/" in graded and 'alt="Pair direction of' in graded
    partial = text(built, "systems/graded-partial.html")
    assert "Partial runs (partial, not comparable)" in partial and "30 of 600" in partial


def test_reference_track_shows_layers_and_tasks_with_their_own_metrics(built: Built) -> None:
    page = text(built, "reference.html")
    assert ">By layer</h2>" in page and ">Layer B</h2>" in page and ">Layer G</h2>" in page
    assert "synthetic_refusal (accuracy)" in page and "synthetic_match (f1)" in page
    assert "synthetic_refusal: b = 50.0" in page and "synthetic_match: b = 57.1" in page  # 2p/(1+p), p = 0.4
    assert re.search(r"\d+\.\d \u2192 -?\d+\.\d", page)  # v -> score
    assert '<span class="ci">(2 of 7)</span>' in page
    assert "(2 of 7 layers)" in text(built, "index.html")


def test_charts_say_what_they_show(built: Built) -> None:
    for page in ("families/policy_case.html", "confidence.html", f"systems/{next(iter(SKILLS))}.html"):
        html = text(built, page)
        svgs = re.findall(r'<svg class="chart".*?</svg>', html, re.S)
        assert svgs, page
        for svg in svgs:
            assert re.search(r'role="img" aria-labelledby="(\S+)-t \1-d"', svg)
            assert re.search(r"<title id=\"[^\"]+\">[^<]+</title><desc id=\"[^\"]+\">[^<]{20,}</desc>", svg)
        assert all(re.search(r'alt="[^"]{20,}"', img) for img in re.findall(r"<img [^>]+>", html))
    family = text(built, "families/policy_case.html")
    assert family.count('<g class="curve"') == len(data(built, "family/policy_case")["systems"])
    assert 'class="c05"' in family


def test_browser_data_holds_probabilities_correctness_and_decisive_paths(built: Built) -> None:
    inputs = read_inputs(built.fixture.reports, built.fixture.items, built.fixture.runs)
    index = data(built, "family/policy_case")
    layout = inputs.layout("policy_case")
    assert [i["id"] for i in index["items"]] == list(layout.item_ids)
    assert {len(g["members"]) for g in index["groups"]} <= {2, 3} and len(index["groups"]) == layout.groups
    system = index["systems"][0]
    answers = inputs.answers[(system, "policy_case")]
    code = index["p"][system]
    assert len(code) == 2 * int(layout.option_count.sum())
    first = [int(code[k:k + 2], 36) / 1000 for k in range(0, 6, 2)]
    assert first == pytest.approx(answers.probabilities[0, :3].tolist(), abs=5e-4)
    assert index["correct"][system] == "".join("f" if f else "1" if c else "0"
                                               for f, c in zip(answers.failed, answers.correct, strict=True))
    chunk = data(built, "items/policy_case-0")
    group = index["groups"][0]
    assert group["id"] in chunk["decisive"] and chunk["decisive"][group["id"]]["paths"]
    assert "redrawn and checked" in chunk["note"]
    member_marks = [chunk["items"][index["items"][m]["id"]]["marks"] for m in group["members"]]
    assert all(member_marks)  # every member's rendered state has a highlighted difference
    binary = data(built, "family/fact_answerable")
    assert all(g["binary"] for g in binary["groups"]) and set(binary["direction"][system]) <= {"0", "1"}


def _site_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_inputs_same_bytes_under_another_hash_seed_and_locale(built: Built, tmp_path: Path) -> None:
    f = built.fixture
    first = _site_bytes(built.site.out)
    inputs = read_inputs(f.reports, f.items, f.runs)
    framed, suite_checks = suite_runs(inputs, f.invariance, str(f.invariance_runs))
    again = build_files(replace(inputs, item_checks=(*inputs.item_checks, *suite_checks)), progress=False,
                        framed=framed)
    assert again == first
    out = tmp_path / "site"
    env = {**os.environ, "PYTHONHASHSEED": "12345", "LC_ALL": "C.UTF-8", "TZ": "Pacific/Auckland"}
    code = (f"from decisionpivot.report.site import report_site; report_site({str(f.reports)!r}, "
            f"{str(f.items)!r}, {str(f.runs)!r}, {str(out)!r}, progress=False, invariance={str(f.invariance)!r}, "
            f"invariance_runs={str(f.invariance_runs)!r})")
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    assert _site_bytes(out) == first


def test_optional_inputs_can_be_left_out(built: Built, tmp_path: Path) -> None:
    f = built.fixture
    plain = report_site(f.reports, f.items, f.runs, tmp_path / "plain", gate="", stability="", partial="",
                        progress=False)
    files = {p.name for p in plain.out.iterdir()}
    assert "gate.html" not in files and "stability.html" not in files
    index = (plain.out / "index.html").read_text(encoding="utf-8")
    assert "Cert. cov." not in index and "Gate</a>" not in index
    assert ">Partial runs (partial, not comparable)</h2>" not in (plain.out / "runs.html").read_text(encoding="utf-8")
    assert ">Partial runs (partial, not comparable)</h2>" in text(built, "runs.html")
    explicit = report_site(f.reports, f.items, f.runs, tmp_path / "explicit", gate=str(f.reports / "gate.json"),
                           stability=str(f.reports / "stability"), progress=False)
    assert (explicit.out / "gate.html").is_file() and (explicit.out / "stability.html").is_file()


def test_edited_items_lose_their_declared_paths_but_keep_the_highlight(built: Built, tmp_path: Path) -> None:
    from decisionpivot.items import read_items
    from decisionpivot.report.decisive import family_decisive

    items = read_items(built.fixture.items / "fact_answerable.jsonl")
    manifest = json.loads((built.fixture.items / "MANIFEST.json").read_text())
    assert len(family_decisive("fact_answerable", items, manifest).groups) == 300
    edited = [items[0].__class__(**{**items[0].__dict__, "state": str(items[0].state) + " (edited)"}), *items[1:]]
    result = family_decisive("fact_answerable", edited, manifest)
    assert not result.groups and "differ from what seed" in result.note
    assert "no MANIFEST.json" in family_decisive("fact_answerable", items, None).note
    older = {**manifest, "version": "1.1"}
    assert "core 1.1 items" in family_decisive("fact_answerable", items, older).note


def test_difference_ranges_mark_the_changed_words_only() -> None:
    from decisionpivot.report.decisive import difference_ranges, member_differences

    a = "Rooms:\n- Studio: 24 seats\nTime: 10:00-10:49\nEnd.\n"
    b = "Rooms:\n- Studio: 24 seats\nTime: 10:00-10:48\nEnd.\n"
    ranges_a, ranges_b = difference_ranges(a, b)
    assert [a[s:e] for s, e in ranges_a] == ["49"] and [b[s:e] for s, e in ranges_b] == ["48"]
    marks = member_differences([a, b, a.replace("End.", "Stop.")])
    assert [a[s:e] for s, e in marks[0]] == ["49", "End"]
    assert [b[s:e] for s, e in marks[1]] == ["48"]
    inserted = member_differences(["one\ntwo\n", "one\nnew line\ntwo\n"])
    assert inserted[0] == [] and inserted[1] == [(4, 13)]


def test_bad_inputs_are_one_line_errors(built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = built.fixture
    with pytest.raises(DecisionPivotError, match=r"scores\.json: not found"):
        read_inputs(tmp_path, f.items, f.runs)
    broken = tmp_path / "reports"
    shutil.copytree(f.reports, broken, ignore=shutil.ignore_patterns("site"))
    gate = json.loads((broken / "gate.json").read_text())
    next(iter(gate["systems"].values()))["certified_coverage_macro"] = 35.0  # a percentage, not a fraction
    (broken / "gate.json").write_text(json.dumps(gate))
    with pytest.raises(DecisionPivotError, match=r"gate\.json: systems\.\S+\.certified_coverage_macro: expected a "
                                                 r"fraction in \[0, 1\]"):
        read_inputs(broken, f.items, f.runs)
    (broken / "scores.json").write_text("[{\"system\": 1}]")
    with pytest.raises(DecisionPivotError, match=r"scores\.json: record 1: expected an object with keys"):
        read_inputs(broken, f.items, f.runs)
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--reports", str(tmp_path / "nowhere"), "--items", str(f.items), "--runs", str(f.runs)])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("error: ")
    empty_runs = tmp_path / "runs"
    empty_runs.mkdir()
    with pytest.raises(DecisionPivotError, match=r"runs/chat-sim/fact_answerable\.jsonl: not found, but .*scores"):
        read_inputs(f.reports, f.items, empty_runs)


def test_a_folder_not_written_by_dp_report_is_never_replaced(built: Built, tmp_path: Path) -> None:
    f = built.fixture
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("mine")
    with pytest.raises(DecisionPivotError, match="is not a site `dp report` wrote"):
        report_site(f.reports, f.items, f.runs, precious, progress=False)
    assert (precious / "notes.txt").read_text() == "mine"


def test_a_crash_while_writing_leaves_the_previous_site(built: Built, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    f = built.fixture
    out = tmp_path / "site"
    report_site(f.reports, f.items, f.runs, out, progress=False)
    before = _site_bytes(out)
    (out / "stale.html").write_text("from an older build")
    calls = {"n": 0}
    real = site_module.atomic_write_bytes

    def failing(path: Path, payload: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 20:
            raise DecisionPivotError(f"cannot write {path}: disk full")
        real(path, payload)

    monkeypatch.setattr(site_module, "atomic_write_bytes", failing)
    with pytest.raises(DecisionPivotError, match="disk full"):
        report_site(f.reports, f.items, f.runs, out, progress=False)
    assert _site_bytes(out) == {**before, "stale.html": b"from an older build"}
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no half-written folder left beside it
    monkeypatch.undo()
    report_site(f.reports, f.items, f.runs, out, progress=False)
    assert _site_bytes(out) == before  # a complete build replaces the folder whole: the stale page is gone


def test_cli_verb_writes_the_site(built: Built, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = built.fixture
    main(["report", "--reports", str(f.reports), "--items", str(f.items), "--runs", str(f.runs), "--out",
          str(tmp_path / "cli"), "--invariance", str(f.invariance), "--invariance-runs", str(f.invariance_runs)])
    assert f"open {tmp_path / 'cli'}/index.html" in capsys.readouterr().out
    assert _site_bytes(tmp_path / "cli") == _site_bytes(built.site.out)


def test_gate_page_lists_systems_as_the_leaderboard_does(built: Built, tmp_path: Path) -> None:
    """The gate page listed family heuristics (alphabetically first) above the systems the leaderboard ranks."""
    from decisionpivot.report.recorded_pages import gate_order

    f = built.fixture
    reports = tmp_path / "reports"
    shutil.copytree(f.reports, reports, ignore=shutil.ignore_patterns("site"))
    gate = json.loads((reports / "gate.json").read_text())
    some = next(iter(gate["systems"].values()))
    for extra in (HEURISTIC, "graded-partial", "absent-from-scores", "aaa-absent"):
        metas = sorted((f.runs / extra).glob("*.meta.json"))  # a system's entry certifies its own answers
        prints = {meta.name.split(".")[0]: json.loads(meta.read_text())["fingerprint"] for meta in metas}
        gate["systems"][extra] = {**some, "fingerprints": prints}
    (reports / "gate.json").write_text(json.dumps(gate))
    order = [system for system, _ in gate_order(read_inputs(reports, f.items, f.runs))]
    ranked = sorted(SKILLS, key=SKILLS.get, reverse=True)
    assert order[:len(ranked)] == ranked  # the leaderboard's ranked systems first, in its order
    assert set(order[len(ranked):-2]) == {HEURISTIC, "graded-partial"}  # then what it lists as not comparable
    assert order[-2:] == ["aaa-absent", "absent-from-scores"]  # then what the scores do not know, by name


@pytest.mark.parametrize("change", ["answers", "items", "no fingerprints"])
def test_a_gate_json_of_other_answers_or_items_is_refused(built: Built, tmp_path: Path, change: str) -> None:
    """`dp report` showed whatever gate.json lay in the reports folder: a certificate of answers that had since
    been re-run, or of other items, appeared next to the new ones. It is checked as `dp score --gate` checks it."""
    f = built.fixture
    reports = tmp_path / "reports"
    shutil.copytree(f.reports, reports, ignore=shutil.ignore_patterns("site"))
    gate = json.loads((reports / "gate.json").read_text())
    system = sorted(SKILLS)[0]
    family = sorted(gate["release"]["families"])[0]
    if change == "answers":
        gate["systems"][system]["fingerprints"][family] = "f" * 64
        expected = f"{system} {family}: gate.json was made from answers of configuration ffffffffffff"
    elif change == "items":
        gate["release"]["families"][family] = "0" * 64
        expected = f"checked on {family} items with SHA-256 {'0' * 64}"
    else:
        del gate["systems"][system]["fingerprints"]
        expected = f"{system}: no answer fingerprints"
    (reports / "gate.json").write_text(json.dumps(gate))
    with pytest.raises(DecisionPivotError, match=re.escape(expected)):
        read_inputs(reports, f.items, f.runs)
    assert read_inputs(reports, f.items, f.runs, gate="").gate is None  # --gate "": no certificate, no check


def _site_ranks(page: str, table: str) -> list[tuple[str, str]]:
    """(rank cell, system) of each row of the table with id ``table``."""
    body = page.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr[^>]*><td[^>]*>([^<]*)</td>\s*<th[^>]*><a href="systems/([^"]+)\.html"', body)


def test_site_ranks_exactly_as_the_leaderboard_does(built: Built, tmp_path: Path) -> None:
    """The site numbered rows 1, 2, 3... itself: a tie that leaderboard.md shows as `2=` got two ranks there."""
    f = built.fixture
    board = (f.reports / "leaderboard.md").read_text(encoding="utf-8").split("## Not ranked")[0]
    ranked_md = [(line.split(" | ")[0][2:], line.split(" | ")[1]) for line in board.splitlines()
                 if line.startswith("| ") and " | " in line and line.split(" | ")[0][2:].strip()][1:]
    assert len(ranked_md) >= 5 and _site_ranks(text(built, "index.html"), "leaderboard") == ranked_md
    unranked = _site_ranks(text(built, "index.html"), "partial-systems")
    assert unranked and all(rank == "\u2013" for rank, _ in unranked), "leaderboard.md ranks none of them"
    reports = tmp_path / "reports"
    shutil.copytree(f.reports, reports, ignore=shutil.ignore_patterns("site"))
    scoring = json.loads((reports / "scoring.json").read_text())
    ranked = [e for e in scoring["leaderboard"] if e["rank"]]
    ranked[1]["rank"] = ranked[2]["rank"] = "2="  # as `dp score` records a tie
    ranked[1], ranked[2] = ranked[2], ranked[1]  # and its order (fewer failed predictions first)
    scoring["leaderboard"] = ranked + [e for e in scoring["leaderboard"] if not e["rank"]]
    (reports / "scoring.json").write_text(json.dumps(scoring))
    site = report_site(reports, f.items, f.runs, tmp_path / "site", gate="", stability="", partial="")
    shown = _site_ranks((site.out / "index.html").read_text(encoding="utf-8"), "leaderboard")
    assert shown[:3] == [(e["rank"], e["system"]) for e in ranked[:3]]
    scoring["leaderboard"] = [{"system": 3}]
    (reports / "scoring.json").write_text(json.dumps(scoring))
    with pytest.raises(DecisionPivotError, match=r"scoring\.json: leaderboard entry 1: expected an object"):
        read_inputs(reports, f.items, f.runs)


def test_a_malformed_invariance_section_is_one_error_naming_the_file(built: Built, tmp_path: Path) -> None:
    f = built.fixture
    reports = tmp_path / "reports"
    shutil.copytree(f.reports, reports, ignore=shutil.ignore_patterns("site"))
    scoring = json.loads((reports / "scoring.json").read_text())
    scoring["invariance"]["records"][2]["value"] = "high"
    (reports / "scoring.json").write_text(json.dumps(scoring))
    with pytest.raises(DecisionPivotError, match=r"scoring\.json: invariance record 3: field 'value'"):
        read_inputs(reports, f.items, f.runs)
    scoring["invariance"] = []
    (reports / "scoring.json").write_text(json.dumps(scoring))
    with pytest.raises(DecisionPivotError, match=r"scoring\.json: field 'invariance': expected an object"):
        read_inputs(reports, f.items, f.runs)
