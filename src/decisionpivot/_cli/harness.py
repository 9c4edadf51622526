"""Other evaluation harnesses: export (lm-evaluation-harness tasks), import (their logs as answer files).

Verbs of ``dp`` (:class:`decisionpivot.cli.DP` brings every group together); each method is one verb, its
signature the command line :mod:`decisionpivot.command_line` checks, its docstring the help.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from decisionpivot._cli.arguments import name_list


class HarnessVerbs:
    """Other evaluation harnesses."""

    def export(self, harness: Literal["lm-eval"], out: str, items: str | None = None,
               tasks: str | Sequence[str] | None = None) -> None:
        """Write the benchmark as another harness's tasks: `dp export lm-eval DIR` for lm-evaluation-harness.

        DIR then holds a YAML task per family (multiple_choice over the option keys, the hf kind's prompt),
        the groups `decisionpivot` (models without a chat template) and `decisionpivot_chat` (with
        --apply_chat_template), and the docs they read; run `lm_eval --include_path DIR --tasks decisionpivot
        --log_samples --output_path OUT` and bring the answers back with `dp import lm-eval OUT`. The items
        are checked against their manifest and the release hashes first. inspect_ai needs no export: the
        package registers `inspect eval decisionpivot/core` (docs/interop.md).

        Args:
          harness: lm-eval (lm-evaluation-harness).
          out: the task folder to write: new, empty, or an earlier export (overwritten).
          items: items folder (default datasets/core/<version>, generated first when absent).
          tasks: comma-separated families (default: every items file of the folder).
        """
        from decisionpivot.harness.lm_eval_export import CHAT_GROUP, GROUP, export_lm_eval

        result = export_lm_eval(Path(out), Path(items) if items else None, name_list(tasks))
        for task in result.tasks:
            print(f"{task.task:<18} {len(task.items):>6} items  {task.check:<16} {task.sha256[:16]}")
        print(f"wrote {result.folder}/ ({len(result.files)} files): lm_eval --include_path {result.folder} "
              f"--tasks {GROUP} (or {CHAT_GROUP} with --apply_chat_template)")

    def import_(self, harness: Literal["inspect", "lm-eval"], log: str, system: str, items: str | None = None,
                runs: str = "runs", restart: bool = False) -> None:
        """Turn a harness's log into answer files: runs/<system>/<task>.jsonl (+ .meta.json), scored like any run.

        `dp import inspect LOG` reads an inspect_ai log of `inspect eval decisionpivot/...`; `dp import lm-eval
        SAMPLES` reads the samples files of `lm_eval --tasks decisionpivot... --log_samples` (one file, or the
        folder of one run). Every sample must be an item of the items folder (checked against its manifest
        and the release hashes) with the same content hash and prompt, else the whole log is refused and
        nothing is written. The meta records the harness, its version, the model and the log's identifiers;
        importing more logs of the same system and config adds the items not yet answered.

        Args:
          harness: inspect (inspect_ai) or lm-eval (lm-evaluation-harness).
          log: the inspect log file (.eval or .json), or the lm-eval samples file or run folder.
          system: the system name to record the answers under (folder under runs).
          items: items folder the log answered (default datasets/core/<version>, generated first when absent).
          runs: folder of answer files.
          restart: start each task's answer file afresh (old answers kept as .bak); needed to import a
            log of another model or config under a name that holds answers already.
        """
        if harness == "inspect":
            from decisionpivot.harness.inspect_import import import_inspect_log as import_log
        else:
            from decisionpivot.harness.lm_eval_import import import_lm_eval_samples as import_log
        written = import_log(Path(log), str(system), Path(runs), Path(items) if items else None, restart=bool(restart))
        print(f"{'task':<18} {'items':>6} {'in log':>7} {'kept':>6} {'answers':>8} {'errors':>7}  file")
        for t in written:
            print(f"{t.task:<18} {t.items:>6} {t.in_log:>7} {t.already:>6} {t.answers:>8} {t.errors:>7}  {t.path}")
        short = [t.task for t in written if not t.covered]
        if short:
            print(f"{system}: {len(short)} task(s) below the 99% of items `dp score` needs ({', '.join(short)}); "
                  "`dp score --partial` scores them on the answered items", file=sys.stderr)
