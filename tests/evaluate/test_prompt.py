"""The chat request and the reading of replies."""

from __future__ import annotations

import pytest

from decisionpivot.evaluate.prompt import CLOSING, ReplyError, chat_messages, parse_reply, user_message
from decisionpivot.items import Item, Option

ITEM = Item("f:00000", "f", "A", "1", "f:g0", 1, None, None, {"rows": [1, 2]}, "Is it?",
            (Option("yes", "it is"), Option("no", "it is not")), "yes")
KEYS = ("yes", "no")


def test_user_message_layout() -> None:
    text = user_message(ITEM)
    assert text.startswith("STATE\n{\n  \"rows\": [")  # structured states as indented JSON
    assert "\n\nQUESTION\nIs it?\n\nOPTIONS (key: meaning)\nyes: it is\nno: it is not\n\n" in text
    assert text.endswith(f'{CLOSING}\n{{"yes": <probability>, "no": <probability>}}')
    assert [m["role"] for m in chat_messages(ITEM)] == ["system", "user"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"yes": 0.8, "no": 0.2}', {"yes": 0.8, "no": 0.2}),
        ('<think>maybe {"yes": 1, "no": 0}</think> {"yes": 0.3, "no": 0.7}', {"yes": 0.3, "no": 0.7}),
        ('Reasoning...\n```json\n{"yes": 0.1, "no": 0.9}\n```\nDone.', {"yes": 0.1, "no": 0.9}),
        ('Sure. {"yes": 2, "no": 2} and later {"yes": 1, "no": 0}', {"yes": 1.0, "no": 0.0}),
        # think-aloud: an example object quoted first, the answer object last
        ('The form is {"yes": <p>, "no": <p>}, e.g. {"yes": 0.5, "no": 0.5}. Row 3 decides it.\n'
         '{"yes": 0.9, "no": 0.1}', {"yes": 0.9, "no": 0.1}),
        # an object without the option keys after the answer does not win
        ('{"yes": 0.2, "no": 0.8}\nChecked: {"rows": 3}', {"yes": 0.2, "no": 0.8}),
        ('{"yes": 0.5, "no": 0.5, "maybe": 0.1}', {"yes": 0.5, "no": 0.5}),
    ],
)
def test_parse_reply_reads_the_last_object_with_the_option_keys(reply: str, expected: dict) -> None:
    assert parse_reply(reply, KEYS) == expected


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty reply"),
        ("I think yes.", "no JSON object"),
        ('{"yes": 0.5}', "misses option key"),
        ('{"yes": "high", "no": 0.1}', "not a number"),
        ('{"yes": -0.1, "no": 1.1}', "not a probability in \\[0, 1\\]"),
        ('{"yes": NaN, "no": 1}', "not a finite number"),
        ('{"yes": 0, "no": 0}', "sum to 0, outside 1 \\+- 0.02"),
        ('{"yes": 2, "no": 1}', "not a probability in \\[0, 1\\]"),
        ('{"yes": 0.5, "no": 0.3}', "sum to 0.8, outside 1 \\+- 0.02"),
        ('<think>still thinking {"yes": 1, "no": 0}', "never closed"),
    ],
)
def test_unreadable_replies_raise_with_a_reason(reply: str, reason: str) -> None:
    with pytest.raises(ReplyError, match=reason):
        parse_reply(reply, KEYS)
