"""`dp reconstruct`: official files -> checked hashes -> converted, sampled items -> checked count and hash.

One converter module per task in ``reconstruct/tasks/<task>.py`` defines
``convert(source: SourceFolder, card: TaskCard, **inputs) -> list[Item]`` returning every candidate
item in a deterministic order (ids are assigned after sampling). Reconstruction writes nothing
unless every official file's SHA-256, the item count and the items file's SHA-256 match the card;
on a mismatch it says which file and what was expected and found.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.generate.common.seeding import stable_seed
from decisionpivot.items import Item, atomic_write_bytes, items_bytes
from decisionpivot.reconstruct.card import TaskCard, all_cards, get_card
from decisionpivot.reconstruct.sources import SourceFolder, sha256_bytes

DEFAULT_OUT = Path("datasets") / "reference"


class ReconstructionError(DecisionPivotError):
    """Reconstruction refused: a hash, a count or an input does not match the card."""


class MissingInputError(ReconstructionError):
    """A required input (a sampled-answers file) was not given: the task is skipped, not failed."""


@dataclass(frozen=True)
class Reconstruction:
    """The result of rebuilding one task."""

    task: str
    """Task id."""
    items: int
    """Items written."""
    sha256: str
    """SHA-256 of the items file written."""
    path: Path
    """Items file."""
    verified: bool
    """Whether count and hash were checked against a verified card."""


def reference_item(card: TaskCard, state: str | dict[str, Any], answer: str | None, *, group: str | None = None,
                   domain: str | None = None, variation: str | None = None,
                   options: Sequence[Any] | None = None, question: str | None = None,
                   extra: dict[str, Any] | None = None) -> Item:
    """An item of a reference task; the id is assigned after sampling."""
    return Item(id=f"{card.id}:pending", family=card.id, layer=card.layer, version=card.converter_version,
                group=f"{card.id}:{group}" if group is not None else None, level=None, variation=variation,
                domain=domain, state=state, question=question or card.question,
                options=tuple(options) if options is not None else card.options, answer=answer, extra=extra or {})


def check_files(card: TaskCard, source: SourceFolder) -> list[str]:
    """Differences between the official files found and the card's hashes (empty when all match)."""
    problems = []
    for f in card.files:
        path = source.root / f.path
        if not path.is_file():
            problems.append(f"{path}: missing (expected SHA-256 {f.sha256})")
            continue
        found = sha256_bytes(path.read_bytes())
        if f.sha256 is not None and found != f.sha256:
            problems.append(f"{path}: SHA-256 {found}, expected {f.sha256}")
    return problems


def sample(card: TaskCard, candidates: Sequence[Item]) -> list[Item]:
    """Fixed-seed sample of at most ``card.target`` items, keeping the candidates' order.

    ``stratify: answer`` in the card's sampling keeps every answer class with at least
    ``min_per_class`` items (then proportional shares); ``stratify: answer`` with ``shares: equal``
    gives every answer class the same count (:func:`equal_shares`, optionally ``within`` strata of an
    item field such as ``variation``); unit ``query`` samples whole queries
    (``queries`` x up to ``candidates`` per query, all relevant candidates kept first).
    """
    rng = random.Random(stable_seed("reference", card.id, card.seed))
    options = card.sampling
    if card.resample == "query":
        by_query: dict[str, list[int]] = defaultdict(list)
        for i, item in enumerate(candidates):
            by_query[item.group or item.id].append(i)
        queries = sorted(by_query)
        chosen_queries = sorted(rng.sample(queries, min(int(options.get("queries", 100)), len(queries))))
        keep: list[int] = []
        per_query = int(options.get("candidates", 50))
        for q in chosen_queries:
            members = by_query[q]
            relevant = [i for i in members if candidates[i].answer == options.get("relevant", "relevant")]
            others = [i for i in members if i not in relevant]
            rng.shuffle(others)
            keep.extend(sorted((relevant + others)[:per_query]))
        return [candidates[i] for i in sorted(keep)]
    indices = list(range(len(candidates)))
    if options.get("stratify") == "answer" and options.get("shares") == "equal":
        return [candidates[i] for i in equal_shares(candidates, card.target, rng, options.get("within"))]
    if len(indices) <= card.target:
        return list(candidates)
    if options.get("stratify") == "answer":
        classes: dict[str | None, list[int]] = defaultdict(list)
        for i in indices:
            classes[candidates[i].answer].append(i)
        floor = int(options.get("min_per_class", 0))
        picked: list[int] = []
        budget = card.target
        for key in sorted(classes, key=str):
            take = min(len(classes[key]), max(floor, round(card.target * len(classes[key]) / len(indices))))
            picked.extend(rng.sample(classes[key], take))
        rest = [i for i in indices if i not in set(picked)]
        if len(picked) > budget:
            picked = rng.sample(picked, budget)
        elif len(picked) < budget:
            picked.extend(rng.sample(rest, budget - len(picked)))
        return [candidates[i] for i in sorted(picked)]
    return [candidates[i] for i in sorted(rng.sample(indices, card.target))]


def equal_shares(candidates: Sequence[Item], target: int, rng: random.Random,
                 within: str | None = None) -> list[int]:
    """Indices of a sample with the same number of items in every answer class, sorted.

    Without ``within`` each class gets ``target // k`` items (k classes), or as many as the smallest
    class has. With ``within`` (an item field, e.g. ``variation``) the items are first split into strata
    by that field; a stratum takes part only if it holds every class, and each class's ``target // k``
    items are spread over the strata in proportion to their smallest class (largest remainders), so
    every stratum is balanced too and the stratum field tells nothing about the answer.
    """
    answers = sorted({str(item.answer) for item in candidates})
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for i, item in enumerate(candidates):
        stratum = "" if within is None else str(getattr(item, within))
        cells[stratum][str(item.answer)].append(i)
    capacity = {s: min(len(cells[s][a]) for a in answers) for s in sorted(cells)}
    capacity = {s: c for s, c in capacity.items() if c > 0}
    per_class = target // max(len(answers), 1)
    total = sum(capacity.values())
    if total <= per_class:
        quota = dict(capacity)
    else:
        exact = {s: per_class * c / total for s, c in capacity.items()}
        quota = {s: int(v) for s, v in exact.items()}
        by_remainder = sorted(capacity, key=lambda s: (-(exact[s] - quota[s]), s))
        for s in by_remainder[:per_class - sum(quota.values())]:
            quota[s] += 1
    picked: list[int] = []
    for stratum in sorted(quota):
        for answer in answers:
            picked.extend(rng.sample(cells[stratum][answer], quota[stratum]))
    return sorted(picked)


def numbered(card: TaskCard, items: Sequence[Item]) -> list[Item]:
    return [dataclasses.replace(item, id=f"{card.id}:{n:05d}") for n, item in enumerate(items)]


def build_items(card: TaskCard, source_dir: Path, **inputs: Any) -> list[Item]:
    """Convert and sample, without hash checks (used by tests on fixtures and by reconstruct_task)."""
    try:
        module = importlib.import_module(f"decisionpivot.reconstruct.tasks.{card.id}")
    except ModuleNotFoundError as exc:
        if exc.name == f"decisionpivot.reconstruct.tasks.{card.id}":
            raise ReconstructionError(f"no converter for task {card.id!r} (reconstruct/tasks/{card.id}.py)") from None
        raise
    source = SourceFolder(source_dir, encodings=tuple(card.sampling.get("encodings", ("utf-8-sig",))))
    candidates = module.convert(source, card, **inputs)
    return numbered(card, sample(card, candidates))


def reconstruct_task(task: str, source_dir: str | Path, out_dir: str | Path = DEFAULT_OUT,
                     **inputs: Any) -> Reconstruction:
    """Rebuild one task from its official files into ``<out>/<task>.jsonl``, or write nothing."""
    card = get_card(task)
    source_dir = Path(source_dir)
    folder = source_dir / task if (source_dir / task).is_dir() else source_dir
    problems = check_files(card, SourceFolder(folder))
    if problems:
        raise ReconstructionError(f"{task}: official files do not match the card; nothing written:\n  "
                                  + "\n  ".join(problems))
    items = build_items(card, folder, **inputs)
    data = items_bytes(items)
    digest = hashlib.sha256(data).hexdigest()
    if card.expected_items is not None and len(items) != card.expected_items:
        raise ReconstructionError(f"{task}: {len(items)} items, card expects {card.expected_items}; nothing written")
    if card.expected_sha256 is not None and digest != card.expected_sha256:
        raise ReconstructionError(f"{task}: items SHA-256 {digest}, card expects {card.expected_sha256}; "
                                  "nothing written")
    path = Path(out_dir) / f"{task}.jsonl"
    atomic_write_bytes(path, data)
    return Reconstruction(task, len(items), digest, path, card.verified and card.expected_sha256 is not None)


def record_expected(card: TaskCard, result: Reconstruction) -> None:
    """Write the reconstructed count and hash into the card's one-line ``expected:`` entry, and the chance
    baseline computed on the items into its one-line ``chance:`` entry as ``on_items`` (maintainers)."""
    from decisionpivot.items import read_items
    from decisionpivot.reconstruct.scoring import chance_for

    path = Path(card.path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for key in ("expected:", "chance:"):
        hits = [i for i, line in enumerate(lines) if line.startswith(key)]
        if len(hits) != 1 or (key == "chance:" and not lines[hits[0]].rstrip().endswith("}")):
            raise ReconstructionError(f"{path}: expected exactly one one-line {key!r} entry to update")
    expected = next(i for i, line in enumerate(lines) if line.startswith("expected:"))
    lines[expected] = f"expected: {{items: {result.items}, items_sha256: {result.sha256}, verified: true}}\n"
    chance = next(i for i, line in enumerate(lines) if line.startswith("chance:"))
    value = round(chance_for(card, read_items(result.path)), 4)
    body = re.sub(r",\s*on_items:\s*[-0-9.eE]+\s*}$", "}", lines[chance].rstrip())
    lines[chance] = f"{body[:-1].rstrip()}, on_items: {value}}}\n"
    atomic_write_bytes(path, "".join(lines).encode("utf-8"))


def reconstruct_all(source_dir: str | Path, out_dir: str | Path = DEFAULT_OUT, **inputs: Any
                    ) -> tuple[list[Reconstruction], dict[str, str], dict[str, str]]:
    """Every task whose official files are present: (done, skipped with reason, failed with reason)."""
    done, skipped, failed = [], {}, {}
    for task in all_cards():
        folder = Path(source_dir) / task
        if not folder.is_dir():
            skipped[task] = f"no official files in {folder}"
            continue
        try:
            done.append(reconstruct_task(task, source_dir, out_dir, **inputs))
        except MissingInputError as exc:
            skipped[task] = str(exc)
        except DecisionPivotError as exc:
            failed[task] = str(exc)
    return done, skipped, failed
