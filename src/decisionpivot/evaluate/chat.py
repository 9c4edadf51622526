"""The `chat` runner: OpenAI-compatible chat completions, at scale and unattended.

Bounded in-flight requests (a fixed pool of workers over one aiohttp session, whose per-request CPU
cost is a third of httpx's: see benchmarks/evaluate_throughput.py), an optional requests-per-minute limit,
exponential backoff with full jitter that honours ``Retry-After`` on 429/5xx and timeouts, a retry
budget per task, and one record per item whatever happens: a reply that cannot be read becomes an
error record and its raw text goes to ``<task>.raw.jsonl`` beside the answers.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.prompt import ReplyError, chat_messages, parse_reply
from decisionpivot.evaluate.systems import SystemConfig
from decisionpivot.items import Item

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
FATAL_STATUS = frozenset({401, 403})
BACKOFF_BASE_S = 1.0
BACKOFF_CAP_S = 60.0
RETRY_AFTER_CAP_S = 300.0
CHARS_PER_TOKEN = 4


@dataclass
class RunCounters:
    """Live counts shown on the progress bar and recorded in the metadata."""

    answered: int = 0
    errors: int = 0
    retries: int = 0


class RetryBudget:
    """How many retries a task may still spend; once spent, failures are recorded at once."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


class RateLimiter:
    """Spaces request starts at least 60/rpm seconds apart (no limit when rpm is 0)."""

    def __init__(self, requests_per_minute: float) -> None:
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        await asyncio.sleep(start - now)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date); None if absent."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_delay(attempt: int, retry_after: float | None, rng: random.Random,
                  base: float = BACKOFF_BASE_S) -> float:
    """Full-jitter exponential backoff; a server's Retry-After is a lower bound (capped)."""
    delay = rng.uniform(0, min(BACKOFF_CAP_S, base * 2**attempt))
    if retry_after is not None:
        delay = max(delay, min(retry_after, RETRY_AFTER_CAP_S))
    return delay


def proxy_for(url: str) -> str | None:
    """The proxy the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) names for ``url``, or None.

    Looked up once per run: aiohttp's ``trust_env`` would look it up in a worker thread on every
    request, and that thread's fight for the GIL costs more CPU than the request itself.
    """
    parts = urlsplit(url)
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def estimated_tokens(messages: Sequence[dict[str, str]]) -> int:
    return sum(len(m["content"]) for m in messages) // CHARS_PER_TOKEN + 1


class ChatRunner:
    """Answers items through one OpenAI-compatible endpoint."""

    def __init__(self, system: SystemConfig) -> None:
        self.system = system
        s = system.settings
        self.url = str(s["base_url"]).rstrip("/") + "/chat/completions"
        self.headers = {"Content-Type": "application/json"}
        if s.get("api_key_env"):
            key = os.environ.get(str(s["api_key_env"]))
            if not key:
                raise DecisionPivotError(
                    f"system {system.name!r}: environment variable {s['api_key_env']} is not set (it holds the API key)"
                )
            self.headers["Authorization"] = f"Bearer {key}"
        self.backoff_base = float(s.get("backoff_base_s") or BACKOFF_BASE_S)
        self.proxy = proxy_for(self.url)
        self.rng = random.Random(0)

    def _payload(self, item: Item) -> dict[str, Any]:
        s = self.system.settings
        payload: dict[str, Any] = {
            "model": s["model"], "messages": chat_messages(item), "temperature": s["temperature"],
            "max_tokens": s["max_tokens"],
        }
        if s.get("reasoning_effort"):
            payload["reasoning_effort"] = s["reasoning_effort"]
        payload.update(s.get("extra_body") or {})
        return payload

    async def _ask(self, session: aiohttp.ClientSession, item: Item, limiter: RateLimiter, budget: RetryBudget,
                   counters: RunCounters, raw_log: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """One item, with retries; always returns a record."""
        s = self.system.settings
        payload = self._payload(item)
        if s.get("context_tokens") and estimated_tokens(payload["messages"]) > int(s["context_tokens"]):
            estimate = estimated_tokens(payload["messages"])
            reason = f"input longer than the declared context ({estimate} estimated tokens > {s['context_tokens']})"
            return {"id": item.id, "error": reason}
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            await limiter.wait()
            started = time.monotonic()
            failure: str
            retry_after: float | None = None
            try:
                async with session.post(self.url, data=body, headers=self.headers, proxy=self.proxy) as response:
                    status = response.status
                    text = await response.text(encoding="utf-8", errors="replace")
                    retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            except TimeoutError:
                failure = f"timeout after {s['timeout_s']} s"
            except aiohttp.ClientError as exc:
                failure = f"connection error: {type(exc).__name__}"
            else:
                latency = round(time.monotonic() - started, 3)
                if status == 200:
                    return self._record(item, text, latency, raw_log)
                if status in FATAL_STATUS:
                    raise DecisionPivotError(
                        f"system {self.system.name!r}: the endpoint refused the request with HTTP "
                        f"{status} ({text[:200]!r}); check the API key variable"
                    )
                failure = f"HTTP {status}"
                if status not in RETRY_STATUS:
                    raw_log({"id": item.id, "error": failure, "raw": text[:20000]})
                    return {"id": item.id, "error": f"{failure}: {text[:300]}"}
            attempt += 1
            if attempt >= int(s["max_attempts"]):
                return {"id": item.id, "error": f"{failure} (gave up after {attempt} attempts)"}
            if not budget.take():
                return {"id": item.id, "error": f"{failure} (retry budget of the task spent)"}
            counters.retries += 1
            await asyncio.sleep(backoff_delay(attempt - 1, retry_after, self.rng, self.backoff_base))

    def _record(self, item: Item, text: str, latency: float,
                raw_log: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        try:
            body = json.loads(text)
            choice = body["choices"][0]
            content = choice["message"].get("content") or ""
            finish = choice.get("finish_reason")
        except (json.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError):
            raw_log({"id": item.id, "error": "malformed response body", "raw": text[:20000]})
            return {"id": item.id, "error": "malformed response body (not a chat completion)", "latency_s": latency}
        usage = body.get("usage") or {}
        if not isinstance(usage, dict):
            usage = {}
        extra: dict[str, Any] = {"latency_s": latency, "closed": finish != "length"}
        if isinstance(usage.get("completion_tokens"), int):
            extra["tokens"] = usage["completion_tokens"]
        try:
            probs = parse_reply(content, item.option_keys)
        except ReplyError as exc:
            reason = str(exc) if finish != "length" else f"reply cut off at max_tokens ({exc})"
            raw_log({"id": item.id, "error": reason, "raw": content})
            return {"id": item.id, "error": reason, **extra}
        return {"id": item.id, "p": probs, **extra}

    async def run(self, items: Sequence[Item], emit: Callable[[dict[str, Any]], None], counters: RunCounters,
                  raw_path: Path, retry_budget: int, on_progress: Callable[[], None] | None = None) -> None:
        """Answer every item; ``emit`` receives each record as soon as it exists."""
        s = self.system.settings
        limiter = RateLimiter(float(s["requests_per_minute"] or 0))
        budget = RetryBudget(retry_budget)
        queue: asyncio.Queue[Item] = asyncio.Queue()
        for item in items:
            queue.put_nowait(item)
        raw_path.parent.mkdir(parents=True, exist_ok=True)
        with raw_path.open("a", encoding="utf-8") as raw_handle:

            def raw_log(entry: dict[str, Any]) -> None:
                raw_handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
                raw_handle.flush()

            timeout_s = float(s["timeout_s"])
            timeout = aiohttp.ClientTimeout(total=timeout_s, connect=min(30.0, timeout_s))
            concurrency = min(int(s["concurrency"]), max(len(items), 1))
            connector = aiohttp.TCPConnector(limit=concurrency)
            async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

                async def worker() -> None:
                    while True:
                        try:
                            item = queue.get_nowait()
                        except asyncio.QueueEmpty:
                            return
                        record = await self._ask(session, item, limiter, budget, counters, raw_log)
                        emit(record)
                        if on_progress:
                            on_progress()

                workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
                try:
                    await asyncio.gather(*workers)
                finally:
                    for w in workers:
                        w.cancel()
