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
ends - also on an error, Ctrl-C or SIGTERM; on Linux the server is told to end with its parent too
(``PR_SET_PDEATHSIG``), so even ``kill -9`` of ``dp`` leaves no server behind. ``serve_env`` is
added to the server's environment: numeric libraries pinned there (threads, BLAS kernel) make its
answers the same bytes on every run and host. What ``GET /`` reports (model, version) is recorded in
the answer files' meta.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
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

READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 10.0


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


@dataclass
class LocalServer:
    """A started server: its process, URL and what it said about itself."""

    process: subprocess.Popen[bytes]
    """The server process."""
    base_url: str
    """``http://127.0.0.1:<port>``."""
    info: dict[str, Any]
    """The JSON of ``GET /`` when the server gives one (model, version), else {}."""
    log: Any
    """The temporary file that holds the server's output (shown when it fails)."""

    def stop(self) -> None:
        """End the server: SIGTERM, then SIGKILL after :data:`STOP_TIMEOUT_S`."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
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


def start_server(name: str, template: Sequence[str], env: Mapping[str, str] | None = None,
                 ready_timeout_s: float = READY_TIMEOUT_S) -> LocalServer:
    """Start system ``name``'s server on a free loopback port and wait until it answers."""
    port = free_port()
    command = command_for(template, port)
    log = tempfile.TemporaryFile()  # noqa: SIM115 - the server writes to it while it runs; stop() closes it
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   env={**os.environ, **dict(env or {})},
                                   preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    except OSError as exc:
        log.close()
        raise ServeError(f"system {name!r}: cannot start its server {command[0]!r}: {exc.strerror or exc}") from None
    server = LocalServer(process, f"http://127.0.0.1:{port}", {}, log)
    deadline = time.monotonic() + ready_timeout_s
    while True:
        if process.poll() is not None:
            output = _output(log)
            server.stop()
            raise ServeError(f"system {name!r}: its server exited with status {process.returncode} before it "
                             f"answered: {output}")
        info = _probe(server.base_url)
        if info is not None:
            server.info = info
            return server
        if time.monotonic() > deadline:
            output = _output(log)
            server.stop()
            raise ServeError(f"system {name!r}: its server did not answer on {server.base_url} within "
                             f"{ready_timeout_s:g} s: {output}")
        time.sleep(0.1)
