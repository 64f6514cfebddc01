"""harness.core.jitcache: the kernels' cache folder, read-only installs, one cold start per machine."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import harness
from harness.core import jitcache

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "instances" / "deployments" / "tiny" / "t4x4_3_2.toml"
ENV_NAMES = ("BATTLEBENCH_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_CACHE_LOCATOR_CLASSES")
PROBE = """
import json
from harness.counting import _cluster_nb, _frontier_nb, _profile_nb, _rows_nb
from harness.play import _optimal_nb
from harness.core import jitcache
value = _rows_nb._mul(2, 3, 0)
stats = _rows_nb._mul.stats
print(json.dumps({"value": int(value), "dir": str(jitcache.cache_dir()),
                  "hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values())}))
"""


def install_copy(dest: Path, read_only: bool = False) -> Path:
    """A copy of the package under ``dest`` (a new install path); read-only: no ``__pycache__`` can be made
    in it (a file stands in its place, which stops root too) and no write bits."""
    package = dest / "harness"
    shutil.copytree(Path(harness.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    if read_only:
        for folder in [package, *[p for p in package.rglob("*") if p.is_dir()]]:
            (folder / "__pycache__").touch()
        for path in [*package.rglob("*"), package]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return dest


def blocked_home(tmp: Path) -> Path:
    """A home folder where nothing can be cached: its ``.cache`` is a file, and it has no write bits."""
    home = tmp / "home"
    home.mkdir()
    (home / ".cache").touch()
    home.chmod(0o555)
    return home


def run(root: Path, args: list[str], home: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    base.update(HOME=str(home), PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1", **env)
    return subprocess.run([sys.executable, *args], cwd=root, env=base, capture_output=True, text=True)


def probe(root: Path, home: Path, **env: str) -> dict:
    done = run(root, ["-c", PROBE], home, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def files(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_candidates_in_the_documented_order(tmp_path):
    env = {"BATTLEBENCH_CACHE_DIR": "/b", "NUMBA_CACHE_DIR": "/n", "XDG_CACHE_HOME": "/x"}
    assert jitcache.candidates(env, Path("/h")) == [Path("/b"), Path("/n"), Path("/x/battlebench/numba"),
                                                    Path("/h/.cache/battlebench/numba")]
    assert jitcache.candidates({}, Path("/h")) == [Path("/h/.cache/battlebench/numba")]
    assert jitcache.candidates({}, None) == []


def test_choose_skips_folders_it_cannot_write(tmp_path):
    (tmp_path / "file").touch()
    blocked = str(tmp_path / "file" / "cache")  # under a regular file: not creatable, even by root
    env = {"BATTLEBENCH_CACHE_DIR": blocked, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert jitcache.choose(env, None) == tmp_path / "xdg" / "battlebench" / "numba"
    assert jitcache.choose({"BATTLEBENCH_CACHE_DIR": blocked}, None) is None
    assert jitcache.choose({}, tmp_path / "home") == tmp_path / "home" / ".cache" / "battlebench" / "numba"


def test_a_count_succeeds_on_a_read_only_install_and_home(tmp_path):
    """Finding 9: numba found no locator (package and home read-only) and the count failed with a RuntimeError."""
    root = install_copy(tmp_path / "ro", read_only=True)
    home = blocked_home(tmp_path)
    try:
        done = run(root, ["-m", "harness.cli", "count", str(TINY)], home)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "264 deployments" in done.stdout
        out = probe(root, home)
        assert out["value"] == 6 and out["dir"] == "None"  # compiled without a cache, nothing failed
    finally:
        home.chmod(0o755)
        for path in [root / "harness", *(root / "harness").rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)


def test_kernels_are_cached_in_the_documented_folder(tmp_path):
    import numba

    root = install_copy(tmp_path / "a")
    home = tmp_path / "home"
    kernels = Path(f"harness-{harness.__version__}") / f"numba-{numba.__version__}" / "counting"
    assert probe(root, home, BATTLEBENCH_CACHE_DIR=str(tmp_path / "chosen"))["dir"] == str(tmp_path / "chosen")
    assert any(n.startswith("_rows_nb._mul-") for n in os.listdir(tmp_path / "chosen" / kernels))
    assert probe(root, home, XDG_CACHE_HOME=str(tmp_path / "xdg"))["dir"] == str(tmp_path / "xdg/battlebench/numba")
    assert (tmp_path / "xdg" / "battlebench" / "numba" / kernels).is_dir()
    assert probe(root, home)["dir"] == str(home / ".cache" / "battlebench" / "numba")
    assert not list(root.rglob("*.nbi"))  # nothing beside the package


def test_a_second_install_path_reuses_the_cache(tmp_path):
    """Finding 9: numba keyed the cache by the source's folder, so every new install path compiled again."""
    cache = tmp_path / "cache"
    home = tmp_path / "home"
    first = probe(install_copy(tmp_path / "one"), home, BATTLEBENCH_CACHE_DIR=str(cache))
    assert first["misses"] == 1 and first["hits"] == 0
    before = files(cache)
    second = probe(install_copy(tmp_path / "two"), home, BATTLEBENCH_CACHE_DIR=str(cache))
    assert second["hits"] == 1 and second["misses"] == 0  # loaded, not compiled
    assert files(cache) == before  # no entry written or rewritten


def test_an_edited_kernel_is_compiled_again(tmp_path):
    """The stamp is the file's content: the same version with another kernel source does not load stale code."""
    cache = tmp_path / "cache"
    home = tmp_path / "home"
    probe(install_copy(tmp_path / "one"), home, BATTLEBENCH_CACHE_DIR=str(cache))
    edited = install_copy(tmp_path / "two")
    rows = edited / "harness" / "counting" / "_rows_nb.py"
    rows.write_text(rows.read_text() + "\n# edited\n")
    again = probe(edited, home, BATTLEBENCH_CACHE_DIR=str(cache))
    assert again["misses"] == 1 and again["hits"] == 0


# -- issue 50: the cold start said where users meet it, read from numba's index files -----------------------------
ROWS = "harness.counting._rows_nb"


def test_every_kernel_module_is_registered_and_prepared():
    """A new ``_*_nb.py`` must say what it is and how ``battlebench prepare`` compiles it."""
    from harness.cli.prepare import steps

    found = {".".join(p.relative_to(REPO).with_suffix("").parts) for p in (REPO / "harness").rglob("_*_nb.py")}
    assert set(jitcache.KERNELS) == found
    assert set(steps()) == found
    assert all(jitcache.source_of(m).is_file() for m in found)


def test_cached_functions_are_numbas_index_names(tmp_path):
    """The names read from the source are the files numba writes: the probe's one compiled kernel is among them."""
    cache = tmp_path / "cache"
    probe(install_copy(tmp_path / "a"), tmp_path / "home", BATTLEBENCH_CACHE_DIR=str(cache))
    folder = jitcache.kernel_dir(cache, jitcache.source_of(ROWS))
    written = {p.name for p in folder.glob("*.nbi")}
    names = jitcache.cached_functions(jitcache.source_of(ROWS))
    assert written and written <= set(names)  # _rows_nb._mul only: the probe compiled nothing else
    assert set(jitcache.missing(ROWS, cache)) == set(names) - written
    assert jitcache.missing(ROWS, tmp_path / "empty") == names


def test_the_notice_says_what_where_and_once_and_goes_when_warm(tmp_path):
    cache = tmp_path / "cache"
    line = jitcache.notice([ROWS], cache)
    assert line.startswith("battlebench: compiling the rows counting programme (numba, about ")
    assert f"once per machine: kept in {cache}" in line and "battlebench prepare" in line
    probe(install_copy(tmp_path / "a"), tmp_path / "home", BATTLEBENCH_CACHE_DIR=str(cache))  # one kernel compiled
    assert jitcache.cold([ROWS], cache) == []
    assert jitcache.notice([ROWS], cache) is None
    assert jitcache.cold([ROWS, "harness.counting._profile_nb"], cache) == ["harness.counting._profile_nb"]


def test_an_index_of_another_source_is_cold(tmp_path):
    """An index stamped with another content of the file (an edited kernel, same version) does not count."""
    cache = tmp_path / "cache"
    probe(install_copy(tmp_path / "a"), tmp_path / "home", BATTLEBENCH_CACHE_DIR=str(cache))
    source = jitcache.source_of(ROWS)
    stamp = jitcache.source_stamp(source).encode()
    for index in jitcache.kernel_dir(cache, source).glob("*.nbi"):
        data = index.read_bytes()
        assert stamp in data
        index.write_bytes(data.replace(stamp, b"0" * len(stamp)))
    assert jitcache.cold([ROWS], cache) == [ROWS]


def test_no_writable_folder_says_every_run_compiles_and_the_fix(monkeypatch):
    monkeypatch.setattr(jitcache, "cache_dir", lambda: None)
    line = jitcache.notice([ROWS], folders=[Path("/h/.cache/battlebench/numba")])
    assert "on every run: no cache folder is writable (/h/.cache/battlebench/numba)" in line
    assert "set BATTLEBENCH_CACHE_DIR to a writable folder" in line


def test_announce_prints_on_stderr_once_per_module(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(jitcache, "cache_dir", lambda: tmp_path / "empty")
    monkeypatch.setattr(jitcache, "_announced", set())
    jitcache.announce([ROWS])
    jitcache.announce([ROWS])
    out, err = capsys.readouterr()
    assert out == "" and err.count("battlebench: compiling the rows counting programme") == 1


def test_the_cold_check_imports_neither_numba_nor_a_kernel_and_reads_numbas_version(tmp_path):
    code = ("import json, sys\nfrom harness.core import jitcache\n"
            "line = jitcache.notice(list(jitcache.KERNELS))\nversion = jitcache.numba_version()\n"
            "loaded = sorted(m for m in sys.modules if m == 'numba' or m.endswith('_nb'))\nimport numba\n"
            "print(json.dumps([line, version, numba.__version__, loaded]))")
    done = run(REPO, ["-c", code], tmp_path / "home", BATTLEBENCH_CACHE_DIR=str(tmp_path / "empty"))
    assert done.returncode == 0, done.stderr
    line, version, real, loaded = json.loads(done.stdout)
    assert loaded == [] and version == real
    assert line.startswith("battlebench: compiling the cluster counting programme, the rows counting programme")


def test_each_request_names_the_kernels_its_worker_compiles():
    """What the pool announces: the dp's programme of the instance (none for a rectangle: the cluster reads
    tables), optimal play's search, the posterior's marginals programme; nothing for what compiles nothing."""
    from harness.counting.format import parse_deployment, read_deployment
    from harness.tasks.count import CountRequest
    from harness.tasks.play import PlayRequest
    from harness.tasks.value import ValueRequest

    head = '[meta]\nname = "k"\n[grid]\nrows = 10\ncols = 10\n'
    apart = parse_deployment(head + '[rules]\ntouching = false\n[pieces]\nA = 5\nB = 4\nC = 3\n'
                             '[hints]\nmisses = [[0, 0]]\n', file="<k>")
    rectangle = read_deployment(TINY)
    assert CountRequest(apart, "dp", "deployments").kernels() == ("harness.counting._profile_nb",)
    assert CountRequest(rectangle, "dp", "deployments").kernels() == ()
    assert CountRequest(rectangle, "dp", "deployments", marginals=True).kernels() == ("harness.counting._rows_nb",)
    assert CountRequest(rectangle, "frontier", "deployments").kernels() == ("harness.counting._frontier_nb",)
    assert CountRequest(rectangle, "sat", "deployments").kernels() == ()
    assert ValueRequest(rectangle, "optimal", (), "ship").kernels() == ("harness.play._optimal_nb",)
    assert ValueRequest(rectangle, "random", (), "ship").kernels() == ()
    assert PlayRequest(apart, "posterior", (), "ship", 0, 0).kernels() == ("harness.counting._profile_nb",)
    assert PlayRequest(rectangle, "lookahead", (), "ship", 0, 0).kernels() == ("harness.counting._rows_nb",)
    assert PlayRequest(rectangle, "random", (), "ship", 0, 0).kernels() == ()
