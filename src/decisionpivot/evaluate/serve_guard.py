"""The process between ``dp`` and a ``serve:`` command: the server's whole process group ends with dp.

``python -I .../serve_guard.py DP_PID -- COMMAND...`` is what :func:`~decisionpivot.evaluate.served.
start_server` runs. dp starts it in a new session (its own process group) with ``PR_SET_PDEATHSIG``, so the
kernel sends it SIGTERM when dp ends in any way, ``kill -9`` included. The guard makes itself a *child
subreaper* (``PR_SET_CHILD_SUBREAPER``, Linux): every process COMMAND starts stays its descendant, even one
that leaves the group with ``setsid`` and whose parent exits (a daemonising server), instead of being
adopted by init. The guard starts COMMAND in its group and, on SIGTERM, SIGINT or SIGHUP, ends the whole tree
(:func:`end_tree`): its process group and every descendant, SIGTERM, then SIGKILL after
:data:`STOP_TIMEOUT_S`. A shell wrapper (``sh -c 'server ...'``) and whatever it forks are ended with it, so
none of them outlives dp - ``PR_SET_PDEATHSIG`` alone reaches only dp's own child, and is not inherited
across ``fork``. The guard runs while COMMAND or any descendant does; when they have all exited on their own
it exits with COMMAND's status.

Imports only the standard library: it is started once per served system and must cost nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time

STOP_TIMEOUT_S = 10.0
"""Seconds the server's group gets between SIGTERM and SIGKILL."""
PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option: orphaned descendants are re-parented to this process, not to init (Linux >= 3.4)."""


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after ``pid (comm)``: state, ppid, pgrp, ... (None: no such process)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def descendants(root: int) -> dict[int, str]:
    """Every living descendant of process ``root`` (from ``/proc``): pid -> its start time (a pid reused later by
    another process has another start time). Zombies are left out."""
    children: dict[int, list[int]] = {}
    started: dict[int, str] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            fields = _stat(entry)
            if fields is None or len(fields) < 20 or fields[0] == "Z":
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
            started[int(entry)] = fields[19]
    found: dict[int, str] = {}
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        if pid not in found:
            found[pid] = started[pid]
            stack.extend(children.get(pid, []))
    return found


def still_running(processes: dict[int, str]) -> dict[int, str]:
    """The processes of ``processes`` (pid -> start time) that are the same processes and not zombies now."""
    alive = {}
    for pid, start in processes.items():
        fields = _stat(pid)
        if fields is not None and len(fields) >= 20 and fields[0] != "Z" and fields[19] == start:
            alive[pid] = start
    return alive


def group_members(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` (read from ``/proc``; empty where there is none)."""
    members = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            fields = _stat(entry)
            if fields is not None and len(fields) > 2 and fields[2] == str(pgid):
                members.append(int(entry))
    return members


def end_tree(pgid: int, root: int, timeout_s: float, alive: subprocess.Popen[bytes] | None = None) -> None:
    """End process group ``pgid`` and every descendant of ``root`` wherever it went (another group, another
    session): SIGTERM to all, then SIGKILL to what is still running after ``timeout_s`` (sooner when all ended)."""
    tree = descendants(root)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    for pid in tree:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if alive is not None:
            alive.poll()  # its status before _reap could take it
        _reap()
        if not still_running(tree) and not descendants(root):
            break
        time.sleep(0.05)
    end_group(pgid, 0)  # SIGKILL to the group (one by one when the caller is in it)
    for pid in still_running({**tree, **descendants(root)}):
        if pid != os.getpid():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    _reap()


def _reap() -> None:
    """Collect the exit status of every child that has ended (orphans a subreaper adopted become its children)."""
    with contextlib.suppress(ChildProcessError, OSError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def end_group(pgid: int, timeout_s: float, alive: subprocess.Popen[bytes] | None = None) -> None:
    """SIGTERM to process group ``pgid``, SIGKILL to what is left after ``timeout_s`` (or once ``alive`` exits).

    The calling process, when it is in the group, sends SIGKILL to the others one by one (it outlives them).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if alive is not None and alive.poll() is not None:
            break
        time.sleep(0.05)
    if os.getpgid(0) != pgid:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        return
    for pid in group_members(pgid):
        if pid != os.getpid():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python -I serve_guard.py DP_PID -- COMMAND...", file=sys.stderr)
        return 2
    parent, command = int(argv[0]), argv[2:]
    if os.getppid() != parent:  # dp ended before PR_SET_PDEATHSIG was in place
        return 1
    stop = {"asked": False}

    def asked_to_stop(signum: int, frame: object) -> None:
        stop["asked"] = True

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, asked_to_stop)
    with contextlib.suppress(OSError, AttributeError):  # Linux; elsewhere the process group is what is ended
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1)
    try:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"cannot start {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    me = os.getpid()
    while not stop["asked"] and os.getppid() == parent:
        if child.poll() is not None:
            _reap()
            if not descendants(me):  # nothing COMMAND started is left either (a daemon it detached counts)
                break
        time.sleep(0.05)
    status = child.poll()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the group's SIGTERM is for the server, not for the guard
    asked = stop["asked"] or os.getppid() != parent
    end_tree(os.getpgid(0), me, STOP_TIMEOUT_S if asked or status is None else 0.5, child)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=5)
    status = child.poll()
    return 0 if status is None or asked else (status if status >= 0 else 128 - status)


if __name__ == "__main__":  # pragma: no cover - run as a process by served.start_server
    sys.exit(main(sys.argv[1:]))
