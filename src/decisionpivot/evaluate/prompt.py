"""The chat-model request (paper, Appendix B) and the parsing of its reply.

User message: the state under STATE (structured states as indented JSON), the instruction under
QUESTION, the options as ``key: meaning`` lines under OPTIONS, closing with "Reply with the JSON
object, in this form:" and an object of the item's option keys. The reply's first JSON object after
any reasoning block or code fence is read; anything unreadable becomes a :class:`ReplyError`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from decisionpivot.items import Item, render_state

SYSTEM_MESSAGE = (
    "You are a decision model inside a larger software system. You receive a case (the STATE), a "
    "question about it and a fixed set of options. Read the whole state carefully: the answer often "
    "turns on a single fact, a limit, a date or an exception. Use only what the state says. "
    "Give your probability for each option - how likely it is that the option is the correct answer - "
    "as a JSON object whose keys are exactly the option keys and whose values are numbers between "
    "0 and 1 that sum to 1. You may think first, but end your reply with that JSON object."
)
CLOSING = "Reply with the JSON object, in this form:"


class ReplyError(ValueError):
    """A reply that cannot be turned into probabilities; the message is the recorded reason."""


def user_message(item: Item) -> str:
    """STATE / QUESTION / OPTIONS and the closing line with a template object of the option keys."""
    template = "{" + ", ".join(f'"{key}": <probability>' for key in item.option_keys) + "}"
    options = "\n".join(f"{o.key}: {o.meaning}" for o in item.options)
    return (
        f"STATE\n{render_state(item.state)}\n\n"
        f"QUESTION\n{item.question}\n\n"
        f"OPTIONS (key: meaning)\n{options}\n\n"
        f"{CLOSING}\n{template}"
    )


def chat_messages(item: Item) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": user_message(item)}]


_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_REASONING = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def _json_objects(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    found = []
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        i = text.find("{", end)
    return found


def parse_reply(text: str, keys: tuple[str, ...]) -> dict[str, float]:
    """The probabilities of the first JSON object after any reasoning block or code fence.

    Raises ReplyError when no object is found, an option key is missing, or a value is not a
    finite non-negative number (values are kept as given; the scorer normalises them).
    """
    if not text or not text.strip():
        raise ReplyError("empty reply")
    body = _REASONING.sub("", text)
    if _OPEN_REASONING.search(body):
        raise ReplyError("reasoning block was never closed")
    fenced = _FENCE.findall(body)
    candidates = [obj for block in fenced for obj in _json_objects(block)] + _json_objects(body)
    if not candidates:
        raise ReplyError("no JSON object in the reply")
    obj = candidates[0]
    missing = [k for k in keys if k not in obj]
    if missing:
        raise ReplyError(f"reply object misses option key(s) {missing}")
    probs: dict[str, float] = {}
    for key in keys:
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ReplyError(f"value for {key!r} is not a number: {value!r}")
        number = float(value)
        if not math.isfinite(number) or number < 0:
            raise ReplyError(f"value for {key!r} is not a finite non-negative number: {value!r}")
        probs[key] = number
    if sum(probs.values()) <= 0:
        raise ReplyError("all probabilities are zero")
    return probs
