"""Throughput of the chat runner against the local fake server (not a timed test).

The server (asyncio, tests/evaluate/fake_openai_server.py) runs in a separate process with 100 ms
latency per request; the runner keeps 64 requests in flight, so the ideal rate is 640 items/s.
Prints items/s, the ratio to ideal, and the CPU time per item of the runner and of the server: on a
2-core machine the two together must fit in two cores, and the runner's share must stay small.

    python benchmarks/evaluate_throughput.py [--items 10000] [--concurrency 64] [--latency 0.1]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.items import Item, Option, write_items


def serve(latency: float, port_queue: multiprocessing.Queue, stop: multiprocessing.Event) -> None:
    from tests.evaluate.fake_openai_server import FakeOpenAI

    with FakeOpenAI(latency_s=latency) as server:
        port_queue.put(server.base_url)
        stop.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10000)  # enough for start-up costs to fade
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "items"
        options = (Option("yes", "y"), Option("no", "n"))
        write_items(folder / "bench.jsonl", [
            Item(f"bench:{i:05d}", "bench", "A", "1", None, None, None, None, f"State {i}: " + "x" * 2000,
                 "Is it?", options, "yes") for i in range(args.items)])
        port_queue: multiprocessing.Queue = multiprocessing.Queue()
        stop = multiprocessing.Event()
        server = multiprocessing.Process(target=serve, args=(args.latency, port_queue, stop), daemon=True)
        server.start()
        url = port_queue.get(timeout=30)
        config = Path(tmp) / "s.yaml"
        config.write_text(json.dumps({"systems": {"bench": {"kind": "chat", "base_url": url, "model": "m",
                                                            "concurrency": args.concurrency}}}))
        system = get_system("bench", config)
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        [run] = evaluate_system(system, folder, Path(tmp) / "runs", progress=False)
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        stop.set()
        server.join(timeout=10)
        server_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    ideal = args.concurrency / args.latency
    rate = run.answered / wall
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print(f"items {run.answered} (errors {run.errors}) in {wall:.2f} s: {rate:.0f} items/s, "
          f"ideal {ideal:.0f}/s, ratio {rate / ideal:.1%}")
    print(f"runner CPU {cpu:.2f} s = {1000 * cpu / max(run.answered, 1):.2f} ms per item "
          f"({cpu / wall:.0%} of one core)")
    served = server_cpu.ru_utime + server_cpu.ru_stime
    print(f"server CPU {served:.2f} s = {1000 * served / max(run.answered, 1):.2f} ms per item (other process)")


if __name__ == "__main__":
    main()
