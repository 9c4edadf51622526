"""The DVC pipeline: a fresh copy of the repository reproduces the committed dvc.lock byte for byte.

The reproduction runs every stage, the audit's cross-validated probes included, with one BLAS/OpenMP thread
on another OpenBLAS kernel (``OPENBLAS_CORETYPE``) than this CPU picks, as another machine would: dvc.lock
was made with the default settings (CI's own ``dvc repro`` runs with them first: two threads on a two-core
machine), so one run varies both the thread count and the kernel. It must give every hash in dvc.lock (the
probes round their decisions, src/decisionpivot/audit/probes.py; the bootstrap's sums are exact,
src/decisionpivot/score/bootstrap.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
STAGES = ["verify", "audit", "report", "licenses", "datasheet",  # with their upstream stages: all
          "verify-invariance", "audit-invariance", "verify-scale", "audit-scale"]
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
VERBS = {"generate", "verify", "audit", "evaluate", "score", "report", "licenses", "datasheet",
         "reconstruct", "gate", "compare", "recalibrate", "cost", "monitor", "frame", "scale", "stability"}
CALIBRATION = {"evaluate-calibration",  # `dp generate` + `dp evaluate` on gate.seeds
               "evaluate-traffic"}  # and on monitor.seed, the traffic `dp monitor` re-checks on
BASELINES = {"evaluate-baselines"}  # `dp evaluate --systems uniform,heuristic.*`: every baseline in one process
INVARIANCE = {"evaluate-invariance", "verify-invariance", "audit-invariance"}  # dp evaluate/verify/audit on the suite
SCALE = {"verify-scale", "audit-scale", "evaluate-scale"}  # dp verify/audit/evaluate on the scale suite
PREVIOUS = {"generate-previous", "evaluate-previous"}  # the previous core and its answers, for `dp stability`


MAIN_JOB_COMMAND = ("python -m pip install uv==0.13.9 && python -m uv pip install --compile-bytecode --require-hashes"
                    " -r requirements-main.lock && python -m uv pip install --no-deps -e . && dvc repro")
"""README command 1: uv installs the main job's lock (the same pins and hashes pip would take) in a fraction of pip's
time (benchmarks/install_footprint.py), and compiles it to bytecode once: every one of the pipeline's ~50 Python
processes then reads the compiled modules instead of compiling numpy, scipy, scikit-learn and pandas again (2.4 s
of CPU per process here where ``PYTHONDONTWRITEBYTECODE`` is set, as on this kind of machine and in many images)."""
TEST_COMMAND = ("python -m pip install -U pip && pip install --require-hashes -r requirements.lock"
                " && pip install --no-deps -e . && python -m pytest -n 2")
"""README command 2: pip, which takes torch's CPU wheel from the wheelhouse its configuration names here (uv does not
read pip's configuration)."""


def _load(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text(encoding="utf-8"))


def test_the_baselines_stage_writes_exactly_the_systems_it_evaluates() -> None:
    """DVC cannot loop over outs, so the baselines stage lists one folder per system: the list must be what
    `dp evaluate --systems ${evaluate.baselines}` writes - the uniform baseline and every family heuristic."""
    from decisionpivot.evaluate.systems import expand_systems, heuristic_systems

    params, stage = _load("params.yaml"), _load("dvc.yaml")["stages"]["evaluate-baselines"]
    expanded = expand_systems(params["evaluate"]["baselines"].split(","))
    assert sorted(expanded) == sorted(["uniform", *heuristic_systems()])
    assert stage["outs"] == [f"runs/{name}" for name in expanded]
    assert not set(expanded) & set(params["evaluate"]["systems"])


def test_the_gated_systems_answer_the_calibration_draws() -> None:
    params = _load("params.yaml")
    gated = params["gate"]["systems"].split(",")
    assert params["monitor"]["system"] in gated and params["compare"]["candidate"] in gated and "uniform" in gated
    assert set(gated) <= set(params["evaluate"]["systems"]) | {"uniform"}


def test_stages_are_the_package_verbs_and_the_fresh_copy_test_covers_all() -> None:
    stages = _load("dvc.yaml")["stages"]
    assert set(stages) == VERBS | CALIBRATION | INVARIANCE | BASELINES | SCALE | PREVIOUS
    # Every stage that is not upstream of another one is a target of the reproduction test below.
    upstream = {"generate", "evaluate", "reconstruct", "gate", "score", "compare", "recalibrate", "cost", "monitor",
                "frame", "evaluate-invariance", "scale", "evaluate-scale", "stability", "generate-previous",
                "evaluate-previous"}
    assert set(stages) - upstream - CALIBRATION - BASELINES == set(STAGES)


def test_the_lock_holds_only_stages_the_pipeline_defines() -> None:
    """DVC keeps a removed stage's entry in dvc.lock: 160 stale entries of per-family and per-heuristic stages made
    it 5,239 lines, which DVC reads and rewrites after every stage of `dvc repro` (about 0.8 s each time)."""
    stages = _load("dvc.yaml")["stages"]
    params = _load("params.yaml")
    defined = set()
    for name, stage in stages.items():
        if "foreach" not in stage:
            defined.add(name)
            continue
        values = stage["foreach"]
        if isinstance(values, str):  # ${section.key}: a list in params.yaml
            node: object = params
            for part in values.strip("${}").split("."):
                node = node[part]  # type: ignore[index]
            values = node
        defined |= {f"{name}@{value}" for value in values}
    assert set(_load("dvc.lock")["stages"]) <= defined, sorted(set(_load("dvc.lock")["stages"]) - defined)


def test_no_stage_reads_the_reference_folder() -> None:
    """Reference items come from official files outside the repository, so they are no pipeline input: the
    stages whose verbs would read datasets/reference by default read the reconstruct stages' outputs instead
    (``reconstruct.track folder`` prints "" when none was rebuilt: no reference tasks)."""
    stages = _load("dvc.yaml")["stages"]
    for name, stage in stages.items():
        body = stage.get("do", stage)
        deps = [str(d) for d in body.get("deps", [])]
        assert not any("reference" in d and "reconstruct" not in d for d in deps), (name, deps)
        verbs = set(re.findall(r"\bdp (\w+)", body["cmd"]))
        if name == "reconstruct":
            assert "python -m decisionpivot.reconstruct.track build" in body["cmd"]
            continue
        assert verbs, name
        if verbs & {"score", "datasheet", "compare", "release"} and "--baseline" not in body["cmd"]:  # core only
            assert '--reference "$(python -m decisionpivot.reconstruct.track folder' in body["cmd"], name


def test_datasheet_stage_declares_what_dp_datasheet_reads() -> None:
    stage = _load("dvc.yaml")["stages"]["datasheet"]
    assert stage["cmd"].startswith("dp datasheet ")
    assert set(stage["outs"]) == {"datasheet/DATASHEET.md", "datasheet/croissant.json"}
    deps = set(stage["deps"])
    assert {"datasets/core/${generate.version}", "src/decisionpivot/datasheet", "src/decisionpivot/reconstruct/cards",
            "src/decisionpivot/licenses", "datasets/invariance/${frame.version}"} <= deps
    assert "--invariance datasets/invariance/${frame.version}" in stage["cmd"]  # the suite the frame stage writes
    assert "datasets/invariance/${frame.version}" in _load("dvc.yaml")["stages"]["frame"]["outs"]
    for dep in deps:
        assert dep.startswith(("datasets/core/", "datasets/reconstructed", "datasets/invariance/", "datasets/scale/",
                               "datasets/scale-invariance/")) \
            or (ROOT / dep).exists(), dep


def test_readme_main_command_is_the_pipeline_and_installs_dvc() -> None:
    """The README's first command runs `dvc repro` in the main job's locked environment, which must bring dvc
    and the served decision models (a core dependency); the pipeline extra (for installs without the lock) brings
    DVC too and the test extra reuses it."""
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    ") and line.strip()]
    assert commands[:2] == [MAIN_JOB_COMMAND, TEST_COMMAND]
    for name in ("requirements-main.lock", "requirements.lock"):
        lock = (ROOT / name).read_text(encoding="utf-8")
        assert re.search(r"^dvc==\S+ \\$", lock, re.MULTILINE), f"{name} has no dvc"
        assert re.search(r"^sparrow-decider==\S+ \\$", lock, re.MULTILINE), f"{name} has no sparrow-decider"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(dep.replace(" ", "").startswith("dvc>=") for dep in extras["pipeline"])
    assert "decisionpivot[pipeline]" in extras["test"]
    assert not any(dep.startswith("dvc") for dep in tomllib.loads(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"])


def test_dvc_config_has_analytics_off_and_a_local_default_remote() -> None:
    config = (ROOT / ".dvc" / "config").read_text(encoding="utf-8")
    assert "analytics = false" in config
    assert "remote = store" in config
    url = next(line.split("=", 1)[1].strip() for line in config.splitlines() if line.strip().startswith("url"))
    assert "://" not in url  # a local path (README: S3 and others are opt-in)


def _tracked_copy(dest: Path) -> None:
    """Copy the files git tracks (working-tree contents) into a fresh git repository at ``dest``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)


def _take_served_outputs(lock: dict, work: Path) -> set[str]:
    """Copy into ``work`` the outputs of the stages that evaluate a served system (``serve:``); their names.

    Such a system answers from its own server process, whose BLAS threads and kernel its ``serve_env`` pins
    (tests/evaluate/test_sparrow.py shows the same bytes under other thread counts and kernels): the settings
    this test varies cannot reach it. When this checkout's own `dvc repro` has made those outputs, as the
    lock pins them (CI runs it first), the fresh copy takes them - DVC then finds those stages up to date and
    runs every other one; without them (a bare clone) every stage runs.
    """
    from decisionpivot.evaluate.systems import load_systems

    served = [name for name, system in load_systems().items() if system.settings.get("serve")]
    taken = set()
    for name, stage in lock["stages"].items():
        system = name.split("@", 1)[1] if "@" in name else ""
        if name == "evaluate-traffic":  # one stage, the system params.yaml's monitor.system names
            system = _load("params.yaml")["monitor"]["system"]
        evaluates = name.startswith(("evaluate@", "evaluate-calibration@", "evaluate-invariance@", "evaluate-traffic",
                                     "evaluate-scale@", "evaluate-previous@"))
        if not evaluates or not any(system == s or system.startswith(f"{s}-") for s in served):
            continue
        outs = stage.get("outs", [])
        objects = [_cache_objects(o["md5"]) for o in outs]
        if outs and all(objects) and all((ROOT / o["path"]).is_dir() and _dir_md5(ROOT / o["path"]) == o["md5"]
                                         for o in outs):
            for out in outs:
                shutil.copytree(ROOT / out["path"], work / out["path"])
            for found in objects:  # DVC counts an output as unchanged only when its cache holds it too
                for path in found or []:
                    target = work / path.relative_to(ROOT)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target)
            taken.add(name)
    return taken


def _cache_objects(md5: str) -> list[Path] | None:
    """The files of this checkout's DVC cache that hold a directory output (its listing and every file), or None."""
    def cached(digest: str) -> Path:
        return ROOT / ".dvc" / "cache" / "files" / "md5" / digest[:2] / digest[2:]

    listing = cached(md5)
    if not md5.endswith(".dir") or not listing.is_file():
        return None
    files = [cached(entry["md5"]) for entry in json.loads(listing.read_text(encoding="utf-8"))]
    return [listing, *files] if all(f.is_file() for f in files) else None


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def _dir_md5(path: Path) -> str:
    """DVC's directory hash: md5 of the JSON list of {relpath, md5} sorted by relpath."""
    entries = sorted(
        ({"md5": _md5(p), "relpath": p.relative_to(path).as_posix()} for p in path.rglob("*") if p.is_file()),
        key=lambda e: e["relpath"],
    )
    return hashlib.md5(json.dumps(entries, sort_keys=True).encode()).hexdigest() + ".dir"


def _other_kernel() -> str | None:
    """An OpenBLAS kernel other than the one this CPU picks: .ci/other_blas_kernel.py, which CI's own
    `dvc repro` runs under too."""
    return runpy.run_path(str(ROOT / ".ci" / "other_blas_kernel.py"))["other_kernel"]()


def _blas_env(threads: int, kernel: str | None) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("SOURCE_DATE_EPOCH", None)
    env.pop("OPENBLAS_CORETYPE", None)
    env.update({name: str(threads) for name in THREAD_VARIABLES})
    if kernel is not None:
        env["OPENBLAS_CORETYPE"] = kernel
    return env


@pytest.mark.slow
@pytest.mark.e2e  # the whole pipeline in a fresh copy: CI runs it (`-m e2e`), the default command skips it
def test_fresh_copy_reproduces_the_lock_on_one_thread_and_another_kernel(tmp_path: Path) -> None:
    dvc = shutil.which("dvc", path=str(Path(sys.executable).parent)) or shutil.which("dvc")
    assert dvc is not None, "dvc is not installed: it is in the test extra and requirements.lock"
    threads, kernel = 1, _other_kernel()
    env = _blas_env(threads, kernel)
    # The settings reach the libraries the pipeline uses: thread counts, and the kernel where one was asked.
    probe = subprocess.run([sys.executable, "-c", "import json, numpy, scipy.linalg, sklearn.linear_model; "
                            "from threadpoolctl import threadpool_info; print(json.dumps(threadpool_info()))"],
                           env=env, capture_output=True, text=True, check=True)
    pools = json.loads(probe.stdout)
    assert pools and all(pool["num_threads"] == threads for pool in pools), pools
    if kernel is not None:
        assert {p["architecture"] for p in pools if p["internal_api"] == "openblas"} == {kernel}, pools

    work = tmp_path / "clone"
    work.mkdir()
    _tracked_copy(work)
    committed = _load("dvc.lock")
    taken = _take_served_outputs(committed, work)
    done = subprocess.run([dvc, "repro", *STAGES], cwd=work, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    lock = yaml.safe_load((work / "dvc.lock").read_text(encoding="utf-8"))
    moved = sorted(f"{name}: {out['path']}" for name, stage in committed["stages"].items()
                   for out in stage.get("outs", [])
                   if out not in lock["stages"].get(name, {}).get("outs", []))
    assert not moved, f"outputs whose bytes differ under {threads} thread(s), kernel {kernel}: {moved}"
    assert lock == committed, "dvc repro changed dvc.lock"
    reran = {line.split("'")[1] for line in done.stdout.splitlines() if line.startswith("Running stage '")}
    assert {"audit", "gate", "score", "evaluate-baselines"} <= reran, "every other stage ran under these settings"
    assert not reran & taken, "the served systems' stages were taken from this checkout, not run again"
    checked = set()
    for name, stage in committed["stages"].items():
        for out in stage.get("outs", []):
            path = work / out["path"]
            found = _dir_md5(path) if out["md5"].endswith(".dir") else _md5(path)
            assert found == out["md5"], f"{name}: {out['path']} has md5 {found}, dvc.lock says {out['md5']}"
            checked.add(out["path"])
    assert len(checked) >= 10
    assert {"datasheet/DATASHEET.md", "datasheet/croissant.json", "reports/leaderboard.md", "reports/audit.json",
            "reports/audit.md"} <= checked
    status = subprocess.run([dvc, "status", *STAGES], cwd=work, env=env, capture_output=True, text=True)
    assert status.returncode == 0, status.stderr
    assert "changed" not in status.stdout and "modified" not in status.stdout, status.stdout
