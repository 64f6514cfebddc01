"""The results store of a campaign (SQLite, crash-safe) and its CSV / Parquet exports."""

from harness.store.export import FORMATS, export, load
from harness.store.sqlite import DB_NAME, SCHEMA_VERSION, ResultsStore

__all__ = ["DB_NAME", "FORMATS", "SCHEMA_VERSION", "ResultsStore", "export", "load"]
