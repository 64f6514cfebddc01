"""What the harness costs against the bare solver, per backend family: CPU and wall, interleaved, in one session.

    python benchmarks/harness_cost.py --out reports/harness-cost

Three parts, all in one session so they share the machine's load (issue 50's targets):

1. **Harness against the bare solver** on the same instances, per family: ``minizinc`` (``minizinc --solver
   gecode`` on the backend's own ``.mzn`` and its data written as JSON), ``tool`` (``cadical`` on the CNF
   ``battlebench write`` writes; the harness measuring by runexec and, as ``tool-process``, by the process path),
   ``sat`` (a fresh Python solving the written CNF with the same python-sat solver), ``cpsat`` (a fresh Python
   solving the backend's own ``CpModelProto`` with its parameters, one worker), ``mip`` (highspy reading the
   written MPS), ``asp`` (the ``clingo`` binary on the written program).  ``cpmpy`` has no fair bare solver (it
   is a layer over the others) and is left out.  Three modes: *single* (one ``battlebench solve`` per instance
   against one bare command, the order alternating per instance), *command* (one ``battlebench solve`` over all
   the family's instances against the bare commands summed) and *campaign* (``battlebench run`` of a generated
   config: the whole process's CPU, and the store's per-run ``cpu_s``).
2. **The steps of a single-shot solve** of ``instances/smoke/tiny_4x4.toml`` (cpsat and sat): interpreter start,
   CLI imports, parser, the worker's start and imports (the runner's ``warmup_cpu_s``), then in a fresh process
   the solver imports, build, solve, verify, judge; and the whole command's CPU.
3. **Tool calls measured by runexec**: CPU per call beyond the tool's own, against the process path.

CPU is user + sys of the whole process tree (``os.wait4`` on the child: itself and every descendant it
waited for); wall beside it.  Children run with ``PYTHONDONTWRITEBYTECODE`` removed (bytecode cached, as on a
normal install) unless ``--no-bytecode``; one unmeasured call per family first writes the ``.pyc`` files.
Writes ``summary.md``, ``families.csv``, ``runs.csv``, ``steps.csv`` and ``runexec.csv`` to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "instances" / "smoke" / "tiny_4x4.toml"
FAMILIES = ("minizinc", "tool", "tool-process", "sat", "cpsat", "mip", "asp")
# Instances whose bare solve (one board) costs >= 1 s CPU here (piloted 2026-12-02); --instances overrides.
DEFAULT_INSTANCES = {  # piloted: each run's CPU through the harness (s), on 2 cores; committed files only
    "minizinc": ["instances/solbat/sb_12_12_5_0.toml", "instances/solbat/sb_12_12_6_0.toml",
                 "instances/solbat/sb_13_13_5_0.toml", "instances/solbat/sb_14_14_6_0.toml",
                 "instances/solbat/sb_13_13_5_1.toml"],  # bare 5.9 s for the five
    "tool": ["instances/solbat/sb_13_13_5_2.toml", "instances/solbat/sb_13_13_5_3.toml",
             "instances/solbat/sb_13_13_5_4.toml", "instances/solbat/sb_15_15_6_3.toml",
             "instances/solbat/sb_15_15_6_4.toml"],  # 3.1, 1.3, 1.3, 2.4, 2.2 s
    "sat": ["instances/solbat/sb_13_13_5_2.toml", "instances/solbat/sb_13_13_5_4.toml",
            "instances/solbat/sb_13_13_6_1.toml", "instances/solbat/sb_14_14_6_4.toml",
            "instances/solbat/sb_15_15_6_4.toml"],  # 1.9, 1.6, 1.8, 1.8, 2.2 s
    "cpsat": ["instances/large/large_30x20_h60_s100.toml", "instances/large/large_30x20_h120_s200.toml",
              "instances/large/large_30x20_h0_s0.toml"],  # 2.0, 1.8, 3.1 s
    "mip": ["instances/large/large_30x20_h60_s100.toml", "instances/large/large_30x20_h120_s200.toml"],  # 3.8, 4.8 s
    "asp": ["instances/solbat/sb_15_15_6_4.toml", "instances/solbat/sb_15_15_7_0.toml",
            "instances/solbat/sb_13_13_5_2.toml", "instances/large/large_30x20_h120_s200.toml"],  # 3.7, 2.1, 1.4, 2.2 s
}
DEFAULT_INSTANCES["tool-process"] = DEFAULT_INSTANCES["tool"]
BYTECODE = ("allowed (PYTHONDONTWRITEBYTECODE removed for the children; the .pyc files written by an unmeasured "
            "first call)", "not written (PYTHONDONTWRITEBYTECODE=1 for the children)")
TARGET_RATIO, TARGET_SINGLE_S, TARGET_CALL_MS, LONG_S = 1.1, 0.6, 30.0, 1.0


def child_env(bytecode: bool) -> dict[str, str]:
    env = dict(os.environ)
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")  # this checkout's harness, always
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def measured(argv: list[str], env: dict[str, str], timeout_s: float = 900.0) -> dict:
    """Run ``argv``; its CPU (user + sys of the whole tree it waited for, by ``os.wait4``), wall and output."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, start_new_session=True)
        deadline = t0 + timeout_s
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:  # the whole group: a solver's own children too
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.002)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return {"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall, "rc": proc.returncode,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def battlebench(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness.cli", *args]


# --------------------------------------------------------------------------- bare commands, one per family
class Family:
    """A family's harness side: the backend and its options on the command line."""

    def __init__(self, name: str, backend: str, options: dict[str, str] | None = None):
        self.name, self.backend, self.options = name, backend, dict(options or {})

    def solve_args(self) -> list[str]:
        args = ["solve", "-b", self.backend, "--json"]
        for k, v in self.options.items():
            args += ["-o", f"{k}={v}"]
        return args


FAMILY = {"minizinc": Family("minizinc", "minizinc"), "tool": Family("tool", "tool", {"tool": "cadical",
          "measure": "runexec"}), "tool-process": Family("tool-process", "tool", {"tool": "cadical",
          "measure": "process"}), "sat": Family("sat", "sat"), "cpsat": Family("cpsat", "cpsat"),
          "mip": Family("mip", "mip"), "asp": Family("asp", "asp")}

# The bare Python sides take one or more files: one process per file when the harness runs one, one process
# for all of them (the interpreter and the solver imported once) when the harness runs them in one command.
BARE_SAT = ("import sys\nfrom pysat.formula import CNF\nfrom pysat.solvers import Solver\n"
            "for path in sys.argv[2:]:\n"
            "    with Solver(name=sys.argv[1], bootstrap_with=CNF(from_file=path).clauses) as s:\n"
            "        print('sat' if s.solve() else 'unsat')\n")
# cp_model_helper, not cp_model: ortools' cp_model imports pandas (~0.4 s), which the harness does not.
BARE_CPSAT = ("import sys\nfrom ortools.sat.python import cp_model_helper as cmh\n"
              "class First(cmh.SolutionCallback):\n"
              "    def OnSolutionCallback(self):\n        self.StopSearch()\n"
              "for path in sys.argv[1:]:\n"
              "    proto = cmh.CpModelProto()\n    proto.parse_text_format(open(path).read())\n"
              "    p = cmh.SatParameters()\n"
              "    p.num_workers, p.random_seed, p.add_lp_constraints_lazily = 1, 0, True\n"
              "    p.enumerate_all_solutions = True\n"
              "    w = cmh.SolveWrapper()\n    w.set_parameters(p)\n    first = First()\n"
              "    w.add_solution_callback(first)\n    print(w.solve(proto).status)\n"
              "    w.clear_solution_callback(first)\n")
BARE_HIGHS = ("import sys, highspy\n"
              "for path in sys.argv[1:]:\n"
              "    h = highspy.Highs()\n    h.setOptionValue('output_flag', False)\n"
              "    h.setOptionValue('threads', 1)\n    h.setOptionValue('random_seed', 0)\n    h.readModel(path)\n"
              "    h.run()\n    print(h.modelStatusToString(h.getModelStatus()))\n")
IN_ONE_PROCESS = ("sat", "cpsat", "mip")
"""The families whose bare side is a Python script: in one command it solves all the files in one process."""


def _written(path: Path, fmt: str, work: Path, env: dict) -> Path:
    out = work / fmt
    got = measured(battlebench("write", str(path), "--format", fmt, "-f", "placement", "--out", str(out)), env)
    if got["rc"] != 0:
        raise RuntimeError(f"battlebench write --format {fmt} {path}: {got['stderr'].strip()[-200:]}")
    return out / f"{read_name(path)}.placement.{fmt}"


def read_name(path: Path) -> str:
    from harness.puzzle.formats import read_instance

    return read_instance(path).name


def _backend_of(path: Path, backend: str):
    from harness.model import build_model
    from harness.puzzle.formats import read_instance
    from harness.tasks.solve import ResolvedPair

    pair = ResolvedPair.of(backend, "placement")
    return pair.solver_class(build_model(read_instance(path)), "placement", pair.options), pair.options


def bare_command(fam: str, path: Path, work: Path, env: dict) -> list[str]:
    """The bare solver's command for ``path`` (its input file written into ``work``)."""
    py = sys.executable
    if fam == "minizinc":
        from minizinc.json import MZNJSONEncoder

        from harness.backends.minizinc import MZN_DIR

        solver, opts = _backend_of(path, "minizinc")
        data = {**solver._placement_data(), "NB": 0, "blocked": []}
        dest = work / f"{read_name(path)}.placement.json"
        dest.write_text(json.dumps(data, cls=MZNJSONEncoder))
        return ["minizinc", "--solver", opts["solver"], str(MZN_DIR / "placement.mzn"), str(dest)]
    if fam in ("tool", "tool-process"):
        return ["cadical", "-q", str(_written(path, "cnf", work, env))]
    if fam == "sat":
        _, opts = _backend_of(path, "sat")
        return [py, "-c", BARE_SAT, opts["solver"], str(_written(path, "cnf", work, env))]  # files last
    if fam == "cpsat":
        solver, _ = _backend_of(path, "cpsat")
        solver.build()
        dest = work / f"{read_name(path)}.placement.pb.txt"
        from ortools.sat.python import cp_model_helper as cmh

        cmh.CpSatHelper.write_model_to_file(solver.cp_model.proto, str(dest))  # a .txt name: text format
        return [py, "-c", BARE_CPSAT, str(dest)]
    if fam == "mip":
        return [py, "-c", BARE_HIGHS, str(_written(path, "mps", work, env))]
    if fam == "asp":
        clingo = shutil.which("clingo")
        if clingo is None:
            raise RuntimeError("no clingo binary on PATH")
        return [clingo, "--project=project", "--seed=0", "-q", str(_written(path, "asp", work, env)), "1"]
    raise ValueError(f"unknown family {fam!r}")


def bare_ok(fam: str, got: dict) -> bool:
    if fam in ("tool", "tool-process", "asp"):  # SAT-competition exit codes: 10 sat, 20 unsat
        return got["rc"] in (10, 20, 30)
    return got["rc"] == 0


# --------------------------------------------------------------------------- part 1: harness vs bare
def harness_records(got: dict) -> list[dict]:
    return [json.loads(line) for line in got["stdout"].splitlines() if line.startswith("{")]


def run_family(fam: str, paths: list[Path], modes: list[str], work: Path, env: dict, flip: bool) -> list[dict]:
    """Rows of runs.csv for one family: each mode's bare and harness measurements, interleaved."""
    f = FAMILY[fam]
    bare = {p: bare_command(fam, p, work, env) for p in [TINY, *paths]}
    measured(battlebench(*f.solve_args(), str(TINY)), env)  # unmeasured: bytecode, caches, first imports
    measured(bare[TINY], env)
    rows = []

    def row(mode: str, side: str, instance: str, got: dict, ok: bool, extra: dict | None = None) -> None:
        rows.append({"family": fam, "mode": mode, "side": side, "instance": instance,
                     "cpu_s": round(got["cpu_s"], 4), "wall_s": round(got["wall_s"], 4), "ok": ok,
                     "store_cpu_s": None, "warmup_s": None, **(extra or {})})

    def harness_single(p: Path, mode: str = "single") -> None:
        got = measured(battlebench(*f.solve_args(), str(p)), env)
        recs = harness_records(got)
        row(mode, "harness", read_name(p), got, got["rc"] == 0 and bool(recs),
            {"warmup_s": recs[0]["times"].get("warmup_s") if recs else None})

    def bare_single(p: Path, mode: str = "single") -> dict:
        got = measured(bare[p], env)
        row(mode, "bare", read_name(p), got, bare_ok(fam, got))
        return got

    def bare_all(mode: str) -> None:
        """The bare side of a whole mode: one command per file, or one Python process for all of them."""
        if fam not in IN_ONE_PROCESS:
            for p in paths:
                bare_single(p, mode)
            return
        argv = bare[paths[0]] + [str(p_arg) for p in paths[1:] for p_arg in bare[p][-1:]]  # the files appended
        got = measured(argv, env)
        row(mode, "bare", "+".join(read_name(p) for p in paths), got, bare_ok(fam, got))

    if "single" in modes:
        for i, p in enumerate([TINY, *paths]):
            sides = (bare_single, harness_single) if (i + flip) % 2 == 0 else (harness_single, bare_single)
            for side in sides:
                side(p)
    if "command" in modes and paths:
        def harness_command() -> None:
            got = measured(battlebench(*f.solve_args(), *map(str, paths)), env)
            recs = harness_records(got)
            row("command", "harness", "+".join(read_name(p) for p in paths), got,
                got["rc"] == 0 and len(recs) == len(paths))

        def bare_command_all() -> None:
            bare_all("command")

        for side in ((bare_command_all, harness_command) if not flip else (harness_command, bare_command_all)):
            side()
    if "campaign" in modes and paths:
        def campaign() -> None:
            config = work / f"campaign-{fam}.toml"
            store = work / f"store-{fam}"
            opts = ", ".join(f'{k} = "{v}"' for k, v in f.options.items())
            config.write_text("\n".join([
                f'name = "harness-cost-{fam}"', "instances = [" + ", ".join(f'"{p}"' for p in paths) + "]",
                'task = "solve"', "repetitions = 1", f'output = "{store}"', "",
                "[limits]", "time_s = 600", "memory_mb = 8192", "grace_s = 5", "",
                "[[pairs]]", f'backend = "{f.backend}"', 'formulation = "placement"',
                *([f"options = {{ {opts} }}"] if opts else []), ""]))
            got = measured(battlebench("run", str(config), "--fresh", "--progress", "plain"), env)
            per_run = stored_cpu(store)
            row("campaign", "harness", "+".join(read_name(p) for p in paths), got,
                got["rc"] == 0 and len(per_run) == len(paths), {"store_cpu_s": round(sum(per_run), 4)})

        def bare_campaign() -> None:
            bare_all("campaign")

        for side in ((campaign, bare_campaign) if flip else (bare_campaign, campaign)):
            side()
    return rows


def stored_cpu(store: Path) -> list[float]:
    import sqlite3

    db = store / "results.sqlite"
    if not db.exists():
        return []
    with sqlite3.connect(db) as con:
        return [r[0] or 0.0 for r in con.execute("SELECT cpu_s FROM runs WHERE status IN ('sat', 'unsat')")]


def family_rows(rows: list[dict]) -> list[dict]:
    """Per family and mode: bare and harness CPU and wall (sums over the same instances), their ratios."""
    out = []
    for fam, mode in dict.fromkeys((r["family"], r["mode"]) for r in rows):
        got = [r for r in rows if r["family"] == fam and r["mode"] == mode]
        groups = [("tiny", [TINY.stem])] if mode == "single" else []
        names = [r["instance"] for r in got if r["side"] == "bare" and r["instance"] != TINY.stem]
        groups += [("long", list(dict.fromkeys(names)))]
        for scope, insts in groups:
            bare = [r for r in got if r["side"] == "bare" and r["instance"] in insts]
            harn = [r for r in got if r["side"] == "harness" and (r["instance"] in insts or mode != "single")]
            if not bare or not harn:
                continue
            b_cpu, h_cpu = sum(r["cpu_s"] for r in bare), sum(r["cpu_s"] for r in harn)
            b_wall, h_wall = sum(r["wall_s"] for r in bare), sum(r["wall_s"] for r in harn)
            least = min(r["cpu_s"] for r in bare)
            ratio = h_cpu / b_cpu if b_cpu else None
            n = sum(name.count("+") + 1 for name in insts)  # a bare row over several files names them all
            applies = scope == "long" and b_cpu / n >= LONG_S  # runs of >= 1 s: the mean per instance
            out.append({
                "family": fam, "mode": mode, "instances": scope if scope == "tiny" else n,
                "bare_cpu_s": round(b_cpu, 3), "harness_cpu_s": round(h_cpu, 3),
                "cpu_ratio": None if ratio is None else round(ratio, 3),
                "bare_wall_s": round(b_wall, 3), "harness_wall_s": round(h_wall, 3),
                "wall_ratio": round(h_wall / b_wall, 3) if b_wall else None,
                "store_cpu_s": round(sum(r["store_cpu_s"] or 0 for r in harn), 3) if mode == "campaign" else None,
                "least_bare_cpu_s": round(least, 3), "all_ok": all(r["ok"] for r in bare + harn),
                "target": ("met" if ratio is not None and ratio <= TARGET_RATIO else "not met") if applies
                else ("n/a (bare < 1 s a run)" if scope == "long" else "floor"),
            })
    return out


# --------------------------------------------------------------------------- part 2: the steps of a single shot
def cpu_now() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


POOL = "the pool: the rest of the worker (its interpreter and harness imports before warm-up, stop) and the parent"


def probe_steps(backend: str) -> dict:
    """In this (fresh) process: each step of a single-shot solve of the tiny puzzle, CPU seconds."""
    steps: dict[str, float | None] = {}
    last = cpu_now()

    def lap(name: str) -> None:
        nonlocal last
        now = cpu_now()
        steps[name] = now - last
        last = now

    import harness.cli as cli
    lap("cli imports")
    cli.build_parser().parse_args(["solve", str(TINY), "-b", backend])
    lap("parser (and the command modules)")
    from harness.core.limits import Limits
    from harness.core.status import Question
    from harness.puzzle.formats import read_instance
    from harness.runner.process import WorkerPool
    from harness.tasks.solve import RunRequest, judge_execution
    lap("runner imports")
    inst = read_instance(TINY)
    request = RunRequest.of(inst, backend, "placement", Question(), {}, Limits(60.0, 4096, 5.0))
    with WorkerPool(warm=True) as pool:
        ex = pool.execute(request)
    parent = cpu_now() - last  # the worker was reaped at the pool's close: its CPU is in here, taken out below
    last = cpu_now()
    steps["worker start + imports (warmup_cpu_s)"] = ex.warmup_cpu_s
    steps["worker: the run (cpu_s)"] = ex.cpu_s
    steps[POOL] = parent  # children reaped: the worker's CPU is here
    judge_execution(request, ex)
    lap("verify + judge (in the parent)")
    from harness.model import build_model
    from harness.puzzle.verify import verify
    from harness.tasks.solve import ResolvedPair
    from harness.tasks.solve.run import Outcome, judge

    pair = ResolvedPair.of(backend, "placement")
    cls = pair.solver_class
    lap("in process: the backend's registry")
    model = build_model(inst)
    lap("in process: abstract model")
    solver = cls(model, "placement", pair.options)
    solver.build()
    lap("in process: first build (solver imports)")
    answer = solver.enumerate(1, None)
    lap("in process: first solve")
    solver = cls(model, "placement", pair.options)
    solver.build()
    lap("in process: build (warm)")
    answer = solver.enumerate(1, None)
    lap("in process: solve (warm)")
    for b in answer.boards:
        verify(inst, b)
    lap("in process: verify")
    judge(inst, pair, Outcome(boards=answer.boards, exhausted=answer.exhausted))
    lap("in process: judge/classify (verifies again)")
    if steps["worker: the run (cpu_s)"] is not None:  # reaped children's CPU counted in the parent's lap
        steps[POOL] -= (ex.warmup_cpu_s or 0) + ex.cpu_s
    steps["warmup_s (wall)"] = ex.warmup_s
    return steps


def part_steps(backends: list[str], env: dict, repeat: int) -> list[dict]:
    rows = []
    py = [sys.executable]
    for backend in backends:
        for i in range(repeat):
            order = ("start", "version", "probe", "command") if i % 2 == 0 else ("command", "probe", "version", "start")
            for what in order:
                if what == "start":
                    got = measured(py + ["-c", "pass"], env)
                    rows.append({"backend": backend, "rep": i, "step": "interpreter start (python -c pass)",
                                 "cpu_s": got["cpu_s"], "wall_s": got["wall_s"]})
                elif what == "version":
                    got = measured(battlebench("--version"), env)
                    rows.append({"backend": backend, "rep": i, "step": "battlebench --version",
                                 "cpu_s": got["cpu_s"], "wall_s": got["wall_s"]})
                elif what == "probe":
                    got = measured(py + [__file__, "--probe-steps", backend], env)
                    if got["rc"] != 0:
                        raise RuntimeError(f"the step probe failed: {got['stderr'].strip()[-300:]}")
                    for step, cpu in json.loads(got["stdout"].strip().splitlines()[-1]).items():
                        rows.append({"backend": backend, "rep": i, "step": step, "cpu_s": cpu, "wall_s": None})
                else:
                    got = measured(battlebench("solve", str(TINY), "-b", backend, "--json"), env)
                    rows.append({"backend": backend, "rep": i, "step": "whole command: battlebench solve tiny",
                                 "cpu_s": got["cpu_s"], "wall_s": got["wall_s"]})
    return rows


# --------------------------------------------------------------------------- part 3: runexec per tool call
CALLS = re.compile(r"(\d+) runs")
TOOL_CPU = re.compile(r"the tool ran ([0-9.]+) s wall, ([0-9.]+) s CPU")


def part_runexec(repeat: int) -> list[dict]:
    from harness.core.status import Question
    from harness.puzzle.formats import read_instance
    from harness.tasks.isolated import IsolatedSolver
    from harness.tools import unusable

    hows = ("process", "runexec") if unusable() is None else ("process",)
    inst = read_instance(TINY)
    rows = []
    with IsolatedSolver() as iso:
        for how in hows:  # warm both paths up, unmeasured
            iso.solve(inst, "tool", "placement", Question.count(0), {"tool": "cadical", "measure": how}, 120)
        for i in range(repeat):
            for how in hows if i % 2 == 0 else hows[::-1]:
                res = iso.solve(inst, "tool", "placement", Question.count(0), {"tool": "cadical", "measure": how}, 120)
                calls = CALLS.search(res.detail or "")
                tool = TOOL_CPU.search(res.detail or "")
                rows.append({"how": how, "rep": i, "status": res.status.value, "calls": int(calls.group(1)) if calls
                             else None, "run_cpu_s": res.times.get("cpu_s"),
                             "tool_cpu_s": float(tool.group(2)) if tool else None})
    return rows


# --------------------------------------------------------------------------- the report
def versions() -> dict[str, str]:
    from harness import __version__
    from harness.backends.registry import get_backend

    out = {"battlebench": __version__, "python": platform.python_version()}
    for b in ("minizinc", "tool", "sat", "cpsat", "mip", "asp"):
        try:
            out.update(get_backend(b).versions())
        except Exception as exc:  # a missing solver is said, not fatal
            out[b] = f"unavailable ({type(exc).__name__})"
    return out


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["empty"])
        writer.writeheader()
        writer.writerows(rows)


def fmt(v) -> str:
    return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def summary(args, runs: list[dict], fams: list[dict], steps: list[dict], rex: list[dict], skipped: dict, load: tuple, took: float,
            command: str) -> str:
    lines = ["# What the harness costs against the bare solver", "",
             f"Command: `{command}`  ",
             f"Machine: {os.cpu_count()} cores, load average {load[0]:.2f} at the start, {load[1]:.2f} at the end; "
             f"{took:.0f} s in all.  ",
             "CPU: user + sys of the whole process tree (`os.wait4` on each command); wall beside it.  ",
             f"Bytecode: {BYTECODE[bool(args.no_bytecode)]}.  ",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in sorted(versions().items())) + ".", ""]
    targets: list[str] = []
    lines += ["## 1. Harness against the bare solver", "",
              "Sums over the same instances, bare and harness measured alternately in this session. *single*: one "
              "`battlebench solve` per instance; *command*: one `battlebench solve` over the family's instances; "
              "*campaign*: `battlebench run` of a generated config (process CPU; the store's Σ `cpu_s` beside it). "
              f"Target: harness ≤ {TARGET_RATIO}× the bare CPU where the bare runs average ≥ {LONG_S:g} s of CPU "
              "(the least one beside it); "
              "*tiny* is the single-shot floor on instances/smoke/tiny_4x4.toml.", "",
              "| family | mode | instances | bare CPU s | harness CPU s | CPU × | bare wall s | harness wall s | "
              "wall × | store Σ cpu_s | least bare CPU s | all decided | target |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in fams:
        lines.append("| " + " | ".join(fmt(r[k]) for k in (
            "family", "mode", "instances", "bare_cpu_s", "harness_cpu_s", "cpu_ratio", "bare_wall_s", "harness_wall_s",
            "wall_ratio", "store_cpu_s", "least_bare_cpu_s", "all_ok", "target")) + " |")
    for fam, why in skipped.items():
        lines.append(f"\n{fam}: left out: {why}")
    lines += ["", "Bare CPU seconds of each instance across the modes (min–max; one solver on one file: the spread is the "
              "machine's noise, load and caches, not the solver's):", "",
              "| family | instance | bare runs | min | max | max / min |", "|---|---|---:|---:|---:|---:|"]
    for fam, inst in dict.fromkeys((r["family"], r["instance"]) for r in runs if r["side"] == "bare"):
        cpu = [r["cpu_s"] for r in runs if r["family"] == fam and r["instance"] == inst and r["side"] == "bare"]
        lines.append(f"| {fam} | {inst} | {len(cpu)} | {min(cpu):.3f} | {max(cpu):.3f} | "
                     f"{max(cpu) / min(cpu) if min(cpu) else float('nan'):.2f} |")
    lines += ["", "Notes: a bare Python side (sat, cpsat, mip) is one fresh interpreter per instance in *single* (its "
              "*tiny* row is that floor: the interpreter and the solver's import) and one interpreter solving all "
              "the files in *command* and *campaign*, where the harness too imports once. mip's bare side is HiGHS "
              "on the MPS file `battlebench write` writes, the backend hands HiGHS its model in memory: the same "
              "rows, but HiGHS may take another path to a first solution. cpsat's bare side solves the backend's "
              "own model, exported as a text proto, with its parameters, through ortools' `cp_model_helper` as the "
              "backend does (`cp_model` would add pandas' import).", ""]
    lines += ["Instances: " + "; ".join(f"{fam}: {', '.join(Path(p).stem for p in ps)}"
                                            for fam, ps in args.picked.items()) + ".", ""]
    if steps:
        lines += ["## 2. The steps of a single-shot solve of the tiny puzzle", "",
                  f"Medians over {args.repeat} repetitions, CPU seconds. The probe runs the steps in a fresh process "
                  "(the runner's worker, then the same build and solve in process).", "",
                  "| step | " + " | ".join(dict.fromkeys(r["backend"] for r in steps)) + " |",
                  "|---|" + "---:|" * len(dict.fromkeys(r["backend"] for r in steps))]
        backends = list(dict.fromkeys(r["backend"] for r in steps))
        for step in dict.fromkeys(r["step"] for r in steps):
            cells = []
            for b in backends:
                vals = [r["cpu_s"] for r in steps if r["backend"] == b and r["step"] == step and r["cpu_s"] is not None]
                cells.append(f"{statistics.median(vals):.3f}" if vals else "–")
            lines.append(f"| {step} | " + " | ".join(cells) + " |")
        for b in backends:
            whole = [r["cpu_s"] for r in steps if r["backend"] == b and r["step"].startswith("whole command")]
            med = statistics.median(whole)
            targets.append(f"single-shot tiny solve ≤ {TARGET_SINGLE_S} s CPU, {b}: **{med:.3f} s**, "
                           f"{'met' if med <= TARGET_SINGLE_S else 'not met'}.")
            lines.append(f"\nTarget: {targets[-1]}")
        lines.append("")
    if rex:
        lines += ["## 3. Tool calls measured by runexec", "",
                  "`tool[tool=cadical]` counting every board of the tiny puzzle (one call per board and one more) "
                  "in a warm worker, the two measuring paths alternating. Per call: (the run's CPU − the tool's own "
                  "CPU) / calls; the run's CPU includes the worker's build and bookkeeping, so the process path's "
                  "figure is the floor the measuring adds to.", "",
                  "| measured by | runs | calls per run | run CPU s (median) | tool CPU s | CPU per call beyond the "
                  "tool, ms |", "|---|---:|---:|---:|---:|---:|"]
        per: dict[str, float] = {}
        for how in dict.fromkeys(r["how"] for r in rex):
            got = [r for r in rex if r["how"] == how and r["calls"] and r["run_cpu_s"] is not None]
            if not got:
                continue
            per[how] = statistics.median(1000 * (r["run_cpu_s"] - (r["tool_cpu_s"] or 0)) / r["calls"] for r in got)
            lines.append(f"| {how} | {len(got)} | {statistics.median(r['calls'] for r in got):g} | "
                         f"{statistics.median(r['run_cpu_s'] for r in got):.4f} | "
                         f"{statistics.median(r['tool_cpu_s'] or 0 for r in got):.4f} | {per[how]:.1f} |")
        if "runexec" in per:
            extra = per["runexec"] - per.get("process", 0.0)
            targets.append(f"tool calls measured by runexec ≤ {TARGET_CALL_MS:g} ms CPU of measuring each: "
                           f"**{per['runexec']:.1f} ms** a call beyond the tool ({extra:.1f} ms more than the process "
                           f"path): {'met' if per['runexec'] <= TARGET_CALL_MS else 'not met'}.")
            lines.append(f"\nTarget: {targets[-1]}")
        else:
            lines.append("\nrunexec is not usable here: only the process path was measured.")
        lines.append("")
    lines += ["## Targets", ""]
    for fam in dict.fromkeys(r["family"] for r in fams):
        for mode in ("command", "campaign"):
            got = [r for r in fams if r["family"] == fam and r["mode"] == mode and r["instances"] != "tiny"]
            if got:
                r = got[0]
                lines.append(f"- {fam}, {mode}: {fmt(r['cpu_ratio'])}× CPU: {r['target']}.")
    lines += [f"- {t}" for t in targets]
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="where summary.md and the CSVs go")
    ap.add_argument("--families", default=",".join(FAMILIES), help=f"comma-separated, of {', '.join(FAMILIES)}")
    ap.add_argument("--modes", default="single,command,campaign")
    ap.add_argument("--instances", action="append", default=[], metavar="FAMILY=PATH,PATH",
                    help="this family's instances instead of the defaults (repeatable)")
    ap.add_argument("--steps", default="cpsat,sat", help="backends of part 2 ('' skips it)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions of part 2")
    ap.add_argument("--runexec-repeat", type=int, default=5, help="repetitions of part 3 (0 skips it)")
    ap.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE=1 for the children")
    ap.add_argument("--probe-steps", metavar="BACKEND", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe_steps:
        print(json.dumps(probe_steps(args.probe_steps)))
        return 0
    if args.out is None:
        ap.error("--out is required")
    families = [f for f in args.families.split(",") if f]
    bad = [f for f in families if f not in FAMILIES]
    if bad:
        ap.error(f"--families: unknown {', '.join(bad)} (known: {', '.join(FAMILIES)})")
    picked = {f: [ROOT / p for p in DEFAULT_INSTANCES[f]] for f in families}
    for spec in args.instances:
        fam, _, paths = spec.partition("=")
        if fam not in picked:
            ap.error(f"--instances {spec}: {fam!r} is not one of the families run")
        picked[fam] = [Path(p) if Path(p).is_absolute() or Path(p).exists() else ROOT / p
                       for p in paths.split(",") if p]
        missing = [str(p) for p in picked[fam] if not p.is_file()]
        if missing:
            ap.error(f"--instances {spec}: no such file {missing[0]}")
    args.picked = picked
    env = child_env(not args.no_bytecode)
    load0 = os.getloadavg()[0]
    started = time.perf_counter()
    rows: list[dict] = []
    skipped: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="harness-cost-") as tmp:
        for i, fam in enumerate(families):
            work = Path(tmp) / fam
            work.mkdir()
            print(f"part 1: {fam} on {len(picked[fam])} instance(s)", file=sys.stderr, flush=True)
            try:
                rows += run_family(fam, picked[fam], args.modes.split(","), work, env, flip=bool(i % 2))
            except Exception as exc:  # one family that cannot run is said in the report, the others go on
                skipped[fam] = f"{type(exc).__name__}: {exc}"
    print("part 2: steps", file=sys.stderr, flush=True)
    steps = part_steps([b for b in args.steps.split(",") if b], env, args.repeat)
    print("part 3: runexec", file=sys.stderr, flush=True)
    rex = part_runexec(args.runexec_repeat) if args.runexec_repeat > 0 else []
    took = time.perf_counter() - started
    fams = family_rows(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(args.out / "runs.csv", rows)
    write_csv(args.out / "families.csv", fams)
    write_csv(args.out / "steps.csv", steps)
    write_csv(args.out / "runexec.csv", rex)
    command = "python benchmarks/harness_cost.py " + " ".join(argv if argv is not None else sys.argv[1:])
    text = summary(args, rows, fams, steps, rex, skipped, (load0, os.getloadavg()[0]), took, command)
    (args.out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
