"""Remove secrets (tokens, API keys) from any text before it is printed, logged or written.

Servers echo request headers in error bodies, exceptions carry URLs with ``?api_key=`` in them,
and a traceback can quote an environment variable: one function, :func:`redact`, turns all of
these into ``[REDACTED]`` so no message of ``dp`` shows a secret. :func:`redact_data` applies it
to every string inside a JSON-like value (answer records, meta files, log entries).

What is redacted:

- ``Bearer <token>`` / ``Basic <credentials>`` (any case), as in an echoed ``Authorization`` header;
- the value of ``Authorization:``, ``Proxy-Authorization:``, ``X-Api-Key:``, ``Api-Key:`` and
  ``Cookie:`` headers;
- Hugging Face tokens (``hf_...``), OpenAI/Anthropic-style keys (``sk-...``) and GitHub tokens
  (``ghp_...``, ``github_pat_...``) wherever they appear;
- values of ``api_key=``, ``token=``, ``access_token=``, ``secret=``, ``password=`` (and names
  ending in those, e.g. ``hf_token=``, ``"openai_api_key": "..."``) in URLs, JSON and key=value text;
- the value of every environment variable whose name ends in ``_KEY``, ``_TOKEN``, ``_SECRET`` or
  ``_PASSWORD`` (values of at least :data:`MIN_SECRET_LENGTH` characters) wherever it occurs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

MARK = "[REDACTED]"
"""What a secret is replaced by."""

MIN_SECRET_LENGTH = 6
"""Environment values shorter than this are not searched for (``FOO_KEY=1`` must not blank every 1)."""

SECRET_ENV_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
"""Environment variables with these name endings hold secrets (checked case-insensitively)."""

_SCHEME = re.compile(r"\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=\-]{6,}", re.IGNORECASE)
_HEADER = re.compile(
    r"((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie)"
    r"(['\"]?\s*[:=]\s*['\"]?)(?!\[REDACTED\])(?!(?:bearer|basic)\s)([^\s'\",}][^\r\n'\",}]*)",
    re.IGNORECASE,
)
_PATTERNS = (
    re.compile(r"\bhf_[A-Za-z0-9]{8,}"),
    re.compile(r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{12,}"),
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
)
_NAME = (r"[A-Za-z0-9_\-]*(?:api[_\-]?key|apikey|access[_\-]?token|refresh[_\-]?token|token|secret|password"
         r"|passwd)")
_ASSIGNED = re.compile(rf"((?<![A-Za-z0-9]){_NAME}\s*=\s*['\"]?)(?!\[REDACTED\])([^\s'\"&,;}}\])]+)", re.IGNORECASE)
"""``api_key=...`` in a URL query, ``HF_TOKEN=...`` in a shell line."""
_QUOTED = re.compile(rf"((['\"]){_NAME}\2\s*:\s*(['\"]))(?!\[REDACTED\])((?:\\.|(?!\3).)+)(\3)", re.IGNORECASE)
"""``"api_key": "..."`` in JSON or a Python repr."""
_COLON = re.compile(rf"((?<![A-Za-z0-9]){_NAME}\s*:\s*)(?=[A-Za-z0-9._~+/=\-]*[0-9])([A-Za-z0-9._~+/=\-]{{12,}})",
                    re.IGNORECASE)
"""``token: 3f9a...`` (YAML, headers); only token-like values, so prose such as "token: run" stays."""


def _environment_secrets(environ: Mapping[str, str]) -> list[str]:
    values = {value for name, value in environ.items()
              if name.upper().endswith(SECRET_ENV_SUFFIXES) and len(value) >= MIN_SECRET_LENGTH}
    return sorted(values, key=len, reverse=True)  # longest first: a value containing another goes whole


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with every token, key and secret replaced by ``[REDACTED]`` (see the module docstring).

    ``environ`` defaults to ``os.environ``; its secret-named variables' values are redacted too.
    """
    if not text:
        return text
    for value in _environment_secrets(os.environ if environ is None else environ):
        text = text.replace(value, MARK)
    text = _SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}{MARK}", text)
    text = _HEADER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MARK}", text)
    for pattern in _PATTERNS:
        text = pattern.sub(MARK, text)
    text = _QUOTED.sub(lambda m: f"{m.group(1)}{MARK}{m.group(5)}", text)
    text = _ASSIGNED.sub(lambda m: f"{m.group(1)}{MARK}", text)
    return _COLON.sub(lambda m: f"{m.group(1)}{MARK}", text)


_QUERY_SECRET = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session|code", re.IGNORECASE)


def redact_url(url: str) -> str:
    """``url`` without its secrets: the user-info's password, and the value of every query parameter whose
    name suggests one (``?api_key=``, ``?sig=``, ``?code=``, ...); then :func:`redact` for anything else."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        netloc = f"{userinfo.split(':', 1)[0]}:{MARK}@{host}" if ":" in userinfo else f"{MARK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MARK if _QUERY_SECRET.search(k) else v) for k, v in pairs], safe="[]")
    return redact(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def redact_data(value: Any, environ: Mapping[str, str] | None = None) -> Any:
    """A copy of a JSON-like value (dicts, lists, tuples, strings) with :func:`redact` applied to every string.

    Dictionary keys are redacted too; numbers, booleans and None are returned as they are.
    """
    env = os.environ if environ is None else environ
    if isinstance(value, str):
        return redact(value, env)
    if isinstance(value, Mapping):
        return {redact(k, env) if isinstance(k, str) else k: redact_data(v, env) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_data(v, env) for v in value)
    return value


class RedactingStream:
    """A text stream that passes every write through :func:`redact` (``dp`` wraps ``sys.stderr`` in one).

    Warnings, notes and progress lines reach the terminal without secrets, whoever prints them. Anything
    else (``isatty``, ``fileno``, ``encoding``, ``flush``) is the wrapped stream's.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


SECRET_NAME = re.compile(r"(?:^|[_\-.])(?:api[_\-]?)?(?:key|keys|token|secret|password|passwd|pwd|credentials?|auth)"
                         r"(?:$|[_\-.])", re.IGNORECASE)
"""A variable or option name that holds a secret: ``HF_TOKEN``, ``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``,
``--api-key``, ``--hf-token``, ``--password``, ``--auth`` (the name's words, not any name containing them)."""


def is_secret_name(name: str) -> bool:
    """Whether an environment variable or a command-line option called ``name`` holds a secret (:data:`SECRET_NAME`)."""
    return bool(SECRET_NAME.search(name.lstrip("-")))


def secret_hash(value: str) -> str:
    """What is recorded in place of a secret: ``sha256:`` and the first 16 hex digits of its SHA-256 (a changed
    secret changes a fingerprint; the value cannot be read back, though a short guessable one can be guessed)."""
    import hashlib

    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:16]


def hidden_command(words: Any) -> Any:
    """A ``serve:`` command with each secret argument hashed: the value after an option with a secret name
    (``--api-key VALUE``), ``--api-key=VALUE``, ``NAME=VALUE`` with a secret name (``env HF_TOKEN=... prog``), and
    any word :func:`redact` would hide (an ``hf_...`` or ``sk-...`` token wherever it stands)."""
    if not isinstance(words, list):
        return words
    shown: list[Any] = []
    after_secret_option = False
    for word in words:
        text = str(word)
        name, equals, value = text.partition("=")
        if after_secret_option and not text.startswith("-"):
            shown.append(secret_hash(text))
        elif equals and value and is_secret_name(name):
            shown.append(f"{name}={secret_hash(value)}")
        elif redact(text, {}) != text:  # no environment: the same on every machine
            shown.append(secret_hash(text))
        else:
            shown.append(word)
        after_secret_option = text.startswith("-") and not equals and is_secret_name(text)
    return shown


def hidden_environment(env: Any) -> Any:
    """``serve_env:`` with the value of every variable with a secret name (:func:`is_secret_name`), and every value
    :func:`redact` would hide, hashed; a ``${NAME}`` reference to dp's environment names no secret and stays."""
    if not isinstance(env, Mapping):
        return env
    return {name: value if _REFERENCE.fullmatch(str(value)) else secret_hash(str(value))
            if is_secret_name(name) or redact(str(value), {}) != str(value) else value
            for name, value in env.items()}


_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
"""``${NAME}``: a variable of dp's environment named, not a value (recorded as it is)."""
