"""Running systems: systems, evaluate, repair, merge, sample.

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from decisionpivot._cli.arguments import DEFAULT_CORE_DIR, name_list
from decisionpivot._cli.items import ItemVerbs
from decisionpivot.errors import DecisionPivotError, check_names

if TYPE_CHECKING:
    from decisionpivot.evaluate.run import TaskRun


class EvaluationVerbs:
    """Running systems."""

    def systems(self, config: str | None = None, kinds: bool = False) -> None:
        """List the systems `dp evaluate` knows: built-in, family heuristics, and those in --config.

        The kinds of system one can declare (and each kind's keys) are listed with --kinds, not by default.

        Args:
          config: a YAML systems file (see decisionpivot/evaluate/default_systems.yaml).
          kinds: list every kind instead, with its keys, defaults and what each key does.
        """
        from decisionpivot.evaluate.kinds import kinds as registered
        from decisionpivot.evaluate.systems import load_systems

        if kinds:
            for name, spec in sorted(registered().items()):
                print(f"{name}: {spec.doc}")
                for key, setting in spec.settings.items():
                    need = "required" if key in spec.required else f"default {setting.default!r}"
                    print(f"    {key:<32} {need:<22} {setting.doc}")
            return
        declared = load_systems(config)
        for name, system in sorted(declared.items()):
            detail = system.settings.get("model") or system.settings.get("callable") or system.settings.get("baseline")
            print(f"{name:<48} {system.kind:<16} {detail}  ({system.source})")
        print(f"{len(declared)} system(s); every kind of system one can declare, with its keys: dp systems --kinds",
              file=sys.stderr)

    def evaluate(
        self,
        system: str | None = None,
        config: str | None = None,
        items: str | None = None,
        runs: str = "runs",
        tasks: str | Sequence[str] | None = None,
        limit: int | None = None,
        shard: str | None = None,
        retry_errors: bool = False,
        restart: bool = False,
        allow_modified_items: bool = False,
        permute_options: int = 0,
        families: str | Sequence[str] | None = None,
        systems: str | Sequence[str] | None = None,
    ) -> None:
        """Run a system over the benchmark and write runs/<system>/<task>.jsonl (+ .meta.json).

        Re-running answers only what is missing (also after a crash or kill -9) and asks again the
        items whose record is a transient error (server down, retries spent). Each answer file is
        locked while it is written: a second run on it refuses, naming the holder. The items are
        accepted before anything is asked only when this package re-derives them byte for byte (or ships
        their hashes: the release), or a verified task card records them. Exits 1 when a task ends below
        the 99% of items the scorer needs, except with --limit or --shard (a part on purpose: exits 0;
        `dp score --partial` scores a --limit run), when transient errors are left unanswered (a reply that
        was not the model's answer: any status but 200, a body that is not the interface's answer;
        docs/evaluate-faults.md), or when every record is an error; each with a line naming the most frequent
        cause.
        Without --items and with no items generated yet, the release core items are generated first.

        Args:
          system: a declared system (`dp systems` lists them), e.g. uniform; or a system on one line,
            KIND:MODEL[@BASE_URL][?KEY=VALUE&...], e.g. chat:gpt-4o-mini@https://api.openai.com/v1?key_env=OPENAI_API_KEY
            or hf:/models/qwen?batch_size=4 (docs/served-readout.md).
          config: YAML file declaring more systems (two lines suffice for an OpenAI-compatible or
            System One endpoint).
          items: items folder (default datasets/core/<version>).
          runs: folder of answer files.
          tasks: comma-separated task names (default: every items file in the folder).
          limit: answer at most this many items per task (quick tries; `dp score --partial` scores them).
          shard: i/n - answer only items whose index % n == i, into runs/<system>/shards/; fold the
            shards together with `dp merge`.
          retry_errors: ask again every item whose record is an error (replacing that record).
          restart: start each task afresh (old answers kept as <task>.jsonl.bak, or the next free .bak.N: a
            backup is never overwritten); needed to resume
            under a changed system config, which is otherwise refused.
          allow_modified_items: read items files this package neither re-derives nor released (a core draw or
            suite it does not draw byte for byte from their recorded version, seed and plan; docs/reproducing.md);
            the meta file, stderr and the leaderboard then say so. Without it such a file stops the evaluation.
          permute_options: also ask every item under K seeded re-orderings of its options
            (runs/<system>/permuted/); `dp score` then reports accuracy under permutation.
          families: the same as --tasks (a task is a family's items file).
          systems: several systems, one after another in this one process, instead of SYSTEM: comma-separated
            names or patterns of declared names, e.g. uniform,heuristic.* (every family heuristic); exits with
            the worst exit of them.
        """
        if (system is None) == (systems is None):  # a command line error: said with the verb's usage
            from decisionpivot.command_line import CommandLineError, usage, verb_parameters

            message = ("give SYSTEM or --systems, not both" if system is not None else
                       "name the system to evaluate: dp evaluate SYSTEM (`dp systems` lists them), or several with "
                       "--systems A,B,...")
            raise CommandLineError(f"dp evaluate: {message}", usage("evaluate", verb_parameters(self.evaluate,
                                                                                                "evaluate")))
        if systems is not None:
            from decisionpivot.evaluate.systems import expand_systems

            worst = 0
            for name in expand_systems(name_list(systems) or [], config):
                try:
                    self.evaluate(name, config=config, items=items, runs=runs, tasks=tasks, limit=limit,
                                  shard=shard, retry_errors=retry_errors, restart=restart,
                                  allow_modified_items=allow_modified_items, permute_options=permute_options,
                                  families=families)
                except SystemExit as exc:
                    worst = max(worst, exc.code if isinstance(exc.code, int) else 1)
            if worst:
                raise SystemExit(worst)
            return
        from decisionpivot.evaluate.answers import Shard
        from decisionpivot.evaluate.run import evaluate_system
        from decisionpivot.evaluate.systems import get_system
        from decisionpivot.item_origin import modified_note

        if families is not None and tasks is not None:
            raise DecisionPivotError("--families is another name for --tasks: give one of them")
        flag = "--families" if families is not None else "--tasks"
        wanted = name_list(families if tasks is None else tasks)
        chosen = get_system(str(system), config)
        folder = Path(items) if items else DEFAULT_CORE_DIR
        generate = items is None and not (folder / "MANIFEST.json").exists()
        _check_tasks(flag, wanted, folder, generate, chosen.families)
        if generate:
            print(f"{folder}/ not found: generating the release core items first", file=sys.stderr)
            ItemVerbs().generate()
        results = evaluate_system(chosen, folder, Path(runs), wanted, None if limit is None else int(limit),
                                  Shard.parse(shard), restart=bool(restart), retry_errors=bool(retry_errors),
                                  allow_modified_items=bool(allow_modified_items),
                                  permute_options=int(permute_options))
        print(f"{'task':<26} {'items':>6} {'resumed':>8} {'answers':>8} {'errors':>7} {'retries':>8}  file")
        for r in results:
            print(f"{r.task:<26} {r.items:>6} {r.already:>8} {r.answered:>8} {r.errors:>7} {r.retries:>8}  {r.path}")
        short = [r for r in results if not r.covered]
        answered = sum(r.answered for r in results)
        total = sum(r.items for r in results)
        errors = sum(r.errors for r in results)
        unanswered = sum(r.transient for r in results)
        print(f"{chosen.name}: {answered} of {total} items answered, {errors} errors "
              f"({unanswered} transient) in {len(results)} task(s), readout {chosen.readout}")
        if note := modified_note(r.item_check for r in results):  # the meta files record it too
            print(f"note: {folder}: {note}", file=sys.stderr)
        transient_cause = most_frequent_cause(results, "transient")
        if short and limit is None and shard is None:
            names = ", ".join(r.task for r in short)
            print(f"evaluate INCOMPLETE: {len(short)} task(s) below the 99% of items the scorer needs ({names})"
                  f"{transient_cause}; run again to ask the transient errors, or with --retry-errors to ask every "
                  "error again", file=sys.stderr)
            raise SystemExit(1)
        if unanswered:
            tasks_left = ", ".join(f"{r.task} {r.transient}" for r in results if r.transient)
            print(f"evaluate INCOMPLETE: {unanswered} item(s) unanswered after their retries (transient errors: "
                  f"{tasks_left}){transient_cause}; the scorer counts them as missing, never as the model's answers. "
                  "Run the same command again to ask them again", file=sys.stderr)
            raise SystemExit(1)
        if errors and not answered:
            print(f"evaluate FAILED: every one of the {errors} records is an error, none an answer"
                  f"{most_frequent_cause(results)}. Fix what it names, then run again (--retry-errors asks the final "
                  "errors again too)", file=sys.stderr)
            raise SystemExit(1)

    def repair(self, system: str, runs: str = "runs") -> None:
        """Fold duplicate ids in a system's answer files into one record per id (the original kept as .bak).

        A backup is never overwritten: when <task>.jsonl.bak exists the original goes to .bak.1, .bak.2, ...

        Per id the first answer with probabilities is kept (an answer beats an error). Needed only for
        files written before answer files were locked, or edited by hand.

        Args:
          system: the system whose answer files to repair (folder under runs).
          runs: folder of answer files.
        """
        from decisionpivot.evaluate.answers import fold_duplicates
        from decisionpivot.evaluate.systems import validate_system_name

        folder = Path(runs) / validate_system_name(str(system))
        if not folder.is_dir():
            present = sorted(p.name for p in Path(runs).iterdir() if p.is_dir() and not p.name.startswith("."))
            check_names("system", [str(system)], present, where=f"{runs} (a system is a folder there)")
        paths = [p for p in sorted(folder.rglob("*.jsonl")) if not p.name.endswith(".raw.jsonl")]
        for path in paths:
            folded, differing, backup = fold_duplicates(path)
            if backup is not None:
                note = f" ({differing} with differing answers: the first kept)" if differing else ""
                print(f"{path}: folded {folded} duplicate id(s){note}; original kept as {backup.name}")
        print(f"checked {len(paths)} answer file(s) of {system}")

    def merge(self, system: str, items: str | None = None, runs: str = "runs") -> None:
        """Fold the shard answer files of a system (from `dp evaluate --shard i/n`) into its task files.

        Every id must appear at most once across shards; ids still missing are listed.

        Args:
          system: the system whose shards to merge.
          items: items folder the shards answered (default datasets/core/<version>).
          runs: folder of answer files.
        """
        from decisionpivot.evaluate.answers import merge_shards
        from decisionpivot.evaluate.run import task_files
        from decisionpivot.evaluate.systems import validate_system_name
        from decisionpivot.items import iter_items

        folder = Path(items) if items else DEFAULT_CORE_DIR
        order = {task: [i.id for i in iter_items(path)] for task, path in task_files(folder).items()}
        for task, count, missing in merge_shards(Path(runs), validate_system_name(str(system)), order):
            note = f", {len(missing)} missing (e.g. {missing[:3]})" if missing else ""
            print(f"{task}: {count} records{note}")

    def sample(self, task: str, systems: str | Sequence[str], source: str = "reference-sources",
               config: str | None = None, n: int = 5, temperature: float = 0.7, out: str | None = None,
               runs: str = "runs", limit: int | None = None, restart: bool = False) -> None:
        """Sample N answers per question from chat systems, for the capability-boundary tasks.

        Asks each question of the official file (GSM8K test.jsonl, NQ-open NQ-open.dev.jsonl) N times per
        system, with the same runner as `dp evaluate` (retries, rate limits, resume, locks), and writes the
        sampled-answers file that `dp reconstruct capb_gsm8k|capb_nq_open --sampled-answers FILE` grades,
        with FILE.meta.json (models, N, temperature, date) beside it.

        Args:
          task: capb_gsm8k or capb_nq_open.
          systems: comma-separated chat systems (declared in --config).
          source: folder holding the official question file (or <task>/ folders of official files).
          config: YAML file declaring the systems.
          n: samples per question and system.
          temperature: sampling temperature (overrides the systems' own).
          out: sampled-answers file to write (default sampled/<task>.answers.jsonl).
          runs: folder of the resumable per-system samples (runs/<system>/samples/).
          limit: sample only the first Q questions.
          restart: start each system's samples afresh (old ones kept as .bak); needed after a change of a
            system's config, which is otherwise refused.
        """
        from decisionpivot.evaluate.systems import get_system
        from decisionpivot.sample.run import sample_answers

        chosen = [get_system(name, config) for name in name_list(systems) or []]
        target = Path(out) if out else Path("sampled") / f"{task}.answers.jsonl"
        results = sample_answers(str(task), source, chosen, int(n), float(temperature), target, runs,
                                 None if limit is None else int(limit), restart=bool(restart))
        for r in results:
            print(f"{r.system:<28} model {r.model:<24} {r.samples:>7} samples {r.errors:>6} errors  {r.path}")
        print(f"wrote {target} and {target.name}.meta.json; next: dp reconstruct {task} --source {source} "
              f"--sampled-answers {target}")


def most_frequent_cause(results: Sequence[TaskRun], kind: str | None = None) -> str:
    """``; most often (n of m): CAUSE (e.g. REASON)`` over the error records the run wrote (of one ``kind``,
    ``transient`` or ``error``, when given), or "" when it wrote none."""
    causes: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for result in results:
        for outcome, cause, count, example in result.causes:
            if kind is None or outcome == kind:
                causes[cause] += count
                examples.setdefault(cause, example)
    if not causes:
        return ""
    (cause, count), = causes.most_common(1)
    example = examples[cause] if len(examples[cause]) <= 160 else examples[cause][:157] + "..."
    return f"; most often ({count} of {causes.total()}): {cause}" + (f" (e.g. {example})" if example != cause else "")


def _check_tasks(flag: str, wanted: Sequence[str] | None, folder: Path, generate: bool,
                 answered: Sequence[str] | None) -> None:
    """`dp evaluate --tasks/--families`: every name a task of the items folder (the release's families when the
    folder is yet to be generated), and at least one the system answers (a family heuristic answers its own family
    only), checked before anything is generated or asked."""
    from decisionpivot.evaluate.run import task_files
    from decisionpivot.generate.registry import families

    if not wanted:
        return
    known = [spec.name for spec in families()] if generate else list(task_files(folder))
    check_names("task", wanted, known, where=f"{flag} ({'the release families' if generate else folder})")
    if answered is not None and not set(wanted) & set(answered):
        raise DecisionPivotError(f"{flag}: this system answers only {', '.join(answered)}, not "
                                 f"{', '.join(wanted)}")
