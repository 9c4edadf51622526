"""Reading a labelled sample and a certificate, checking each entry.

**The sample.** Either a folder of answers in our format (``<family>.jsonl`` answer files) with the labelled
items they answer (``--items``), read by the scorer's rules (failed and missing answers are wrong, at the
uniform confidence) and refused when their configuration fingerprint is not the one the certificate certified
(:func:`check_configuration`), or a CSV with a header and the columns ``confidence`` (the system's
``max_o p(o)``) and ``correct`` (1 or 0), and optionally ``family`` (one of the certificate's; rows without one,
or a CSV without the column, are checked against the certificate's pooled threshold) and ``id`` (each id once:
a row given twice would count twice). No other column is read, so none is allowed
(:data:`~decisionpivot.user_files.MONITOR_COLUMNS`). A CSV records no configuration: that it comes from the
certified one is the team's to ensure.

**The certificate** is read by its schema (:func:`~decisionpivot.user_files.certificate_schema`): thresholds
are probabilities or null, and only an entry that automates has one.

**The check**, per family of the sample: the items at or above the certified threshold are automated; the
realised risk (errors among them) and coverage come with two-sided exact 95% intervals, and the certified
risk is *exceeded with confidence* when the one-sided exact test of "risk > target" rejects at ``alpha``
(:func:`~decisionpivot.monitor.exact.exceedance_p_value`). The binomial figures treat the items as
independent draws, as a sample of traffic is; contrast groups (a fresh draw used as traffic) make them
slightly optimistic.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from decisionpivot.errors import DecisionPivotError, did_you_mean
from decisionpivot.item_origin import modified_items, modified_note
from decisionpivot.monitor.exact import clopper_pearson, exceedance_p_value
from decisionpivot.score.certified import GATE_DECISIONS, answer_fingerprint
from decisionpivot.score.pipeline import load_runs
from decisionpivot.user_files import (
    FRACTION,
    MONITOR_COLUMNS,
    certificate_schema,
    known_name,
    read_csv_file,
    read_json_checked,
)

POOLED = "pooled"
DEFAULT_ALPHA = 0.05
AUTOMATE = GATE_DECISIONS[0]


@dataclass(frozen=True)
class Certificate:
    """What `dp gate` certified for one system (``reports/gate/<system>.json``)."""

    path: Path
    """The file."""
    system: str
    """The system."""
    target_risk: float
    """The certified risk bound."""
    thresholds: dict[str, float | None]
    """Family (or ``pooled``) -> threshold; None where not automated."""
    map_sha256: str | None = None
    """SHA-256 of the recalibration map the thresholds were certified with (None: the system's own confidences)."""
    fingerprints: dict[str, str | None] = field(default_factory=dict)
    """Family (or ``pooled``) -> the configuration fingerprint certified (None: not recorded, or refused)."""


def read_certificate(path: Path) -> Certificate:
    """Read a `dp gate` per-system certificate by :func:`~decisionpivot.user_files.certificate_schema`: every
    threshold a probability or null, a decision per entry, the target risk a fraction; an entry that automates
    must have a threshold and one that does not must have none (a hand-edited mix is refused)."""
    record = read_json_checked(path, "a certificate: dp gate writes reports/gate/<system>.json", certificate_schema())
    thresholds: dict[str, float | None] = {}
    fingerprints: dict[str, str | None] = {}
    for name, entry in [*record["families"].items(), (POOLED, record["pooled"])]:
        value = entry["threshold"]
        if (entry["decision"] == AUTOMATE) != (value is not None):
            raise DecisionPivotError(f"{path}: {name}: decision {entry['decision']!r} with threshold {value!r} "
                                     "(an automated entry has a threshold, any other has none)")
        thresholds[str(name)] = None if value is None else float(value)
        fingerprints[str(name)] = entry.get("fingerprint")
    recalibration = record.get("recalibration")
    return Certificate(path, str(record["system"]), float(record["target_risk"]), thresholds,
                       None if recalibration is None else recalibration["sha256"], fingerprints)


def check_configuration(certificate: Certificate, fingerprints: dict[str, str | None], sample: str) -> None:
    """Refuse answers of another configuration than the one certified: per family of the sample, the answers'
    fingerprint (their .meta.json) must be the certificate's. The thresholds hold for the certified configuration
    only; a CSV records none, so this check is the answer folders' (see the module docstring)."""
    for family, found in sorted(fingerprints.items()):
        certified = certificate.fingerprints.get(family)
        if certified is not None and found != certified:
            raise DecisionPivotError(
                f"{sample}: {family} answers of configuration {str(found)[:12]}, but {certificate.path} certified "
                f"configuration {certified[:12]}: its thresholds say nothing about another configuration; certify "
                "this one with `dp gate`")


def check_map(certificate: Certificate, map_path: str | None, map_sha256: str | None) -> None:
    """Refuse a map that is not the one the certificate was made with (or a map for a certificate made without
    one, or no map for one made with one): the thresholds hold only on the confidences they were certified on."""
    if certificate.map_sha256 is None and map_sha256 is not None:
        raise DecisionPivotError(
            f"--map {map_path}: the certificate {certificate.path} was made on the system's own confidences; a map "
            "would move them off its thresholds (drop --map, or certify with `dp gate --recalibration`)")
    if certificate.map_sha256 is not None and map_sha256 is None:
        raise DecisionPivotError(
            f"{certificate.path}: certified on confidences recalibrated by the map with SHA-256 "
            f"{certificate.map_sha256[:16]}...; pass that map with --map")
    if certificate.map_sha256 is not None and map_sha256 != certificate.map_sha256:
        raise DecisionPivotError(
            f"--map {map_path}: SHA-256 {str(map_sha256)[:16]}..., but the certificate {certificate.path} was made "
            f"with the map of SHA-256 {certificate.map_sha256[:16]}...: its thresholds hold only on that map's "
            "confidences")


@dataclass(frozen=True)
class Sample:
    """One family's labelled items (or ``pooled`` for a CSV without families)."""

    family: str
    """Family, or ``pooled``."""
    confidence: np.ndarray
    """``(n,)`` the system's confidence."""
    correct: np.ndarray
    """``(n,)`` the answer was right."""
    probabilities: np.ndarray | None = None
    """``(n, K)`` every option's probability (answer files only: a temperature map needs them)."""
    option_count: np.ndarray | None = None
    """``(n,)`` options per item (answer files only)."""
    items_check: str = ""
    """How the family's items file was accepted (answer files only: :func:`decisionpivot.item_origin.
    accept_items_file`); the outputs say when it was read only under ``--allow-modified-items``."""


def read_answers_sample(answers: Path, items: Path,
                        allow_modified_items: bool = False) -> tuple[list[Sample], dict[str, str | None]]:
    """Answer files of one system (``answers`` = RUNS/<system>) against their labelled items (accepted by the rule
    of every verb that reads items; one it refuses stops it unless ``allow_modified_items``), and each family's
    configuration fingerprint (for :func:`check_configuration`)."""
    if not answers.is_dir():
        raise DecisionPivotError(f"{answers}: no such answer folder (expected RUNS/<system>)")
    loaded = load_runs(answers.parent, items, None, [answers.name], tasks=(), allow_modified_items=allow_modified_items)
    checks = dict(loaded.item_checks)
    samples = [Sample(layout.task, a.confidence, a.correct, a.probabilities, layout.option_count, checks[layout.task])
               for layout in loaded.core if (a := loaded.answers.get((answers.name, layout.task))) is not None]
    if not samples:
        reasons = "; ".join(f"{e.task}: {e.reason}" for e in loaded.exclusions) or "no answer files"
        raise DecisionPivotError(f"{answers}: no family with usable answers ({reasons})")
    fingerprints = {s.family: answer_fingerprint(loaded.answers[(answers.name, s.family)].meta) for s in samples}
    return samples, fingerprints


def read_csv_sample(path: Path, families: Collection[str] | None = None) -> list[Sample]:
    """A CSV of ``confidence``, ``correct`` (0/1) and optionally ``family`` and ``id``
    (:data:`~decisionpivot.user_files.MONITOR_COLUMNS`: no other column, an id at most once); a family must be
    one of ``families`` (the certificate's) when given. Errors name the line."""
    table = read_csv_file(path, "a CSV of confidence, correct and optionally family and id", MONITOR_COLUMNS)
    rows: dict[str, tuple[list[float], list[bool]]] = {}
    for row in table.rows:
        family = row.values.get("family") or POOLED
        if families is not None and family != POOLED:
            known_name(family, [f for f in families if f != POOLED], f"{path}:{row.line}: family", "family")
        values = rows.setdefault(family, ([], []))
        values[0].append(row.values["confidence"])
        values[1].append(row.values["correct"])
    return [Sample(f, np.array(c, dtype=np.float64), np.array(k, dtype=bool)) for f, (c, k) in sorted(rows.items())]


@dataclass(frozen=True)
class MonitorEntry:
    """One family of the sample checked against its certified threshold."""

    family: str
    """Family, or ``pooled``."""
    items: int
    """Labelled items."""
    threshold: float | None
    """The certified threshold (None: the certificate does not automate this family)."""
    automated: int
    """Items at or above the threshold."""
    errors: int
    """Wrong ones among them."""
    risk: float | None
    """errors / automated (None when nothing is automated)."""
    risk_interval: tuple[float, float]
    """Exact two-sided 95% interval of the risk."""
    coverage: float
    """automated / items."""
    coverage_interval: tuple[float, float]
    """Exact two-sided 95% interval of the coverage."""
    p_value: float
    """One-sided exact p-value of risk > target."""
    exceeded: bool
    """The certified risk is exceeded with confidence (p_value <= alpha)."""


def check_sample(sample: Sample, threshold: float | None, target: float, alpha: float) -> MonitorEntry:
    """The check of one family (see the module docstring)."""
    n = int(sample.confidence.size)
    automated = sample.confidence >= threshold if threshold is not None else np.zeros(n, dtype=bool)
    count, errors = int(automated.sum()), int((automated & ~sample.correct).sum())
    p = exceedance_p_value(errors, count, target)
    return MonitorEntry(sample.family, n, threshold, count, errors, errors / count if count else None,
                        clopper_pearson(errors, count), count / n if n else 0.0, clopper_pearson(count, n), p,
                        p <= alpha)


@dataclass(frozen=True)
class Monitoring:
    """A whole ``dp monitor``."""

    certificate: Certificate
    """The certificate applied."""
    sample: str
    """What was read (folder or CSV)."""
    alpha: float
    """Level of the exceedance test."""
    entries: tuple[MonitorEntry, ...]
    """Per family of the sample."""
    map_path: str | None
    """The recalibration map applied to the confidences first, if any."""
    item_checks: tuple[tuple[str, str], ...] = ()
    """(family, how its items file was accepted), for a sample of answer files."""

    @property
    def exceeded(self) -> bool:
        return any(e.exceeded for e in self.entries)


def monitor(certificate: Certificate, samples: list[Sample], sample: str, alpha: float = DEFAULT_ALPHA,
            map_path: str | None = None) -> Monitoring:
    """Check every family of the samples; a family the certificate does not know is an error."""
    FRACTION.require(alpha, "--alpha")
    entries = []
    for s in samples:
        if s.family not in certificate.thresholds:
            raise DecisionPivotError(f"{sample}: family {s.family!r} is not in the certificate {certificate.path}"
                                     f"{did_you_mean(s.family, certificate.thresholds)} (it has "
                                     f"{', '.join(sorted(certificate.thresholds))})")
        entries.append(check_sample(s, certificate.thresholds[s.family], certificate.target_risk, alpha))
    return Monitoring(certificate, sample, alpha, tuple(entries), map_path,
                      tuple((s.family, s.items_check) for s in samples if s.items_check))


def _fraction(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6) + 0.0


def monitoring_record(m: Monitoring) -> dict[str, Any]:
    return {
        "certificate": m.certificate.path.as_posix(), "system": m.certificate.system,
        "target_risk": m.certificate.target_risk, "alpha": m.alpha, "sample": m.sample, "map": m.map_path,
        "exceeded": m.exceeded,
        "intervals": "exact (Clopper-Pearson) two-sided 95%; exceeded: one-sided exact binomial test of risk > target",
        "families": {e.family: {
            "items": e.items, "threshold": e.threshold, "automated": e.automated, "errors": e.errors,
            "risk": _fraction(e.risk), "risk_interval": [_fraction(v) for v in e.risk_interval],
            "coverage": _fraction(e.coverage), "coverage_interval": [_fraction(v) for v in e.coverage_interval],
            "p_value": _fraction(e.p_value), "exceeded": e.exceeded} for e in m.entries},
        **({"modified_items": modified} if (modified := modified_items(m.item_checks)) else {}),
    }


def monitoring_markdown(m: Monitoring) -> str:
    from decisionpivot.score.report import markdown_table, markdown_text

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    rows = [[e.family, str(e.items), "do not automate" if e.threshold is None else f"{e.threshold:g}",
             str(e.automated), str(e.errors),
             f"{pct(e.risk)} [{pct(e.risk_interval[0])}, {pct(e.risk_interval[1])}]",
             f"{pct(e.coverage)} [{pct(e.coverage_interval[0])}, {pct(e.coverage_interval[1])}]",
             f"{e.p_value:.3g}", "**exceeded**" if e.exceeded else "holds"] for e in m.entries]
    verdict = ("**Exceeded**: the certified risk is exceeded with confidence on "
               + ", ".join(e.family for e in m.entries if e.exceeded) if m.exceeded
               else "**Holds**: no family exceeds the certified risk with confidence")
    mapped = f" Confidences recalibrated with {markdown_text(m.map_path)} first." if m.map_path else ""
    if (note := modified_note(m.item_checks)) is not None:
        mapped += f" **{note}**"
    return (f"# Monitoring {markdown_text(m.certificate.system)} against {markdown_text(m.certificate.path.as_posix())}"
            f"\n\n{verdict} (certified risk {100 * m.certificate.target_risk:g}%, one-sided exact test at alpha "
            f"{m.alpha:g}). Sample: {markdown_text(m.sample)}.{mapped} Risk and coverage in percent with exact "
            "two-sided 95% intervals.\n\n"
            + markdown_table(["Family", "Items", "Threshold", "Automated", "Errors", "Risk % [95%]",
                              "Coverage % [95%]", "p (risk > target)", ""], rows))
