"""``dp recalibrate apply``: a fitted map on a team's answers (our answer files) or a CSV of confidences."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.recalibration import configuration_problem
from decisionpivot.recalibrate.map_file import RecalibrationMap, recalibrated_confidence
from decisionpivot.score.answers import read_task_answers
from decisionpivot.score.certified import answer_fingerprint
from decisionpivot.score.layout import read_layout
from decisionpivot.user_files import RECALIBRATE_COLUMNS, read_csv_file

CONFIDENCE_COLUMN = "confidence"
RECALIBRATED_COLUMN = "recalibrated_confidence"


def _number(value: float) -> str:
    return f"{value:.6f}"


def apply_to_answers(mapping: RecalibrationMap, folder: Path, items: Path) -> str:
    """CSV of every answer in ``folder`` (``<task>.jsonl`` against ``items/<task>.jsonl``): task, id, predicted
    option, confidence and recalibrated confidence. A family the map was not fitted on, or answers of another
    configuration than the map's (their .meta.json fingerprint), are refused as `dp gate --recalibration` refuses
    them (:func:`~decisionpivot.gate.recalibration.configuration_problem`): a map says nothing about them."""
    files = sorted(p for p in folder.glob("*.jsonl") if not p.name.endswith(".raw.jsonl"))
    if not folder.is_dir() or not files:
        raise DecisionPivotError(f"{folder}: no answer files (<task>.jsonl) to recalibrate")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["task", "id", "predicted", CONFIDENCE_COLUMN, RECALIBRATED_COLUMN])
    for path in files:
        items_file = items / path.name
        if not items_file.is_file():
            raise DecisionPivotError(f"{path}: no items file {items_file} for its task")
        layout = read_layout(items_file)
        answers = read_task_answers(path, layout, folder.name)
        problem = configuration_problem(mapping, layout.task, answer_fingerprint(answers.meta))
        if problem is not None:
            raise DecisionPivotError(f"{path}: {problem}")
        mapped = recalibrated_confidence(mapping, answers.confidence, answers.probabilities, layout.option_count)
        for i in np.flatnonzero(answers.answered).tolist():
            writer.writerow([layout.task, layout.item_ids[i], layout.option_keys[i][int(answers.predicted[i])],
                             _number(float(answers.confidence[i])), _number(float(mapped[i]))])
    return out.getvalue()


def apply_to_csv(mapping: RecalibrationMap, path: Path) -> str:
    """The CSV with a ``recalibrated_confidence`` column after its ``confidence`` column (a two-option
    ``options`` column of 2s lets temperature maps apply; isotonic maps need only the confidence). Read by
    :data:`~decisionpivot.user_files.RECALIBRATE_COLUMNS`: confidences in [0, 1], options whole numbers >= 2, an
    ``id`` at most once; the other columns pass through untouched, except one already named
    ``recalibrated_confidence`` (refused: it would be overwritten)."""
    table = read_csv_file(path, f"a CSV with a '{CONFIDENCE_COLUMN}' column", RECALIBRATE_COLUMNS,
                          other_columns=True)
    if RECALIBRATED_COLUMN in table.header:
        raise DecisionPivotError(f"{path}:1: already has a '{RECALIBRATED_COLUMN}' column (this would overwrite "
                                 "it); rename or drop it")
    values = np.array([row.values[CONFIDENCE_COLUMN] for row in table.rows], dtype=np.float64)
    options = (np.array([row.values["options"] for row in table.rows]) if "options" in table.header else None)
    mapped = recalibrated_confidence(mapping, values, None, options)
    out = io.StringIO()
    fields = list(table.header)
    fields.insert(fields.index(CONFIDENCE_COLUMN) + 1, RECALIBRATED_COLUMN)
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row, value in zip(table.rows, mapped.tolist(), strict=True):
        writer.writerow({**row.cells, RECALIBRATED_COLUMN: _number(value)})
    return out.getvalue()
