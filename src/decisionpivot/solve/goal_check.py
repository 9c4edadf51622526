"""Independent solver for goal_check: rebuild the store from the text, replay the trace, test the goal.

Reads only the rendered state: the store listing (flat or by folder), the goal lines (two wordings
per condition kind) and the numbered trace (command or prose form). The replay follows the
operation rules stated in the item: a failing step changes nothing; write replaces all lines and
creates; create fails on an existing file; append, copy and move fail on a missing source; copy,
move, create and write fail when the target's folder is missing; delete of a missing file does
nothing; make-folder (written "mkdir" up to goal_check 1.1) makes parents too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from decisionpivot.items import Item

FAMILY = "goal_check"

_QUOTED = re.compile(r'"([^"]*)"')


class _Store:
    def __init__(self) -> None:
        self.dirs: set[str] = set()
        self.docs: dict[str, list[str]] = {}

    @staticmethod
    def parent(path: str) -> str:
        return path.rsplit("/", 1)[0] if "/" in path else ""

    def has_dir(self, path: str) -> bool:
        return self.parent(path) in self.dirs

    def mkdir(self, folder: str) -> None:
        parts = folder.split("/")
        for end in range(1, len(parts) + 1):
            self.dirs.add("/".join(parts[:end]))

    def run(self, op: str, args: list[str], text: str | None) -> None:
        if op == "mkdir":
            self.mkdir(args[0])
        elif op == "delete":
            self.docs.pop(args[0], None)
        elif op == "create":
            if args[0] not in self.docs and self.has_dir(args[0]):
                self.docs[args[0]] = [text or ""]
        elif op == "write":
            if self.has_dir(args[0]):
                self.docs[args[0]] = [text or ""]
        elif op == "append":
            if args[0] in self.docs:
                self.docs[args[0]] = [*self.docs[args[0]], text or ""]
        elif op in ("copy", "move"):
            src, dst = args
            if src in self.docs and self.has_dir(dst):
                lines = self.docs.pop(src) if op == "move" else list(self.docs[src])
                self.docs[dst] = lines
        else:
            raise ValueError(f"unknown operation {op!r}")

    def files_in(self, folder: str) -> int:
        return sum(1 for p in self.docs if self.parent(p) == folder)


def _until_blank(lines: list[str]) -> list[str]:
    """A state's last section: its lines up to the first blank line after it begins (what follows is no longer the
    section - e.g. the paragraphs an ``irrelevant-*-after`` framing appends)."""
    begun = False
    out = []
    for line in lines:
        if not line.strip():
            if begun:
                break
            continue
        begun = True
        out.append(line)
    return out


def _parts(state: str) -> tuple[list[str], list[str], list[str]]:
    lines = state.splitlines()
    heading = next(h for h in ("Files before the agent started:", "Store at the start:") if h in lines)  # 1.3 / 1.2
    i_store = lines.index(heading)
    i_ops = lines.index("Operations:")
    i_goal = lines.index("Goal:")
    i_trace = lines.index("Trace:")
    clean = [ln for ln in lines[i_store + 1 : i_ops] if ln.strip()]
    return clean, [ln for ln in lines[i_goal + 1 : i_trace] if ln.strip()], _until_blank(lines[i_trace + 1 :])


def _load(store_lines: list[str]) -> _Store:
    store = _Store()
    current = ""
    for line in store_lines:
        if line.startswith("- folder "):
            store.mkdir(line.removeprefix("- folder ").rstrip("/"))
        elif line.startswith("- file "):
            path, _, rest = line.removeprefix("- file ").partition(": ")
            store.docs[path] = _QUOTED.findall(rest)
        elif line.startswith("  "):
            name, _, rest = line.strip().partition(": ")
            store.docs[f"{current}/{name}"] = _QUOTED.findall(rest)
        else:
            current = line.split("/ (no files)")[0].rstrip("/")
            store.mkdir(current)
    return store


_STEP_FORMS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[str, list[str], str | None]]]] = [
    (re.compile(r'^(create|write|append) (\S+) "(.*)"$'), lambda m: (m[1], [m[2]], m[3])),
    (re.compile(r"^(copy|move) (\S+) (\S+)$"), lambda m: (m[1], [m[2], m[3]], None)),
    (re.compile(r"^(delete|mkdir) (\S+)$"), lambda m: (m[1], [m[2]], None)),  # mkdir: the 1.1 wording
    (re.compile(r"^make-folder (\S+)$"), lambda m: ("mkdir", [m[1]], None)),
    (re.compile(r"^(Copy|Move) (\S+) to (\S+)\.$"), lambda m: (m[1].lower(), [m[2], m[3]], None)),
    (re.compile(r'^Create (\S+) with "(.*)"\.$'), lambda m: ("create", [m[1]], m[2])),
    (re.compile(r'^(Write|Append) "(.*)" to (\S+)\.$'), lambda m: (m[1].lower(), [m[3]], m[2])),
    (re.compile(r"^Delete (\S+)\.$"), lambda m: ("delete", [m[1]], None)),
    (re.compile(r"^Make folder (\S+)\.$"), lambda m: ("mkdir", [m[1]], None)),
]


_STEP_NUMBER = re.compile(r"^\d+\. ")


def _step(line: str) -> tuple[str, list[str], str | None]:
    body = _STEP_NUMBER.sub("", line)
    for pattern, read in _STEP_FORMS:
        m = pattern.match(body)
        if m:
            return read(m)
    raise ValueError(f"unreadable trace step: {line!r}")


_GOAL_NUMBER = re.compile(r"^G\d+\. ")
_EXISTS = (re.compile(r"^A file exists at (\S+)\.$"), re.compile(r"^(\S+) exists\.$"))
_ABSENT = (re.compile(r"^There is no file at (\S+)\.$"), re.compile(r"^(\S+) does not exist\.$"))
_HAS_LINE = (
    re.compile(r'^(\S+) has a line reading exactly "(.*)"\.$'),
    re.compile(r'^(\S+) exists and one of its lines is "(.*)"\.$'),
)
_LACKS_LINE = (
    re.compile(r'^(\S+) exists and has no line reading "(.*)"\.$'),
    re.compile(r'^(\S+) exists but none of its lines is "(.*)"\.$'),
)
_FOLDER_HOLDS = re.compile(r"^Folder (\S+)/ holds exactly (\d+) files?\.$")
_FILES_DIRECTLY_IN = re.compile(r"^The number of files directly in (\S+)/ is (\d+)\.$")


def _check(goal_line: str, store: _Store) -> bool:
    text = _GOAL_NUMBER.sub("", goal_line)
    for pattern in _EXISTS:
        m = pattern.match(text)
        if m:
            return m[1] in store.docs
    for pattern in _ABSENT:
        m = pattern.match(text)
        if m:
            return m[1] not in store.docs
    for pattern in _HAS_LINE:
        m = pattern.match(text)
        if m:
            return m[2] in store.docs.get(m[1], [])
    for pattern in _LACKS_LINE:
        m = pattern.match(text)
        if m:
            return m[1] in store.docs and m[2] not in store.docs[m[1]]
    m = _FOLDER_HOLDS.match(text)
    if m:
        return store.files_in(m[1]) == int(m[2])
    m = _FILES_DIRECTLY_IN.match(text)
    if m:
        return store.files_in(m[1]) == int(m[2])
    raise ValueError(f"unreadable goal condition: {goal_line!r}")


def solve(item: Item) -> str:
    if not isinstance(item.state, str):
        raise ValueError("goal_check states are text")
    store_lines, goal_lines, trace_lines = _parts(item.state)
    store = _load(store_lines)
    for line in trace_lines:
        if line.strip():
            store.run(*_step(line))
    return "yes" if all(_check(g, store) for g in goal_lines) else "no"
