"""goal_check (layer D): after these operations, are all goal conditions satisfied?

Story. An agent worked on a small file store from one of five settings (a research lab's data
folder, a shop's invoices, a school's grade sheets, a clinic's records archive, a software
repository's docs). The state shows the store at the start (folders, and every file with its lines),
the exact semantics of the seven operations (create, write, append, copy, move, delete, make-folder; a
step that fails changes nothing, e.g. copying a missing file), a goal of 3, 5 or 7 conditions
(a file exists, no file at a path, a file has / has no line reading exactly some text, a folder
holds exactly N files), and the numbered trace of operations the agent ran. The reader must
simulate the trace.

Groups. The trace is sampled at random over the store (some steps fail by the semantics, in both
members); the positive member's goal is drawn from facts true after its trace. The negative
member changes a single step so that exactly one goal condition fails, while every other condition
holds in both members:

* ``wrong_target``: one path argument of a step is another path of the store (``trace/i/a`` or
  ``trace/i/b``);
* ``wrong_content``: the text a step writes is another text of the same kind (``trace/i/text``);
* ``swapped``: two nearby steps are exchanged, so the pair differs in two trace positions
  (decisive paths ``trace/i`` and ``trace/j``);
* ``replaced``: a step's operation is replaced by another with the same arguments (copy/move,
  create/write/append) (``trace/i/op``).

Every trace also holds steps that touch no goal path (distractors), shared by both members. The
surface checks "every goal path is mentioned in the store or the trace" and "every goal text is
mentioned" give the same answer on both members of every pair (0.5 by construction), and every
positive trace contains at least one failing step, so "a step fails, so no" stays at chance.

Levels: traces of 5, 15 and 25 steps with 3, 5 and 7 goal conditions over stores of about 6, 11
and 15 files. 300 pairs, 75 of each variation type (25 per level). ``variation`` is set on the
negative member.

Version history:
* 1.0 - first release.
* 1.1 - one failing goal condition per negative, equalised mention heuristics, failing steps in
  every positive trace.
* 1.2 - text revision for core 1.2: the folder-making operation is written "make-folder F" (was
  "mkdir F", not a word; the case still keys it "mkdir" and the solver reads both), the docs folder
  "docs/api" is "docs/reference", the counting rule says "folders inside it" instead of
  "subfolders", and grade sheets are "maths_*" (British). The sampling rules are unchanged; in the
  repo_docs setting "docs/reference" sorts after "docs/guides" (where "docs/api" sorted before it), so
  draws over sorted paths, and with them those items' stores and traces, differ from 1.1.
* 1.3 - core 1.3 (issue #38), text a careful person would have written: names read like names of the
  case's region and kind (``common/names.py``: "Sanne Bakker", "Bakker Freight", "Vejle"; 1.2 wrote
  random syllables), each chosen by the draws its 1.2 name took; files, instruments and products are named as
  their settings name them (``PROTOCOLS``, ``INSTRUMENTS``, ``DOC_TOPICS``, ``PRODUCTS``: "staining_protocol.md",
  "centrifuge 3", "troubleshooting.md", "applies to: Relay 2.7"; 1.2: "kvoulk_protocol.md"). The text speaks
  of files, not of "the store": "Files before the agent started:" (1.2: "Store at the start:"), "An agent was
  given a goal for ..." (1.2: "asked to bring ... into a goal state"); the solver and the heuristics read both
  headings. Paths sort differently with the new names, so 510 of 600 ids keep group, variation and answer.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from decisionpivot.generate.common.names import NameForge
from decisionpivot.generate.common.wording import pick
from decisionpivot.generate.family import FamilyConfig, FamilySpec, Group, GroupPlan, Member, yes_no
from decisionpivot.generate.registry import register
from decisionpivot.items import Item, Option

NAME = "goal_check"
VERSION = "1.3"
QUESTION = "After these operations, are all goal conditions satisfied?"
OPTIONS = (
    Option("yes", "after the trace every goal condition holds"),
    Option("no", "after the trace at least one goal condition does not hold"),
)
VARIATIONS = ("wrong_target", "wrong_content", "swapped", "replaced")
OPS = ("create", "write", "append", "copy", "move", "delete", "mkdir")
TWO_PATH = ("copy", "move")
WITH_TEXT = ("create", "write", "append")
COMMAND = {"mkdir": "make-folder"}
"""How the command form writes an operation whose internal key is not a word (the case keeps "mkdir")."""
OP_WEIGHTS = {"create": 2, "write": 4, "append": 4, "copy": 4, "move": 3, "delete": 2, "mkdir": 1}


# --- domains ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoreDomain:
    """One of the five settings: folder names, file-name makers and line makers."""

    key: str
    """Value of the item's ``domain`` field."""
    setting: str
    """How the intro names the store."""
    folders: tuple[str, ...]
    """Folder paths the store may have (parents listed before children)."""
    files: Callable[[random.Random, NameForge], str]
    """Makes one file name (no folder)."""
    lines: tuple[tuple[str, Callable[[random.Random, NameForge], str]], ...]
    """(key, value maker) pairs; a line reads ``key: value``."""


def _status(*values: str) -> Callable[[random.Random, NameForge], str]:
    return lambda rng, forge: pick(rng, values)


PROTOCOLS = ("extraction", "staining", "calibration", "dilution", "sampling", "cleaning", "storage", "shipping")
"""What a lab writes protocols for (1.2: "kvoulk_protocol.md"; 1.3's first names read "cedar_protocol.md")."""
INSTRUMENTS = ("centrifuge", "incubator", "microscope", "spectrometer", "balance", "freezer", "shaker")
"""A lab's instruments, numbered ("centrifuge 3")."""
DOC_TOPICS = ("configuration", "troubleshooting", "quickstart", "deployment", "upgrading", "security", "glossary",
              "architecture", "logging", "backups")
"""Topics of a repository's documentation pages."""
PRODUCTS = ("Relay", "Ledger", "Beacon", "Harbour", "Compass", "Lantern", "Atrium", "Keystone")
"""The products a repository documents ("applies to: Relay 2.7")."""


def _person(rng: random.Random, forge: NameForge) -> str:
    return forge.person()


DOMAINS: tuple[StoreDomain, ...] = (
    StoreDomain(
        "lab_data",
        "the shared data folder of a research lab",
        ("raw", "raw/batch_a", "processed", "notes", "archive", "plots"),
        lambda rng, f: pick(
            rng,
            (
                f"run_{rng.randrange(1, 200):03d}.csv",
                f"calib_{rng.randrange(1, 40):02d}.txt",
                f"sample_{pick(rng, 'ABCDEFG')}{rng.randrange(1, 30)}.dat",
                f"{f.term(PROTOCOLS)}_protocol.md",
            ),
        ),
        (
            ("status", _status("raw", "cleaned", "validated", "flagged")),
            ("operator", _person),
            ("sample", lambda rng, f: f"S-{rng.randrange(10, 99)}"),
            ("instrument", lambda rng, f: f"{f.term(INSTRUMENTS)} {rng.randrange(2, 9)}"),
        ),
    ),
    StoreDomain(
        "shop_invoices",
        "the invoice folders of a small shop",
        ("invoices", "invoices/open", "invoices/paid", "drafts", "credit_notes", "export"),
        lambda rng, f: pick(
            rng,
            (
                f"INV-{rng.randrange(1000, 1400)}.txt",
                f"CN-{rng.randrange(100, 160)}.txt",
                f"quote_{rng.randrange(10, 99)}.txt",
            ),
        ),
        (
            ("status", _status("open", "paid", "void", "overdue")),
            ("customer", lambda rng, f: f.organisation()),
            ("amount", lambda rng, f: f"{rng.randrange(20, 900)}.{rng.randrange(0, 100):02d} SEK"),
            ("due", lambda rng, f: f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"),
        ),
    ),
    StoreDomain(
        "school_grades",
        "the grade sheets of a school",
        ("term1", "term2", "final", "drafts", "archive", "archive/old"),
        lambda rng, f: pick(
            rng,
            (
                f"grades_{rng.randrange(5, 10)}{pick(rng, 'abc')}.txt",
                f"{pick(rng, ('maths', 'history', 'biology', 'art', 'music'))}_"
                f"{rng.randrange(5, 10)}{pick(rng, 'abc')}.txt",
            ),
        ),
        (
            ("status", _status("draft", "checked", "approved", "published")),
            ("teacher", _person),
            ("grade", lambda rng, f: f"{f.given_name()} {pick(rng, ('A', 'B', 'C', 'D', 'B+', 'C+'))}"),
            ("term", _status("autumn", "spring", "summer")),
        ),
    ),
    StoreDomain(
        "clinic_records",
        "the records archive of a clinic",
        ("intake", "records", "records/active", "records/closed", "archive", "outbox"),
        lambda rng, f: pick(
            rng,
            (
                f"patient_{rng.randrange(100, 999):05d}.rec",
                f"referral_{rng.randrange(10, 99)}.txt",
                f"lab_{rng.randrange(100, 400)}.txt",
            ),
        ),
        (
            ("status", _status("active", "closed", "pending", "transferred")),
            ("clinician", _person),
            ("ward", lambda rng, f: str(rng.randrange(1, 12))),
            ("code", lambda rng, f: f"K{rng.randrange(10, 99)}.{rng.randrange(0, 9)}"),
        ),
    ),
    StoreDomain(
        "repo_docs",
        "the documentation folders of a software repository",
        ("docs", "docs/reference", "docs/guides", "drafts", "old", "site"),
        lambda rng, f: pick(
            rng,
            (
                "install.md",
                "usage.md",
                "faq.md",
                "changelog.md",
                f"{f.term(DOC_TOPICS)}.md",
                f"release_{rng.randrange(1, 5)}.{rng.randrange(0, 12)}.md",
            ),
        ),
        (
            ("status", _status("draft", "review", "published", "retired")),
            ("owner", _person),
            ("version", lambda rng, f: f"{rng.randrange(1, 5)}.{rng.randrange(0, 12)}.{rng.randrange(0, 9)}"),
            ("applies to", lambda rng, f: f"{f.term(PRODUCTS)} {rng.randrange(1, 5)}.{rng.randrange(0, 9)}"),
        ),
    ),
)
DOMAIN_BY_KEY = {d.key: d for d in DOMAINS}
NAME_DOMAIN = {"lab_data": "healthcare", "shop_invoices": "retail", "school_grades": "education",
               "clinic_records": "healthcare", "repo_docs": "software"}
"""Store -> the domain whose region and businesses its names come from (``common/names.py``)."""

# --- wording ------------------------------------------------------------------------------------

START_HEADING = "Files before the agent started:"
"""Heading of the files as they were (1.2: "Store at the start:", the benchmark's word for them)."""

INTRO = (
    "An agent tidied {setting}. Below: the files before it started, how its operations work, the goal "
    "it was given and the steps it ran.",
    "Operation trace for {setting}: the files before the agent started, what each operation does, the goal "
    "and the numbered steps the agent ran.",
    "An agent was given a goal for {setting}. The files as they were, how the operations work, the goal "
    "and the steps the agent ran follow.",
)
SEMANTICS = {
    "general": (
        "Steps run in order. A step that fails changes nothing, and the agent goes on with the next step.",
        "The steps are executed one after another; a failing step leaves the files exactly as they were and "
        "the trace continues.",
    ),
    "paths": (
        "A path's folder is everything before its last slash. Paths are exact: a path that differs in any "
        "character is another path.",
        "The folder of a path is the part before the last '/'. Two paths are the same only if they are "
        "identical character for character.",
    ),
    "create": (
        'create P "T": makes a new file P whose only line is T. Fails if P already exists or the folder of P '
        "does not exist.",
        'create P "T": a new file P is made with the single line T; it fails when a file P is already there '
        "or P's folder is missing.",
    ),
    "write": (
        'write P "T": replaces the whole content of P by the single line T; a missing P is created. Fails if '
        "the folder of P does not exist.",
        'write P "T": P ends up holding exactly one line, T (old lines are dropped; P is created if needed). '
        "Fails when P's folder is missing.",
    ),
    "append": (
        'append P "T": adds T as a new last line of P. Fails if P does not exist.',
        'append P "T": T becomes the new last line of P; it fails when there is no file P.',
    ),
    "copy": (
        "copy A B: B becomes a file with the same lines as A; an existing B is overwritten and A is "
        "unchanged. Fails if A does not exist or the folder of B does not exist.",
        "copy A B: a copy of A is written to B (replacing any file B); A stays. It fails when A is missing "
        "or B's folder is missing.",
    ),
    "move": (
        "move A B: A is renamed to B, overwriting any existing B; afterwards there is no file A. Fails if A "
        "does not exist or the folder of B does not exist.",
        "move A B: the file A goes to B (an existing B is replaced) and A is gone. It fails when A is "
        "missing or B's folder is missing.",
    ),
    "delete": (
        "delete P: removes the file P; if there is no file P, nothing happens.",
        "delete P: the file P is removed; deleting a file that does not exist does nothing.",
    ),
    "mkdir": (
        "make-folder F: creates the folder F and any missing parent folders; nothing happens if F exists.",
        "make-folder F: makes folder F (with missing parents); an existing folder is left as it is.",
    ),
    "count": (
        "A folder holds the files directly in it; files in the folders inside it are not counted.",
        "Counting a folder's files counts only files directly inside it, not those in folders below it.",
    ),
}
GOAL_WORDING = {
    "exists": ("A file exists at {p}.", "{p} exists."),
    "absent": ("There is no file at {p}.", "{p} does not exist."),
    "line": ('{p} has a line reading exactly "{t}".', '{p} exists and one of its lines is "{t}".'),
    "noline": ('{p} exists and has no line reading "{t}".', '{p} exists but none of its lines is "{t}".'),
    "count": ("Folder {p}/ holds exactly {nf}.", "The number of files directly in {p}/ is {n}."),
}
STORE_STYLES = ("flat", "folders")
TRACE_STYLES = ("command", "prose")


@dataclass(frozen=True)
class GoalCheckConfig(FamilyConfig):
    """Sizes per level."""

    steps: tuple[int, int, int] = (5, 15, 25)
    """Trace steps at levels 1, 2, 3."""
    conditions: tuple[int, int, int] = (3, 5, 7)
    """Goal conditions at levels 1, 2, 3."""
    files: tuple[tuple[int, int], ...] = ((5, 7), (9, 12), (13, 16))
    """Files in the store at the start, per level (inclusive range)."""
    folders: tuple[tuple[int, int], ...] = ((3, 4), (4, 5), (5, 6))
    """Folders in the store at the start, per level (inclusive range; at most 6)."""
    distractors: tuple[int, int, int] = (1, 3, 5)
    """Least number of steps that touch no goal path, per level."""

    def validate(self) -> None:
        super().validate()
        if self.items_per_level % 2:
            raise ValueError("items_per_level must be even (the family is built from pairs)")
        if (self.items_per_level // 2) % len(VARIATIONS):
            raise ValueError(f"pairs per level must split evenly over {len(VARIATIONS)} variation types")
        for label, values in (
            ("steps", self.steps),
            ("conditions", self.conditions),
            ("distractors", self.distractors),
            ("files", self.files),
            ("folders", self.folders),
        ):
            if len(values) != 3:
                raise ValueError(f"{label} needs one value per level, got {values}")
        for steps, conditions, distractors in zip(self.steps, self.conditions, self.distractors, strict=True):
            if steps < 4:
                raise ValueError(f"a trace of {steps} steps is too short for a swap and distractors")
            if conditions < 2:
                raise ValueError("a goal needs at least 2 conditions")
            if distractors < 1 or distractors > steps - 2:
                raise ValueError(f"{distractors} distractor steps do not fit a trace of {steps} steps")
        for low, high in (*self.files, *self.folders):
            if low < 2 or low > high:
                raise ValueError(f"file and folder ranges need 2 <= low <= high, got ({low}, {high})")
        if max(high for _, high in self.folders) > 6:
            raise ValueError("a store has at most 6 folders")


# --- simulation and answer ----------------------------------------------------------------------


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def simulate(case: dict[str, Any]) -> tuple[set[str], dict[str, list[str]], list[int]]:
    """Folders, files (path -> lines) after the trace, and the indices of the steps that failed."""
    folders = set(case["folders"])
    files = {f["path"]: list(f["lines"]) for f in case["files"]}
    failed = []
    for i, step in enumerate(case["trace"]):
        op, a, b, text = step["op"], step["a"], step.get("b"), step.get("text")
        ok = True
        if op == "create":
            ok = a not in files and _folder(a) in folders
            if ok:
                files[a] = [text]
        elif op == "write":
            ok = _folder(a) in folders
            if ok:
                files[a] = [text]
        elif op == "append":
            ok = a in files
            if ok:
                files[a].append(text)
        elif op in TWO_PATH:
            ok = a in files and _folder(b) in folders
            if ok:
                files[b] = list(files[a]) if op == "copy" else files.pop(a)
        elif op == "delete":
            files.pop(a, None)
        elif op == "mkdir":
            parts = a.split("/")
            folders.update("/".join(parts[: k + 1]) for k in range(len(parts)))
        if not ok:
            failed.append(i)
    return folders, files, failed


def holds(condition: dict[str, Any], folders: set[str], files: dict[str, list[str]]) -> bool:
    kind, path = condition["kind"], condition["path"]
    if kind == "exists":
        return path in files
    if kind == "absent":
        return path not in files
    if kind == "line":
        return path in files and condition["text"] in files[path]
    if kind == "noline":
        return path in files and condition["text"] not in files[path]
    return sum(1 for p in files if _folder(p) == path) == condition["count"]


def failing_conditions(case: dict[str, Any]) -> list[int]:
    """Indices of the goal conditions that do not hold after the trace."""
    folders, files, _ = simulate(case)
    return [i for i, c in enumerate(case["goal"]) if not holds(c, folders, files)]


def answer(case: dict[str, Any]) -> str:
    """yes when every goal condition holds after the trace."""
    return "no" if failing_conditions(case) else "yes"


# --- case sampling ------------------------------------------------------------------------------


class _Retry(Exception):
    """The draw did not give a usable pair; draw again from the same stream."""


def _line(rng: random.Random, forge: NameForge, domain: StoreDomain, key: str | None = None) -> str:
    pairs = [p for p in domain.lines if key is None or p[0] == key]
    name, make = pick(rng, pairs)
    return f"{name}: {make(rng, forge)}"


def _initial_store(
    rng: random.Random, forge: NameForge, domain: StoreDomain, level: int, config: GoalCheckConfig
) -> tuple[list[str], list[dict[str, Any]]]:
    li = level - 1
    n_folders = rng.randint(*config.folders[li])
    chosen = sorted(rng.sample(domain.folders, n_folders))
    folders = sorted({*chosen, *(_folder(f) for f in chosen if "/" in f)})
    files: dict[str, list[str]] = {}
    target = rng.randint(*config.files[li])
    tries = 0
    while len(files) < target:
        tries += 1
        if tries > 500:
            raise _Retry
        path = f"{pick(rng, folders)}/{domain.files(rng, forge)}"
        if path in files:
            continue
        keys = rng.sample([k for k, _ in domain.lines], rng.randint(1, 3))
        files[path] = [_line(rng, forge, domain, k) for k in keys]
    items = [{"path": p, "lines": lines} for p, lines in files.items()]
    items.sort(key=lambda f: f["path"])
    return folders, items


def _random_trace(
    rng: random.Random,
    forge: NameForge,
    domain: StoreDomain,
    folders: list[str],
    files: list[dict[str, Any]],
    n_steps: int,
    texts: list[str],
) -> list[dict[str, Any]]:
    """Steps over the store, simulated as they are drawn so most of them do something."""
    live_folders = set(folders)
    live = {f["path"]: list(f["lines"]) for f in files}
    known = [f["path"] for f in files]
    spare = [d for d in domain.folders if d not in live_folders and _folder(d) in ({""} | live_folders)]
    trace: list[dict[str, Any]] = []
    ops = [op for op in OPS for _ in range(OP_WEIGHTS[op])]

    def new_path() -> str:
        for _ in range(50):
            path = f"{pick(rng, sorted(live_folders))}/{domain.files(rng, forge)}"
            if path not in live:
                return path
        raise _Retry

    def text() -> str:
        if texts and rng.random() < 0.45:
            return pick(rng, texts)
        made = _line(rng, forge, domain)
        texts.append(made)
        return made

    fail_at = rng.randrange(n_steps)
    attempts = 0
    while len(trace) < n_steps:
        attempts += 1
        if attempts > 20 * n_steps:
            raise _Retry
        existing = sorted(live)
        step = (
            _failing_step(rng, live, live_folders, known, domain, forge, text)
            if len(trace) == fail_at
            else _plain_step(rng, pick(rng, ops), existing, known, live_folders, spare, new_path, text)
        )
        if step is None:
            continue
        # keep the running state up to date (same rules as simulate)
        mini = {
            "folders": sorted(live_folders),
            "files": [{"path": p, "lines": ls} for p, ls in live.items()],
            "trace": [step],
        }
        new_folders, new_live, failed = simulate(mini)
        if len(trace) == fail_at and not failed:
            continue
        trace.append(step)
        if step["op"] == "mkdir":
            spare.remove(step["a"])
        live_folders, live = new_folders, new_live
        for p in (step.get("a"), step.get("b")):
            if p and p not in known and step["op"] != "mkdir":
                known.append(p)
    return trace


def _plain_step(
    rng: random.Random,
    op: str,
    existing: list[str],
    known: list[str],
    live_folders: set[str],
    spare: list[str],
    new_path: Callable[[], str],
    text: Callable[[], str],
) -> dict[str, Any] | None:
    """One ordinary step (it may still fail, e.g. a copy of a file deleted earlier)."""
    if op == "mkdir":
        return {"op": op, "a": pick(rng, spare)} if spare else None
    if not existing:
        return None
    if op == "delete":
        return {"op": op, "a": pick(rng, existing) if rng.random() < 0.85 else pick(rng, known)}
    if op in TWO_PATH:
        src = pick(rng, existing) if rng.random() < 0.85 else pick(rng, known)
        roll = rng.random()
        if roll < 0.3 and len(existing) > 1:
            dst = pick(rng, [p for p in existing if p != src])
        elif roll < 0.65:
            dst = f"{pick(rng, sorted(live_folders))}/{src.rpartition('/')[2]}"
        else:
            dst = new_path()
        return None if dst == src else {"op": op, "a": src, "b": dst}
    if op == "create":
        path = new_path() if rng.random() < 0.8 else pick(rng, existing)
    else:
        path = pick(rng, existing) if rng.random() < 0.8 or op == "append" else new_path()
    return {"op": op, "a": path, "text": text()}


def _failing_step(
    rng: random.Random,
    live: dict[str, list[str]],
    live_folders: set[str],
    known: list[str],
    domain: StoreDomain,
    forge: NameForge,
    text: Callable[[], str],
) -> dict[str, Any] | None:
    """A step that fails by the semantics: a missing source, an existing create target, a missing folder."""
    missing = [p for p in known if p not in live]
    absent_folders = [f for f in domain.folders if f not in live_folders]
    kind = pick(rng, ("source", "source", "create", "folder"))
    if kind == "source":
        src = (
            pick(rng, missing)
            if missing and rng.random() < 0.7
            else f"{pick(rng, sorted(live_folders))}/{domain.files(rng, forge)}"
        )
        op = pick(rng, ("copy", "move", "append"))
        if op == "append":
            return {"op": op, "a": src, "text": text()}
        return {"op": op, "a": src, "b": f"{pick(rng, sorted(live_folders))}/{src.rpartition('/')[2]}"}
    if kind == "create" and live:
        return {"op": "create", "a": pick(rng, sorted(live)), "text": text()}
    if absent_folders:
        folder = pick(rng, absent_folders)
        if live and rng.random() < 0.5:
            return {
                "op": pick(rng, TWO_PATH),
                "a": pick(rng, sorted(live)),
                "b": f"{folder}/{domain.files(rng, forge)}",
            }
        return {
            "op": pick(rng, ("write", "create")),
            "a": f"{folder}/{domain.files(rng, forge)}",
            "text": text(),
        }
    return None


def _mentions(case: dict[str, Any]) -> tuple[set[str], set[str]]:
    """Paths and texts written anywhere in the store listing or the trace."""
    paths = {f["path"] for f in case["files"]} | set(case["folders"])
    texts = {line for f in case["files"] for line in f["lines"]}
    for step in case["trace"]:
        paths.update(p for p in (step.get("a"), step.get("b")) if p)
        if step.get("text"):
            texts.add(step["text"])
    return paths, texts


def _candidates(
    paths: set[str], texts: set[str], folders: set[str], files: dict[str, list[str]]
) -> list[dict[str, Any]]:
    """Goal conditions that are true in the end state (folders, files), over the mentioned paths and texts."""
    by_key: dict[str, list[str]] = {}
    for t in sorted(texts):
        by_key.setdefault(t.split(":")[0], []).append(t)
    out: list[dict[str, Any]] = []
    for path in sorted(files):
        lines = files[path]
        out.append({"kind": "exists", "path": path})
        out.extend({"kind": "line", "path": path, "text": t} for t in sorted(set(lines)))
        keys = sorted({x.split(":")[0] for x in lines})
        out.extend(
            {"kind": "noline", "path": path, "text": t}
            for key in keys
            for t in by_key.get(key, ())
            if t not in lines
        )
    out.extend({"kind": "absent", "path": p} for p in sorted(paths) if p not in files and p not in folders)
    counts: dict[str, int] = {}
    for p in files:
        counts[_folder(p)] = counts.get(_folder(p), 0) + 1
    out.extend({"kind": "count", "path": f, "count": counts.get(f, 0)} for f in sorted(folders))
    return out


def _touched(case: dict[str, Any]) -> set[str]:
    """Paths the trace names, and the folders of those paths."""
    paths = {p for s in case["trace"] for p in (s.get("a"), s.get("b")) if p}
    return paths | {_folder(p) for p in paths}


def _relevant(step: dict[str, Any], goal: list[dict[str, Any]]) -> bool:
    """Whether a step names a goal path, or a file in a folder whose count the goal states."""
    files = {c["path"] for c in goal if c["kind"] != "count"}
    folders = {c["path"] for c in goal if c["kind"] == "count"}
    return any(p in files or _folder(p) in folders for p in (step.get("a"), step.get("b")) if p)


def _mutations(
    rng: random.Random, case: dict[str, Any], variation: str, domain: StoreDomain, forge: NameForge
) -> list[tuple[list[dict[str, Any]], list[str]]]:
    """Candidate negative traces of the variation type, each with its decisive paths."""
    trace = case["trace"]
    paths, texts = _mentions(case)
    out: list[tuple[list[dict[str, Any]], list[str]]] = []
    for i, step in enumerate(trace):
        if variation == "wrong_target" and step["op"] != "mkdir":
            for slot in ("a", "b") if step["op"] in TWO_PATH else ("a",):
                pool = [
                    p
                    for p in sorted(paths)
                    if p != step[slot] and p not in set(case["folders"]) and "." in p.rpartition("/")[2]
                ]
                other = step.get("b" if slot == "a" else "a")
                pool = [p for p in pool if p != other]
                for p in rng.sample(pool, min(4, len(pool))):
                    out.append(([*trace[:i], {**step, slot: p}, *trace[i + 1 :]], [f"trace/{i}/{slot}"]))
        elif variation == "wrong_content" and step["op"] in WITH_TEXT:
            key = step["text"].split(":")[0]
            pool = sorted({t for t in texts if t.split(":")[0] == key and t != step["text"]})
            if len(pool) < 2:
                pool.append(_line(rng, forge, domain, key))
            for t in rng.sample(pool, min(3, len(pool))):
                if t != step["text"]:
                    out.append(([*trace[:i], {**step, "text": t}, *trace[i + 1 :]], [f"trace/{i}/text"]))
        elif variation == "replaced":
            family_ops = TWO_PATH if step["op"] in TWO_PATH else WITH_TEXT if step["op"] in WITH_TEXT else ()
            for op in family_ops:
                if op != step["op"]:
                    out.append(([*trace[:i], {**step, "op": op}, *trace[i + 1 :]], [f"trace/{i}/op"]))
        elif variation == "swapped":
            for j in range(i + 1, min(len(trace), i + 4)):
                if trace[j] != step:
                    swapped = list(trace)
                    swapped[i], swapped[j] = trace[j], step
                    out.append((swapped, [f"trace/{i}", f"trace/{j}"]))
    rng.shuffle(out)
    return out


def _try_group(
    rng: random.Random, plan: GroupPlan, config: GoalCheckConfig
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    level, li = plan.level, plan.level - 1
    domain = DOMAIN_BY_KEY[plan.params["domain"]]
    forge = NameForge(rng, NAME_DOMAIN[domain.key])
    folders, files = _initial_store(rng, forge, domain, level, config)
    texts = sorted({line for f in files for line in f["lines"]})
    trace = _random_trace(rng, forge, domain, folders, files, config.steps[li], texts)
    base: dict[str, Any] = {
        "domain": domain.key,
        "intro": pick(rng, INTRO).format(setting=domain.setting),
        "semantics": [pick(rng, SEMANTICS[k]) for k in SEMANTICS],
        "styles": {"store": pick(rng, STORE_STYLES), "trace": pick(rng, TRACE_STYLES)},
        "folders": folders,
        "files": files,
        "goal": [],
        "trace": trace,
    }
    pos_folders, pos_files, pos_failed = simulate(base)
    if not pos_failed:
        raise _Retry
    touched = _touched(base)
    pos_paths, pos_texts = _mentions(base)
    k = config.conditions[li]
    for neg_trace, decisive in _mutations(rng, base, plan.variation, domain, forge)[:12]:
        neg = {**base, "trace": neg_trace}
        neg_folders, neg_files, neg_failed = simulate(neg)
        if len(neg_failed) != len(pos_failed):
            continue  # as many failing steps in both members, so counting failures tells nothing
        # candidates come from both members' mentions, so the goal is shared; all hold in the positive
        neg_paths, neg_texts = _mentions(neg)
        unique = _candidates(pos_paths | neg_paths, pos_texts | neg_texts, pos_folders, pos_files)
        held = [holds(c, neg_folders, neg_files) for c in unique]
        flips = [c for c, h in zip(unique, held, strict=True) if not h and c["path"] in touched]
        stays = [c for c, h in zip(unique, held, strict=True) if h]
        if not flips:
            continue
        decisive_condition = pick(rng, flips)
        goal = _choose_goal(rng, decisive_condition, stays, touched, k)
        if goal is None:
            continue
        quiet = [s for s in trace if not _relevant(s, goal)]
        if len(quiet) < config.distractors[li]:
            continue
        wording = [rng.randrange(2) for _ in goal]
        goal = [{**c, "wording": w} for c, w in zip(goal, wording, strict=True)]
        pos_case = {**base, "goal": goal}
        neg_case = {**neg, "goal": goal}
        if _mention_check(pos_case) != _mention_check(neg_case):
            continue
        return pos_case, neg_case, decisive
    raise _Retry


def _choose_goal(
    rng: random.Random, decisive: dict[str, Any], stays: list[dict[str, Any]], touched: set[str], k: int
) -> list[dict[str, Any]] | None:
    """The decisive condition plus k-1 others that hold in both members, mostly on touched paths, at most
    one condition per path, and a mix of kinds."""
    used = {decisive["path"]}
    goal = [decisive]
    pool = [c for c in stays if c["path"] not in used]
    rng.shuffle(pool)
    pool.sort(key=lambda c: (c["path"] not in touched) and rng.random() < 0.8)
    kinds_used: dict[str, int] = {decisive["kind"]: 1}
    for c in pool:
        if len(goal) == k:
            break
        if c["path"] in used or kinds_used.get(c["kind"], 0) >= max(2, k // 2):
            continue
        goal.append(c)
        used.add(c["path"])
        kinds_used[c["kind"]] = kinds_used.get(c["kind"], 0) + 1
    if len(goal) < k:
        return None
    rng.shuffle(goal)
    return goal


def _mention_check(case: dict[str, Any]) -> tuple[bool, bool]:
    paths, texts = _mentions(case)
    return (
        all(c["path"] in paths for c in case["goal"]),
        all(c["text"] in texts for c in case["goal"] if c["kind"] in ("line", "noline")),
    )


# --- rendering ----------------------------------------------------------------------------------


def _quoted_lines(lines: list[str]) -> str:
    return ", ".join(f'"{line}"' for line in lines)


def _step_text(step: dict[str, Any], style: str) -> str:
    op, a, b, t = step["op"], step["a"], step.get("b"), step.get("text")
    if style == "command":
        if op in TWO_PATH:
            return f"{op} {a} {b}"
        if op in WITH_TEXT:
            return f'{op} {a} "{t}"'
        return f"{COMMAND.get(op, op)} {a}"
    if op == "copy":
        return f"Copy {a} to {b}."
    if op == "move":
        return f"Move {a} to {b}."
    if op == "create":
        return f'Create {a} with "{t}".'
    if op == "write":
        return f'Write "{t}" to {a}.'
    if op == "append":
        return f'Append "{t}" to {a}.'
    if op == "delete":
        return f"Delete {a}."
    return f"Make folder {a}."


def render(case: dict[str, Any]) -> str:
    lines = [case["intro"], "", START_HEADING]
    files = case["files"]
    if case["styles"]["store"] == "flat":
        lines += [f"- folder {f}/" for f in case["folders"]]
        lines += [f"- file {f['path']}: {_quoted_lines(f['lines'])}" for f in files]
    else:
        for folder in case["folders"]:
            inside = [f for f in files if _folder(f["path"]) == folder]
            if not inside:
                lines.append(f"{folder}/ (no files)")
                continue
            lines.append(f"{folder}/")
            lines += [f"  {f['path'].rpartition('/')[2]}: {_quoted_lines(f['lines'])}" for f in inside]
    lines += ["", "Operations:"]
    lines += [f"- {text}" for text in case["semantics"]]
    lines += ["", "Goal:"]
    for i, c in enumerate(case["goal"], start=1):
        template = GOAL_WORDING[c["kind"]][c["wording"]]
        n = c.get("count", 0)
        nf = f"{n} file{'' if n == 1 else 's'}"
        lines.append(f"G{i}. " + template.format(p=c["path"], t=c.get("text", ""), n=n, nf=nf))
    lines += ["", "Trace:"]
    lines += [f"{i}. {_step_text(s, case['styles']['trace'])}" for i, s in enumerate(case["trace"], start=1)]
    return "\n".join(lines)


# --- plan and contrast group --------------------------------------------------------------------


def plan(config: GoalCheckConfig) -> list[GroupPlan]:
    pairs = config.items_per_level // 2
    out = []
    for level in (1, 2, 3):
        for i in range(pairs):
            variation = VARIATIONS[i % len(VARIATIONS)]
            domain = DOMAINS[(i // len(VARIATIONS) + level) % len(DOMAINS)].key
            out.append(GroupPlan(level=level, index=i, variation=variation, params={"domain": domain}))
    return out


def build_group(plan: GroupPlan, rng: random.Random, config: GoalCheckConfig) -> Group:
    for _ in range(300):
        try:
            pos, neg, decisive = _try_group(rng, plan, config)
            break
        except _Retry:
            continue
    else:
        raise RuntimeError(f"{NAME}: could not build a group for {plan}")
    if failing_conditions(pos) or len(failing_conditions(neg)) != 1:
        raise RuntimeError(
            f"{NAME}: {plan} gives failing conditions {failing_conditions(pos)} / {failing_conditions(neg)}"
        )
    members = [
        Member(case=pos, state=render(pos), answer="yes", options=OPTIONS, variation=None),
        Member(case=neg, state=render(neg), answer="no", options=OPTIONS, variation=plan.variation),
    ]
    if rng.random() < 0.5:
        members.reverse()
    return Group(level=plan.level, domain=pos["domain"], members=tuple(members), decisive=frozenset(decisive))


# --- partial-information heuristics -------------------------------------------------------------

_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]*")


def _split_state(item: Item) -> tuple[str, str, str]:
    """(store listing, goal, trace) parts of the rendered state."""
    state = item.state if isinstance(item.state, str) else ""
    store = state.partition(f"\n{START_HEADING}\n")[2] or state.partition("\nStore at the start:\n")[2]  # 1.3 / 1.2
    store = store.partition("\nOperations:\n")[0]
    goal = state.partition("\nGoal:\n")[2].partition("\nTrace:\n")[0]
    trace = state.partition("\nTrace:\n")[2]
    return store, goal, trace


def _store_paths(store: str) -> set[str]:
    paths: set[str] = set()
    folder = ""
    for line in store.splitlines():
        if line.startswith("- folder "):
            paths.add(line[len("- folder ") :].rstrip("/"))
        elif line.startswith("- file "):
            paths.add(line[len("- file ") :].partition(": ")[0])
        elif line.startswith("  "):
            paths.add(f"{folder}/{line.strip().partition(': ')[0]}")
        elif line.strip():
            folder = line.partition("/ ")[0].rstrip("/")
            paths.add(folder)
    return paths


def _without_quotes(text: str) -> str:
    return re.sub(r'"[^"]*"', "", text)



def heuristic_goal_paths_mentioned(item: Item) -> dict[str, float]:
    """'Every path the goal names appears in the store or the trace, so yes' (no simulation)."""
    store, goal, trace = _split_state(item)
    known = _store_paths(store) | {p.rstrip("/.") for p in _PATH.findall(_without_quotes(trace))}
    wanted = {p.rstrip("/.") for p in _PATH.findall(_without_quotes(goal))}
    return yes_no(wanted <= known)


def heuristic_goal_texts_mentioned(item: Item) -> dict[str, float]:
    """'Every quoted text the goal asks for appears somewhere in the store or the trace, so yes'."""
    store, goal, trace = _split_state(item)
    return yes_no(all(f'"{t}"' in store + trace for t in re.findall(r'"([^"]+)"', goal)))


register(
    FamilySpec(
        name=NAME,
        layer="D",
        version=VERSION,
        question=QUESTION,
        config_type=GoalCheckConfig,
        plan=plan,
        build_group=build_group,
        expected_answers=lambda plan: ("no", "yes"),
        heuristics={
            "goal_paths_mentioned": heuristic_goal_paths_mentioned,
            "goal_texts_mentioned": heuristic_goal_texts_mentioned,
        },
    )
)
