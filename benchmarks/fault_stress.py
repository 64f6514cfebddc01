"""Faults injected into campaigns on real clusters, counted: runs missing, stored twice, lost; processes left.

    python benchmarks/fault_stress.py --faults 20 --out reports/fault-stress

Each kind of fault runs one campaign of ``fake`` runs (``mode = "sleep"``: a run that takes wall time and holds a
worker) on a cluster of separate processes started here, and injects ``--faults`` faults of that kind:

* ``dask-worker``: a ``dask scheduler`` (``allowed-failures`` 0) and two ``dask worker`` processes under nannies;
  a Dask worker with a run in hand is SIGKILLed, the next once its nanny has started it again, until
  ``--faults`` kills; the campaign's ``retries`` is high, so every run ends measured;
* ``dask-scheduler``: the same cluster with its scheduler at a fixed port; the scheduler is SIGKILLed while runs
  are in flight, its workers left to close themselves, and a new scheduler and workers started at the same
  address, ``--faults`` times; the runner waits for it (it waits 60 s) and executes again the runs it took;
* ``runner``: the same cluster; ``battlebench run`` itself is SIGKILLed once the store has grown since its
  start, and the same command started again, ``--faults`` times, then left to finish;
* ``slurm``: a one-node SLURM (``scripts/slurm-one-node``); ``run --executor slurm`` with the first task of each
  pass cancelled (``scancel``) as soon as it is submitted, ``--faults`` passes, then one left alone.

Every process started here carries a marker in its environment (inherited by everything they start: workers,
runs, SLURM jobs); after each kind its cluster is stopped and the processes still carrying the marker are
counted.  The final store is read: planned runs, stored runs (one row per run id: the store's key), runs never
stored (missing), runs stored as lost, and executions beyond one per run where they can be told.  Writes
``summary.md`` and ``faults.csv`` to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DASK = Path(sys.executable).with_name("dask")
MARKER = "BB_FAULT_STRESS"


@dataclass
class Outcome:
    kind: str
    faults: int = 0
    planned: int = 0
    stored: int = 0
    missing: int = 0
    lost: int = 0
    twice: int = 0  # run ids stored more than once (the store's primary key should make this 0)
    left: int = 0  # processes carrying the marker after the cluster was stopped
    exit_code: int | None = None
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def census(marker: str) -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if f"{MARKER}={marker}".encode() not in fh.read():
                    continue
            with open(f"/proc/{entry}/comm") as fh:
                found[int(entry)] = fh.read().strip()
        except OSError:
            continue
    return found


def settle(marker: str, within: float = 60.0) -> dict[int, str]:
    end = time.monotonic() + within
    left = census(marker)
    while left and time.monotonic() < end:
        time.sleep(0.2)
        left = census(marker)
    return left


def config(where: Path, name: str, runs: int, seconds: float, extra: str = "") -> Path:
    cfg = where / f"{name}.toml"
    smoke = ROOT / "instances" / "smoke"
    files = ", ".join(f'"{smoke / n}"' for n in ("tiny_4x4.toml", "nonsquare_4x6.toml"))
    cfg.write_text(f'name = "{name}"\ninstances = [{files}]\nrepetitions = {max(1, runs // 2)}\n'
                   f'output = "{where / "out"}"\n{extra}[limits]\ntime_s = 60\n[[pairs]]\nbackend = "fake"\n'
                   f'options = {{ mode = "sleep", seconds = {seconds} }}\n')
    return cfg


def judge(out: Outcome, store_dir: Path) -> None:
    db = sqlite3.connect(f"file:{store_dir / 'results.sqlite'}?mode=ro", uri=True)
    try:
        planned = {r[0] for r in db.execute("SELECT run_id FROM planned_runs")}
        rows = db.execute("SELECT run_id, status FROM runs").fetchall()
    finally:
        db.close()
    ids = [r[0] for r in rows if r[0] in planned]
    out.planned, out.stored = len(planned), len(set(ids))
    out.twice = len(ids) - len(set(ids))
    out.missing = len(planned - set(ids))
    out.lost = sum(1 for r in rows if r[1] == "lost")


def run_cmd(cfg: Path, env: dict, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "harness.cli", "run", str(cfg), "--progress", "plain",
                             "--interval", "60", *extra], env=env, cwd=cfg.parent,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def ended(proc: subprocess.Popen, within: float) -> None:
    """Wait ``within`` seconds for ``proc`` to end, then SIGKILL it."""
    try:
        proc.wait(within)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class DaskCluster:
    """A scheduler and ``workers`` single-threaded workers under nannies, as processes of their own (the
    scheduler at ``port``, or at one it picks)."""

    def __init__(self, where: Path, env: dict, workers: int = 2, port: int = 0):
        self.where, self.workers, self.port = where, workers, port
        self.env = dict(env, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")
        self.procs: list[subprocess.Popen] = []
        self.start()

    def start(self) -> None:
        from distributed import Client

        file = self.where / "scheduler.json"
        file.unlink(missing_ok=True)
        common = dict(env=self.env, cwd=self.where, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(subprocess.Popen([str(DASK), "scheduler", "--scheduler-file", str(file), "--host",
                                            "127.0.0.1", "--port", str(self.port), "--dashboard-address",
                                            "127.0.0.1:0"], **common))
        while not file.exists():
            time.sleep(0.1)
        self.procs.append(subprocess.Popen([str(DASK), "worker", "--scheduler-file", str(file), "--nthreads", "1",
                                            "--nworkers", str(self.workers), "--host", "127.0.0.1",
                                            "--no-dashboard", "--memory-limit", "0"], **common))
        self.client = Client(scheduler_file=str(file), timeout="60s")
        self.client.wait_for_workers(self.workers, timeout=300)
        self.address = self.client.scheduler.address

    def kill_scheduler(self) -> None:
        """SIGKILL of the scheduler; returns once its workers (which close themselves on losing it) are gone."""
        scheduler, workers = self.procs[-2:]
        self.client.close()
        scheduler.kill()
        scheduler.wait()
        ended(workers, 120)

    def busy_worker_pid(self) -> int | None:
        busy = [addr for addr, keys in self.client.processing().items() if keys]
        if not busy:
            return None
        addr = random.choice(busy)
        return self.client.run(os.getpid, workers=[addr]).get(addr)

    def close(self) -> None:
        self.client.close()
        for proc in reversed(self.procs):
            proc.terminate()
            ended(proc, 30)


def dask_faults(where: Path, faults: int, runs: int, out: Outcome, env: dict, name: str, inject, port: int = 0) -> None:
    """A campaign on a :class:`DaskCluster`; while it runs, ``inject(cluster, out)`` every 0.3-1.2 s (True: it
    injected a fault) until ``faults`` were injected."""
    cluster = DaskCluster(where, env, port=port)
    try:
        cfg = config(where, name, runs, 1.0,
                     f'executor = "dask"\nscheduler = "{cluster.address}"\njobs = 2\nretries = {faults + 5}\n')
        proc = run_cmd(cfg, env)
        while proc.poll() is None and out.faults < faults:
            time.sleep(random.uniform(0.3, 1.2))  # into a run
            out.faults += bool(inject(cluster, out))
        proc.communicate()
        out.exit_code = proc.returncode
        if out.faults < faults:
            out.notes.append(f"the campaign ended after {out.faults} kills (more runs would allow more)")
    finally:
        cluster.close()


def kill_a_busy_worker(cluster: DaskCluster, out: Outcome) -> bool:
    pid = cluster.busy_worker_pid()
    if pid is None:
        return False
    os.kill(pid, signal.SIGKILL)
    try:
        cluster.client.wait_for_workers(cluster.workers, timeout=120)  # its nanny starts it again
    except TimeoutError:
        out.notes.append("a worker did not come back within 120 s")
    return True


def kill_the_scheduler(cluster: DaskCluster, out: Outcome) -> bool:
    if not any(cluster.client.processing().values()):
        return False
    cluster.kill_scheduler()
    cluster.start()  # at the same address, within the runner's 60 s
    return True


def dask_worker_kills(where: Path, faults: int, runs: int, out: Outcome, env: dict) -> None:
    dask_faults(where, faults, runs, out, env, "fault-dask-worker", kill_a_busy_worker)


def dask_scheduler_kills(where: Path, faults: int, runs: int, out: Outcome, env: dict) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dask_faults(where, faults, runs, out, env, "fault-dask-scheduler", kill_the_scheduler, port=port)


def stored_now(store_dir: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{store_dir / 'results.sqlite'}?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT count(*) FROM runs").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def runner_kills(where: Path, faults: int, runs: int, out: Outcome, env: dict) -> None:
    cluster = DaskCluster(where, env)
    try:
        cfg = config(where, "fault-runner", runs, 0.5,
                     f'executor = "dask"\nscheduler = "{cluster.address}"\njobs = 2\n')
        while out.faults < faults:
            before = stored_now(where / "out")
            proc = run_cmd(cfg, env)
            while proc.poll() is None and stored_now(where / "out") <= before:
                time.sleep(0.1)
            time.sleep(random.uniform(0.0, 1.0))
            if proc.poll() is not None:
                out.notes.append(f"the campaign finished after {out.faults} runner kills")
                break
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            out.faults += 1
        proc = run_cmd(cfg, env)
        proc.communicate()
        out.exit_code = proc.returncode
    finally:
        cluster.close()


def slurm_cancels(where: Path, faults: int, runs: int, out: Outcome, env: dict) -> None:
    if not all(shutil.which(e) for e in ("slurmctld", "slurmd", "munged", "sbatch")) or os.geteuid() != 0:
        out.notes.append("not run: SLURM is not installed here, or this is not root")
        return
    env = dict(env, SLURM_ONE_NODE_PORT="16917")
    script = ROOT / "scripts" / "slurm-one-node"
    started = subprocess.run([str(script), "start", str(where / "slurm")], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        out.notes.append(f"not run: the one-node cluster did not start: {started.stderr.strip()[-300:]}")
        return
    env["SLURM_CONF"] = str(where / "slurm" / "slurm.conf")
    try:
        cfg = config(where, "fault-slurm", max(4, runs // 10), 0.2, f"jobs = 2\nretries = {faults + 2}\n")
        code = ("import sys, subprocess\n"
                "from harness.cli import main\n"
                "from harness.runner import slurm\n"
                "real, left = slurm.submit_shards, [int(sys.argv[2])]\n"
                "def cancel_first(*a, **k):\n"
                "    jobs = real(*a, **k)\n"
                "    if left[0] > 0:\n"
                "        left[0] -= 1\n"
                "        subprocess.run(['scancel', jobs[0].job_id], check=True)\n"
                "        print('fault: cancelled', jobs[0].job_id, file=sys.stderr, flush=True)\n"
                "    return jobs\n"
                "slurm.submit_shards = cancel_first\n"
                "sys.exit(main(['run', sys.argv[1], '--executor', 'slurm']))\n")
        proc = subprocess.run([sys.executable, "-c", code, str(cfg), str(faults)], env=env, cwd=where,
                              capture_output=True, text=True)
        out.faults = proc.stderr.count("fault: cancelled")
        out.exit_code = proc.returncode
    finally:
        subprocess.run([str(script), "stop", str(where / "slurm")], env=env, capture_output=True)


KINDS = {"dask-worker": dask_worker_kills, "dask-scheduler": dask_scheduler_kills, "runner": runner_kills,
         "slurm": slurm_cancels}


def run_kind(kind: str, where: Path, faults: int, runs: int) -> Outcome:
    """One kind of fault (:data:`KINDS`) with its own marker; then its store judged and the processes left counted."""
    out, marker = Outcome(kind), uuid.uuid4().hex
    t0 = time.perf_counter()
    KINDS[kind](where, faults, runs, out, dict(os.environ, **{MARKER: marker}))
    out.wall_s = time.perf_counter() - t0
    if (where / "out" / "results.sqlite").exists():
        judge(out, where / "out")
    out.left = len(settle(marker))
    return out


def summary(outcomes: list[Outcome], faults: int, runs: int) -> str:
    lines = ["# Faults injected into campaigns on real clusters", "",
             f"`python benchmarks/fault_stress.py --faults {faults} --runs {runs}` on "
             f"{os.uname().nodename} ({os.cpu_count()} cores), {time.strftime('%Y-%m-%d')}. Each kind: one campaign "
             "of `fake` sleep runs on a cluster of separate processes started by the script (see its docstring); "
             "`left` counts the processes that still carry the script's marker once the cluster is stopped.", "",
             "| fault | injected | planned runs | stored once | missing | stored twice | lost | processes left "
             "| exit code | wall s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        lines.append(f"| {o.kind} | {o.faults} | {o.planned} | {o.stored} | {o.missing} | {o.twice} | {o.lost} "
                     f"| {o.left} | {o.exit_code} | {o.wall_s:.0f} |")
    notes = [f"- {o.kind}: {n}" for o in outcomes for n in o.notes]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", type=int, default=20)
    parser.add_argument("--runs", type=int, default=200, help="runs of each Dask kind's campaign (SLURM: a tenth)")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--work", default="results/fault-stress", help="where the clusters and stores go")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    outcomes = []
    for kind in args.kinds.split(","):
        where = Path(args.work).resolve() / kind
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        outcomes.append(run_kind(kind, where, args.faults, args.runs))
        print(summary(outcomes[-1:], args.faults, args.runs).splitlines()[-1], flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text(summary(outcomes, args.faults, args.runs))
    with open(out / "faults.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["fault", "injected", "planned", "stored_once", "missing", "stored_twice", "lost",
                         "processes_left", "exit_code", "wall_s"])
        for o in outcomes:
            writer.writerow([o.kind, o.faults, o.planned, o.stored, o.missing, o.twice, o.lost, o.left,
                             o.exit_code, f"{o.wall_s:.1f}"])
    return 0 if all(o.missing == o.twice == o.left == 0 and o.faults >= args.faults for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
