"""The pandas view of run records: one dtype per column, shared by the store and exports.

Types follow :data:`harness.core.record.COLUMNS`: ``BOOL_COLUMNS`` become pandas
``boolean``, other INTEGER columns nullable ``Int64``, REAL columns ``float64`` (null is
NaN) and TEXT columns, JSON ones included, pandas ``string`` (null is ``<NA>``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from harness.core.record import BOOL_COLUMNS, COLUMNS


def _dtype(column: str, sql_type: str) -> str:
    if column in BOOL_COLUMNS:
        return "boolean"
    return {"INTEGER": "Int64", "REAL": "float64", "TEXT": "string"}[sql_type]


DTYPES: dict[str, str] = {c: _dtype(c, t) for c, t in COLUMNS.items()}
"""Column -> pandas dtype, in column order."""


def _array(values: Sequence[Any], dtype: str) -> Any:
    if dtype == "boolean":
        values = [None if v is None else bool(v) for v in values]
    elif dtype == "float64":
        values = [float("nan") if v is None else float(v) for v in values]
    return pd.array(values, dtype=dtype)


def from_rows(rows: Iterable[Sequence[Any]]) -> pd.DataFrame:
    """A typed frame from row tuples in :data:`COLUMNS` order (SQLite values)."""
    rows = list(rows)
    columns = list(zip(*rows)) if rows else [()] * len(COLUMNS)
    data = {c: _array(list(v), DTYPES[c]) for c, v in zip(COLUMNS, columns)}
    return pd.DataFrame(data, columns=list(COLUMNS))


def typed(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with exactly the record columns, in order, cast to :data:`DTYPES`.

    Raises ValueError naming the missing or unknown columns.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    extra = [c for c in df.columns if c not in COLUMNS]
    if missing or extra:
        raise ValueError(f"results table: missing columns {missing}, unknown {extra}")
    return df[list(COLUMNS)].astype(DTYPES).reset_index(drop=True)


__all__ = ["DTYPES", "from_rows", "typed"]
