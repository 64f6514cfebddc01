"""Where ``check`` and ``report`` find a store's subject files again, and what they say when they cannot.

A run records its subject file as ``battlebench run`` showed it: relative to the working
directory of the campaign where it can be (:func:`harness.runner.campaign.display`), which
the store records as its *campaign root* (``campaign_meta`` key :data:`ROOT_KEY`).  A
relative path is looked up, in this order, under

1. the campaign root the store records (when it exists on this machine);
2. the store's folder and each of its parents (a store made before battlebench recorded
   its root, or a repository cloned elsewhere: ``reports/NAME`` finds ``instances/...``
   at the repository's root);
3. the working directory of the caller, last.

The caller's folder is never the first place looked, so ``check`` of a store gives the same
verdict from any folder.  A file is taken only when its content hash is the stored
``instance_hash``; :class:`Locator` keeps, per path, what became of each look-up: found
(and under which base, for the one line :meth:`Locator.sentence` prints), *not found*
anywhere, or *stale* (a file is there, but its content has changed since the run).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable

from harness.errors import InputError
from harness.store.sqlite import ROOT_KEY


class Locator:
    """Finds the subject files of one store (see the module docstring); one per store and check."""

    def __init__(self, results_dir: str | Path, root: str | None):
        self.results = Path(results_dir).resolve()
        recorded = Path(root) if root else None
        self.root = recorded
        self.root_here = recorded is not None and recorded.is_dir()
        self._cache: dict[tuple, Any] = {}
        self.found: Counter[tuple[str, str]] = Counter()  # (base, how it was chosen) -> runs found there
        self.missing: Counter[str] = Counter()  # path -> runs whose file was found nowhere
        self.stale: dict[str, str] = {}  # path -> what changed
        self.stale_runs: Counter[str] = Counter()  # path -> runs whose file has changed

    def bases(self) -> list[tuple[Path, str]]:
        """Where relative paths are looked up, in order, each with how it was chosen."""
        out: list[tuple[Path, str]] = []
        if self.root is not None and self.root_here:
            out.append((self.root, "the campaign root the store records"))
        why = ("the store records no campaign root" if self.root is None else
               f"the recorded campaign root {self.root} is not on this machine")
        out += [(self.results, f"the store's folder; {why}")]
        out += [(p, f"a parent of the store's folder; {why}") for p in self.results.parents]
        out.append((Path.cwd(), f"the working directory; {why}"))
        return out

    def find(self, path: str, digest: str, read: Callable[[Path], Any]) -> Any:
        """The subject at ``path`` whose content hash is ``digest``, read by ``read``; None when there is none
        (counted as not found, or as stale when a file is there with another content)."""
        key = (path, digest, read)
        if key not in self._cache:
            self._cache[key] = self._look(path, digest, read)
        value, base, changed = self._cache[key]
        if value is not None:
            self.found[base] += 1
        elif changed:
            self.stale[path] = changed
            self.stale_runs[path] += 1
        else:
            self.missing[path] += 1
        return value

    def _look(self, path: str, digest: str, read: Callable[[Path], Any]) -> tuple[Any, tuple[str, str], str]:
        given = Path(path)
        candidates = [(given, ("", "as recorded"))] if given.is_absolute() else \
            [(base / given, (str(base), how)) for base, how in self.bases()]
        changed = ""
        for candidate, base in candidates:
            if not path or not candidate.is_file():
                continue
            try:
                value = read(candidate)
            except InputError as exc:
                changed = changed or f"{candidate} no longer reads ({str(exc).splitlines()[0]})"
                continue
            now = value.content_hash()
            if now == digest:
                return value, base, ""
            changed = changed or f"{candidate}: content hash now {now}, the store records {digest}"
        return None, ("", ""), changed

    @property
    def not_found(self) -> int:
        return sum(self.missing.values())

    @property
    def changed(self) -> int:
        return sum(self.stale_runs.values())

    def sentence(self) -> str:
        """Where the files were found, in one line (empty when none was looked up)."""
        if not self.found:
            return ""
        parts = []
        for (base, how), n in sorted(self.found.items(), key=lambda item: -item[1]):
            where = "at the paths recorded" if not base else f"relative to {base} ({how})"
            parts.append(f"{n} runs' files {where}")
        return "subject files: " + "; ".join(parts)

    def looked(self) -> str:
        """Where a relative path was looked for, in one phrase."""
        tail = f"the store's folder {self.results} and its parents, and the working directory"
        if self.root_here:
            return f"under the campaign root {self.root} the store records, then {tail}"
        why = ("the store records no campaign root" if self.root is None else
               f"the recorded campaign root {self.root} is not on this machine")
        return f"under {tail} ({why})"

    def missing_text(self, most: int = 3) -> str:
        names = list(self.missing)
        shown = ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
        return f"their subject file not found ({shown}) {self.looked()}"

    def stale_text(self, most: int = 3) -> str:
        items = list(self.stale.values())
        return "; ".join(items[:most]) + (f"; and {len(items) - most} more files" if len(items) > most else "")


def locator_of(results_dir: str | Path) -> Locator:
    """The :class:`Locator` of the store in ``results_dir`` (its recorded campaign root read from the store); runs
    with no store there (a frame read from an export) have no recorded root."""
    from harness.store import ResultsStore
    from harness.store.sqlite import DB_NAME, GZ_NAME

    where = Path(results_dir)
    folder = where.parent if where.name in (DB_NAME, GZ_NAME) else where
    if not ((folder / DB_NAME).is_file() or (folder / GZ_NAME).is_file()):
        return Locator(folder, None)
    with ResultsStore(folder, create=False) as store:
        root = store.meta().get(ROOT_KEY)
    return Locator(results_dir, root)


__all__ = ["Locator", "ROOT_KEY", "locator_of"]
