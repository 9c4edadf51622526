"""Throughput of `dp overlap` in MB/s of training text (not a timed test).

    python benchmarks/overlap_speed.py [--mb 50] [--items 5000]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from decisionpivot.items import Item, Option, write_items
from decisionpivot.overlap.run import filter_folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--items", type=int, default=5000)
    args = parser.parse_args()
    rng = random.Random(0)
    words = [f"w{i}" for i in range(50000)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ref"
        options = (Option("yes", "y"), Option("no", "n"))
        write_items(folder / "bench.jsonl", [
            Item(f"bench:{i:05d}", "bench", "A", "1", None, None, None, None,
                 " ".join(rng.choice(words) for _ in range(300)), "Q?", options, "yes") for i in range(args.items)])
        train = Path(tmp) / "train.txt"
        with train.open("w") as handle:
            written = 0
            while written < args.mb * 1_000_000:
                line = " ".join(rng.choice(words) for _ in range(200)) + "\n"
                handle.write(line)
                written += len(line)
        t0 = time.perf_counter()
        [report], _ = filter_folder(folder, [train], Path(tmp) / "out", resume=False)
        wall = time.perf_counter() - t0
    print(f"{args.mb} MB of training text against {args.items} items: {wall:.1f} s = {args.mb / wall:.1f} MB/s "
          f"(flagged {report.flagged})")


if __name__ == "__main__":
    main()
