"""Does the report stay usable at scale? 40 systems x 13 core families (7,800 real items) + a 35-task reference track.

Run from the repository root (needs /usr/bin/chromium and /usr/bin/chromedriver for the load times):

    python benchmarks/report_scale.py [--systems 40] [--resamples 1000] [--work /tmp/dp-report-scale]

The core items are the release draw (`dp generate`); the reference track is 35 synthetic tasks (5 per layer,
200 yes/no items each, accuracy or F1). Every system answers everything with the graded synthetic system of
tests/report/plugins (answer files written directly, as `dp evaluate` writes them; ten of them with latency,
token and closed-reply fields as the chat runner records). Then `dp score` and `dp report` run as usual.

Printed: the build time of the site (wall, CPU, peak RSS), the page weight - every HTML page, what the first
view of each page loads (its HTML plus the shared CSS and JS), the data files the group browser loads on
demand - and, in headless Chromium from file://, the load time of every top-level page, of a family and a
system page, and of the group browser until a group is shown (first group, then one in another data file).
Not a timed test: the machine's load changes the figures, so the load average is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the synthetic system and the fixture helpers live with the tests
sys.path.insert(0, str(ROOT / "tests" / "report" / "plugins"))

from dp_report_plugins import graded  # noqa: E402
from tests.report.fixture import reference_items  # noqa: E402

from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED  # noqa: E402
from decisionpivot.generate.run import write_family_files  # noqa: E402
from decisionpivot.items import LAYERS, read_items, sha256_file  # noqa: E402
from decisionpivot.report.site import report_site  # noqa: E402
from decisionpivot.score.pipeline import score_runs  # noqa: E402
from decisionpivot.score.reference import ReferenceTask  # noqa: E402

TOP_PAGES = ("index.html", "families.html", "levels.html", "confidence.html", "reference.html", "runs.html")


def reference_track() -> list[ReferenceTask]:
    tasks = []
    for layer in LAYERS:
        for k in range(5):
            if k % 2:
                tasks.append(ReferenceTask(f"ref_{layer.lower()}{k}", layer, "f1", 2 * 0.4 / 1.4, positive="yes"))
            else:
                tasks.append(ReferenceTask(f"ref_{layer.lower()}{k}", layer, "accuracy", 0.5))
    return tasks


def write_runs(items_dirs: list[Path], runs: Path, systems: int) -> list[str]:
    names = [f"model-{s:02d}" for s in range(systems)]
    files = [p for folder in items_dirs for p in sorted(folder.glob("*.jsonl"))]
    loaded = {p: read_items(p) for p in files}
    for s, name in enumerate(names):
        skill = 0.55 + 0.4 * s / max(1, systems - 1)
        chat = s % 4 == 0
        folder = runs / name
        folder.mkdir(parents=True, exist_ok=True)
        config = {"name": name, "kind": "chat" if chat else "python", "concurrency": 16, "adaptive_concurrency": True}
        for path, items in loaded.items():
            lines = []
            for i, (item, p) in enumerate(zip(items, graded(items, skill, name), strict=True)):
                record: dict[str, Any] = {"id": item.id, "p": p}
                if chat:
                    record.update(latency_s=round(0.3 + 0.002 * ((i * 31 + s) % 700), 3), tokens=50 + (i * 13) % 500,
                                  input_tokens=1200 + (i * 7) % 900, closed=i % 19 != 0)
                lines.append(json.dumps(record))
            (folder / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
            meta = {"items_sha256": sha256_file(path), "system": config,
                    "readout": "chat/verbalised" if chat else "python"}
            (folder / f"{path.stem}.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return names


def timed(label: str, action: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label}: wall {wall:.1f} s, CPU {cpu:.1f} s (load average {os.getloadavg()[0]:.1f})")
    return result, wall, cpu


def kb(size: int) -> str:
    return f"{size / 1024:.0f} kB"


def page_weight(site: Path) -> None:
    shared = sum((site / "assets" / name).stat().st_size for name in ("style.css", "chart.css", "report.js"))
    groups_js = (site / "assets" / "groups.js").stat().st_size
    pages = sorted(site.rglob("*.html"))
    sizes = {str(p.relative_to(site)): p.stat().st_size for p in pages}
    print(f"\nsite: {sum(1 for p in site.rglob('*') if p.is_file())} files, "
          f"{sum(p.stat().st_size for p in site.rglob('*') if p.is_file()) / 2**20:.1f} MiB in all")
    print(f"shared CSS + JS of every page: {kb(shared)} (+ groups.js {kb(groups_js)} on the browser page)")
    for name in TOP_PAGES:
        print(f"  {name:<18} HTML {kb(sizes[name]):>8}, first view with CSS/JS {kb(sizes[name] + shared):>8}")
    for folder in ("families", "systems"):
        values = [v for k, v in sizes.items() if k.startswith(folder + "/")]
        print(f"  {folder}/*.html ({len(values)}): median {kb(int(statistics.median(values)))}, largest "
              f"{kb(max(values))}")
    for kind in ("figures/pair_direction", "data/family", "data/items"):
        values = [p.stat().st_size for p in (site / kind).glob("*")]
        print(f"  {kind}/* ({len(values)}): median {kb(int(statistics.median(values)))}, largest {kb(max(values))}, "
              f"all {sum(values) / 2**20:.1f} MiB (loaded on demand)")


def load_times(site: Path, systems: list[str]) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,900", f"--user-data-dir={tempfile.mkdtemp(prefix='dp-bench-')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    navigation = ("var n = performance.getEntriesByType('navigation')[0]; "
                  "return [n.domContentLoadedEventEnd, n.loadEventEnd];")
    print(f"\nChromium, file://, load average {os.getloadavg()[0]:.1f} (median of 3 loads; DOMContentLoaded / load)")
    try:
        for page in (*TOP_PAGES, "families/record_rule.html", f"systems/{systems[-1]}.html"):
            runs = []
            for _ in range(3):
                driver.get("about:blank")
                driver.get((site / page).as_uri())
                runs.append(driver.execute_script(navigation))
            ready, load = (statistics.median(r[i] for r in runs) for i in (0, 1))
            print(f"  {page:<36} {ready:7.0f} ms / {load:7.0f} ms")
        for family, second in (("record_rule", "record_rule:00300"), ("fact_answerable", "fact_answerable:00555")):
            times, switch = [], []
            for _ in range(3):
                driver.get("about:blank")
                start = time.perf_counter()
                driver.get((site / "groups.html").as_uri() + f"#family={family}")
                while not driver.find_elements("css selector", ".member"):
                    time.sleep(0.01)
                times.append(1000 * (time.perf_counter() - start))
                start = time.perf_counter()
                driver.execute_script(f"location.hash = 'item={second}'")
                while not driver.find_elements("css selector", ".member.target"):
                    time.sleep(0.01)
                switch.append(1000 * (time.perf_counter() - start))
            print(f"  groups.html#{family}: first group shown after {statistics.median(times):.0f} ms; a group in "
                  f"another data file after {statistics.median(switch):.0f} ms (wall, through webdriver)")
    finally:
        driver.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=40)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="dp-report-scale-"))
    items, reference, runs, reports = work / "items", work / "reference", work / "runs", work / "reports"
    print(f"work folder {work}; {os.cpu_count()} CPUs")
    timed("dp generate (13 families)", lambda: write_family_files(items, RELEASE_SEED, None, jobs=2,
                                                                  benchmark_version=BENCHMARK_VERSION))
    tasks = reference_track()
    reference_items(reference, tasks)
    systems, _, _ = timed(f"answer files of {args.systems} systems", lambda: write_runs([items, reference], runs,
                                                                                        args.systems))
    timed(f"dp score ({args.resamples} resamples)", lambda: score_runs(runs, items, reference, reports,
                                                                       resamples=args.resamples, tasks=tasks,
                                                                       figures=False))
    built, _, _ = timed("dp report", lambda: report_site(reports, items, runs, progress=False))
    print(f"  peak resident set of the process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"{built.pages} pages, {built.files} files")
    page_weight(built.out)
    if Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists():
        load_times(built.out, systems)
    else:
        print("no /usr/bin/chromium: load times not measured")


if __name__ == "__main__":
    main()
