"""The HTTP engine every remote kind shares: at scale, unattended, one trustworthy record per item.

A kind that answers over HTTP (``chat``, ``systemone``, ``openai_decisions``, ``sglang_decisions``)
supplies a :class:`Wire`: the URL, the request body for an item, and the reading of a 200 response.
The engine does the rest, the same way for all of them:

* a fixed pool of workers over one aiohttp session (its per-request CPU cost is a third of httpx's:
  see benchmarks/evaluate_throughput.py), an optional requests-per-minute limit;
* an **adaptive in-flight limit** (additive increase, multiplicative decrease): a timeout or a 429
  halves it (once per window of requests), each success grows it by 1/limit, up to ``concurrency``,
  so a server that serves one request at a time is not buried under retries of queued requests;
  the time an item waits for a slot is recorded as ``queued_s``, apart from ``latency_s``;
* retries with full-jitter exponential backoff honouring ``Retry-After`` on every **transport status**
  (:func:`is_transport_status`: every 5xx, 408, 409, 421, 425, 429 and the proxies' and load balancers'
  own codes 444, 460, 463, 499), on a 4xx with a generic message (``Not Found``, an HTML error page)
  once the server has answered a request of the run, on timeouts and **every failure while the body is
  read** (a connection reset mid-body, a body slower
  than ``timeout_s``, fewer bytes than its Content-Length, an undecodable gzip body, a 200 body that
  is not JSON - what a connection cut without Content-Length looks like): none of these says anything
  about the model. Within ``max_attempts`` and a per-task retry budget; when they are spent the record
  is an error marked ``"transient": true``, which a re-run asks again and which makes ``dp evaluate``
  exit non-zero (the scorer counts it as failed);
* a server that cannot be reached (connection refused, no such host) or that accepts connections and
  sends nothing within ``timeout_s``, for ``stop_after_failures`` attempts in a row with no answer in
  between, stops the run with one line; a re-run resumes;
* 401/403/407 stop the run at once with the server's message, and so does a 400/422 whose message names a
  request parameter (``Unsupported parameter: 'max_tokens'``, an unknown or forbidden field): a
  configuration error, never the model's answer; when the first ``stop_after_failures`` requests all
  fail with the same other 4xx (a wrong model name) the run stops too. Records are not written for
  them, so fixing the config and re-running asks them again;
* 413, and 400/422 whose message says the *item* is too large for the server (too many options, a
  prompt beyond the context, a body over the size limit), are recorded as ``input restriction`` errors
  (the paper's Table B1); the server's ``detail`` is read in whichever form it comes;
* redirects are not followed (``redirects: refuse``): the record names the target. ``same-origin``
  follows them within the configured origin; ``follow`` follows them anywhere, but the key and the
  ``headers:`` never leave the configured origin;
* every non-200 body and every unreadable reply goes to ``<task>.raw.jsonl``; the API key's value, the
  values of ``headers:`` and secrets in the URL are replaced in every message, record and log line.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import http
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
from urllib.parse import urljoin, urlsplit, urlunsplit

import aiohttp

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    Emit,
    Record,
    RunCounters,
    Setting,
    SettingError,
    SystemConfig,
    boolean,
    integer,
    number,
    one_of,
    optional_command,
    optional_integer,
    optional_number,
    optional_text,
    string_mapping,
    text,
)
from decisionpivot.evaluate.kinds import mapping as mapping_check
from decisionpivot.evaluate.served import READY_TIMEOUT_S, LocalServer, start_server
from decisionpivot.items import Item
from decisionpivot.redact import hidden_command, hidden_environment, redact, redact_url

TRANSPORT_4XX = frozenset({408, 409, 421, 425, 429, 444, 460, 463, 499})
"""4xx statuses that say the request did not get through, never what the model thinks of the item: 408 Request
Timeout, 409 Conflict (a busy resource), 421 Misdirected Request, 425 Too Early, 429 Too Many Requests, and
the codes proxies and load balancers answer in the server's place (nginx 444 and 499, AWS ELB 460 and 463)."""
FATAL_STATUS = frozenset({401, 403, 407})
"""The credential (or the proxy's, 407) is refused: no item can fix it, the run stops."""
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
BACKOFF_CAP_S = 60.0
CONNECT_BACKOFF_CAP_S = 2.0
"""Retries of a refused connection wait at most this long: a server that is gone is found out in seconds."""
RETRY_AFTER_CAP_S = 300.0
RAW_LIMIT = 20000
_UNITS = r"(?:options?|choices?|labels?|levels?|criteria|categories|classes)"
_SIZE = r"(?:tokens?|characters?|chars|bytes|[KMG]i?B)"
_RESTRICTION = re.compile(
    "|".join((
        rf"too many {_UNITS}",
        rf"(?:at most|up to|no more than|more than|exceeds?|over) (?:the )?(?:limit of |maximum of )?\d+ {_UNITS}",
        rf"\b{_UNITS} (?:exceed|above|over) ",
        r"(?:maximum|max\.?) context|context (?:length|window|size|limit)",
        r"prompt has \d+ tokens|\bprompt is too long|input is too long|too many tokens|tokens? exceeds?",
        rf"(?:exceeds?|longer than|more than|larger than|over) (?:the )?(?:limit of |maximum of |max of )?"
        rf"[\d.,]+ ?[km]? ?{_SIZE}",
        r"(?:request|body|payload|input|state|entity|content|message|prompt)s? (?:is )?too (?:large|long|big)",
        r"(?:state|input|body|payload) size exceeds",
    )),
    re.IGNORECASE,
)
"""A 400/422 that says the item is too large for the server (an input restriction, the paper's Table B1)."""
_PARAMETER = re.compile(
    r"unsupported (?:parameter|argument|field|value)|unknown (?:parameter|argument|field|key)"
    r"|unrecogni[sz]ed (?:request )?(?:parameter|argument|field|key)|invalid (?:parameter|argument)"
    r"|extra (?:inputs?|fields?|keys?) (?:are |is )?not (?:permitted|allowed)|extra_forbidden"
    r"|additional properties are not allowed|not supported with this model|use '[A-Za-z_]+' instead"
    r"|(?:parameter|field|argument) '?[A-Za-z_][\w.]*'? (?:is )?(?:not supported|not allowed|required|missing)",
    re.IGNORECASE,
)
"""A 400/422 whose message names a request parameter: a configuration error, never the model's answer."""


def header_mapping(value: Any) -> dict[str, str]:
    """``headers:``: names and values are strings without line breaks or control characters."""
    checked = string_mapping(value)
    for name, header in checked.items():
        if not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
            raise SettingError(f"expected header names of letters, digits and -, got {name!r}")
        if any(ord(c) < 32 or ord(c) == 127 for c in header if c != "\t"):
            raise SettingError(f"header {name}: a value without line breaks or control characters")
    return checked


# Settings shared by every kind that answers over HTTP.
HTTP_SETTINGS: dict[str, Setting] = {
    "base_url": Setting(None, text, "the server's base URL, e.g. http://localhost:8000 (where the model is "
                        "reached, not which model: not part of the fingerprint)", identity=False),
    "api_key_env": Setting(None, optional_text, "name of the environment variable holding the key "
                           "(the key is never written anywhere)", identity=False),
    "auth_header": Setting("Authorization", text, "header that carries the key", identity=False),
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
    "concurrency": Setting(16, integer(1), "most requests in flight (the adaptive limit starts here)",
                           identity=False),
    "adaptive_concurrency": Setting(True, boolean, "halve the in-flight limit on timeouts and 429s, "
                                    "grow it back by one per window of successes", identity=False),
    "requests_per_minute": Setting(0, number(0), "0 = unlimited", identity=False),
    "timeout_s": Setting(120.0, number(0, strict=True), "seconds per request", identity=False),
    "max_attempts": Setting(6, integer(1), "attempts per item on retryable failures", identity=False),
    "backoff_base_s": Setting(1.0, number(0), "retry n waits a random time up to base x 2^n, at least "
                              "Retry-After", identity=False),
    "retry_budget": Setting(None, optional_integer(0), "retries allowed per task (default 50 + 10% of the items)",
                            identity=False),
    "stop_after_failures": Setting(8, integer(1), "stop the run when the first N requests all fail with the "
                                   "same 4xx (a configuration error, not the items), or N attempts in a row find "
                                   "no server", identity=False),
    "serve": Setting(None, optional_command, "a command that starts the system's own server, run by dp for the "
                     "evaluation ('{port}': a free loopback port, '{python}': this Python); base_url is then its URL "
                     "(secret arguments are recorded as hashes)", recorded=hidden_command),
    "serve_env": Setting({}, string_mapping, "environment variables for the served process (e.g. pinned BLAS "
                         "threads and kernel, for the same answer bytes on every host; '${NAME}' passes dp's own "
                         "NAME, e.g. HF_TOKEN: '${HF_TOKEN}'); it gets only these and served.BASE_ENVIRONMENT; "
                         "values of secret-named variables are recorded as hashes", recorded=hidden_environment),
    "serve_ready_s": Setting(READY_TIMEOUT_S, number(0, strict=True), "seconds the served process may take to "
                             "answer", identity=False),
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


def is_transport_status(status: int) -> bool:
    """Whether an HTTP status is the infrastructure's, not the model's verdict on the item: every 5xx (a gateway,
    a proxy, a full disk: 500-599 whatever the code, Cloudflare's 520-530 included) and :data:`TRANSPORT_4XX`.
    Retried; a record when retries run out is ``transient``."""
    return 500 <= status <= 599 or status in TRANSPORT_4XX


_GENERIC = re.compile(r"^(?:\d{3}\b)?\W*(?:error|not found|bad request|forbidden|unknown error|internal error"
                      r"|page not found|route not found|no route|method not allowed|gone)?\W*$", re.IGNORECASE)


def is_generic_message(status: int, message: str) -> bool:
    """Whether an error's message says nothing about the item: empty, the status's own phrase (``Not Found``), a
    bare ``error``, or an HTML page (a proxy's or a framework's default page)."""
    text = " ".join(message.split())
    if not text or text.lstrip().startswith("<"):
        return True
    try:
        phrase = http.HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    core = text.strip(" .!\"'").lower()
    return core in (phrase.lower(), f"{status} {phrase}".lower(), f"http {status}") or bool(_GENERIC.match(text))


def is_input_restriction(status: int, message: str) -> bool:
    """413 always; 400/422 when the server's message says the item is too large for it (options, context, size)."""
    return status == 413 or (status in (400, 422) and bool(_RESTRICTION.search(message)))


def names_request_parameter(status: int, message: str) -> bool:
    """A 400/422 whose message names a request parameter (unsupported, unknown, forbidden): the config is wrong."""
    return status in (400, 422) and bool(_PARAMETER.search(message)) and not is_input_restriction(status, message)


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
class _Outcome:
    """How one attempt ended, for the adaptive limit."""

    overload: bool
    """A timeout or a 429: the server is saturated."""
    success: bool
    """A 200."""


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

    async def release(self, started: float, outcome: _Outcome) -> None:
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
    """Holds back the first failures of a run until it is clear they are not all the same config error."""

    def __init__(self, emit: Emit, threshold: int, url: str = "") -> None:
        self.emit = emit
        self.threshold = threshold
        self.url = url
        """The URL the requests went to (shown redacted), named in the stop's message."""
        self.held: list[tuple[Record, int, str]] = []
        self.open = True

    def __call__(self, record: Record, config_status: int | None = None, message: str = "") -> None:
        if self.open and config_status is not None:
            self.held.append((record, config_status, message))
            statuses = {status for _, status, _ in self.held}
            if len(self.held) >= self.threshold and len(statuses) == 1:
                raise StopRun(
                    f"the first {len(self.held)} requests all failed with HTTP {config_status}: "
                    f"{message or '(no message)'} - a configuration error (model name, URL, fields) at "
                    f"{self.url or 'the server'}, not the items; nothing was recorded for them. Fix the system's "
                    "config and run again"
                )
            if len(statuses) > 1:  # two different refusals: not one configuration error
                self.finish()  # the held records, this one included (once)
            return
        neutral = bool(record.get("transient")) or str(record.get("error", "")).startswith(INPUT_RESTRICTION)
        if self.open and not neutral:  # the server answered: whatever failed was not the configuration
            self.finish()
        self.emit(self._released(record))

    @staticmethod
    def _released(record: Record) -> Record:
        """A held record as written: a generic 4xx (``Not Found``, an HTML page) says nothing about the item (a
        proxy's page, a server restarting behind it): transient (asked again on a re-run), never the model's answer."""
        if not record.pop("generic", False):
            return record
        return {**record, "error": f"{record['error']} (a generic error page, not the model's answer)",
                "transient": True}

    def finish(self) -> None:
        """Once it is clear the failures are not one configuration error (or at the end of a run too short to
        decide): the held records are written."""
        for held, _, _ in self.held:
            self.emit(self._released(held))
        self.held.clear()
        self.open = False


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


class _Reachability:
    """Counts attempts in a row that found no server, across the run's workers."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self.misses = 0
        self.answered = False

        self.succeeded = False
        """Some request of the run got a 200: the URL, the model and the key are right."""

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
            self.succeeded = self.succeeded or reply.status == 200
            self.last_answer = time.monotonic()
        return self.misses >= self.threshold


class HttpRunner:
    """The :class:`~decisionpivot.evaluate.kinds.Runner` of every HTTP kind."""

    def __init__(self, system: SystemConfig, wire: Wire) -> None:
        self.system = system
        self.wire = wire
        s = system.settings
        self.server: LocalServer | None = None
        """The system's own server, when ``serve:`` declares one (started by the first :meth:`run`)."""
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
        self.secrets.sort(key=len, reverse=True)
        userinfo = urlsplit(str(s.get("base_url") or "")).username is not None
        sends_authorization = "authorization" in {name.lower() for name in self.origin_headers}
        if userinfo and sends_authorization:
            raise DecisionPivotError(
                f"system {system.name!r}: base_url holds a user name or password (user:password@host) and an "
                "Authorization header is set too (api_key_env or headers:), which an HTTP request cannot carry "
                "both of; keep one: remove the user-info from base_url, or the key")
        self.rng = random.Random(0)

    def _point_at(self, base_url: str) -> None:
        self.url = endpoint_url(base_url, self.wire.path)
        self.shown_url = redact_url(self.url)
        """The URL as messages show it (no password, no secret query values)."""
        self.proxy = proxy_for(self.url)

    def hide(self, text: str) -> str:
        """``text`` without the key, the values of ``headers:`` and secrets of the URL (and any other token)."""
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return redact(text.replace(self.url, self.shown_url))

    def _headers_for(self, url: str) -> dict[str, str]:
        """Request headers for ``url``: the credential and ``headers:`` only for the configured origin."""
        if same_origin(url, self.url):
            return {"Content-Type": "application/json", **self.origin_headers}
        return {"Content-Type": "application/json"}

    async def _post(self, session: aiohttp.ClientSession, body: bytes) -> _Reply:
        """POST ``body``, following redirects only as ``redirects:`` allows; never raises for transport faults."""
        s = self.system.settings
        policy = str(s.get("redirects") or "refuse")
        url = self.url
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
                            f"HTTP {reply.status} redirect to {redact_url(target)} not followed "
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
                reply.failure = self.hide(f"cannot connect to {redact_url(url)}: {exc.os_error or exc}")
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
                   reach: _Reachability) -> tuple[Record, int | None, str]:
        """One item, with retries: (record, status of a config-like 4xx or None, server message)."""
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
                overload = reply.timed_out or reply.status == 429
                await gate.release(started, _Outcome(overload=overload, success=reply.status == 200))
            latency = round(time.monotonic() - started, 3)
            timing = {"latency_s": latency, "queued_s": round(queued, 3)}
            if reach.record(reply, started):
                what = ("the server accepts connections but answers nothing (hung or overloaded)" if reply.silent
                        else "the server is not running or not reachable")
                raise StopRun(f"system {self.system.name!r}: {reply.failure}, {reach.misses} attempts in a row - "
                              f"{what}. Answers so far are kept; start the server (or fix base_url) and run "
                              "again to answer the rest")
            failure = reply.failure
            if reply.redirect:
                raw_log({"id": item.id, "status": reply.status, "error": reply.redirect})
                return {"id": item.id, "error": reply.redirect, **timing}, reply.status or 300, reply.redirect
            if reply.status == 200:
                record = self._record(item, reply.text, timing, raw_log)
                if record is not None:
                    return record, None, ""
                failure = "malformed response body (not JSON: cut off, or not the API's reply)"
            elif reply.status:
                status, text = reply.status, reply.text
                message = self.hide(server_message(text))
                raw_log({"id": item.id, "status": status, "raw": self.hide(text[:RAW_LIMIT])})
                if status in FATAL_STATUS:
                    whose = "the proxy's credential (HTTPS_PROXY)" if status == 407 else \
                        "the API key variable and its permissions"
                    raise StopRun(f"system {self.system.name!r}: {self.shown_url} refused the request with HTTP "
                                  f"{status}: {message or '(no message)'} - check {whose}")
                infrastructure = is_transport_status(status) or (
                    reach.succeeded and is_generic_message(status, message)
                    and not is_input_restriction(status, message))
                if not infrastructure:
                    if is_input_restriction(status, message):
                        return {"id": item.id, "error": f"{INPUT_RESTRICTION}: HTTP {status}: {message}",
                                **timing}, None, ""
                    if names_request_parameter(status, message):
                        raise StopRun(f"system {self.system.name!r}: {self.shown_url} refused a request parameter "
                                      f"with HTTP {status}: {message} - a configuration error (fields, model, "
                                      "max_tokens_field...), not the items; nothing was recorded for it. Fix the "
                                      "system's config and run again")
                    record = {"id": item.id, "error": f"HTTP {status}: {message}", **timing}
                    if is_generic_message(status, message):  # early-stop material, else written as transient
                        record["generic"] = True
                    return record, status, message
                failure = f"HTTP {status}: {message}" if message else f"HTTP {status}"
            attempt += 1
            if attempt >= int(s["max_attempts"]):
                return {"id": item.id, "error": f"{failure} (gave up after {attempt} attempts)", "transient": True,
                        **timing}, None, ""
            if not budget.take():
                return {"id": item.id, "error": f"{failure} (retry budget of the task spent)", "transient": True,
                        **timing}, None, ""
            counters.retries += 1
            base = float(s["backoff_base_s"])
            delay = backoff_delay(attempt - 1, reply.retry_after, self.rng, base)
            await asyncio.sleep(min(delay, CONNECT_BACKOFF_CAP_S) if reply.unreachable else delay)

    def _record(self, item: Item, text: str, timing: dict[str, float], raw_log: Emit) -> Record | None:
        """The record of a whole 200 body; None when it is not JSON (retried like any cut-off body)."""
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            raw_log({"id": item.id, "error": "response body is not JSON", "raw": self.hide(text[:RAW_LIMIT])})
            return None
        try:
            record = self.wire.parse(item, body)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError) as exc:
            reason = self.hide(str(exc) if isinstance(exc, ValueError) else f"malformed response body ({exc!r})")
            raw_log({"id": item.id, "error": reason, "raw": self.hide(text[:RAW_LIMIT])})
            record = {"id": item.id, "error": reason}
            usage = body.get("usage") if isinstance(body, dict) else None
            record.update(usage_fields(usage))
        else:
            if "error" in record:  # the server answered, but not usably: keep what it said
                raw_log({"id": item.id, "error": record["error"], "raw": self.hide(text[:RAW_LIMIT])})
        return {**record, **timing}

    def run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        s = self.system.settings
        if s.get("serve") and self.server is None:
            self.server = start_server(self.system.name, s["serve"], s.get("serve_env") or {},
                                       float(s["serve_ready_s"]))
            self._point_at(self.server.base_url + str(s.get("serve_prefix") or ""))
        if self.server is not None:
            counters.server = dict(self.server.info)
        run_deferring_sigterm(lambda: self._run(items, emit, counters, raw_log))

    def close(self) -> None:
        """Stop the system's own server, if dp started one."""
        if self.server is not None:
            self.server.stop()
            self.server = None

    async def _run(self, items: Sequence[Item], emit: Emit, counters: RunCounters, raw_log: Emit) -> None:
        s = self.system.settings
        budget_setting = s.get("retry_budget")
        budget = RetryBudget(int(budget_setting) if budget_setting is not None else 50 + len(items) // 10)
        limiter = RateLimiter(float(s["requests_per_minute"] or 0))
        concurrency = min(int(s["concurrency"]), max(len(items), 1))
        gate = AdaptiveLimit(concurrency, bool(s.get("adaptive_concurrency", True)))
        guard = _EarlyStop(emit, int(s.get("stop_after_failures") or 8), self.shown_url)
        reach = _Reachability(int(s.get("stop_after_failures") or 8))
        queue: asyncio.Queue[Item] = asyncio.Queue()
        for item in items:
            queue.put_nowait(item)
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
                    record, config_status, message = await self._ask(session, item, body, gate, limiter, budget,
                                                                     counters, raw_log, reach)
                    guard(record, config_status, message)

            workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
            try:
                await asyncio.gather(*workers)
                guard.finish()
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

