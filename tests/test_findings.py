"""The five findings of issue 14, each reproduced as a user meets it: `battlebench` commands in subprocesses.

Each test failed on the code before the fix (commit ea5920f): `check` passed empty,
incomplete, interrupted and failed stores; `run` exited 0 with error runs and never showed
their messages; an interrupted campaign's report crowned the pair that happened to run
first; a damaged store gave `report` a traceback and `check` / `export` exit 0; winners
were named from millisecond timings, and `check --baseline` called machine load a
slowdown.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from damage import DAMAGES
from fakecampaign import GOOD
from harness.puzzle.formats import write_instance
from harness.puzzle.instance import Instance
import procs

REPO = Path(__file__).resolve().parents[1]


def battlebench(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return procs.run([sys.executable, "-m", "harness.cli", *map(str, args)], capture_output=True,
                     text=True, cwd=kw.pop("cwd", REPO), env=env, **kw)


def good_suite(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(1, n + 1):
        inst = Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1),
                        name=f"i{i}", meta={"fake_boards": [GOOD]})
        write_instance(inst, folder / f"i{i}.toml", "native")


def config(tmp: Path, pairs: list[str], *, instances: str = '["inst"]', n: int = 3, extra: str = "") -> Path:
    good_suite(tmp / "inst", n)
    text = f'name = "f"\ninstances = {instances}\noutput = "out"\n{extra}\n[limits]\ntime_s = 20\ngrace_s = 1\n'
    text += "".join(f"[[pairs]]\n{p}\n" for p in pairs)
    path = tmp / "c.toml"
    path.write_text(text)
    return path


FAST = 'backend = "fake"\nformulation = "cell"'
SLOW = 'backend = "fake"\noptions = { mode = "spin", seconds = 0.15 }'  # 0.15 s of CPU: slow by any measure


def delete_rows(out: Path, where: str) -> None:
    conn = sqlite3.connect(out / "results.sqlite")
    conn.execute(f"DELETE FROM runs WHERE {where}")
    conn.commit()
    conn.close()


def copy(out: Path, to: Path) -> Path:
    shutil.copytree(out, to)
    return to


def one_line_naming(stderr: str, what: str) -> bool:
    lines = stderr.strip().splitlines()
    return len(lines) == 1 and what in lines[0] and "Traceback" not in stderr


# -- 1. check passed stores that prove nothing ------------------------------------------------


def test_1_check_fails_on_empty_incomplete_interrupted_and_failed_stores(tmp_path):
    cfg = config(tmp_path, [FAST, FAST.replace("cell", "placement")])
    assert battlebench("run", cfg, "--progress", "plain").returncode == 0
    out = tmp_path / "out"
    ok = battlebench("check", out)
    assert ok.returncode == 0, ok.stdout  # the gate can pass

    deleted = copy(out, tmp_path / "deleted")
    delete_rows(deleted, "rowid IN (1, 2)")
    res = battlebench("check", deleted)
    assert res.returncode == 1 and "2 of 6 planned runs are missing" in res.stdout, res.stdout
    assert battlebench("check", deleted, "--allow-incomplete").returncode == 0  # a deliberate partial check

    empty = copy(out, tmp_path / "empty")
    delete_rows(empty, "1")
    res = battlebench("check", empty, "--allow-incomplete")
    assert res.returncode == 1 and "no runs stored" in res.stdout, res.stdout

    # an interrupted campaign (Ctrl-C after the first run is stored)
    slow = config(tmp_path / "slow", [SLOW], n=6)
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "run", str(slow), "--progress", "plain"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(REPO)),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    db = tmp_path / "slow" / "out" / "results.sqlite"
    procs.wait_until(lambda: db.exists() and _rows(db) >= 1, proc)
    proc.send_signal(signal.SIGINT)
    procs.communicate(proc)
    assert proc.returncode == 130
    res = battlebench("check", tmp_path / "slow" / "out")
    assert res.returncode == 1 and "planned runs are missing" in res.stdout, res.stdout

    # runs that ended in error (an instance file that does not parse)
    (tmp_path / "bad" / "inst").mkdir(parents=True)
    (tmp_path / "bad" / "inst" / "broken.toml").write_text("[size]\nrows = 3\ncols = -2\n")
    bad = config(tmp_path / "bad", [FAST])
    assert battlebench("run", bad, "--progress", "plain").returncode == 3
    res = battlebench("check", tmp_path / "bad" / "out")
    assert res.returncode == 1 and "1 run ended in error" in res.stdout and "broken.toml" in res.stdout
    assert battlebench("check", tmp_path / "bad" / "out", "--allow-errors").returncode == 0


def _rows(db: Path) -> int:
    try:
        conn = sqlite3.connect(db, timeout=1)
        try:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


# -- 2. run exited 0 on error runs and hid their messages -------------------------------------


def test_2_run_exits_3_on_error_runs_and_shows_their_messages(tmp_path):
    cfg = config(tmp_path, [FAST, FAST.replace("cell", "placement")],
                 instances='["inst", "missing-puzzle.toml"]')
    res = battlebench("run", cfg, "--progress", "plain")
    assert res.returncode == 3, res.stderr  # its own code: 1 is a wrong board
    assert "2 runs ended in error or memout, by message" in res.stderr
    assert "missing-puzzle.toml: cannot read: No such file or directory" in res.stderr
    assert "(e.g. missing-puzzle × fake/cell)" in res.stderr or "(e.g. missing-puzzle × fake/placement)" in res.stderr
    rep = battlebench("report", tmp_path / "out", "--out", tmp_path / "rep")
    assert rep.returncode == 0, rep.stderr
    summary = (tmp_path / "rep" / "summary.md").read_text()
    assert "missing-puzzle.toml: cannot read" in summary
    assert "missing-puzzle.toml: cannot read" in (tmp_path / "rep" / "failures.csv").read_text()
    assert "missing-puzzle.toml: cannot read" in (tmp_path / "rep" / "index.html").read_text()


# -- 3. an interrupted campaign crowned the pair that ran first ------------------------------


def test_3_an_incomplete_campaign_says_so_and_ranks_on_complete_instances(tmp_path):
    cfg = config(tmp_path, [SLOW, FAST], n=5)  # the slow pair runs first on each instance
    assert battlebench("run", cfg, "--progress", "plain").returncode == 0
    out = tmp_path / "out"
    full = battlebench("report", out, "--out", tmp_path / "full")
    assert full.returncode == 0
    assert "fake/cell wins: 5/5 solved" in (tmp_path / "full" / "summary.md").read_text()
    # interrupted just before the fast pair's run on the last instance
    delete_rows(out, "instance = 'i5' AND pair = 'fake/cell'")
    assert battlebench("report", out, "--out", tmp_path / "part").returncode == 0
    text = (tmp_path / "part" / "summary.md").read_text()
    headline = next(line for line in text.splitlines() if line.startswith("**Headline.**"))
    assert "Incomplete: 9 of 10 runs (1 missing); pairs are ranked on the 4 of 5 instances every pair " \
           "has results on (left out: i5)." in headline
    assert "fake/cell wins: 4/4 solved" in headline and "5/5" not in headline


# -- 4. a damaged store gave a traceback, or passed ------------------------------------------


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_4_a_damaged_store_is_one_line_and_exit_2_for_every_command(tmp_path, damage):
    cfg = config(tmp_path, [FAST, FAST.replace("cell", "placement")], n=30)
    assert battlebench("run", cfg, "--progress", "plain").returncode == 0
    db = tmp_path / "out" / "results.sqlite"
    DAMAGES[damage](db)
    before = db.read_bytes()
    for args in (["check", tmp_path / "out"], ["report", tmp_path / "out", "--out", tmp_path / "rep"],
                 ["export", tmp_path / "out"], ["check", tmp_path / "out", "--allow-incomplete"],
                 ["run", cfg, "--progress", "plain"]):
        res = battlebench(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert one_line_naming(res.stderr, str(db)), (args, res.stderr)
        assert "campaign:" not in res.stderr  # run: refused before any run started
    assert db.read_bytes() == before  # nothing was written to the damaged file
    # as a baseline too
    ok = copy(tmp_path / "out", tmp_path / "copy")
    shutil.rmtree(ok)
    assert battlebench("run", cfg, "--progress", "plain", "--output", ok).returncode == 0
    res = battlebench("check", ok, "--baseline", tmp_path / "out")
    assert res.returncode == 2 and one_line_naming(res.stderr, str(db)), res.stderr


# -- 5. winners from timer noise; machine load read as slowdowns -----------------------------


def test_5a_millisecond_timings_name_no_winner(tmp_path):
    cfg = config(tmp_path, [FAST, FAST.replace("cell", "placement")], n=6)
    assert battlebench("run", cfg, "--progress", "plain").returncode == 0
    assert battlebench("report", tmp_path / "out", "--out", tmp_path / "rep").returncode == 0
    headline = next(line for line in (tmp_path / "rep" / "summary.md").read_text().splitlines()
                    if line.startswith("**Headline.**"))
    assert " wins" not in headline and "No single winner" in headline and "timer's resolution" in headline


def _pinned() -> None:
    os.sched_setaffinity(0, {0})


def test_5b_machine_load_is_no_slowdown_on_cpu_time(tmp_path):
    work = 'backend = "fake"\noptions = { mode = "work", iterations = 6000000 }'
    cfg = config(tmp_path, [work], n=3, extra="repetitions = 3\n")
    base = battlebench("run", cfg, "--progress", "plain", "--output", tmp_path / "base", preexec_fn=_pinned)
    assert base.returncode == 0, base.stderr
    # three busy processes on the same core, each in its own session (so the scheduler's autogroups
    # give each its own share): the runs get about a quarter of the core
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_pinned,
                             start_new_session=True) for _ in range(3)]
    try:
        loaded = battlebench("run", cfg, "--progress", "plain", "--output", tmp_path / "loaded",
                             preexec_fn=_pinned)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert loaded.returncode == 0, loaded.stderr
    on_wall = battlebench("check", tmp_path / "loaded", "--baseline", tmp_path / "base", "--time", "wall",
                          "--floor", "0.05", "--ratio", "1.5")
    assert on_wall.returncode == 1 and "slowdown" in on_wall.stdout, on_wall.stdout  # wall time: 2-4x
    on_cpu = battlebench("check", tmp_path / "loaded", "--baseline", tmp_path / "base", "--floor", "0.05",
                         "--ratio", "1.5")
    assert on_cpu.returncode == 0, on_cpu.stdout  # the default, CPU time: the same work
    assert "regression: none against" in on_cpu.stdout and "cpu time" in on_cpu.stdout


def test_4b_reading_a_store_left_by_a_killed_writer_changes_nothing_and_a_damaged_log_is_damage(tmp_path):
    from damage import damage_log, left_with_a_log

    db = left_with_a_log(tmp_path / "killed", runs=4)
    wal = db.with_name(db.name + "-wal")
    before = (db.read_bytes(), wal.read_bytes())
    for args in (["check", tmp_path / "killed"], ["report", tmp_path / "killed", "--out", tmp_path / "rep"],
                 ["export", tmp_path / "killed", "--out", tmp_path / "x.csv"]):
        res = battlebench(*args)
        assert res.returncode in (0, 1) and "Traceback" not in res.stderr, (args, res.stderr)
    assert (db.read_bytes(), wal.read_bytes()) == before  # the log is neither folded in nor deleted
    damage_log(db)
    before = (db.read_bytes(), wal.read_bytes())
    for args in (["check", tmp_path / "killed"], ["report", tmp_path / "killed", "--out", tmp_path / "rep"],
                 ["export", tmp_path / "killed"]):
        res = battlebench(*args)
        assert res.returncode == 2 and one_line_naming(res.stderr, "write-ahead log fails its checksum"), res.stderr
    assert (db.read_bytes(), wal.read_bytes()) == before
