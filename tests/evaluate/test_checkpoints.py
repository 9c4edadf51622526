"""Both in-process kinds (``hf``, ``decision``) load a checkpoint without ever running its code or a pickle's calls.

The checkpoints are built in the test (``tests/evaluate/tiny_decider.py``): one whose config needs its own
Python files (``auto_map``), whose import writes a marker file; one whose only weights are a pickle that
also holds an ``os.system`` call creating a marker. transformers asks on stdin before running a
checkpoint's code unless told, so the custom-code case runs ``dp evaluate`` in a subprocess with a ``y``
piped in and with stdin at end of file: neither may run the code, both end with one ``error:`` line.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the in-process kinds need transformers (installed by the test extra)")

from decisionpivot.cli import main
from decisionpivot.evaluate.checkpoints import load_error, one_line
from tests.evaluate.conftest import FAMILY
from tests.evaluate.tiny_decider import build_custom_code_checkpoint, build_pickle_checkpoint

KINDS = ("hf", "decision")


def systems_file(tmp_path: Path, kind: str, model: Path) -> Path:
    path = tmp_path / "systems.yaml"
    path.write_text(f"systems:\n  local: {{kind: {kind}, model: '{model}', device: cpu}}\n")
    return path


def only_error_line(stderr: str) -> str:
    """The one ``error:`` line of a failed ``dp`` run, after checking that there is exactly one and no traceback."""
    assert "Traceback" not in stderr, stderr[-3000:]
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr[-3000:]
    return errors[0]


@pytest.mark.parametrize("stdin", ["y\n", None], ids=["piped-y", "stdin-at-eof"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_checkpoint_that_needs_its_own_code_is_refused_without_asking(tmp_path: Path, items_dir: Path, kind: str,
                                                                       stdin: str | None) -> None:
    marker = tmp_path / "code-ran"
    model = build_custom_code_checkpoint(tmp_path / "custom", marker)
    command = [sys.executable, "-m", "decisionpivot.cli", "evaluate", "--system", "local",
               "--config", str(systems_file(tmp_path, kind, model)), "--items", str(items_dir),
               "--runs", str(tmp_path / "runs"), "--limit", "2"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(command, input=stdin, stdin=subprocess.DEVNULL if stdin is None else None,
                          capture_output=True, text=True, env=env, timeout=300)
    assert not marker.exists(), "the checkpoint's code ran"
    assert "Do you wish to run the custom code" not in done.stdout + done.stderr, "transformers asked on stdin"
    assert done.returncode == 2, done.stderr[-3000:]
    line = only_error_line(done.stderr)
    assert f"cannot load '{model}'" in line and "its own Python code" in line and "never runs" in line, line


@pytest.mark.parametrize("kind", KINDS)
def test_a_pickle_holding_a_call_is_refused_in_one_line(tmp_path: Path, items_dir: Path, kind: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "pickle-ran"
    model = build_pickle_checkpoint(tmp_path / "pickled", marker)
    config = systems_file(tmp_path, kind, model)
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "--system", "local", "--config", str(config), "--items", str(items_dir),
              "--runs", str(tmp_path / "runs"), "--limit", "2"])
    assert exit_info.value.code == 2
    assert not marker.exists(), "the pickle's call ran"
    line = only_error_line(capsys.readouterr().err)
    assert "pickle weights hold objects other than tensors (posix.system)" in line, line
    assert "safetensors" in line and "weights_only" not in line, line  # never advise the unsafe way out


@pytest.mark.parametrize("kind", KINDS)
def test_a_pickle_of_tensors_only_still_loads(tmp_path: Path, items_dir: Path, kind: str) -> None:
    """``torch.load(weights_only=True)`` is safe: older checkpoints with plain tensor pickles are not refused."""
    model = build_pickle_checkpoint(tmp_path / "plain")
    main(["evaluate", "--system", "local", "--config", str(systems_file(tmp_path, kind, model)),
          "--items", str(items_dir), "--runs", str(tmp_path / "runs"), "--limit", "2"])
    lines = (tmp_path / "runs" / "local" / f"{FAMILY}.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all('"p"' in line for line in lines)


def test_a_missing_checkpoint_is_one_line_naming_it(tmp_path: Path, items_dir: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    config = systems_file(tmp_path, "decision", tmp_path / "nowhere")
    with pytest.raises(SystemExit):
        main(["evaluate", "--system", "local", "--config", str(config), "--items", str(items_dir),
              "--runs", str(tmp_path / "runs"), "--limit", "1"])
    line = only_error_line(capsys.readouterr().err)
    assert f"system 'local': cannot load '{tmp_path / 'nowhere'}'" in line


def test_messages_become_one_line() -> None:
    assert one_line("a\n  b\t\tc\n") == "a b c"
    assert len(one_line("x " * 1000)) == 400 and one_line("x " * 1000).endswith("...")
    refused = load_error("s", "/m", pickle.UnpicklingError("Weights only load failed.\n\nTrying to load "
                                                           "unsupported GLOBAL builtins.exec whose module ..."))
    assert str(refused) == ("system 's': cannot load '/m': its pickle weights hold objects other than tensors "
                            "(builtins.exec), which could run code, and are refused; use the checkpoint's "
                            "safetensors weights")
    other = load_error("s", "/m", OSError("no file named\nconfig.json"))
    assert str(other) == "system 's': cannot load '/m': OSError: no file named config.json"
