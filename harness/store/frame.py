"""The pandas view of run records: one dtype per column, shared by the store and exports.

Types follow :data:`harness.core.record.COLUMNS`: ``BOOL_COLUMNS`` become pandas
``boolean``, other INTEGER columns nullable ``Int64``, REAL columns ``float64`` (null is
NaN) and TEXT columns, JSON ones included, pandas ``string`` (null is ``<NA>``).  A task's own
columns (``TaskType.extra_columns``) follow the shared ones, typed the same way.
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


def from_rows(rows: Iterable[Sequence[Any]], extra: dict[str, str] | None = None) -> pd.DataFrame:
    """A typed frame from row tuples in :data:`COLUMNS` order (SQLite values), then the ``extra`` columns
    (a task's own: name -> SQL type)."""
    rows = list(rows)
    dtypes = {**DTYPES, **{c: _dtype(c, t) for c, t in (extra or {}).items()}}
    columns = list(zip(*rows)) if rows else [()] * len(dtypes)
    data = {c: _array(list(v), dtypes[c]) for c, v in zip(dtypes, columns)}
    return pd.DataFrame(data, columns=list(dtypes))


def typed(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the record columns, in order, cast to :data:`DTYPES`, then any other columns (a task's
    own) as they are.  A table of schema 4 or older (no ``question``: ``task`` held it) is read as the store
    reads one: ``question`` what ``task`` held, ``task`` the name of the task that owns it.

    Raises ValueError naming the missing columns.
    """
    if "question" not in df.columns and "task" in df.columns:
        from harness.core.task import task_name_of_label

        df = df.assign(question=df["task"], task=[None if pd.isna(v) else task_name_of_label(str(v))
                                                  for v in df["task"]])
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"results table: missing columns {missing}")
    own = [c for c in df.columns if c not in COLUMNS]
    return pd.concat([df[list(COLUMNS)].astype(DTYPES), df[own]], axis=1).reset_index(drop=True)


__all__ = ["DTYPES", "from_rows", "typed"]
