"""Kind ``chat``: any OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp, Ollama, hosted APIs).

The request is the paper's Appendix B prompt (:mod:`decisionpivot.evaluate.prompt`); the reply's
last JSON object with the option keys is read. ``message.content`` may be a string or a list of
content parts (``[{"type": "text", "text": ...}]``); a separate ``reasoning_content`` / ``reasoning``
field is the model's reasoning, never its answer. Transport (concurrency, retries, rate limits,
early stop, input restrictions) is the shared engine's: :mod:`decisionpivot.evaluate.http`.
"""

from __future__ import annotations

from typing import Any

from decisionpivot.evaluate.http import HTTP_SETTINGS, SERVED_INSTEAD, HttpRunner, usage_fields
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    KindSpec,
    Record,
    Setting,
    SystemConfig,
    integer,
    number,
    one_of,
    optional_integer,
    optional_text,
    register,
    text,
    url_path,
)
from decisionpivot.evaluate.outcome import NotAnAnswer
from decisionpivot.evaluate.prompt import ReplyError, chat_messages, parse_reply
from decisionpivot.evaluate.questions import estimated_tokens
from decisionpivot.items import Item


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


def completion_message(body: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(message, record fields ``closed`` and usage) of a chat completion; NotAnAnswer if it is not one."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict) \
            or not isinstance(choices[0].get("message"), dict):
        raise NotAnAnswer("malformed response body (not a chat completion)")
    return choices[0]["message"], {"closed": choices[0].get("finish_reason") != "length",
                                   **usage_fields(body.get("usage"))}


class ChatWire:
    """Chat completions: ``POST <base_url>/chat/completions``."""

    path = "/chat/completions"

    def __init__(self, system: SystemConfig) -> None:
        self.settings = system.settings

    def refused(self, item: Item) -> str | None:
        limit = self.settings.get("context_tokens")
        estimate = estimated_tokens(sum(len(m["content"]) for m in chat_messages(item)))
        if limit and estimate > int(limit):
            return (f"{INPUT_RESTRICTION}: input longer than the declared context "
                    f"({estimate} estimated tokens > {limit})")
        return None

    def request(self, item: Item) -> dict[str, Any]:
        s = self.settings
        payload: dict[str, Any] = {"model": s["model"], "messages": chat_messages(item),
                                   "temperature": s["temperature"], s["max_tokens_field"]: s["max_tokens"]}
        if s.get("reasoning_effort"):
            payload["reasoning_effort"] = s["reasoning_effort"]
        return payload

    def parse(self, item: Item, body: Any) -> Record:
        return completion_record(item, body)


def completion_record(item: Item, body: Any) -> Record:
    """The answer record of a chat completion ``body`` for ``item``: its probabilities, or the reason there are none.

    The one reading of a reply: the ``chat`` kind and the inspect_ai scorer and import
    (:mod:`decisionpivot.harness`) call it. NotAnAnswer (a ValueError) if ``body`` is not a chat completion: no
    reply of the model at all, transient (:mod:`decisionpivot.evaluate.outcome`). A completion whose text holds no
    usable answer is the model's own failed answer: a final error record.
    """
    message, extra = completion_message(body)
    try:
        content = content_text(message.get("content"))
        if not content.strip() and any(isinstance(message.get(k), str) and message[k].strip()
                                       for k in ("reasoning_content", "reasoning")):
            raise ReplyError("the reply holds reasoning only, no answer")
        probs = parse_reply(content, item.option_keys)
    except ReplyError as exc:
        reason = str(exc) if extra["closed"] else f"reply cut off at max_tokens ({exc})"
        return {"id": item.id, "error": reason, **extra}
    return {"id": item.id, "p": probs, **extra}


CHAT_SETTINGS: dict[str, Setting] = {
    **HTTP_SETTINGS,
    "base_url": Setting(None, text, "the /v1 URL, e.g. http://localhost:8000/v1", identity=False),
    "model": Setting(None, text, "model name as the server knows it"),
    "temperature": Setting(0.0, number(0, maximum=10), "sampling temperature"),
    "max_tokens": Setting(2048, integer(1), "most tokens in the reply (reasoning included)"),
    "max_tokens_field": Setting("max_tokens", one_of("max_tokens", "max_completion_tokens"),
                                "the request field that carries max_tokens (OpenAI's reasoning models and newer "
                                "APIs want max_completion_tokens)", identity=False),
    "reasoning_effort": Setting(None, optional_text, "sent when set (low, medium, high)"),
    "context_tokens": Setting(None, optional_integer(1), "longer inputs (estimated at 4 characters a token) "
                              "are recorded as input restrictions, not sent"),
    "serve_prefix": Setting("/v1", url_path, "with serve: the path the server mounts the OpenAI API under (vLLM, "
                            "llama.cpp, SGLang, transformers serve: /v1); requests go to <prefix>/chat/completions",
                            identity=False),
}

register(KindSpec(
    name="chat",
    doc="OpenAI-compatible chat completions; probabilities read from the reply's JSON object",
    settings=CHAT_SETTINGS,
    required=("base_url", "model"),
    instead=SERVED_INSTEAD,
    make_runner=lambda system: HttpRunner(system, ChatWire(system)),
    readout=lambda settings: "chat/verbalised",
))
