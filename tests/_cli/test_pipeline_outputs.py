"""The pipeline's outputs are told from one's own by dvc.lock's hashes (issue #39, point 1): a second `dp score` in a
clone where no pipeline ran replaced nothing of the pipeline's and was refused all the same."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from decisionpivot._cli.pipeline_outputs import dvc_md5, pipeline_outputs
from decisionpivot.cli import main
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from tests.evaluate.conftest import items_dir  # noqa: F401 (the fixture: one small items folder per session)

ROOT = Path(__file__).resolve().parents[2]
REFUSED = "holds outputs of the DVC pipeline's"


def test_the_hashes_are_the_ones_dvc_records(tmp_path: Path) -> None:
    """A real `dvc repro` of two stages (a folder with a nested file, a file with CRLF line ends): each output's
    hash as this module computes it is the one dvc.lock holds."""
    dvc = Path(sys.executable).parent / "dvc"
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n"
        "  site:\n"
        "    cmd: python -c \"import pathlib as p; d = p.Path('reports/site/families'); d.mkdir(parents=True); "
        "d.joinpath('a.html').write_text('a'); p.Path('reports/site/index.html').write_bytes(b'<h1>x</h1>\\r\\n')\"\n"
        "    outs: [reports/site]\n"
        "  score:\n"
        "    cmd: python -c \"import pathlib as p; p.Path('reports').mkdir(exist_ok=True); "
        "p.Path('reports/scoring.json').write_bytes(b'{}\\r\\n')\"\n"
        "    outs: [reports/scoring.json]\n")
    env = {**os.environ, "DVC_NO_ANALYTICS": "1", "PATH": f"{dvc.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in (["init", "--no-scm", "-q"], ["repro", "-q"]):
        subprocess.run([str(dvc), *command], cwd=tmp_path, env=env, check=True, capture_output=True, timeout=120)
    stages = yaml.safe_load((tmp_path / "dvc.lock").read_text())["stages"]
    recorded = {out["path"]: out["md5"] for stage in stages.values() for out in stage["outs"]}
    assert set(recorded) == {"reports/site", "reports/scoring.json"}
    for path, md5 in recorded.items():
        assert dvc_md5(tmp_path / path) == md5, path
    assert recorded["reports/site"].endswith(".dir")


def _lock(root: Path, stages: dict[str, tuple[str, list[str]]]) -> None:
    """A dvc.lock whose stages (name -> command, outputs) record the outputs as they are on disk now."""
    lock = {"schema": "2.0", "stages": {
        name: {"cmd": command, "outs": [{"path": out, "hash": "md5", "md5": dvc_md5(root / out)} for out in outs]}
        for name, (command, outs) in stages.items()}}
    (root / "dvc.lock").write_text(yaml.safe_dump(lock))


def _runs(root: Path, items: Path) -> Path:
    runs = root / "runs"
    evaluate_system(get_system("uniform"), items, runs, progress=False)
    return runs


def _score(items: Path, *more: str, resamples: int = 20) -> None:
    main(["score", "--items", str(items), "--reference", "", "--nofigures", "--resamples", str(resamples), *more])


def test_a_second_score_in_a_clone_where_no_pipeline_ran_replaces_the_first(
        tmp_path: Path, items_dir: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the repository's own dvc.yaml and dvc.lock, reports/ holding only the user's first score."""
    for name in ("dvc.yaml", "dvc.lock"):
        shutil.copy(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    _runs(tmp_path, items_dir)
    _score(items_dir)
    first = (tmp_path / "reports" / "scoring.json").read_text()
    _score(items_dir, resamples=30)
    assert REFUSED not in capsys.readouterr().err
    assert (tmp_path / "reports" / "scoring.json").read_text() != first  # replaced: it was the user's own
    assert '"resamples": 30' in (tmp_path / "reports" / "scoring.json").read_text()


def test_the_pipelines_own_scores_are_kept(tmp_path: Path, items_dir: Path,  # noqa: F811
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _runs(tmp_path, items_dir)
    _score(items_dir)
    (tmp_path / "reports" / "verify.txt").write_text("verify OK\n")
    _lock(tmp_path, {"verify": ("mkdir -p reports && dp verify > reports/verify.txt", ["reports/verify.txt"]),
                     "score": ("dp score --runs runs --out reports", ["reports/scoring.json", "reports/scores.json"])})
    capsys.readouterr()
    kept = (tmp_path / "reports" / "scoring.json").read_bytes()
    with pytest.raises(SystemExit) as caught:
        _score(items_dir, resamples=30)
    err = capsys.readouterr().err
    assert caught.value.code == 2
    assert "reports/ holds outputs of the DVC pipeline's 'score' stage (reports/scoring.json and 1 more" in err, err
    assert "'verify'" not in err and "--out reports to replace them" in err and "--out reports-try" in err
    assert (tmp_path / "reports" / "scoring.json").read_bytes() == kept
    _score(items_dir, "--out", "reports", resamples=30)  # named: replaced
    assert (tmp_path / "reports" / "scoring.json").read_bytes() != kept


def test_a_file_changed_since_is_ones_own(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    (reports / "site" / "families").mkdir(parents=True)
    (reports / "scoring.json").write_text("{}\n")
    (reports / "site" / "index.html").write_text("<h1>site</h1>\n")
    (reports / "site" / "families" / "a.html").write_text("a\n")
    _lock(tmp_path, {"score": ("dp score --out reports", ["reports/scoring.json"]),
                     "report": ("dp report --out reports/site", ["reports/site"])})
    lock = tmp_path / "dvc.lock"
    os.chdir(tmp_path)
    try:
        assert [o.path for o in pipeline_outputs("score", "reports", lock)] == ["reports/scoring.json"]
        assert [o.stage for o in pipeline_outputs("report", "reports/site", lock)] == ["report"]
        assert pipeline_outputs("gate", "reports", lock) == []  # no stage runs dp gate
        (reports / "scoring.json").write_text('{"mine": 1}\n')
        (reports / "site" / "families" / "a.html").write_text("b\n")  # one file deep in the folder
        assert pipeline_outputs("score", "reports", lock) == []
        assert pipeline_outputs("report", "reports/site", lock) == []
        lock.unlink()
        assert pipeline_outputs("score", "reports", lock) == []  # no pipeline here at all
    finally:
        os.chdir(ROOT)


@pytest.mark.parametrize(("verb", "argv", "out"), [
    ("gate", ["gate"], "reports/gate.json"),
    ("audit", ["audit"], "reports/audit.json"),
    ("cost", ["cost", "--cost-wrong", "50", "--cost-escalated", "2"], "reports/cost"),
    ("recalibrate", ["recalibrate"], "reports/recalibrate"),
    ("report", ["report"], "reports/site"),
])
def test_every_verb_writing_into_reports_by_default_keeps_the_pipelines_outputs(
        verb: str, argv: list[str], out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`dp gate` wrote over reports/gate.json, the pipeline's certificate, without a word."""
    monkeypatch.chdir(tmp_path)
    target = tmp_path / out
    if target.suffix:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("{}\n")
    else:
        (target / "figures").mkdir(parents=True)
        (target / "figures" / "x.svg").write_text("<svg/>\n")
    _lock(tmp_path, {verb: (f"dp {verb} --out {Path(out).parent if target.suffix else out}", [out])})
    before = hashlib.md5(target.read_bytes() if target.is_file() else b"").hexdigest()
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and f"holds outputs of the DVC pipeline's '{verb}' stage ({out}" in err, err
    assert hashlib.md5(target.read_bytes() if target.is_file() else b"").hexdigest() == before


def test_an_unreadable_lock_is_one_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    for text, needle in (("stages: [unclosed\n", "dvc.lock: not valid YAML"),
                         ("- a list\n", "dvc.lock: expected a mapping with a 'stages' mapping")):
        (tmp_path / "dvc.lock").write_text(text)
        with pytest.raises(SystemExit) as caught:
            main(["gate"])
        err = capsys.readouterr().err
        assert caught.value.code == 2 and needle in err and "Traceback" not in err, err
