"""Remove secrets (tokens, API keys) from any text before it is printed, logged or written; write configuration
values by an allow-list.

Two rules, for two kinds of data. **Configuration** (a system's settings) is written by an allow-list
(:class:`~decisionpivot.evaluate.kinds.Setting`'s ``clear``): only values a setting declares clear are written as
they are; every other value - each ``serve:`` argument, ``serve_env:`` value, header value, ``extra_body`` value, the
user name, password and query values of a URL - is written by :func:`written_value`, :func:`written_command`,
:func:`written_environment` and :func:`written_url`, as a salted scrypt hash (:func:`hashed`) or not at all.
**Free text** a server or an exception writes (error bodies, messages) cannot be allow-listed: :func:`redact`
recognises the secrets that can be recognised in it.

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

import functools
import hashlib
import json
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


RECORD_HASH = "scrypt:"
"""Prefix of a value written as its hash (:func:`hashed`)."""
SCRYPT_COST = 2 ** 14
"""scrypt's CPU/memory cost n (with r = 8, p = 1: 16 MiB and about 40 ms a value on one core)."""


@functools.lru_cache(maxsize=4096)
def hashed(value: str, salt: str) -> str:
    """How a configuration value that is not written in clear is written: ``scrypt:`` and 16 hex digits of
    scrypt(value, salt = ``decisionpivot/`` + the setting's name and path, e.g. ``serve_env.DB_URL``).

    Deterministic (a fingerprint built from it is the same on every machine and run, so a resume, a shard merge
    and the DVC pipeline's bytes hold) and salted by the name (one table of guesses per name, not one for all);
    scrypt's cost (:data:`SCRYPT_COST`) makes each guess of a dictionary attack take about 40 ms and 16 MiB,
    where a plain SHA-256 takes a microsecond. A value of a few characters from a small alphabet can still be
    guessed: pass secrets by name (``${NAME}`` in ``serve_env``, ``api_key_env``), which records no value at all.
    """
    digest = hashlib.scrypt(value.encode("utf-8"), salt=f"decisionpivot/{salt}".encode(), n=SCRYPT_COST, r=8, p=1,
                            dklen=8, maxmem=64 * 1024 * 1024)
    return RECORD_HASH + digest.hex()


def written_value(value: Any, salt: str) -> Any:
    """A setting value that is not written in clear: every string and number inside it as its :func:`hashed` form
    (salted by ``salt`` and the path of keys to it); the keys of a mapping, booleans and None as they are (a name,
    or one of two values: nothing a hash would hide)."""
    if isinstance(value, Mapping):
        return {str(key): written_value(item, f"{salt}.{key}") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [written_value(item, salt) for item in value]
    if value is None or isinstance(value, bool):
        return value
    return hashed(value if isinstance(value, str) else json.dumps(value), salt)


_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_.-]*|-[A-Za-z]")
"""An option's name on a command line (``-k``, ``--api-key``): a name, written in clear. A short option is one
letter: ``-pSECRET`` (mysql's form, a value attached to ``-p``) is a value, written hashed."""
PLACEHOLDERS = ("{port}", "{python}")
"""The words of a ``serve:`` command dp fills in itself: written as they are."""


def written_command(words: Any, salt: str = "serve") -> Any:
    """A command (``serve:``) as it is written: option names (``--db``, ``-k``) and :data:`PLACEHOLDERS` in clear,
    every other word - a program, an argument, the value of ``--db=...`` - as its :func:`hashed` form."""
    if not isinstance(words, list):
        return written_value(words, salt)
    shown = []
    for word in map(str, words):
        name, equals, value = word.partition("=")
        if word in PLACEHOLDERS or _OPTION.fullmatch(word):
            shown.append(word)
        elif equals and _OPTION.fullmatch(name):
            shown.append(f"{name}={hashed(value, f'{salt}.{name}')}")
        else:
            shown.append(hashed(word, salt))
    return shown


_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
"""``${NAME}``: a variable of dp's environment named, not a value (written as it is)."""


def written_environment(env: Any, salt: str = "serve_env") -> Any:
    """Environment variables (``serve_env:``) as they are written: names in clear, each value as its :func:`hashed`
    form, except a bare ``${NAME}`` reference to dp's own environment (it names a variable and holds no value)."""
    if not isinstance(env, Mapping):
        return written_value(env, salt)
    return {str(name): value if isinstance(value, str) and _REFERENCE.fullmatch(value)
            else written_value(value, f"{salt}.{name}") for name, value in env.items()}


def written_url(url: Any, salt: str = "base_url") -> Any:
    """A URL as it is written to files and messages: scheme, host, port and path; a user name or password
    becomes ``[REDACTED]@``, each query value ``[REDACTED]`` (names kept), a fragment is dropped. An allow-list:
    whatever the URL holds beyond those parts is never written."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    if not isinstance(url, str):
        return written_value(url, salt)
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return MARK
    if ":" in host:
        host = f"[{host}]"
    netloc = (f"{MARK}@" if "@" in parts.netloc else "") + host + port
    query = urlencode([(name, MARK) for name, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="[]")
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
