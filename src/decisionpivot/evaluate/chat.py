"""Kind ``chat``: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp, Ollama, hosted APIs).

The request is the paper's Appendix B prompt (:mod:`decisionpivot.evaluate.prompt`); the reply's
last JSON object with the option keys is read. ``message.content`` may be a string or a list of
content parts (``[{"type": "text", "text": ...}]``); a separate ``reasoning_content`` / ``reasoning``
field is the model's reasoning, never its answer. Transport (concurrency, retries, rate limits,
early stop, input restrictions) is the shared engine's: :mod:`decisionpivot.evaluate.http`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from decisionpivot.evaluate.http import HTTP_SETTINGS, INPUT_RESTRICTION, HttpRunner, usage_fields
from decisionpivot.evaluate.kinds import (
    KindSpec,
    Record,
    Setting,
    SettingError,
    integer,
    number,
    optional_integer,
    optional_text,
    register,
    text,
)
from decisionpivot.evaluate.prompt import ReplyError, chat_messages, parse_reply
from decisionpivot.evaluate.systems import SystemConfig
from decisionpivot.items import Item

CHARS_PER_TOKEN = 4


def estimated_tokens(messages: Sequence[dict[str, str]]) -> int:
    return sum(len(m["content"]) for m in messages) // CHARS_PER_TOKEN + 1


def content_text(content: Any) -> str:
    """The text of ``message.content``: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") in ("text", "output_text", None) \
                    and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    raise ReplyError(f"message.content is neither text nor content parts: {type(content).__name__}")


class ChatWire:
    """Chat completions: ``POST <base_url>/chat/completions``."""

    path = "/chat/completions"

    def __init__(self, system: SystemConfig) -> None:
        self.settings = system.settings

    def request(self, item: Item) -> dict[str, Any] | Record:
        s = self.settings
        messages = chat_messages(item)
        if s.get("context_tokens") and estimated_tokens(messages) > int(s["context_tokens"]):
            estimate = estimated_tokens(messages)
            return {"id": item.id, "error": f"{INPUT_RESTRICTION}: input longer than the declared context "
                                            f"({estimate} estimated tokens > {s['context_tokens']})"}
        payload: dict[str, Any] = {"model": s["model"], "messages": messages, "temperature": s["temperature"],
                                   "max_tokens": s["max_tokens"]}
        if s.get("reasoning_effort"):
            payload["reasoning_effort"] = s["reasoning_effort"]
        return payload

    def parse(self, item: Item, body: Any) -> Record:
        if not isinstance(body, dict) or not isinstance(body.get("choices"), list) or not body["choices"] \
                or not isinstance(body["choices"][0], dict) or not isinstance(body["choices"][0].get("message"), dict):
            raise ValueError("malformed response body (not a chat completion)")
        choice = body["choices"][0]
        message = choice["message"]
        finish = choice.get("finish_reason")
        extra: dict[str, Any] = {"closed": finish != "length", **usage_fields(body.get("usage"))}
        try:
            content = content_text(message.get("content"))
            if not content.strip() and any(isinstance(message.get(k), str) and message[k].strip()
                                           for k in ("reasoning_content", "reasoning")):
                raise ReplyError("the reply holds reasoning only, no answer")
            probs = parse_reply(content, item.option_keys)
        except ReplyError as exc:
            reason = str(exc) if finish != "length" else f"reply cut off at max_tokens ({exc})"
            return {"id": item.id, "error": reason, **extra}
        return {"id": item.id, "p": probs, **extra}


def _check(settings: Mapping[str, Any]) -> None:
    if settings.get("reasoning_effort") is not None and not isinstance(settings["reasoning_effort"], str):
        raise SettingError("reasoning_effort: expected a string such as low, medium or high")


CHAT_SETTINGS: dict[str, Setting] = {
    **HTTP_SETTINGS,
    "base_url": Setting(None, text, "the /v1 URL, e.g. http://localhost:8000/v1"),
    "model": Setting(None, text, "model name as the server knows it"),
    "temperature": Setting(0.0, number(0), "sampling temperature"),
    "max_tokens": Setting(2048, integer(1), "most tokens in the reply (reasoning included)"),
    "reasoning_effort": Setting(None, optional_text, "sent when set (low, medium, high)"),
    "context_tokens": Setting(None, optional_integer(1), "longer inputs (estimated at 4 characters a token) "
                              "are recorded as input restrictions, not sent"),
}

register(KindSpec(
    name="chat",
    doc="OpenAI-compatible chat completions; probabilities read from the reply's JSON object",
    settings=CHAT_SETTINGS,
    required=("base_url", "model"),
    make_runner=lambda system: HttpRunner(system, ChatWire(system)),
    readout=lambda settings: "chat/verbalised",
    validate=_check,
))
