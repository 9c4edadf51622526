"""An item as one typed decision question, and a decision model's answer as option probabilities.

The mapping the paper prescribes for decision models reached "through their documented interfaces":

* the **state** as it is (a string, or the JSON object of a structured state);
* the item's **question** as the ``instructions``;
* the **options** as ``choice`` criteria, option key -> meaning, in the item's order;
* **yes/no items** either as a ``noul`` question (P(true) is read as P(``yes``); the criteria describe
  true and false with the meanings of ``yes`` and ``no``) or as a two-option ``choice`` - a per-system
  setting (``yes_no``) that is recorded in the meta file and on the leaderboard, because the two read
  different things (one probability from one label pair, or a distribution over two named options);
* **score items** (:mod:`decisionpivot.score_questions`: the options are the levels of a scale) as a ``score``
  question: the levels in the item's listed order (lowest first in the suite; a framing may list them highest
  first), each with its name and what it means. Interfaces name a level by its index in that list (System One
  ``"0"``.., OpenAI's ``value``), so a score answer maps back through the index to the listed option key; an
  interface's cap on levels (``max_levels``, DECISION-APIS.md section 2) makes a larger item an input restriction.

Answers map back to option keys **by name, never by position**. Providers round probabilities to two
decimals or let them sum to 1 +- 0.01, so a distribution is renormalised when its sum lies within
``max(sum_tolerance, 0.005 x options)`` of 1 (the second term is the worst case of rounding every
option to two decimals): the one check of :mod:`decisionpivot.probability`. A body that is not the
interface's reply, holds no answer to the question asked, or holds numbers that are not such a
distribution (a missing or unknown option, a value outside [0, 1], a sum outside the tolerance) is not
the model's answer: :class:`~decisionpivot.evaluate.outcome.NotAnAnswer`, retried and transient if it
persists (a server computes these numbers; no model means a probability of 1.3). Only the model's
documented refusal (:class:`Refusal`) is a final error record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decisionpivot.errors import DecisionPivotError
from decisionpivot.evaluate.http import usage_fields
from decisionpivot.evaluate.kinds import INPUT_RESTRICTION, Setting, number, one_of, optional_integer
from decisionpivot.evaluate.outcome import NotAnAnswer
from decisionpivot.evaluate.prompt import ReplyError
from decisionpivot.items import Item, render_state
from decisionpivot.probability import DEFAULT_SUM_TOLERANCE, ProbabilityError, distribution, probability
from decisionpivot.score_questions import MEANING_SEPARATOR, is_score_item

YES, NO = "yes", "no"
SCORE = "score"
"""The type of a score question (the item's options are the levels of a scale)."""
CHARS_PER_TOKEN = 4

AnswerError = ReplyError
"""A decision API's reply that holds no usable answer to the question asked (the message is the reason)."""


class Refusal(AnswerError):
    """The model's refusal of the question, as its interface documents it: a final error record."""


def estimated_tokens(characters: int) -> int:
    """Tokens of a text of this many characters, at 4 characters a token (what the limits are checked with)."""
    return characters // CHARS_PER_TOKEN + 1


@dataclass(frozen=True)
class DecisionQuestion:
    """One item asked as a typed question."""

    type: str
    """``noul`` (a yes/no item read as P(true)), ``choice`` or ``score`` (the options are a scale's levels)."""
    state: str | dict[str, Any]
    """The item's state, as it is."""
    instructions: str
    """The item's question."""
    options: tuple[tuple[str, str], ...]
    """(option key, meaning) in the item's order; for ``noul``: (yes, ...), (no, ...); for ``score``: the levels as
    listed (the key of the level at index i, its meaning)."""


def is_yes_no(item: Item) -> bool:
    return sorted(item.option_keys) == [NO, YES]


SEVERAL = "several"
"""``questions_per_request`` of the kinds that send an item's companion questions with it."""
COMPANION_PREFIX = "companion-"
"""Companion questions are sent under ``companion-<id>`` (never the item's own question id)."""


def companion_questions(item: Item, yes_no: str) -> list[tuple[str, DecisionQuestion]]:
    """The item's ``companions`` (invariance suite, framing ``together``: further questions about the same state,
    each ``{"id", "question", "options": [{"key", "meaning"}...], "answer"}``) as (request id, typed question),
    asked like the item (yes/no companions as ``noul`` unless ``yes_no`` is ``choice``). Their answers are not
    recorded: they share the request only to test whether they move the item's answer."""
    companions = item.extra.get("companions") or []
    out = []
    for n, companion in enumerate(companions if isinstance(companions, list) else [None]):
        try:
            options = tuple((str(o["key"]), str(o["meaning"])) for o in companion["options"])
            name, instructions = str(companion["id"]), str(companion["question"])
        except (TypeError, KeyError):
            raise DecisionPivotError(f"item {item.id}: companion {n + 1} is not {{id, question, options: [{{key, "
                                     f"meaning}}...], answer}}") from None
        kind = "noul" if yes_no == "noul" and sorted(k for k, _ in options) == [NO, YES] else "choice"
        out.append((COMPANION_PREFIX + name, DecisionQuestion(kind, item.state, instructions, options)))
    return out


def without_order(yes_no: str, option_keys: Sequence[Sequence[str]]) -> bool:
    """Whether items with these option keys reach a system with no option order at all: every one a yes/no item
    and yes/no asked as ``noul`` (one question, P(true)), so a permuted order sends the very same request. The one
    rule for `dp evaluate` (which then asks no permutation) and `dp score` (which leaves such runs out of the
    option-order figures)."""
    return yes_no == "noul" and bool(option_keys) and all(sorted(keys) == [NO, YES] for keys in option_keys)


def as_question(item: Item, yes_no: str) -> DecisionQuestion:
    """The item as a typed question; ``yes_no`` is ``noul`` or ``choice`` (how yes/no items are asked); a score item
    is a ``score`` question whatever ``yes_no`` says."""
    options = tuple((o.key, o.meaning) for o in item.options)
    if is_score_item(item):
        return DecisionQuestion(SCORE, item.state, item.question, options)
    kind = "noul" if yes_no == "noul" and is_yes_no(item) else "choice"
    return DecisionQuestion(kind, item.state, item.question, options)


def level_parts(meaning_text: str) -> tuple[str, str]:
    """(level name, what the level means) of a level's meaning ``"<name> - <what it means>"``; a meaning without the
    separator is all name."""
    name, _, description = meaning_text.partition(MEANING_SEPARATOR)
    return name, description


def from_levels(question: DecisionQuestion, by_index: Mapping[str, Any], tolerance: float) -> dict[str, float]:
    """A score answer keyed by level index (``"0"`` = the first level listed) as option probabilities: index i is the
    listed option key at i. An index the question has not got, one written otherwise than ``str(i)`` (``"00"``,
    ``"01"``, ``" 1"``, ``"²"``: two of them would fall on one level, the later value silently overwriting the
    earlier), or a missing one, is no distribution (ProbabilityError from
    :func:`decisionpivot.probability.distribution`)."""
    keys = [key for key, _ in question.options]
    index_of = {str(i): key for i, key in enumerate(keys)}
    named = {index_of.get(index, f"level {index}") if isinstance(index, str) else f"level {index}": value
             for index, value in by_index.items()}
    return distribution(named, keys, tolerance)


def meaning(question: DecisionQuestion, key: str) -> str:
    return dict(question.options)[key]


def restriction(question: DecisionQuestion, settings: Mapping[str, Any]) -> str | None:
    """Why the system's declared limits keep it from taking this question (None if it can)."""
    limit = settings.get("max_options")
    if question.type == "choice" and limit and len(question.options) > int(limit):
        return f"{INPUT_RESTRICTION}: {len(question.options)} options, the system takes at most {limit}"
    limit = settings.get("max_levels")
    if question.type == SCORE and limit and len(question.options) > int(limit):
        return f"{INPUT_RESTRICTION}: a scale of {len(question.options)} levels, the system takes at most {limit}"
    state_text = render_state(question.state)
    limit = settings.get("max_state_chars")
    if limit and len(state_text) > int(limit):
        return f"{INPUT_RESTRICTION}: state of {len(state_text)} characters, the system takes at most {limit}"
    limit = settings.get("context_tokens")
    if limit:
        size = len(state_text) + len(question.instructions) + sum(len(k) + len(m) + 4 for k, m in question.options)
        estimate = estimated_tokens(size)
        if estimate > int(limit):
            return (f"{INPUT_RESTRICTION}: about {estimate} tokens (4 characters a token), "
                    f"the declared context is {limit}")
    return None


def from_true_probability(item: Item, p_true: Any) -> dict[str, float]:
    """A noul answer: P(true) is P(yes)."""
    p = probability(p_true, "P(true)")
    return {key: (p if key == YES else 1.0 - p) for key in item.option_keys}


def from_distribution(item: Item, answer: Mapping[str, Any], tolerance: float) -> dict[str, float]:
    """A distribution over option names, checked and renormalised by :func:`decisionpivot.probability.distribution`."""
    return distribution(answer, item.option_keys, tolerance)


class DecisionWire:
    """What every decision-API shape does around its own body and answer (subclasses give those two).

    ``request``: the item as a typed question, refused before sending when it breaks a declared limit;
    ``parse``: the answer read by name into option probabilities, or the model's documented refusal as an error
    record, with the usage (and whatever :meth:`extras` adds) kept on the record either way; any other reply
    raises :class:`~decisionpivot.evaluate.outcome.NotAnAnswer`.
    """

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = settings
        self.path = str(settings.get("path", ""))

    def question(self, item: Item) -> DecisionQuestion:
        return as_question(item, str(self.settings["yes_no"]))

    def companions(self, item: Item) -> list[tuple[str, DecisionQuestion]]:
        """The item's companion questions, sent in the same request (see :func:`companion_questions`)."""
        return companion_questions(item, str(self.settings["yes_no"]))

    def body(self, item: Item, question: DecisionQuestion) -> dict[str, Any]:
        """The request body of the shape."""
        raise NotImplementedError

    def read(self, item: Item, question: DecisionQuestion, body: dict[str, Any], tolerance: float) -> dict[str, float]:
        """Option probabilities from a response body; Refusal for a documented refusal, AnswerError or
        ProbabilityError says why the body holds no answer."""
        raise NotImplementedError

    def extras(self, body: dict[str, Any]) -> dict[str, Any]:
        """Fields kept on the record besides the probabilities (usage, label mass)."""
        return usage_fields(body.get("usage"))

    def refused(self, item: Item) -> str | None:
        return restriction(self.question(item), self.settings)

    def request(self, item: Item) -> dict[str, Any]:
        return self.body(item, self.question(item))

    def parse(self, item: Item, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise NotAnAnswer("malformed response body (not an object)")
        extra = self.extras(body)
        try:
            probabilities = self.read(item, self.question(item), body, float(self.settings["sum_tolerance"]))
        except Refusal as exc:
            return {"id": item.id, "error": str(exc), **extra}
        except ProbabilityError as exc:
            raise NotAnAnswer(f"not an answer: {exc}") from None
        except AnswerError as exc:
            raise NotAnAnswer(str(exc)) from None
        return {"id": item.id, "p": probabilities, **extra}


DECISION_SETTINGS: dict[str, Setting] = {
    "yes_no": Setting("noul", one_of("noul", "choice"), "ask yes/no items as noul (P(true) -> yes) or as a "
                      "two-option choice"),
    "max_options": Setting(None, optional_integer(1), "most options per choice question (TypeSafe 255, "
                           "Fireworks 208, transformers serve / vLLM / SGLang 26); larger items are recorded "
                           "as input restrictions, not sent"),
    "max_levels": Setting(None, optional_integer(1), "most levels per score question (TypeSafe, OpenAI, Perplexity, "
                          "SGLang, vLLM 10; transformers serve 26); larger scales are recorded as input "
                          "restrictions, not sent"),
    "max_state_chars": Setting(None, optional_integer(1), "largest state (characters, JSON states as rendered)"),
    "context_tokens": Setting(None, optional_integer(1), "most input tokens (estimated at 4 characters a token)"),
    "read_window_tokens": Setting(None, optional_integer(1), "the model reads only this many of its own tokens (word "
                                  "pieces for sparrow) from the start of its input and ignores the rest; nothing is "
                                  "refused, but `dp score --invariance` reports irrelevant framings that push the "
                                  "state past the window apart", identity=False),
    "sum_tolerance": Setting(DEFAULT_SUM_TOLERANCE, number(0, maximum=0.5), "a distribution whose sum is within this "
                             "of 1 (at least 0.005 per option) is renormalised"),
}
"""Settings of every kind that asks typed questions (the System One family and the pipeline)."""
