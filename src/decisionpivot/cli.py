"""The `dp` command: one verb per pipeline stage (generate, verify, show, ...).

Every verb explains itself with ``dp VERB --help``. Errors in input (a malformed items file, a hash
that does not match) print one clear line and exit with status 2; failed checks exit with 1.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from decisionpivot._cli.deployment import CostVerb, DeploymentVerbs, MonitorVerb
from decisionpivot._cli.evaluation import EvaluationVerbs
from decisionpivot._cli.frame import FrameVerbs
from decisionpivot._cli.harness import HarnessVerbs
from decisionpivot._cli.items import ItemVerbs
from decisionpivot._cli.reference import ReferenceVerbs
from decisionpivot._cli.scale import ScaleVerbs
from decisionpivot._cli.scoring import ScoringVerbs
from decisionpivot._cli.shell import ShellVerbs
from decisionpivot.command_line import (
    CommandLineError,
    Constraints,
    at_least,
    existing_folder,
    existing_folder_or_default,
    file,
    file_or_default,
    folder,
    folder_or_default,
    method_name,
    parse_command_line,
)
from decisionpivot.errors import DecisionPivotError
from decisionpivot.redact import RedactingStream, redact


class DP(ItemVerbs, FrameVerbs, ScaleVerbs, EvaluationVerbs, ScoringVerbs, DeploymentVerbs, CostVerb, MonitorVerb,
         ReferenceVerbs, HarnessVerbs, ShellVerbs):
    """DecisionPivot: a diagnostic benchmark for decision models in LLM systems.

    Pipeline: generate -> verify -> evaluate -> score. Start with `dp generate` then `dp verify`;
    `dp show ID` prints one item as a person would read it.
    """


def _shard(value: str | None) -> None:
    """`--shard i/n` is checked before any work (evaluate reads it only after generating missing items)."""
    if value is None:
        return
    from decisionpivot.evaluate.answers import Shard

    try:
        Shard.parse(value)
    except DecisionPivotError as exc:
        raise ValueError(str(exc)) from None


def _training_input(value: str) -> None:
    """dp overlap's inputs: files, folders, globs or URLs (the "*" file check would refuse the last three)."""
    if not str(value).strip():
        raise ValueError("expected a training file, folder, glob or URL, got an empty path")


def _names_of(value: Sequence[str] | None, what: str, known: Sequence[str]) -> None:
    if value is None:
        return
    from decisionpivot.errors import unknown_names

    problem = unknown_names(what, value, known, plural=what.replace("family", "families"))
    if problem:
        raise ValueError(problem)


def _core_names() -> list[str]:
    from decisionpivot.generate.registry import families

    return [spec.name for spec in families()]


def _scale_names() -> list[str]:
    from decisionpivot.scale.registry import families

    return [spec.name for spec in families()]


def _families(value: Sequence[str] | None) -> None:
    """`--families a,b`: every name a registered family - of the core or of the scale suite, for a verb that reads
    either's folder - checked before any work (`dp evaluate` would otherwise generate the whole release first)."""
    _names_of(value, "family", [*_core_names(), *_scale_names()])


def _core_families(value: Sequence[str] | None) -> None:
    """`dp generate` / `dp manifest` / `dp frame --families`: core families only."""
    _names_of(value, "family", _core_names())


def _scale_families(value: Sequence[str] | None) -> None:
    """`dp scale --families`: families of the scale suite only."""
    _names_of(value, "scale family", _scale_names())


def _repo_id(value: str | None) -> None:
    if value is None:
        return
    from decisionpivot.release.hub import validate_repo_id

    try:
        validate_repo_id(value)
    except DecisionPivotError as exc:
        raise ValueError(str(exc)) from None


CONSTRAINTS: Constraints = {
    "*": {
        "limit": at_least(0), "jobs": at_least(1), "resamples": at_least(1), "n": at_least(1), "show": at_least(0),
        # folders a verb reads must be there ("no such folder"); --out and the answer folders a verb writes
        # (evaluate, import, sample: their own entries below) are made
        "runs": existing_folder, "out": folder, "source": existing_folder, "params": file, "train": file,
        "items": existing_folder_or_default, "core": existing_folder_or_default, "reference": folder_or_default,
        "invariance": existing_folder_or_default, "invariance_runs": existing_folder,
        "config": file_or_default, "sampled_answers": file_or_default,
        "repo_id": _repo_id, "shard": _shard,
        "permute_options": at_least(0),  # evaluate --permute-options K: 0 = the official order only
        "calibration_runs": existing_folder, "calibration_items": existing_folder, "gate": file,
        "families": _families,
    },
    "evaluate": {"runs": folder},
    "import": {"runs": folder},
    "stability": {"items_a": existing_folder, "runs_a": existing_folder, "items_b": existing_folder,
                  "runs_b": existing_folder},
    "generate": {"out": folder_or_default, "families": _core_families},  # --out= : the default folder for the seed
    "manifest": {"families": _core_families},
    "frame": {"out": folder_or_default, "base_items": at_least(1), "families": _core_families},
    "scale": {"out": folder_or_default, "families": _scale_families},  # --out= : the default folder for the seed
    "licenses": {"out": file_or_default},  # --out= : print only
    "sample": {"out": file_or_default, "source": existing_folder_or_default,  # --out names the sampled-answers file
               "runs": folder},
    "report": {"reports": existing_folder, "gate": file_or_default, "partial": file_or_default},  # "" = none
    "overlap": {"train": _training_input, "workers": at_least(1), "part_mb": at_least(1), "state": file_or_default},
}
"""What the annotations cannot say, checked before any verb runs: ``{verb or "*": {parameter: check(s)}}``.

A verb's own entry replaces the "*" entry of that parameter. Types (int, bool, comma lists, ...) need no
entry: they come from the signature (see decisionpivot.command_line). A new count flag needs one line here,
e.g. ``"retries": at_least(0)``, or an Annotated type in the signature.
"""


def _describe_os_error(exc: OSError) -> str:
    if exc.filename is not None:
        other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
        return f"{exc.filename}{other}: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (tests capture it)
        pass


def _print_error(message: str, usage: str = "") -> None:
    print(f"error: {redact(message)}", file=sys.stderr)
    if usage:
        print(usage, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `dp` console script: check the whole command line, then run the verb.

    Errors in input print one `error:` line (secrets redacted) and exit 2; a command line the verb cannot
    take also prints the verb's usage, before anything has run.
    """
    command = list(sys.argv[1:] if argv is None else argv)
    stderr = sys.stderr
    sys.stderr = RedactingStream(stderr)  # warnings, notes and errors of every verb reach the terminal redacted
    previous = _on_sigterm()
    try:
        _run(command)
    finally:
        sys.stderr = stderr
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM (what Slurm, Kubernetes and `kill` send) arrived: unwind like Ctrl-C, so every answer file's
    meta is brought up to date and every lock released on the way out."""


def _on_sigterm() -> Any:
    """Turn SIGTERM into :class:`Terminated` in the main thread; returns the previous handler (None: not set)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def terminate(signum: int, frame: Any) -> None:
        raise Terminated()

    return signal.signal(signal.SIGTERM, terminate)


def _run(command: list[str]) -> None:
    try:
        invocation = parse_command_line(DP, command, CONSTRAINTS)
        if invocation.help:
            from decisionpivot.command_help import overview, verb_help
            from decisionpivot.command_line import verbs

            table = verbs(DP)
            print(verb_help(invocation.verb, table[invocation.verb], CONSTRAINTS) if invocation.verb
                  else overview(DP, table), end="")
            return
        assert invocation.verb is not None
        getattr(DP(), method_name(invocation.verb))(*invocation.args, **invocation.kwargs)
    except CommandLineError as exc:
        _print_error(str(exc), exc.usage)
        raise SystemExit(2) from None
    except DecisionPivotError as exc:
        _print_error(str(exc))
        raise SystemExit(2) from None
    except BrokenPipeError:  # `dp systems | head`: the reader has gone; say nothing more
        _silence_stdout()
        raise SystemExit(1) from None
    except OSError as exc:  # last line of defence; the places that read and write files say more
        _print_error(_describe_os_error(exc))
        raise SystemExit(2) from None
    except UnicodeDecodeError as exc:
        _print_error(f"a file that should be UTF-8 text is not ({exc})")
        raise SystemExit(2) from None
    except UnicodeError as exc:
        _print_error(f"text that cannot be used here ({exc})")
        raise SystemExit(2) from None
    except Terminated:
        print("terminated (SIGTERM): answers so far are kept; the same command resumes", file=sys.stderr)
        raise SystemExit(128 + signal.SIGTERM) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
