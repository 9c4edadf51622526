"""An imported system is recorded as a declared one is: same fingerprint rule, no credentials."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from decisionpivot.errors import DecisionPivotError
from decisionpivot.harness.imported import ImportedSystem, ImportedTask, without_secrets, write_imported
from decisionpivot.harness.release_items import release_tasks


def test_the_fingerprint_is_the_canonical_hash_of_the_identity() -> None:
    system = ImportedSystem("s", "inspect", "chat/verbalised", {"model": "m", "generate_config": {"temperature": 0.0}})
    canonical = json.dumps({"kind": "inspect", "model": "m", "generate_config": {"temperature": 0.0}},
                           sort_keys=True, ensure_ascii=False, default=str)
    assert system.fingerprint() == hashlib.sha256(canonical.encode()).hexdigest()
    assert system.public() == {"name": "s", "kind": "inspect", "model": "m", "generate_config": {"temperature": 0.0}}
    warmer = ImportedSystem("s", "inspect", "chat/verbalised", {"model": "m", "generate_config": {"temperature": 1}})
    assert warmer.fingerprint() != system.fingerprint()


def test_credentials_are_never_recorded() -> None:
    kept = without_secrets({"pretrained": "/models/m", "api_key": "sk-abcdefghijklmnop", "HF_TOKEN": "hf_abcdefghijk",
                            "base": "http://host/v1?token=abcdefgh123"})
    assert kept == {"pretrained": "/models/m", "base": "http://host/v1?token=[REDACTED]"}


def test_nothing_to_import_is_an_error(tmp_path: Path, release_items: Path) -> None:
    tasks = release_tasks(release_items, ["policy_case"])
    system = ImportedSystem("s", "lm-eval", "hf/key-logits", {})
    with pytest.raises(DecisionPivotError, match="holds no samples"):
        write_imported(system, tmp_path / "runs", tasks, {"policy_case": []}, {}, {})
    assert not (tmp_path / "runs").exists()


def test_transient_errors_do_not_count_towards_the_coverage_dp_score_needs(tmp_path: Path) -> None:
    """The import's "below 99%" warning counted unfinished samples as covered: `dp score` then dropped the task
    without a word from the import."""
    def task(answers: int, errors: int, transient: int) -> ImportedTask:
        return ImportedTask("t", 100, 100, 0, answers, errors, transient, tmp_path / "t.jsonl")

    assert task(98, 2, 0).covered  # final errors are records: scored as failed
    assert not task(98, 2, 2).covered  # unfinished samples are missing for the scorer
    assert task(99, 1, 1).covered and not task(97, 3, 2).covered
