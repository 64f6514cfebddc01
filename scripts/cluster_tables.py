#!/usr/bin/env python3
"""Compute the cluster expansion's tables battlebench ships (harness/counting/tables/cluster/).

    .venv/bin/python scripts/cluster_tables.py [--fleet standard] [--check]

For each fleet (the standard game's: 5, 4, 3, 3, 2) and each rule (touching allowed or
not), every block table the count needs is computed in an empty cache and copied beside
the code, so a user's first ``battlebench count`` of such a board costs what later ones
cost (without touching the computation takes about four minutes of CPU; with touching a
few seconds).  ``--check`` recomputes and compares with the shipped files instead (exit 1 when one differs or is
missing).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

FLEETS = {"standard": (("Carrier", 5), ("Battleship", 4), ("Submarine", 3), ("Cruiser", 3), ("Destroyer", 2))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fleet", action="append", choices=sorted(FLEETS), help="fleets (default: all)")
    ap.add_argument("--check", action="store_true", help="compare with the shipped tables instead of writing")
    args = ap.parse_args(argv)
    from harness.counting.counters import cluster

    shipped, cache = cluster.SHIPPED, os.environ.get("BATTLEBENCH_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BATTLEBENCH_CACHE"] = tmp
        cluster.SHIPPED = Path(tmp) / "nothing shipped"  # compute every table, whatever is shipped
        cluster.block_table.cache_clear()
        try:
            made = _compute(args.fleet or sorted(FLEETS), Path(tmp))
        finally:
            cluster.SHIPPED = shipped
            cluster.block_table.cache_clear()
            if cache is None:
                os.environ.pop("BATTLEBENCH_CACHE", None)
            else:
                os.environ["BATTLEBENCH_CACHE"] = cache
        if args.check:
            bad = [p.name for p in made
                   if not (shipped / p.name).is_file() or not filecmp.cmp(p, shipped / p.name, shallow=False)]
            print(f"{len(made)} tables, {len(bad)} differ from the shipped ones: {' '.join(bad)}")
            return 1 if bad else 0
        shipped.mkdir(parents=True, exist_ok=True)
        for p in made:
            shutil.copyfile(p, shipped / p.name)
        print(f"{len(made)} tables written to {shipped}")
    return 0


def _compute(fleets: list[str], cache: Path) -> list[Path]:
    """Count each fleet on 10x10, touching and not, so every table it needs lands in ``cache``: those files."""
    from harness.counting.counters.cluster import count_rectangle
    from harness.counting.deployment import Deployment, Piece
    from harness.counting.geometry import SQUARE

    cells = frozenset((r, c) for r in range(10) for c in range(10))
    for fleet in fleets:
        pieces = tuple(Piece(name, SQUARE.straight(n)) for name, n in FLEETS[fleet])
        for touching in (True, False):
            print(fleet, "touching" if touching else "no touching",
                  count_rectangle(Deployment(SQUARE, cells, pieces, touching=touching)), flush=True)
    return sorted((cache / "cluster").glob("*.json"))

if __name__ == "__main__":
    raise SystemExit(main())
