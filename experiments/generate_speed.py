"""Generation speed: wall time of ``battlebench generate`` per board size, median over seeds.

    python experiments/generate_speed.py --size 10x10 --size 15x15 --size 20x20 --size 30x20 \\
        --seeds 10 --limit 600 --out experiments/generate-speed

Each puzzle is one ``battlebench generate --number 1`` command (hint mode ``--hints``,
default ``minimal``; default fleet, ``--density`` 0.2 unless given) run as its own
process under ``--limit`` seconds, so a size whose puzzles take too long shows up as over
the limit instead of stalling the benchmark.  The figures come from the generated file's ``[meta.generation]`` (plant,
hints, certify, total seconds; oracle calls) and the process's wall time; a puzzle
over the limit counts as ``--limit`` seconds in the median (so the median is a lower
bound once half the seeds are over).  Writes ``puzzles.csv`` and ``summary.md``; exits 1
when a size with a target (``--target 30x20=10``, defaults: the issue's 30x20 <= 10 s and
50x50 <= 60 s) misses it.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.puzzle.formats import read_instance

DEFAULT_TARGETS = {"30x20": 10.0, "50x50": 60.0}
FIELDS = ("size", "seed", "outcome", "wall_s", "total_s", "plant_s", "hints_s", "certify_s", "hints",
          "cells", "sat_calls", "sat_undecided", "fallback_calls", "fallback_s", "boards_reused", "certify_pair",
          "error")


def _size(text: str) -> tuple[int, int]:
    try:
        r, c = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r}: expected RxC, e.g. 30x20") from None
    return r, c


def _target(text: str) -> tuple[str, float]:
    size, _, secs = text.partition("=")
    _size(size)
    return size, float(secs)


def one(rows: int, cols: int, seed: int, hints: str, limit: float, workdir: Path, density: float = 0.2) -> dict:
    out = workdir / f"{rows}x{cols}-s{seed}"
    cmd = [sys.executable, "-m", "harness.cli", "generate", "--rows", str(rows), "--cols", str(cols),
           "--hints", hints, "--seed", str(seed), "--number", "1", "--density", str(density), "--out", str(out)]
    row: dict = {"size": f"{rows}x{cols}", "seed": seed, "cells": rows * cols}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {**row, "outcome": "over-limit", "wall_s": limit}
    row["wall_s"] = round(time.perf_counter() - t0, 3)
    files = sorted(out.glob("*.toml"))
    if proc.returncode != 0 or not files:
        return {**row, "outcome": "error", "error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    inst = read_instance(files[0])
    gen, cert = inst.meta.get("generation", {}), inst.meta.get("certificate", {})
    row.update(outcome="ok", hints=len(inst.hints), certify_pair=cert.get("pair"),
               **{k: gen.get(k) for k in ("total_s", "plant_s", "hints_s", "certify_s", "sat_calls",
                                           "sat_undecided", "fallback_calls", "fallback_s", "boards_reused")})
    return row


def summarize(rows: list[dict], limit: float, targets: dict[str, float], hints: str,
              density: float = 0.2) -> tuple[str, bool]:
    fleet = "default fleet" + ("" if density == 0.2 else f" at `--density {density:g}`")
    lines = [f"# Generation speed (`--hints {hints}`, {fleet})", "",
             f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.node()} "
             f"({os.cpu_count()} cores), one puzzle at a time, each under a {limit:g} s limit.  "
             "Command: `python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]) + "`", "",
             "| size | seeds | finished | median_wall_s | max_wall_s | median_hints | median_fallback_calls "
             "| target_s | met |", "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    ok = True
    for size in dict.fromkeys(r["size"] for r in rows):
        rs = [r for r in rows if r["size"] == size]
        done = [r for r in rs if r["outcome"] == "ok"]
        walls = [r["wall_s"] for r in rs if r["outcome"] != "error"]
        med = statistics.median(walls) if walls else float("nan")
        over = sum(r["outcome"] == "over-limit" for r in rs)
        target = targets.get(size)
        lower_bound = over * 2 >= len(rs)  # the median is a puzzle over the limit
        failed = any(r["outcome"] == "error" for r in rs)
        if target is None:
            met = "–"
        elif walls and med <= target and not failed:
            met = "unknown (limit below target)" if lower_bound else "yes"
        else:
            met = "**no**"
        ok &= met in ("–", "yes")
        shown = f"{med:.2f}" + (" (≥, over limit)" if lower_bound else "")
        lines.append(f"| {size} | {len(rs)} | {len(done)} | {shown} | {max(walls, default=float('nan')):.2f} | "
                     f"{statistics.median([r['hints'] for r in done]) if done else '–'} | "
                     f"{statistics.median([r['fallback_calls'] or 0 for r in done]) if done else '–'} | "
                     f"{'–' if target is None else f'{target:g}'} | {met} |")
    errors = [r for r in rows if r["outcome"] == "error"]
    if errors:
        lines += ["", "Errors:"] + [f"- {r['size']} seed {r['seed']}: {r['error']}" for r in errors]
    lines += ["", "Per puzzle: [puzzles.csv](puzzles.csv).  A puzzle over the limit counts as the limit in "
              "the median, so a median marked ≥ is a lower bound."]
    return "\n".join(lines) + "\n", ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=_size, action="append", required=True, help="RxC, repeatable")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--hints", default="minimal")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per puzzle")
    ap.add_argument("--density", type=float, default=0.2, help="ship-cell share of the default fleet (0.2)")
    ap.add_argument("--target", type=_target, action="append", default=None, help="RxC=seconds (median)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    targets = dict(args.target) if args.target else dict(DEFAULT_TARGETS)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for r, c in args.size:
            for seed in range(args.seeds):
                row = one(r, c, seed, args.hints, args.limit, Path(tmp), args.density)
                rows.append(row)
                print(f"{row['size']} seed {seed}: {row['outcome']} {row.get('wall_s', '')} s", flush=True)
    with open(out / "puzzles.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        w.writerows({k: r.get(k) for k in FIELDS} for r in rows)
    text, ok = summarize(rows, args.limit, targets, args.hints, args.density)
    (out / "summary.md").write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
