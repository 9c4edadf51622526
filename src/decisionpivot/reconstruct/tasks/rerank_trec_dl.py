"""rerank_trec_dl (layer G): is the passage relevant to the query? (TREC Deep Learning 2019 + 2020 passage).

Official files (per year YYYY in 2019, 2020; dlYY = dl19, dl20):
``YYYYqrels-pass.txt`` (NIST qrels, ``qid 0 pid grade`` with grades 0-3),
``msmarco-testYYYY-queries.tsv`` (``qid<TAB>text``), ``run.msmarco-passage.bm25.dlYY.txt`` (a BM25
run in TREC run format, ``qid Q0 pid rank score tag``) and the MS MARCO passage collection
``collection.tsv`` (``pid<TAB>text``, read line by line; only the candidates' passages are kept).

An item is one (query, candidate passage) pair for a judged query (one with qrels); candidates are
the run's top ``DEPTH`` = 100 passages by rank. The grade is the qrels grade, 0 when unjudged (the
trec_eval convention). Following the TREC DL passage convention for binary measures, grade >= 2 is
``relevant`` and grades 0-1 are ``not_relevant``; the graded value is kept in ``extra["grade"]``
so nDCG@10 can use graded gains. ``group`` and ``extra["query"]`` are the query id, so sampling
(100 queries x 50 candidates, all relevant candidates first) and the bootstrap work per query.
Queries whose candidates hold no relevant passage are dropped (nDCG@10 is undefined there). Order:
2019 then 2020, queries in run order, candidates by rank.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

YEARS = (("2019", "dl19"), ("2020", "dl20"))
COLLECTION = "collection.tsv"
DEPTH = 100
RELEVANT_GRADE = 2


def _qrels(source: SourceFolder, name: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for number, line in enumerate(source.text(name).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4 or not parts[3].lstrip("-").isdigit():
            raise SourceError(f"{source.path(name)}:{number}: expected 'qid 0 pid grade'")
        qrels[parts[0]][parts[2]] = int(parts[3])
    return qrels


def _tsv(source: SourceFolder, name: str) -> dict[str, str]:
    rows = {}
    for number, line in enumerate(source.text(name).splitlines(), start=1):
        if not line.strip():
            continue
        if "\t" not in line:
            raise SourceError(f"{source.path(name)}:{number}: expected 'id<TAB>text'")
        key, text = line.split("\t", 1)
        rows[key] = text
    return rows


def _run(source: SourceFolder, name: str) -> dict[str, list[str]]:
    ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for number, line in enumerate(source.text(name).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6 or not parts[3].isdigit():
            raise SourceError(f"{source.path(name)}:{number}: expected TREC run 'qid Q0 pid rank score tag'")
        ranked[parts[0]].append((int(parts[3]), parts[2]))
    return {qid: [pid for _, pid in sorted(rows)[:DEPTH]] for qid, rows in ranked.items()}


def _passages(source: SourceFolder, wanted: set[str]) -> dict[str, str]:
    path = source.path(COLLECTION)
    if not path.is_file():
        raise SourceError(f"{path}: official file missing")
    found: dict[str, str] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            pid, sep, text = raw.rstrip(b"\r\n").partition(b"\t")
            if not sep:
                raise SourceError(f"{path}:{number}: expected 'pid<TAB>text'")
            key = pid.decode("ascii", errors="replace")
            if key in wanted:
                try:
                    found[key] = text.decode("utf-8")
                except UnicodeDecodeError:
                    raise SourceError(f"{path}:{number}: passage is not UTF-8") from None
    return found


@dataclass(frozen=True)
class QueryCandidates:
    """One judged query with its BM25 candidates and their grades (before the passages are read)."""

    year: str
    """TREC DL year, 2019 or 2020."""
    qid: str
    """Query id."""
    query: str
    """Query text from the topics file."""
    pids: tuple[str, ...]
    """Candidate passage ids, by BM25 rank (top ``DEPTH``)."""
    grades: tuple[int, ...]
    """qrels grade of each candidate (0 when unjudged)."""


def year_candidates(source: SourceFolder, year: str, short: str) -> list[QueryCandidates]:
    """The judged queries of one year whose top-``DEPTH`` candidates hold a relevant passage, in run order."""
    qrels = _qrels(source, f"{year}qrels-pass.txt")
    queries = _tsv(source, f"msmarco-test{year}-queries.tsv")
    run = _run(source, f"run.msmarco-passage.bm25.{short}.txt")
    plan = []
    for qid, pids in run.items():
        if qid not in qrels:
            continue
        if qid not in queries:
            raise SourceError(f"{source.path(f'msmarco-test{year}-queries.tsv')}: query {qid} missing")
        grades = tuple(qrels[qid].get(pid, 0) for pid in pids)
        if max(grades) >= RELEVANT_GRADE:
            plan.append(QueryCandidates(year, qid, queries[qid], tuple(pids), grades))
    return plan


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    plan = [q for year, short in YEARS for q in year_candidates(source, year, short)]
    passages = _passages(source, {pid for q in plan for pid in q.pids})
    items = []
    for q in plan:
        for pid, grade in zip(q.pids, q.grades, strict=True):
            if pid not in passages:
                raise SourceError(f"{source.path(COLLECTION)}: passage {pid} (query {q.qid}) missing")
            answer = "relevant" if grade >= RELEVANT_GRADE else "not_relevant"
            items.append(reference_item(card, {"query": q.query, "passage": passages[pid]}, answer, group=q.qid,
                                        domain=f"dl{q.year[2:]}", extra={"query": q.qid, "grade": grade,
                                                                         "source_id": pid}))
    return items
