"""What measuring one tool call costs in CPU: runexec's layer, the runexec command, the process path, interleaved.

    python benchmarks/runexec_cost.py --calls 50 --out reports/runexec-cost

Each call runs ``cadical`` on a tiny CNF (three variables) through the layer's own entry point
(:func:`harness.tools.run_measured` for runexec, :func:`harness.tools.run_tool` for the process path), with the
limits a run gives (10 s, 500 MB, a 1 MiB output cap).  The cost of measuring a call is the CPU this process and
its children used for it (``getrusage``: self and the children it waited for) less the CPU the layer reported for
the tool itself; printed per layer as the median and the mean over the calls, in milliseconds.  The first call of
each layer is left out of the figures (it pays one-off set-up: for runexec, the import of BenchExec and its
executor).  The ``runexec command`` leg is what the layer did before it kept a ``RunExecutor`` in the worker:
``python -m benchexec.runexecutor --no-container`` per call, started inside this process's cgroups (those the
runexec leg's first call made), its ``cputime=`` the tool's.  Needs runexec usable here for both runexec legs
(else only the process path is measured, and said).
Prints the figures and, with ``--out``, writes them to ``summary.md`` there.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _command(argv: list[str], work: Path):
    """One call by the runexec command line, as the layer made it before: its record, with the tool's CPU seconds."""
    from harness.tools.process import Ran

    said = subprocess.run([sys.executable, "-m", "benchexec.runexecutor", "--no-container", "--output",
                           str(work / "command-output.txt"), "--dir", str(work), "--timelimit", "10",
                           "--walltimelimit", "10", "--memlimit", str(500 * 1024 * 1024), "--", *argv],
                          capture_output=True, text=True, cwd=work).stdout
    values = dict(line.split("=", 1) for line in said.splitlines() if "=" in line)
    return Ran(int(values.get("returnvalue", "-1")), "", said[-200:], 0.0, float(values.get("cputime", "0s")[:-1]),
               False, layer="runexec")


def main(argv: list[str] | None = None) -> int:
    from harness.tools import run_measured, run_tool, unusable

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--tool", default="cadical")
    ap.add_argument("--out", type=Path, help="a folder for summary.md")
    args = ap.parse_args(argv)
    why = unusable()
    layers = {"process": lambda a, w: run_tool(a, 10.0, w, 500, 1 << 20)}
    if why is None:
        layers["runexec"] = lambda a, w: run_measured(a, 10.0, 500, w, 1 << 20)
        layers["runexec command"] = _command
    else:
        print(f"runexec not measured here: {why}")
    cost: dict[str, list[float]] = {name: [] for name in layers}
    wall: dict[str, list[float]] = {name: [] for name in layers}
    with tempfile.TemporaryDirectory(prefix="runexec-cost-") as tmp:
        work = Path(tmp)
        cnf = work / "tiny.cnf"
        cnf.write_text("p cnf 3 2\n1 -2 0\n2 3 0\n")
        argv_ = [args.tool, "-q", str(cnf)]
        for i in range(args.calls + 1):
            for name, call in layers.items():
                c0, t0 = _cpu(), time.perf_counter()
                ran = call(argv_, work)
                spent, took = _cpu() - c0, time.perf_counter() - t0
                if ran.returncode != 10:
                    raise SystemExit(f"{name}: {args.tool} did not say SAT (exit {ran.returncode}): {ran.stderr[:200]}")
                if i:
                    cost[name].append((spent - ran.cpu_s) * 1000)
                    wall[name].append(took * 1000)
    from harness.tools import benchexec_version

    out = "" if args.out is None else f" --out {args.out}"
    lines = ["# What measuring one tool call costs: runexec's RunExecutor, the runexec command, the process path", "",
             f"`python benchmarks/runexec_cost.py --calls {args.calls}{out}`: {args.calls} calls of `{args.tool}` on a "
             "three-variable CNF per layer, interleaved in one process (after one call each that is left out). "
             "The cost of measuring a call: this process's and its children's CPU (getrusage) less the tool's own, "
             f"as the layer reported it. BenchExec {benchexec_version()}.", "",
             "| layer | CPU of measuring a call, median (ms) | mean (ms) | wall per call, median (ms) |",
             "|---|---:|---:|---:|"]
    lines += [f"| {name} | {statistics.median(cost[name]):.1f} | {statistics.mean(cost[name]):.1f} | "
              f"{statistics.median(wall[name]):.1f} |" for name in layers]
    if why is not None:
        lines += ["", f"runexec not measured here: {why}."]
    lines.append("")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
