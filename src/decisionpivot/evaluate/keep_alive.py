"""Run a server built on Python's ``http.server`` with persistent connections.

    python -m decisionpivot.evaluate.keep_alive MODULE [ARGUMENTS ...]

runs ``python -m MODULE ARGUMENTS`` with two settings of the standard library's ``http.server`` changed for
every handler the module defines:

* **HTTP/1.1** (``protocol_version``): a connection carries one request after another. Under HTTP/1.0, the
  default, every request opens a TCP connection and a server thread and closes both.
* **No Nagle delay** (``disable_nagle_algorithm``): a handler writes its headers and its body in separate
  writes; on a kept connection, Nagle's algorithm holds the body back until the client acknowledges the
  headers, which a client delays by up to 40 ms. (Under HTTP/1.0 closing the connection flushes it.)

A handler may keep connections open only if it reads every request body whole and sends ``Content-Length``
with every reply. An error reply (status 400 or above) closes its connection (``Connection: close``), as
HTTP/1.0 would have, so a handler that answers an error without reading the body leaves no bytes behind to be
read as the next request.

The built-in sparrow systems run their server, ``sparrow_decider.cli serve`` (a ``ThreadingHTTPServer`` that
reads each body and sends ``Content-Length``), through this launcher: the replies are the same, and each request
costs about a tenth less CPU (no connection and thread per request). tests/evaluate/test_keep_alive.py asks
the real server both ways.
"""

from __future__ import annotations

import http.server
import runpy
import sys
from typing import Any

USAGE = "usage: python -m decisionpivot.evaluate.keep_alive MODULE [ARGUMENTS ...]"


def persistent_connections() -> None:
    """Set HTTP/1.1 and TCP_NODELAY for every ``http.server`` handler, and close a connection after an error reply."""
    handler = http.server.BaseHTTPRequestHandler
    handler.protocol_version = "HTTP/1.1"
    handler.disable_nagle_algorithm = True
    send_response, end_headers = handler.send_response, handler.end_headers

    def status_kept(self: http.server.BaseHTTPRequestHandler, code: int, message: str | None = None) -> None:
        self.keep_alive_status = code  # type: ignore[attr-defined]
        send_response(self, code, message)

    def closing_after_errors(self: http.server.BaseHTTPRequestHandler) -> None:
        if getattr(self, "keep_alive_status", 200) >= 400 and not self.close_connection:
            self.send_header("Connection", "close")  # also sets self.close_connection
        end_headers(self)

    handler.send_response = status_kept  # type: ignore[method-assign]
    handler.end_headers = closing_after_errors  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> Any:
    arguments = sys.argv[1:] if argv is None else argv
    if not arguments or arguments[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    module, rest = arguments[0], arguments[1:]
    persistent_connections()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
