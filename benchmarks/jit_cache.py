"""What the numba cache saves a count: CPU seconds of a German-fleet count cold, warm, second path, after prepare.

    python benchmarks/jit_cache.py --out reports/jit-cache

Counts the German fleet (5, 4×2, 3×3, 2×4) on a 10×10 board, ships not touching
(``dp``, which needs its compiled programmes), with ``battlebench count`` in a fresh
process each time, its CPU seconds (user + system of the process and its worker, from
``getrusage(RUSAGE_CHILDREN)``) for:

* **cold**: an empty cache folder (``BATTLEBENCH_CACHE_DIR``), this checkout;
* **warm**: the same folder again;
* **second path**: a copy of the package in a new folder (``cp -r harness``), the same
  cache folder -- the cost a new install path (a new venv, a container) pays;
* **no cache**: no writable folder (home unwritable, no variable set): compiled every time;
* **prepare**: ``battlebench prepare`` into another empty folder (every kernel of the
  harness compiled ahead of time), then the count with that folder: what a fresh install
  pays when it prepares first (and ``prepare`` called again: warm, nothing compiled).

Writes ``summary.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KNOWN = 26509655816984
GERMAN = """[meta]
name = "german_10x10_notouch"
expected_count = 26509655816984

[grid]
kind = "square"
rows = 10
cols = 10

[rules]
touching = false
reflections = false

[pieces.Carrier]
length = 5
count = 1
[pieces.Battleship]
length = 4
count = 2
[pieces.Cruiser]
length = 3
count = 3
[pieces.Destroyer]
length = 2
count = 4
"""
UNSET = ("BATTLEBENCH_CACHE_DIR", "NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_CACHE_LOCATOR_CLASSES")


def command_cpu(package_root: Path, args: list[str], home: Path, cache: Path | None) -> tuple[float, str, str]:
    """CPU seconds of one ``battlebench ARGS`` with the package from ``package_root``, its last line of output
    and its stderr."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update(HOME=str(home), PYTHONPATH=str(package_root), PYTHONDONTWRITEBYTECODE="1")
    if cache is not None:
        env["BATTLEBENCH_CACHE_DIR"] = str(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=package_root,
                          env=env, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout.strip().splitlines()[-1], done.stderr.strip()


def count_cpu(package_root: Path, instance: Path, home: Path, cache: Path | None) -> tuple[float, str, str]:
    """CPU seconds of one ``battlebench count`` with the package from ``package_root``, its line and its notice."""
    cpu, line, notice = command_cpu(package_root, ["count", str(instance)], home, cache)
    if f"{KNOWN:,}" not in line:
        raise SystemExit(f"jit_cache: wrong count: {line}")
    return cpu, line, notice


def _cell(text: str, tmp: Path) -> str:
    """A stderr text as one table cell: the temporary folder named ``TMP``, no line breaks or bars."""
    return text.replace(str(tmp), "TMP").replace("\n", " ").replace("|", "\\|") or "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="battlebench-jit-") as tmp:
        tmp = Path(tmp)
        instance = tmp / "german_10x10_notouch.toml"
        instance.write_text(GERMAN)
        home = tmp / "home"
        home.mkdir()
        cache = tmp / "cache"
        second = tmp / "second"
        shutil.copytree(ROOT / "harness", second / "harness", ignore=shutil.ignore_patterns("__pycache__"))
        blocked = tmp / "blocked"
        blocked.mkdir()
        (blocked / ".cache").touch()  # nothing can be made under it, not even by root
        rows = []
        for case, root, home_, folder in (("cold (empty cache)", ROOT, home, cache),
                                          ("warm (same cache)", ROOT, home, cache),
                                          ("second install path (same cache)", second, home, cache),
                                          ("no writable cache folder", ROOT, blocked, None)):
            cpu, line, notice = count_cpu(root, instance, home_, folder)
            rows.append((case, cpu, line, notice))
            print(f"{case}: {cpu:.1f} s CPU  ({line})", flush=True)
        prepared = tmp / "prepared"
        cpu, line, notice = command_cpu(ROOT, ["prepare"], home, prepared)
        rows.append(("`battlebench prepare` (empty cache)", cpu, line, notice))
        print(f"prepare: {cpu:.1f} s CPU  ({line})", flush=True)
        cpu, line, notice = command_cpu(ROOT, ["prepare"], home, prepared)
        rows.append(("`battlebench prepare` again", cpu, line, notice))
        print(f"prepare again: {cpu:.1f} s CPU  ({line})", flush=True)
        cpu, line, notice = count_cpu(ROOT, instance, home, prepared)
        rows.append(("first count after prepare", cpu, line, notice))
        print(f"after prepare: {cpu:.1f} s CPU  ({line})", flush=True)
    load_after = os.getloadavg()[0]
    import numba

    from harness import __version__
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    text = ["# The numba cache: a German-fleet count cold, warm and from a second install path", "",
            "`python benchmarks/jit_cache.py --out reports/jit-cache` (harness "
            f"{__version__}, numba {numba.__version__}, Python {sys.version.split()[0]}). Each line is one "
            "`battlebench count german_10x10_notouch.toml` (the German fleet 5, 4×2, 3×3, 2×4 on 10×10, ships not "
            "touching; `dp`) in a fresh process; CPU is user + system of the command and its worker. The cache "
            "folder is `BATTLEBENCH_CACHE_DIR` (see `harness.core.jitcache`); the second install path is a copy "
            "of `harness/` in another folder with the same cache folder; the last line has no writable folder "
            f"(home's `.cache` a file, no variable set). Machine: {os.cpu_count()} cores, load average (1 min) "
            f"{load_before:.1f} at the start, {load_after:.1f} at the end: CPU seconds move little with load, wall "
            "seconds a lot.", "",
            "| case | CPU s | answer | stderr |", "|---|---:|---|---|"]
    text += [f"| {case} | {cpu:.1f} | {_cell(line, tmp)} | {_cell(notice, tmp)} |" for case, cpu, line, notice in rows]
    text += ["", "Before issue 49 numba keyed the cache by the source file's folder: a second install path "
             "paid the cold cost again (24.8 s of CPU against 2.8 s warm, measured on 31700b5), and with "
             "the package and home read-only the count failed (`cannot cache function '_next': no locator "
             "available`).", "",
             "Issue 50: the stderr column is what the command says when it is about to compile "
             "(`harness.core.jitcache.announce`; nothing when the cache is warm); `battlebench prepare` pays the "
             "compilation of every kernel (all of count's programmes with their marginals, and optimal play's "
             "search) ahead of time, and the count after it costs what a warm count costs.", ""]
    (out / "summary.md").write_text("\n".join(text))
    print(f"wrote {out / 'summary.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
