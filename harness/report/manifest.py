"""The instance manifest (``instances/MANIFEST.toml``): found, read, and what its entries expect of a store.

An entry is matched to the runs by its ``content_hash``; ``expected_status`` (``sat`` / ``unsat``) and
``expected_count`` (an integer >= 0, or ``"many"``: at least 2) are what :func:`harness.report.agreement.check_agreement`
holds the decided runs to.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd

from harness.errors import InputError
from harness.report.data import SOLVED, instance_key

MANIFEST_PATH = Path("instances") / "MANIFEST.toml"


def expected_count(entry: dict) -> int | str | None:
    """The entry's ``expected_count``: an integer >= 0, ``"many"``, or None (absent or not readable)."""
    value = entry.get("expected_count")
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() == "many":
        return "many"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def expected_status(entry: dict) -> str | None:
    """The decided status the entry expects: its ``expected_status``, else the one its count implies."""
    status = entry.get("expected_status")
    if status in SOLVED:
        return status
    count = expected_count(entry)
    if count is None:
        return None
    return "unsat" if count == 0 else "sat"


def load_manifest(path: str | Path) -> dict[str, dict]:
    """The instance manifest as content hash -> entry.

    Entries without ``content_hash`` are skipped.  Entries sharing a content hash (one
    file under two names) are merged; their expectations must agree (InputError).
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read the manifest: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a TOML manifest: {exc}") from None
    entries = data.get("instance", [])
    if not isinstance(entries, list):
        raise InputError(f"{path}: 'instance' must be an array of tables")
    out: dict[str, dict] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("content_hash"):
            continue
        digest = str(entry["content_hash"])
        count = entry.get("expected_count")
        if count is not None and expected_count(entry) is None:
            raise InputError(f"{path}: {entry.get('name', digest)}: expected_count must be an integer "
                             f">= 0 or \"many\", not {count!r}")
        old = out.get(digest)
        if old is None:
            out[digest] = dict(entry)
            continue
        for k in ("expected_status", "expected_count"):
            if k in entry and k in old and entry[k] != old[k]:
                raise InputError(f"{path}: {old.get('name')} and {entry.get('name')} have the same "
                                 f"content but {k} {old[k]!r} and {entry[k]!r}")
            if k in entry:
                old.setdefault(k, entry[k])
    return out


def manifest_coverage(df: pd.DataFrame, manifest: dict[str, dict] | None) -> tuple[int, int]:
    """``(judged, instances)``: how many of the store's instances have an expectation in ``manifest``.

    An instance (``instance_key``) is judged when one of its runs' ``instance_hash`` has a
    manifest entry with ``expected_status`` or ``expected_count``.
    """
    keys = instance_key(df)
    expects = {h for h, e in (manifest or {}).items() if "expected_status" in e or "expected_count" in e}
    judged = keys[df["instance_hash"].astype("string").isin(expects).fillna(False).astype(bool)]
    return judged.nunique(), keys.nunique()


def manifest_sentence(df: pd.DataFrame, manifest: dict[str, dict] | None, path: Any) -> str:
    """What the store's instances were compared against in the manifest at ``path``; "" if none of them."""
    judged, total = manifest_coverage(df, manifest)
    if not judged:
        return ""
    try:  # as the user would write it, where it is under the working directory
        path = Path(path).resolve().relative_to(Path.cwd())
    except ValueError:
        pass
    if judged == total:
        return f"expected statuses: all {total} instances from {path}" if total > 1 else \
            f"expected statuses: the instance from {path}"
    rest = total - judged
    return (f"expected statuses: {judged} of {total} instances from {path}; "
            f"{rest} {'has' if rest == 1 else 'have'} no expectation")


def find_manifest(start: str | Path) -> Path | None:
    """The nearest ``instances/MANIFEST.toml`` from ``start`` upwards, then in the current directory."""
    start = Path(start).resolve()
    here = start if start.is_dir() else start.parent
    for d in (here, *here.parents):
        candidate = d / MANIFEST_PATH
        if candidate.is_file():
            return candidate
    candidate = Path(os.getcwd()) / MANIFEST_PATH
    return candidate if candidate.is_file() else None


__all__ = ["MANIFEST_PATH", "expected_count", "expected_status", "find_manifest", "load_manifest",
           "manifest_coverage", "manifest_sentence"]
