"""Throughput, memory and scaling of `dp overlap`, next to the v0.1 scan, a plain Python scan and
lm-evaluation-harness's decontamination code, on the same data in one run (not a timed test).

    python -m benchmarks.overlap_speed [--mb 50] [--items 5000] [--compare-mb 20] [--scaling-mb 400] [--repeats 3]

Data (all made here, in a temporary folder): ``--items`` reference items of 300 random words
(``w0`` .. ``w49999``) and ``--mb`` MB of training text, 200-word lines of the same vocabulary with
1% of lines carrying a 20-word window of some item (so items are flagged); the same lines as JSON
Lines (plain, gzip, zstd) and Parquet; and the benchmark's own core items (all 13 families, real
English with numbers and punctuation) as JSON Lines training text against the items.

Reported: MB/s of training text per CPU second of the scanning process (= per core: the machine is
shared, so wall time depends on the other jobs; wall MB/s and the load average are printed too), the
flagged counts and whether every implementation flagged the same items, peak RSS of a scan of
``--mb`` and of 4 x ``--mb`` MB (bounded memory: the same), and wall time on a Dask LocalCluster of
1 and 2 workers (``--scaling-mb`` MB in 8 files, best of ``--repeats``), from which the time for 1 TB on
64 cores is projected.
Run it from the repository's root as a module: the v0.1 and plain scans are the tests' oracles
(``tests/overlap/oracles.py``), not part of the package.
lm-evaluation-harness is not a dependency: ``pip install lm-eval`` to include it (its C++ helper is
not built by pip, so it runs in its documented Python mode).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import gzip
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard
from tests.overlap.oracles import (
    LegacyNgramIndex,
    legacy_flag_overlap,
    legacy_training_documents,
    plain_index,
    plain_scan,
)

from decisionpivot import RELEASE_SEED
from decisionpivot.items import Item, Option, write_items
from decisionpivot.overlap.index import ItemIndex
from decisionpivot.overlap.normalise import item_text
from decisionpivot.overlap.run import scan_training

OPTIONS = (Option("yes", "y"), Option("no", "n"))


def make_items(count: int, rng: random.Random, words: list[str]) -> list[Item]:
    return [Item(f"bench:{i:05d}", "bench", "A", "1", None, None, None, None,
                 " ".join(rng.choice(words) for _ in range(300)), "Q?", OPTIONS, "yes") for i in range(count)]


def make_lines(megabytes: int, items: list[Item], rng: random.Random, words: list[str]) -> list[str]:
    lines, written = [], 0
    while written < megabytes * 1_000_000:
        line = [rng.choice(words) for _ in range(200)]
        if rng.random() < 0.01:
            state = str(rng.choice(items).state).split()
            start = rng.randrange(len(state) - 20)
            line[50:50] = state[start : start + 20]
        lines.append(" ".join(line))
        written += len(lines[-1]) + 1
    return lines


def timed(run: Callable[[], set[str]]) -> tuple[set[str], float, float]:
    # the garbage collector's debt from building the other indexes (millions of objects) is paid first,
    # or a full collection lands in whichever scan comes next
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    flagged = run()
    return flagged, time.process_time() - cpu, time.perf_counter() - wall


def legacy_scan(items: list[Item], path: Path) -> Callable[[], set[str]]:
    """The v0.1 scan, its index built beforehand (its vocabulary still grows while it scans, as it did)."""
    index = LegacyNgramIndex()
    index.add_items(items)

    def run() -> set[str]:
        flagged: set[str] = set()
        for document in legacy_training_documents(path):
            flagged |= index.matches(index.ids(document))
        return flagged

    return run


def lm_eval_scan(items: list[Item], path: Path) -> Callable[[], set[str]] | None:
    """lm-evaluation-harness's Janitor: its normalisation and its n-gram functions, as its clean_python uses them."""
    try:  # the module prints a warning and a traceback when its optional C++ helper is missing
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            from lm_eval.decontamination.janitor import Janitor, word_ngrams, word_ngrams_indices
    except ImportError:
        return None
    janitor = Janitor(ngram_n=13)
    owners: dict[str, set[str]] = {}
    for item in items:
        for ngram in word_ngrams(janitor.normalize_string(item_text(item)), 13):
            owners.setdefault(ngram, set()).add(item.id)
    janitor.dirt_ngrams = set(owners)

    def run() -> set[str]:
        flagged: set[str] = set()
        with path.open(encoding="utf-8") as handle:
            for line in handle:  # the Janitor cleans one string at a time: a line here
                for ngram, _ in word_ngrams_indices(line, 13):
                    normal = janitor.normalize_string(ngram)
                    if normal in janitor.dirt_ngrams:
                        flagged |= owners[normal]
        return flagged

    return run


def peak_rss_mb(items_file: Path, training: Path) -> float:
    # VmHWM: the peak of this process's own address space (ru_maxrss would carry the parent's over the exec)
    code = ("import sys; from decisionpivot.items import read_items; "
            "from decisionpivot.overlap.index import ItemIndex; from decisionpivot.overlap.run import scan_training; "
            "scan_training(ItemIndex(read_items(sys.argv[1])), [sys.argv[2]]); "
            "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])")
    out = subprocess.run([sys.executable, "-c", code, str(items_file), str(training)], capture_output=True, text=True,
                         check=True)
    return int(out.stdout.strip()) / 1024


def dask_wall(index: ItemIndex, folder: Path, workers: int) -> tuple[float, float]:
    """Wall time and worker CPU of a scan on a local cluster started as `dp overlap --workers N` starts it
    (the cluster's start-up is not timed)."""
    import logging

    import dask
    from distributed import LocalCluster

    from decisionpivot.overlap.engines import WORKER_ENVIRON

    settings = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()}
    with dask.config.set(settings), LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                 host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                                 silence_logs=logging.ERROR) as cluster:
        started = time.perf_counter()
        scan = scan_training(index, [str(folder)], engine="dask", address=cluster.scheduler_address)
        return time.perf_counter() - started, scan.cpu_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=50, help="MB of training text for the new scanner")
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--compare-mb", type=int, default=20, help="MB of it given to the slower implementations")
    parser.add_argument("--scaling-mb", type=int, default=400, help="MB for the 1 -> 2 Dask workers run (0: skip)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each worker count (the best one counts)")
    args = parser.parse_args()
    rng = random.Random(0)
    words = [f"w{i}" for i in range(50000)]
    items = make_items(args.items, rng, words)
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} at the start; per-core rates use the scanning "
          "process's CPU time")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        write_items(tmp / "ref" / "bench.jsonl", items)
        lines = make_lines(args.mb, items, rng, words)
        text = tmp / "train.txt"
        text.write_text("\n".join(lines) + "\n")
        compare_lines = lines[: len(lines) * args.compare_mb // args.mb]
        small = tmp / "compare.txt"  # v0.1 read text in 1 MB blocks of whole lines; a planted window is never cut
        small.write_text("\n".join(compare_lines) + "\n")
        built = time.process_time()
        index = ItemIndex(items)
        built = time.process_time() - built
        owners = plain_index(items)
        warm = tmp / "warm.txt"  # one-time costs of a process's first scan (imports, tables, heap): not throughput
        warm.write_text("\n".join(lines[:2000]))
        scan_training(index, [str(warm)])

        print(f"\n## Same {small.stat().st_size / 1e6:.0f} MB of text, {args.items} items, one process "
              f"(indexes built beforehand; this version's took {built:.1f} s)")
        rows = [("dp overlap (this version)", lambda: set(scan_training(index, [str(small)]).flagged)),
                ("v0.1 implementation", legacy_scan(items, small)),
                ("plain Python 13-gram scan", lambda: plain_scan(owners, [small]))]
        janitor = lm_eval_scan(items, small)
        rows.append(("lm-eval Janitor (Python mode)", janitor) if janitor else ("lm-eval Janitor", None))
        # Python mode: lm-eval's C++ helper (janitor_util) is built by hand from its repository, not by pip
        size = small.stat().st_size / 1e6
        results = {}
        for name, run in rows:
            if run is None:
                print(f"{name:<32} not installed (pip install lm-eval)")
                continue
            flagged, cpu, wall = timed(run)
            results[name] = (flagged, cpu)
            print(f"{name:<32} {size / cpu:7.1f} MB/s per core  ({size / wall:6.1f} MB/s wall)  flagged {len(flagged)}")
        base = results["dp overlap (this version)"]
        for name, (flagged, cpu) in results.items():
            if name != "dp overlap (this version)":
                same = "same items" if flagged == base[0] else "OTHER ITEMS"
                print(f"  {cpu / base[1]:5.1f}x faster than {name} ({same})")

        print(f"\n## dp overlap on {args.mb} MB per format (MB/s of decompressed input per core)")
        jsonl = "".join(json.dumps({"text": line, "id": i}) + "\n" for i, line in enumerate(lines)).encode()
        formats = {"train.txt": None, "train.jsonl": jsonl, "train.jsonl.gz": gzip.compress(jsonl, 6),
                   "train.jsonl.zst": zstandard.ZstdCompressor(level=3).compress(jsonl)}
        pq.write_table(pa.table({"text": lines}), tmp / "train.parquet", row_group_size=20000)
        for name, data in formats.items():
            if data is not None:
                (tmp / name).write_bytes(data)
        expected = None
        for name in [*formats, "train.parquet"]:
            path = tmp / name
            scan, cpu, wall = timed(lambda p=path: scan_training(index, [str(p)]))  # type: ignore[misc]
            expected = expected or set(scan.flagged)
            mb = scan.text_bytes / 1e6
            print(f"{name:<18} {mb:6.0f} MB  {mb / cpu:6.1f} MB/s per core ({mb / wall:6.1f} wall), file "
                  f"{path.stat().st_size / 1e6:5.0f} MB, flagged {len(scan.flagged)}"
                  f"{'' if set(scan.flagged) == expected else '  OTHER ITEMS'}")

        print("\n## Real text: the benchmark's 13 core families (release draw) as JSON Lines training text")
        from decisionpivot.generate.registry import families
        from decisionpivot.generate.run import draw_family

        core = [item for spec in families() for item in draw_family(spec.name, RELEASE_SEED).items]
        real = tmp / "core.jsonl"
        real.write_text("".join(json.dumps({"state": item_text(i)}) + "\n" for i in core))
        reference = core[::2]  # every other item as the reference set: flags via shared wording
        real_index = ItemIndex(reference)
        mb = real.stat().st_size / 1e6
        new, cpu, wall = timed(lambda: set(scan_training(real_index, [str(real)]).flagged))
        old, old_cpu, _ = timed(lambda: legacy_flag_overlap({"core": reference}, [real]))
        print(f"{mb:.0f} MB, {len(reference)} items: {mb / cpu:.1f} MB/s per core ({mb / wall:.1f} wall), v0.1 "
              f"{mb / old_cpu:.1f} MB/s per core; flagged {len(new)}, v0.1 {len(old)} "
              f"({'same items' if new == old else 'OTHER ITEMS'})")

        print("\n## Peak RSS of one scan (index of the items included)")
        big = tmp / "big.txt"
        with big.open("w") as handle:
            for _ in range(4):
                handle.write("\n".join(lines) + "\n")
        for path in (text, big):
            rss = peak_rss_mb(tmp / "ref" / "bench.jsonl", path)
            print(f"{path.stat().st_size / 1e6:5.0f} MB of text: {rss:6.0f} MB")

        if args.scaling_mb:
            print(f"\n## Dask LocalCluster, {args.scaling_mb} MB in 8 files (wall time includes sending the index)")
            folder = tmp / "shards"
            folder.mkdir()
            block = "\n".join(lines) + "\n"
            for i in range(8):
                target = args.scaling_mb * 1_000_000 // 8
                (folder / f"{i}.txt").write_text(block * (target // len(block)) + block[: target % len(block)])
            total = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
            walls: dict[int, list[float]] = {1: [], 2: []}
            cpus: dict[int, list[float]] = {1: [], 2: []}
            for _ in range(args.repeats):  # alternating, so the other jobs on the machine weigh on both alike
                for workers in (1, 2):
                    wall, cpu = dask_wall(index, folder, workers)
                    walls[workers].append(wall)
                    cpus[workers].append(cpu)
                    print(f"{workers} worker(s): {wall:6.1f} s = {total / wall:6.1f} MB/s wall, {total / cpu:6.1f} "
                          f"MB/s per core of worker CPU, load average {os.getloadavg()[0]:.1f}")
            speedup = min(walls[1]) / min(walls[2])
            per_core = total / min(cpus[2])  # MB per CPU second of the workers, two of them sharing the work
            efficiency = min(1.0, speedup / 2)
            print(f"best of {args.repeats}: speed-up 1 -> 2 workers {speedup:.2f}x wall (parallel efficiency "
                  f"{efficiency:.0%} with the other jobs of the machine), {total / min(cpus[1]):.0f} -> "
                  f"{per_core:.0f} MB/s per core of worker CPU")
            linear = 1e12 / (per_core * 1e6 * 64) / 60
            print(f"projected for 1 TB on 64 cores: {linear:.0f} min at {per_core:.0f} MB/s per core if the parts "
                  f"scale linearly (they share nothing but the index), {linear / efficiency:.0f} min at the "
                  f"{efficiency:.0%} efficiency measured here; the storage must deliver "
                  f"{64 * per_core / 1000:.1f} GB/s")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}; peak RSS of this driver "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
