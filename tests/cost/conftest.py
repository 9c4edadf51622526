from __future__ import annotations

from pathlib import Path

import pytest

from tests.deployment_project import Project, shared_project


@pytest.fixture(scope="session")
def project() -> Project:
    return shared_project()


@pytest.fixture()
def in_project(project: Project, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(project.root)
    return project.root
