"""rerank_bright (layer G): is the document relevant to the query? (BRIGHT, reasoning-intensive retrieval).

Official files: the Hugging Face dataset ``xlangai/BRIGHT``, configs ``examples`` and ``documents``,
one parquet file per domain: ``examples/<domain>-00000-of-00001.parquet`` (fields ``query``,
``reasoning``, ``id``, ``excluded_ids``, ``gold_ids_long``, ``gold_ids``, ``gold_answer``) and
``documents/<domain>-00000-of-00001.parquet`` (fields ``id``, ``content``). Reading parquet needs
pyarrow, which is not a dependency: where a ``.parquet`` file is absent the converter reads a JSON
Lines export of the same rows (``<same stem>.jsonl``, one record per row with the same fields).

Candidate pool per query (BRIGHT ships no candidate lists): the gold documents (``gold_ids``,
relevant) plus the highest-scoring other documents of the same domain under BM25 (k1 = 0.9,
b = 0.4, lower-cased word tokens, computed here over that domain's documents), skipping
``excluded_ids``, until the pool has ``CANDIDATES`` = 50 documents; ties keep document order.
Domains are read in the order of ``DOMAINS`` (missing domains are skipped); queries in file order;
candidates gold first, then by BM25 rank. ``group`` and ``extra["query"]`` are ``<domain>/<id>``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

DOMAINS = ("biology", "earth_science", "economics", "psychology", "robotics", "stackoverflow",
           "sustainable_living", "leetcode", "pony", "aops", "theoremqa_theorems", "theoremqa_questions")
CANDIDATES = 50
K1, B = 0.9, 0.4


def _stem(config: str, domain: str) -> str:
    return f"{config}/{domain}-00000-of-00001"


def _rows(source: SourceFolder, stem: str) -> list[dict[str, Any]] | None:
    if source.path(f"{stem}.parquet").is_file():
        try:
            import pandas as pd

            frame = pd.read_parquet(source.path(f"{stem}.parquet"))
        except ImportError:
            raise SourceError(f"{source.path(stem + '.parquet')}: reading parquet needs pyarrow "
                              "(pip install pyarrow) or a .jsonl export") from None
        return json.loads(frame.to_json(orient="records"))
    if source.path(f"{stem}.jsonl").is_file():
        return source.jsonl(f"{stem}.jsonl")
    return None


def _bm25_ranking(contents: list[str], query: str) -> np.ndarray:
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(token_pattern=r"(?u)\b\w+\b", lowercase=True, dtype=np.float64)
    tf = vectorizer.fit_transform(contents).tocsr()
    lengths = np.asarray(tf.sum(axis=1)).ravel()
    df = np.bincount(tf.indices, minlength=tf.shape[1]).astype(np.float64)
    n = float(tf.shape[0])
    idf = np.log(1.0 + (n - df + 0.5) / (df + 0.5))
    norm = K1 * (1.0 - B + B * lengths / max(lengths.mean(), 1e-9))
    rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
    weights = tf.copy()
    weights.data = tf.data * (K1 + 1.0) / (tf.data + norm[rows]) * idf[tf.indices]
    q = vectorizer.transform([query])
    q.data[:] = 1.0
    scores = np.asarray((weights @ q.T).todense()).ravel()
    return np.lexsort((np.arange(len(scores)), -np.round(scores, 9)))


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    items = []
    found = False
    for domain in DOMAINS:
        examples = _rows(source, _stem("examples", domain))
        documents = _rows(source, _stem("documents", domain))
        if examples is None and documents is None:
            continue
        if examples is None or documents is None:
            raise SourceError(f"{source.root}: BRIGHT domain {domain} needs both examples and documents")
        found = True
        ids = [str(d["id"]) for d in documents]
        content = {str(d["id"]): str(d["content"]) for d in documents}
        for number, example in enumerate(examples, start=1):
            gold = [str(g) for g in example.get("gold_ids") or []]
            missing = [g for g in gold if g not in content]
            if not gold or missing:
                raise SourceError(f"{source.path(_stem('examples', domain))}: row {number} (id "
                                  f"{example.get('id')}) has no gold_ids or unknown ones {missing}")
            skip = set(gold) | {str(e) for e in example.get("excluded_ids") or []}
            pool = list(gold)
            for index in _bm25_ranking([content[i] for i in ids], str(example["query"])):
                if len(pool) >= CANDIDATES:
                    break
                if ids[index] not in skip:
                    pool.append(ids[index])
            qid = f"{domain}/{example['id']}"
            for doc in pool:
                answer = "relevant" if doc in gold else "not_relevant"
                items.append(reference_item(card, {"query": example["query"], "document": content[doc]}, answer,
                                            group=qid, domain=domain,
                                            extra={"query": qid, "grade": int(doc in gold), "source_id": doc}))
    if not found:
        raise SourceError(f"{source.root}: no BRIGHT examples/documents files found")
    return items
