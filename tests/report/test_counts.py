"""The report reads the counts scoring.json holds; it never rebuilds them (its failed count once differed from the
leaderboard's: it added the records of excluded partial tasks)."""

from __future__ import annotations

from pathlib import Path

from decisionpivot.report.facts import system_facts, system_notes
from decisionpivot.report.inputs import ReportInputs
from decisionpivot.score.results import CORE


def test_failed_predictions_are_the_leaderboards_not_a_sum_over_every_answer_file(tmp_path: Path) -> None:
    scoring = {
        "systems": ["s"],
        "answer_files": [{"system": "s", "task": "a", "failed": 3, "error_records": 3, "restricted": 1},
                         {"system": "s", "task": "b", "failed": 580, "error_records": 0, "restricted": 0}],
        "exclusions": [{"system": "s", "track": CORE, "task": "b", "reason": "records for 20 of 600 items"}],
        "operations": [{"system": "s", "failed_predictions": 3, "input_restrictions": 1}],
    }
    inputs = ReportInputs(tmp_path, {}, scoring, (), {}, None)
    facts = system_facts(inputs, "s")
    assert (facts.failed, facts.errors, facts.restricted, facts.partial_tasks) == (3, 3, 1, ("b",))
    assert any(note.startswith("3 failed predictions (counted as incorrect; 1 input restrictions)")
               for note in system_notes(inputs, facts))
