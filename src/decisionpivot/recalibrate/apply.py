"""``dp recalibrate apply``: a fitted map on a team's answers (our answer files) or a CSV of confidences."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from decisionpivot.errors import DecisionPivotError
from decisionpivot.gate.recalibration import configuration_problem
from decisionpivot.item_origin import accept_items_file, modified_items
from decisionpivot.recalibrate.map_file import RecalibrationMap, recalibrated_confidence
from decisionpivot.score.answers import read_task_answers
from decisionpivot.score.certified import answer_fingerprint
from decisionpivot.score.layout import read_layout
from decisionpivot.user_files import RECALIBRATE_COLUMNS, read_csv_file

CONFIDENCE_COLUMN = "confidence"
RECALIBRATED_COLUMN = "recalibrated_confidence"
MODIFIED_COLUMN = "modified_items"
"""Last column of ``apply --answers`` when some items were read with ``--allow-modified-items``: what did not match
(empty for rows of items this package accepts)."""


def _number(value: float) -> str:
    return f"{value:.6f}"


def apply_to_answers(mapping: RecalibrationMap, folder: Path, items: Path, allow_modified_items: bool = False) -> str:
    """CSV of every answer in ``folder`` (``<task>.jsonl`` against ``items/<task>.jsonl``): task, id, predicted
    option, confidence and recalibrated confidence. A family the map was not fitted on, or answers of another
    configuration than the map's (their .meta.json fingerprint), are refused as `dp gate --recalibration` refuses
    them (:func:`~decisionpivot.gate.recalibration.configuration_problem`): a map says nothing about them. Each
    items file is accepted by the rule of every verb that reads items (:mod:`decisionpivot.item_origin`); with
    ``allow_modified_items`` one it refuses is read all the same, and the rows of its answers end with a
    ``modified_items`` column saying what did not match."""
    files = sorted(p for p in folder.glob("*.jsonl") if not p.name.endswith(".raw.jsonl"))
    if not folder.is_dir() or not files:
        raise DecisionPivotError(f"{folder}: no answer files (<task>.jsonl) to recalibrate")
    layouts = []
    for path in files:
        items_file = items / path.name
        if not items_file.is_file():
            raise DecisionPivotError(f"{path}: no items file {items_file} for its task")
        layout = read_layout(items_file)
        how = accept_items_file(items_file, layout.items_sha256, allow_modified_items, layout.task)
        layouts.append((path, layout, modified_items([(layout.task, how)]).get(layout.task)))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    flagged = any(modified for _, _, modified in layouts)
    writer.writerow(["task", "id", "predicted", CONFIDENCE_COLUMN, RECALIBRATED_COLUMN]
                    + ([MODIFIED_COLUMN] if flagged else []))
    for path, layout, modified in layouts:
        answers = read_task_answers(path, layout, folder.name)
        problem = configuration_problem(mapping, layout.task, answer_fingerprint(answers.meta))
        if problem is not None:
            raise DecisionPivotError(f"{path}: {problem}")
        mapped = recalibrated_confidence(mapping, answers.confidence, answers.probabilities, layout.option_count)
        for i in np.flatnonzero(answers.answered).tolist():
            writer.writerow([layout.task, layout.item_ids[i], layout.option_keys[i][int(answers.predicted[i])],
                             _number(float(answers.confidence[i])), _number(float(mapped[i]))]
                            + ([modified or ""] if flagged else []))
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
