"""Two engines for a campaign on SLURM, side by side: submitit job arrays (``--executor slurm``) and dask-jobqueue.

    python benchmarks/slurm_engines.py configs/main.toml --jobs 2 --repeat 3 --out reports/slurm-engines

On the one-node cluster of ``scripts/slurm-one-node`` (started and stopped here), the config's campaign is run
fresh with each engine in turn, ``--repeat`` times:

* ``submitit``: ``battlebench run CONFIG --executor slurm --jobs N``: N array tasks, one shard each (the local
  executor on the node), their stores merged;
* ``dask-jobqueue``: a ``SLURMCluster`` of N single-core jobs, each a Dask worker, and the campaign driven by the
  Dask executor (one task per run) from this machine's client.

For each: the wall time from the command's start to the merged store, the time until the first run's record
could start (the jobs' start: the array's first task, the first worker joined), and the CPU seconds on both sides
-- the submitting process and what it waited for (its rusage), and on the nodes what the tasks or Dask workers and
every process they waited for used (submitit: the tasks report it, ``ShardResult.cpu_s``; Dask: each worker's
rusage, self and children, and its living descendants' CPU from /proc -- the warm run workers -- read by
``client.run`` before it is closed), beside the runs' own CPU (the records'
``cpu_s``).  The records' facts (instance, pair, status, answer, count, verdict) are compared with a local run's.
Writes ``summary.md`` and ``engines.csv`` to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "slurm-one-node"


def facts(out: Path) -> dict:
    db = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT run_id, instance, pair, status, answer, count, verdict FROM runs").fetchall()
        cpu = db.execute("SELECT coalesce(sum(cpu_s), 0) FROM runs").fetchone()[0]
    finally:
        db.close()
    return {"facts": {r[0]: r[1:] for r in rows}, "runs_cpu_s": float(cpu)}


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def by_submitit(config: str, out: Path, jobs: int, env: dict) -> dict:
    before, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", config, "--executor", "slurm", "--jobs",
                           str(jobs), "--fresh", "--out", str(out)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    remote = re.search(r"slurm: the tasks that ended used ([0-9.]+) CPU s", done.stderr)
    first = _first_start(out)
    return {"exit_code": done.returncode, "wall_s": wall, "local_cpu_s": _children_cpu() - before,
            "remote_cpu_s": float(remote.group(1)) if remote else float("nan"),
            "first_start_s": first - t0 if first is not None else float("nan")}


def _first_start(out: Path) -> float | None:
    """perf_counter time of the earliest record's start (records keep ISO times: converted through now)."""
    from datetime import datetime

    db = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True)
    try:
        first = db.execute("SELECT min(started_at) FROM runs").fetchone()[0]
    finally:
        db.close()
    if not first:
        return None
    ago = time.time() - datetime.fromisoformat(first).timestamp()
    return time.perf_counter() - ago


DASK_DRIVER = r'''
import json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from dask_jobqueue import SLURMCluster
from distributed import Client
from harness.runner.config import load_config
from harness.runner.dask import DaskExecutor
from harness.runner.run import run_campaign, with_overrides

config_path, out, jobs, memory_mb, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cluster = SLURMCluster(cores=1, processes=1, memory=f"{memory_mb}MB", walltime="01:00:00", python=sys.executable,
                       log_directory=work, local_directory=work, scheduler_options={"host": "127.0.0.1"},
                       worker_extra_args=["--nthreads", "1"])
cluster.scale(jobs=jobs)
client = Client(cluster)
client.wait_for_workers(jobs, timeout=600)
joined = time.perf_counter() - t0
config = with_overrides(load_config(config_path), output=Path(out))

def used():
    """This Dask worker's CPU: its own, its reaped children's, and its living descendants' (the warm run
    workers its pools keep, with what they reaped), from /proc in clock ticks."""
    import os, resource
    from harness.core.proctree import descendants
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    total = s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
        except (OSError, ValueError):
            pass
    return total

executor = DaskExecutor(None, client=client, retries=config.retries)
outcome = run_campaign(config, fresh=True, executor=executor, summary=False, live=False)
remote = sum(client.run(used).values())
client.close()
cluster.close()
print(json.dumps({"joined_s": joined, "remote_cpu_s": remote, "exit_code": outcome.exit_code}))
'''


def by_dask_jobqueue(config: str, out: Path, jobs: int, env: dict, work: Path, memory_mb: int) -> dict:
    before, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-c", DASK_DRIVER, config, str(out), str(jobs), str(memory_mb),
                           str(work)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    try:
        said = __import__("json").loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise SystemExit(f"dask-jobqueue driver failed:\n{done.stderr[-3000:]}") from None
    return {"exit_code": said["exit_code"], "wall_s": wall, "local_cpu_s": _children_cpu() - before,
            "remote_cpu_s": said["remote_cpu_s"], "first_start_s": said["joined_s"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--work", default="results/slurm-engines")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, SLURM_ONE_NODE_PORT="16957")
    started = subprocess.run([str(SCRIPT), "start", str(work / "slurm")], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        subprocess.run([str(SCRIPT), "stop", str(work / "slurm")], env=env, capture_output=True)
        raise SystemExit(f"the one-node cluster did not start: {started.stderr[-500:]}")
    env["SLURM_CONF"] = str(work / "slurm" / "slurm.conf")
    import tomllib

    memory_mb = int(tomllib.loads(Path(args.config).read_text()).get("limits", {}).get("memory_mb", 4096)) + 1024
    local = work / "local"
    subprocess.run([sys.executable, "-m", "harness.cli", "run", args.config, "--fresh", "--out", str(local),
                    "--progress", "plain", "--interval", "600"], env=env, capture_output=True, text=True)
    want = facts(local)["facts"]
    rows = []
    try:
        for rep in range(1, args.repeat + 1):
            for engine in ("submitit", "dask-jobqueue"):
                out = work / engine
                shutil.rmtree(out, ignore_errors=True)
                got = (by_submitit(args.config, out, args.jobs, env) if engine == "submitit"
                       else by_dask_jobqueue(args.config, out, args.jobs, env, work / "jobqueue", memory_mb))
                seen = facts(out)
                rows.append({"engine": engine, "repetition": rep, **{k: round(v, 3) if isinstance(v, float) else v
                                                                      for k, v in got.items()},
                             "runs": len(seen["facts"]), "runs_cpu_s": round(seen["runs_cpu_s"], 3),
                             "same_as_local": int(seen["facts"] == want)})
                print(rows[-1], flush=True)
    finally:
        subprocess.run([str(SCRIPT), "stop", str(work / "slurm")], env=env, capture_output=True)
    outdir = Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    with open(outdir / "engines.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["# Two engines for a campaign on SLURM: submitit job arrays and dask-jobqueue", "",
             f"`python benchmarks/slurm_engines.py {args.config} --jobs {args.jobs} --repeat {args.repeat}` on "
             f"{os.uname().nodename} ({os.cpu_count()} cores; the one-node SLURM of scripts/slurm-one-node), "
             f"{time.strftime('%Y-%m-%d')}; the engines in turn, medians over the repetitions (every one in "
             "`engines.csv`). `start`: seconds from the command's start to the first run's start (submitit) or to "
             "every worker joined (dask-jobqueue). CPU: the submitting side (its rusage) and the nodes' (the "
             "tasks' or workers' rusage with what they waited for), beside the runs' own (records' `cpu_s`).", "",
             "| engine | runs | same records as local | exit code | wall s | start s | submitting CPU s | nodes' CPU s "
             "| runs' CPU s | engine CPU s (all − runs') |", "|---|---|---|---|---|---|---|---|---|---|"]
    for engine in ("submitit", "dask-jobqueue"):
        rs = [r for r in rows if r["engine"] == engine]

        def med(key: str, rs: list[dict] = rs) -> float:
            return statistics.median(r[key] for r in rs)

        engine_cpu = med("local_cpu_s") + med("remote_cpu_s") - med("runs_cpu_s")
        lines.append(f"| {engine} | {med('runs'):g} | {sum(r['same_as_local'] for r in rs)} of {len(rs)} | "
                     f"{max(r['exit_code'] for r in rs)} | {med('wall_s'):.1f} | {med('first_start_s'):.1f} | "
                     f"{med('local_cpu_s'):.2f} | {med('remote_cpu_s'):.2f} | {med('runs_cpu_s'):.2f} | "
                     f"{engine_cpu:.2f} |")
    (outdir / "summary.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
