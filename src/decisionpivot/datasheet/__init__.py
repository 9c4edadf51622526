"""datasheet: the Gebru et al. datasheet (``DATASHEET.md``) and Croissant 1.1 metadata (``croissant.json``).

Both are computed from the items files and the task cards (``dp datasheet``); the bytes depend only
on those inputs, so the outputs can be tracked like any other pipeline product.
"""

from __future__ import annotations

import json
from pathlib import Path

from decisionpivot.items import atomic_write_bytes
from decisionpivot.reconstruct.card import TaskCard, all_cards

DATASHEET_NAME = "DATASHEET.md"
CROISSANT_NAME = "croissant.json"


def write_datasheet(core_dir: Path, reference_dir: Path | None, out_dir: Path,
                    cards: dict[str, TaskCard] | None = None, invariance_dir: Path | None = None,
                    scale_dir: Path | None = None, scale_invariance_dir: Path | None = None) -> list[Path]:
    """Compute the statistics and write ``DATASHEET.md`` and ``croissant.json`` into ``out_dir``.

    ``reference_dir`` None: no reference items are read (every card is listed as absent).
    ``invariance_dir``: the invariance suite drawn from ``core_dir`` (None: the datasheet says it was not described).
    ``scale_dir``, ``scale_invariance_dir``: the scale suite and its framings (None: not mentioned).
    """
    from decisionpivot.datasheet.croissant import croissant
    from decisionpivot.datasheet.render import datasheet_markdown
    from decisionpivot.datasheet.stats import collect

    stats = collect(Path(core_dir), None if reference_dir is None else Path(reference_dir),
                    all_cards() if cards is None else cards, None if invariance_dir is None else Path(invariance_dir),
                    None if scale_dir is None else Path(scale_dir),
                    None if scale_invariance_dir is None else Path(scale_invariance_dir))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sheet, meta = out_dir / DATASHEET_NAME, out_dir / CROISSANT_NAME
    atomic_write_bytes(sheet, datasheet_markdown(stats).encode("utf-8"))
    document = json.dumps(croissant(stats, out_dir), ensure_ascii=False, indent=2) + "\n"
    atomic_write_bytes(meta, document.encode("utf-8"))
    return [sheet, meta]
