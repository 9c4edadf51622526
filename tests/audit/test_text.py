"""The text-hygiene check: each kind of defect of the 1.1 release is found, names and identifiers are not."""

from __future__ import annotations

import pytest

from decisionpivot.audit import text
from decisionpivot.audit.run import AuditLimits, audit_family
from decisionpivot.generate import editions
from decisionpivot.generate.common.names import NameForge, lookalike
from decisionpivot.generate.registry import family
from decisionpivot.items import Item, Option


def _item(state: str | dict, question: str = "Is the claim true?", meaning: str = "The claim holds.") -> Item:
    return Item(id="t:00000", family="t", layer="A", version="1", group="t:g0000", level=1, variation=None,
                domain="retail", state=state, question=question,
                options=(Option("yes", meaning), Option("no", "It does not.")), answer="yes")


@pytest.mark.parametrize(("sentence", "span"), [
    ("Deliveries go to the front desk desk of the hotel.", "desk desk"),
    ("Goods must stay at at most 13 degrees Celsius.", "at at"),
    ("Tomorrow call ahead use use.", "use use"),
    ("Bay fragile on fragile on.", "fragile on fragile on"),
])
def test_doubled_words(sentence: str, span: str) -> None:
    assert text.doubled(sentence) == [span]


def test_words_written_twice_on_purpose_across_lines_or_cells_are_not_doubled() -> None:
    assert text.doubled("Room: desk\ndesk lamp") == []
    assert text.doubled("| desk | desk |") == []


@pytest.mark.parametrize(("sentence", "found"), [
    ("The group has 1 people in it.", ["1 people"]),
    ("The date must be at least 1 days after today.", ["1 days"]),
    ("The group has 1 person and 2 people wait.", []),
    ("Version 1 status is open; 1 bus leaves; 1.5 days; 11 days.", []),
])
def test_number_agreement(sentence: str, found: list[str]) -> None:
    assert text.agreement(sentence) == found


@pytest.mark.parametrize(("sentence", "found"), [
    ("Kujam Collective, a adult education firm.", ["a adult"]),
    ("A infusion stand and an pallet jack.", ["A infusion", "an pallet"]),
    ("An hour, a unit, an SLA, a home-goods shop and an adult school.", []),
    ("Ledger A is the cash book; version A and version B. A is signed first.", []),
])
def test_articles(sentence: str, found: list[str]) -> None:
    assert text.article(sentence) == found


def test_spelling_finds_broken_words_in_prose_and_in_folder_paths() -> None:
    assert text.misspelled("Folder /courses/syllabuss/ holds the reading lists.") == ["syllabuss"]
    assert text.misspelled("Every recieved cheque is logged.") == ["recieved"]
    assert text.misspelled("The colour, the organisation and the cancelled aluminium cheque.") == []


def test_identifiers_are_exempt_by_their_form() -> None:
    line = ('INV-1014.txt, line_id, >=2.0, SEK, MWh, T-1229, "enum": [..], billing: started, a@b.example, '
            "/metering/q1, 3.10.0rc1")
    assert text.misspelled(line) == []


def test_names_and_their_lookalikes_are_exempt_by_the_allow_list() -> None:
    import random

    rng = random.Random(5)
    for _ in range(300):
        forge = NameForge(rng, "hospitality")
        for name in (forge.organisation(), forge.person(), forge.place(), lookalike(forge.organisation(), rng)):
            assert text.misspelled(name) == [], name
        assert text.misspelled(forge.word()) == []


def test_syllable_names_are_findings_in_current_items_and_exempt_in_earlier_editions() -> None:
    """Core 1.3 names come from an allow-list (issue #38): a syllable name in a current item is a finding; core 1.1
    and 1.2 items, drawn by earlier generator versions, keep the name grammar they were written by."""
    assert text.misspelled("Kvourylk Dvygatluv signed for Zhilkstuk Labs.") == ["Kvourylk", "Dvygatluv",
                                                                                "Zhilkstuk"]
    assert text.misspelled("Kvourylk Dvygatluv signed for Zhilkstuk Labs.", syllable_names=True) == []
    run = editions.module("1.2", "run")
    earlier = run.draw_family("log_claim", 20261008).items[:4]
    assert all(text.syllable_names(item) for item in earlier) and text.text_findings(earlier) == []
    current = [Item(**{**item.__dict__, "version": family("log_claim").version}) for item in earlier]
    assert not any(text.syllable_names(item) for item in current)
    assert {f.kind for f in text.text_findings(current)} == {"spelling"}
    framed = [Item(**{**item.__dict__, "version": "1.0", "extra": {"framing": "plain"}}) for item in earlier]
    assert all(text.syllable_names(item) for item in framed) and text.text_findings(framed) == []
    today = editions.module("1.3", "run").draw_family("log_claim", 20261008).items[:4]
    framed_today = [Item(**{**item.__dict__, "version": "1.1", "extra": {"framing": "plain"}}) for item in today]
    assert text.text_findings(framed_today) == []  # a suite framed from core 1.3 keeps its names exempt


def test_hand_written_names_off_the_list_are_not_exempt() -> None:
    assert text.misspelled("Target runtime: Quillet 3.8.") == ["Quillet"]
    assert text.misspelled("Target runtime: Quillet 3.8.", syllable_names=True) == ["Quillet"]
    assert not text.invented_name("syllabuss")  # lower case: only what the grammar spells exactly


@pytest.mark.parametrize(("sentence", "found"), [
    ("After quiet a after the label.", ["a after"]),
    ("Keep after corner a", ["Keep after corner a"]),
    ("Put it on the shelf and", ["Put it on the shelf and"]),
    ("Ledger A on the left, ledger B on the right. The folder it belongs to.", []),
])
def test_misplaced_function_words(sentence: str, found: list[str]) -> None:
    assert text.grammar(sentence) == found


def test_structured_states_are_checked_by_value_and_options_by_meaning() -> None:
    item = _item({"request": {"looking_for": "front desk desk lamp", "syllabuss": "open"}},
                 meaning="It fits 1 people.")
    found = {(f.kind, f.text, f.where) for f in text.text_findings([item])}
    assert found == {("doubled", "desk desk", "state"), ("agreement", "1 people", "option yes")}


def test_the_strict_audit_fails_on_text_findings_and_names_them() -> None:
    items = []
    for g in range(6):
        base = _item(f"Room {g}: the front desk is open." if g else "The front desk desk is open.")
        items += [Item(**{**base.__dict__, "id": f"t:{2 * g:05d}", "group": f"t:g{g:04d}"}),
                  Item(**{**base.__dict__, "id": f"t:{2 * g + 1:05d}", "group": f"t:g{g:04d}",
                          "state": f"Room {g}: the front desk is closed.", "answer": "no"})]
    report = audit_family("t", items, AuditLimits(), {})
    assert report["text"]["by_kind"]["doubled"] == 1
    assert report["text"]["examples"]["doubled"] == ['t:00000 (state): "desk desk"']
    assert any("1 text finding(s) in 1 item(s): doubled 1" in f for f in report["failures"])


def test_the_check_finds_the_defects_of_the_1_1_release() -> None:
    """The 1.1 generators (archived as released) wrote "1 people" and "syllabuss"; the check sees them."""
    run = editions.module("1.1", "run")
    found = {(f.kind, f.text) for f in text.text_findings(run.draw_family("access_request", 20261008).items)}
    assert ("spelling", "syllabuss") in found
    found = {(f.kind, f.text) for f in text.text_findings(run.draw_family("clause_change", 20261008).items)}
    assert ("agreement", "1 people") in found and ("doubled", "at at") in found
