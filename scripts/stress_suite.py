#!/usr/bin/env python3
"""Run the test suite beside N CPU hogs and write what happened as a markdown report (reports/stress/).

    .venv/bin/python scripts/stress_suite.py [--hogs 2] [--full] [--out FILE] [-- PYTEST ARGS...]

The hogs are busy Python processes at niceness 0, one per ``--hogs``, started before the suite and stopped whatever
ends it (the suite passing or failing, Ctrl-C, SIGTERM).  The suite is the quick subset by default
(``-q -m "not slow" -n 2``), everything with ``--full``; arguments after ``--`` replace the selection altogether.
The report records the commit, the machine (cores, RAM), the load averages sampled while the suite ran, its wall
and CPU time, the counts of passed, failed, errored and skipped tests and the node id of each failure and error.
Exit code: pytest's.  See docs/how-to/stress-the-suite.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUICK = ["-q", "-m", "not slow", "-n", "2"]
FULL = ["-q", "-n", "2"]
HOG = "while True:\n    pass\n"


@dataclass
class Outcome:
    """What one stressed run of the suite gave."""

    counts: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)  # (kind, node id, first line of the message)
    loads: list = field(default_factory=list)  # (seconds since the start, 1-, 5- and 15-minute load averages)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    code: int = 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else None
    args = _parser().parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if args.hogs < 0 or args.interval <= 0:
        print("stress_suite: --hogs must be 0 or more and --interval above 0", file=sys.stderr)
        return 2
    selection = extra if extra is not None else (FULL if args.full else QUICK)
    out = Path(args.out) if args.out else REPO / "reports" / "stress" / f"stress-N{args.hogs}{'-full' if args.full else ''}.md"
    started, commit = datetime.now(timezone.utc), _commit()  # what is tested: the tree as the suite starts
    hogs: list[subprocess.Popen] = []
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        hogs = [subprocess.Popen([sys.executable, "-c", HOG], start_new_session=True) for _ in range(args.hogs)]
        print(f"stress_suite: {len(hogs)} hogs started (pids {' '.join(str(h.pid) for h in hogs) or 'none'})", flush=True)
        outcome = _run_suite(selection, args.interval)
    finally:
        _stop(hogs)
        signal.signal(signal.SIGTERM, previous)
    out.parent.mkdir(parents=True, exist_ok=True)
    after = _commit()
    if after != commit:
        commit += f" (the tree changed while the suite ran: {after} at the end)"
    out.write_text(_report(args.hogs, selection, started, [h.pid for h in hogs], outcome, commit))
    print(f"stress_suite: {_summary(outcome.counts)}; report written to {out}")
    return outcome.code


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="stress_suite.py", description=__doc__.splitlines()[0])
    p.add_argument("--hogs", type=int, default=2, help="busy processes beside the suite (default 2)")
    p.add_argument("--full", action="store_true", help="the whole suite, slow tests too (default: -m 'not slow')")
    p.add_argument("--out", help="the report's file (default reports/stress/stress-N<hogs>.md)")
    p.add_argument("--interval", type=float, default=5.0, help="seconds between load samples (default 5)")
    return p


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _run_suite(selection: list[str], interval: float) -> Outcome:
    """pytest on ``selection`` from the checkout's root, the load sampled beside it; counts read from its JUnit XML."""
    outcome = Outcome()
    stop = threading.Event()
    t0 = time.monotonic()

    def sample():
        while True:
            outcome.loads.append((time.monotonic() - t0, *os.getloadavg()))
            if stop.wait(interval):
                return

    sampler = threading.Thread(target=sample, daemon=True)
    with tempfile.TemporaryDirectory(prefix="battlebench-stress-") as tmp:
        junit = Path(tmp) / "junit.xml"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        sampler.start()
        proc = subprocess.Popen([sys.executable, "-m", "pytest", *selection, f"--junitxml={junit}"], cwd=REPO)
        try:
            outcome.code = proc.wait()
        except BaseException:
            proc.send_signal(signal.SIGINT)  # pytest's own interrupt: it ends its workers and writes what it has
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        finally:
            outcome.wall_s = time.monotonic() - t0
            stop.set()
            sampler.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the hogs are not reaped yet: pytest's tree only
        outcome.cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        outcome.counts, outcome.failures = _read_junit(junit)
    return outcome


def _read_junit(path: Path) -> tuple[dict, list]:
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    failures = []
    if not path.is_file():
        return counts, [("error", "(no JUnit report: pytest ended before writing one)", "")]
    for case in ET.parse(path).getroot().iter("testcase"):
        node = _node_id(case)
        kinds = [child for child in case if child.tag in ("failure", "error", "skipped")]
        if not kinds:
            counts["passed"] += 1
        for child in kinds:
            key = {"failure": "failed", "error": "errors", "skipped": "skipped"}[child.tag]
            counts[key] += 1
            if child.tag != "skipped":
                message = (child.get("message") or "").strip().splitlines()
                failures.append((child.tag, node, message[0][:160] if message else ""))
    return counts, failures


def _node_id(case: ET.Element) -> str:
    """A JUnit testcase's pytest node id, near enough: its file (from the dotted class name) and its name."""
    classname, name = case.get("classname", ""), case.get("name", "")
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a file; the rest is a class
        if (REPO / ("/".join(parts[:cut]) + ".py")).is_file():
            return "::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], name])
    return f"{classname}::{name}" if classname else name


def _stop(hogs: list[subprocess.Popen]) -> None:
    for hog in hogs:
        try:
            os.killpg(hog.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for hog in hogs:
        hog.wait()


def _machine() -> str:
    mem = "unknown"
    try:
        with open("/proc/meminfo") as f:
            kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
        mem = f"{kb / 1024 ** 2:.1f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return f"{os.cpu_count()} cores, {mem} RAM, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def _commit() -> str:
    def git(*a):
        done = subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "HEAD") or "unknown (not a git checkout)"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return head + (" (with uncommitted changes)" if dirty else "")


def _summary(counts: dict) -> str:
    return ", ".join(f"{v} {k}" for k, v in counts.items())


def _report(hogs: int, selection: list[str], started: datetime, pids: list[int], o: Outcome, commit: str) -> str:
    ones = [s[1] for s in o.loads]
    lines = [
        f"# The suite beside {hogs} CPU hog{'s' if hogs != 1 else ''}",
        "",
        "Written by `scripts/stress_suite.py` (docs/how-to/stress-the-suite.md).",
        "",
        "| | |",
        "|---|---|",
        f"| commit | `{commit}` |",
        f"| started | {started.strftime('%Y-%m-%d %H:%M:%S')} UTC |",
        f"| machine | {_machine()} |",
        f"| hogs | {hogs} busy processes at niceness 0 (pids {', '.join(map(str, pids)) or 'none'}), stopped at the end |",
        f"| command | `python -m pytest {shlex.join(selection)}` |",
        f"| wall time | {o.wall_s:.1f} s |",
        f"| CPU time | {o.cpu_s:.1f} s (the suite's processes, user + system) |",
        f"| load average (1 min) | min {min(ones):.2f}, mean {sum(ones) / len(ones):.2f}, max {max(ones):.2f} "
        f"over {len(ones)} samples |" if ones else "| load average | not sampled |",
        f"| result | {_summary(o.counts)}; pytest exit code {o.code} |",
        "",
        "## Failures and errors",
        "",
    ]
    lines += [f"- {kind} `{node}`" + (f": {msg}" if msg else "") for kind, node, msg in o.failures] or ["None."]
    lines += ["", "## Load averages sampled", "", "| seconds | 1 min | 5 min | 15 min |", "|---:|---:|---:|---:|"]
    lines += [f"| {t:.1f} | {a:.2f} | {b:.2f} | {c:.2f} |" for t, a, b, c in o.loads]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
