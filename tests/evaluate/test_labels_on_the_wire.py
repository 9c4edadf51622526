"""The invariance suite's ``labels`` framing changes what EVERY kind sends (suite 1.1).

Suite 1.0 renamed yes/no to true/false, which the kinds that send yes/no items as a true/false predicate (System One,
the Decisions APIs, the in-process pipeline) already sent for the plain item: only the question type could change.
Here every registered kind builds its request for a plain item and for its ``labels`` item, for one item of every
family, and the option keys or labels on the wire must differ. A yes/no family renamed to its own words becomes a
two-option choice on the predicate kinds: a real rename on their wire (docs/invariance.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from decisionpivot.evaluate.hf import key_body, plain_prompt
from decisionpivot.evaluate.kinds import kinds
from decisionpivot.evaluate.openai_decisions import OpenAIDecisionsWire
from decisionpivot.evaluate.prompt import OPTIONS_HEADING, user_message
from decisionpivot.evaluate.questions import DecisionWire
from decisionpivot.evaluate.sglang_decisions import SGLangDecisionsWire
from decisionpivot.evaluate.systemone import SystemOneWire
from decisionpivot.frame import material
from decisionpivot.frame.framings import frame_item
from decisionpivot.frame.suite import SUITE_SEED
from decisionpivot.generate.registry import families
from decisionpivot.items import Item
from tests.conftest import cached_draw


def _settings(kind: str) -> dict[str, Any]:
    return {**{name: s.default for name, s in kinds()[kind].settings.items()}, "model": "m"}


def _wire_labels(wire: type[DecisionWire], kind: str) -> Callable[[Item], tuple[str, ...]]:
    """The question type and the option names of a decision-API body (what the server maps to labels)."""
    built = wire(_settings(kind))

    def labels(item: Item) -> tuple[str, ...]:
        body = built.body(item, built.question(item))
        questions = body["questions"]
        question = questions["decision"] if isinstance(questions, dict) else questions[0]
        if "criteria" in question:  # System One: noul {true, false} or choice {key: meaning}
            names = list(question["criteria"])
        elif "choices" in question:  # OpenAI Decisions choice
            names = [str(c["value"]) for c in question["choices"]]
        elif "options" in question:  # SGLang choice
            names = [o["name"] for o in question["options"]]
        elif question["type"] == "yes_no":  # SGLang yes_no: its labels are yes and no
            names = ["yes", "no"]
        else:  # OpenAI predicate: read as true/false
            assert question["type"] == "predicate"
            names = ["true", "false"]
        return (question["type"], *names)
    return labels


def _listed_keys(text: str) -> tuple[str, ...]:
    """The option keys a prompt lists (``key: meaning`` lines under OPTIONS)."""
    block = text.split(f"{OPTIONS_HEADING}\n", 1)[1].split("\n\n", 1)[0]
    return tuple(line.split(": ", 1)[0] for line in block.splitlines())


def _chat(item: Item) -> tuple[str, ...]:
    message = user_message(item)
    return (*_listed_keys(message), *re.findall(r'"([^"]+)": <probability>', message))


def _key_readout(item: Item) -> tuple[str, ...]:
    """hf and logprobs: the keys listed in the prompt and the continuations scored (the option keys)."""
    assert key_body(item) in plain_prompt(item)
    return (*_listed_keys(key_body(item)), *item.option_keys)


SENT: dict[str, Callable[[Item], tuple[str, ...]]] = {
    "systemone": _wire_labels(SystemOneWire, "systemone"),
    "decision": _wire_labels(SystemOneWire, "decision"),  # the System One body, in process
    "openai_decisions": _wire_labels(OpenAIDecisionsWire, "openai_decisions"),
    "sglang_decisions": _wire_labels(SGLangDecisionsWire, "sglang_decisions"),
    "chat": _chat,
    "hf": _key_readout,
    "logprobs": _key_readout,
    "python": lambda item: item.option_keys,  # a plugin gets the item itself
    "baseline": lambda item: item.option_keys,  # so do the baselines
}
"""Kind -> the labels its request carries for an item."""


def test_every_kind_has_a_reading_of_its_request() -> None:
    assert sorted(SENT) == sorted(kinds()), "a new kind needs its request reading here"


def _plain_and_labels(family: str) -> tuple[Item, Item]:
    item = next(i for i in cached_draw(family).items if i.level == 1)
    framed = {i.extra["framing"]: i for i in frame_item(item, material(family), SUITE_SEED)}
    return framed["plain"], framed["labels"]


@pytest.mark.parametrize("family", [spec.name for spec in families()])
def test_labels_change_what_every_kind_sends(family: str, capsys: pytest.CaptureFixture[str]) -> None:
    plain, labels = _plain_and_labels(family)
    for kind, sent in SENT.items():
        before, after = sent(plain), sent(labels)
        with capsys.disabled():
            print(f"\n{family:17} {kind:17} plain {before} -> labels {after}", end="")
        assert before != after, f"{family}: labels change nothing on the {kind} wire ({before})"
        if plain.option_keys == ("yes", "no") and kind in ("systemone", "decision", "openai_decisions"):
            assert after[0] == "choice", f"{kind}: a renamed yes/no family is a two-option choice"
