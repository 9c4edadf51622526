"""Kind ``logprobs``: option-key probabilities from a served model's token log-probabilities.

The same readout as the ``hf`` kind (paper, Appendix B, open general models), read from an OpenAI-compatible
server (vLLM, llama.cpp, SGLang, TGI) instead of a model in process. The prompt is built exactly as the
``hf`` kind builds it, with the checkpoint's own tokenizer (``tokenizer:``, a local folder; by default
``model``): the system message and :func:`~decisionpivot.evaluate.hf.key_body` through the tokenizer's chat
template with the generation prompt (or :func:`~decisionpivot.evaluate.hf.plain_prompt` without a template),
and each key's tokens are read from prompt and key tokenized together
(:func:`~decisionpivot.evaluate.hf.key_tokens`). Two readouts (``readout:``):

* ``completions`` (default; leaderboard readout ``logprobs/whole-key``): one ``POST /completions`` per item
  whose ``prompt`` is the list of token-id sequences prompt + key, one per option, with ``echo: true``,
  ``logprobs: 1`` and ``max_tokens: 0``: the server scores the echoed tokens and sends nothing new. A key's
  log-likelihood is the sum of its tokens' echoed log-probabilities, a softmax over the keys gives the
  distribution - the ``hf`` kind's computation, so multi-token keys (``yes_only_A``) and keys sharing a first
  token are scored whole. Token ids are sent, never text: the server cannot tokenize the key differently.
* ``chat`` (``logprobs/first-token``): one ``POST /chat/completions`` with the same messages, ``max_tokens:
  1``, ``logprobs: true`` and ``top_logprobs``; each key's probability is its first token's among the top
  ``top_logprobs`` (servers cap it: vLLM at 20 by default, OpenAI at 20). This equals whole-key scoring only
  when every key is one token, so an item with a longer key, or with two keys that share a first token, is an
  error record naming the key (use ``completions``). A key missing from the top-k list is never read as zero:
  the record is an error that names the key and the cut-off (``top-k cut-off: ...``), scored as a failed
  prediction; raise ``top_logprobs`` or use ``completions``.

Every log-probability passes :func:`decisionpivot.probability.log_probability` (a finite number <= 0): a reply
holding another (``+0.7``, which would turn p(yes) 0.20 into 0.51; NaN; null where a key token is) or echoing
another number of tokens is no answer - retried, and transient if it persists (:mod:`decisionpivot.evaluate.outcome`).
A server that accepts the request but returns no log-probabilities (``transformers serve`` does so) stops the
run at the first answer with one line: nothing it says can be read this way. A provider that refuses the
parameter (reasoning models: OpenAI's o-series and gpt-5 answer ``logprobs`` with a 400) stops it too, with
the server's message (the HTTP engine's rule for a refused parameter). A model whose first token opens a
reasoning block (``<think>``) is an error record saying so (turn thinking off through ``extra_body``, e.g.
``chat_template_kwargs: {enable_thinking: false}``, or read with ``completions``, where the prompt already
ends after the generation prompt). Transport - concurrency, retries, ``serve:`` - is the shared HTTP engine's
(:mod:`decisionpivot.evaluate.http`). transformers is needed for the tokenizer (``decisionpivot[hf]``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.checkpoints import load_error
from decisionpivot.evaluate.hf import (
    SYSTEM_MESSAGE,
    Encoded,
    KeyTokenError,
    key_body,
    key_tokens,
)
from decisionpivot.evaluate.http import HTTP_SETTINGS, SERVED_INSTEAD, HttpRunner, StopRun, usage_fields
from decisionpivot.evaluate.kinds import (
    INPUT_RESTRICTION,
    KindSpec,
    Record,
    Setting,
    SystemConfig,
    integer,
    one_of,
    optional_integer,
    optional_text,
    register,
    text,
)
from decisionpivot.evaluate.outcome import NotAnAnswer
from decisionpivot.items import Item
from decisionpivot.probability import ProbabilityError, from_log_likelihoods, log_probability

REASONING_OPENERS = ("<think>", "<thinking>", "<reasoning>", "<|channel|>", "<seed:think>")
"""First tokens that open a reasoning block instead of an answer."""
READOUTS = {"completions": "logprobs/whole-key", "chat": "logprobs/first-token"}
"""``readout:`` -> the name the meta file and the leaderboard's Readout column show."""


def no_logprobs(url: str) -> StopRun:
    """The one line of a server that answered without log-probabilities."""
    return StopRun(f"{url} answered without log-probabilities (it accepted the request's logprobs and sent none, "
                   "as transformers serve does): the logprobs kind cannot read this server. Serve the model with "
                   "vLLM or llama.cpp, or evaluate it with the chat kind (verbalised probabilities)")


def whole_key_scores(body: Any, sequences: list[list[int]], keys: list[list[int]]) -> list[float]:
    """Each key's log-likelihood from an echoed ``/completions`` body (one choice per prompt + key sequence).

    Each key token's log-probability passes :func:`decisionpivot.probability.log_probability` (finite, at most 0):
    a body that is not such an echo, echoes another number of tokens or holds a number no log-probability can be
    (None, NaN, +0.7) is not an answer (NotAnAnswer: retried, transient if it persists). DecisionPivotError when
    the body holds no log-probabilities at all (the server ignores the parameter: the run stops)."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or len(choices) != len(sequences):
        raise NotAnAnswer(f"malformed response body (expected {len(sequences)} completion choices)")
    ordered = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
    scores = []
    for choice, sent, key in zip(ordered, sequences, keys, strict=True):
        logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
        values = logprobs.get("token_logprobs") if isinstance(logprobs, dict) else None
        if not isinstance(values, list) or not values:
            raise DecisionPivotError("no log-probabilities")
        if len(values) not in (len(sent), len(sent) + 1):  # +1: a server that put its own BOS before the ids
            raise NotAnAnswer(f"the server echoed {len(values)} tokens for the {len(sent)} sent")
        try:
            tail = [log_probability(v, "a key token's log-probability") for v in values[-len(key):]]
        except ProbabilityError as exc:
            raise NotAnAnswer(f"not an answer: {exc}") from None
        scores.append(float(sum(tail)))
    return scores


def first_token_logprobs(body: Any) -> tuple[list[tuple[str, float]], str]:
    """(top alternatives of the first generated token as (text, log-probability), the generated token's text)
    from a chat completion with ``logprobs``; raises DecisionPivotError when it holds none, NotAnAnswer when it is
    not a chat completion or a log-probability is impossible (:func:`decisionpivot.probability.log_probability`)."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise NotAnAnswer("malformed response body (not a chat completion)")
    logprobs = choices[0].get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        raise DecisionPivotError("no log-probabilities")
    first = content[0]
    top = first.get("top_logprobs") or []
    if not isinstance(top, list) or not any(isinstance(t, dict) and "logprob" in t for t in top):
        raise DecisionPivotError("no log-probabilities")
    try:
        pairs = [(str(t.get("token", "")), log_probability(t.get("logprob"), f"the log-probability of "
                                                                             f"{t.get('token')!r}"))
                 for t in top if isinstance(t, dict)]
    except ProbabilityError as exc:
        raise NotAnAnswer(f"not an answer: {exc}") from None
    return pairs, str(first.get("token", ""))


@lru_cache(maxsize=4)
def load_tokenizer(name: str, path: str) -> Any:
    """The checkpoint's tokenizer (never its own code), loaded once per process."""
    try:
        import transformers
    except ImportError:
        raise DecisionPivotError(f"system {name!r} (kind logprobs) needs transformers for the model's tokenizer: "
                                 "pip install 'decisionpivot[hf]'") from None
    try:
        return transformers.AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    except Exception as exc:  # the checkpoint's fault, whatever the loader raised: one line
        raise load_error(name, path, exc) from None


class LogprobsWire:
    """``/completions`` with echoed whole keys, or ``/chat/completions`` with first-token ``top_logprobs``."""

    def __init__(self, system: SystemConfig, tokenizer: Any = None) -> None:
        self.settings = system.settings
        self.readout = str(self.settings["readout"])
        self.path = "/completions" if self.readout == "completions" else "/chat/completions"
        path = str(self.settings.get("tokenizer") or self.settings["model"])
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(system.name, path)
        self.url = str(self.settings.get("base_url") or "the server dp started")
        self._encoded: dict[tuple[str, tuple[str, ...]], Encoded] = {}

    def encoded(self, item: Item) -> Encoded:
        """The item's prompt and key tokens (:func:`key_tokens`), kept while the item is in flight."""
        ident = (item.id, item.option_keys)
        if ident not in self._encoded:
            if len(self._encoded) > 4096:
                self._encoded.clear()
            self._encoded[ident] = key_tokens(self.tokenizer, item)
        return self._encoded[ident]

    def refused(self, item: Item) -> str | None:
        try:
            prompt, keys = self.encoded(item)
        except KeyTokenError as exc:
            return str(exc)
        limit = self.settings.get("context_tokens")
        longest = len(prompt) + max(len(k) for k in keys)
        if limit and longest > int(limit):
            return f"{INPUT_RESTRICTION}: input longer than the declared context ({longest} tokens > {limit})"
        if self.readout == "chat":
            long = [key for key, tokens in zip(item.option_keys, keys, strict=True) if len(tokens) > 1]
            if long:
                return (f"readout chat reads first tokens only, and key(s) {long} are longer than one token "
                        "(readout completions scores whole keys)")
        return None

    def request(self, item: Item) -> dict[str, Any]:
        s = self.settings
        if self.readout == "completions":
            prompt, keys = self.encoded(item)
            return {"model": s["model"], "prompt": [prompt + key for key in keys], "echo": True, "logprobs": 1,
                    "max_tokens": 0, "temperature": 0.0}
        messages = [{"role": "system", "content": SYSTEM_MESSAGE}, {"role": "user", "content": key_body(item)}]
        return {"model": s["model"], "messages": messages, "max_tokens": 1, "temperature": 0.0, "logprobs": True,
                "top_logprobs": int(s["top_logprobs"])}

    def parse(self, item: Item, body: Any) -> Record:
        usage = usage_fields(body.get("usage") if isinstance(body, dict) else None)
        try:
            if self.readout == "completions":
                return self._whole_keys(item, body, usage)
            return self._first_tokens(item, body, usage)
        except DecisionPivotError:
            raise no_logprobs(self.url) from None

    def _whole_keys(self, item: Item, body: Any, usage: dict[str, int]) -> Record:
        prompt, keys = self.encoded(item)
        scores = whole_key_scores(body, [prompt + key for key in keys], keys)
        return {"id": item.id, "p": from_log_likelihoods(item.option_keys, scores), **usage}

    def _first_tokens(self, item: Item, body: Any, usage: dict[str, int]) -> Record:
        top, generated = first_token_logprobs(body)
        _, keys = self.encoded(item)
        texts = [self.tokenizer.decode([tokens[0]]) for tokens in keys]
        shared = sorted({t for t in texts if texts.count(t) > 1})
        if shared:
            return {"id": item.id, "error": f"keys share a first token ({shared}): readout chat cannot tell them "
                                            "apart (readout completions scores whole keys)", **usage}
        offered: dict[str, float] = {}
        for token, value in top:
            offered.setdefault(token, value)
        missing = [key for key, t in zip(item.option_keys, texts, strict=True) if t not in offered]
        if missing:
            if generated.strip() in REASONING_OPENERS or any(t.strip() in REASONING_OPENERS for t, _ in top[:1]):
                return {"id": item.id, "error": f"the model opens a reasoning block ({generated.strip()!r}) instead "
                                                "of answering: its first token holds no option key (turn thinking "
                                                "off, or use readout completions)", **usage}
            return {"id": item.id, "error": f"top-k cut-off: key(s) {missing} not among the server's top {len(top)} "
                                            f"log-probabilities (the least shown: {min(v for _, v in top):.4g}); "
                                            "raise top_logprobs or use readout completions", **usage}
        values = [offered[t] for t in texts]
        return {"id": item.id, "p": from_log_likelihoods(item.option_keys, values), **usage}


def _make_runner(system: SystemConfig) -> HttpRunner:
    return HttpRunner(system, LogprobsWire(system))


register(KindSpec(
    name="logprobs",
    doc="a served model's token log-probabilities (OpenAI-compatible /completions echo or chat top_logprobs): "
        "the hf kind's key readout, from a server",
    settings={
        **HTTP_SETTINGS,
        "base_url": Setting(None, text, "the /v1 URL, e.g. http://localhost:8000/v1", identity=False),
        "model": Setting(None, text, "model name as the server knows it (and the tokenizer's folder when "
                         "tokenizer is not given)"),
        "tokenizer": Setting(None, optional_text, "local folder (or hub id) of the served checkpoint's tokenizer: "
                             "renders the prompt and maps keys to tokens"),
        "readout": Setting("completions", one_of(*READOUTS), "completions: whole keys from echoed log-probabilities; "
                           "chat: first tokens from top_logprobs"),
        "top_logprobs": Setting(20, integer(1), "alternatives asked per token (readout chat; servers cap it)"),
        "context_tokens": Setting(None, optional_integer(1), "longer inputs are recorded as input restrictions"),
    },
    required=("base_url", "model"),
    instead=SERVED_INSTEAD,
    make_runner=_make_runner,
    readout=lambda settings: READOUTS.get(str(settings.get("readout")), "logprobs"),
))
