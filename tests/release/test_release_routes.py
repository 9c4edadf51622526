"""`dp release` never ships a reconstruct-only reference task, whatever the reference folder holds.

Reference folders may hold anything: items a user rebuilt with `dp reconstruct`, the pipeline's
datasets/reconstructed/<task>/ stage folders or their gathered copy (datasets/reference-track), stray
copies. Only tasks that both the route rules and the card mark redistribute may reach the release.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decisionpivot.cli import main
from decisionpivot.items import Item, write_items
from decisionpivot.licenses.routes import REDISTRIBUTE, decide_route
from decisionpivot.reconstruct.card import LICENSE_CLASSES, REDISTRIBUTION, ROUTES, License, TaskCard, all_cards
from decisionpivot.release.hub import build_release
from tests.release.conftest import sample_cards, write_core


def secret(task: str) -> str:
    return f"RESTRICTED-TEXT-OF-{task}"


def write_task(folder: Path, card: TaskCard, count: int = 3) -> Path:
    items = [Item(id=f"{card.id}:{i:05d}", family=card.id, layer=card.layer, version=card.converter_version,
                  group=None, level=None, variation=None, domain=None, state=f"{secret(card.id)} {i}",
                  question=card.question, options=card.options, answer=card.options[i % 2].key)
             for i in range(count)]
    path = folder / f"{card.id}.jsonl"
    write_items(path, items)
    return path


def released_text(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(out.rglob("*")) if p.is_file())


def test_release_with_every_reconstruct_only_task_in_every_layout_ships_none(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cards = all_cards()
    restricted = [t for t, c in cards.items() if decide_route(c.license).route != REDISTRIBUTE]
    assert restricted, "no reconstruct-only task to check"
    reference = tmp_path / "reference"
    for task in restricted:
        write_task(reference, cards[task])                              # as `dp reconstruct` writes them
        stage = reference / task                                        # as a reconstruct@<task> stage writes them
        write_task(stage, cards[task])
        (stage / "status.json").write_text(json.dumps({"task": task, "status": "rebuilt"}), encoding="utf-8")
        (reference / f"{task}.jsonl.bak").write_bytes((reference / f"{task}.jsonl").read_bytes())
    core = write_core(tmp_path / "core", {"alpha_check": ("A", 6)})
    out = tmp_path / "release"
    main(["release", "--dry-run", "--core", str(core), "--reference", str(reference), "--invariance", "",
          "--out", str(out)])
    printed = capsys.readouterr().out
    assert "reference tasks: 0" in printed
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["reference"] == {}
    text = released_text(out)
    for task in restricted:
        assert secret(task) not in text, task
        assert not (out / "reference" / f"{task}.jsonl").exists()
    assert not any("reference" in p.relative_to(out).parts[0] for p in out.rglob("*.jsonl"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_only_tasks_both_rules_and_card_mark_redistribute_are_shipped(tmp_path_factory: pytest.TempPathFactory,
                                                                      data: st.DataObject) -> None:
    base = sample_cards()["open_task"]
    cards = {}
    for n in range(data.draw(st.integers(1, 6), label="tasks")):
        terms = License(None, "terms", data.draw(st.sampled_from(LICENSE_CLASSES)),
                        data.draw(st.sampled_from(REDISTRIBUTION)), "cite")
        cards[f"task_{n}"] = dataclasses.replace(base, id=f"task_{n}", license=terms,
                                                 route=data.draw(st.sampled_from(ROUTES)))
    tmp = tmp_path_factory.mktemp("release")
    reference = tmp / "reference"
    present = data.draw(st.sets(st.sampled_from(sorted(cards))), label="present")
    for task in sorted(present):
        write_task(reference, cards[task])
    reference.mkdir(exist_ok=True)
    core = write_core(tmp / "core", {"alpha_check": ("A", 4)})
    built = build_release(core, reference, tmp / "release", cards=cards, invariance_dir=None)
    allowed = {t for t, c in cards.items() if decide_route(c.license).route == REDISTRIBUTE and c.route == REDISTRIBUTE}
    assert set(built.manifest["reference"]) == allowed & present
    text = released_text(tmp / "release")
    for task in set(cards) - allowed:
        assert secret(task) not in text
