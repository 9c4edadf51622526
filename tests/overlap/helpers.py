"""Small reference sets, training corpora and a real local Dask cluster shared by the overlap tests."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Sequence
from pathlib import Path

from distributed import LocalCluster

from decisionpivot.items import Item, Option, write_items

OPTIONS = (Option("yes", "y"), Option("no", "n"))
TEXTS = [
    "the quick brown fox jumps over the lazy dog while seven silent owls watch from the old oak tree at dusk",
    "a completely different passage about ledger entries that never reconcile because of netted bank fees today",
    "river boats carry grain downstream every autumn when the water is high and the locks stay open all night",
    "short text",
]


def reference(tmp_path: Path) -> Path:
    """Four items in two groups of two (``t:g0``, ``t:g1``) in ``tmp_path/reference/t.jsonl``."""
    folder = tmp_path / "reference"
    items = [Item(f"t:{i:05d}", "t", "C", "1", f"t:g{i // 2}", None, None, None, text, "Q?", OPTIONS, "yes")
             for i, text in enumerate(TEXTS)]
    write_items(folder / "t.jsonl", items)
    return folder


WORDS = [f"w{i}" for i in range(400)] + ["délta", "ΣΟΦΙΑ", "don't", "e.g.", "x_y", "42", "“quote”", "naïve",
                                         "İstanbul", "end.", "Kelvin\u212a", "ΟΔΟΣ'α"]
SEPARATORS = [" ", "  ", "\n", ", ", " - ", "\t", "... ", "'", ":", "\r\n"]


def random_items(rng: random.Random, count: int = 60) -> list[Item]:
    """Items of random words (with Unicode, punctuation and capital sigmas) in groups of two."""
    return [Item(f"r:{i:05d}", "r", "C", "1", f"r:g{i // 2}", None, None, None, random_text(rng, rng.randint(8, 40)),
                 "Q?", OPTIONS, "yes") for i in range(count)]


def random_reference(tmp_path: Path, rng: random.Random, count: int = 80) -> tuple[Path, list[Item]]:
    """:func:`random_items` written to ``tmp_path/reference/r.jsonl``: (the folder, the items)."""
    items = random_items(rng, count)
    write_items(tmp_path / "reference" / "r.jsonl", items)
    return tmp_path / "reference", items


def random_text(rng: random.Random, words: int) -> str:
    return "".join(rng.choice(WORDS) + rng.choice(SEPARATORS) for _ in range(words))


def random_documents(rng: random.Random, items: Sequence[Item], count: int = 40, share: float = 0.02) -> list[str]:
    """Training documents of random words; a ``share`` of their pieces copy a window of an item's state."""
    documents = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(1, 30)):
            if rng.random() < share:
                words = str(rng.choice(items).state).split(" ")
                start = rng.randint(0, max(0, len(words) - 5))
                pieces.append(" ".join(words[start : start + rng.randint(3, 30)]))
            else:
                pieces.append(random_text(rng, rng.randint(1, 40)))
        documents.append(rng.choice(SEPARATORS).join(pieces))
    return documents


def jsonl_bytes(documents: Sequence[str]) -> bytes:
    return "".join(json.dumps({"text": d, "meta": {"n": i}}) + "\n" for i, d in enumerate(documents)).encode()


def local_cluster(workers: int = 2) -> LocalCluster:
    """A real Dask cluster of worker processes on the loopback interface (use it as a context manager)."""
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
