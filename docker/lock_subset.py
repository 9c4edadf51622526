"""The part of requirements.lock that one installation needs, with its hashes; and a check against the lock.

requirements.lock pins the whole environment (core dependencies and every extra). The Docker image needs
only the package's core dependencies, at exactly the locked versions and checked against the locked
hashes. pip has no "subset of a lock" option, and hashes in a constraints file switch every requirement,
the package itself included, into hash-checking mode. So:

    python3 docker/lock_subset.py subset requirements.lock TARGET [PIP OPTIONS] > requirements.txt
        resolves TARGET (the package folder or wheel) with the lock's pins as constraints, without
        installing (`pip install --dry-run --report`), and prints the lock's entries (pins and hashes) of
        every package that resolution would install, TARGET itself left out. Install them with
        `pip install --require-hashes --no-deps -r requirements.txt`, then TARGET with `--no-deps`.
        PIP OPTIONS (e.g. --no-index --find-links DIR) go to the dry run.
    pip freeze | python3 docker/lock_subset.py check requirements.lock [--ignore NAME]...
        exit 1, naming them, if any installed distribution is missing from the lock or has another
        version than the lock pins for this interpreter and platform.

Runs on the image's Python with nothing but pip (its vendored `packaging` evaluates the markers).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

try:
    from pip._vendor.packaging.markers import Marker
except ImportError:  # pragma: no cover - pip without its vendored packaging
    from packaging.markers import Marker


@dataclass(frozen=True)
class Entry:
    name: str
    """Normalised distribution name (PEP 503)."""
    version: str
    marker: str
    """The environment marker after ``;``, or ""."""
    block: str
    """The entry's lines as in the lock (pin, hashes, comments)."""

    def applies(self) -> bool:
        return not self.marker or Marker(self.marker).evaluate()


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_lock(path: Path) -> list[Entry]:
    entries: list[Entry] = []
    block: list[str] = []

    def close() -> None:
        if not block:
            return
        head = block[0].rstrip().rstrip("\\").strip()
        pin, _, marker = head.partition(";")
        match = re.fullmatch(r"([A-Za-z0-9._-]+)(?:\[[^\]]*\])?\s*===?\s*(\S+)", pin.strip())
        if match is None:
            raise SystemExit(f"{path}: cannot read the entry {head!r}")
        entries.append(Entry(normalise(match[1]), match[2], marker.strip(), "".join(block)))
        block.clear()

    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line[:1].isalnum():
            close()
            block.append(line)
        elif block and line.strip():
            block.append(line)
    close()
    if not entries:
        raise SystemExit(f"{path}: no pinned packages")
    return entries


def applicable(entries: list[Entry]) -> dict[str, Entry]:
    """The lock's pin of every package for this interpreter and platform."""
    pins: dict[str, Entry] = {}
    for entry in entries:
        if entry.applies():
            if entry.name in pins:
                raise SystemExit(f"the lock pins {entry.name} twice for this platform")
            pins[entry.name] = entry
    return pins


def subset(lock: Path, target: str, pip_options: list[str]) -> int:
    pins = applicable(read_lock(lock))
    with tempfile.TemporaryDirectory() as tmp:
        constraints = Path(tmp) / "constraints.txt"
        constraints.write_text("".join(f"{e.name}=={e.version}\n" for e in pins.values()), encoding="utf-8")
        report = Path(tmp) / "report.json"
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                               "--report", str(report), "-c", str(constraints), *pip_options, target],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            print(done.stdout, file=sys.stderr)
            print(f"cannot resolve {target} within {lock} (pip's message above)", file=sys.stderr)
            return 1
        resolved = json.loads(report.read_text(encoding="utf-8"))["install"]
    out, missing = [], []
    for item in resolved:
        name, version = normalise(item["metadata"]["name"]), item["metadata"]["version"]
        if item.get("requested") and name not in pins:
            continue  # the target itself: not a locked dependency
        entry = pins.get(name)
        if entry is None or entry.version != version:
            missing.append(f"{name}=={version}")
        else:
            out.append(entry)
    if missing:
        print(f"not pinned as resolved in {lock}: {', '.join(missing)}; refresh it with .ci/lock", file=sys.stderr)
        return 1
    sys.stdout.write(f"# The entries of {lock.name} that {Path(target).name} needs here "
                     f"(docker/lock_subset.py subset).\n")
    sys.stdout.write("".join(e.block for e in sorted(out, key=lambda e: e.name)))
    return 0


def check(lock: Path, freeze: str, ignore: set[str]) -> int:
    pins = applicable(read_lock(lock))
    wrong = []
    count = 0
    for line in freeze.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("-e "):
            continue
        name, sep, version = line.partition("==")
        if not sep:
            name = line.split("@", 1)[0]
        name = normalise(name.strip())
        if name in ignore:
            continue
        count += 1
        entry = pins.get(name)
        if entry is None:
            wrong.append(f"{line} (not in the lock)")
        elif entry.version != version.strip():
            wrong.append(f"{line} (the lock pins {entry.version})")
    if wrong:
        print(f"installed distributions that differ from {lock}:", *wrong, sep="\n  ", file=sys.stderr)
        return 1
    if count == 0:
        print("no installed distributions were given (pipe `pip freeze` in)", file=sys.stderr)
        return 1
    print(f"{count} installed distributions, each at the version {lock.name} pins")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "subset":
        return subset(Path(argv[1]), argv[2], argv[3:])
    if len(argv) >= 2 and argv[0] == "check":
        rest, ignore = argv[2:], set()
        while rest[:1] == ["--ignore"] and len(rest) >= 2:
            ignore.add(normalise(rest[1]))
            rest = rest[2:]
        if not rest:
            return check(Path(argv[1]), sys.stdin.read(), ignore)
    print(__doc__.split("\n\n", 2)[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
