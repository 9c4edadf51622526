"""Items/s of the in-process ``decision`` kind for 1, 2 and torch's default CPU threads (not a timed test).

Each (model, threads) pair runs in a fresh Python process, so "torch's default" really is the default
(``threads: 0``: one intra-op thread per core) and no setting leaks from one run into the next. A run
loads the checkpoint through the kind's own loader, answers 5 items to warm up, then times answering
``--items`` items of each of two families (yes/no ``fact_answerable``, about 3,300 tokens per prompt with
the byte-level tokenizer; three-option ``policy_case``, about 1,700). Models: tiny random Llamas built here,
``tiny`` (hidden 16, 1 layer: what the tests use) and ``small`` (hidden 256, 4 layers, 3.2M parameters:
more arithmetic per token, where threads have more to share). Prints items/s, the ratio to one thread, and
how the answers of 2 and of the default threads compare with one thread's (identical, or the largest
probability difference).

    python benchmarks/decision_threads.py [--items 20] [--models tiny small]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAMILIES = ("fact_answerable", "policy_case")
WARM_UP = 5
MODELS = {"tiny": (16, 1), "small": (256, 4)}
"""Name -> (hidden size, layers)."""


def build_model(folder: Path, hidden: int, layers: int) -> Path:
    import torch
    import transformers
    from tests.evaluate.tiny_decider import GENERIC_TEMPLATE, token_ids, tokenizer_for

    fast = tokenizer_for((), GENERIC_TEMPLATE, "<s>", "</s>", "<pad>")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(**token_ids(fast), hidden_size=hidden, intermediate_size=4 * hidden,
                                      num_hidden_layers=layers, num_attention_heads=max(2, hidden // 64),
                                      num_key_value_heads=max(2, hidden // 64), max_position_embeddings=65536)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def worker(model: str, items_dir: str, threads: int, count: int) -> None:
    """One measurement, printed as one JSON line: items/s, torch's thread count, the answers."""
    import torch

    from decisionpivot.evaluate.decision import DecisionPipelineRunner
    from decisionpivot.evaluate.kinds import RunCounters, kinds
    from decisionpivot.evaluate.systems import SystemConfig
    from decisionpivot.items import read_items

    settings = {key: setting.default for key, setting in kinds()["decision"].settings.items()}
    settings.update(model=model, device="cpu", threads=threads)
    runner = DecisionPipelineRunner(SystemConfig("bench", "decision", settings))
    items = [item for family in FAMILIES
             for item in read_items(Path(items_dir) / f"{family}.jsonl")[WARM_UP:WARM_UP + count]]
    warm = [item for family in FAMILIES for item in read_items(Path(items_dir) / f"{family}.jsonl")[:WARM_UP]]
    records: list[dict] = []
    runner.run(warm, lambda record: None, RunCounters(), lambda entry: None)
    started = time.perf_counter()
    runner.run(items, records.append, RunCounters(), lambda entry: None)
    elapsed = time.perf_counter() - started
    print(json.dumps({"items_per_s": len(items) / elapsed, "torch_threads": torch.get_num_threads(),
                      "p": {r["id"]: r.get("p") for r in records}}))


def measure(model: Path, items_dir: Path, threads: int, count: int) -> dict:
    env = {key: value for key, value in os.environ.items() if key not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, __file__, "--worker", str(model), str(items_dir), str(threads), str(count)],
                         check=True, capture_output=True, text=True, env={**env, "HF_HUB_OFFLINE": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(base: dict[str, dict], other: dict[str, dict]) -> str:
    if base == other:
        return "identical"
    worst = max(abs(base[i][k] - other[i][k]) for i in base for k in base[i])
    return f"max |dp| {worst:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=20, help="timed items per family")
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        model, items_dir, threads, count = args.worker
        worker(model, items_dir, int(threads), int(count))
        return
    from decisionpivot import RELEASE_SEED
    from decisionpivot.generate.run import write_family_files

    print(f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}; {args.items} timed items per family")
    with tempfile.TemporaryDirectory() as tmp:
        items_dir = Path(tmp) / "items"
        write_family_files(items_dir, RELEASE_SEED, list(FAMILIES))
        for name in args.models:
            hidden, layers = MODELS[name]
            model = build_model(Path(tmp) / name, hidden, layers)
            runs = {threads: measure(model, items_dir, threads, args.items) for threads in (1, 2, 0)}
            one = runs[1]["items_per_s"]
            for threads, run in runs.items():
                label = f"default ({run['torch_threads']})" if threads == 0 else str(threads)
                answers = "" if threads == 1 else ", answers vs 1 thread: " + compare(runs[1]["p"], run["p"])
                print(f"{name:5} threads {label:11} {run['items_per_s']:7.1f} items/s  x{run['items_per_s'] / one:.2f}"
                      f"{answers}")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
