"""What a reply is: the model's answer, a refusal its interface documents, a stop, or nothing the model said.

The one table every kind's replies go through (``docs/evaluate-faults.md`` shows it). It is an
allow-list: a reply is the model's answer only under a success status (:data:`SUCCESS_STATUSES`: 200)
with a body that reads as a valid answer of the interface; a reply is a *final* record that is not an
answer only where an interface documents it - the model's own refusal (a per-question ``refusal``), an
item too large for the server (413, or a 400/422 whose message says so: an ``input restriction``), or the
model's own unusable text (a chat reply without the JSON object); a few replies stop the run (a refused
credential, a refused request parameter). **Everything else is transient**: any other status (201, 202,
206, a redirect not followed, 420, 498, 600, 999, any status not yet invented), any other body (empty,
HTML, cut off, an answer-shaped body under another status, numbers a server computed that are not
probabilities) and every transport failure is retried and, if it persists, recorded as ``"transient":
true`` - asked again by the next run, never scored as the model's answer, and ``dp evaluate`` exits 1.

:data:`STATUS_RULES` decides by status (first matching rule); a kind's ``Wire.parse`` decides about a
200 body: it returns the record (``p``, or an ``error`` the model's interface documents as final) or raises
:class:`NotAnAnswer` (transient). :data:`BODY_RULES` states those decisions for the documentation.

Apart from what a reply *is*, :func:`asks_to_wait` says how to pace the retry: statuses that ask the
client to come back later (5xx, 408, 409, 420, 421, 425, 429, the load balancers' 444/460/463/499, any
reply with ``Retry-After``) are retried without counting towards the early stop of a run whose first
requests all fail the same way (a configuration error); every other transient reply counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    """What a reply becomes."""

    ANSWER = "answer"
    """The model's answer: a record with ``p``."""
    READ_BODY = "read the body"
    """A success status: the body decides (:data:`BODY_RULES`)."""
    REFUSAL = "final: refusal"
    """The model's refusal, as its interface documents it: a final error record, scored as a failed prediction."""
    MODEL_FAILURE = "final: the model's failed answer"
    """The model's own reply holds no usable answer: a final error record, scored as a failed prediction."""
    INPUT_RESTRICTION = "final: input restriction"
    """The item is too large for the server: a final ``input restriction: ...`` record (the paper's Table B1)."""
    STOP = "stop"
    """No item can fix it (a credential, a request parameter): the run stops, nothing is recorded."""
    TRANSIENT = "transient"
    """Not the model's answer: retried; a ``"transient": true`` record when retries run out; exit 1."""


SUCCESS_STATUSES = frozenset({200})
"""The only statuses whose body can be the model's answer."""
CREDENTIAL_STATUSES = frozenset({401, 403, 407})
"""The key (or the proxy's credential, 407) is refused: the run stops."""

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
"""A 400/422 message that says the item is too large for the server (an input restriction, the paper's Table B1)."""
_PARAMETER = re.compile(
    r"unsupported (?:parameter|argument|field|value)|unknown (?:parameter|argument|field|key)"
    r"|unrecogni[sz]ed (?:request )?(?:parameter|argument|field|key)|invalid (?:parameter|argument)"
    r"|extra (?:inputs?|fields?|keys?) (?:are |is )?not (?:permitted|allowed)|extra_forbidden"
    r"|additional properties are not allowed|not supported with this model|use '[A-Za-z_]+' instead"
    r"|(?:parameter|field|argument) '?[A-Za-z_][\w.]*'? (?:is )?(?:not supported|not allowed|required|missing)",
    re.IGNORECASE,
)
"""A 400/422 message that names a request parameter: a configuration error, never the model's answer."""


def says_item_too_large(message: str) -> bool:
    """Whether a server's message says the item is too large for it (options, context, size)."""
    return bool(_RESTRICTION.search(message))


def names_parameter(message: str) -> bool:
    """Whether a server's message names a request parameter it refuses (and not the item's size)."""
    return bool(_PARAMETER.search(message)) and not says_item_too_large(message)


@dataclass(frozen=True)
class StatusRule:
    """One row of the status table."""

    statuses: frozenset[int] | None
    """The statuses the row is about; None: every status no earlier row took."""
    condition: Callable[[str], bool] | None
    """What the server's message must say for the row to apply (None: anything)."""
    verdict: Verdict
    """What the reply becomes."""
    reply: str
    """The row as docs/evaluate-faults.md states it."""


STATUS_RULES: tuple[StatusRule, ...] = (
    StatusRule(SUCCESS_STATUSES, None, Verdict.READ_BODY, "200"),
    StatusRule(CREDENTIAL_STATUSES, None, Verdict.STOP, "401, 403, 407"),
    StatusRule(frozenset({413}), None, Verdict.INPUT_RESTRICTION, "413"),
    StatusRule(frozenset({400, 422}), says_item_too_large, Verdict.INPUT_RESTRICTION,
               "400 or 422 whose message says the item is too large (options, context, size)"),
    StatusRule(frozenset({400, 422}), names_parameter, Verdict.STOP,
               "400 or 422 whose message names a request parameter"),
    StatusRule(None, None, Verdict.TRANSIENT, "every other status"),
)
"""The status table: the first row whose statuses and condition match decides."""


@dataclass(frozen=True)
class BodyRule:
    """One row of the table of 200 bodies (decided by each kind's ``Wire.parse``, stated here for the docs)."""

    reply: str
    """The body, as docs/evaluate-faults.md states it."""
    verdict: Verdict
    """What the reply becomes."""


BODY_RULES: tuple[BodyRule, ...] = (
    BodyRule("the interface's reply holding a valid answer", Verdict.ANSWER),
    BodyRule("the interface's reply holding the model's refusal of the question (a per-question `refusal`)",
             Verdict.REFUSAL),
    BodyRule("a chat completion whose text holds no usable answer", Verdict.MODEL_FAILURE),
    BodyRule("a `logprobs` reply the readout cannot use (a key beyond the top-k cut-off, keys sharing a first "
             "token, a reasoning block opened)", Verdict.MODEL_FAILURE),
    BodyRule("anything else: empty, not JSON, HTML, cut off, not the interface's reply, without the answer "
             "asked for, numbers a server computed that are not probabilities", Verdict.TRANSIENT),
)
"""What a 200 body becomes."""


def status_verdict(status: int, message: str) -> Verdict:
    """What a reply with HTTP ``status`` and the server's ``message`` becomes (:data:`STATUS_RULES`)."""
    for rule in STATUS_RULES:
        if (rule.statuses is None or status in rule.statuses) and (rule.condition is None or rule.condition(message)):
            return rule.verdict
    raise AssertionError("the last rule takes every status")  # pragma: no cover


class NotAnAnswer(ValueError):
    """A 200 body that is not the model's answer (not the interface's reply, or numbers no model can mean):
    transient. The message says what was wrong with it."""


WAIT_STATUSES = frozenset({408, 409, 420, 421, 425, 429, 444, 460, 463, 499})
"""4xx statuses that ask the client to come back later (a timeout, a busy resource, a rate limit, a load
balancer's own codes): paced retries, no early stop. Every 5xx does the same."""


def asks_to_wait(status: int, retry_after: float | None) -> bool:
    """Whether a transient reply asks to be retried later rather than saying something is wrong with the requests:
    every 5xx, :data:`WAIT_STATUSES` and any reply carrying ``Retry-After``. It never decides whether a reply is
    an answer: only the pace of its retries and whether it counts towards the early stop."""
    return 500 <= status <= 599 or status in WAIT_STATUSES or retry_after is not None
