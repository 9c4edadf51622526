"""A small OpenAI-compatible chat-completions server on 127.0.0.1 that injects faults on purpose.

Every request is keyed by the SHA-256 of its user message, so a test can tell in advance which item
meets which fault. ``plan(digest) -> fault`` chooses it; transient faults (429, 500, stall) happen on
the first attempt only. Replies are deterministic: the probabilities depend on the digest only, so
an interrupted and an uninterrupted run give the same answers.

The server is asyncio (aiohttp.web) on its own event loop in a background thread, so latency and
stalls cost no thread each and the server keeps up with hundreds of requests per second (the
throughput benchmark measures the runner, not this server).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from aiohttp import web

FAULTS = ("ok", "429", "500", "stall", "malformed", "missing_key", "unnormalised", "truncated", "always_500")
MORE_FAULTS = ("malformed_once", "not_completion")
"""Used by the soak test only: a body that is not JSON on the first attempt (retried), JSON that is no completion."""


def digest_of(user_message: str) -> str:
    return hashlib.sha256(user_message.encode("utf-8")).hexdigest()


def option_keys(user_message: str) -> list[str]:
    template = user_message.rsplit("\n", 1)[-1]
    return re.findall(r'"([^"]+)": <probability>', template)


def deterministic_probs(digest: str, keys: list[str]) -> dict[str, float]:
    raw = [int(digest[2 * i: 2 * i + 2], 16) + 1 for i in range(len(keys))]
    total = sum(raw)
    return {k: round(v / total, 6) for k, v in zip(keys, raw, strict=True)}


class FakeOpenAI:
    """Start with ``with FakeOpenAI(...) as server:``; ``server.base_url`` is the /v1 URL."""

    def __init__(self, plan: Callable[[str], str] = lambda d: "ok", latency_s: float = 0.0,
                 stall_s: float = 3.0, retry_after: str = "1",
                 custom: Callable[[str, list[str]], dict[str, Any] | None] | None = None,
                 respond: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
                 serial: bool = False,
                 refuse: Callable[[dict[str, Any]], tuple[int, bytes] | None] | None = None, port: int = 0) -> None:
        self.plan = plan
        self.refuse = refuse  # sees the whole request body; (status, body) to answer with instead
        self.custom = custom
        self.respond = respond  # sees the whole request body (model, seed, messages)
        self.serial = serial  # one request at a time, like a server that generates for one user only
        self.latency_s = latency_s
        self.stall_s = stall_s
        self.retry_after = retry_after
        self.attempts: dict[str, list[float]] = defaultdict(list)
        self.requests: list[dict[str, Any]] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", port))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.status_override: tuple[int, bytes] | None = None
        self._one_at_a_time: asyncio.Lock | None = None
        self.request_log: str | None = None
        """A file that gets the port of every request, one line each (``DP_FAKE_REQUEST_LOG`` in :func:`main`)."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/v1/chat/completions", self._serve)
        self.runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)  # stalled handlers are not waited for
        await self.runner.setup()
        await web.SockSite(self.runner, self.sock).start()

    async def _serve(self, request: web.Request) -> web.Response:
        if self.request_log is not None:  # one line per request: the port it reached (the replicas test)
            with open(self.request_log, "a", encoding="utf-8") as log:
                log.write(f"{self.sock.getsockname()[1]}\n")
        payload = json.loads(await request.read())
        user = payload["messages"][-1]["content"]
        digest = digest_of(user)
        self.attempts[digest].append(time.monotonic())  # one event loop: no lock needed
        attempt = len(self.attempts[digest])
        self.requests.append({k: v for k, v in payload.items() if k != "messages"})
        fault = self.plan(digest)
        if self.status_override is not None:
            return _reply(self.status_override[0], self.status_override[1])
        refused = self.refuse(payload) if self.refuse is not None else None
        if refused is not None:
            return _reply(*refused)
        if self.serial:
            if self._one_at_a_time is None:
                self._one_at_a_time = asyncio.Lock()
            async with self._one_at_a_time:
                await asyncio.sleep(self.latency_s)
        elif self.latency_s:
            await asyncio.sleep(self.latency_s)
        keys = option_keys(user)
        if self.respond is not None:
            reply = self.respond(payload)
            if reply is not None:
                return _reply(200, json.dumps(reply).encode())
        if self.custom is not None:
            reply = self.custom(digest, keys)
            if reply is not None:
                return _reply(200, json.dumps(reply).encode())
        probs = deterministic_probs(digest, keys)
        if fault == "429" and attempt == 1:
            return _reply(429, b'{"error": "rate limited"}', {"Retry-After": self.retry_after})
        if (fault == "500" and attempt == 1) or fault == "always_500":
            return _reply(500, b'{"error": "internal"}')
        if fault == "stall" and attempt == 1:
            await asyncio.sleep(self.stall_s)
            return _reply(200, self._completion("{}", "stop"))
        if fault == "malformed" or (fault == "malformed_once" and attempt == 1):
            return _reply(200, b'{"choices": [ {"message": ')
        if fault == "not_completion":
            return _reply(200, b'{"object": "list", "data": []}')
        finish = "stop"
        if fault == "missing_key":
            probs.pop(keys[0])
        if fault == "unnormalised":
            probs = {k: v * 3 for k, v in probs.items()}
        content = f"<think>Checking the decisive fact.</think>\n```json\n{json.dumps(probs)}\n```"
        if fault == "truncated":
            content, finish = "<think>Let me reason about every row of the table and", "length"
        return _reply(200, self._completion(content, finish))

    @staticmethod
    def _completion(content: str, finish: str) -> bytes:
        return json.dumps({
            "id": "cmpl-test", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": len(content) // 4, "total_tokens": 100},
        }).encode()


def _reply(status: int, body: bytes, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=body, content_type="application/json", headers=headers)


def main(argv: list[str]) -> None:
    """``python -m tests.evaluate.fake_openai_server PORT [REPORT]``: serve on PORT until killed, as a ``serve:``
    command would; REPORT (a file) gets this process's id and environment as JSON. Further arguments are ignored."""
    import os
    import sys

    port = int(argv[0])
    with FakeOpenAI(port=port) as server:
        server.request_log = os.environ.get("DP_FAKE_REQUEST_LOG")
        if len(argv) > 1 and not argv[1].startswith("-"):
            Path(argv[1]).write_text(json.dumps({"pid": os.getpid(), "env": dict(os.environ)}))
        print(f"serving on {port}", file=sys.stderr, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    import sys
    from pathlib import Path

    main(sys.argv[1:])
