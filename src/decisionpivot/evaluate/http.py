"""The HTTP engine every remote kind shares: at scale, unattended, one trustworthy record per item.

A kind that answers over HTTP (``chat``, ``systemone``, ``openai_decisions``, ``sglang_decisions``, ``logprobs``)
supplies a :class:`Wire`: the URL, the request body for an item, and the reading of a 200 response.
The engine does the rest, the same way for all of them:

* a fixed pool of workers over one aiohttp session (its per-request CPU cost is a third of httpx's:
  see benchmarks/evaluate_throughput.py), an optional requests-per-minute limit;
* an **adaptive in-flight limit** (additive increase, multiplicative decrease): a timeout or a 429
  halves it (once per window of requests), each success grows it by 1/limit, up to ``concurrency``,
  so a server that serves one request at a time is not buried under retries of queued requests;
  the time an item waits for a slot is recorded as ``queued_s``, apart from ``latency_s``;
* **what a reply is** - the model's answer, a final record its interface documents, a stop, or transient - is
  decided by the one table of :mod:`decisionpivot.evaluate.outcome`, an allow-list: only a 200 whose body the
  kind's :class:`Wire` reads as a valid answer is an answer; 413 and a 400/422 saying the item is too large are
  ``input restriction`` records; 401/403/407 and a 400/422 naming a request parameter stop the run at once;
  **everything else** - any other status (201, 202, 206, 420, 498, 600, 999...), a 200 body that is empty, not
  JSON, cut off or not the interface's reply, a timeout, a reset - is retried with full-jitter exponential
  backoff honouring ``Retry-After``, within ``max_attempts`` and a per-task retry budget; when they are spent
  the record is an error marked ``"transient": true``, which a re-run asks again and which makes
  ``dp evaluate`` exit non-zero (the scorer counts it as missing);
* a server that cannot be reached (connection refused, no such host) or that accepts connections and
  sends nothing within ``timeout_s``, for ``stop_after_failures`` attempts in a row with no answer in
  between, stops the run with one line; a re-run resumes;
* when the run's first ``stop_after_failures`` requests (items' first attempts) all fail with the same status
  before the system has answered anything (a wrong model name, a wrong path, a redirect not followed, a body
  that is not this interface's), the run stops with one line: a configuration error; statuses that ask to
  come back later (5xx, 429, ...: :func:`~decisionpivot.evaluate.outcome.asks_to_wait`) do not count.
  Records are not written for the items of a stopped run, so fixing the config and re-running asks them
  again; until the system answers, such items are set aside and asked again (with retries) once it does
  (:class:`_EarlyStop`). A system heard answering (this run, an earlier task, a resumed answer file) is never
  stopped so;
* redirects are not followed (``redirects: refuse``): transient, the record names the target. ``same-origin``
  follows them within the configured origin; ``follow`` follows them anywhere, but the key and the
  ``headers:`` never leave the configured origin;
* every non-200 body and every unreadable reply goes to ``<task>.raw.jsonl``; the API key's value, the
  values of ``headers:`` and secrets in the URL are replaced in every message, record and log line.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import hashlib
import ipaddress
import json
import os
import random
import re
import signal
import threading
import time
import urllib.request
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl, urljoin, urlsplit, urlunsplit

import aiohttp

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.answers import TIMINGS
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    REQUEST_DIGEST,
    SAME_REQUEST_AS,
    Emit,
    Record,
    RunCounters,
    Setting,
    SettingError,
    SystemConfig,
    boolean,
    closed,
    integer,
    number,
    one_of,
    optional_command,
    optional_integer,
    optional_number,
    string_mapping,
    text,
)
from decisionpivot.evaluate.kinds import mapping as mapping_check
from decisionpivot.evaluate.outcome import (
    CREDENTIAL_STATUSES,
    SUCCESS_STATUSES,
    Verdict,
    asks_to_wait,
    status_verdict,
)
from decisionpivot.evaluate.served import READY_TIMEOUT_S, LocalServer, ServeError, start_copies
from decisionpivot.items import Item
from decisionpivot.redact import redact, written_url

REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
BACKOFF_CAP_S = 60.0
CONNECT_BACKOFF_CAP_S = 2.0
"""Retries of a refused connection wait at most this long: a server that is gone is found out in seconds."""
RETRY_AFTER_CAP_S = 300.0
RAW_LIMIT = 20000
OVERLOAD_STATUSES = frozenset({420, 429})
"""Rate limits: besides a timeout, what halves the adaptive in-flight limit."""


HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP header's name (RFC 9110 token)."""
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""An environment variable's name."""


def header_name(value: Any) -> str:
    """``auth_header:``: a header's name, never a value (it is written in clear)."""
    if not isinstance(value, str) or not HEADER_NAME.fullmatch(value):
        raise SettingError("expected a header name of letters, digits and -, e.g. Authorization or X-Api-Key "
                           "(the key itself goes in the variable api_key_env names)")
    return value


def variable_name(value: Any) -> str | None:
    """``api_key_env:``: the name of an environment variable (the key is read from it, never written down)."""
    if value is None:
        return None
    if not isinstance(value, str) or not VARIABLE_NAME.fullmatch(value):
        raise SettingError("expected the name of an environment variable (letters, digits and _), e.g. "
                           "OPENAI_API_KEY: the key itself goes in that variable, never in the systems file")
    return value


def header_mapping(value: Any) -> dict[str, str]:
    """``headers:``: names and values are strings without line breaks or control characters."""
    checked = string_mapping(value)
    for name, header in checked.items():
        if not HEADER_NAME.fullmatch(name):
            raise SettingError(f"expected header names of letters, digits and -, got {name!r}")
        if any(ord(c) < 32 or ord(c) == 127 for c in header if c != "\t"):
            raise SettingError(f"header {name}: a value without line breaks or control characters")
    return checked


def environment_mapping(value: Any) -> dict[str, str]:
    """``serve_env:``: variable names of letters, digits and _, values strings without a NUL character."""
    checked = string_mapping(value)
    for name, variable in checked.items():
        if not VARIABLE_NAME.fullmatch(name):
            raise SettingError(f"expected variable names of letters, digits and _, got {name!r}")
        if "\x00" in variable:
            raise SettingError(f"{name}: a value without a NUL character")
    return checked


# Settings shared by every kind that answers over HTTP.
MAX_REPLICAS = 8
"""Most copies of a served process ``replicas: auto`` starts."""


@closed
def replica_count(value: Any) -> int | str:
    """``replicas:``: a whole number from 1 to 64, or ``auto`` (a closed set: written in clear)."""
    if value == "auto":
        return "auto"
    return integer(1, 64)(value)


def replicas_wanted(setting: int | str) -> int:
    """The copies ``replicas:`` asks for: ``auto`` is one per CPU this process may run on, at most
    :data:`MAX_REPLICAS`."""
    if setting != "auto":
        return int(setting)
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(MAX_REPLICAS, available))


HTTP_SETTINGS: dict[str, Setting] = {
    "base_url": Setting(None, text, "the server's base URL, e.g. http://localhost:8000 (where the model is "
                        "reached, not which model: not part of the fingerprint)", identity=False),
    "api_key_env": Setting(None, variable_name, "name of the environment variable holding the key "
                           "(the key is never written anywhere)", identity=False),
    "auth_header": Setting("Authorization", header_name, "header that carries the key", identity=False),
    "auth_scheme": Setting("Bearer", one_of("Bearer", "Basic", "none"),
                           "Bearer <key>, Basic base64(<basic_user>:<key>), or the bare key", identity=False),
    "basic_user": Setting("token", text, "user name for Basic auth (Databricks: token)", identity=False),
    "headers": Setting({}, header_mapping, "extra request headers; their values are never written or printed",
                       identity=False),
    "redirects": Setting("refuse", one_of("refuse", "same-origin", "follow"),
                         "refuse: a redirect is an error naming its target; same-origin: follow within the "
                         "configured origin; follow: follow anywhere (the key and headers stay with the origin)",
                         identity=False),
    "extra_body": Setting({}, mapping_check, "a mapping merged into each request body"),
    "concurrency": Setting(16, integer(1, 4096), "most requests in flight (the adaptive limit starts here); per "
                           "copy of a served process (replicas:)",
                           identity=False),
    "adaptive_concurrency": Setting(True, boolean, "halve the in-flight limit on timeouts and 429s, "
                                    "grow it back by one per window of successes", identity=False),
    "requests_per_minute": Setting(0, number(0, maximum=1e6), "0 = unlimited", identity=False),
    "timeout_s": Setting(120.0, number(0, strict=True, maximum=86400), "seconds per request", identity=False),
    "max_attempts": Setting(6, integer(1, 100), "attempts per item on retryable failures", identity=False),
    "backoff_base_s": Setting(1.0, number(0, maximum=3600), "retry n waits a random time up to base x 2^n, at least "
                              "Retry-After", identity=False),
    "retry_budget": Setting(None, optional_integer(0), "retries allowed per task (default 50 + 10% of the items)",
                            identity=False),
    "stop_after_failures": Setting(8, integer(1, 10000), "stop the run when the first N requests all fail with the "
                                   "same 4xx (a configuration error, not the items), or N attempts in a row find "
                                   "no server", identity=False),
    "serve": Setting(None, optional_command, "a command that starts the system's own server, run by dp for the "
                     "evaluation ('{port}': a free loopback port, '{python}': this Python); base_url is then its URL "
                     "(its arguments are recorded as hashes, option names in clear)"),
    "serve_env": Setting({}, environment_mapping, "environment variables for the served process (e.g. pinned BLAS "
                         "threads and kernel, for the same answer bytes on every host; '${NAME}' passes dp's own "
                         "NAME, e.g. HF_TOKEN: '${HF_TOKEN}'); it gets only these and served.BASE_ENVIRONMENT; "
                         "values are recorded as hashes, names and ${NAME} references in clear"),
    "replicas": Setting(1, replica_count, "how many copies of the serve: process dp starts, each on its own port, "
                        "the requests spread over them in turn ('auto': one per CPU dp may use, at most "
                        f"{MAX_REPLICAS}); concurrency is then per copy. Copies of one deterministic server give the "
                        "same answers, so it is not part of the fingerprint", identity=False),
    "ask_each_request_once": Setting(False, boolean, "the system replies to the same request bytes the same way "
                                     "every time (a deterministic server: pinned threads and kernel): each distinct "
                                     "request of a run is sent once, and an item whose request is byte for byte an "
                                     "earlier item's gets that reply, recorded with same_request_as: <its id>. The "
                                     "answers do not change, so it is not part of the fingerprint", identity=False),
    "serve_ready_s": Setting(READY_TIMEOUT_S, number(0, strict=True, maximum=86400), "seconds the served process "
                             "may take to answer", identity=False),
    "price_per_million_input_tokens": Setting(None, optional_number(0), "for the cost column of the leaderboard",
                                              identity=False),
    "price_per_million_output_tokens": Setting(None, optional_number(0), "for the cost column of the leaderboard",
                                               identity=False),
}


SERVED_INSTEAD = {"base_url": "serve"}
"""A system whose server dp starts (``serve:``) needs no ``base_url``: the runner knows its URL."""


class StopRun(DecisionPivotError):
    """The server refuses every request for a reason no item can fix: the run stops (exit non-zero)."""


class Wire(Protocol):
    """What a kind says on the wire."""

    path: str
    """Appended to the system's ``base_url``."""

    def refused(self, item: Item) -> str | None:
        """Why ``item`` is not sent (it breaks a declared limit: an ``input restriction: ...`` reason), or None."""

    def request(self, item: Item) -> dict[str, Any]:
        """The JSON body for ``item``."""

    def parse(self, item: Item, body: Any) -> Record:
        """The record for a 200 response body (already decoded JSON); raise ValueError if unreadable."""


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date); None if absent."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds and seconds != float("inf") else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_delay(attempt: int, retry_after: float | None, rng: random.Random, base: float = 1.0) -> float:
    """Full-jitter exponential backoff; a server's Retry-After is a lower bound (capped)."""
    delay = rng.uniform(0, min(BACKOFF_CAP_S, base * 2 ** min(attempt, 30)))
    if retry_after is not None:
        delay = max(delay, min(retry_after, RETRY_AFTER_CAP_S))
    return delay


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is this machine (``localhost``, 127.0.0.0/8, ::1): never reached through a proxy."""
    if not host:
        return False
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def proxy_for(url: str) -> str | None:
    """The proxy the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) names for ``url``, or None.

    A loopback host is never sent to a proxy, whatever NO_PROXY says (a proxy elsewhere cannot reach this
    machine's ``127.0.0.1``: the request would go to the proxy's own). Looked up once per run: aiohttp's
    ``trust_env`` would look it up in a worker thread on every request, and that thread's fight for the
    GIL costs more CPU than the request itself.
    """
    parts = urlsplit(url)
    if is_loopback(parts.hostname):
        return None
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def endpoint_url(base_url: str, path: str) -> str:
    """``path`` appended to the path of ``base_url``; its query string (``?api-version=...``) stays a query."""
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + path, parts.query, ""))


def server_message(text: str, limit: int = 300) -> str:
    """The human part of an error body: FastAPI ``detail`` (string, object or list of {loc, msg}),
    OpenAI-style ``{"error": {"message"}}``, a top-level ``message``, or the text itself."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return " ".join(text.split())[:limit]

    def flatten(value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "; ".join(flatten(v) for v in value)
        if isinstance(value, dict):
            for key in ("msg", "message", "detail", "error"):
                if key in value:
                    text = flatten(value[key])
                    loc = value.get("loc")
                    if key == "msg" and isinstance(loc, list) and loc:
                        text = f"{'.'.join(str(p) for p in loc)}: {text}"
                    return text
        return json.dumps(value, ensure_ascii=False)

    if isinstance(body, dict):
        for key in ("detail", "error", "message"):
            if key in body:
                return " ".join(flatten(body[key]).split())[:limit]
    return " ".join(flatten(body).split())[:limit]


def same_origin(a: str, b: str) -> bool:
    """Whether two URLs share scheme, host and port (the origin a credential belongs to)."""
    pa, pb = urlsplit(a), urlsplit(b)
    default = {"http": 80, "https": 443}
    return (pa.scheme.lower(), (pa.hostname or "").lower(), pa.port or default.get(pa.scheme.lower())) == \
        (pb.scheme.lower(), (pb.hostname or "").lower(), pb.port or default.get(pb.scheme.lower()))


def counted_tokens(value: Any) -> int | None:
    """A token count a server reported, if it is a non-negative whole number; otherwise None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


@dataclass
class _Attempt:
    """How one attempt ended, for the adaptive limit."""

    overload: bool
    """A timeout or a rate limit (:data:`OVERLOAD_STATUSES`): the server is saturated."""
    success: bool
    """A success status (:data:`~decisionpivot.evaluate.outcome.SUCCESS_STATUSES`)."""


class RetryBudget:
    """How many retries a task may still spend; once spent, failures are recorded at once."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


class AdaptiveLimit:
    """How many requests may be in flight: AIMD between 1 and ``maximum``."""

    def __init__(self, maximum: int, adaptive: bool) -> None:
        self.maximum = maximum
        self.adaptive = adaptive
        self.limit = float(maximum)
        self.in_flight = 0
        self._decreased_at = -1.0
        self._condition = asyncio.Condition()

    async def acquire(self) -> None:
        """Wait for a slot."""
        async with self._condition:
            await self._condition.wait_for(lambda: self.in_flight < max(1, int(self.limit)))
            self.in_flight += 1

    async def release(self, started: float, outcome: _Attempt) -> None:
        async with self._condition:
            self.in_flight -= 1
            if self.adaptive and outcome.overload and started > self._decreased_at:
                # one decrease per window: requests already in flight when it happened do not halve again
                self.limit = max(1.0, self.limit / 2)
                self._decreased_at = time.monotonic()
            elif self.adaptive and outcome.success:
                self.limit = min(float(self.maximum), self.limit + 1 / self.limit)
            self._condition.notify_all()


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


class _EarlyStop:
    """Stops a run whose first requests all fail the same way (a configuration error).

    A request is an item's first attempt. While the window is open - until the system is heard answering: a
    record that is neither transient nor an input restriction, in this run or before it (``heard``: an answer file
    resumed under the same fingerprint, an earlier task of the evaluation) - an item whose first attempt fails
    with a status that counts is *parked*, not retried: if the run's first ``threshold`` requests all failed with
    one status the run stops and nothing is recorded for them; once the window closes (the system answered, or
    two different failures) the parked items are asked again with their retries; if it never closes (a run too
    short to tell) each is recorded transient. Transient records of other failures are held while the window is
    open too. A resumed run whose remaining items fail persistently is never mistaken for a wrong configuration."""

    def __init__(self, emit: Emit, threshold: int, url: str = "", heard: bool = False) -> None:
        self.emit = emit
        self.threshold = threshold
        self.url = url
        """The URL the requests went to (shown redacted), named in the stop's message."""
        self.statuses: list[int] = []
        """The status of each request counted so far (all equal while the window is open)."""
        self.held: list[Record] = []
        """Transient records written while the window is open: emitted when it closes, dropped if the run stops."""
        self.parked: list[tuple[Item, Record]] = []
        """Items whose first attempt counted, with the transient record they get if the window never closes."""
        self.requeue: Callable[[Item], None] | None = None
        """Where parked items go when the window closes (the run's queue)."""
        self.open = not heard
        self.heard = heard
        """The system has answered (a record that is the model's answer or a final record of its interface)."""

    def failed(self, status: int | None, failure: str) -> None:
        """Count an item's failed first attempt (``status`` None: one that asked to wait or got no reply, not
        counted); raise StopRun when the run's first :attr:`threshold` counted requests all failed with one status."""
        if not self.open or status is None:
            return
        self.statuses.append(status)
        if len(set(self.statuses)) > 1:  # two different failures: not one configuration error
            self.finish()
        elif len(self.statuses) >= self.threshold:
            raise StopRun(
                f"the first {len(self.statuses)} requests all failed with {failure or f'HTTP {status}'} - not the "
                f"items: a configuration error (model name, URL, path, fields) at {self.url or 'the server'}, or a "
                "server that does not speak this interface; nothing was recorded for them. Fix the system's config "
                "and run again"
            )

    def park(self, item: Item, record: Record) -> None:
        """Keep ``item`` until the window closes (see the class docstring); ``record`` if it never does."""
        self.parked.append((item, record))

    def __call__(self, record: Record) -> None:
        if not record.get("transient") and not str(record.get("error", "")).startswith(INPUT_RESTRICTION):
            self.heard = True  # the model answered: whatever failed was not the configuration
        if self.open:
            if record.get("transient"):
                self.held.append(record)
                return
            if self.heard:
                self.finish()
        self.emit(record)

    def finish(self, at_end: bool = False) -> None:
        """Close the window: the held records are written, the parked items asked again (or, ``at_end`` of a run
        too short to tell, written as their transient records)."""
        self.open = False
        held, self.held = self.held, []
        for record in held:
            self.emit(record)
        parked, self.parked = self.parked, []
        for item, record in parked:
            if at_end or self.requeue is None:
                self.emit(record)
            else:
                self.requeue(item)


@dataclass
class _Reply:
    """What one attempt got back: a whole body, or a failure before or while it was read."""

    timed_out: bool = False
    """The attempt ran out of ``timeout_s`` (waiting for the response or reading its body): the server is saturated."""
    silent: bool = False
    """The connection was accepted but no status line came within ``timeout_s``: the server may be hung or gone."""

    status: int = 0
    """HTTP status of the (last) response; 0 when none arrived."""
    text: str = ""
    """The body, decoded (UTF-8, errors replaced); only when it was read whole."""
    failure: str = ""
    """Why the attempt failed on the way (connection, timeout, a body cut off): retried; "" when none."""
    unreachable: bool = False
    """No connection could be made at all (refused, no such host): the server may be gone."""
    retry_after: float | None = None
    """Seconds a non-200 response asked us to wait."""
    redirect: str = ""
    """Why a redirect was not followed, naming its target ("" when there was none or it was followed)."""


@dataclass(frozen=True)
class _NotRead:
    """Why a 200 body is not the model's answer."""

    reason: str
    """What was wrong with it (the record's error when it persists)."""
    parsed: bool
    """The body was JSON (not the interface's reply); False: not JSON at all (cut off, empty, HTML)."""


class _Reachability:
    """Counts attempts in a row that found no server, across the run's workers."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self.misses = 0
        self.answered = False
        self.last_answer = float("-inf")
        """When the server last answered anything (time.monotonic)."""
        self.last_silent_miss = float("-inf")
        """When a timeout without a response was last counted as a miss."""

    def record(self, reply: _Reply, started: float) -> bool:
        """Note one attempt begun at ``started``; True when ``threshold`` attempts in a row found no server.

        A timeout with no response counts as one miss per *round*: when the server answered nothing at all since
        the attempt began, and the attempt began after the last such miss (the requests in flight together time
        out together: one round, not ``concurrency`` misses). A busy server that answers other requests while some
        time out is saturated, not gone: the adaptive limit handles it. A server that accepts and never answers
        stops the run after ``threshold`` rounds of ``timeout_s``.
        """
        if reply.silent and self.last_answer < started and started > self.last_silent_miss:
            self.misses += 1
            self.last_silent_miss = time.monotonic()
        elif reply.unreachable:
            self.misses += 1
        elif reply.status:
            self.misses = 0
            self.answered = True
            self.last_answer = time.monotonic()
        return self.misses >= self.threshold


class SharedReplies:
    """One reply per distinct request body of a run, for a system that replies to the same bytes the same way.

    The first item with a body is asked; an item whose body is the same waits for that reply and takes it when it is
    final (an answer, or a final record its interface documents). A transient reply, or none (the early stop kept the
    item), is nobody else's: each waiting item is then asked itself, the next one in its turn becoming the first."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._pending: dict[str, asyncio.Future[Record | None]] = {}
        self._final: dict[str, Record] = {}

    async def earlier(self, digest: str) -> Record | None:
        """The final record of an earlier item with this body, waiting for it if it is being asked; None: ask."""
        if not self.enabled:
            return None
        while digest not in self._final:
            pending = self._pending.get(digest)
            if pending is None:
                self._pending[digest] = asyncio.get_running_loop().create_future()
                return None
            await asyncio.shield(pending)
        return self._final[digest]

    def settle(self, digest: str, record: Record | None) -> None:
        """The asked item's ``record`` (None: none yet): kept for the others when final; the waiting items wake."""
        if not self.enabled:
            return
        if record is not None and not record.get("transient"):
            self._final[digest] = record
        pending = self._pending.pop(digest, None)
        if pending is not None and not pending.done():
            pending.set_result(record)


class HttpRunner:
    """The :class:`~decisionpivot.evaluate.kinds.Runner` of every HTTP kind."""

    def __init__(self, system: SystemConfig, wire: Wire) -> None:
        self.system = system
        self.wire = wire
        s = system.settings
        self.servers: list[LocalServer] = []
        """The system's own servers, when ``serve:`` declares one (``replicas:`` copies, started by the first
        :meth:`run`)."""
        self.urls: list[str] = []
        """The endpoint of every served copy (empty: :attr:`url` alone), asked in turn."""
        self._turn = 0
        self.heard = False
        """The system answered in an earlier task of this evaluation: no early stop for the next ones."""
        self._point_at(str(s.get("base_url") or "http://127.0.0.1"))
        self.origin_headers = dict(s.get("headers") or {})
        """Headers only the configured origin gets: ``headers:`` and the credential."""
        self.secrets: list[str] = [v for v in self.origin_headers.values() if len(v) >= 4]
        if s.get("api_key_env"):
            raw = os.environ.get(str(s["api_key_env"]))
            key = (raw or "").lstrip("\ufeff").strip()  # a key file saved on Windows: a BOM, \r\n
            if not key:
                raise DecisionPivotError(
                    f"system {system.name!r}: environment variable {s['api_key_env']} is not set (it holds the API key)"
                )
            if any(ord(c) < 33 or ord(c) == 127 for c in key):
                raise DecisionPivotError(
                    f"system {system.name!r}: environment variable {s['api_key_env']} holds a key with a space or a "
                    "control character inside it; set it to the key alone"
                )
            self.secrets.append(key)
            scheme = s.get("auth_scheme", "Bearer")
            if scheme == "Basic":
                value = "Basic " + base64.b64encode(f"{s.get('basic_user', 'token')}:{key}".encode()).decode()
            elif scheme == "none":
                value = key
            else:
                value = f"Bearer {key}"
            self.origin_headers[str(s.get("auth_header") or "Authorization")] = value
            self.secrets.append(value)
        parts = urlsplit(str(s.get("base_url") or ""))
        self.secrets += [v for v in (parts.username, parts.password) if v]
        self.secrets += [v for _, v in parse_qsl(parts.query) if len(v) >= 4]
        self.secrets += [v for v in system.hidden_strings() if v not in self.shown_url]
        self.secrets = sorted(set(self.secrets), key=len, reverse=True)
        userinfo = parts.username is not None
        sends_authorization = "authorization" in {name.lower() for name in self.origin_headers}
        if userinfo and sends_authorization:
            raise DecisionPivotError(
                f"system {system.name!r}: base_url holds a user name or password (user:password@host) and an "
                "Authorization header is set too (api_key_env or headers:), which an HTTP request cannot carry "
                "both of; keep one: remove the user-info from base_url, or the key")
        self.rng = random.Random(0)

    def _point_at(self, base_url: str) -> None:
        self.url = endpoint_url(base_url, self.wire.path)
        self.shown_url = written_url(self.url)
        """The URL as messages show it (:func:`~decisionpivot.redact.written_url`: no user name or password, no
        query values)."""
        self.proxy = proxy_for(self.url)

    def hide(self, text: str) -> str:
        """``text`` (a server's message, an exception) without the key, the URL's user name, password and query
        values, and every value of the config that is not written in clear (``headers:``, ``serve:`` arguments,
        ``serve_env:`` values...: :meth:`~decisionpivot.evaluate.kinds.SystemConfig.hidden_strings`), then
        :func:`~decisionpivot.redact.redact` for any other token."""
        text = text.replace(self.url, self.shown_url)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return redact(text)

    def _headers_for(self, url: str) -> dict[str, str]:
        """Request headers for ``url``: the credential and ``headers:`` only for the configured origin (or a served
        copy)."""
        if any(same_origin(url, origin) for origin in (self.url, *self.urls)):
            return {"Content-Type": "application/json", **self.origin_headers}
        return {"Content-Type": "application/json"}

    async def _post(self, session: aiohttp.ClientSession, body: bytes) -> _Reply:
        """POST ``body``, following redirects only as ``redirects:`` allows; never raises for transport faults."""
        s = self.system.settings
        policy = str(s.get("redirects") or "refuse")
        url = self.url
        if self.urls:  # the served copies in turn
            url = self.urls[self._turn % len(self.urls)]
            self._turn += 1
        for _ in range(MAX_REDIRECTS + 1):
            reply = _Reply()
            try:
                async with session.post(url, data=body, headers=self._headers_for(url), proxy=self.proxy,
                                        allow_redirects=False) as response:
                    reply.status = response.status
                    target = response.headers.get("Location", "")
                    if reply.status in REDIRECT_STATUS and target:
                        target = urljoin(url, target)
                        allowed = policy == "follow" or (policy == "same-origin" and same_origin(target, self.url))
                        if allowed:
                            url = target
                            continue
                        reply.redirect = self.hide(
                            f"HTTP {reply.status} redirect to {written_url(target)} not followed "
                            f"(redirects: {policy}; set redirects: same-origin or follow, or point base_url there)")
                        return reply
                    if reply.status != 200:
                        reply.retry_after = retry_after_seconds(response.headers.get("Retry-After"))
                    reply.text = (await response.read()).decode("utf-8", errors="replace")
            except TimeoutError:
                where = "while reading the body" if reply.status else "waiting for the response"
                reply.failure = self.hide(f"timeout after {s['timeout_s']:g} s {where} ({self.shown_url})")
                reply.timed_out = True
                reply.silent = not reply.status
            except aiohttp.ClientConnectorError as exc:
                reply.unreachable = True
                reply.failure = self.hide(f"cannot connect to {written_url(url)}: {exc.os_error or exc}")
            except (aiohttp.ClientError, OSError, ValueError) as exc:  # a reset, a short or undecodable body
                where = f" after HTTP {reply.status}, while reading the body" if reply.status else ""
                reply.failure = self.hide(f"connection error{where} ({self.shown_url}): {type(exc).__name__}: {exc}")
            if reply.failure:
                reply.status = 0  # whatever status line came first, no whole reply arrived
            return reply
        reply = _Reply(redirect=self.hide(f"more than {MAX_REDIRECTS} redirects from {self.shown_url}"))
        return reply

    async def _ask(self, session: aiohttp.ClientSession, item: Item, body: bytes, gate: AdaptiveLimit,
                   limiter: RateLimiter, budget: RetryBudget, counters: RunCounters, raw_log: Emit,
                   reach: _Reachability, guard: _EarlyStop) -> Record | None:
        """One item, with retries, judged by :mod:`~decisionpivot.evaluate.outcome`: its record (an answer, a final
        record the interface documents, or a transient one when retries run out), None when the early stop parks it
        (:class:`_EarlyStop`), or StopRun."""
        s = self.system.settings
        attempt = 0
        queued = 0.0
        while True:
            waited = time.monotonic()
            await gate.acquire()
            await limiter.wait()
            started = time.monotonic()
            queued += started - waited
            reply = _Reply()
            try:
                reply = await self._post(session, body)
            finally:
                overload = reply.timed_out or reply.status in OVERLOAD_STATUSES
                await gate.release(started, _Attempt(overload=overload, success=reply.status in SUCCESS_STATUSES))
            latency = round(time.monotonic() - started, 3)
            timing = {"latency_s": latency, "queued_s": round(queued, 3)}
            if reach.record(reply, started):
                what = ("the server accepts connections but answers nothing (hung or overloaded)" if reply.silent
                        else "the server is not running or not reachable")
                raise StopRun(f"system {self.system.name!r}: {reply.failure}, {reach.misses} attempts in a row - "
                              f"{what}. Answers so far are kept; start the server (or fix base_url) and run "
                              "again to answer the rest")
            counted: int | None = None  # the status this failure counts under for the early stop
            if reply.redirect:
                raw_log({"id": item.id, "status": reply.status, "error": reply.redirect})
                failure, counted = reply.redirect, reply.status or 300
            elif reply.failure:
                failure = reply.failure
            else:
                status, text = reply.status, reply.text
                message = "" if status in SUCCESS_STATUSES else self.hide(server_message(text))
                verdict = status_verdict(status, message)
                if verdict is Verdict.READ_BODY:
                    read = self._read(item, text, timing, raw_log)
                    if isinstance(read, dict):
                        return read
                    failure = f"HTTP {status}: {read.reason}"
                    if not read.parsed:  # a body cut without Content-Length looks so: no sign of a wrong config
                        status = 0
                else:
                    raw_log({"id": item.id, "status": status, "raw": self.hide(text[:RAW_LIMIT])})
                    if verdict is Verdict.STOP:
                        raise self._stop(status, message)
                    if verdict is Verdict.INPUT_RESTRICTION:
                        return {"id": item.id, "error": f"{INPUT_RESTRICTION}: HTTP {status}: {message}", **timing}
                    failure = f"HTTP {status}: {message}" if message else f"HTTP {status}"
                if status and not asks_to_wait(status, reply.retry_after):
                    counted = status
            if attempt == 0 and counted is not None and guard.open:
                guard.failed(counted, failure)
                if guard.open:  # asked again once the system is heard, transient if it never is
                    guard.park(item, {"id": item.id, "error": f"{failure} (asked once: the system answered "
                                                              "nothing in this run)", "transient": True, **timing})
                    return None
            attempt += 1
            if attempt >= int(s["max_attempts"]):
                return {"id": item.id, "error": f"{failure} (gave up after {attempt} attempts)", "transient": True,
                        **timing}
            if not budget.take():
                return {"id": item.id, "error": f"{failure} (retry budget of the task spent)", "transient": True,
                        **timing}
            counters.retries += 1
            base = float(s["backoff_base_s"])
            delay = backoff_delay(attempt - 1, reply.retry_after, self.rng, base)
            await asyncio.sleep(min(delay, CONNECT_BACKOFF_CAP_S) if reply.unreachable else delay)

    def _stop(self, status: int, message: str) -> StopRun:
        """The one line of a reply that stops the run (:data:`~decisionpivot.evaluate.outcome.Verdict.STOP`)."""
        if status in CREDENTIAL_STATUSES:
            whose = ("the proxy's credential (HTTPS_PROXY)" if status == 407
                     else "the API key variable and its permissions")
            return StopRun(f"system {self.system.name!r}: {self.shown_url} refused the request with HTTP {status}: "
                           f"{message or '(no message)'} - check {whose}")
        return StopRun(f"system {self.system.name!r}: {self.shown_url} refused a request parameter with HTTP "
                       f"{status}: {message} - a configuration error (fields, model, max_tokens_field...), not the "
                       "items; nothing was recorded for it. Fix the system's config and run again")

    def _read(self, item: Item, text: str, timing: dict[str, float], raw_log: Emit) -> Record | _NotRead:
        """The record of a whole 200 body (an answer, or a final error its interface documents), or why it is not the
        model's answer (:class:`~decisionpivot.evaluate.outcome.NotAnAnswer`: retried, transient when it persists)."""
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            raw_log({"id": item.id, "error": "response body is not JSON", "raw": self.hide(text[:RAW_LIMIT])})
            return _NotRead("malformed response body (not JSON: empty, cut off, or not the API's reply)", parsed=False)
        try:
            record = self.wire.parse(item, body)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError, RecursionError) as exc:
            reason = self.hide(str(exc) if isinstance(exc, ValueError) else f"malformed response body ({exc!r})")
            raw_log({"id": item.id, "error": reason, "raw": self.hide(text[:RAW_LIMIT])})
            return _NotRead(reason, parsed=True)
        if "error" in record:  # the model answered, but not usably: keep what it said
            raw_log({"id": item.id, "error": record["error"], "raw": self.hide(text[:RAW_LIMIT])})
        return {**record, **timing}

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        s = self.system.settings
        if s.get("serve") and not self.servers:
            try:
                self.servers.extend(start_copies(replicas_wanted(s.get("replicas") or 1), self.system.name, s["serve"],
                                                 s.get("serve_env") or {}, float(s["serve_ready_s"])))
            except ServeError as exc:  # its output may quote its arguments
                self.close()
                raise ServeError(self.hide(str(exc))) from None
            except BaseException:
                self.close()
                raise
            prefix = str(s.get("serve_prefix") or "")
            self._point_at(self.servers[0].base_url + prefix)
            self.urls = [endpoint_url(server.base_url + prefix, self.wire.path) for server in self.servers]
        if self.servers:  # what the server says about itself is free text: hidden like a message
            counters.server = json.loads(self.hide(json.dumps(self.servers[0].info, ensure_ascii=False)))
        run_deferring_sigterm(lambda: self._run(items, emit, counters, raw_log))

    @property
    def server(self) -> LocalServer | None:
        """The first served copy (None when dp started none)."""
        return self.servers[0] if self.servers else None

    def close(self) -> None:
        """Stop the system's own servers, if dp started any."""
        servers, self.servers, self.urls = self.servers, [], []
        for server in servers:
            server.stop()

    async def _run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        s = self.system.settings
        budget_setting = s.get("retry_budget")
        budget = RetryBudget(int(budget_setting) if budget_setting is not None else 50 + len(items) // 10)
        limiter = RateLimiter(float(s["requests_per_minute"] or 0))
        concurrency = min(int(s["concurrency"]) * max(1, len(self.urls)), max(len(items), 1))
        gate = AdaptiveLimit(concurrency, bool(s.get("adaptive_concurrency", True)))
        guard = _EarlyStop(emit, int(s.get("stop_after_failures") or 8), self.shown_url,
                           heard=self.heard or counters.answered_before > 0)
        reach = _Reachability(int(s.get("stop_after_failures") or 8))
        queue: asyncio.Queue[Item] = asyncio.Queue()
        for item in items:
            queue.put_nowait(item)
        guard.requeue = queue.put_nowait
        replies = SharedReplies(enabled=bool(s.get("ask_each_request_once")))
        timeout_s = float(s["timeout_s"])
        timeout = aiohttp.ClientTimeout(total=timeout_s, connect=min(30.0, timeout_s))
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

            async def worker() -> None:
                while True:
                    try:
                        item = queue.get_nowait()
                    except asyncio.QueueEmpty:
                        return
                    refused = self.wire.refused(item)
                    if refused is not None:
                        guard({"id": item.id, "error": refused})  # not sent: a declared input limit
                        continue
                    request = {**self.wire.request(item), **(s.get("extra_body") or {})}
                    body = json.dumps(request, ensure_ascii=False).encode("utf-8")
                    digest = hashlib.sha256(body).hexdigest()
                    earlier = await replies.earlier(digest)
                    if earlier is not None:
                        reused = {key: value for key, value in earlier.items() if key not in TIMINGS}
                        guard({**reused, "id": item.id, REQUEST_DIGEST: digest, SAME_REQUEST_AS: earlier["id"]})
                        continue
                    record = None
                    try:
                        record = await self._ask(session, item, body, gate, limiter, budget, counters, raw_log,
                                                 reach, guard)
                    finally:
                        replies.settle(digest, record)
                    if record is not None:
                        guard({**record, REQUEST_DIGEST: digest})

            workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
            try:
                await asyncio.gather(*workers)
                guard.finish(at_end=True)
                self.heard = self.heard or guard.heard
            finally:
                for task in workers:
                    task.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
                counters.in_flight_limit = max(1, int(gate.limit))


def run_deferring_sigterm(start: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``start()`` in an event loop of its own; a SIGTERM arriving meanwhile cancels it, and the handler
    that was in place (the command line's, which raises its ``Terminated``) is called only once the loop
    has closed.

    A handler that raises inside the loop would raise inside whichever task was running: asyncio stores the
    exception in that task and prints "Task exception was never retrieved" with a traceback on the way out.
    Cancelling instead lets every worker's ``finally`` run and every answer already written stay whole.
    Outside the main thread (where signal handlers cannot be set) the coroutine simply runs.
    """
    if threading.current_thread() is not threading.main_thread():
        asyncio.run(start())
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN:
        asyncio.run(start())
        return
    received: list[tuple[int, Any]] = []

    async def main() -> None:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None

        def on_sigterm(signum: int, frame: Any) -> None:
            received.append((signum, frame))
            loop.call_soon_threadsafe(task.cancel)

        signal.signal(signal.SIGTERM, on_sigterm)
        await start()

    try:
        asyncio.run(main())
    except asyncio.CancelledError:
        if not received:
            raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    if received:
        if callable(previous):
            previous(*received[0])
        else:
            signal.raise_signal(signal.SIGTERM)  # the default action, now that the loop is closed


def usage_fields(usage: Any) -> dict[str, int]:
    """``input_tokens`` / ``tokens`` (output) from a usage object, whichever names the server uses."""
    if not isinstance(usage, dict):
        return {}
    fields: dict[str, int] = {}
    for target, names in (("input_tokens", ("input_tokens", "prompt_tokens")),
                          ("tokens", ("output_tokens", "completion_tokens"))):
        for name in names:
            value = counted_tokens(usage.get(name))
            if value is not None:
                fields[target] = value
                break
    return fields

