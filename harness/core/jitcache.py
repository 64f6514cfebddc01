"""Where numba caches the harness's compiled kernels (a folder the harness chooses, keyed by version and module), and whether they are in it.

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

Whether a kernel module is compiled in that folder is read from numba's index files
(``MODULE.FUNCTION-LINE.pyXY.nbi``, one per cached function, holding the source stamp)
without importing numba or the module (:func:`missing`, :func:`cold`), so that a command
says, before its worker compiles, what it compiles and where it is kept (:func:`announce`,
one line on stderr), and ``battlebench prepare`` pays it ahead of time.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

CACHE_ENV = "BATTLEBENCH_CACHE_DIR"
PACKAGE = Path(__file__).resolve().parents[1]  # the harness package this module belongs to
KERNELS: dict[str, tuple[str, float]] = {
    "harness.counting._cluster_nb": ("the cluster counting programme", 3.0),
    "harness.counting._rows_nb": ("the rows counting programme", 11.0),
    "harness.counting._profile_nb": ("the profile counting programme", 20.0),
    "harness.counting._frontier_nb": ("the frontier counting programme", 16.0),
    "harness.play._optimal_nb": ("optimal play's search", 16.0),
}
"""Every kernel module of the harness (``harness/**/_*_nb.py``): what it is, in words, and roughly how many CPU
seconds a worker's warm-up that compiles it takes (measured one module at a time, empty cache, loaded 2-core
machine: rows 11.3, profile 19.5, frontier 16.0, optimal 15.9; all of them with the marginals, ``battlebench
prepare``: 64-80 s)."""


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
    from harness import __version__
    relative = source.resolve().parent.relative_to(PACKAGE)
    return root / f"harness-{__version__}" / f"numba-{numba_version()}" / relative


def numba_version() -> str | None:
    """numba's version: the imported module's, else the installed distribution's, read from the name of its
    ``numba-VERSION.dist-info`` folder beside the package (without importing numba, ~0.5 s of CPU, or scanning
    every distribution, ~30 ms); None when numba is not installed."""
    if "numba" in sys.modules:
        return sys.modules["numba"].__version__
    from importlib.util import find_spec

    spec = find_spec("numba")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parents[1].glob("numba-*.dist-info"))
    if len(found) == 1:
        return found[0].name[len("numba-"):-len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numba")
    except PackageNotFoundError:
        return None


def source_of(module: str) -> Path:
    """The file of a kernel module of the package (``harness.counting._rows_nb``), not imported."""
    return PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")


def cached_functions(source: Path) -> list[str]:
    """The index file names numba writes for the module-level functions of ``source`` decorated
    ``@njit(cache=True)`` (not the ``inline`` ones, which are compiled into their callers): numba's
    ``MODULE.QUALNAME-LINE.pyXY.nbi``, the line being the function's first (its first decorator's)."""
    st = source.stat()
    return list(_cached_functions(str(source), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=None)
def _cached_functions(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    source = Path(path)
    out = []
    for node in ast.parse(source.read_text(), path).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            if (isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "njit"
                    and any(k.arg == "cache" and getattr(k.value, "value", None) is True for k in deco.keywords)
                    and not any(k.arg == "inline" for k in deco.keywords)):
                line = node.decorator_list[0].lineno
                out.append(f"{source.stem}.{node.name}-{line}.py{sys.version_info[0]}{sys.version_info[1]}"
                           f"{getattr(sys, 'abiflags', '')}.nbi")
    return tuple(out)


def missing(module: str, root: Path) -> list[str]:
    """The cached functions of ``module`` (see :func:`cached_functions`) with no index in ``root`` for its current
    source (the index absent, or stamped with another content of the file)."""
    source = source_of(module)
    stamp = source_stamp(source).encode()
    folder = kernel_dir(root, source)
    out = []
    for name in cached_functions(source):
        try:
            fresh = stamp in (folder / name).read_bytes()  # the stamp is pickled as plain text: not unpickled here
        except OSError:
            fresh = False
        if not fresh:
            out.append(name)
    return out


def cold(modules: Iterable[str], root: Path | None = None) -> list[str]:
    """The ``modules`` that would compile: none of their functions compiled in ``root`` (default
    :func:`cache_dir`) for their current source; every one of them when there is no cache folder or no numba."""
    modules = list(modules)
    root = cache_dir() if root is None else root
    if root is None or numba_version() is None:
        return modules
    return [m for m in modules if len(missing(m, root)) == len(cached_functions(source_of(m)))]


def notice(modules: Iterable[str], root: Path | None = None, folders: list[Path] | None = None) -> str | None:
    """The line that says the ``modules`` are about to be compiled, where they are kept and how to avoid it; None
    when they are compiled already (or numba is not installed: the run says so itself).  ``folders``: the folders
    tried, when none was writable (default :func:`tried`)."""
    if numba_version() is None:
        return None
    todo = cold(modules, root)
    if not todo:
        return None
    what = ", ".join(KERNELS[m][0] for m in todo)
    seconds = sum(KERNELS[m][1] for m in todo)
    head = f"battlebench: compiling {what} (numba, about {seconds:.0f} s of CPU)"
    root = cache_dir() if root is None else root
    if root is None:
        places = ", ".join(map(str, tried() if folders is None else folders)) or "no home folder, no variable set"
        return (f"{head} on every run: no cache folder is writable ({places}); set {CACHE_ENV} to a writable "
                "folder to compile once")
    return f"{head}, once per machine: kept in {root} (`battlebench prepare` compiles every kernel ahead of time)"


_announced: set[str] = set()
_lock = threading.Lock()


def announce(modules: Iterable[str]) -> None:
    """Print :func:`notice` on stderr (never stdout: ``--json`` stays clean), at most once per module per process."""
    with _lock:
        todo = [m for m in modules if m not in _announced]
        _announced.update(todo)
    if todo:
        line = notice(todo)
        if line:
            print(line, file=sys.stderr, flush=True)


@functools.lru_cache(maxsize=None)
def _content_hash(path: str, mtime_ns: int, size: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_stamp(source: Path | str) -> str:
    """The stamp of a kernel module's cache entries: the hash of its file's content (not its path or mtime)."""
    st = os.stat(source)
    return _content_hash(str(source), st.st_mtime_ns, st.st_size)


def tried() -> list[Path]:
    """The folders this process tries for its cache (:func:`candidates` of its environment and home)."""
    return candidates(os.environ, _home())


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
            return source_stamp(self._py_file)

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
