"""Scripted chat replies, one per request, chosen by the SHA-256 of the user message (so any run gets the same).

The kinds cover what a chat model sends back: a plain JSON object, one after a closed reasoning block
or with a separate reasoning field, reasoning only, an object missing a key, a reply cut off at the
token limit, prose without an object, all-zero and overflowing numbers, an unclosed reasoning block.
:func:`chat_completion` is the reply as an OpenAI-compatible server sends it (for ``dp evaluate`` and
inspect's ``openai-api`` provider), :func:`model_output` the same reply as inspect's mock model returns it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from tests.evaluate.fake_openai_server import deterministic_probs, option_keys

KINDS = ("json", "think_json", "reasoning_field", "reasoning_only", "missing_key", "cut_off", "no_json", "zero",
         "huge", "unclosed_think")
WEIGHTS = (6, 3, 3, 1, 1, 1, 1, 1, 1, 1)
"""How often each kind comes up (most replies are readable, as from a real model)."""
_CHOICES = tuple(kind for kind, weight in zip(KINDS, WEIGHTS, strict=True) for _ in range(weight))


@dataclass(frozen=True)
class Reply:
    """One scripted reply."""

    kind: str
    """Which of :data:`KINDS`."""
    content: str
    """The message text."""
    reasoning: str | None
    """A separate reasoning field (``reasoning_content``), if any."""
    finish: str
    """``stop`` or ``length``."""
    output_tokens: int
    """Reported output tokens."""


def scripted_reply(user_message: str) -> Reply:
    digest = hashlib.sha256(user_message.encode("utf-8")).hexdigest()
    kind = _CHOICES[int(digest[:8], 16) % len(_CHOICES)]
    keys = option_keys(user_message)
    probs = deterministic_probs(digest, keys)
    body = json.dumps(probs)
    reasoning, finish = None, "stop"
    if kind == "json":
        content = body
    elif kind == "think_json":
        content = f"<think>The state says {keys[0]} is tempting, but {body[:10]} no.</think>\nSo: {body}"
    elif kind == "reasoning_field":
        content, reasoning = body, "Reading the policy rule by rule."
    elif kind == "reasoning_only":
        content, reasoning = "", "I would need more time to decide."
    elif kind == "missing_key":
        content = json.dumps({k: v for k, v in probs.items() if k != keys[-1]})
    elif kind == "cut_off":
        content, finish = f'Considering every rule in turn, {{"{keys[0]}": 0.', "length"
    elif kind == "no_json":
        content = f"I think it is {keys[0]}."
    elif kind == "zero":
        content = json.dumps({k: 0 for k in keys})
    elif kind == "huge":
        content = "{" + ", ".join(f'"{k}": {"9" * 400}' for k in keys) + "}"
    else:  # unclosed_think
        content = f"<think>Still weighing it up... {body}"
    return Reply(kind, content, reasoning, finish, 5 + len(content) // 4)


def chat_completion(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    return {"id": "cmpl-scripted", "object": "chat.completion", "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": reply.output_tokens,
                      "total_tokens": 100 + reply.output_tokens}}


def model_output(reply: Reply) -> Any:
    from inspect_ai.model import ContentReasoning, ContentText, ModelOutput, ModelUsage

    content: Any = reply.content
    if reply.reasoning is not None:
        content = [ContentReasoning(reasoning=reply.reasoning), *([ContentText(text=reply.content)] if reply.content
                                                                  else [])]
    output = ModelOutput.from_content(model="scripted", content=content,
                                      stop_reason="max_tokens" if reply.finish == "length" else "stop")
    output.usage = ModelUsage(input_tokens=100, output_tokens=reply.output_tokens,
                              total_tokens=100 + reply.output_tokens)
    return output
