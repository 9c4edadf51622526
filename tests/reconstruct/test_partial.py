"""Converters run on real records in the official formats (reference-sources/partial/: subsets, third-party
copies, unofficial splits). The files are copied under the names the cards expect; their hashes are never
the official ones, so nothing here is checked against a card's hashes."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from decisionpivot.reconstruct.card import all_cards
from decisionpivot.reconstruct.run import build_items
from decisionpivot.reconstruct.sources import SourceFolder
from decisionpivot.reconstruct.tasks.agentrewardbench import judged_trajectories
from decisionpivot.reconstruct.tasks.rerank_trec_dl import year_candidates
from tests.reconstruct.conftest import OFFICIAL

PARTIAL_MANIFEST = OFFICIAL / "partial" / "manifest.json"


@pytest.fixture
def partial(official: Path) -> Path:
    return official / "partial"


def _place(tmp_path: Path, pairs: dict[str, Path]) -> Path:
    """Copy real files to the paths a converter reads (relative to the returned folder)."""
    for target, source in pairs.items():
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, tmp_path / target)
    return tmp_path


def test_partial_files_are_the_ones_described_and_no_card_records_their_hashes(partial: Path) -> None:
    manifest = json.loads(PARTIAL_MANIFEST.read_text(encoding="utf-8"))
    recorded = {f.sha256 for card in all_cards().values() for f in card.files if f.sha256}
    for task, entry in manifest.items():
        for f in entry["files"]:
            assert f["sha256"] not in recorded, f"{task}: {f['path']} is partial; its hash is not official"
        assert not all_cards()[task].verified, task


def test_when2call_converts_the_llm_judge_subset(partial: Path, tmp_path: Path) -> None:
    folder = _place(tmp_path, {"data/test/when2call_test_mcq.jsonl":
                               partial / "when2call" / "when2call_test_llm_judge.jsonl"})
    items = build_items(all_cards()["when2call"], folder)
    assert len(items) == 300
    assert Counter(i.answer for i in items) == {"tool_call": 100, "request_for_info": 100, "cannot_answer": 100}
    assert Counter(i.domain for i in items) == {"BFCL v2 Live Multiple": 249, "BFCL v2 Live Simple": 51}
    tools = [t for i in items for t in i.state["tools"]]
    assert tools and all(isinstance(t, dict) and "name" in t for t in tools), "tools decoded to objects"
    assert all(set(i.state) == {"question", "tools", "candidate_responses"} for i in items)


def test_when2call_decodes_python_literal_fields_and_names_the_line(tmp_path: Path) -> None:
    from tests.reconstruct.conftest import FIXTURES

    records = [json.loads(line) for line in
               (FIXTURES / "when2call" / "data" / "test" / "when2call_test_mcq.jsonl").read_text().splitlines()]
    records[0]["tools"] = ["{'name': 'get_weather', 'strict': True, 'parameters': None}"]
    records[0]["answers"] = repr(records[0]["answers"])
    records[1]["tools"] = ["{'name': broken"]
    path = tmp_path / "data" / "test" / "when2call_test_mcq.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(json.dumps(r) for r in records[:1]) + "\n", encoding="utf-8")
    items = build_items(all_cards()["when2call"], tmp_path)
    assert items[0].state["tools"] == [{"name": "get_weather", "strict": True, "parameters": None}]
    assert items[0].state["candidate_responses"]["tool_call"].startswith('{"name": "get_weather"')
    path.write_text("\n".join(json.dumps(r) for r in records[:2]) + "\n", encoding="utf-8")
    from decisionpivot.reconstruct.sources import SourceError

    with pytest.raises(SourceError, match=r"when2call_test_mcq\.jsonl:2: tool 0 is neither JSON .* nor a Python"):
        build_items(all_cards()["when2call"], tmp_path)


def test_agentrewardbench_labels_from_the_real_annotations_and_splits(partial: Path, tmp_path: Path) -> None:
    real = partial / "agentrewardbench"
    folder = _place(tmp_path, {"data/annotations.csv": real / "annotations.csv",
                               "data/splits.csv": real / "splits.csv"})
    judged = judged_trajectories(SourceFolder(folder))
    assert len(judged) == 1106 == len({(j.benchmark, j.model_name, j.task_id) for j in judged})
    assert Counter(j.answer for j in judged) == {"failure": 811, "success": 295}
    assert Counter(j.benchmark for j in judged) == {"workarena": 412, "webarena": 310, "visualwebarena": 276,
                                                    "assistantbench": 108}
    # The trajectories are not in the partial copy: the converter says which one it needs.
    from decisionpivot.reconstruct.sources import SourceError

    (folder / "cleaned").mkdir()
    with pytest.raises(SourceError, match=r"cleaned/.*: expected one trajectory .*\.json, found none"):
        build_items(all_cards()["agentrewardbench"], folder)


def test_strategyqa_converts_the_authors_train_dev_split(partial: Path, tmp_path: Path) -> None:
    real = partial / "strategyqa"
    card = all_cards()["strategyqa"]
    sizes = {}
    for name in ("train.json", "dev.json"):
        folder = _place(tmp_path / name, {"strategyqa_train.json": real / name})
        sizes[name] = len(build_items(card, folder))
    assert sizes == {"train.json": 1000, "dev.json": 229}  # train is sampled down to the card's target
    merged = json.loads((real / "train.json").read_text(encoding="utf-8")) + json.loads(
        (real / "dev.json").read_text(encoding="utf-8"))
    (tmp_path / "all").mkdir()
    (tmp_path / "all" / "strategyqa_train.json").write_text(json.dumps(merged), encoding="utf-8")
    items = build_items(card, tmp_path / "all")
    assert len(items) == 1000 and len({i.extra["source_id"] for i in items}) == 1000
    assert {i.answer for i in items} == {"yes", "no"}
    assert all(set(i.state) == {"question", "term", "term_description"} for i in items)


def test_r_judge_converts_the_third_party_copy_to_the_papers_569(partial: Path, tmp_path: Path) -> None:
    real = partial / "r_judge"
    folder = _place(tmp_path, {f"data/{p.relative_to(real).as_posix()}": p for p in sorted(real.glob("*/*.json"))})
    card = all_cards()["r_judge"]
    assert sorted(p.relative_to(folder).as_posix() for p in folder.glob("data/*/*.json")) == sorted(
        f.path for f in card.files), "the card lists the release's file names"
    items = build_items(card, folder)
    assert len(items) == 569
    assert Counter(i.answer for i in items) == {"unsafe": 300, "safe": 269}
    assert len({json.dumps(i.state, sort_keys=True) for i in items}) == 569
    assert all("source_file" not in i.extra for i in items)


def test_rerank_trec_dl_plans_candidates_from_the_real_qrels_topics_and_run(partial: Path, tmp_path: Path) -> None:
    real = partial / "rerank_trec_dl"
    folder = _place(tmp_path, {"2019qrels-pass.txt": real / "qrels.dl19-passage.txt",
                               "2020qrels-pass.txt": real / "qrels.dl20-passage.txt",
                               "msmarco-test2019-queries.tsv": real / "topics.dl19-passage.txt",
                               "msmarco-test2020-queries.tsv": real / "topics.dl20.txt",
                               "run.msmarco-passage.bm25.dl19.txt":
                                   real / "runs" / "run.msmarco-v1-passage.bm25-default.dl19.txt"})
    plan = year_candidates(SourceFolder(folder), "2019", "dl19")
    assert len(plan) == 42 and all(len(q.pids) == 100 for q in plan)
    assert sum(g >= 2 for q in plan for g in q.grades) == 846
    assert all(not q.query.endswith("\r") and q.query for q in plan)
    # Without the passage texts (MS MARCO collection) and the DL20 run the converter cannot build items.
    from decisionpivot.reconstruct.sources import SourceError

    with pytest.raises(SourceError, match=r"run\.msmarco-passage\.bm25\.dl20\.txt: official file missing"):
        build_items(all_cards()["rerank_trec_dl"], folder)
