"""The gated Hugging Face dataset: build the release folder, upload it, download and verify it.

``build_release`` assembles the dataset folder from the core items (``dp generate``), the
invariance suite drawn from them (``dp frame``) and the reconstructed reference items
(``dp reconstruct``): the core families, the suite's families (folder ``invariance/``, configs
``invariance-<family>``), only the reference tasks whose licence route is *redistribute*
(``decisionpivot.licenses.routes``), the licence texts and attribution notices, a dataset card with
the gating form, and ``MANIFEST.json`` with every file's SHA-256 and size. The core and the suite
files are checked against their folders' manifests first; the suite must be the released one (its
version and seed) drawn from this very core (its manifest's SHA-256). The bytes depend only on the
inputs (no timestamps, sorted listings).

``upload_release`` creates the dataset repository (``exist_ok``), uploads the folder as one
commit (remote files not in the release are deleted, so the repository mirrors the manifest),
checks the uploaded files' hashes in the remote tree listing and sets manual gating.
``download_release`` fetches a revision with the user's token and verifies every file against the
manifest shipped inside the package; only a verified download is written to the output folder.
Tokens come from ``HF_TOKEN`` or the saved login (``hf auth login``) and are never printed.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisionpivot import BENCHMARK_VERSION, __version__
from decisionpivot.errors import DecisionPivotError
from decisionpivot.items import atomic_write_bytes, sha256_file
from decisionpivot.licenses.fulltext import CORE_ITEMS_SPDX
from decisionpivot.licenses.routes import RECONSTRUCT_ONLY, REDISTRIBUTE, RouteDecision, decide_route
from decisionpivot.reconstruct.card import TaskCard, all_cards
from decisionpivot.redact import redact
from decisionpivot.release.datacard import ACCESS_CONDITIONS, ConfigEntry, dataset_card
from decisionpivot.release.manifest import (
    DATASET_NAME,
    INVARIANCE,
    MANIFEST_NAME,
    SCALE,
    SCALE_FRAMED,
    core_entry,
    digest,
    expected_manifest,
    file_entry,
    invariance_section,
    manifest_bytes,
    read_manifest_file,
    release_files,
    scale_section,
)
from decisionpivot.release.notices import licence_files

REPO_TYPE = "dataset"
GATING = "manual"
SHOW_AT_MOST = 10


# --------------------------------------------------------------------------------------------- build


@dataclass(frozen=True)
class ReleaseBuild:
    """A built release folder."""

    folder: Path
    manifest: dict[str, Any]
    notes: tuple[str, ...] = ()
    """What was left out and why (reconstruct-only tasks, missing items files)."""


@dataclass
class _Parts:
    """What goes into the release, collected before anything is written."""

    configs: list[ConfigEntry] = field(default_factory=list)
    copies: dict[str, Path] = field(default_factory=dict)
    """Path inside the release -> source file."""
    core: dict[str, dict[str, Any]] = field(default_factory=dict)
    invariance: dict[str, Any] | None = None
    """The suite's section of the release manifest; None when the suite was left out."""
    scale: dict[str, Any] | None = None
    """The scale suite's section of the release manifest; None when it was left out."""
    reference: dict[str, dict[str, Any]] = field(default_factory=dict)
    included_cards: list[TaskCard] = field(default_factory=list)
    reconstruct_only: list[tuple[str, str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def _listed_file(folder: Path, entry: dict[str, Any], remake: str) -> tuple[Path, str]:
    """A file a folder's MANIFEST.json lists, and its SHA-256, refused when missing or changed (``remake``: the
    verb that writes the folder again)."""
    source, where = folder / entry["file"], f"{folder}/{MANIFEST_NAME}"
    if not source.exists():
        raise DecisionPivotError(f"{source}: listed in {where} but missing (run `{remake}`)")
    found = sha256_file(source)
    if found != entry["sha256"]:
        raise DecisionPivotError(f"{source}: SHA-256 {found} differs from {where} ({entry['sha256']}); "
                                 f"write it again with `{remake}`")
    return source, found


def _collect_core(core_dir: Path, parts: _Parts) -> None:
    """Every family in the core manifest, after checking each file still has the manifest's hash."""
    from decisionpivot.generate.run import read_manifest

    manifest = read_manifest(core_dir)
    parts.copies[f"core/{MANIFEST_NAME}"] = core_dir / MANIFEST_NAME
    for name, entry in manifest.get("families", {}).items():
        source, _ = _listed_file(core_dir, entry, "dp generate")
        path = f"core/{entry['file']}"
        parts.copies[path] = source
        items = _count_lines(source)
        parts.configs.append(ConfigEntry(name, "core", entry["layer"], path, items, CORE_ITEMS_SPDX))
        parts.core[name] = core_entry(entry, items)


def invariance_config(family: str) -> str:
    """Config name of a family of the invariance suite (never a core family's or a reference task's name)."""
    return f"{INVARIANCE}-{family}"


def _collect_invariance(suite_dir: Path | None, core_dir: Path, parts: _Parts) -> None:
    """The released invariance suite, after checking it is the released one, drawn from ``core_dir``, and that
    every file still has its manifest's hash (and the package's released hash, for the released core).

    ``suite_dir`` None builds a release without the suite: it is named in the notes and the card.
    """
    from decisionpivot.frame.framings import SUITE_VERSION
    from decisionpivot.frame.suite import SUITE_SEED, read_suite_manifest
    from decisionpivot.item_hashes import released_suite

    if suite_dir is None:
        parts.notes.append("invariance suite: no folder was given; left out (draw it with `dp frame` and pass "
                           f"--invariance datasets/invariance/{SUITE_VERSION})")
        return
    manifest = read_suite_manifest(suite_dir, 'leave it out of the release with --invariance ""')
    where = f"{suite_dir}/{MANIFEST_NAME}"
    if (manifest.get("version"), manifest.get("seed")) != (SUITE_VERSION, SUITE_SEED):
        raise DecisionPivotError(f"{where}: suite version {manifest.get('version')!r} with seed "
                                 f"{manifest.get('seed')!r}; the release carries the released suite (version "
                                 f"{SUITE_VERSION!r}, seed {SUITE_SEED}): draw it with `dp frame`")
    core_hash = sha256_file(core_dir / MANIFEST_NAME)
    drawn_from = (manifest.get("core") or {}).get("manifest_sha256")
    if drawn_from != core_hash:
        raise DecisionPivotError(f"{where}: drawn from a core whose MANIFEST.json has SHA-256 {drawn_from}, not the "
                                 f"released core {core_dir}/{MANIFEST_NAME} ({core_hash}); redraw it with `dp frame "
                                 f"--items {core_dir}`")
    shipped = released_suite(SUITE_VERSION)
    if shipped is not None and (shipped.get("core") or {}).get("manifest_sha256") != core_hash:
        shipped = None  # the package's released suite was drawn from another core: nothing more to compare
    if shipped is not None and set(manifest["families"]) != set(shipped.get("families") or {}):
        missing = sorted(set(shipped.get("families") or {}) - set(manifest["families"]))
        extra = sorted(set(manifest["families"]) - set(shipped.get("families") or {}))
        raise DecisionPivotError(f"{where}: not the released suite {SUITE_VERSION}'s families (missing: "
                                 f"{', '.join(missing) or 'none'}; not released: {', '.join(extra) or 'none'}); "
                                 "draw the whole suite with `dp frame`")
    parts.copies[f"{INVARIANCE}/{MANIFEST_NAME}"] = suite_dir / MANIFEST_NAME
    for name, entry in manifest["families"].items():
        source, found = _listed_file(suite_dir, entry, "dp frame")
        if entry.get("seed", SUITE_SEED) != SUITE_SEED:
            raise DecisionPivotError(f"{where}: family {name!r} drawn with seed {entry.get('seed')!r}, not the "
                                     f"released suite's {SUITE_SEED}; redraw it with `dp frame`")
        released = ((shipped or {}).get("families") or {}).get(name)
        if released is not None and released.get("sha256") != found:
            raise DecisionPivotError(f"{source}: SHA-256 {found} differs from the package's released suite "
                                     f"{SUITE_VERSION} ({released.get('sha256')}) although it is drawn from the "
                                     "released core with the released seed; redraw it with the package version "
                                     "that released it (`dp frame`)")
        items = _count_lines(source)
        if items != entry["items"]:
            raise DecisionPivotError(f"{source}: {items} items, {where} says {entry['items']}")
        path = f"{INVARIANCE}/{entry['file']}"
        parts.copies[path] = source
        parts.configs.append(ConfigEntry(invariance_config(name), INVARIANCE, entry["layer"], path, items,
                                         CORE_ITEMS_SPDX))
    parts.invariance = invariance_section(manifest)


def _collect_scale(scale_dir: Path | None, framed_dir: Path | None, parts: _Parts) -> None:
    """The released scale suite (``dp scale``) and its framings (``dp scale --framings``): the suite version and seed
    of the release, every file with its manifest's hash and, when the package ships the released scale manifests, the
    released hashes. Configs ``scale-<family>`` and ``scale-invariance-<family>``; ``scale_dir`` None leaves both out
    (said in the notes), ``framed_dir`` None the framings only."""
    from decisionpivot.item_hashes import released_scale
    from decisionpivot.scale import SCALE_SEED, SCALE_VERSION
    from decisionpivot.scale.framing import FRAMED_BENCHMARK, FRAMED_VERSION

    if scale_dir is None:
        parts.notes.append("scale suite: no folder was given; left out (draw it with `dp scale` and pass --scale "
                           f"datasets/scale/{SCALE_VERSION})")
        return
    from decisionpivot.scale.run import read_scale_manifest

    framed_manifest = None
    folders = [(scale_dir, SCALE, "dp scale", read_scale_manifest(scale_dir), SCALE_VERSION, False)]
    if framed_dir is not None:
        from decisionpivot.generate.run import read_manifest

        framed_manifest = read_manifest(framed_dir)
        if framed_manifest.get("benchmark") != FRAMED_BENCHMARK:
            raise DecisionPivotError(f"{framed_dir}/{MANIFEST_NAME}: not the scale suite's framings (benchmark "
                                     f"{framed_manifest.get('benchmark')!r}); write them with `dp scale --framings`")
        folders.append((framed_dir, SCALE_FRAMED, "dp scale --framings", framed_manifest, FRAMED_VERSION, True))
    else:
        parts.notes.append("scale suite framings: no folder was given; left out (write them with `dp scale "
                           f"--framings` and pass --scale-invariance datasets/scale-invariance/{FRAMED_VERSION})")
    for folder, part, remake, manifest, version, framed in folders:
        where = f"{folder}/{MANIFEST_NAME}"
        if manifest.get("version") != version:
            raise DecisionPivotError(f"{where}: version {manifest.get('version')!r}; the release carries version "
                                     f"{version!r}: write it with `{remake}`")
        shipped = (released_scale(version, framed) or {}).get("families") or {}
        if shipped and set(manifest["families"]) != set(shipped):
            raise DecisionPivotError(f"{where}: not the released families ({', '.join(sorted(shipped))}); write the "
                                     f"whole suite with `{remake}`")
        parts.copies[f"{part}/{MANIFEST_NAME}"] = folder / MANIFEST_NAME
        for name, entry in manifest["families"].items():
            source, found = _listed_file(folder, entry, remake)
            if entry.get("seed") != SCALE_SEED:
                raise DecisionPivotError(f"{where}: family {name!r} drawn with seed {entry.get('seed')!r}, not the "
                                         f"released suite's {SCALE_SEED}; write it again with `{remake}`")
            if name in shipped and shipped[name].get("sha256") != found:
                raise DecisionPivotError(f"{source}: SHA-256 {found} differs from the package's released {part} "
                                         f"{version} ({shipped[name].get('sha256')}); write it with the package "
                                         f"version that released it (`{remake}`)")
            items = _count_lines(source)
            if items != entry["items"]:
                raise DecisionPivotError(f"{source}: {items} items, {where} says {entry['items']}")
            path = f"{part}/{entry['file']}"
            parts.copies[path] = source
            parts.configs.append(ConfigEntry(f"{part}-{name}", part, entry["layer"], path, items, CORE_ITEMS_SPDX))
    parts.scale = scale_section(folders[0][3], framed_manifest)


def release_route(card: TaskCard) -> RouteDecision:
    """The route the release applies: redistribute only when the rules *and* the card say so."""
    decision = decide_route(card.license)
    if decision.route == REDISTRIBUTE and card.route != REDISTRIBUTE:
        return RouteDecision(RECONSTRUCT_ONLY, f"card records route {card.route!r} although the rules give "
                                               "redistribute")
    return decision


def _collect_reference(reference_dir: Path | None, cards: dict[str, TaskCard], parts: _Parts) -> None:
    """Redistributable reference tasks only; every other task is listed as reconstruct-only.

    ``reference_dir`` None builds a core-only release: redistributable tasks are listed as missing.
    """
    for task in sorted(cards):
        card = cards[task]
        decision = release_route(card)
        if decision.route != REDISTRIBUTE:
            parts.reconstruct_only.append((task, decision.reason))
            if card.route != decide_route(card.license).route:
                parts.notes.append(f"{task}: left out ({decision.reason}); fix the card")
            continue
        if reference_dir is None:
            parts.missing.append(task)
            parts.notes.append(f"{task}: redistributable but no reference folder was given; left out")
            continue
        source = reference_dir / f"{task}.jsonl"
        if not source.exists():
            parts.missing.append(task)
            parts.notes.append(f"{task}: redistributable but {source} is missing (run `dp reconstruct {task}`); "
                               "left out")
            continue
        found = sha256_file(source)
        if card.verified and card.expected_sha256 and found != card.expected_sha256:
            raise DecisionPivotError(f"{source}: SHA-256 {found} differs from the task card ({card.expected_sha256}); "
                                     f"rebuild it with `dp reconstruct {task}`")
        spdx = card.license.spdx or card.license.name
        path = f"reference/{task}.jsonl"
        items = _count_lines(source)
        parts.copies[path] = source
        parts.included_cards.append(card)
        parts.configs.append(ConfigEntry(task, "reference", card.layer, path, items, spdx, card.title))
        parts.reference[task] = {"file": path, "layer": card.layer, "items": items, "sha256": found,
                                 "license": spdx, "label_source": card.label_source}


def _release_manifest(folder: Path, parts: _Parts) -> dict[str, Any]:
    files = {rel: file_entry(folder / rel) for rel in release_files(folder) if rel != MANIFEST_NAME}
    return {
        "dataset": DATASET_NAME,
        "release": BENCHMARK_VERSION,
        "digest": digest(files),
        "core": parts.core,
        INVARIANCE: parts.invariance,
        **({SCALE: parts.scale} if parts.scale is not None else {}),
        "reference": parts.reference,
        "reconstruct_only": dict(parts.reconstruct_only),
        "missing": parts.missing,
        "files": files,
    }


def _is_replaceable(folder: Path) -> bool:
    """A folder we may replace: absent, empty, or an earlier release/download (has our manifest)."""
    if not folder.exists():
        return True
    if not folder.is_dir():
        return False
    if not any(folder.iterdir()):
        return True
    try:
        return read_manifest_file(folder / MANIFEST_NAME).get("dataset") == DATASET_NAME
    except DecisionPivotError:
        return False


def _staging(out_dir: Path, what: str) -> Path:
    if not _is_replaceable(out_dir):
        raise DecisionPivotError(f"{out_dir} exists and is not a {DATASET_NAME} release folder; "
                                 "choose an empty or new folder with --out")
    staging = out_dir.parent / f".{out_dir.name}.{what}-tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def _swap_in(staging: Path, out_dir: Path) -> None:
    """Replace ``out_dir`` by ``staging`` (a reader sees the old or the new folder, never a mix)."""
    old = out_dir.parent / f".{out_dir.name}.old-tmp"
    shutil.rmtree(old, ignore_errors=True)
    if out_dir.exists():
        out_dir.rename(old)
    staging.rename(out_dir)
    shutil.rmtree(old, ignore_errors=True)


def build_release(core_dir: str | Path, reference_dir: str | Path | None, out_dir: str | Path,
                  cards: dict[str, TaskCard] | None = None, *, invariance_dir: str | Path | None,
                  scale_dir: str | Path | None = None, scale_invariance_dir: str | Path | None = None) -> ReleaseBuild:
    """Build the Hugging Face dataset folder (see the module docstring); returns its manifest and notes.

    ``invariance_dir``: the invariance suite folder (``datasets/invariance/<version>``); None leaves the suite
    out (said in the notes and the card). ``scale_dir`` and ``scale_invariance_dir``: the scale suite and its
    framings (``datasets/scale/<version>``, ``datasets/scale-invariance/<version>``); None leaves them out (a release
    without them has no ``scale`` section, and its card does not mention them).
    """
    core_dir, out_dir = Path(core_dir), Path(out_dir)
    reference_dir = None if reference_dir is None else Path(reference_dir)
    parts = _Parts()
    _collect_core(core_dir, parts)
    _collect_invariance(None if invariance_dir is None else Path(invariance_dir), core_dir, parts)
    if scale_dir is not None:
        _collect_scale(Path(scale_dir), None if scale_invariance_dir is None else Path(scale_invariance_dir), parts)
    _collect_reference(reference_dir, all_cards() if cards is None else cards, parts)
    names = [c.name for c in parts.configs]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise DecisionPivotError(f"config names used twice (core family, suite family or reference task): "
                                 f"{', '.join(clashes)}")
    staging = _staging(out_dir, "build")
    try:
        for rel, source in parts.copies.items():
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, staging / rel)
        counts = {task: entry["items"] for task, entry in parts.reference.items()}
        for rel, text in licence_files(parts.included_cards, counts).items():
            atomic_write_bytes(staging / rel, text.encode("utf-8"))
        card = dataset_card(parts.configs, parts.reconstruct_only, parts.missing, BENCHMARK_VERSION,
                            parts.invariance, parts.scale)
        atomic_write_bytes(staging / "README.md", card.encode("utf-8"))
        manifest = _release_manifest(staging, parts)
        atomic_write_bytes(staging / MANIFEST_NAME, manifest_bytes(manifest))
        _swap_in(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return ReleaseBuild(out_dir, manifest, tuple(parts.notes))


# ------------------------------------------------------------------------------------ hub errors


def resolve_endpoint(endpoint: str | None) -> str | None:
    """``--endpoint``, else ``HF_ENDPOINT`` read now (huggingface_hub reads it only when first imported)."""
    value = endpoint or os.environ.get("HF_ENDPOINT")
    return value.rstrip("/") if value else None


def _endpoint_url(endpoint: str | None) -> str:
    from huggingface_hub import constants

    return endpoint or constants.ENDPOINT


def token_source(token: str | None = None) -> str:
    """Where the token comes from, in words (never the token itself)."""
    if token:
        return "the token passed by the caller"
    if os.environ.get("HF_TOKEN"):
        return "the token in HF_TOKEN"
    from huggingface_hub import get_token

    return "your saved login (`hf auth login`)" if get_token() else "no token (you are not logged in)"


def gated_message(repo_id: str, endpoint: str | None, token: str | None = None) -> str:
    """Plain-words explanation of a gated/no-access answer: what to do, and the access conditions."""
    page = f"{_endpoint_url(endpoint)}/datasets/{repo_id}"
    conditions = "".join(f"\n    - {c}" for c in ACCESS_CONDITIONS)
    return (f"{repo_id} is a gated dataset and the hub did not grant access with {token_source(token)}.\n"
            f"  1. Open {page} while logged in and request access; the maintainers approve requests by hand.\n"
            f"     Requesting access means accepting the access conditions:{conditions}\n"
            "  2. Make a token of that account available: run `hf auth login`, or set HF_TOKEN to a read token\n"
            f"     (create one at {_endpoint_url(endpoint)}/settings/tokens).\n"
            "  3. Once access is granted, run this command again.")


_REPO_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._\-]{0,94}[A-Za-z0-9])?")


def validate_repo_id(repo_id: str) -> str:
    """``repo_id`` if it is a dataset id ORG/NAME as the hub spells them, else a DecisionPivotError saying why.

    Each part: letters, digits, ``-``, ``_``, ``.``; starts and ends with a letter or digit; no ``--``
    or ``..``; at most 96 characters.
    """
    parts = repo_id.split("/")
    if len(parts) != 2 or not all(_REPO_PART.fullmatch(p) and "--" not in p and ".." not in p for p in parts):
        shown = repr(repo_id) if len(repo_id) <= 60 else repr(repo_id[:57]) + "..."
        raise DecisionPivotError(f"{shown} is not a dataset repository id: expected ORG/NAME (two parts of letters, "
                                 "digits, '-', '_', '.', each starting and ending with a letter or digit)")
    return repo_id


def _server_message(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    if response is None:
        return ""
    return response.headers.get("X-Error-Message") or ""


def explain_hub_error(exc: Exception, repo_id: str, endpoint: str | None, token: str | None = None,
                      action: str = "download") -> DecisionPivotError:
    """Turn a huggingface_hub exception into a user-facing error (no traceback, no token, no secret).

    The hub's answer and the exception text may echo request headers (``authorization: Bearer hf_...``)
    or URLs with keys; every message goes through :func:`decisionpivot.redact.redact`.
    """
    error = _explain_hub_error(exc, repo_id, endpoint, token, action)
    return DecisionPivotError(redact(str(error) if token is None else str(error).replace(token, "[REDACTED]")))


def _explain_hub_error(exc: Exception, repo_id: str, endpoint: str | None, token: str | None,
                       action: str) -> DecisionPivotError:
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    url = _endpoint_url(endpoint)
    if isinstance(exc, GatedRepoError):
        return DecisionPivotError(gated_message(repo_id, endpoint, token))
    if isinstance(exc, RevisionNotFoundError):
        return DecisionPivotError(f"{repo_id} has no such revision at {url} ({_server_message(exc) or exc})")
    if isinstance(exc, RepositoryNotFoundError):
        return DecisionPivotError(
            f"{repo_id} was not found at {url}, or it is private and {token_source(token)} has no access. "
            "Check the id; log in with `hf auth login` or set HF_TOKEN to a token of an account with access.")
    if isinstance(exc, HfHubHTTPError) and exc.response is not None:
        status = exc.response.status_code
        if status in (401, 403):
            need = "write access to the organisation" if action == "upload" else "access to the dataset"
            return DecisionPivotError(
                f"the hub refused the {action} of {repo_id} ({status}: {_server_message(exc) or 'not allowed'}); "
                f"{token_source(token)} needs {need}. Log in with `hf auth login` or set HF_TOKEN.")
        return DecisionPivotError(f"the hub at {url} answered {status} during the {action} of {repo_id}: "
                                  f"{_server_message(exc) or exc}")
    return DecisionPivotError(f"could not complete the {action} of {repo_id} with the hub at {url} "
                              f"({type(exc).__name__}: {exc}); check the network connection, HF_ENDPOINT / "
                              "--endpoint, proxy settings and the local cache folder")


def _hub_errors() -> tuple[type[BaseException], ...]:
    """Exceptions of huggingface_hub and of whichever HTTP client the installed version uses."""
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    errors: list[type[BaseException]] = [HfHubHTTPError, LocalEntryNotFoundError, OSError]
    for module, name in (("httpx2", "HTTPError"), ("httpx", "HTTPError"), ("requests", "RequestException")):
        try:
            errors.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(errors)


# -------------------------------------------------------------------------------------------- upload


@dataclass(frozen=True)
class UploadResult:
    """What ``upload_release`` did."""

    repo_id: str
    commit: str
    url: str
    files: int


def git_blob_sha1(path: Path) -> str:
    """The git object id of a file (what the hub reports for files stored in git, not LFS)."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _remote_mismatches(folder: Path, remote: Iterable[Any]) -> list[str]:
    """Files whose remote hash (LFS SHA-256 or git blob id) differs from the local file, or missing remotely."""
    found = {f.path: f for f in remote if hasattr(f, "blob_id")}
    problems = []
    for rel in release_files(folder):
        entry = found.get(rel)
        if entry is None:
            problems.append(f"{rel}: not in the uploaded commit")
        elif entry.lfs is not None and entry.lfs.sha256 != sha256_file(folder / rel):
            problems.append(f"{rel}: remote SHA-256 {entry.lfs.sha256} differs from the local file")
        elif entry.lfs is None and entry.blob_id != git_blob_sha1(folder / rel):
            problems.append(f"{rel}: remote git id {entry.blob_id} differs from the local file")
    return problems


def upload_release(folder: str | Path, repo_id: str, *, private: bool = False, endpoint: str | None = None,
                   token: str | None = None) -> UploadResult:
    """Create the dataset repository if needed, upload the release folder, check it, and gate it."""
    from huggingface_hub import HfApi, get_token

    validate_repo_id(repo_id)
    folder, endpoint = Path(folder), resolve_endpoint(endpoint)
    manifest = read_manifest_file(folder / MANIFEST_NAME)
    if not token and not get_token():
        raise DecisionPivotError("no Hugging Face token: run `hf auth login` with a token that has write access, "
                                 "or set HF_TOKEN")
    api = HfApi(endpoint=endpoint, token=token)
    try:
        api.create_repo(repo_id, repo_type=REPO_TYPE, private=private, exist_ok=True)
        info = api.upload_folder(repo_id=repo_id, repo_type=REPO_TYPE, folder_path=folder, delete_patterns="*",
                                 commit_message=f"{DATASET_NAME} release {manifest['release']}",
                                 commit_description=f"content digest {manifest['digest']}")
        remote = list(api.list_repo_tree(repo_id, recursive=True, revision=info.oid, repo_type=REPO_TYPE))
        problems = _remote_mismatches(folder, remote)
        if problems:
            raise DecisionPivotError(f"the upload of {repo_id} does not match the release folder:\n  "
                                     + "\n  ".join(problems[:SHOW_AT_MOST]))
        api.update_repo_settings(repo_id, repo_type=REPO_TYPE, gated=GATING)
    except _hub_errors() as exc:
        raise explain_hub_error(exc, repo_id, endpoint, token, action="upload") from None
    return UploadResult(repo_id, info.oid, f"{_endpoint_url(endpoint)}/datasets/{repo_id}",
                        len(manifest["files"]) + 1)


# ------------------------------------------------------------------------------------------ download


@dataclass(frozen=True)
class Verification:
    """A downloaded folder compared with the package's expected manifest."""

    checked: int
    """Files compared."""
    mismatches: tuple[tuple[str, str, str], ...]
    """(path, expected SHA-256, found SHA-256)."""
    missing: tuple[str, ...]
    """Files the expected manifest lists that the download lacks."""
    unexpected: tuple[str, ...]
    """Downloaded files the expected manifest does not list."""
    covered: bool
    """The downloaded MANIFEST.json describes the release the package's manifest describes."""
    remote: dict[str, Any] | None
    """The downloaded MANIFEST.json, if readable."""

    @property
    def ok(self) -> bool:
        return self.covered and not (self.mismatches or self.missing or self.unexpected)

    def problems(self) -> list[str]:
        """Each difference as one line naming the file (and both hashes)."""
        lines = [f"{p}: expected SHA-256 {e} (package manifest), found {f}" for p, e, f in self.mismatches]
        lines += [f"{p}: listed in the package manifest but not in the download" for p in self.missing]
        lines += [f"{p}: in the download but not in the package manifest" for p in self.unexpected]
        return lines


def _read_remote_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        return read_manifest_file(folder / MANIFEST_NAME)
    except DecisionPivotError:
        return None


def verify_folder(folder: str | Path, expected: dict[str, Any]) -> Verification:
    """Compare every file of a downloaded release with ``expected`` (a release manifest)."""
    folder = Path(folder)
    wanted = {rel: entry["sha256"] for rel, entry in expected["files"].items()}
    wanted[MANIFEST_NAME] = hashlib.sha256(manifest_bytes(expected)).hexdigest()
    present = release_files(folder)
    mismatches = []
    for rel in present:
        if rel in wanted:
            found = sha256_file(folder / rel)
            if found != wanted[rel]:
                mismatches.append((rel, wanted[rel], found))
    remote = _read_remote_manifest(folder)
    covered = remote is not None and digest(remote["files"]) == expected["digest"]
    return Verification(
        checked=sum(1 for rel in present if rel in wanted),
        mismatches=tuple(mismatches),
        missing=tuple(sorted(set(wanted) - set(present))),
        unexpected=tuple(rel for rel in present if rel not in wanted),
        covered=covered,
        remote=remote,
    )


def _self_consistent(folder: Path, remote: dict[str, Any]) -> bool:
    """Whether the downloaded files agree with the downloaded manifest (not an independent check)."""
    present = set(release_files(folder)) - {MANIFEST_NAME}
    if present != set(remote["files"]):
        return False
    return all(sha256_file(folder / rel) == entry["sha256"] for rel, entry in remote["files"].items())


@dataclass(frozen=True)
class DownloadResult:
    """A verified download."""

    folder: Path
    commit: str
    files: int
    covered: bool
    """Verified against the package's manifest (False: only against the revision's own manifest)."""
    release: str
    digest: str


def _listing(lines: list[str]) -> str:
    shown = "\n  ".join(lines[:SHOW_AT_MOST])
    more = f"\n  ... and {len(lines) - SHOW_AT_MOST} more" if len(lines) > SHOW_AT_MOST else ""
    return f"\n  {shown}{more}" if lines else ""


def _uncovered_message(repo_id: str, commit: str, expected: dict[str, Any] | None, check: Verification,
                       consistent: bool, out_dir: Path) -> str:
    remote = check.remote or {}
    holds = (f"holds release {remote.get('release', '?')} (content digest {str(remote.get('digest', '?'))[:16]})"
             if check.remote else "has no readable MANIFEST.json")
    knows = (f"verifies release {expected['release']} (content digest {expected['digest'][:16]})"
             if expected else "ships no release manifest")
    agree = ("Its files agree with its own MANIFEST.json, but that is not an independent check."
             if consistent else "Its files do not even agree with its own MANIFEST.json.")
    return (f"revision {commit} of {repo_id} {holds}; this decisionpivot {__version__} {knows}, so the package "
            f"manifest does not cover this revision. {agree} Differences from the package manifest:"
            f"{_listing(check.problems())}\nNothing was written to {out_dir}. Install the decisionpivot version "
            "made for this release, or download the revision this package covers with --revision; "
            "--allow-uncovered accepts the revision's own manifest instead.")


def _fetch_snapshot(repo_id: str, revision: str | None, endpoint: str | None, token: str | None,
                    cache_dir: str | Path | None) -> Path:
    from huggingface_hub import snapshot_download

    try:
        path = snapshot_download(repo_id, repo_type=REPO_TYPE, revision=revision, endpoint=endpoint, token=token,
                                 cache_dir=cache_dir)
    except _hub_errors() as exc:
        raise explain_hub_error(exc, repo_id, endpoint, token) from None
    return Path(path)


def _copy_verified(snapshot: Path, out_dir: Path) -> int:
    staging = _staging(out_dir, "download")
    try:
        files = release_files(snapshot)
        for rel in files:
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(snapshot / rel, staging / rel)
        _swap_in(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(files)


def download_release(repo_id: str, out_dir: str | Path, *, revision: str | None = None,
                     endpoint: str | None = None, token: str | None = None, cache_dir: str | Path | None = None,
                     allow_uncovered: bool = False, expected: dict[str, Any] | None = None) -> DownloadResult:
    """Fetch a revision of the dataset, verify every SHA-256 against the package manifest, then write ``out_dir``.

    ``expected`` defaults to the manifest shipped with the package. On any difference nothing is
    written and the error names each file with the expected and the found hash.
    """
    validate_repo_id(repo_id)
    out_dir, endpoint = Path(out_dir), resolve_endpoint(endpoint)
    expected = expected if expected is not None else expected_manifest()
    snapshot = _fetch_snapshot(repo_id, revision, endpoint, token, cache_dir)
    commit = snapshot.name
    check = verify_folder(snapshot, expected) if expected else Verification(0, (), (), (), False,
                                                                            _read_remote_manifest(snapshot))
    if check.ok:
        files = _copy_verified(snapshot, out_dir)
        return DownloadResult(out_dir, commit, files, True, expected["release"], expected["digest"])
    if check.covered:
        raise DecisionPivotError(f"revision {commit} of {repo_id} does not match the package manifest of release "
                                 f"{expected['release']} (tampered or corrupted):{_listing(check.problems())}\n"
                                 f"Nothing was written to {out_dir}.")
    consistent = check.remote is not None and _self_consistent(snapshot, check.remote)
    if not (allow_uncovered and consistent):
        raise DecisionPivotError(_uncovered_message(repo_id, commit, expected, check, consistent, out_dir))
    assert check.remote is not None
    files = _copy_verified(snapshot, out_dir)
    return DownloadResult(out_dir, commit, files, False, str(check.remote.get("release")), check.remote["digest"])
