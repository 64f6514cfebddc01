"""Per-run overhead of the runner, warm workers against cold ones, measured in one run.

    python benchmarks/overhead.py configs/overhead.toml --out reports/overhead

Overhead per run = ``wall_s`` (measured by the runner, from dispatch to the answer)
minus the worker's own ``build_s + solve_s``: pickling, pipes, the verifier and
classification.  A cold worker also pays for the solver import inside the run's
first build, which lands in its ``build_s``; so the report gives the median
``wall_s`` of both too, and their ratio is the whole cost of cold workers.  Every run of the config is executed twice, alternately in a warm
worker (one per backend, reused) and in a cold one (a fresh process per run, paying
for the interpreter and the solver imports), so both figures share the machine's
noise.  Records go to two results stores (``<output>-warm``, ``<output>-cold``);
``summary.md`` and ``overhead.csv`` go to ``--out``.  Exits 1 when the warm median
exceeds ``--target-ms``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

from harness.runner.campaign import execute_spec, expand
from harness.runner.config import load_config
from harness.runner.process import WorkerPool
from harness.runner.run import plan_of
from harness.store import ResultsStore


def overhead_ms(rec: dict) -> float | None:
    if rec["status"] not in ("sat", "unsat") or rec["build_s"] is None:
        return None
    return 1000 * (rec["wall_s"] - rec["build_s"] - rec["solve_s"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    ap.add_argument("--target-ms", type=float, default=30.0)
    args = ap.parse_args(argv)
    config = load_config(args.config)
    specs = expand(config)
    stores = {mode: ResultsStore(Path(f"{config.output}-{mode}")) for mode in ("warm", "cold")}
    for mode, store in stores.items():
        store.begin(f"{config.name}-{mode}", config.hash, config.text, fresh=True, plan=plan_of(specs))
    samples: dict[tuple[str, str], list[float]] = {}
    walls: dict[tuple[str, str], list[float]] = {}
    bad = 0
    started = time.perf_counter()
    with WorkerPool(warm=True) as warm, WorkerPool(warm=False) as cold:  # each run's grace: its spec's limits
        for i, spec in enumerate(specs):
            for mode, pool in (("warm", warm), ("cold", cold)) if i % 2 == 0 else (("cold", cold), ("warm", warm)):
                rec = execute_spec(pool, spec)
                stores[mode].add(rec)
                ms = overhead_ms(rec)
                if ms is None:
                    bad += 1
                    continue
                samples.setdefault((rec["pair"], mode), []).append(ms)
                walls.setdefault((rec["pair"], mode), []).append(1000 * rec["wall_s"])
            if (i + 1) % 100 == 0:
                print(f"{i + 1}/{len(specs)} runs x 2", file=sys.stderr, flush=True)
    for store in stores.values():
        store.close()
    took = time.perf_counter() - started

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for pair in dict.fromkeys(p for p, _ in samples):
        w, c = samples.get((pair, "warm"), []), samples.get((pair, "cold"), [])
        rows.append({
            "pair": pair, "runs": len(w),
            "warm_median_ms": statistics.median(w), "warm_p90_ms": statistics.quantiles(w, n=10)[-1],
            "cold_median_ms": statistics.median(c), "cold_p90_ms": statistics.quantiles(c, n=10)[-1],
            "cold_over_warm": statistics.median(c) / statistics.median(w),
            "warm_wall_ms": statistics.median(walls[(pair, "warm")]),
            "cold_wall_ms": statistics.median(walls[(pair, "cold")]),
        })
    with open(out / "overhead.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        for r in rows:
            writer.writerow({k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()})
    all_warm = [x for (p, m), xs in samples.items() if m == "warm" for x in xs]
    all_cold = [x for (p, m), xs in samples.items() if m == "cold" for x in xs]
    ok = statistics.median(all_warm) <= args.target_ms and bad == 0
    lines = [
        "# Per-run overhead: warm workers vs cold workers",
        "",
        f"Command: `python benchmarks/overhead.py {args.config} --out {args.out}`  ",
        f"Config: `{args.config}` ({len(specs)} runs, each executed warm and cold, alternating; "
        f"{took:.0f} s in all).  ",
        "Overhead = `wall_s` (runner, dispatch to answer) - `build_s` - `solve_s` (in the worker).",
        "A cold worker pays for its solver import inside the run's build (so in `build_s`, not in the",
        "overhead): the `wall_s` columns give the whole cost of a cold worker.",
        "",
        "| pair | runs | overhead warm, median ms | warm p90 ms | overhead cold, median ms | cold p90 ms "
        "| cold / warm | wall_s warm, median ms | wall_s cold, median ms | cold / warm |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['pair']} | {r['runs']} | {r['warm_median_ms']:.2f} | {r['warm_p90_ms']:.2f} | "
                     f"{r['cold_median_ms']:.1f} | {r['cold_p90_ms']:.1f} | {r['cold_over_warm']:.0f} | "
                     f"{r['warm_wall_ms']:.1f} | {r['cold_wall_ms']:.1f} | "
                     f"{r['cold_wall_ms'] / r['warm_wall_ms']:.0f} |")
    lines += [
        "",
        f"All pairs: warm median **{statistics.median(all_warm):.2f} ms** (target <= {args.target_ms:g} ms: "
        f"{'met' if ok else 'MISSED'}), cold median **{statistics.median(all_cold):.1f} ms**.",
        f"Runs that did not finish sat/unsat: {bad}.",
    ]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
