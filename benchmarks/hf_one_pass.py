"""Items/s of the ``hf`` kind's key readout: one pass per key (before), shared prefixes (now), and lm-eval's ``hf``.

All three read the same thing - each option key's log-likelihood after the item's prompt - from the same tiny
random Llama (a plain prompt, no chat template: lm-eval's ``decisionpivot`` tasks from ``dp export lm-eval``),
over the same items (``--items`` per family; by default yes/no ``fact_answerable``, three-option ``policy_case``
and ``clause_change``, whose ``yes_only_A`` / ``yes_only_B`` keys are several tokens sharing a first one;
``--families`` picks others) and the same batch size, in one process with one torch thread:

* **per key** - the readout before the shared passes: every (prompt, key) pair its own left-padded sequence, the
  batch size counting sequences (a five-option item costs five prompt passes); ``--no-per-key`` skips it;
* **now** - :class:`decisionpivot.evaluate.hf.HFRunner`: items batched by shared prompt prefix (a contrast
  group's members share most of their prompt), each shared prefix read once, each prompt's rest after it, the
  keys' later tokens from the cached state (packed into their prompt's row), the batch size counting items;
* **lm-eval** - ``lm_eval.simple_evaluate(model="hf", ...)`` on the exported tasks (its own request grouping),
  timed whole.

Prints the load average, wall and CPU seconds, items/s, the speed-up of "now" over the others and the largest
probability difference between "now" and "per key" (the goal: at least 2.2x lm-eval, within 1e-5). Results and
the model each was measured on: docs/served-readout.md.

    python benchmarks/hf_one_pass.py [--items 40] [--batch-size 8] [--hidden 256 --layers 4]
        [--families policy_case,triage_order] [--no-per-key]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAMILIES = ("fact_answerable", "policy_case", "clause_change")


def build_model(folder: Path, hidden: int, layers: int) -> Path:
    """A random Llama with the byte-level tokenizer of the tests, without a chat template (the plain prompt)."""
    import torch
    import transformers
    from tests.evaluate.tiny_decider import GENERIC_TEMPLATE, token_ids, tokenizer_for

    fast = tokenizer_for((), GENERIC_TEMPLATE, "<s>", "</s>", "<pad>")
    fast.chat_template = None
    torch.manual_seed(0)
    heads = max(2, hidden // 32)
    config = transformers.LlamaConfig(**token_ids(fast), hidden_size=hidden, intermediate_size=4 * hidden,
                                      num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
                                      max_position_embeddings=65536)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def per_key(runner: Any, items: Sequence[Any], batch_size: int) -> list[dict[str, float]]:
    """The readout before the shared passes: each (prompt, key) a sequence, ``batch_size`` sequences a pass."""
    from decisionpivot.evaluate.hf import key_probabilities

    torch = runner.torch
    pending = []
    for index, item in enumerate(items):
        prompt, keys = runner.prompt_and_continuations(item)
        pending += [(index, k, prompt, key) for k, key in enumerate(keys)]
    scores: dict[tuple[int, int], float] = {}
    for start in range(0, len(pending), batch_size):
        chunk = pending[start:start + batch_size]
        full = [p + c for _, _, p, c in chunk]
        width = max(len(s) for s in full)
        keep = max(len(c) for *_, c in chunk) + 1
        ids = torch.full((len(full), width), runner.pad_id, dtype=torch.long)
        mask = torch.zeros((len(full), width), dtype=torch.long)
        for row, seq in enumerate(full):
            ids[row, width - len(seq):] = torch.tensor(seq)
            mask[row, width - len(seq):] = 1
        with torch.no_grad():
            logits = runner.model(input_ids=ids, attention_mask=mask, position_ids=(mask.cumsum(1) - 1).clamp(min=0),
                                  logits_to_keep=keep).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
        for row, (index, k, _, cont) in enumerate(chunk):
            scores[(index, k)] = sum(float(logprobs[row, keep - len(cont) - 1 + j, t]) for j, t in enumerate(cont))
    return [key_probabilities(item.option_keys, [scores[(i, k)] for k in range(len(item.options))])
            for i, item in enumerate(items)]


def per_item(runner: Any, items: Sequence[Any], batch_size: int) -> list[dict[str, float]]:
    """The kind's own run (batches of ``batch_size`` items, longest prompt first), in the items' order."""
    from decisionpivot.evaluate.kinds import RunCounters

    records: dict[str, dict[str, Any]] = {}
    runner.run(items, lambda record: records.__setitem__(record["id"], record), RunCounters(), lambda entry: None)
    return [records[item.id]["p"] for item in items]


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=40, help="items per family")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated (default: %(default)s)")
    parser.add_argument("--no-per-key", dest="per_key", action="store_false",
                        help="skip the per-key readout (the slowest; it gives the probability check)")
    args = parser.parse_args()
    families = tuple(args.families.split(","))
    load_before = os.getloadavg()

    import torch

    torch.set_num_threads(1)
    import lm_eval
    from lm_eval.tasks import TaskManager

    from decisionpivot import BENCHMARK_VERSION, RELEASE_SEED
    from decisionpivot.evaluate.hf import HFRunner
    from decisionpivot.evaluate.systems import get_system
    from decisionpivot.generate.run import write_family_files
    from decisionpivot.harness.lm_eval_export import export_lm_eval, task_name
    from decisionpivot.items import read_items

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_family_files(root / "items", RELEASE_SEED, list(families), benchmark_version=BENCHMARK_VERSION)
        export_lm_eval(root / "tasks", root / "items")
        model = build_model(root / "model", args.hidden, args.layers)
        items = [item for family in families for item in read_items(root / "items" / f"{family}.jsonl")[:args.items]]
        runner = HFRunner(get_system(f"hf:{model}?device=cpu&batch_size={args.batch_size}"))
        per_item(runner, items[:2], args.batch_size)  # warm up
        before, before_wall, before_cpu = timed(lambda: per_key(runner, items, args.batch_size)) if args.per_key \
            else (None, math.nan, math.nan)
        now, now_wall, now_cpu = timed(lambda: per_item(runner, items, args.batch_size))
        manager = TaskManager(include_path=str(root / "tasks"))
        _, lm_wall, lm_cpu = timed(lambda: lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={model},dtype=float32", device="cpu", batch_size=args.batch_size,
            tasks=[task_name(f, chat=False) for f in families], limit=args.items, task_manager=manager,
            log_samples=False))
    n = len(items)
    print(f"{n} items ({args.items} per family of {', '.join(families)}), batch size {args.batch_size}, "
          f"Llama hidden {args.hidden} x {args.layers} layer(s), 1 torch thread; load average "
          f"{load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after (1 min)")
    print(f"{'readout':<22} {'wall s':>8} {'CPU s':>8} {'items/s':>8}")
    for name, wall, cpu in (("hf, one pass per key", before_wall, before_cpu),
                            ("hf kind (now)", now_wall, now_cpu), ("lm-eval hf", lm_wall, lm_cpu)):
        print(f"{name:<22} {wall:>8.2f} {cpu:>8.2f} {n / wall:>8.2f}")
    print(f"hf kind now: {lm_wall / now_wall:.2f}x lm-eval (wall); {lm_cpu / now_cpu:.2f}x lm-eval (CPU)")
    if before is not None:
        differences = [abs(a[k] - b[k]) for a, b in zip(now, before, strict=True) for k in a]
        assert all(math.isfinite(d) for d in differences)
        print(f"hf kind now: {before_wall / now_wall:.2f}x per key (wall); largest probability difference to per key "
              f"{max(differences):.2e}{' (within 1e-5)' if max(differences) <= 1e-5 else ' (OVER 1e-5)'}")

if __name__ == "__main__":
    main()
