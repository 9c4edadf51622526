"""``ask_each_request_once``: a deterministic server is sent each distinct request body of a run once; an item whose
body is byte for byte an earlier item's gets that reply, says whose (``same_request_as``) and carries no timing of
its own. A reply that is no answer (transient) is nobody else's: the next item with that body is asked itself.

Against :mod:`tests.evaluate.fault_server` (a System One server keyed by the request's state): a folder of real
items in which every second item repeats an earlier item's state, question and options under its own id (the
scale framings that send the plain member's bytes, as System One sends a scale's level names).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from decisionpivot import RELEASE_SEED
from decisionpivot.evaluate.kinds import REQUEST_DIGEST, SAME_REQUEST_AS
from decisionpivot.evaluate.run import evaluate_system
from decisionpivot.evaluate.systems import get_system
from decisionpivot.generate.run import rebuild_manifest
from decisionpivot.items import read_items, write_items
from tests.evaluate.conftest import FAMILY, TIMING
from tests.evaluate.fault_server import FaultServer
from tests.evaluate.test_transport import answers, config

ASKED = 6
"""Distinct request bodies in the folder; as many items again repeat them."""


@pytest.fixture
def repeated_items(tmp_path: Path, items_dir: Path) -> Path:
    """``ASKED`` real items, then each again under a new id (``<id>~again``), same state, question and options."""
    folder = tmp_path / "items"
    folder.mkdir()
    first = read_items(items_dir / f"{FAMILY}.jsonl")[:ASKED]
    again = [dataclasses.replace(item, id=f"{item.id}~again") for item in first]
    write_items(folder / f"{FAMILY}.jsonl", [*first, *again])
    rebuild_manifest(folder, RELEASE_SEED, [FAMILY])
    return folder


def _run(tmp_path: Path, folder: Path, server: FaultServer, runs: str, **settings: Any) -> dict[str, dict[str, Any]]:
    system = get_system("s1", config(tmp_path, server.base_url, **settings))
    [run] = evaluate_system(system, folder, tmp_path / runs, progress=False, allow_modified_items=True)
    return answers(run.path)


def test_each_distinct_request_is_sent_once_and_the_repeats_say_whose_reply_they_got(
        tmp_path: Path, repeated_items: Path) -> None:
    with FaultServer() as server:
        once = _run(tmp_path, repeated_items, server, "runs-once", ask_each_request_once=True)
        assert sum(server.attempts.values()) == ASKED
    with FaultServer() as server:
        every = _run(tmp_path, repeated_items, server, "runs-every")
        assert sum(server.attempts.values()) == 2 * ASKED
    assert once.keys() == every.keys() and len(once) == 2 * ASKED
    for item_id, record in once.items():
        assert record["p"] == every[item_id]["p"]
        assert record[REQUEST_DIGEST] == every[item_id][REQUEST_DIGEST]
        assert SAME_REQUEST_AS not in every[item_id]
    repeats = {item_id: record for item_id, record in once.items() if SAME_REQUEST_AS in record}
    assert len(repeats) == ASKED  # one of each pair was asked (whichever came first), the other took its reply
    for item_id, record in repeats.items():
        source = once[record[SAME_REQUEST_AS]]
        assert SAME_REQUEST_AS not in source and source["id"] != item_id
        assert record[REQUEST_DIGEST] == source[REQUEST_DIGEST]
        assert not any(field in record for field in TIMING)  # it was not asked: no time of its own
        assert any(field in source for field in TIMING)


def test_a_transient_reply_is_nobody_elses_the_repeat_is_asked_itself(tmp_path: Path, repeated_items: Path) -> None:
    """Every first attempt of a body fails with a 500 and retries are spent after one attempt: the first item of each
    body is transient, and its twin, asked itself, gets the answer."""
    with FaultServer(lambda digest, attempt: "status:500" if attempt == 1 else "ok") as server:
        got = _run(tmp_path, repeated_items, server, "runs", ask_each_request_once=True, max_attempts=1,
                   stop_after_failures=10_000)
        assert sum(server.attempts.values()) == 2 * ASKED
    transient = [record for record in got.values() if record.get("transient")]
    answered = [record for record in got.values() if "p" in record]
    assert len(transient) == len(answered) == ASKED
    assert not any(SAME_REQUEST_AS in record for record in got.values())


def test_the_setting_is_no_part_of_the_fingerprint(tmp_path: Path, repeated_items: Path) -> None:
    """The answers do not change, so a run resumed with the setting switched is the same run."""
    metas = []
    for runs, setting in (("runs-a", True), ("runs-b", False)):
        with FaultServer() as server:
            _run(tmp_path, repeated_items, server, runs, ask_each_request_once=setting)
        metas.append(json.loads((tmp_path / runs / "s1" / f"{FAMILY}.meta.json").read_text()))
    assert metas[0]["fingerprint"] == metas[1]["fingerprint"]


def test_the_sparrow_models_are_asked_once_per_request() -> None:
    """Their servers pin one BLAS thread and one kernel: the same bytes, the same reply."""
    for name in ("sparrow-nano-general-v1.1", "sparrow-nano-robot-v1.2"):
        assert get_system(name).settings["ask_each_request_once"] is True
