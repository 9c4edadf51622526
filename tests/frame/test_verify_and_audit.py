"""The independent solvers reproduce every framed gold, and the shortcut audit holds on the suite."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from decisionpivot.audit.run import AuditLimits, audit_family, base_items, probed_items, text_checked_items
from decisionpivot.generate.registry import family
from decisionpivot.items import Item, Option
from decisionpivot.solve import solvers
from decisionpivot.verify import verify_folder
from decisionpivot.verify.check import agreement


def test_solvers_agree_on_every_framed_item(suite_folder: Path) -> None:
    results = verify_folder(suite_folder)
    assert len(results) == 13
    for result in results:
        assert result.agree == result.items, (result.family, result.disagreements[:3])


def one(suite: dict[str, list[Item]], family_name: str, framing: str) -> Item:
    return next(i for i in suite[family_name] if i.extra["framing"] == framing)


def test_a_negated_question_with_unflipped_gold_is_a_disagreement(suite: dict[str, list[Item]]) -> None:
    item = one(suite, "log_claim", "negation")
    wrong_gold = replace(item, answer={"yes": "no", "no": "yes"}[item.answer or ""])
    assert agreement("log_claim", [item]).agree == 1
    assert agreement("log_claim", [wrong_gold]).agree == 0
    unmarked = replace(item, extra={**item.extra, "key_map": {"yes": "yes", "no": "no"}})
    [bad] = agreement("log_claim", [unmarked]).disagreements
    assert bad.error is not None and "negated" in bad.error


def test_renamed_labels_are_answered_in_the_framed_keys(suite: dict[str, list[Item]]) -> None:
    for name in ("toolcall_valid", "policy_case", "triage_order", "ledger_reconcile"):
        item = one(suite, name, "labels")
        assert solvers()[name](item) == item.answer
        assert item.answer not in family(name).question  # the key really is renamed, e.g. "true" or "C"


def test_inserted_text_that_changes_the_decisive_fact_is_caught(suite: dict[str, list[Item]]) -> None:
    """The solver reads the padded state itself: padding that also changed the claim (a correct count made
    ten times larger) would not pass."""
    item = next(i for i in suite["log_claim"] if i.extra["framing"] == "irrelevant-2000" and i.answer == "yes")
    assert isinstance(item.state, str)
    claim = next(line for line in item.state.splitlines() if line.startswith("Claim: "))
    changed = re.sub(r"exactly (\d+)", r"exactly \g<1>0", claim)
    assert changed != claim
    tampered = replace(item, state=item.state.replace(claim, changed))
    assert agreement("log_claim", [tampered]).agree == 0


def test_audit_helpers_leave_core_items_alone(suite: dict[str, list[Item]]) -> None:
    framed = suite["record_rule"]
    core_like = [replace(i, extra={}) for i in framed if i.extra["framing"] == "plain"]
    assert probed_items(core_like) == core_like and base_items(core_like) == core_like
    assert [i.extra["framing"] for i in base_items(framed)] == ["plain"] * len(core_like)
    assert not [i for i in probed_items(framed) if i.extra["framing"] == "steering"]
    steering = [i for i in framed if i.extra["framing"] == "steering"]
    assert len(steering) == len(core_like) and len(probed_items(framed)) == len(framed) - len(steering)
    deliberate = [i for i in framed if i.extra["framing"] in ("typos", "homoglyphs")]
    assert deliberate and len(text_checked_items(framed)) == len(framed) - len(deliberate)


@pytest.mark.parametrize("name", ["toolcall_valid", "record_rule"])
def test_audit_holds_on_the_suite(name: str, suite: dict[str, list[Item]]) -> None:
    """toolcall_valid: its steering notes give the gold away to a bag of words (hence left out of the probes);
    record_rule: ten framings of 56 items must not make the gold positions look unbalanced."""
    report = audit_family(name, suite[name], AuditLimits(), family(name).heuristics)
    assert report["failures"] == []
    assert report["hygiene"]["repeated_states"] == 0


def test_a_state_repeated_across_core_items_is_still_found(suite: dict[str, list[Item]]) -> None:
    items = [i for i in suite["log_claim"] if i.extra["framing"] == "plain"][:4]
    copied = replace(items[1], state=items[0].state)
    report = audit_family("log_claim", [items[0], copied, *items[2:]], AuditLimits(), {})
    assert report["hygiene"]["repeated_states"] == 1


def test_framed_item_without_a_key_for_every_option_is_refused() -> None:
    item = Item(id="log_claim:00000~plain", family="log_claim", layer="C", version="1.0", group="log_claim:g0000",
                level=1, variation=None, domain=None, state="x", question="Is it?",
                options=(Option("yes", "a"), Option("no", "b")), answer="yes", extra={"key_map": {"yes": "yes"}})
    [bad] = agreement("log_claim", [item]).disagreements
    assert bad.error is not None and "key_map" in bad.error
