"""``battlebench prepare`` and the line a command prints before it compiles numba kernels (issue 50)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.core import jitcache

REPO = Path(__file__).resolve().parents[2]
ROWS = '[meta]\nname = "rows"\n[grid]\nrows = 4\ncols = 4\n[pieces]\nA = 2\nB = 1\n[hints]\nmisses = [[0, 0]]\n'
"""A tiny instance the dp counts with its rows programme (a miss: not the cluster's, which reads tables)."""
ENV_NAMES = ("BATTLEBENCH_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_CACHE_LOCATOR_CLASSES")


def environ(home: Path, **env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ENV_NAMES}
    base.update(HOME=str(home), PYTHONPATH=str(REPO), **env)
    return base


def cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=REPO, env=environ(home, **env),
                          capture_output=True, text=True)


def first_stderr_line(home: Path, *args: str, **env: str) -> str:
    """The command's first line on stderr, then the command stopped (the compilation it announces is not waited
    for: this costs a second of CPU, not the compilation's)."""
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *args], cwd=REPO, env=environ(home, **env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 120)
        return proc.stderr.readline() if ready else ""
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the command and its worker
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def tiny(tmp: Path) -> str:
    path = tmp / "rows.toml"
    path.write_text(ROWS)
    return str(path)


def blocked_home(tmp: Path) -> Path:
    """A home where nothing can be cached: its ``.cache`` is a file (stops root too)."""
    home = tmp / "blocked"
    home.mkdir()
    (home / ".cache").touch()
    return home


def test_a_cold_count_says_on_stderr_what_it_compiles_once_and_where(tmp_path):
    cache = tmp_path / "cache"
    line = first_stderr_line(tmp_path / "home", "count", tiny(tmp_path), "--json", BATTLEBENCH_CACHE_DIR=str(cache))
    assert line.startswith("battlebench: compiling the rows counting programme (numba, about "), line
    assert f"once per machine: kept in {cache}" in line and "`battlebench prepare`" in line


def test_with_no_writable_folder_a_count_says_every_run_compiles_and_the_fix(tmp_path):
    home = blocked_home(tmp_path)
    line = first_stderr_line(home, "count", tiny(tmp_path))
    assert "on every run: no cache folder is writable" in line and str(home / ".cache") in line, line
    assert "set BATTLEBENCH_CACHE_DIR to a writable folder" in line


def test_prepare_with_no_writable_folder_fails_and_says_the_fix(tmp_path):
    done = cli(blocked_home(tmp_path), "prepare")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("battlebench: error: no cache folder is writable (")
    assert "set BATTLEBENCH_CACHE_DIR to a writable folder; nothing compiled" in done.stderr


@pytest.mark.slow
def test_prepare_fills_the_cache_then_is_warm_and_a_count_compiles_nothing(tmp_path):
    """EXPENSIVE: the one test that compiles every kernel of the harness (~20-60 s of CPU)."""
    cache, home = tmp_path / "cache", tmp_path / "home"
    done = cli(home, "prepare", BATTLEBENCH_CACHE_DIR=str(cache))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("compiled the cluster counting programme, the rows counting programme, ")
    assert f"into {cache} in " in done.stdout and " s of CPU" in done.stdout
    assert all(jitcache.missing(m, cache) == [] for m in jitcache.KERNELS)  # every cached function has its index
    assert jitcache.cold(jitcache.KERNELS, cache) == []
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*")}
    t0 = time.monotonic()
    again = cli(home, "prepare", "--json", BATTLEBENCH_CACHE_DIR=str(cache))
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert out["compiled"] == [] and out["warm"] == list(jitcache.KERNELS) and out["not_compiled"] == {}
    assert out["cache_dir"] == str(cache) and time.monotonic() > t0
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*")} == before  # nothing written again
    count = cli(home, "count", tiny(tmp_path), "--json", BATTLEBENCH_CACHE_DIR=str(cache))
    assert count.returncode == 0 and count.stderr == ""  # warm: not a word
    out = json.loads(count.stdout)
    assert out["detail"]["method"] == "rows" and out["count"] > 0
