"""Exports of a results store to CSV or Parquet, and reading those files back typed.

CSV loses one distinction: an empty string and a null both become an empty field and
read back as null.  Parquet keeps every value and dtype.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import InputError, UsageError
from harness.store.sqlite import ResultsStore

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

FORMATS = ("csv", "parquet")


def _format(fmt: str) -> str:
    name = fmt.strip().lower().lstrip(".")
    if name not in FORMATS:
        raise UsageError(f"unknown export format {fmt!r}: choose one of {', '.join(FORMATS)}")
    return name


def _need_pyarrow() -> None:
    if importlib.util.find_spec("pyarrow") is None:
        raise InputError("parquet needs the pyarrow package: pip install pyarrow")


def export(directory: str | Path, fmt: str, out: str | Path | None = None) -> Path:
    """Write the store in ``directory`` as ``DIRECTORY/results.FMT`` (or ``out``); return the path.

    ``fmt`` is ``csv`` or ``parquet`` (UsageError otherwise).  The file is written under a
    temporary name and renamed, so an interrupted export leaves no partial file behind.
    """
    fmt = _format(fmt)
    if fmt == "parquet":
        _need_pyarrow()
    with ResultsStore(directory, create=False) as store:
        df = store.dataframe()
    path = Path(out) if out is not None else Path(directory) / f"results.{fmt}"
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if fmt == "csv":
            df.to_csv(tmp, index=False)
        else:
            df.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"{path}: cannot write export: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return path


def load(path: str | Path, fmt: str | None = None) -> "pd.DataFrame":
    """Read an export back with the store's dtypes; ``fmt`` defaults to the file's suffix."""
    import pandas as pd

    from harness.store import frame

    path = Path(path)
    fmt = _format(fmt if fmt is not None else (path.suffix or "?"))
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if fmt == "parquet":
        _need_pyarrow()
    try:
        if fmt == "parquet":
            df = pd.read_parquet(path)
        else:
            # Only empty fields are null: "NA", "None" or "null" are text values here.
            # pandas 3 parses floats exactly by default (and deprecates the option).
            exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {
                "float_precision": "round_trip"}
            df = pd.read_csv(path, dtype=frame.DTYPES, keep_default_na=False,
                             na_values=[""], **exact)
        return frame.typed(df)
    except (ValueError, TypeError, OSError) as exc:
        raise InputError(f"{path}: not a results export ({exc})") from None


__all__ = ["FORMATS", "export", "load"]
