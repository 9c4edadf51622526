"""The process between ``dp`` and a ``serve:`` command: the server's whole process group ends with dp.

``python -I .../serve_guard.py DP_PID -- COMMAND...`` is what :func:`~decisionpivot.evaluate.served.
start_server` runs. dp starts it in a new session (its own process group) with ``PR_SET_PDEATHSIG``, so the
kernel sends it SIGTERM when dp ends in any way, ``kill -9`` included. The guard starts COMMAND in the same
group and, on SIGTERM, SIGINT or SIGHUP, ends the whole group: SIGTERM, then SIGKILL after
:data:`STOP_TIMEOUT_S`. A shell wrapper (``sh -c 'server ...'``) and whatever it forks are in that group, so
none of them outlives dp - ``PR_SET_PDEATHSIG`` alone reaches only dp's own child, and is not inherited
across ``fork``. When COMMAND exits on its own, the guard ends what is left of the group and exits with its
status.

Imports only the standard library: it is started once per served system and must cost nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

STOP_TIMEOUT_S = 10.0
"""Seconds the server's group gets between SIGTERM and SIGKILL."""


def group_members(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` (read from ``/proc``; empty where there is none)."""
    members = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read().decode("ascii", "replace")
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
            if len(fields) > 2 and fields[2] == str(pgid):
                members.append(int(entry))
    return members


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
    try:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"cannot start {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    while child.poll() is None and not stop["asked"] and os.getppid() == parent:
        time.sleep(0.05)
    status = child.poll()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the group's SIGTERM is for the server, not for the guard
    end_group(os.getpgid(0), STOP_TIMEOUT_S if status is None else 0.5, child)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=5)
    return 0 if status is None else (status if status >= 0 else 128 - status)


if __name__ == "__main__":  # pragma: no cover - run as a process by served.start_server
    sys.exit(main(sys.argv[1:]))
