"""esci_match (layer G): how does the product match the shopping query? (Shopping Queries / ESCI, task 2).

Official files (amazon-science/esci-data ``shopping_queries_dataset/``):
``shopping_queries_dataset_examples.parquet`` (columns ``example_id``, ``query``, ``query_id``,
``product_id``, ``product_locale``, ``esci_label``, ``small_version``, ``large_version``, ``split``)
and ``shopping_queries_dataset_products.parquet`` (``product_id``, ``product_title``,
``product_description``, ``product_bullet_point``, ``product_brand``, ``product_color``,
``product_locale``). Reading parquet needs pyarrow, which is not a dependency: where a ``.parquet``
file is absent the converter reads a CSV export with the same columns (same stem, ``.csv``).

Task 2 (multi-class product classification) uses the large version: rows with ``large_version``
1 and ``split`` ``test``, all locales. One item per row in file order; the state is the query and
the product's non-empty fields, joined on (``product_locale``, ``product_id``). Labels map E ->
exact, S -> substitute, C -> complement, I -> irrelevant. ``group`` is the query id.
"""

from __future__ import annotations

import json
from typing import Any

from decisionpivot.items import Item
from decisionpivot.reconstruct.card import TaskCard
from decisionpivot.reconstruct.run import reference_item
from decisionpivot.reconstruct.sources import SourceError, SourceFolder

EXAMPLES = "shopping_queries_dataset_examples"
PRODUCTS = "shopping_queries_dataset_products"
LABELS = {"E": "exact", "S": "substitute", "C": "complement", "I": "irrelevant"}
PRODUCT_FIELDS = ("product_title", "product_brand", "product_color", "product_bullet_point", "product_description")


def _rows(source: SourceFolder, stem: str) -> list[dict[str, Any]]:
    if source.path(f"{stem}.parquet").is_file():
        try:
            import pandas as pd

            frame = pd.read_parquet(source.path(f"{stem}.parquet"))
        except ImportError:
            raise SourceError(f"{source.path(stem + '.parquet')}: reading parquet needs pyarrow "
                              "(pip install pyarrow) or a .csv export") from None
        return json.loads(frame.to_json(orient="records"))
    return [dict(row) for row in source.csv(f"{stem}.csv")]


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def convert(source: SourceFolder, card: TaskCard, **_: Any) -> list[Item]:
    products = {(_text(p.get("product_locale")), _text(p.get("product_id"))): p for p in _rows(source, PRODUCTS)}
    items = []
    for number, row in enumerate(_rows(source, EXAMPLES), start=1):
        if _text(row.get("large_version")) not in ("1", "1.0", "True", "true") or _text(row.get("split")) != "test":
            continue
        label = LABELS.get(_text(row.get("esci_label")))
        if label is None:
            raise SourceError(f"{EXAMPLES}: row {number} has esci_label {row.get('esci_label')!r}, not E/S/C/I")
        key = (_text(row.get("product_locale")), _text(row.get("product_id")))
        product = products.get(key)
        if product is None:
            raise SourceError(f"{PRODUCTS}: product {key[1]} ({key[0]}) of example row {number} missing")
        fields = {name: _text(product.get(name)) for name in PRODUCT_FIELDS if _text(product.get(name))}
        state = {"query": _text(row.get("query")), "product": fields}
        items.append(reference_item(card, state, label, group=_text(row.get("query_id")), domain=key[0],
                                    extra={"source_id": _text(row.get("example_id")), "product_id": key[1]}))
    return items
