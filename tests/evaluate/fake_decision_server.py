"""A local decision-API server for what no real implementation here produces on demand.

Speaks the three wire shapes (``systemone``, ``openai_decisions``, ``sglang_decisions``) on any path and
injects the differences and faults the providers document: probabilities rounded to two decimals
(OpenRouter) or summing to 1 +- 0.01 (Perplexity), vLLM's ``diagnostics``, refusals, missing answers,
answers keyed by position instead of name, 413/422/529 and config errors. Every request is keyed by
the SHA-256 of its state, so a test knows in advance which item meets which fault; the probabilities
depend on that digest only (deterministic).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from aiohttp import web

FAULTS = ("ok", "rounded", "off_by_001", "refusal", "missing_answer", "413", "422_list", "422_string",
          "529_once", "unknown_option", "bad_sum", "diagnostics")


def state_digest(state: Any) -> str:
    text = state if isinstance(state, str) else json.dumps(state, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def weights(digest: str, n: int) -> list[float]:
    raw = [int(digest[2 * i: 2 * i + 2], 16) + 1 for i in range(n)]
    return [v / sum(raw) for v in raw]


def expected_probabilities(digest: str, options: list[str]) -> dict[str, float]:
    """What the server means to say for these options (before rounding or faults)."""
    return dict(zip(options, weights(digest, len(options)), strict=True))


class FakeDecisions:
    """``with FakeDecisions(shape) as server:``; ``server.base_url`` is the root URL (no path)."""

    def __init__(self, shape: str, plan: Callable[[str], str] = lambda d: "ok", model: str = "fake-decider",
                 refuse: tuple[int, Any] | None = None, require_key: str | None = None, port: int = 0) -> None:
        self.shape = shape
        self.refuse = refuse
        self.require_key = require_key
        self.plan = plan
        self.model = model
        self.attempts: dict[str, int] = defaultdict(int)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", port))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __enter__(self) -> FakeDecisions:
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
        app.router.add_post("/{tail:.*}", self._serve)
        self.runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self.runner.setup()
        await web.SockSite(self.runner, self.sock).start()

    async def _serve(self, request: web.Request) -> web.Response:
        payload = json.loads(await request.read())
        self.requests.append(payload)
        self.paths.append(request.path)
        self.headers.append(dict(request.headers))
        if self.refuse is not None:
            return _json(self.refuse[0], self.refuse[1])
        if self.require_key is not None and request.headers.get("Authorization") != f"Bearer {self.require_key}":
            return _json(401, {"detail": {"error_type": "authentication", "message": "invalid API key"}})
        if payload.get("model") != self.model:
            return _json(400, {"detail": f"Server is pinned to {self.model!r}; requested {payload.get('model')!r}."})
        state = payload["state"] if self.shape == "systemone" else payload["input"]
        digest = state_digest(state)
        self.attempts[digest] += 1
        fault = self.plan(digest)
        if fault == "413":
            return _json(413, {"detail": "Request body exceeds 1 MiB"})
        if fault == "422_list":
            return _json(422, {"detail": [{"loc": ["body", "questions", "decision"], "type": "value_error",
                                           "msg": "this model reads at most 2 options for a choice question"}]})
        if fault == "422_string":
            return _json(422, {"detail": "state size exceeds the limit of 32k tokens"})
        if fault == "529_once" and self.attempts[digest] == 1:
            return _json(529, {"error": {"message": "overloaded"}}, {"Retry-After": "0"})
        question, options, kind = self._question(payload)
        probs = expected_probabilities(digest, options)
        if fault == "rounded":
            probs = {k: round(v, 2) for k, v in probs.items()}
        if fault == "off_by_001":
            probs = {k: v * 1.01 for k, v in probs.items()}
        if fault == "bad_sum":
            probs = {k: v * 1.5 for k, v in probs.items()}
        if fault == "unknown_option":
            probs = {**probs, "maybe": 0.0}
        return _json(200, self._answer(question, kind, probs, fault))

    def _question(self, payload: dict[str, Any]) -> tuple[Any, list[str], str]:
        if self.shape == "systemone":
            [(qid, q)] = payload["questions"].items()
            if q["type"] == "score":  # levels are named by their index in the criteria array
                return qid, [str(i) for i in range(len(q["criteria"]))], "score"
            options = ["true", "false"] if q["type"] == "noul" else list(q["criteria"])
            return qid, options, q["type"]
        [q] = payload["questions"]
        if q["type"] == "score":
            return q.get("name", q.get("id")), [str(i) for i in range(len(q["levels"]))], "score"
        if self.shape == "openai_decisions":
            options = ["true", "false"] if q["type"] == "predicate" else [c["value"] for c in q["choices"]]
            return q.get("name"), options, q["type"]
        options = ["yes", "no"] if q["type"] == "yes_no" else [o["name"] for o in q["options"]]
        return q["id"], options, q["type"]

    def _answer(self, qid: Any, kind: str, probs: dict[str, float], fault: str) -> dict[str, Any]:
        usage = {"input_tokens": 120, "output_tokens": 0}
        if self.shape == "systemone":
            if fault == "refusal":
                answer: dict[str, Any] = {"type": kind, "refusal": "I can't help with that"}
            elif kind == "noul":
                answer = {"type": "noul", "noul": probs["true"]}
            elif kind == "score":
                answer = {"type": "score", "score": sum(int(k) * v for k, v in probs.items()), "confidence": 0.25,
                          "legend": {}, "probabilities": probs}
            else:
                answer = {"type": "choice", "choice": max(probs, key=probs.__getitem__), "confidence": 0.5,
                          "probabilities": probs}
            body = {"model": self.model, "answers": {} if fault == "missing_answer" else {qid: answer}, "usage": usage}
            if fault == "diagnostics":
                body.update({"id": "so-1", "object": "systemone", "created": 0,
                             "diagnostics": {"label_mass": 0.93, "argmax_is_label": True}})
            return body
        if self.shape == "openai_decisions":
            if fault == "refusal":
                answer = {"name": qid, "refusal": "I can't help with that"}
            elif kind == "predicate":
                answer = {"name": qid, "type": "predicate", "probability": probs["true"]}
            elif kind == "score":
                levels = self.requests[-1]["questions"][0]["levels"]
                answer = {"name": qid, "type": "score", "score": sum(int(k) * v for k, v in probs.items()),
                          "confidence": 0.25, "probabilities": [
                              {"label": levels[int(k)]["label"], "value": int(k), "probability": v}
                              for k, v in probs.items()]}
            else:
                answer = {"name": qid, "type": "choice", "choice": max(probs, key=probs.__getitem__),
                          "probabilities": [{"value": k, "probability": v} for k, v in probs.items()]}
            decoy = {"name": "other", "type": "predicate", "probability": 0.0}
            answers = [] if fault == "missing_answer" else [decoy, answer]  # by name, never by position
            return {"answers": answers, "usage": usage}
        answer = {"type": kind, "probabilities": probs, "label_mass": 0.87, "choice": max(probs, key=probs.__getitem__)}
        if kind == "score":
            answer = {"type": kind, "probabilities": probs, "label_mass": 0.87,
                      "score": sum(int(k) * v for k, v in probs.items())}
        return {"answers": {} if fault == "missing_answer" else {qid: answer}, "usage": {"prompt_tokens": 150}}


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json",
                        headers=headers)


def main() -> None:
    """Serve until killed (the container test reaches it from inside the image): --port, --model, --key."""
    import argparse
    import signal

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="systemone", choices=["systemone", "openai_decisions", "sglang_decisions"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model", default="fake-decider")
    parser.add_argument("--key", default=None, help="require Authorization: Bearer KEY (else 401)")
    args = parser.parse_args()
    with FakeDecisions(args.shape, model=args.model, require_key=args.key, port=args.port) as server:
        print(f"serving {args.shape} on {server.base_url}", flush=True)
        signal.sigwait({signal.SIGTERM, signal.SIGINT})


if __name__ == "__main__":
    main()
