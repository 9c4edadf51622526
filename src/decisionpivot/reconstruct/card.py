"""Task cards of the reference track: one YAML file per task in ``reconstruct/cards/``.

A card records where a public test set comes from, under which terms, how its items are built and
scored, and what reconstruction must produce (file hashes, item count, items hash). Cards are
validated on load: a missing or mistyped field is an error naming the card file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from decisionpivot.errors import DecisionPivotError, unknown_names
from decisionpivot.items import LAYERS, Option

LICENSE_CLASSES = ("permissive", "share-alike", "non-commercial", "research-only", "mixed", "unstated")
REDISTRIBUTION = ("allowed", "share-alike", "not-allowed", "unstated", "to-verify")
LABEL_SOURCES = {"H": "human-annotated", "P": "programmatically computed", "M": "mixed"}
METRICS = ("accuracy", "balanced_accuracy", "f1", "macro_f1", "micro_f1", "auroc", "auprc", "ndcg10",
           "brier_skill", "precision")
RESAMPLE_UNITS = ("item", "group", "query")
ROUTES = ("redistribute", "reconstruct-only")
STRATUM_FIELDS = ("variation", "domain")
"""Item fields a card may name as ``sampling.within`` (strata for equal class shares)."""


class CardError(DecisionPivotError):
    """A task card that does not follow the schema."""


@dataclass(frozen=True)
class SourceFile:
    """One official file the reconstruction reads."""

    path: str
    """Path relative to the task's source folder."""
    sha256: str | None
    """SHA-256 of the raw bytes; None where no official copy was available to record it."""
    bytes: int | None = None
    """Size in bytes, when known."""


@dataclass(frozen=True)
class License:
    """The terms the source states, as the route rules read them."""

    spdx: str | None
    """SPDX identifier where one exists (``CC-BY-4.0``), else None."""
    name: str
    """Licence as stated by the source."""
    license_class: str
    """permissive, share-alike, non-commercial, research-only, mixed or unstated."""
    redistribution: str
    """allowed, share-alike, not-allowed, unstated or to-verify."""
    attribution: str
    """What attribution the terms require."""
    stated: str = ""
    """Where and how the terms are stated (quote or file)."""


@dataclass(frozen=True)
class TaskCard:
    """Everything known about one reference task."""

    id: str
    """Task id, also the items file stem."""
    layer: str
    """Decision layer A-G."""
    title: str
    """Human-readable title."""
    citation: str
    """How to cite the source."""
    url: str
    """Official URL."""
    repository: str
    """Official repository (owner/name) or host."""
    version: str
    """Version, release or commit used."""
    license: License
    """Terms of the source."""
    label_source: str
    """H (human), P (programmatic) or M (mixed)."""
    question: str
    """Question shown with every item."""
    options: tuple[Option, ...]
    """Ordered options."""
    metric: str
    """Original metric (one of METRICS)."""
    metric_options: dict[str, Any]
    """Metric parameters (e.g. ``positive: unsafe`` for F1 of a class)."""
    chance: float | None
    """Chance baseline b; None when computed on the sampled items at scoring time."""
    chance_method: str
    """How b was obtained."""
    chance_on_items: float | None
    """b computed on the verified items (4 decimals; ``chance.on_items``), None until verified: the official
    tests recompute it, and the class shares behind it are reviewed for one-class samples."""
    resample: str
    """Bootstrap unit: item, group or query."""
    seed: int
    """Sampling seed."""
    target: int
    """Target item count (at most 1,000; reranking: queries x candidates)."""
    sampling: dict[str, Any]
    """Further sampling options: ``stratify: answer`` + ``min_per_class``; ``queries``/``candidates``
    for reranking; ``encodings`` (decoding fallbacks after UTF-8)."""
    route: str
    """redistribute or reconstruct-only, as recorded on the card (checked against the route rules)."""
    files: tuple[SourceFile, ...]
    """Official files read by the converter."""
    expected_items: int | None
    """Item count the reconstruction must give (None: unverified)."""
    expected_sha256: str | None
    """SHA-256 of the reconstructed items file (None: unverified)."""
    verified: bool
    """Whether the hashes were recorded from official files."""
    converter_version: str
    """Version of the converter that produced the recorded hashes."""
    needs_sampled_answers: bool = False
    """Capability-boundary tasks need a sampled-answers file besides the official questions."""
    caveats: tuple[str, ...] = field(default_factory=tuple)
    """Known caveats."""
    path: str = ""
    """Card file the card was read from."""


def _require(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise CardError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise CardError(f"{where}: field {key!r} should be {expected}, found {value!r}")
    return value


def _optional_number(data: dict[str, Any], key: str, where: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CardError(f"{where}: field {key!r} should be a number, found {value!r}")
    return float(value)


def _choice(value: Any, allowed: tuple[str, ...], where: str, key: str) -> str:
    if value not in allowed:
        raise CardError(f"{where}: field {key!r} must be one of {list(allowed)}, found {value!r}")
    return value


def parse_card(data: Any, where: str) -> TaskCard:
    """Validate a decoded card."""
    if not isinstance(data, dict):
        raise CardError(f"{where}: a card is a YAML mapping")
    source = _require(data, "source", dict, where)
    lic = _require(data, "license", dict, where)
    sampling = _require(data, "sampling", dict, where)
    expected = _require(data, "expected", dict, where)
    chance = _require(data, "chance", dict, where)
    metric = _require(data, "metric", dict, where)
    options = tuple(Option(str(o["key"]), str(o["meaning"])) for o in _require(data, "options", list, where))
    if len(options) < 2:
        raise CardError(f"{where}: field 'options' needs at least two options")
    files = tuple(SourceFile(str(f["path"]), f.get("sha256"), f.get("bytes"))
                  for f in _require(data, "files", list, where))
    card = TaskCard(
        id=_require(data, "id", str, where),
        layer=_choice(data.get("layer"), LAYERS, where, "layer"),
        title=_require(data, "title", str, where),
        citation=_require(data, "citation", str, where),
        url=_require(source, "url", str, f"{where} source"),
        repository=_require(source, "repository", str, f"{where} source"),
        version=str(_require(source, "version", (str, int, float), f"{where} source")),
        license=License(
            spdx=lic.get("spdx"),
            name=_require(lic, "name", str, f"{where} license"),
            license_class=_choice(lic.get("class"), LICENSE_CLASSES, where, "license.class"),
            redistribution=_choice(lic.get("redistribution"), REDISTRIBUTION, where, "license.redistribution"),
            attribution=_require(lic, "attribution", str, f"{where} license"),
            stated=str(lic.get("stated", "")),
        ),
        label_source=_choice(data.get("label_source"), tuple(LABEL_SOURCES), where, "label_source"),
        question=_require(data, "question", str, where),
        options=options,
        metric=_choice(metric.get("name"), METRICS, where, "metric.name"),
        metric_options={k: v for k, v in metric.items() if k != "name"},
        chance=chance.get("value"),
        chance_method=_require(chance, "method", str, f"{where} chance"),
        chance_on_items=_optional_number(chance, "on_items", f"{where} chance"),
        resample=_choice(sampling.get("unit", "item"), RESAMPLE_UNITS, where, "sampling.unit"),
        seed=_require(sampling, "seed", int, f"{where} sampling"),
        target=_require(sampling, "target", int, f"{where} sampling"),
        sampling={k: v for k, v in sampling.items() if k not in ("seed", "target", "unit")},
        route=_choice(data.get("route"), ROUTES, where, "route"),
        files=files,
        expected_items=expected.get("items"),
        expected_sha256=expected.get("items_sha256"),
        verified=bool(expected.get("verified", False)),
        converter_version=str(_require(data, "converter_version", (str, int, float), where)),
        needs_sampled_answers=bool(data.get("needs_sampled_answers", False)),
        caveats=tuple(str(c) for c in data.get("caveats") or ()),
        path=where,
    )
    if card.sampling.get("shares") not in (None, "equal"):
        raise CardError(f"{where}: field 'sampling.shares' must be 'equal' or absent, "
                        f"found {card.sampling['shares']!r}")
    if card.sampling.get("within") not in (None, *STRATUM_FIELDS):
        raise CardError(f"{where}: field 'sampling.within' must be one of {list(STRATUM_FIELDS)}, "
                        f"found {card.sampling['within']!r}")
    if card.verified and (card.expected_items is None or card.expected_sha256 is None
                          or any(f.sha256 is None for f in card.files)):
        raise CardError(f"{where}: a verified card needs every file's sha256, expected.items and expected.items_sha256")
    return card


CARD_PACKAGE = "decisionpivot.reconstruct.cards"


def card_paths() -> list[Path]:
    folder = resources.files(CARD_PACKAGE)
    return sorted(Path(str(p)) for p in folder.iterdir() if str(p).endswith(".yaml"))


YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML has it (its wheels do): the same values as ``yaml.safe_load`` on every card,
eight times faster."""


def load_card(path: str | Path) -> TaskCard:
    path = Path(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)
    except yaml.YAMLError as exc:
        raise CardError(f"{path}: not valid YAML ({exc})") from None
    card = parse_card(data, str(path))
    if card.id != path.stem:
        raise CardError(f"{path}: card id {card.id!r} differs from the file name")
    return card


def all_cards() -> dict[str, TaskCard]:
    """Every task card, by id, in file-name order.

    Read once per process while the card files stay as they are (their paths, sizes and modification times):
    every items file checked against its card (`dp score` checks one per task) asked for all of them again.
    """
    stamps = []
    for path in card_paths():
        stat = path.stat()
        stamps.append((str(path), stat.st_size, stat.st_mtime_ns))
    return dict(_cards(tuple(stamps)))


@cache
def _cards(stamps: tuple[tuple[str, int, int], ...]) -> dict[str, TaskCard]:
    return {card.id: card for card in (load_card(path) for path, _, _ in stamps)}


def get_card(task: str) -> TaskCard:
    cards = all_cards()
    if task not in cards:
        raise CardError(unknown_names("reference task", [task], cards))
    return cards[task]
