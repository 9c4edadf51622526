"""A stand-in for an OpenAI-compatible server with log-probabilities, computing them from a real model in process.

Not hand-written numbers: every log-probability is the model's own (``log_softmax`` of its logits over the
token ids the request holds), as vLLM computes them. What it serves, in the shape vLLM answers:

* ``POST /v1/completions`` with ``prompt`` a list of token-id sequences, ``echo: true``, ``logprobs`` and
  ``max_tokens: 0``: one choice per sequence whose ``logprobs.token_logprobs`` is ``[None, lp(t1|t0), ...]``;
* ``POST /v1/chat/completions`` with ``logprobs`` / ``top_logprobs``: the messages through the tokenizer's chat
  template with the generation prompt, the first token's ``top_logprobs`` (token text as the tokenizer decodes
  the id alone);
* ``quirk="no-logprobs"``: accepts both and returns none (``transformers serve``'s behaviour);
  ``quirk="thinks"``: the first generated token is ``<think>``, as a reasoning model's chat template makes it.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import torch
import transformers


class LogprobModel:
    """The checkpoint's model and tokenizer, and the two computations a server does with them."""

    def __init__(self, folder: Path) -> None:
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
        self.model = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
        self.lock = threading.Lock()

    def echoed(self, ids: list[int]) -> list[float | None]:
        with self.lock, torch.no_grad():
            logprobs = torch.log_softmax(self.model(torch.tensor([ids])).logits[0].float(), dim=-1)
        return [None] + [float(logprobs[i - 1, t]) for i, t in enumerate(ids) if i > 0]

    def first_token(self, messages: list[dict[str, str]], k: int) -> list[tuple[str, float]]:
        text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        with self.lock, torch.no_grad():
            last = torch.log_softmax(self.model(torch.tensor([ids])).logits[0, -1].float(), dim=-1)
        values, indices = torch.topk(last, min(k, last.numel()))
        return [(self.tokenizer.decode([int(i)]), float(v)) for v, i in zip(values, indices, strict=True)]


def completions(model: LogprobModel, request: dict[str, Any], quirk: str) -> dict[str, Any]:
    prompts = request["prompt"]
    choices = []
    for index, ids in enumerate(prompts):
        logprobs = None
        if quirk != "no-logprobs" and request.get("logprobs") is not None and request.get("echo"):
            logprobs = {"tokens": [model.tokenizer.decode([t]) for t in ids], "token_logprobs": model.echoed(ids),
                        "top_logprobs": None, "text_offset": list(range(len(ids)))}
        choices.append({"index": index, "text": "", "logprobs": logprobs, "finish_reason": "length"})
    tokens = sum(len(p) for p in prompts)
    return {"object": "text_completion", "model": request["model"], "choices": choices,
            "usage": {"prompt_tokens": tokens, "completion_tokens": 0, "total_tokens": tokens}}


def chat(model: LogprobModel, request: dict[str, Any], quirk: str) -> dict[str, Any]:
    k = max(1, int(request.get("top_logprobs") or 1))
    top = model.first_token(request["messages"], k)
    if quirk == "thinks":
        top = [("<think>", -0.01), *top[:k - 1]]
    logprobs = None
    if quirk != "no-logprobs" and request.get("logprobs"):
        logprobs = {"content": [{"token": top[0][0], "logprob": top[0][1],
                                 "top_logprobs": [{"token": t, "logprob": v} for t, v in top]}]}
    return {"object": "chat.completion", "model": request["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": top[0][0]}, "logprobs": logprobs,
                         "finish_reason": "length"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@contextlib.contextmanager
def logprob_server(folder: Path, quirk: str = "") -> Iterator[str]:
    """Serves the checkpoint in ``folder`` on a free loopback port; yields its ``/v1`` base URL."""
    model = LogprobModel(folder)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/v1/completions":
                body = completions(model, request, quirk)
            elif self.path == "/v1/chat/completions":
                body = chat(model, request, quirk)
            else:
                self.send_error(404)
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
