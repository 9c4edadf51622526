"""The reference track's DVC stage commands: build (off / absent / skipped / rebuilt / refused), gather, evaluate."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from decisionpivot.items import read_items
from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import ReconstructionError
from decisionpivot.reconstruct.track import (
    STATUS_FILE,
    build_stage,
    evaluate_reference,
    gather,
    main,
    read_status,
    rebuilt_tasks,
)
from tests.reconstruct.conftest import FIXTURES


def status_of(folder: Path) -> dict:
    return json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))


def test_source_empty_writes_only_an_off_status(tmp_path: Path) -> None:
    out = tmp_path / "build" / "strategyqa"
    (out / "stale").mkdir(parents=True)
    (out / "strategyqa.jsonl").write_text("left over\n")
    build_stage("strategyqa", "", out)
    assert sorted(p.name for p in out.iterdir()) == [STATUS_FILE]
    assert status_of(out) == {"task": "strategyqa", "status": "off", "items": None, "sha256": None,
                              "verified": False,
                              "reason": "reconstruct.source in params.yaml is empty: the reference track is off"}
    first = (out / STATUS_FILE).read_bytes()
    build_stage("strategyqa", None, out)
    assert (out / STATUS_FILE).read_bytes() == first, "status bytes are deterministic"
    assert str(tmp_path) not in first.decode(), "no paths in the status"


def test_absent_skipped_and_rebuilt(tmp_path: Path) -> None:
    absent = build_stage("llmbar", FIXTURES, tmp_path / "llmbar")
    assert absent.status == "absent" and "no llmbar/ folder" in absent.reason
    done = build_stage("strategyqa", FIXTURES, tmp_path / "strategyqa")
    path = tmp_path / "strategyqa" / "strategyqa.jsonl"
    assert (done.status, done.items, done.verified) == ("rebuilt", 3, False)
    assert done.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() == status_of(path.parent)["sha256"]


def test_capability_tasks_are_skipped_without_sampled_answers(tmp_path: Path, official: Path) -> None:
    skipped = build_stage("capb_gsm8k", official, tmp_path / "capb_gsm8k")
    assert skipped.status == "skipped" and "reconstruct.sampled_answers" in skipped.reason
    rebuilt = build_stage("capb_gsm8k", official, tmp_path / "capb_gsm8k",
                          FIXTURES / "capb_sampled_answers_gsm8k.jsonl")
    assert rebuilt.status == "rebuilt" and rebuilt.items
    assert (tmp_path / "capb_gsm8k" / "capb_gsm8k.jsonl").is_file()


def test_a_mismatch_fails_the_stage_and_leaves_nothing(tmp_path: Path, official: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(official / "xstest", source / "xstest")
    target = source / "xstest" / all_cards()["xstest"].files[0].path
    target.write_bytes(target.read_bytes() + b"\n")
    out = tmp_path / "build" / "xstest"
    with pytest.raises(ReconstructionError, match="official files do not match the card"):
        build_stage("xstest", source, out)
    assert list(out.iterdir()) == []
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "xstest", "--source", str(source), "--out", str(out)])
    assert exit_info.value.code == 2


def test_gather_holds_exactly_the_rebuilt_tasks_and_folder_prints_empty_when_none(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = tmp_path / "build"
    build_stage("strategyqa", "", build / "strategyqa")
    build_stage("proofwriter_owa", "", build / "proofwriter_owa")
    flat = tmp_path / "flat"
    main(["folder", "--build", str(build), "--out", str(flat)])
    assert capsys.readouterr().out == "\n" and not flat.exists()
    build_stage("strategyqa", FIXTURES, build / "strategyqa")
    flat.mkdir()
    (flat / "toxicchat.jsonl").write_text("stale\n")
    main(["folder", "--build", str(build), "--out", str(flat)])
    assert capsys.readouterr().out == f"{flat}\n"
    assert sorted(p.name for p in flat.iterdir()) == ["strategyqa.jsonl"]
    assert (flat / "strategyqa.jsonl").read_bytes() == (build / "strategyqa" / "strategyqa.jsonl").read_bytes()
    assert gather(build, flat) == ["strategyqa"] and rebuilt_tasks(build) == {
        "strategyqa": build / "strategyqa" / "strategyqa.jsonl"}


def test_a_broken_status_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "build" / "folio").mkdir(parents=True)
    with pytest.raises(SystemExit):
        main(["folder", "--build", str(tmp_path / "build"), "--out", str(tmp_path / "flat")])
    assert "folio/status.json: missing (run the reconstruct stage)" in capsys.readouterr().err
    (tmp_path / "build" / "folio" / STATUS_FILE).write_text('{"task": "folio", "status": "rebuilt"}')
    with pytest.raises(Exception, match=r"says rebuilt, but .*folio\.jsonl is missing"):
        rebuilt_tasks(tmp_path / "build")
    (tmp_path / "build" / "folio" / STATUS_FILE).write_text('{"task": "xstest", "status": "done"}')
    with pytest.raises(Exception, match="status 'done' for task 'xstest'"):
        read_status(tmp_path / "build" / "folio")


def test_evaluate_answers_rebuilt_tasks_with_uniform_but_not_with_family_heuristics(tmp_path: Path) -> None:
    build = tmp_path / "build"
    build_stage("strategyqa", FIXTURES, build / "strategyqa")
    build_stage("folio", "", build / "folio")
    runs = tmp_path / "runs"
    assert evaluate_reference("uniform", build, runs) == ["strategyqa"]
    answers = [json.loads(line) for line in (runs / "uniform" / "strategyqa.jsonl").read_text().splitlines()]
    items = read_items(build / "strategyqa" / "strategyqa.jsonl")
    assert [a["id"] for a in answers] == [i.id for i in items] and all(a["p"] == {"yes": 0.5, "no": 0.5}
                                                                       for a in answers)
    assert evaluate_reference("heuristic.policy_case.first_match", build, runs) == []
    assert not (runs / "heuristic.policy_case.first_match").exists()


def test_build_all_rebuilds_every_card_and_drops_folders_of_no_card(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The pipeline's one reconstruct stage: a folder per task card, each with its status; a stale folder of no
    card (a task card removed since the last run) would be read as a rebuilt task, so it goes."""
    out = tmp_path / "reconstructed"
    (out / "retired_task").mkdir(parents=True)
    (out / "retired_task" / STATUS_FILE).write_text('{"task": "retired_task", "status": "rebuilt"}')
    source = tmp_path / "official"
    shutil.copytree(FIXTURES / "strategyqa", source / "strategyqa")
    main(["build-all", "--source", str(source), "--out", str(out)])
    assert sorted(p.name for p in out.iterdir()) == sorted(all_cards())
    statuses = {p.name: read_status(p).status for p in out.iterdir()}
    assert statuses["strategyqa"] == "rebuilt" and set(statuses.values()) <= {"rebuilt", "absent", "skipped"}
    assert "task cards:" in capsys.readouterr().err
    main(["build-all", "--source", "", "--out", str(out)])
    assert {read_status(p).status for p in out.iterdir()} == {"off"}
    assert sorted(p.name for p in out.iterdir()) == sorted(all_cards())


def test_the_track_is_off_in_params() -> None:
    import yaml

    from tests.reconstruct.conftest import REPO

    params = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    assert params["reconstruct"]["source"] == "" and params["reconstruct"]["sampled_answers"] == ""
