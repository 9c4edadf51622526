"""``dp report``: build the whole site in memory, then put it in place in one rename.

The site is written to a fresh folder beside ``out`` and swapped in only when complete, so a crash never
leaves half a site, and files of an earlier build that this one does not write do not linger. A folder
at ``out`` that ``dp report`` did not write (no :data:`MARKER` file) is never replaced. The same inputs
give the same bytes: pages are rendered from sorted data with fixed number formats, no clock is read,
and nothing depends on the process's hash seed, locale or platform.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from tqdm import tqdm

from decisionpivot import BENCHMARK_VERSION, __version__
from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes, make_folder
from decisionpivot.report.decisive import FamilyDecisive, family_decisive
from decisionpivot.report.deployment_pages import PAGE as DEPLOYMENT_PAGE
from decisionpivot.report.deployment_pages import cost_figures, deployment_body
from decisionpivot.report.facts import SystemFacts, system_facts
from decisionpivot.report.family_pages import family_body
from decisionpivot.report.framing_pages import FramedRuns, framed_runs, framing_pages
from decisionpivot.report.groups import browser_body, data_files
from decisionpivot.report.html import SiteInfo, esc, page, paragraph
from decisionpivot.report.inputs import ReportInputs, read_inputs
from decisionpivot.report.overview import (
    binary_pairs,
    confidence_body,
    heatmap_body,
    leaderboard_body,
    levels_body,
    reference_body,
    reference_metric_names,
)
from decisionpivot.report.recorded_pages import gate_body, runs_body, stability_body
from decisionpivot.report.scale_pages import PAGE as SCALE_PAGE
from decisionpivot.report.scale_pages import ScaleRuns, read_scale_runs, scale_pages
from decisionpivot.report.svg import direction_scatter
from decisionpivot.report.system_pages import system_body

MARKER = ".dp-report"
"""File in the site's root naming what wrote it; only such a folder is replaced by a new build."""
ASSETS = ("style.css", "chart.css", "report.js", "groups.js")
SITE_TITLE = "DecisionPivot report"


@dataclass(frozen=True)
class BuiltSite:
    """What a build wrote."""

    out: Path
    """The site's folder."""
    files: int
    """Files written."""
    bytes: int
    """Their total size."""
    pages: int
    """HTML pages among them."""


def asset(name: str) -> bytes:
    return resources.files("decisionpivot.report").joinpath("assets", name).read_bytes()


def standalone_svg(svg: str) -> bytes:
    """An SVG file for ``<img>``: the chart stylesheet embedded (page CSS does not reach inside an image)."""
    style = asset("chart.css").decode("utf-8")
    head, rest = svg.split(">", 1)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + head + f"><style>{style}</style>" + rest + "\n").encode()


def _footer(inputs: ReportInputs) -> str:
    scoring = inputs.scoring
    version = (inputs.manifest or {}).get("version", "?") if inputs.manifest else "?"
    sources = ", ".join(f"{esc(k)} <code>{esc(v)}</code>" for k, v in inputs.sources.items())
    return (f"<p>Built by <code>dp report</code> (decisionpivot {esc(__version__)}; core items version "
            f"{esc(version)}, this package draws {esc(BENCHMARK_VERSION)}) from {sources}. Scores as "
            f"<code>dp score</code> computed them: {esc(scoring.get('resamples', '?'))} bootstrap resamples, seed "
            f"{esc(scoring.get('seed', '?'))}. The same inputs give the same bytes.</p>"
            + (f'<p class="modified"><strong>{esc(note)}</strong></p>' if (note := inputs.modified_note) else ""))


def build_files(
    inputs: ReportInputs, progress: bool | None = None, framed: FramedRuns | None = None,
    scale: ScaleRuns | None = None,
) -> dict[str, bytes]:
    """Every file of the site: path inside the site -> bytes (with ``framed``, an invariance suite's framing view;
    with ``scale``, the scale suite's pages)."""
    extra = []
    if framed is not None:
        extra.append(("framings.html", "Framings"))
    if scale is not None:
        extra.append((SCALE_PAGE, "Scale suite"))
    if inputs.stability:
        extra.append(("stability.html", "Stability"))
    if inputs.gate is not None:
        extra.append(("gate.html", "Gate"))
    if inputs.deployment:
        extra.append((DEPLOYMENT_PAGE, "Deployment"))
    site = SiteInfo(SITE_TITLE, _footer(inputs), tuple(extra))
    facts: dict[str, SystemFacts] = {s: system_facts(inputs, s) for s in inputs.systems if s != "uniform-guess"}
    files: dict[str, bytes] = {f"assets/{name}": asset(name) for name in ASSETS}
    files[MARKER] = f"site written by dp report (decisionpivot {__version__})\n".encode()

    def add(path: str, title: str, body: str, scripts: Sequence[str] = (), description: str = "") -> None:
        files[path] = page(site, path, title, body, scripts, description).encode("utf-8")

    steps = 7 + len(inputs.families) * 2 + len(facts)
    with tqdm(total=steps, desc="report", unit="page", disable=None if progress is None else not progress,
              leave=False) as bar:
        add("index.html", "Leaderboard", leaderboard_body(inputs, facts),
            description="DecisionPivot leaderboard with 95% intervals")
        bar.update()
        add("families.html", "Systems by family", heatmap_body(inputs))
        bar.update()
        for family in inputs.families:
            add(f"families/{family}.html", f"Family {family}", family_body(inputs, family))
            bar.update()
        add("levels.html", "Results by level", levels_body(inputs))
        bar.update()
        scatters: dict[str, str] = {}
        for system in facts:
            minus, plus = binary_pairs(inputs, system)
            if plus.size:
                path = f"figures/pair_direction/{system}.svg"
                files[path] = standalone_svg(direction_scatter(
                    minus, plus, "dir", f"Pair direction: {system}",
                    f"p(yes) on the yes member against the no member for {plus.size} binary pairs of {system}."))
                scatters[system] = path
        add("confidence.html", "Confidence: calibration, coverage, pair direction",
            confidence_body(inputs, lambda s: scatters[s]))
        bar.update()
        add("reference.html", "Reference track", reference_body(inputs, reference_metric_names(inputs)))
        add("runs.html", "How the systems ran", runs_body(inputs, facts))
        bar.update()
        for system, f in facts.items():
            add(f"systems/{system}.html", f"System {system}", system_body(inputs, f, "../" + scatters[system]
                                                                          if system in scatters else None))
            bar.update()
        if inputs.stability:
            add("stability.html", "Stability across versions and fresh draws", stability_body(inputs))
        if inputs.gate is not None:
            add("gate.html", "Certified automation (dp gate)", gate_body(inputs))
        if inputs.deployment:
            figures = cost_figures(inputs.reports, inputs.deployment)
            files.update({f"figures/cost/{system}.svg": standalone_svg(svg) for system, svg in figures.items()})
            add(DEPLOYMENT_PAGE, "From scores to a deployment decision", deployment_body(inputs.deployment, figures))
        decisive: dict[str, FamilyDecisive] = {}
        for layout in inputs.layouts:
            decisive[layout.task] = family_decisive(layout.task, layout.items, inputs.manifest)
            bar.update()
        files.update(data_files(inputs, decisive))
        add("groups.html", "Contrast-group browser", browser_body(inputs) + (
            paragraph('The invariance suite\'s members under every framing, side by side: '
                      '<a href="framings.html">Framings</a>.') if framed is not None else ""),
            scripts=("assets/groups.js",) if inputs.families else ())
        bar.update()
        if framed is not None:
            for path, (title, body) in framing_pages(framed).items():
                add(path, title, body)
        if scale is not None:
            for path, (title, body) in scale_pages(inputs, scale).items():
                add(path, title, body)
    return dict(sorted(files.items()))


def _replace(out: Path, files: Mapping[str, bytes]) -> None:
    """Write ``files`` into a fresh folder beside ``out`` and swap it in (see the module docstring)."""
    if out.exists() and not out.is_dir():
        raise DecisionPivotError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise DecisionPivotError(f"{out}: exists and is not a site `dp report` wrote (no {MARKER}); choose another "
                                 "--out or remove it")
    make_folder(out.parent)
    try:
        fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".new", dir=out.parent))
    except OSError as exc:
        raise DecisionPivotError(f"cannot write {out}: {exc.strerror or exc} in {out.parent}") from None
    try:
        for name, data in files.items():
            atomic_write_bytes(fresh / name, data)
            os.chmod(fresh / name, 0o644)  # temporary files are private; a site is for reading
        for folder in [fresh, *(p for p in fresh.rglob("*") if p.is_dir())]:
            os.chmod(folder, 0o755)
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.{os.getpid()}.old")
            os.replace(out, old)
        os.replace(fresh, out)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def suite_runs(inputs: ReportInputs, invariance: str | Path | None, runs: str | Path,
               allow_modified_items: bool = False) -> tuple[FramedRuns | None, tuple[tuple[str, str], ...]]:
    """The invariance suite the framing view shows: the report's own items when framed, else ``invariance``
    answered under ``runs`` by the scored systems (None: no suite); with how its files were accepted
    (``invariance/<family>``; :mod:`decisionpivot.item_origin`)."""
    from decisionpivot.report.facts import ranked_systems

    records = (inputs.scoring.get("invariance") or {}).get("records", ())
    systems = ranked_systems(inputs)
    framed = framed_runs(inputs.layouts, inputs.answers, systems, records)
    if framed is not None or invariance is None:
        return framed, ()
    from decisionpivot.score.pipeline import load_runs
    from decisionpivot.score.results import SUITE_LABEL

    present = [s for s in systems if (Path(runs) / s).is_dir()]
    if not present:
        raise DecisionPivotError(f"{runs}: no answers of {', '.join(systems)} to the invariance suite {invariance}")
    loaded = load_runs(runs, invariance, None, present, (), allow_modified_items)
    found = framed_runs(loaded.core, loaded.answers, present, records)
    if found is None:
        raise DecisionPivotError(f"{invariance}: not an invariance suite (its items have no 'framing' and 'base')")
    return found, tuple((f"{SUITE_LABEL}/{task}", how) for task, how in loaded.item_checks)


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def report_site(reports: str | Path = "reports", items: str | Path | None = None, runs: str | Path = "runs",
                out: str | Path | None = None, gate: str | None = None,
                stability: str | Sequence[str] | None = None, partial: str | None = None,
                progress: bool | None = None, invariance: str | Path | None = None,
                invariance_runs: str | Path = "runs-invariance", allow_modified_items: bool = False,
                scale: str | Path | None = None, scale_runs: str | Path = "runs-scale") -> BuiltSite:
    """Read the inputs (:func:`decisionpivot.report.inputs.read_inputs`), build and write the site; with an
    invariance suite (the items folder itself, or ``invariance`` answered under ``invariance_runs``), its
    framing view too; with a scale suite (``scale`` answered under ``scale_runs``), its pages. Items the rule of every
    verb refuses stop it unless ``allow_modified_items``; every page's footer then says so."""
    inputs = read_inputs(reports, items, runs, gate, _names(stability), partial, allow_modified_items)
    folder = Path(out) if out is not None else Path(reports) / "site"
    framed, suite_checks = suite_runs(inputs, invariance, invariance_runs, allow_modified_items)
    inputs = replace(inputs, item_checks=(*inputs.item_checks, *suite_checks))
    scaled = None
    if scale is not None:
        scaled, scale_checks = read_scale_runs(inputs, scale, scale_runs, allow_modified_items)
        inputs = replace(inputs, item_checks=(*inputs.item_checks, *scale_checks))
    files = build_files(inputs, progress, framed, scaled)
    _replace(folder, files)
    return BuiltSite(folder, len(files), sum(len(d) for d in files.values()),
                     sum(1 for name in files if name.endswith(".html")))
