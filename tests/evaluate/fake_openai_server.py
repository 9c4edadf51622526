"""A small OpenAI-compatible chat-completions server on 127.0.0.1 that injects faults on purpose.

Every request is keyed by the SHA-256 of its user message, so a test can tell in advance which item
meets which fault. ``plan(digest) -> fault`` chooses it; transient faults (429, 500, stall) happen on
the first attempt only. Replies are deterministic: the probabilities depend on the digest only, so
an interrupted and an uninterrupted run give the same answers.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("ok", "429", "500", "stall", "malformed", "missing_key", "unnormalised", "truncated", "always_500")


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
                 stall_s: float = 3.0, retry_after: str = "1") -> None:
        self.plan = plan
        self.latency_s = latency_s
        self.stall_s = stall_s
        self.retry_after = retry_after
        self.attempts: dict[str, list[float]] = defaultdict(list)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                payload = json.loads(self.rfile.read(length))
                server.handle(self, payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def handle(self, handler: Any, payload: dict[str, Any]) -> None:
        user = payload["messages"][-1]["content"]
        digest = digest_of(user)
        with self.lock:
            self.attempts[digest].append(time.monotonic())
            attempt = len(self.attempts[digest])
            self.requests.append({k: v for k, v in payload.items() if k != "messages"})
        fault = self.plan(digest)
        if self.latency_s:
            time.sleep(self.latency_s)
        keys = option_keys(user)
        probs = deterministic_probs(digest, keys)
        if fault == "429" and attempt == 1:
            return handler._send(429, b'{"error": "rate limited"}', {"Retry-After": self.retry_after})
        if (fault == "500" and attempt == 1) or fault == "always_500":
            return handler._send(500, b'{"error": "internal"}')
        if fault == "stall" and attempt == 1:
            time.sleep(self.stall_s)
            return handler._send(200, self._completion("{}", "stop"))
        if fault == "malformed":
            return handler._send(200, b'{"choices": [ {"message": ')
        finish = "stop"
        if fault == "missing_key":
            probs.pop(keys[0])
        if fault == "unnormalised":
            probs = {k: v * 3 for k, v in probs.items()}
        content = f"<think>Checking the decisive fact.</think>\n```json\n{json.dumps(probs)}\n```"
        if fault == "truncated":
            content, finish = "<think>Let me reason about every row of the table and", "length"
        handler._send(200, self._completion(content, finish))

    @staticmethod
    def _completion(content: str, finish: str) -> bytes:
        return json.dumps({
            "id": "cmpl-test", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": len(content) // 4, "total_tokens": 100},
        }).encode()
