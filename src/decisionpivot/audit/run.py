"""`dp audit`: shortcut probes, partial-information heuristics, balance and hygiene, as a report and a gate.

For every family (and level) the report gives each content-blind probe's and each heuristic's item
accuracy and pair accuracy with a 95% bootstrap interval over contrast groups, next to the chance
figures: uniform-guess item accuracy (mean 1/|O|), the majority gold position's share, and
uniform-guess pair accuracy. A probe's *margin* is its item accuracy minus the larger of the two
item baselines. The gate (``--strict``) fails when a probe's margin or a heuristic's pair accuracy
exceeds the limits in ``params.yaml`` (section ``audit``), or a hygiene rule fails: a repeated
state, a near-duplicate state across contrast groups, unbalanced answer classes or gold
positions (chi-square p-value below the limit), or any text finding (doubled words, number
agreement, articles, spelling, misplaced function words; :mod:`decisionpivot.audit.text`).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import chisquare
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from decisionpivot.audit.ordinal import ordinal_report
from decisionpivot.audit.probes import PROBES, gold_position, probe_table
from decisionpivot.audit.terms import Tokens, hashed_rows
from decisionpivot.audit.text import KINDS, load_text_resources, text_report
from decisionpivot.errors import DecisionPivotError, check_names
from decisionpivot.frame.framings import HOMOGLYPHS, STEERING, TYPOS
from decisionpivot.items import Item, atomic_write_bytes, read_items, render_state
from decisionpivot.user_files import audit_params_schema, read_yaml_user_file, section

BOOTSTRAP_SEED = 20261007
RESAMPLES = 1000
SIGNIFICANT = 10
"""Every float in audit.json is written with this many significant digits: p-values, cosines and interval
ends come out of special functions, sparse products and interpolation whose last bits depend on the CPU
and the compiled kernels, and the report's bytes must not (dvc.lock pins them)."""


@dataclass(frozen=True)
class AuditLimits:
    """Gate limits, read from params.yaml (section ``audit``)."""

    probe_margin: float = 0.05
    """Largest allowed item-accuracy margin of a content-blind probe over its baseline."""
    heuristic_margin: float = 0.05
    """Largest allowed margin of a heuristic's pair accuracy over uniform-guess pair accuracy.

    Heuristics are partial-information shortcuts; many answer part of a family by design (ignoring
    the facts gets two thirds of clause_change items), so the gate holds them to contrast groups:
    a heuristic may not solve more whole groups than guessing does, plus this margin."""
    heuristic_limits: Mapping[str, float] = field(default_factory=dict)
    """Per heuristic (``family.name``) the largest allowed pair accuracy, for shortcuts that by design
    solve a known share of groups (e.g. schema-only tool-call checks solve the missing-field pairs)."""
    balance_p_min: float = 0.001
    """Smallest allowed chi-square p-value for answer-class and gold-position balance."""
    near_duplicate_cosine: float = 0.995
    """Two states of different groups at or above this cosine similarity count as near-duplicates."""

    @classmethod
    def from_params(cls, path: str | Path | None) -> AuditLimits:
        """The limits of the ``audit:`` section of the params file ``path`` (the defaults when ``path`` is None or
        the file has no such section), read by :func:`~decisionpivot.user_files.audit_params_schema`: known keys
        and ``family.heuristic`` names only, every limit a probability; errors name the file and line."""
        if path is None:
            return cls()
        from decisionpivot.generate.registry import families

        known = [f"{spec.name}.{name}" for spec in families() for name in spec.heuristics]
        document = read_yaml_user_file(path, "a params file with an audit: section")
        data = section(document, "audit", audit_params_schema(known))
        return cls(**data) if data else cls()


def over_limit(value: float, limit: float) -> bool:
    """True when ``value`` exceeds ``limit`` by more than rounding: a margin of exactly the limit passes
    (55% against a 50% baseline is 0.0500...04 in floating point, not more than 5 points)."""
    return value > limit + 1e-9


def _accuracy_with_interval(correct: np.ndarray, groups: Sequence[str], rng_seed: int = BOOTSTRAP_SEED,
                            resamples: int = RESAMPLES) -> dict[str, float]:
    """Item and pair accuracy with 95% percentile intervals, resampling contrast groups."""
    names, index = np.unique(np.asarray(groups), return_inverse=True)
    right = np.bincount(index, weights=correct.astype(float), minlength=len(names))
    size = np.bincount(index, minlength=len(names)).astype(float)
    whole = (right == size).astype(float)
    rng = np.random.default_rng(rng_seed)
    draw = rng.integers(0, len(names), size=(resamples, len(names)))
    item_boot = right[draw].sum(axis=1) / size[draw].sum(axis=1)
    pair_boot = whole[draw].mean(axis=1)
    return {
        "item_accuracy": float(right.sum() / size.sum()),
        "item_ci": [float(np.percentile(item_boot, 2.5)), float(np.percentile(item_boot, 97.5))],
        "pair_accuracy": float(whole.mean()),
        "pair_ci": [float(np.percentile(pair_boot, 2.5)), float(np.percentile(pair_boot, 97.5))],
    }


def _chance(items: Sequence[Item]) -> dict[str, float]:
    positions = Counter(gold_position(i) for i in items)
    pair: dict[str, float] = defaultdict(lambda: 1.0)
    for item in items:
        pair[item.group or item.id] *= 1.0 / len(item.options)
    uniform = float(np.mean([1.0 / len(i.options) for i in items]))
    majority = max(positions.values()) / len(items)
    return {"uniform_item": uniform, "majority_item": majority, "baseline_item": max(uniform, majority),
            "uniform_pair": float(np.mean(list(pair.values())))}


def _scored(items: Sequence[Item], predicted_positions: np.ndarray) -> dict[str, Any]:
    gold = np.array([gold_position(i) for i in items])
    correct = predicted_positions == gold
    by_level: dict[str, Any] = {}
    for level in sorted({i.level for i in items if i.level is not None}):
        mask = np.array([i.level == level for i in items])
        subset = [i for i, m in zip(items, mask, strict=True) if m]
        by_level[str(level)] = {**_accuracy_with_interval(correct[mask], [i.group or i.id for i in subset]),
                                **_chance(subset)}
    return {**_accuracy_with_interval(correct, [i.group or i.id for i in items]), **_chance(items),
            "levels": by_level}


def heuristic_positions(heuristic: Any, items: Sequence[Item]) -> np.ndarray:
    """Argmax position (ties -> listed order) of a heuristic's probabilities; -1 where it fails."""
    out = []
    for item in items:
        try:
            probs = heuristic(item)
            values = [float(probs.get(k, 0.0)) for k in item.option_keys]
            out.append(int(np.argmax(values)))
        except Exception:  # a failing heuristic counts as wrong, like a failed prediction
            out.append(-1)
    return np.array(out)


def _balance(items: Sequence[Item]) -> dict[str, Any]:
    positions = Counter(gold_position(i) for i in items)
    width = max(len(i.options) for i in items)
    expected = np.array([sum(1.0 / len(i.options) for i in items if k < len(i.options)) for k in range(width)])
    observed = np.array([positions.get(k, 0) for k in range(width)], dtype=float)
    keep = expected > 0
    position_p = float(chisquare(observed[keep], expected[keep]).pvalue) if keep.sum() > 1 else 1.0
    result: dict[str, Any] = {"gold_positions": {str(k): int(v) for k, v in sorted(positions.items())},
                              "gold_position_p": position_p}
    key_sets = {i.option_keys for i in items}
    if len(key_sets) == 1:
        [keys] = key_sets
        answers = Counter(i.answer for i in items)
        result["answers"] = {k: answers.get(k, 0) for k in keys}
        result["answer_p"] = float(chisquare([answers.get(k, 0) for k in keys]).pvalue)
    return result


HASH_BUCKETS = 2**18
"""Columns of the hashed word and bigram counts that near-duplicate states are found with."""


def _hygiene(items: Sequence[Item], limits: AuditLimits, texts: Sequence[str] | None = None,
             tokens: Tokens | None = None) -> dict[str, Any]:
    """Repeated and near-duplicate states and the shape of the family (``texts``: the rendered states, and
    ``tokens`` their tokens, if at hand). Near-duplicates: the cosine of the states' hashed words and bigrams
    (of two or more characters: ``HashingVectorizer(ngram_range=(1, 2), alternate_sign=False)``)."""
    texts = [render_state(i.state) for i in items] if texts is None else texts
    tokens = Tokens.of(texts) if tokens is None else tokens
    # Framed items (the invariance suite) share their core item's state across framings: a state counts as
    # repeated only when items of different core items carry it.
    repeated = len({(i.extra.get("base", i.id), t) for i, t in zip(items, texts, strict=True)}) - len(set(texts))
    vectors = hashed_rows(tokens.longer_than(1), HASH_BUCKETS)
    similarity = (vectors @ vectors.T).toarray()
    groups = np.array([i.group or i.id for i in items])
    same_group = groups[:, None] == groups[None, :]
    similarity[same_group] = 0.0
    lengths = np.array([len(t) for t in texts])
    return {
        "repeated_states": int(repeated),
        "max_cross_group_cosine": float(similarity.max()) if len(items) > 1 else 0.0,
        "near_duplicates": int((np.triu(similarity, 1) >= limits.near_duplicate_cosine).sum()),
        "state_length": {"min": int(lengths.min()), "median": float(np.median(lengths)),
                         "p90": float(np.percentile(lengths, 90)), "max": int(lengths.max())},
        "option_counts": {str(k): v for k, v in sorted(Counter(len(i.options) for i in items).items())},
        "domains": dict(sorted(Counter(i.domain or "none" for i in items).items())),
    }


def probed_items(items: Sequence[Item]) -> list[Item]:
    """The items the content-blind probes are trained and scored on: all of them, except framed items of the
    invariance suite whose state carries steering text. That text argues for a wrong option by definition
    (``steer_to`` is never the gold), so a bag of words reads the gold off it; that is the steering metric's
    business (how far a system follows the text), not a shortcut of the items."""
    return [i for i in items if i.extra.get("framing") != STEERING]


def text_checked_items(items: Sequence[Item]) -> list[Item]:
    """The items the text hygiene checks read: all of them, except framed items of the invariance suite whose state
    carries typos or look-alike letters on purpose (``typos``, ``homoglyphs``): their misspellings are the framing,
    what the flip rate under it measures, not a slip of the generator."""
    return [i for i in items if i.extra.get("framing") not in (TYPOS, HOMOGLYPHS)]


def base_items(items: Sequence[Item]) -> list[Item]:
    """One item per core item: all of a core folder; the first framing of each core item (``plain``) of an
    invariance folder, whose other framings repeat its gold (or, for negation and label names, map it), so
    that balance tests count the sample of core items once, not once per framing."""
    seen: set[str] = set()
    out = []
    for item in items:
        base = item.extra.get("base", item.id)
        if base not in seen:
            seen.add(base)
            out.append(item)
    return out


def audit_family(name: str, items: Sequence[Item], limits: AuditLimits, heuristics: Mapping[str, Any],
                 train: Sequence[Item] | None = None) -> dict[str, Any]:
    """Probes, heuristics, balance and hygiene of one family, with the gate's findings."""
    report: dict[str, Any] = {"family": name, "items": len(items), "groups": len({i.group for i in items}),
                              "probes": {}, "heuristics": {}, "failures": []}
    documents = [*(train or ()), *items]
    states = [render_state(i.state) for i in documents]
    tokens = Tokens.of(states)
    probed = probed_items(items)
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices: a second thread only waits
        predictions = (probe_table(items, train, states=states, state_tokens=tokens) if len(probed) == len(items)
                       else probe_table(probed, train))
    for probe in PROBES:
        scored = _scored(probed, predictions[probe.name])
        scored["margin"] = scored["item_accuracy"] - scored["baseline_item"]
        report["probes"][probe.name] = scored
        if over_limit(scored["margin"], limits.probe_margin):
            report["failures"].append(f"probe {probe.name}: item accuracy {scored['item_accuracy']:.3f} beats "
                                      f"baseline {scored['baseline_item']:.3f} by more than {limits.probe_margin:.3f}")
    for hname, heuristic in heuristics.items():
        scored = _scored(items, heuristic_positions(heuristic, items))
        scored["margin"] = scored["item_accuracy"] - scored["baseline_item"]
        limit = limits.heuristic_limits.get(f"{name}.{hname}", scored["uniform_pair"] + limits.heuristic_margin)
        scored["limit"] = limit
        report["heuristics"][hname] = scored
        if over_limit(scored["pair_accuracy"], limit):
            report["failures"].append(f"heuristic {hname}: pair accuracy {scored['pair_accuracy']:.3f} "
                                      f"exceeds its limit {limit:.3f}")
    sample = base_items(items)
    report["balance"] = {"all": _balance(sample)}
    for level in sorted({i.level for i in sample if i.level is not None}):
        report["balance"][str(level)] = _balance([i for i in sample if i.level == level])
    for scope, balance in report["balance"].items():
        for key in ("answer_p", "gold_position_p"):
            if key in balance and balance[key] < limits.balance_p_min:
                report["failures"].append(f"balance ({scope}): {key} = {balance[key]:.2g} < {limits.balance_p_min}")
    offset = len(documents) - len(items)
    report["hygiene"] = _hygiene(items, limits, states[offset:], tokens.tail(offset))
    if report["hygiene"]["repeated_states"]:
        report["failures"].append(f"{report['hygiene']['repeated_states']} repeated state(s)")
    if report["hygiene"]["near_duplicates"]:
        report["failures"].append(f"{report['hygiene']['near_duplicates']} near-duplicate state pair(s) across groups")
    ordinal = ordinal_report(items, limits.probe_margin)
    if ordinal is not None:  # score questions (the scale suite)
        report["ordinal"] = ordinal
        report["failures"].extend(ordinal["failures"])
    report["text"] = text_report(text_checked_items(items))
    if report["text"]["findings"]:
        kinds = ", ".join(f"{k} {n}" for k, n in report["text"]["by_kind"].items() if n)
        report["failures"].append(f"{report['text']['findings']} text finding(s) in {report['text']['items_affected']} "
                                  f"item(s): {kinds}")
    return report


@dataclass(frozen=True)
class FamilyAudit:
    """One family's audit as a task for a worker process."""

    name: str
    """Family name."""
    path: Path
    """Its items file."""
    limits: AuditLimits
    """Gate limits."""
    train_seed: int | None = None
    """Train the probes on a fresh draw with this seed (None: cross-validate on the items)."""


def run_family_audit(task: FamilyAudit) -> dict[str, Any]:
    """:func:`audit_family` of one family file, with the heuristics its module exposes (a core family's, or a
    scale family's for the scale suite)."""
    from decisionpivot.generate.registry import families
    from decisionpivot.scale import registry as scale_registry

    scale = scale_registry.is_scale_family(task.name)
    specs = {spec.name: spec for spec in (scale_registry.families() if scale else families())}
    train = None
    if task.train_seed is not None:
        if scale:
            from decisionpivot.scale.run import draw_family
        else:
            from decisionpivot.generate.run import draw_family

        train = list(draw_family(task.name, task.train_seed).items)
    heuristics = specs[task.name].heuristics if task.name in specs else {}
    return audit_family(task.name, read_items(task.path), task.limits, heuristics, train)


START_METHOD = "fork" if sys.platform.startswith("linux") else "spawn"
"""How worker processes start. On Linux they are forked from a parent that has loaded everything they need
(imports, the dictionary, inflect: ~3 s of CPU a spawned worker spends again); the parent's only other
threads then are OpenBLAS's, which OpenBLAS stops around a fork. Elsewhere they are spawned."""


def default_jobs() -> int:
    """One worker process per CPU this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def audit_families(tasks: Sequence[FamilyAudit], jobs: int | None = None) -> Iterator[dict[str, Any]]:
    """The reports of ``tasks``, in their order, each as soon as it and the ones before it are done.

    Families are independent, so ``jobs`` worker processes (default: one per CPU, at most one per family)
    audit them in parallel; a report does not depend on which process made it or on how many there are.
    The workers have started when this returns (so that a thread the caller starts later is not forked)."""
    if jobs is not None and jobs < 1:
        raise DecisionPivotError(f"jobs must be at least 1, got {jobs}")
    jobs = min(default_jobs() if jobs is None else jobs, len(tasks))
    if jobs <= 1:
        return map(run_family_audit, tasks)
    if START_METHOD == "fork":
        from decisionpivot.generate.registry import families
        from decisionpivot.scale.registry import families as scale_families

        load_text_resources()
        families()
        scale_families()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(START_METHOD))
    with warnings.catch_warnings():  # map submits every task: the workers start here
        # Python 3.12+ warns about forking a process with threads; OpenBLAS's are the only others (above)
        warnings.filterwarnings("ignore", message=".*multi-threaded, use of fork", category=DeprecationWarning)
        reports = pool.map(run_family_audit, tasks)
    return _then_shut_down(pool, reports)


def _then_shut_down(pool: ProcessPoolExecutor, reports: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    with pool:
        yield from reports


def audit_folder(folder: Path, names: Sequence[str] | None, limits: AuditLimits, train_seed: int | None = None,
                 jobs: int | None = None,
                 report: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Audit the families ``names`` (default: every family of the folder's manifest), in that order;
    ``report`` is called with each family's report as it is ready (a progress bar counts them on a terminal)."""
    from decisionpivot.generate.run import read_manifest

    manifest = read_manifest(folder)
    names = list(names) if names else list(manifest["families"])
    check_names("family", names, manifest["families"], where=f"{folder}/MANIFEST.json", plural="families")
    tasks = []
    for name in names:
        tasks.append(FamilyAudit(name, folder / manifest["families"][name]["file"], limits, train_seed))
    reports = []
    results = audit_families(tasks, jobs)
    with tqdm(total=len(tasks), desc="audit", unit="family", disable=None, leave=False) as bar:
        for family_report in results:
            reports.append(family_report)
            if report is not None:
                report(family_report)
            bar.update()
    return reports


def print_family_line(report: Mapping[str, Any]) -> None:
    """One line per family on stdout (its worst probe and the gate's findings), as ``dp audit`` prints them."""
    worst = max(report["probes"].items(), key=lambda kv: kv[1]["margin"])
    status = "ok" if not report["failures"] else f"{len(report['failures'])} finding(s)"
    tqdm.write(f"{report['family']:<18} worst probe {worst[0]:<15} margin {100 * worst[1]['margin']:+5.1f} pts  "
               f"{status}", file=sys.stdout)
    for failure in report["failures"]:
        tqdm.write(f"    {failure}", file=sys.stdout)


def audit_command(folder: Path, names: Sequence[str] | None, params: str | Path | None, out: Path,
                  train_seed: int | None = None, jobs: int | None = None,
                  allow_modified_items: bool | None = None) -> bool:
    """``dp audit``: audit the folder, print a line per family, write the reports; True when the gate passes.

    ``allow_modified_items`` (``dp audit`` passes it, False by default): every items file audited goes through
    :func:`decisionpivot.item_origin.accept_items_file` first, as for every verb that reads items - refused unless
    re-derived or released, or read under the flag, which the reports and stderr then state. None checks nothing
    (callers that audit a draw they made themselves)."""
    limits = AuditLimits.from_params(params)
    note = None
    if allow_modified_items is not None:
        note = _modified_items_note(folder, names, allow_modified_items)
        if note:
            print(f"note: {note}", file=sys.stderr)
    reports = audit_folder(folder, names, limits, None if train_seed is None else int(train_seed), jobs,
                           print_family_line)
    json_path, md_path = write_reports(reports, out, limits, str(folder), note)
    print(f"wrote {json_path} and {md_path}")
    return not any(r["failures"] for r in reports)


def portable(value: Any) -> Any:
    """``value`` with every float rounded to ``SIGNIFICANT`` significant digits (recursively), -0.0 as 0.0."""
    if isinstance(value, float):
        return float(f"{value:.{SIGNIFICANT}g}") + 0.0
    if isinstance(value, Mapping):
        return {k: portable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [portable(v) for v in value]
    return value


def _modified_items_note(folder: Path, names: Sequence[str] | None, allow_modified: bool) -> str | None:
    """The note of items read only under ``--allow-modified-items`` (None when every file is re-derived or
    released); :class:`~decisionpivot.item_hashes.ModifiedItemsError` for a file refused without the flag."""
    from decisionpivot.generate.run import read_manifest
    from decisionpivot.item_origin import accept_items_file, modified_note
    from decisionpivot.items import sha256_file

    manifest = read_manifest(folder)
    checks = []
    for name in list(names) if names else list(manifest["families"]):
        entry = manifest["families"].get(name)
        if entry is None:
            continue  # audit_folder names the unknown family
        path = folder / entry["file"]
        checks.append((name, accept_items_file(path, sha256_file(path), allow_modified, name)))
    return modified_note(checks)


def write_reports(reports: Sequence[dict[str, Any]], out: Path, limits: AuditLimits, source: str,
                  modified_note: str | None = None) -> tuple[Path, Path]:
    """reports/audit.json and reports/audit.md (with ``modified_note``: its sentence in both)."""
    payload = {"items": source, "limits": {**limits.__dict__, "heuristic_limits": dict(limits.heuristic_limits)},
               "bootstrap": {"seed": BOOTSTRAP_SEED, "resamples": RESAMPLES, "unit": "contrast group"},
               "families": list(reports), "passed": not any(r["failures"] for r in reports)}
    if modified_note:
        payload["modified_items"] = modified_note
    payload = portable(payload)
    json_path, md_path = out / "audit.json", out / "audit.md"
    atomic_write_bytes(json_path, (json.dumps(payload, indent=2) + "\n").encode())
    atomic_write_bytes(md_path, render_markdown(payload).encode())
    return json_path, md_path


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def render_markdown(payload: Mapping[str, Any]) -> str:
    modified = [f"**{payload['modified_items']}**", ""] if payload.get("modified_items") else []
    lines = ["# Shortcut audit", "", *modified,
             f"Items: `{payload['items']}`. Intervals: 95% percentile bootstrap over "
             f"contrast groups ({payload['bootstrap']['resamples']} resamples, seed {payload['bootstrap']['seed']}). "
             "Probes are logistic regressions trained with GroupKFold over contrast groups; *margin* = item "
             "accuracy minus the larger of uniform-guess and majority-position accuracy (points).", "",
             "## Content-blind probes (item accuracy %, margin over baseline in points)", ""]
    probe_names = [p.name for p in PROBES]
    lines.append("| family | baseline | " + " | ".join(probe_names) + " |")
    lines.append("|---|---:|" + "---:|" * len(probe_names))
    for r in payload["families"]:
        probes = r["probes"]
        cells = [f"{_pct(probes[p]['item_accuracy'])} ({100 * probes[p]['margin']:+.1f})" for p in probe_names]
        base = next(iter(r["probes"].values()))["baseline_item"]
        lines.append(f"| {r['family']} | {_pct(base)} | " + " | ".join(cells) + " |")
    lines += ["", "## Partial-information heuristics", "",
              "| family | heuristic | item acc % [95% CI] | pair acc % [95% CI] | chance pair % | pair limit % |",
              "|---|---|---:|---:|---:|---:|"]
    for r in payload["families"]:
        for h, s in r["heuristics"].items():
            lines.append(f"| {r['family']} | {h} | {_pct(s['item_accuracy'])} [{_pct(s['item_ci'][0])}, "
                         f"{_pct(s['item_ci'][1])}] | {_pct(s['pair_accuracy'])} [{_pct(s['pair_ci'][0])}, "
                         f"{_pct(s['pair_ci'][1])}] | {_pct(s['uniform_pair'])} | {_pct(s['limit'])} |")
    lines += ["", "## Balance and hygiene", "",
              "| family | gold positions | position p | answer p | repeated | max cross-group cosine | "
              "median state chars | options | domains |", "|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for r in payload["families"]:
        b, h = r["balance"]["all"], r["hygiene"]
        answer_p = f"{b['answer_p']:.3f}" if "answer_p" in b else "-"
        positions = "/".join(str(v) for v in b["gold_positions"].values())
        options = ", ".join(f"{k}:{v}" for k, v in h["option_counts"].items())
        lines.append(f"| {r['family']} | {positions} | {b['gold_position_p']:.3f} | {answer_p} | "
                     f"{h['repeated_states']} | {h['max_cross_group_cosine']:.3f} | "
                     f"{h['state_length']['median']:.0f} | {options} | {len(h['domains'])} |")
    lines += ["", "## Probe accuracy by level (item accuracy %)", "", "| family | level | "
              + " | ".join(probe_names) + " |", "|---|---:|" + "---:|" * len(probe_names)]
    for r in payload["families"]:
        for level in sorted(next(iter(r["probes"].values()))["levels"]):
            cells = [_pct(r["probes"][p]["levels"][level]["item_accuracy"]) for p in probe_names]
            lines.append(f"| {r['family']} | {level} | " + " | ".join(cells) + " |")
    lines += ["", "## Text hygiene (findings per kind; the gate allows none)", "",
              "| family | items affected | " + " | ".join(KINDS) + " |", "|---|---:|" + "---:|" * len(KINDS)]
    for r in payload["families"]:
        counts = r["text"]["by_kind"]
        lines.append(f"| {r['family']} | {r['text']['items_affected']} | " + " | ".join(str(counts[k]) for k in KINDS)
                     + " |")
    quoted = [f"- {r['family']}, {kind}: " + "; ".join(examples) for r in payload["families"]
              for kind, examples in r["text"]["examples"].items()]
    if quoted:
        lines += ["", "Examples:", "", *quoted]
    ordinal = [r for r in payload["families"] if "ordinal" in r]
    if ordinal:
        lines += ["", "## Score questions: the middle level is no shortcut", "",
                  "Always answering the lower or upper middle level, against what it would score were the gold "
                  "spread uniformly over the levels (exact %, mean absolute error in levels).", "",
                  "| family | scope | guess | exact % | uniform % | majority level % | MAE | uniform MAE |",
                  "|---|---|---|---:|---:|---:|---:|---:|"]
        for r in ordinal:
            for scope, guesses in r["ordinal"]["middle"].items():
                for guess, m in guesses.items():
                    lines.append(f"| {r['family']} | {scope} | {guess} | {_pct(m['exact'])} | "
                                 f"{_pct(m['uniform_exact'])} | {_pct(m['majority_exact'])} | {m['mae']:.3f} | "
                                 f"{m['uniform_mae']:.3f} |")
    failures = [f"- {r['family']}: {f}" for r in payload["families"] for f in r["failures"]]
    lines += ["", "## Gate", "", "PASSED: no probe, heuristic or hygiene rule exceeds its limit." if not failures
              else "FAILED:", *failures, ""]
    return "\n".join(lines)
