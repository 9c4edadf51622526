"""Whether a folder a verb would write by default holds the DVC pipeline's outputs, which a quick try must not replace.

``dvc.lock`` (in the working folder) records, for every stage, its command and the MD5 of each output as DVC
computes it: a file's MD5 of its bytes, a folder's MD5 of the JSON list of its files' MD5s and paths, followed by
``.dir``. An output of a stage that runs the same verb (``dp score`` for `dp score`), under the folder, whose
hash on disk equals the lock's is the pipeline's; anything else - no lock, another hash, a file the pipeline never
wrote - is the user's own, and the verb may replace it. DVC itself is not needed (``dp`` never imports it).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from decisionpivot.data_file import read_text_file
from decisionpivot.errors import DecisionPivotError

LOCK = Path("dvc.lock")
"""The lock file of the DVC pipeline, relative to the working folder (the repository's top)."""
_VERB = re.compile(r"(?:^|[\s;&|()])dp\s+([a-z][a-z_-]*)")
"""``dp VERB`` anywhere in a stage's command (after ``mkdir -p reports &&`` too)."""


@dataclass(frozen=True)
class PipelineOutput:
    """One output of a pipeline stage found on disk exactly as ``dvc.lock`` records it."""

    path: str
    """The output's path as the lock names it (relative, POSIX)."""
    stage: str
    """The stage that wrote it."""


def dvc_md5(path: Path) -> str | None:
    """DVC's MD5 of a file (of its bytes) or of a folder (of its sorted file list, then ``.dir``); None when
    ``path`` is neither."""
    if path.is_file():
        return _file_md5(path)
    if not path.is_dir():
        return None
    entries = [{"md5": _file_md5(file), "relpath": PurePosixPath(file.relative_to(path)).as_posix()}
               for file in _files_under(path)]
    entries.sort(key=lambda entry: entry["relpath"])
    return hashlib.md5(json.dumps(entries, sort_keys=True).encode("utf-8")).hexdigest() + ".dir"


def _file_md5(path: Path) -> str:
    digest = hashlib.md5()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files_under(folder: Path) -> Iterator[Path]:
    for root, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            yield Path(root) / name


def _lock_stages(lock: Path) -> Mapping[str, object]:
    import yaml

    text = read_text_file(lock, "the DVC pipeline's lock file")
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # 4,600 lines: libyaml's speed
    except yaml.YAMLError as exc:
        raise DecisionPivotError(f"{lock}: not valid YAML ({exc})") from None
    stages = data.get("stages") if isinstance(data, dict) else None
    if not isinstance(stages, dict):
        raise DecisionPivotError(f"{lock}: expected a mapping with a 'stages' mapping, as DVC writes")
    return stages


def _runs_verb(command: object, verb: str) -> bool:
    text = " ".join(map(str, command)) if isinstance(command, list) else str(command)
    return verb in _VERB.findall(text)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def pipeline_outputs(verb: str, folder: str | Path, lock: Path = LOCK) -> list[PipelineOutput]:
    """The outputs under ``folder`` of the stages running `dp VERB` that are on disk as ``lock`` records them."""
    place = os.path.normpath(folder)
    if not lock.is_file() or not Path(place).is_dir():
        return []
    found = []
    for stage, spec in _lock_stages(lock).items():
        if not isinstance(spec, dict) or not _runs_verb(spec.get("cmd", ""), verb):
            continue
        for out in spec.get("outs") or []:
            if not isinstance(out, dict) or out.get("hash") != "md5" or not isinstance(out.get("md5"), str):
                continue  # an entry this reader does not know how to hash is not claimed for the pipeline
            path = os.path.normpath(str(out.get("path", "")))
            if _inside(path, place) and dvc_md5(Path(path)) == out["md5"]:
                found.append(PipelineOutput(PurePosixPath(Path(path)).as_posix(), str(stage)))
    return found


def keep_pipeline_outputs(verb: str, folder: str | Path, flag: str = "--out", lock: Path = LOCK) -> None:
    """Refuse to write into ``folder`` (a verb's default, not named by the user) when it holds outputs of the
    pipeline's `dp VERB` stages; the message says how to replace them or keep them."""
    found = pipeline_outputs(verb, folder, lock)
    if not found:
        return
    stages = ", ".join(dict.fromkeys(repr(output.stage) for output in found))
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    shown = os.path.normpath(folder)
    raise DecisionPivotError(
        f"{shown}/ holds outputs of the DVC pipeline's {stages} stage ({found[0].path}{more}, each as {lock} "
        f"records it), which `dp {verb}` would replace; name the folder to write: {flag} {shown} to replace them, "
        f"or {flag} another folder (e.g. {flag} {shown}-try) to keep them")


def default_out(verb: str, out: str | None, default: str, flag: str = "--out") -> str:
    """A verb's output folder: ``out`` as the user named it, else ``default`` unless the pipeline's outputs of `dp
    VERB` are there (:func:`keep_pipeline_outputs`: a plain `dp score` after a --limit try silently replaced the
    pipeline's leaderboard)."""
    if out:
        return out
    keep_pipeline_outputs(verb, default, flag)
    return default
