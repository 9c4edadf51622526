"""The chat-model request (paper, Appendix B) and the parsing of its reply.

User message: the state under STATE (structured states as indented JSON), the instruction under
QUESTION, the options as ``key: meaning`` lines under OPTIONS, closing with "Reply with the JSON
object, in this form:" and an object of the item's option keys. A score item's options are the levels of a scale
(:mod:`decisionpivot.score_questions`), and its OPTIONS heading says so (:data:`SCALE_HEADING`): the model gives a
probability per level, keyed by the level keys. The system message asks the model to
*end* its reply with that object, so the reply's **last** JSON object that holds every option key is
read, after any closed reasoning block (a model that thinks aloud may quote an example object first). Its
values pass the one probability check (:func:`decisionpivot.probability.distribution`: each in [0, 1], the
sum within tolerance of 1); anything unreadable - including numbers too large for a float - becomes a
:class:`ReplyError`: the model's own failed answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from decisionpivot.items import Item, render_state
from decisionpivot.probability import ProbabilityError, distribution
from decisionpivot.score_questions import is_score_item

SYSTEM_MESSAGE = (
    "You are a decision model inside a larger software system. You receive a case (the STATE), a "
    "question about it and a fixed set of options. Read the whole state carefully: the answer often "
    "turns on a single fact, a limit, a date or an exception. Use only what the state says. "
    "Give your probability for each option - how likely it is that the option is the correct answer - "
    "as a JSON object whose keys are exactly the option keys and whose values are numbers between "
    "0 and 1 that sum to 1. You may think first, but end your reply with that JSON object."
)
CLOSING = "Reply with the JSON object, in this form:"
OPTIONS_HEADING = "OPTIONS (key: meaning)"
SCALE_HEADING = "OPTIONS (key: meaning; the levels of an ordered scale)"
"""The OPTIONS heading of a score item: the options are levels, in the order the item lists them."""


class ReplyError(ValueError):
    """A reply that cannot be turned into probabilities; the message is the recorded reason."""


def user_message(item: Item) -> str:
    """STATE / QUESTION / OPTIONS and the closing line with a template object of the option keys."""
    template = "{" + ", ".join(f'"{key}": <probability>' for key in item.option_keys) + "}"
    options = "\n".join(f"{o.key}: {o.meaning}" for o in item.options)
    return (
        f"STATE\n{render_state(item.state)}\n\n"
        f"QUESTION\n{item.question}\n\n"
        f"{SCALE_HEADING if is_score_item(item) else OPTIONS_HEADING}\n{options}\n\n"
        f"{CLOSING}\n{template}"
    )


def chat_messages(item: Item) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": user_message(item)}]


_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_OPEN_REASONING = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)


def _json_objects(text: str) -> list[Any]:
    """Every JSON object in ``text`` (nested objects inside a found one are not listed again)."""
    decoder = json.JSONDecoder()
    found = []
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except (ValueError, RecursionError):  # JSONDecodeError, or an integer of over 4300 digits
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        i = text.find("{", end)
    return found


def parse_reply(text: str, keys: tuple[str, ...]) -> dict[str, float]:
    """The probabilities of the last JSON object holding every option key, after any reasoning block.

    Raises ReplyError when no object is found, no object has all option keys, or its values are not a
    distribution (:func:`decisionpivot.probability.distribution`); the values are kept as given (the scorer
    renormalises them).
    """
    if not isinstance(text, str) or not text.strip():
        raise ReplyError("empty reply")
    body = _REASONING.sub("", text)
    if _OPEN_REASONING.search(body):
        raise ReplyError("reasoning block was never closed")
    candidates = _json_objects(body)
    if not candidates:
        raise ReplyError("no JSON object in the reply")
    complete = [obj for obj in candidates if all(k in obj for k in keys)]
    if not complete:
        missing = [k for k in keys if k not in candidates[-1]]
        raise ReplyError(f"reply object misses option key(s) {missing}")
    obj = complete[-1]
    answer = {key: obj[key] for key in keys}
    try:
        distribution(answer, keys)
    except ProbabilityError as exc:
        raise ReplyError(f"reply object: {exc}") from None
    return {key: float(value) for key, value in answer.items()}
