"""A local server the runner starts for itself: ``serve:`` in a system's settings.

A decision model that ships its own server (``sparrow-decider serve``, ``transformers serve``,
``llama-server``) is declared with the command that starts it; ``{port}`` in it becomes a free
loopback port and ``{python}`` the running interpreter::

    sparrow-nano-general-v1.1:
      kind: systemone
      model: sparrow-nano-general-v1.1
      serve: ["{python}", -m, sparrow_decider.cli, --model, sparrow-nano-general-v1.1, serve,
              --host, 127.0.0.1, --port, "{port}"]
      serve_env: {OPENBLAS_NUM_THREADS: "1", OPENBLAS_CORETYPE: Haswell}

The runner starts it once per evaluation, waits until it answers ``GET /`` (or at least accepts a
connection), asks ``http://127.0.0.1:<port>`` as its ``base_url``, and stops it when the evaluation
ends - also on an error, Ctrl-C or SIGTERM. What ``GET /`` reports (model, version) is recorded in
the answer files' meta.

* **Nothing outlives dp.** The command runs under :mod:`~decisionpivot.evaluate.serve_guard` in a process
  group of its own; on Linux the kernel tells the guard to end with dp (``PR_SET_PDEATHSIG``), and the
  guard - a child subreaper, so every process the command starts stays its descendant - ends the whole
  tree: the group, a shell wrapper and every process it forked, and a process that left the group with
  ``setsid`` (a daemonising server) too; so even ``kill -9`` of ``dp`` leaves no server behind. dp itself
  ends what it sees of the tree again when it stops the server (:meth:`LocalServer.stop`).
* **The answering server is dp's.** Before the first request, the socket listening on the port must
  belong to a process of that tree (read from ``/proc/net/tcp`` and the processes' open sockets: an
  identity another process cannot fake), and the guard must still be running. Another process that
  took the port first (a race between choosing the port and the server's bind, or a squatter) is
  never asked: dp tries another port, :data:`PORT_ATTEMPTS` times, then stops with one line naming it.
* **Only what it is configured with.** The process gets :data:`BASE_ENVIRONMENT` from dp's environment
  (and the ``LC_*`` variables) and ``serve_env``, where ``${NAME}`` stands for dp's own NAME (``HF_TOKEN:
  "${HF_TOKEN}"``: the secret passed by name, never written down): not every secret of the shell.
  Numeric libraries pinned in ``serve_env`` (threads, BLAS
  kernel) make its answers the same bytes on every run and host. The values of ``serve_env`` and the
  arguments of ``serve`` are recorded as salted hashes, the names and option names in clear
  (:func:`~decisionpivot.redact.written_command`, :func:`~decisionpivot.redact.written_environment`).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate import serve_guard
from decisionpivot.evaluate.serve_guard import (
    STOP_TIMEOUT_S,
    descendants,
    end_group,
    group_members,
    still_running,
)

READY_TIMEOUT_S = 120.0
"""Seconds a served process may take to answer its first ``GET /`` (the ``serve_ready_s`` default)."""
READY_POLL_S = 0.02
"""Seconds between two ``GET /`` probes of a starting server."""
PORT_ATTEMPTS = 3
"""Ports tried when another process holds the chosen one."""
BASE_ENVIRONMENT = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM",
                    "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                    "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "XDG_CACHE_HOME",
                    "SOURCE_DATE_EPOCH", "SYSTEMROOT")
"""Variables of dp's environment a served process gets (plus every ``LC_*``): where programs, libraries, caches and
the user's home are, the locale and the time zone - none of them a secret. Everything else it is given in
``serve_env``, by value or as ``${NAME}``."""


class ServeError(DecisionPivotError):
    """The declared server could not be started or did not come up."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command_for(template: Sequence[str], port: int) -> list[str]:
    """The command with ``{port}`` and ``{python}`` filled in."""
    return [str(part).replace("{port}", str(port)).replace("{python}", sys.executable) for part in template]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${NAME}`` in a ``serve_env`` value: dp's own variable NAME (a secret passed by name, never written down)."""


def served_environment(name: str, env: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The served process's environment: :data:`BASE_ENVIRONMENT` and ``LC_*`` of ``environ`` (dp's), then ``env``
    (``serve_env``) with each ``${NAME}`` replaced by ``environ``'s NAME (ServeError when it is not set)."""
    source = os.environ if environ is None else environ
    kept = {key: value for key, value in source.items() if key in BASE_ENVIRONMENT or key.startswith("LC_")}

    def referenced(match: re.Match[str]) -> str:
        if match[1] not in source:
            raise ServeError(f"system {name!r}: serve_env refers to ${{{match[1]}}}, which is not set in dp's "
                             "environment")
        return source[match[1]]

    return {**kept, **{key: REFERENCE.sub(referenced, value) for key, value in env.items()}}


@dataclass
class LocalServer:
    """A started server: its process, URL and what it said about itself."""

    process: subprocess.Popen[bytes]
    """The guard process (:mod:`~decisionpivot.evaluate.serve_guard`), leader of the server's process group."""
    base_url: str
    """``http://127.0.0.1:<port>``."""
    info: dict[str, Any]
    """The JSON of ``GET /`` when the server gives one (model, version), else {}."""
    log: Any
    """The temporary file that holds the server's output (shown when it fails)."""

    def stop(self) -> None:
        """End the server's whole tree: the guard ends its group and every descendant (SIGTERM, then SIGKILL after
        :data:`STOP_TIMEOUT_S`); then dp sends SIGKILL to whatever of the group and of the tree it saw before is
        still running (the guard itself may have been killed)."""
        tree = descendants(self.process.pid)
        if self.process.poll() is None:
            end_group(self.process.pid, STOP_TIMEOUT_S, self.process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_TIMEOUT_S)
        end_group(self.process.pid, 0)  # whatever the guard left behind
        for pid in still_running(tree):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self.log.close()


def _output(log: Any, limit: int = 800) -> str:
    log.flush()
    log.seek(0)
    text = log.read().decode("utf-8", "replace").strip()
    return " ".join(text[-limit:].split()) or "(no output)"


def _probe(base_url: str) -> dict[str, Any] | None:
    """What ``GET /`` says (None: nothing listens yet); {} for a server that answers but not with JSON."""
    try:
        with urllib.request.urlopen(base_url + "/", timeout=2) as response:
            body = response.read(65536)
    except urllib.error.HTTPError:
        return {}  # it answers, just not GET /
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return None
    try:
        info = json.loads(body)
    except ValueError:
        return {}
    return info if isinstance(info, dict) else {}


_LOOPBACK_OR_ANY = {"0100007F", "00000000", "00000000000000000000000001000000", "00000000000000000000000000000000",
                    "0000000000000000FFFF00000100007F"}
"""127.0.0.1, 0.0.0.0, ::1, :: and ::ffff:127.0.0.1 as ``/proc/net/tcp`` writes them."""


def listening_sockets(port: int) -> set[str] | None:
    """Inodes of the TCP sockets listening on ``port`` on the loopback (or every) address; None without ``/proc``."""
    found: set[str] = set()
    seen_table = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as handle:
                lines = handle.read().splitlines()[1:]
        except OSError:
            continue
        seen_table = True
        for line in lines:
            fields = line.split()
            address, _, hex_port = fields[1].partition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port and address in _LOOPBACK_OR_ANY:
                found.add(fields[9])
    return found if seen_table else None


def socket_owners(inodes: set[str], pids: list[int]) -> set[str]:
    """The ``inodes`` among the open sockets of processes ``pids``."""
    owned: set[str] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("socket:[") and target[8:-1] in inodes:
                        owned.add(target[8:-1])
    return owned


def foreign_listener(port: int, guard: int) -> bool:
    """Whether a process outside the server's tree - the process group of ``guard`` and every descendant of it -
    listens on ``port`` (False where it cannot be told)."""
    inodes = listening_sockets(port)
    if not inodes:
        return False
    return bool(inodes - socket_owners(inodes, [*group_members(guard), *descendants(guard)]))


def _launch(name: str, template: Sequence[str], environment: dict[str, str], port: int) -> LocalServer:
    command = command_for(template, port)
    log = tempfile.TemporaryFile()  # noqa: SIM115 - the server writes to it while it runs; stop() closes it
    # the guard runs as a file, isolated (-I): it needs only the standard library, whatever PYTHONPATH says
    guarded = [sys.executable, "-I", serve_guard.__file__, str(os.getpid()), "--", *command]
    linux = sys.platform.startswith("linux")
    try:
        process = subprocess.Popen(guarded, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   env=environment, start_new_session=True,
                                   preexec_fn=_die_with_parent if linux else None)
    except OSError as exc:
        log.close()
        raise ServeError(f"system {name!r}: cannot start its server {command[0]!r}: {exc.strerror or exc}") from None
    return LocalServer(process, f"http://127.0.0.1:{port}", {}, log)


def start_server(name: str, template: Sequence[str], env: Mapping[str, str] | None = None,
                 ready_timeout_s: float = READY_TIMEOUT_S) -> LocalServer:
    """Start system ``name``'s server on a free loopback port and wait until it answers (see the module docstring)."""
    return start_copies(1, name, template, env, ready_timeout_s)[0]


def start_copies(count: int, name: str, template: Sequence[str], env: Mapping[str, str] | None = None,
                 ready_timeout_s: float = READY_TIMEOUT_S) -> list[LocalServer]:
    """``count`` copies of system ``name``'s server (``replicas:``), each on a port of its own, started at once so
    that their start-up times overlap, then each waited for. If one cannot be started, every copy is stopped and its
    error raised.

    Every process is started from the calling thread: ``PR_SET_PDEATHSIG`` fires when the *thread* that started the
    guard ends, so a guard started from a short-lived worker thread would end its server with that thread."""
    environment = served_environment(name, env or {})
    launched = [_launch(name, template, environment, port) for port in free_ports(count)]
    ready: list[LocalServer] = []
    try:
        for server in launched:
            ready.append(_until_ready(name, template, environment, server, ready_timeout_s))
    except BaseException:
        for server in [*launched, *ready]:
            server.stop()
        raise
    return ready


def free_ports(count: int) -> list[int]:
    """``count`` ports from :func:`free_port`, different where it gives different ones (a copy that finds its port
    taken all the same - by a sibling or another process - is started again on another: :func:`_until_ready`)."""
    ports: list[int] = []
    for _ in range(10 * count):
        if len(ports) == count:
            break
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports + [free_port() for _ in range(count - len(ports))]


def _until_ready(name: str, template: Sequence[str], environment: dict[str, str], server: LocalServer,
                 ready_timeout_s: float) -> LocalServer:
    """``server`` (or a copy started again on another port, when another process holds its port) once it answers."""
    squatted: list[int] = []
    while True:
        port = int(server.base_url.rsplit(":", 1)[1])
        if _wait_ready(name, server, port, ready_timeout_s):
            return server
        squatted.append(port)
        if len(squatted) == PORT_ATTEMPTS:
            raise ServeError(f"system {name!r}: another process was listening on the port chosen for its server each "
                             f"time ({', '.join(map(str, squatted))}); its answers would not be the system's. Find it "
                             f"with `ss -ltnp | grep {squatted[-1]}`")
        server = _launch(name, template, environment, free_port())


def _wait_ready(name: str, server: LocalServer, port: int, ready_timeout_s: float) -> bool:
    """True once ``server`` answers on ``port`` from its own process group; False (stopped) when another process
    holds the port; ServeError when it exits or does not answer in time."""
    process = server.process
    deadline = time.monotonic() + ready_timeout_s
    while True:
        if process.poll() is not None:
            output = _output(server.log)
            server.stop()
            if foreign_listener(port, process.pid):
                return False  # the bind failed: the port was taken between choosing and binding it
            raise ServeError(f"system {name!r}: its server exited with status {process.returncode} before it "
                             f"answered: {output}")
        info = _probe(server.base_url)
        if info is not None:
            if foreign_listener(port, process.pid):  # what answered is not dp's server
                server.stop()
                return False
            if process.poll() is None:
                server.info = info
                return True
            continue  # it ended while answering: reported above
        if time.monotonic() > deadline:
            output = _output(server.log)
            server.stop()
            raise ServeError(f"system {name!r}: its server did not answer on {server.base_url} within "
                             f"{ready_timeout_s:g} s: {output}")
        time.sleep(READY_POLL_S)
