"""Where numba caches the harness's compiled kernels: a folder the harness chooses, keyed by version and module.

numba's own cache locators key a kernel's cache by the absolute folder of its source file
(every new install path compiles again: the first German-fleet count costs ~25 s of CPU)
and need a writable ``__pycache__`` beside the package or a writable home, else the
import fails (``cannot cache function '_next': no locator available``).  Every kernel
module of the harness (``harness/**/_*_nb.py``) decorates with :func:`njit` from here
instead of ``numba.njit``, which

* registers :class:`HarnessCacheLocator` ahead of numba's locators, for the harness's
  own source files only: the cache folder is :func:`cache_dir` /
  ``harness-<version>/numba-<version>/<the module's folder inside the package>``, and
  the source stamp is a hash of the file's content (not its path or mtime), so a
  second install of the same version finds the same entries: the cold start is paid
  once per machine (per user), not per install path;
* drops ``cache=True`` when no folder is writable: the kernels compile in memory, as
  without a cache, and nothing fails.

The folder (:func:`cache_dir`) is the first of :data:`CACHE_ENV` (``$BATTLEBENCH_CACHE_DIR``),
``$NUMBA_CACHE_DIR``, ``$XDG_CACHE_HOME/battlebench/numba`` and
``~/.cache/battlebench/numba`` that can be created and written.  Never a shared
temporary folder: numba's cache files are pickles, and one planted by another user
would run as code.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

CACHE_ENV = "BATTLEBENCH_CACHE_DIR"
PACKAGE = Path(__file__).resolve().parents[1]  # the harness package this module belongs to


def candidates(environ: Mapping[str, str], home: Path | None) -> list[Path]:
    """The cache folders to try, in order (see the module's docstring); ``home`` None: no home folder."""
    out = [Path(environ[name]) for name in (CACHE_ENV, "NUMBA_CACHE_DIR") if environ.get(name)]
    if environ.get("XDG_CACHE_HOME"):
        out.append(Path(environ["XDG_CACHE_HOME"]) / "battlebench" / "numba")
    if home is not None:
        out.append(home / ".cache" / "battlebench" / "numba")
    return out


def writable(path: Path) -> bool:
    """Whether ``path`` is (or can be made) a folder this process can write a file in."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def choose(environ: Mapping[str, str], home: Path | None) -> Path | None:
    """The first writable candidate folder, or None (compile without a cache)."""
    return next((path for path in candidates(environ, home) if writable(path)), None)


def _home() -> Path | None:
    try:
        return Path.home()
    except (RuntimeError, KeyError):  # no $HOME and no passwd entry
        return None


@functools.cache
def cache_dir() -> Path | None:
    """This process's cache folder (chosen once), or None when none of the candidates is writable."""
    return choose(os.environ, _home())


def kernel_dir(root: Path, source: Path) -> Path:
    """Where the kernels of ``source`` (a file inside the package) are cached under ``root``."""
    import numba

    from harness import __version__
    relative = source.resolve().parent.relative_to(PACKAGE)
    return root / f"harness-{__version__}" / f"numba-{numba.__version__}" / relative


@functools.lru_cache(maxsize=None)
def _content_hash(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _locator_class():
    from numba.core.caching import _CacheLocator

    class HarnessCacheLocator(_CacheLocator):
        """numba's cache locator for the harness's kernels: :func:`kernel_dir`, stamped by content."""

        def __init__(self, py_func, py_file: str, root: Path):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(kernel_dir(root, Path(py_file)))

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> str:
            st = os.stat(self._py_file)
            return _content_hash(self._py_file, st.st_mtime_ns, st.st_size)

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            root = cache_dir()
            if root is None or not Path(py_file).resolve().is_relative_to(PACKAGE):
                return None  # not the harness's: numba's own locators decide
            self = cls(py_func, py_file, root)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    return HarnessCacheLocator


@functools.cache
def install():
    """Register the harness's locator ahead of numba's (once per process); returns its class."""
    from numba.core.caching import CacheImpl

    locator = _locator_class()
    CacheImpl._locator_classes.insert(0, locator)
    return locator


def njit(*args, **kwargs):
    """``numba.njit`` for the harness's kernels: cached in :func:`cache_dir`, or not cached when it is None."""
    import numba

    install()
    if kwargs.get("cache") and cache_dir() is None:
        kwargs["cache"] = False
    return numba.njit(*args, **kwargs)
