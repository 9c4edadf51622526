"""`dp manifest` rebuilds the same MANIFEST.json that `dp generate` writes; SOURCE_DATE_EPOCH fixes run times."""

from __future__ import annotations

from pathlib import Path

import pytest

from decisionpivot.cli import main
from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import now
from decisionpivot.generate.run import rebuild_manifest


def test_per_family_draws_plus_manifest_equal_one_generate(tmp_path: Path) -> None:
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    main(["generate", "--families", "policy_case,goal_check", "--out", str(whole)])
    for name in ("goal_check", "policy_case"):
        main(["generate", "--families", name, "--out", str(parts), "--nomanifest"])
    assert not (parts / "MANIFEST.json").exists()
    main(["manifest", "--items", str(parts)])
    assert (parts / "MANIFEST.json").read_bytes() == (whole / "MANIFEST.json").read_bytes()


def test_manifest_refuses_a_missing_family(tmp_path: Path) -> None:
    with pytest.raises(DecisionPivotError, match=r"policy_case\.jsonl not found"):
        rebuild_manifest(tmp_path, 1, ["policy_case"])


def test_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert now() == "1970-01-01T00:00:00+00:00"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    with pytest.raises(DecisionPivotError, match="SOURCE_DATE_EPOCH"):
        now()
