"""What `dp evaluate` says at the end is about the items asked, and points at the cause when it fails (issues 37, 39).

"601 of 600 items answered" for an answer file holding an id that is no item; a --limit run over a finished file
counted every line of the file; a run whose every record is an error exited 0 with nothing pointing at why.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from tests.evaluate.conftest import FAMILY
from tests.evaluate.fault_server import FaultServer
from tests.evaluate.test_transport import config


def evaluate(runs: Path, items: Path, *extra: str, system: str = "uniform") -> None:
    main(["evaluate", "--system", system, "--items", str(items), "--runs", str(runs), *extra])


def test_an_answer_file_holding_an_unknown_id_is_refused_naming_the_line(tmp_path: Path, items_dir: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    evaluate(runs, items_dir)
    path = runs / "uniform" / f"{FAMILY}.jsonl"
    with path.open("a") as handle:
        handle.write(json.dumps({"id": f"{FAMILY}:99999", "p": {"yes": 0.5, "no": 0.5}}) + "\n")
    before = path.read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as ended:
        evaluate(runs, items_dir)
    err = capsys.readouterr()
    assert ended.value.code == 2 and "601 of 600" not in err.out, err.out
    assert f"{path}:601: id '{FAMILY}:99999' is not an item of" in err.err, err.err
    assert path.read_bytes() == before, "a refused file is left as it was"


def test_the_counts_of_a_limited_run_are_of_the_items_asked(tmp_path: Path, items_dir: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    evaluate(runs, items_dir)
    capsys.readouterr()
    evaluate(runs, items_dir, "--limit", "20")
    assert "uniform: 20 of 20 items answered, 0 errors" in capsys.readouterr().out


def test_a_run_where_every_record_is_an_error_exits_1_naming_the_cause(tmp_path: Path, items_dir: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 39 point 6: every record an error, exit 0 and nothing pointing at the cause."""
    (tmp_path / "none_plugin.py").write_text("def decide(items):\n    return [None for _ in items]\n")
    systems = tmp_path / "s.yaml"
    systems.write_text("systems:\n  silent: {kind: python, callable: 'none_plugin:decide'}\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(SystemExit) as ended:
            evaluate(tmp_path / "runs", items_dir, "--config", str(systems), "--limit", "5", system="silent")
    finally:
        sys.path.remove(str(tmp_path))
    err = capsys.readouterr().err
    assert ended.value.code == 1
    assert "evaluate FAILED: every one of the 5 records is an error, none an answer; most often (5 of 5): plugin " \
           "returned no answer" in err, err


def test_transient_records_of_a_wrong_config_do_not_block_the_fixed_one(tmp_path: Path, items_dir: Path) -> None:
    """A file holding only transient records has nothing to mix: the corrected config asks them (a fingerprint
    check refused it, so the fix needed --restart)."""
    runs = tmp_path / "runs"
    with FaultServer(lambda digest, attempt: "status:404:The model `typo` does not exist") as server:
        [first] = evaluate_system(get_system("s1", config(tmp_path, server.base_url, model="typo", max_attempts=2)),
                                  items_dir, runs, limit=3, progress=False)
    assert first.transient == 3
    with FaultServer() as server:
        [fixed] = evaluate_system(get_system("s1", config(tmp_path, server.base_url, model="right")), items_dir, runs,
                                  limit=3, progress=False)
    assert fixed.answered == 3 and fixed.transient == 0


def test_items_let_through_by_the_flag_are_named_on_stderr_once(tmp_path: Path, items_dir: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """--allow-modified-items was recorded in the meta files only: the run itself said nothing of answering items
    that are not the released ones. One line on stderr names the folder and the files, once per file."""
    edited = tmp_path / "edited"
    shutil.copytree(items_dir, edited)
    path = edited / f"{FAMILY}.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"answer": "yes"', b'"answer": "no"', 1))
    capsys.readouterr()
    with pytest.raises(SystemExit) as ended:
        evaluate(tmp_path / "runs", edited, "--limit", "3")
    assert ended.value.code == 2 and "--allow-modified-items" in capsys.readouterr().err
    evaluate(tmp_path / "runs", edited, "--limit", "3", "--permute-options", "1", "--allow-modified-items")
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert notes == [f"note: {edited}: Items read with --allow-modified-items (neither re-derived by this package nor "
                     f"released): {FAMILY}; what is computed from them is not a DecisionPivot result."], err
    evaluate(tmp_path / "runs-released", items_dir, "--limit", "3", "--allow-modified-items")
    assert "note: " not in capsys.readouterr().err  # the flag let nothing through: nothing to say
