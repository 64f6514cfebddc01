"""What the Dask and SLURM executors cost over the local one: the CPU of one campaign run each way, side by side.

    python benchmarks/executor_cost.py configs/main.toml --out reports/executor-cost

The config's campaign is run fresh with each executor, one after another on this machine: ``local`` (``--jobs
1``), ``dask`` (``--scheduler local``: a LocalCluster of ``--jobs`` workers the runner starts) and ``slurm``
(``--executor slurm`` on the one-node cluster of ``scripts/slurm-one-node``, started here; skipped without it).
Each command's CPU is everything it and its processes used: this script is their subreaper (PR_SET_CHILD_SUBREAPER),
so the workers the cluster's processes leave come back to it and are reaped, and their CPU counts in its
children's rusage; for SLURM, whose tasks run under slurmd, the CPU the tasks report (the command prints it) is
added to the submitting command's own.  The one-node SLURM is started before the script becomes a subreaper, so
its daemons (and the ``slurmstepd`` they daemonize for each job, which would bring the tasks' CPU here a second
time) are not its children.  Beside it, the runs' own CPU (the records' ``cpu_s``, the solvers' work)
and what is left, the executor's cost.  The same with a one-run campaign gives each executor's fixed start cost.
``--repeat N`` runs the executors in turn N times (local, dask, slurm, local, ...), so that a drift of the
machine falls on all of them; the summary gives each one's median.  Writes ``summary.md`` and ``costs.csv``
(every command) to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from harness.core.proctree import children  # noqa: E402


def subreaper() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER


def reap_all(within: float = 120.0) -> None:
    """Reap every child that ended, until none is left (the cluster's orphans, which come to this subreaper), or
    ``within`` seconds."""
    end = time.monotonic() + within
    while True:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                break
        if not children(os.getpid()) or time.monotonic() > end:
            return
        time.sleep(0.2)


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def runs_cpu(out: Path) -> tuple[int, float]:
    db = sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True)
    try:
        n, cpu = db.execute("SELECT count(*), coalesce(sum(cpu_s), 0) FROM runs").fetchone()
    finally:
        db.close()
    return int(n), float(cpu)


def one(config: str, executor: str, out: Path, jobs: int, env: dict) -> dict:
    extra = {"local": ["--executor", "local", "--jobs", "1"],
             "dask": ["--executor", "dask", "--scheduler", "local", "--jobs", str(jobs)],
             "slurm": ["--executor", "slurm", "--jobs", str(jobs)]}[executor]
    before, t0 = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", config, "--fresh", "--out", str(out),
                           "--progress", "plain", "--interval", "600", *extra], env=env, capture_output=True,
                          text=True)
    wall = time.perf_counter() - t0
    reap_all()  # what the cluster's processes left behind came to this subreaper
    cpu = children_cpu() - before
    remote = re.search(r"slurm: the tasks that ended used ([0-9.]+) CPU s", done.stderr)
    if remote:
        cpu += float(remote.group(1))
    runs, run_cpu = runs_cpu(out)
    return {"executor": executor, "exit_code": done.returncode, "runs": runs, "command_cpu_s": round(cpu, 2),
            "runs_cpu_s": round(run_cpu, 2), "executor_cpu_s": round(cpu - run_cpu, 2), "wall_s": round(wall, 1)}


def medians(rows: list[dict]) -> list[dict]:
    """One row per (campaign, executor), in first-seen order: the median of each number over its repetitions."""
    import statistics

    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["campaign"], r["executor"]), []).append(r)
    out = []
    for (campaign, executor), rs in groups.items():
        row = {"campaign": campaign, "executor": executor, "repetitions": len(rs)}
        for key in ("exit_code", "runs", "command_cpu_s", "runs_cpu_s", "executor_cpu_s", "wall_s"):
            values = [r[key] for r in rs]
            row[key] = max(values) if key == "exit_code" else statistics.median(values)
        out.append(row)
    return out


def tiny_config(where: Path) -> Path:
    cfg = where / "one-run.toml"
    cfg.write_text(f'name = "one-run"\ninstances = ["{ROOT / "instances" / "smoke" / "tiny_4x4.toml"}"]\n'
                   'task = { kind = "count", k = 2 }\n[limits]\ntime_s = 60\n[[pairs]]\nbackend = "sat"\n')
    return cfg


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--jobs", type=int, default=1, help="Dask workers / SLURM shards")
    parser.add_argument("--executors", default="local,dask,slurm")
    parser.add_argument("--repeat", type=int, default=1, help="each executor's runs, taken in turn")
    parser.add_argument("--work", default="results/executor-cost")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ)
    executors = args.executors.split(",")
    script = ROOT / "scripts" / "slurm-one-node"
    slurm_up = False
    if "slurm" in executors:
        env["SLURM_ONE_NODE_PORT"] = "16937"
        started = subprocess.run([str(script), "start", str(work / "slurm")], env=env, capture_output=True,
                                 text=True)
        slurm_up = started.returncode == 0
        if slurm_up:
            env["SLURM_CONF"] = str(work / "slurm" / "slurm.conf")
        else:
            executors.remove("slurm")
    subreaper()  # after SLURM's daemons started: its jobs' slurmstepd are not orphaned to this script
    rows = []
    try:
        for label, config in (("campaign", args.config), ("one run", str(tiny_config(work)))):
            for rep in range(1, args.repeat + 1):
                for executor in executors:
                    row = one(config, executor, work / f"{label.replace(' ', '-')}-{executor}", args.jobs, env)
                    rows.append({"campaign": label, "repetition": rep, **row})
                    print(rows[-1], flush=True)
    finally:
        if slurm_up:
            subprocess.run([str(script), "stop", str(work / "slurm")], env=env, capture_output=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "costs.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    rows = medians(rows)
    base = {r["campaign"]: r for r in rows if r["executor"] == "local"}
    lines = ["# What the Dask and SLURM executors cost over the local one", "",
             f"`python benchmarks/executor_cost.py {args.config} --jobs {args.jobs} --repeat {args.repeat}` on "
             f"{os.uname().nodename} ({os.cpu_count()} cores), {time.strftime('%Y-%m-%d')}; each executor's run fresh, "
             f"the executors in turn, {args.repeat} time{'s' if args.repeat != 1 else ''} each (medians; every "
             "command in `costs.csv`). CPU seconds of everything each command ran (the script is its subreaper; "
             "SLURM: plus what its tasks reported), the runs' own CPU (records' `cpu_s`) and the difference, the "
             "executor's cost.", "",
             "| campaign | executor | runs | exit code | command CPU s | runs' CPU s | executor CPU s | CPU / local "
             "| wall s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = r["command_cpu_s"] / base[r["campaign"]]["command_cpu_s"]
        lines.append(f"| {r['campaign']} | {r['executor']} | {r['runs']:g} | {r['exit_code']} | "
                     f"{r['command_cpu_s']:.2f} | {r['runs_cpu_s']:.2f} | {r['executor_cpu_s']:.2f} | {ratio:.3f} "
                     f"| {r['wall_s']:.1f} |")
    by = {(r["campaign"], r["executor"]): r for r in rows}
    lines += ["", "Fixed start cost (the one-run campaign's command CPU beyond the local executor's) and the cost per "
              "further run (the campaign's command CPU beyond the one-run campaign's, less the runs' own CPU, per run):",
              "", "| executor | fixed start CPU s over local | CPU s per further run |", "|---|---|---|"]
    for executor in executors:
        one_run, campaign = by.get(("one run", executor)), by.get(("campaign", executor))
        if one_run is None or campaign is None or campaign["runs"] <= one_run["runs"]:
            continue
        fixed = one_run["command_cpu_s"] - by[("one run", "local")]["command_cpu_s"]
        per_run = ((campaign["executor_cpu_s"] - one_run["executor_cpu_s"])
                   / (campaign["runs"] - one_run["runs"]))
        lines.append(f"| {executor} | {fixed:.2f} | {per_run:.3f} |")
    if "slurm" not in executors:
        lines += ["", "SLURM: not measured (no one-node cluster could be started here)."]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
