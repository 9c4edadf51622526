"""A System One server that breaks the HTTP exchange itself, below what a web framework lets one do.

aiohttp's and FastAPI's servers always finish a response they have started; the faults a hostile
network produces happen after the status line: the connection reset mid-body, a body slower than the
client's timeout, fewer bytes than the Content-Length promised, a gzip body that does not decode, a
close-delimited body cut short, a chunked body cut between chunks. This server writes HTTP/1.1 by
hand on asyncio streams so each of those can be produced on demand, plus redirects to any URL.

``plan(digest, attempt) -> fault`` chooses, per request, by the SHA-256 of the request's state and
the attempt number for that state (1 for the first), so a test knows which item meets which fault;
the answer is the one :mod:`tests.evaluate.fake_decision_server` gives for that state (deterministic).
Besides the body faults: ``status:<code>[:<body>]`` answers that status with that body (the status's
phrase by default), ``answer:<code>`` answers that status with the very body a 200 would carry (an
answer-shaped body under another status), and ``hang`` reads the request and never answers (a server that
accepts and hangs).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
from collections import defaultdict
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from tests.evaluate.fake_decision_server import expected_probabilities, state_digest

_KNOWN = {status.value for status in HTTPStatus}
BODY_FAULTS = ("reset", "short", "slow", "gzip", "cut_close", "chunked_cut")
"""Faults after a 200 status line; each must be retried by the client, never scored."""


class FaultServer:
    """``with FaultServer(plan) as server:``; ``server.base_url``; ``server.seen`` lists each request's headers."""

    def __init__(self, plan: Callable[[str, int], str] = lambda digest, attempt: "ok", slow_s: float = 2.0,
                 model: str = "fake-decider") -> None:
        self.plan = plan
        self.slow_s = slow_s
        self.model = model
        self.attempts: dict[str, int] = defaultdict(int)
        self.seen: list[dict[str, str]] = []
        self.faults: list[str] = []
        self.paths: list[str] = []
        """The request target of each request (path and query)."""
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.server: asyncio.AbstractServer | None = None
        self.open: set[asyncio.StreamWriter] = set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __enter__(self) -> FaultServer:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            if self.server is not None:
                self.server.close()
            for writer in list(self.open):
                writer.transport.abort()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()

    async def _start(self) -> None:
        self.server = await asyncio.start_server(self._connection, sock=self.sock)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open.add(writer)
        try:
            while await self._exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self.open.discard(writer)
            if not writer.is_closing():
                writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection is to be closed."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
        self.paths.append(lines[0].split(" ")[1])
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.seen.append(headers)
        payload = json.loads(body)
        digest = state_digest(payload["state"])
        self.attempts[digest] += 1
        fault = self.plan(digest, self.attempts[digest])
        self.faults.append(fault)
        if fault.startswith("redirect:"):  # redirect:<status>:<url>
            _, status, target = fault.split(":", 2)
            writer.write(f"HTTP/1.1 {status} Moved\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n".encode())
            await writer.drain()
            return True
        if fault == "hang":
            await asyncio.sleep(3600)
        if fault.startswith("status:"):  # status:<code>[:<body>]
            _, code, *text = fault.split(":", 2)
            body = (text[0] if text else HTTPStatus(int(code)).phrase if int(code) in _KNOWN else "").encode()
            writer.write(_head(int(code), {"Content-Length": str(len(body))}) + body)
            await writer.drain()
            return True
        answer = json.dumps(self._answer(payload, digest)).encode()
        if fault.startswith("answer:"):  # answer:<code>
            writer.write(_head(int(fault.split(":")[1]), {"Content-Length": str(len(answer))}) + answer)
            await writer.drain()
            return True
        half = answer[: len(answer) // 2]
        if fault == "ok":
            writer.write(_head(200, {"Content-Length": str(len(answer))}) + answer)
            await writer.drain()
            return True
        if fault == "reset":
            writer.write(_head(200, {"Content-Length": str(len(answer))}) + half)
            await writer.drain()
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = RST
            writer.transport.abort()
            return False
        if fault == "short":
            writer.write(_head(200, {"Content-Length": str(len(answer))}) + answer[:-10])
        elif fault == "slow":
            writer.write(_head(200, {"Content-Length": str(len(answer))}) + half)
            await writer.drain()
            await asyncio.sleep(self.slow_s)
            writer.write(answer[len(half):])
        elif fault == "gzip":
            writer.write(_head(200, {"Content-Length": "64", "Content-Encoding": "gzip"}) + bytes(range(64)))
        elif fault == "cut_close":
            writer.write(_head(200, {"Connection": "close"}) + half)
        elif fault == "chunked_cut":
            writer.write(_head(200, {"Transfer-Encoding": "chunked"}) + f"{len(half):x}\r\n".encode() + half + b"\r\n")
        else:
            raise ValueError(f"unknown fault {fault!r}")
        await writer.drain()
        writer.close()
        return False

    def _answer(self, payload: dict[str, Any], digest: str) -> dict[str, Any]:
        [(qid, question)] = payload["questions"].items()
        if question["type"] == "noul":
            answer: dict[str, Any] = {"type": "noul", "noul": expected_probabilities(digest, ["true", "false"])["true"]}
        else:
            probs = expected_probabilities(digest, list(question["criteria"]))
            answer = {"type": "choice", "choice": max(probs, key=probs.__getitem__), "probabilities": probs,
                      "confidence": 0.5}
        return {"model": self.model, "answers": {qid: answer}, "usage": {"input_tokens": 10, "output_tokens": 0}}


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} OK", "Content-Type: application/json", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()
