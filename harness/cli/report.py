"""``battlebench report``: tables, figures and a page from a results store (no solver needed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.cli.common import BAD_INPUT, command
from harness.core.task import RANK_BY
from harness.errors import UsageError

NAME = "report"


def add_parser(sub: Any) -> None:
    rp = command(sub, NAME, "tables and plots from a results store (no solver needed)",
                 "Write the report of a results store: index.html (one self-contained page), summary.md, a CSV "
                 "per table and a PNG per figure; each task adds its own sections (counts, games, races).",
                 ["battlebench report results/smoke", "battlebench report results/play --out /tmp/play-report",
                  "battlebench report results/smoke --rank-by wall --out /tmp/smoke-by-wall",
                  "battlebench report results/merged --node-class 'EPYC 7763'"],
                 {0: "the report was written", 2: BAD_INPUT + " (no store, a damaged one, a place it cannot write, "
                                                  "runs of several node classes and none chosen)"})
    rp.add_argument("results", metavar="RESULTS", help="results directory (holds results.sqlite)")
    rp.add_argument("--out", default=None, metavar="DIR", help="report directory (default: RESULTS/report)")
    rp.add_argument("--shift", type=float, default=1.0, metavar="S",
                    help="shift of the shifted geometric mean, seconds")
    rp.add_argument("--manifest", default=None, metavar="FILE",
                    help="instance manifest the disagreements are checked against (default: the nearest "
                         "instances/MANIFEST.toml)")
    rp.add_argument("--rank-by", choices=RANK_BY, default=None,
                    help="what pairs are ranked by: auto = CPU time for one-core pairs, wall time for parallel "
                         "ones (default: the config's [report] rank_by, else auto)")
    rp.add_argument("--node-class", default=None, metavar="TEXT",
                    help="report only the runs measured on the node class whose name contains TEXT (needed when "
                         "the store's runs were measured on several: they are never ranked together)")


def run(args: argparse.Namespace) -> int:
    from harness.report.render import write_report

    if args.shift < 0:
        raise UsageError(f"--shift must be >= 0, not {args.shift:g}")
    out = Path(args.out) if args.out else Path(args.results) / "report"
    written = write_report(args.results, out, shift_s=args.shift, manifest=args.manifest, rank_by=args.rank_by,
                           node_class=args.node_class)
    print(f"wrote {out}/ ({', '.join(sorted(p.name for p in written.values()))})", file=sys.stderr)
    return 0


__all__ = ["NAME", "add_parser", "run"]
