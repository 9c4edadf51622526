"""Fixtures for the release tests: a small core set, reference tasks under every licence route, a fake hub.

The Hugging Face client is kept away from the user's home: HF_HOME / HF_XET_CACHE point into a
temporary folder for the module, the saved-login path and the download cache are patched per test,
and HF_TOKEN is set per test.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.items import Item, Option, write_items
from decisionpivot.reconstruct.card import TaskCard, parse_card
from tests.release.fake_hub import FakeHub

OWNER = "owner-token"
READER = "reader-token"
STRANGER = "stranger-token"
REPO = "dp-org/decisionpivot"


def _core_item(family: str, layer: str, index: int) -> Item:
    options = (Option("yes", "the answer is yes"), Option("no", "the answer is no"))
    return Item(id=f"{family}:{index:05d}", family=family, layer=layer, version="1.1",
                group=f"{family}:g{index // 2:04d}", level=1 + index % 3, variation="swap" if index % 2 else None,
                domain=("retail", "energy")[index % 2], state=f"Case {index} of {family}: " + "fact. " * (index + 3),
                question="Is it so?", options=options, answer="yes" if index % 2 else "no")


def write_core(folder: Path, families: dict[str, tuple[str, int]]) -> Path:
    """A core folder like `dp generate` writes: <family>.jsonl and MANIFEST.json."""
    entries = {}
    for family, (layer, count) in families.items():
        items = [_core_item(family, layer, i) for i in range(count)]
        sha = write_items(folder / f"{family}.jsonl", items)
        entries[family] = {"file": f"{family}.jsonl", "layer": layer, "items": count,
                           "groups": len({i.group for i in items}), "sha256": sha, "generator_version": "1.1",
                           "seed": 7}
    manifest = {"benchmark": "DecisionPivot core", "version": "1.1", "families": entries}
    (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return folder


SUITE_FRAMINGS = ("plain", "wording-1", "labels")
"""The framings the small test suite writes (the format's keys, not its material)."""


def write_suite(folder: Path, core: Path, seed: int | None = None, version: str | None = None) -> Path:
    """A small invariance suite drawn from ``core`` as `dp frame` lays it out: every core item in three framings,
    ``<family>.jsonl`` per family and MANIFEST.json (the released seed and version unless given)."""
    from dataclasses import replace

    from decisionpivot.frame.framings import SUITE_VERSION
    from decisionpivot.frame.suite import SUITE_SEED
    from decisionpivot.items import read_items

    seed = SUITE_SEED if seed is None else seed
    version = SUITE_VERSION if version is None else version
    core_manifest = json.loads((core / "MANIFEST.json").read_text(encoding="utf-8"))
    entries = {}
    for family, entry in core_manifest["families"].items():
        framed = []
        for item in read_items(core / entry["file"]):
            for framing in SUITE_FRAMINGS:
                rename = {"yes": "true", "no": "false"} if framing == "labels" else {k: k for k in item.option_keys}
                options = tuple(Option(rename[o.key], o.meaning) for o in item.options)
                question = "Is it really so?" if framing == "wording-1" else item.question
                framed.append(replace(item, id=f"{item.id}~{framing}", version=version, question=question,
                                      options=options, answer=rename[item.answer or ""],
                                      extra={"base": item.id, "companions": None, "framing": framing,
                                             "key_map": {v: k for k, v in rename.items()}, "steer_to": None}))
        sha = write_items(folder / entry["file"], framed)
        entries[family] = {"file": entry["file"], "layer": entry["layer"], "items": len(framed),
                           "base_items": entry["items"], "groups": entry["groups"], "sha256": sha, "seed": seed}
    manifest = {"benchmark": "DecisionPivot invariance", "version": version, "seed": seed,
                "core": {"version": core_manifest["version"],
                         "manifest_sha256": hashlib.sha256((core / "MANIFEST.json").read_bytes()).hexdigest()},
                "base_items_per_family": 12, "framings": list(SUITE_FRAMINGS), "families": entries,
                "items": sum(e["items"] for e in entries.values())}
    (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return folder


def _card(task: str, spdx: str | None, name: str, klass: str, redistribution: str, route: str,
          attribution: str = "cite the authors") -> TaskCard:
    data: dict[str, Any] = {
        "id": task, "layer": "B", "title": f"Title of {task}", "citation": f"Authors ({task})",
        "source": {"url": f"https://example.org/{task}", "repository": f"example/{task}", "version": "v1"},
        "license": {"spdx": spdx, "name": name, "class": klass, "redistribution": redistribution,
                    "attribution": attribution},
        "label_source": "H", "question": "Is this prompt safe?",
        "options": [{"key": "safe", "meaning": "safe"}, {"key": "unsafe", "meaning": "unsafe"}],
        "metric": {"name": "accuracy"}, "chance": {"value": 0.5, "method": "1/k"},
        "sampling": {"seed": 1, "target": 1000, "unit": "item"}, "route": route,
        "files": [{"path": "data.csv"}], "expected": {"verified": False}, "converter_version": "1.0",
    }
    return parse_card(data, f"<test card {task}>")


def sample_cards() -> dict[str, TaskCard]:
    """One card per situation the release must handle."""
    cards = [
        _card("open_task", "CC-BY-4.0", "Creative Commons Attribution 4.0", "permissive", "allowed", "redistribute"),
        _card("mit_task", "MIT", "MIT License", "permissive", "allowed", "redistribute",
              "Copyright (c) 2024 Example Lab; include the MIT notice"),
        _card("nc_task", "CC-BY-NC-4.0", "CC BY-NC 4.0", "non-commercial", "allowed", "reconstruct-only"),
        _card("sa_task", "CC-BY-SA-4.0", "CC BY-SA 4.0", "share-alike", "share-alike", "reconstruct-only"),
        _card("unstated_task", None, "unstated", "unstated", "unstated", "reconstruct-only"),
        _card("absent_task", "Apache-2.0", "Apache License 2.0", "permissive", "allowed", "redistribute"),
        _card("odd_task", "MIT", "MIT License", "permissive", "allowed", "reconstruct-only"),
    ]
    return {c.id: c for c in cards}


def write_reference(folder: Path, tasks: list[str]) -> Path:
    """Reference items files (every task but absent_task by default)."""
    for task in tasks:
        options = (Option("safe", "safe"), Option("unsafe", "unsafe"))
        items = [Item(id=f"{task}:{i:05d}", family=task, layer="B", version="1.0", group=None, level=None,
                      variation=None, domain=None, state=f"secret text {task} {i}", question="Is this prompt safe?",
                      options=options, answer=("safe", "unsafe")[i % 2]) for i in range(5 + len(task))]
        write_items(folder / f"{task}.jsonl", items)
    return folder


@pytest.fixture
def core_dir(tmp_path: Path) -> Path:
    return write_core(tmp_path / "core", {"alpha_check": ("A", 12), "beta_check": ("D", 9)})


@pytest.fixture
def suite_dir(tmp_path: Path, core_dir: Path) -> Path:
    return write_suite(tmp_path / "invariance", core_dir)


@pytest.fixture
def cards() -> dict[str, TaskCard]:
    return sample_cards()


@pytest.fixture
def reference_dir(tmp_path: Path, cards: dict[str, TaskCard]) -> Path:
    return write_reference(tmp_path / "reference", [t for t in cards if t != "absent_task"])


@pytest.fixture(scope="module", autouse=True)
def hf_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """HF_HOME and the xet cache in a temporary folder while this module's tests run."""
    home = tmp_path_factory.mktemp("hf_home")
    saved = {k: os.environ.get(k) for k in ("HF_HOME", "HF_XET_CACHE", "HF_HUB_DISABLE_TELEMETRY")}
    os.environ.update({"HF_HOME": str(home), "HF_XET_CACHE": str(home / "xet"), "HF_HUB_DISABLE_TELEMETRY": "1"})
    yield home
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def hf_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No saved login, a fresh download cache, no endpoint from the environment."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "no-saved-token"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    return tmp_path / "hf-cache"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub(write_tokens=(OWNER,)) as server:
        yield server


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
