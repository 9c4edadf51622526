"""decisionpivot.redact: no token or API key survives into a message (issue 15, item 11)."""

from __future__ import annotations

import pytest

from decisionpivot.redact import MARK, redact, redact_data

HF = "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
SK = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4"


@pytest.mark.parametrize(("text", "secret"), [
    (f"authorization: Bearer {HF}", HF),
    (f"Authorization: Bearer {SK}", SK),
    ("{'authorization': 'Bearer abc.def-ghi_123'}", "abc.def-ghi_123"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    ("Authorization: token 0123456789abcdef", "0123456789abcdef"),
    ("x-api-key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    (f"the server said: invalid key {SK} (check it)", SK),
    (f"token {HF} has no access", HF),
    ("GET https://api.example.com/v1/chat?api_key=abc123XYZ&model=m", "abc123XYZ"),
    ("https://x.org/file?download=1&token=t0k3n-value#frag", "t0k3n-value"),
    ("https://x.org/?access_token=ya29.a0AfH6", "ya29.a0AfH6"),
    ('{"error": "bad request", "api_key": "my-secret-key-1"}', "my-secret-key-1"),
    ('{"openai_api_key": "quoted \\" value"}', 'quoted \\" value'),
    ("HF_TOKEN=abcdef123456 dp download", "abcdef123456"),
    ("password: hunter2hunter2x9", "hunter2hunter2x9"),
    ("ghp_" + "a" * 36, "ghp_" + "a" * 36),
    ("cookie: session=0xdeadbeef; other=1", "0xdeadbeef"),
])
def test_secrets_are_redacted(text: str, secret: str) -> None:
    result = redact(text, environ={})
    assert secret not in result and MARK in result, result


@pytest.mark.parametrize("text", [
    "no Hugging Face token: run `hf auth login` with a token that has write access, or set HF_TOKEN",
    "the token passed by the caller",
    "usage.completion_tokens: 12, max_tokens=256, prompt_tokens: 30",
    "runs/uniform/fact_answerable.jsonl:7: duplicate id 'fact_answerable:00003'",
    "expected a number >= 1, got 0",
    "",
])
def test_ordinary_messages_are_left_alone(text: str) -> None:
    assert redact(text, environ={}) == text


def test_values_of_secret_environment_variables_are_redacted() -> None:
    environ = {"OPENAI_API_KEY": "plainvalue42", "MY_SECRET": "s3cr3t!!", "SERVICE_TOKEN": "tok-999",
               "SHORT_KEY": "1", "PATH": "/usr/bin", "db_password": "pw-123456"}
    text = "sent plainvalue42 and s3cr3t!! and tok-999 and pw-123456 via /usr/bin, 1 time"
    result = redact(text, environ=environ)
    for secret in ("plainvalue42", "s3cr3t!!", "tok-999", "pw-123456"):
        assert secret not in result
    assert "/usr/bin" in result and "1 time" in result


def test_the_process_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_VENDOR_API_KEY", "vendorvalue77")
    assert "vendorvalue77" not in redact("echo vendorvalue77")


def test_redact_data_walks_json_like_values() -> None:
    record = {"id": "x:1", "error": f"HTTP 401: authorization: Bearer {HF}", "p": {"yes": 0.5},
              "log": [f"key {SK}", 3, None, True], "pair": ("a", f"?token={HF}")}
    result = redact_data(record, environ={})
    assert HF not in repr(result) and SK not in repr(result)
    assert result["p"] == {"yes": 0.5} and result["log"][1:] == [3, None, True] and isinstance(result["pair"], tuple)
    assert result["id"] == "x:1"


def test_redacting_stream_redacts_every_write_and_delegates_the_rest() -> None:
    import io

    from decisionpivot.redact import RedactingStream

    inner = io.StringIO()
    stream = RedactingStream(inner)
    assert stream.write(f"a {HF}\n") == len(f"a {HF}\n")
    stream.writelines([f"b {SK}\n", "c\n"])
    assert inner.getvalue() == f"a {MARK}\nb {MARK}\nc\n" and stream.isatty() is False


def test_a_value_attached_to_a_short_option_is_hashed() -> None:
    """Red team, wave 5: `-pHUNTER2` (a value glued to a short option, as mysql takes a password) matched the pattern
    of an option's name and was written in clear; only one-letter short options and long names are names."""
    from decisionpivot.redact import written_command

    shown = written_command(["{python}", "-m", "server", "-pHUNTER2", "-uuser:pass", "--key", "SECRET",
                             "--db=postgres://u:PW@h/db", "-k"])
    assert shown[:2] == ["{python}", "-m"] and "--key" in shown and "-k" in shown
    text = " ".join(shown)
    for secret in ("HUNTER2", "user:pass", "SECRET", "PW@h"):
        assert secret not in text, (secret, shown)
