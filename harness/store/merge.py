"""Stores written apart, merged into one: the shards of a campaign run on separate machines (``battlebench merge``).

:func:`merge` reads each source store (read-only, a ``results.sqlite.gz`` too) and writes a new one:

* **one campaign**: every source must hold the same config (``config_hash``); stores of different configs are
  refused (:class:`MergeRefused`) unless ``mixed``, which gives the merged store a config hash of its own
  (``mixed:`` and a digest of the sources' hashes) and no config text: a comparison across configs is the
  user's to make;
* **the plan** is the union of the sources' plans (one row per run id, in the order first seen), so ``check``
  says whether the shards together hold every planned run;
* **each run once**: the runs are written ordered by when they started (then run id), so the merged store is the
  same whatever the order of the sources.  A run stored by two sources (measured twice: shards that overlapped, a
  run resumed on another machine) is kept once, *the measurement that started first* (ties: the source named
  first), never the one that looks better; the others are counted in the summary.  A record that holds no
  measurement (a run ``lost`` with its worker or node) gives way to one that does, whenever it started.  Two records of one run whose
  answers disagree (one says sat and the other unsat, two exact counts differ or one found more than the other
  says there are, one board judged wrong and the other not) are refused, naming the run and both stores: such a pair is a finding, not a duplicate;
* **provenance**: every source's sessions (which machine ran what, its CPU model) are kept, and
  ``campaign_meta.merged_from`` lists each source with its campaign, config hash and runs;
* **kept files** (``proofs/``: named by their content's sha256) are copied; one name with two contents is
  refused.

The target folder must hold no store yet; nothing is written to it before every source has been read and judged.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.status import NOT_MEASURED
from harness.errors import InputError

KEPT_DIRS = ("proofs",)
"""The folders of files a store keeps beside it (:meth:`harness.store.sqlite.ResultsStore.keep`)."""


class MergeRefused(InputError):
    """Stores that cannot be merged: different configs, two records of one run that disagree, a kept file's
    name with two contents, a target that already holds a store."""


@dataclass
class Source:
    """One store read for the merge."""

    path: Path
    meta: dict[str, str]
    plan: list[dict[str, Any]] | None
    records: list[dict[str, Any]]
    extra: dict[str, str]
    sessions: list[dict[str, Any]]


@dataclass
class Merged:
    """What :func:`merge` wrote."""

    out: Path
    runs: int = 0
    duplicates: int = 0  # records of a run already taken from an earlier-started measurement
    planned: int | None = None
    kept_files: int = 0
    per_source: list[tuple[str, int]] = field(default_factory=list)

    def sentence(self) -> str:
        src = ", ".join(f"{path}: {n}" for path, n in self.per_source)
        twice = (f"; {self.duplicates} run{'s' if self.duplicates != 1 else ''} stored twice, the measurement "
                 "that started first kept") if self.duplicates else ""
        plan = f" of {self.planned} planned" if self.planned is not None else ""
        files = f", {self.kept_files} kept files" if self.kept_files else ""
        return f"merged {self.runs} runs{plan} into {self.out} ({src}{twice}{files})"


def _read(path: Path) -> Source:
    from harness.store.sqlite import ResultsStore

    with ResultsStore(path, create=False) as store:
        return Source(path, store.meta(), store.plan(), store.records(), dict(store.extra), store.sessions())


def _disagreement(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Why two records of one run cannot both be right (None: they may be: one measured longer, or again)."""
    if a["answer"] in ("sat", "unsat") and b["answer"] in ("sat", "unsat") and a["answer"] != b["answer"]:
        return f"answer {a['answer']} against {b['answer']}"
    exact = [r["count"] if (r["complete"] or r["exhausted"]) and r["count"] is not None else None for r in (a, b)]
    if exact[0] is not None and exact[1] is not None and exact[0] != exact[1]:
        return f"exact count {exact[0]} against {exact[1]}"
    for said, other in ((exact[0], b), (exact[1], a)):
        if said is not None and other["count"] is not None and other["count"] > said:
            return f"one says there are exactly {said}, the other found {other['count']}"
    wrong = (a["status"] == "wrong", b["status"] == "wrong")
    if a["answer"] == b["answer"] == "sat" and wrong[0] != wrong[1]:
        return f"status {a['status']} against {b['status']}"
    return None


def _config(sources: list[Source], mixed: bool) -> tuple[str, str, str]:
    """(campaign, config_hash, config_text) of the merged store."""
    hashes = {s.meta.get("config_hash") for s in sources}
    first = sources[0]
    if len(hashes) == 1:
        return first.meta.get("campaign", ""), str(first.meta.get("config_hash")), first.meta.get("config_text", "")
    if not mixed:
        other = next(s for s in sources if s.meta.get("config_hash") != first.meta.get("config_hash"))
        raise MergeRefused(f"{first.path} holds campaign {first.meta.get('campaign')!r} config "
                           f"{str(first.meta.get('config_hash'))[:12]}, {other.path} campaign "
                           f"{other.meta.get('campaign')!r} config {str(other.meta.get('config_hash'))[:12]}: "
                           "different configs (--mixed merges them anyway)")
    digest = hashlib.sha256("\n".join(sorted(str(h) for h in hashes)).encode()).hexdigest()
    names = sorted({s.meta.get("campaign", "") for s in sources})
    return "+".join(names), f"mixed:{digest}", ""


def _extra(sources: list[Source]) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in sources:
        for name, kind in s.extra.items():
            if out.setdefault(name, kind) != kind:
                raise MergeRefused(f"{s.path}: run column {name!r} is {kind} there, {out[name]} in another store")
    return out


def _plan(sources: list[Source]) -> list[dict[str, Any]] | None:
    if any(s.plan is None for s in sources):
        return None
    seen: dict[str, dict[str, Any]] = {}
    for s in sources:
        for row in s.plan or []:
            seen.setdefault(row["run_id"], row)
    return list(seen.values())


def _runs(sources: list[Source]) -> tuple[list[dict[str, Any]], int, list[tuple[str, int]]]:
    """Every run once (the measurement that started first), ordered by start; how many were dropped as twice."""
    chosen: dict[str, tuple[tuple[str, int], dict[str, Any], Path]] = {}
    duplicates = 0
    for order, s in enumerate(sources):
        for rec in s.records:
            key = (rec.get("status") in NOT_MEASURED, str(rec.get("started_at") or ""), order)  # measured first
            rid = rec["run_id"]
            if rid in chosen:
                duplicates += 1
                _, other, where = chosen[rid]
                why = _disagreement(other, rec)
                if why:
                    raise MergeRefused(f"run {rid} ({rec.get('instance')}, {rec.get('pair')}): {where} and "
                                       f"{s.path} disagree: {why}")
                if key >= chosen[rid][0]:
                    continue
            chosen[rid] = (key, rec, s.path)
    runs = [rec for _, rec, _ in sorted(chosen.values(), key=lambda v: (v[0][1], v[1]["run_id"]))]
    per = [(str(s.path), sum(1 for _, _, p in chosen.values() if p == s.path)) for s in sources]
    return runs, duplicates, per


def _kept(sources: list[Source]) -> dict[str, Path]:
    """name inside the store's folder -> the source file; one name with two contents is refused."""
    out: dict[str, Path] = {}
    for s in sources:
        folder = s.path if s.path.is_dir() else s.path.parent
        for sub in KEPT_DIRS:
            for path in sorted((folder / sub).glob("*")) if (folder / sub).is_dir() else []:
                name = f"{sub}/{path.name}"
                if name in out and _content(out[name]) != _content(path):
                    raise MergeRefused(f"{path}: another store keeps a different {name}")
                out.setdefault(name, path)
    return out


def _content(path: Path) -> str:
    """The sha256 of a kept file's content, read in blocks -- of what it holds uncompressed when it is gzipped,
    so one proof compressed at two moments (gzip headers differ) is one content."""
    import gzip
    import hashlib

    digest = hashlib.sha256()
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise MergeRefused(f"{path}: cannot be read ({exc})") from None
    return digest.hexdigest()


def copy_store(src: str | Path, dst: str | Path) -> None:
    """One store copied whole into the folder ``dst``: its database (SQLite's online backup) and its kept files
    -- what :func:`merge` gives of a single store."""
    import sqlite3

    from harness.store.sqlite import DB_NAME

    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(src / DB_NAME) as a, sqlite3.connect(dst / DB_NAME) as b:
        a.backup(b)
    for sub in KEPT_DIRS:
        if (src / sub).is_dir():
            shutil.copytree(src / sub, dst / sub)


def merge(paths: list[str | Path], out: str | Path, *, mixed: bool = False) -> Merged:
    """Merge the stores in ``paths`` into a new store in ``out`` (see the module docstring)."""
    from harness.store.sqlite import DB_NAME, ROOT_KEY, ResultsStore

    target = Path(out)
    if len(paths) < 2:
        raise MergeRefused("merge needs two stores or more")
    if (target / DB_NAME).exists() or (target / f"{DB_NAME}.gz").exists():
        raise MergeRefused(f"{target}: already holds a results store; merge writes a new one (choose another --out)")
    resolved = [Path(p).resolve() for p in paths]
    if target.resolve() in resolved or len(set(resolved)) != len(resolved):
        raise MergeRefused("each store is named once, and --out is none of them")
    sources = [_read(Path(p)) for p in paths]
    campaign, config_hash, config_text = _config(sources, mixed)
    extra = _extra(sources)
    plan = _plan(sources)
    runs, duplicates, per = _runs(sources)
    kept = _kept(sources)
    root = next((s.meta[ROOT_KEY] for s in sources if s.meta.get(ROOT_KEY)), None)
    target.mkdir(parents=True, exist_ok=True)
    with ResultsStore(target) as store:
        store.begin(campaign, config_hash, config_text, plan=plan, root=root)
        store.add_columns(extra)
        for s in sources:
            for session in s.sessions:
                store.add_session(dict(session, merged_from=str(s.path)))
        for name, path in kept.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / name)
        for rec in runs:
            store.add({k: v for k, v in rec.items() if k in store.columns and (v is not None or k not in extra)})
        store.set_meta("merged_from", json.dumps(
            [{"store": str(s.path), "campaign": s.meta.get("campaign"), "config_hash": s.meta.get("config_hash"),
              "runs": len(s.records)} for s in sources]))
    return Merged(target, len(runs), duplicates, len(plan) if plan is not None else None, len(kept), per)


__all__ = ["KEPT_DIRS", "MergeRefused", "Merged", "copy_store", "merge"]
