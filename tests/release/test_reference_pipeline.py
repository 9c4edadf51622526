"""The reference track in dvc.yaml: one reconstruct stage per card, off by default, restricted outputs never pushed."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from decisionpivot.reconstruct.card import all_cards

ROOT = Path(__file__).resolve().parents[2]
OFFICIAL = ROOT.parent / "shared" / "reference-sources"
TRACK = "python -m decisionpivot.reconstruct.track"


def _load(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))


def test_one_reconstruct_stage_for_every_card_off_by_default_and_never_pushed() -> None:
    params, stages = _load("params.yaml"), _load("dvc.yaml")["stages"]
    assert params["reconstruct"]["source"] == ""
    stage = stages["reconstruct"]
    assert " ".join(stage["cmd"].split()).startswith(f"{TRACK} build-all --source \"${{reconstruct.source}}\"")
    assert stage["outs"] == [{"datasets/reconstructed": {"push": False}}]
    assert {"reconstruct.source", "reconstruct.sampled_answers"} <= set(stage["params"])
    assert "src/decisionpivot/reconstruct" in stage["deps"]


def test_consumers_read_the_rebuilt_tasks_and_never_the_default_reference_folder() -> None:
    stages = _load("dvc.yaml")["stages"]
    gathered = f'--reference "$({TRACK} folder --build datasets/reconstructed --out datasets/reference-track)"'
    for name in ("score", "datasheet"):
        assert gathered in " ".join(stages[name]["cmd"].split()), name
        assert "datasets/reconstructed" in stages[name]["deps"], name
    evaluate = stages["evaluate"]["do"]
    assert f"{TRACK} evaluate --systems ${{item}} --build datasets/reconstructed" in " ".join(evaluate["cmd"].split())
    assert "datasets/reconstructed" in evaluate["deps"]
    baselines = stages["evaluate-baselines"]
    assert f"{TRACK} evaluate --systems ${{evaluate.baselines}} --build datasets/reconstructed" in " ".join(
        baselines["cmd"].split())
    for name, stage in stages.items():
        text = yaml.safe_dump(stage)
        assert "datasets/reference " not in text and "datasets/reference\n" not in text, name
        assert "--reference datasets/reference" not in text, name


def _copy(dest: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)


@pytest.mark.slow
@pytest.mark.e2e  # pipeline stages in a fresh copy with dvc: CI runs it (`-m e2e`)
def test_with_a_source_the_stages_rebuild_and_verify_and_push_skips_the_items(tmp_path: Path) -> None:
    dvc = shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc")
    if dvc is None:
        pytest.skip("dvc is not installed (pip install 'dvc>=3.50')")
    if not (OFFICIAL / "llmbar").is_dir():
        pytest.skip(f"official reference files not found at {OFFICIAL}")
    work = tmp_path / "clone"
    work.mkdir()
    _copy(work)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([dvc, *args], cwd=work, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done

    stages = ["reconstruct"]  # every card: those with a folder in the source rebuilt and checked, the rest absent
    params = work / "params.yaml"
    text = params.read_text(encoding="utf-8")
    assert '\n  source: ""' in text
    params.write_text(text.replace('\n  source: ""', f'\n  source: "{OFFICIAL}"', 1), encoding="utf-8")
    run("repro", *stages, "licenses")
    cards = all_cards()
    for task in ("llmbar", "xstest"):
        items = work / "datasets" / "reconstructed" / task / f"{task}.jsonl"
        assert hashlib.sha256(items.read_bytes()).hexdigest() == cards[task].expected_sha256
    status = run("status", *stages)
    assert "changed" not in status.stdout and "modified" not in status.stdout, status.stdout
    store = tmp_path / "store"
    run("remote", "modify", "--local", "store", "url", str(store))
    run("push", *stages, "licenses")
    pushed = {p.parent.name + p.name for p in store.rglob("*") if p.is_file()}
    review = hashlib.md5((work / "licenses" / "REVIEW.md").read_bytes()).hexdigest()
    assert review in pushed, "other outputs are pushed"
    for task in ("llmbar", "xstest"):
        items = work / "datasets" / "reconstructed" / task / f"{task}.jsonl"
        assert hashlib.md5(items.read_bytes()).hexdigest() not in pushed, f"{task} items reached the remote"
