"""Suite 1.1's figures re-derived by hand from the files themselves: the items files and the answer records, read as
JSON lines, one loop per figure written here - one figure for every framing new in 1.1 - and compared with what
``score_invariance`` computes (docs/invariance-metrics.md)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from decisionpivot.items import Item
from decisionpivot.score.answers import read_task_answers
from decisionpivot.score.invariance import score_invariance
from decisionpivot.score.layout import read_layout
from decisionpivot.score.results import MACRO
from tests.conftest import cached_draw
from tests.score.framed import framed_family, write_runs, write_suite

FAMILY = "fact_answerable"  # yes/no: every framing of 1.1 applies
WINDOW = 422
"""A read window (tokens) that irrelevant-8000 always fills and irrelevant-2000 only sometimes."""


def noisy(item: Item) -> dict[str, float]:
    """Answers that depend on everything the system sees (a stable hash of the whole item)."""
    digest = hashlib.sha256(repr((item.state, item.question, item.options)).encode()).digest()
    values = [1 + digest[i] for i in range(len(item.options))]
    return {k: v / sum(values) for k, v in zip(item.option_keys, values, strict=True)}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("by-hand")
    suite = write_suite(root / "suite", {FAMILY: framed_family(cached_draw(FAMILY).items, 8)})
    write_runs(root / "runs", suite, {"noisy": noisy}, meta={"system": {"read_window_tokens": WINDOW}})
    return suite / f"{FAMILY}.jsonl", root / "runs" / "noisy" / f"{FAMILY}.jsonl"


@pytest.fixture(scope="module")
def computed(files: tuple[Path, Path]) -> dict[str, float]:
    items_path, answers_path = files
    layout = read_layout(items_path)
    answers = {("noisy", FAMILY): read_task_answers(answers_path, layout, "noisy")}
    return {e.metric: e.value for e in score_invariance([layout], answers, ["noisy"], 10) if e.task != MACRO}


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class ByHand:
    """The records read by hand: every item's answer put on its plain member's options through ``key_map``."""

    def __init__(self, items_path: Path, answers_path: Path) -> None:
        self.items = _read(items_path)
        p = {r["id"]: r["p"] for r in _read(answers_path)}
        self.plain = {i["base"]: i for i in self.items if i["framing"] == "plain"}
        self.bare = {i["base"]: i for i in self.items if i["framing"] == "options-bare"}
        self.on_base: dict[str, dict[str, float]] = {}
        for item in self.items:
            self.on_base[item["id"]] = {item["key_map"][k]: v for k, v in p[item["id"]].items()}

    def of(self, framing: str) -> list[dict[str, Any]]:
        return [i for i in self.items if i["framing"] == framing]

    def predicted(self, item: dict[str, Any]) -> str:
        """The base option with the highest mapped probability, ties to the one listed first."""
        keys = [o["key"] for o in self.plain[item["base"]]["options"]]
        p = self.on_base[item["id"]]
        best = keys[0]
        for key in keys[1:]:
            if p[key] > p[best]:
                best = key
        return best

    def flipped(self, item: dict[str, Any]) -> bool:
        return self.predicted(item) != self.predicted(self.plain[item["base"]])

    def correct(self, item: dict[str, Any]) -> bool:
        """The item's own answer - its highest probability, ties to the option listed first - is its gold."""
        p = self.on_base[item["id"]]
        keys = [o["key"] for o in item["options"]]
        best = keys[0]
        for key in keys[1:]:
            if p[item["key_map"][key]] > p[item["key_map"][best]]:
                best = key
        return best == item["answer"]

    def pieces_before_rest(self, item: dict[str, Any]) -> int:
        """Words and punctuation marks of the framed state before the plain state's text resumes."""
        framed, plain = item["state"], self.plain[item["base"]]["state"]
        if not isinstance(framed, str):
            framed, plain = json.dumps(framed, indent=2, ensure_ascii=False), json.dumps(plain, indent=2,
                                                                                         ensure_ascii=False)
        common = 0
        while common < min(len(framed), len(plain)) and framed[-1 - common] == plain[-1 - common]:
            common += 1
        return len(re.findall(r"\w+|[^\w\s]", framed[: len(framed) - common]))


def percent(hits: list[bool]) -> float:
    return 100 * sum(hits) / len(hits)


def side(p: float) -> int:
    return (p > 0.5) - (p < 0.5)


def test_every_new_framing_is_scored_as_a_loop_over_the_records_says(files: tuple[Path, Path],
                                                                     computed: dict[str, float]) -> None:
    hand = ByHand(*files)
    expected: dict[str, float] = {}
    # negation: NOT only in the question, compared with the same bare options asked plainly
    pairs = [(hand.on_base[hand.bare[i["base"]]["id"]]["yes"], hand.on_base[i["id"]]["yes"])
             for i in hand.of("negation")]
    expected["negation_coherence"] = percent([side(a) == side(b) for a, b in pairs])
    # negation-in-options: compared with the plain item (its meanings are swapped with the question)
    pairs = [(hand.on_base[hand.plain[i["base"]]["id"]]["yes"], hand.on_base[i["id"]]["yes"])
             for i in hand.of("negation-in-options")]
    expected["negation_in_options_gap"] = 100 * sum(abs(a - b) for a, b in pairs) / len(pairs)
    for framing in ("labels", "two-option-choice", "options-reworded", "typos", "irrelevant-2000-after",
                    "irrelevant-8000-after"):
        expected[f"flip_rate:{framing}"] = percent([hand.flipped(i) for i in hand.of(framing)])
    expected["accuracy:options-bare"] = percent([hand.correct(i) for i in hand.of("options-bare")])
    expected["accuracy_change:homoglyphs"] = (percent([hand.correct(i) for i in hand.of("homoglyphs")])
                                              - percent([hand.correct(i) for i in hand.of("plain")]))
    # the read window: irrelevant text before the state's continuation that fills it is reported apart
    for framing in ("irrelevant-2000", "irrelevant-8000"):
        past = [i for i in hand.of(framing) if hand.pieces_before_rest(i) >= WINDOW]
        within = [i for i in hand.of(framing) if hand.pieces_before_rest(i) < WINDOW]
        expected[f"past_read_window:{framing}"] = 100 * len(past) / len(hand.of(framing))
        if past:
            expected[f"flip_rate_past_window:{framing}"] = percent([hand.flipped(i) for i in past])
        expected[f"flip_rate:{framing}"] = percent([hand.flipped(i) for i in within]) if within else float("nan")
    assert expected["past_read_window:irrelevant-8000"] == 100
    assert 0 < expected["past_read_window:irrelevant-2000"] < 100, "the window should split irrelevant-2000"
    for metric, value in expected.items():
        print(f"{metric:42} by hand {value:7.2f}   score_invariance {computed.get(metric, float('nan')):7.2f}")
        assert computed[metric] == pytest.approx(value, nan_ok=True), metric
    assert "past_read_window:irrelevant-2000-after" not in computed  # text after the facts pushes nothing out


def test_the_piece_count_is_a_lower_bound_on_sparrows_word_pieces() -> None:
    """``past the read window`` is only claimed where it is certain: the words and punctuation marks counted are never
    more than the word pieces the served sparrow models cut at 512 (their own WordPiece tokenizer)."""
    sparrow = pytest.importorskip("sparrow_decider")
    from decisionpivot.items import render_state
    from decisionpivot.score.invariance import pieces_at_least

    tokenizer = sparrow.Decider.load().static.tok
    for family in ("fact_answerable", "filter_match", "toolcall_valid", "triage_order"):
        for item in cached_draw(family).items[:20]:
            text = render_state(item.state)
            assert pieces_at_least(text) <= len(tokenizer.encode(text, max_len=10**9)), item.id
