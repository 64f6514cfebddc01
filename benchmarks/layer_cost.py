"""What a modelling layer costs: one solver reached natively and through a layer, from a stored campaign.

Reads only stored results.  For each comparison ``"LAYERED vs NATIVE"`` (two pair labels of the
same store), on the instances both pairs solved: the geometric mean of the per-instance
ratios LAYERED/NATIVE of wall time, CPU time, build time and solve time, with the reports'
95 % bootstrap interval over instances (``harness.report.noise.sgm_interval``; wall and CPU), and how many instances each solved.

    python benchmarks/layer_cost.py reports/solvers-solbat \\
        "cpmpy[solver=ortools]/placement vs cpsat/placement" --out reports/solvers-solbat/layers.md
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.report.data import SOLVED, load  # noqa: E402
from harness.report.noise import sgm_interval  # noqa: E402


def _gm(x: np.ndarray) -> float:
    return float(np.exp(np.mean(np.log(x)))) if len(x) else math.nan


def compare(df, layered: str, native: str) -> dict:
    """Ratios layered/native on the instances both solved (floors at 1 ms so a ratio stays defined)."""
    known = set(df["pair"])
    for label in (layered, native):
        if label not in known:
            raise SystemExit(f"layer_cost: no pair {label!r} in the store (pairs: {', '.join(sorted(known))})")
    a = df[df["pair"] == layered].set_index("instance_key")
    b = df[df["pair"] == native].set_index("instance_key")
    both = [k for k in a.index.intersection(b.index)
            if a.at[k, "status"] in SOLVED and b.at[k, "status"] in SOLVED]
    out = {"layered": layered, "native": native, "both_solved": len(both),
           "layered_solved": int(a["status"].isin(SOLVED).sum()), "native_solved": int(b["status"].isin(SOLVED).sum()),
           "instances": int(len(a.index.intersection(b.index)))}
    for col in ("wall_s", "cpu_s", "build_s", "solve_s"):
        x = np.array([max(float(a.at[k, col]), 1e-3) / max(float(b.at[k, col]), 1e-3) for k in both
                      if not (math.isnan(float(a.at[k, col])) or math.isnan(float(b.at[k, col])))])
        out[f"{col}_ratio"] = _gm(x)
        if col in ("wall_s", "cpu_s"):
            out[f"{col}_ci"] = sgm_interval(x, shift_s=0.0)  # shift 0: the plain geometric mean
    return out


def table(rows: list[dict]) -> str:
    lines = ["| layered | native | solved (layered / native / both) | wall × [95% CI] | CPU × [95% CI] | build × | solve × |",
             "|---|---|---|---|---|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['layered']} | {r['native']} | {r['layered_solved']} / {r['native_solved']} / {r['both_solved']} "
            f"of {r['instances']} | {r['wall_s_ratio']:.2f} [{r['wall_s_ci'][0]:.2f}–{r['wall_s_ci'][1]:.2f}] | "
            f"{r['cpu_s_ratio']:.2f} [{r['cpu_s_ci'][0]:.2f}–{r['cpu_s_ci'][1]:.2f}] | {r['build_s_ratio']:.2f} | "
            f"{r['solve_s_ratio']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a results directory (or a report directory holding results.sqlite)")
    ap.add_argument("comparisons", nargs="+", metavar="'LAYERED vs NATIVE'")
    ap.add_argument("--out", default=None, help="write the markdown table here too")
    args = ap.parse_args()
    df = load(args.results)
    rows = [compare(df, *c.split(" vs ", 1)) for c in args.comparisons]
    text = (f"Modelling layers in {args.results}: per-instance time ratios layered / native, geometric mean over "
            "the instances both solved (times floored at 1 ms), 95 % bootstrap interval over instances.\n\n"
            + table(rows))
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
