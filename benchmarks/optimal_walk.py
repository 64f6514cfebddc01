"""The optimum of one board, then the walk of the optimal policy its search holds: the independent check of an
optimum too large for the brute force.

    python benchmarks/optimal_walk.py instances/optimal/r5x5_s3_s2.toml --memory-mb 20000 \\
        --out reports/optimal-large/r5x5_s3_s2.md

The search is the compiled one (its table in 40 % of ``--memory-mb``, as ``battlebench play --optimal`` gives
it); :func:`harness.play.optimal.policy_misses` then leads every deployment through the stored best cells and
counts the misses with its own arithmetic.  Prints one JSON line after the search and one after the walk, and
writes a short markdown report; exits 1 when the walk disagrees with the optimum.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from harness.counting.format import read_deployment
from harness.play.optimal import Beliefs, CompiledSearch, optimum, policy_misses


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("board")
    ap.add_argument("--rule", default="ship")
    ap.add_argument("--memory-mb", type=int, default=20000)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    sys.setrecursionlimit(100_000)
    board = read_deployment(args.board)
    beliefs = Beliefs.of(board, args.rule)
    search = CompiledSearch(beliefs, memory_mb=int(args.memory_mb * 0.4 / 0.6))
    got = optimum(board, args.rule, search=search)
    out = {"board": board.name, "rule": args.rule, "deployments": len(beliefs.deployments), "misses": got.misses,
           "expected": str(got.expected), "first": got.first, "states": got.states, "wall_s": got.wall_s,
           "cpu_s": got.cpu_s, "stopped": got.stopped, "table_slots": len(search.used),
           "compactions": search.compactions}
    print(json.dumps(out), flush=True)
    if got.misses is None:
        return 1
    t0, c0 = time.perf_counter(), time.process_time()
    memo: dict = {}
    walked = policy_misses(search, memo=memo)
    out.update(policy_misses=walked, policy_states=len(memo), walk_wall_s=time.perf_counter() - t0,
               walk_cpu_s=time.process_time() - c0,
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(out), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            f"# The optimum of {board.name} ({args.rule} rule), and the walk of its policy\n\n"
            f"`python benchmarks/optimal_walk.py {args.board} --memory-mb {args.memory_mb} --out {args.out}`\n\n"
            f"- deployments: {out['deployments']:,}; optimum: {got.expected} = {float(got.expected):.4f} expected "
            f"shots (sum of misses {got.misses:,}); an optimal first shot: {got.first}\n"
            f"- search: {got.states:,} states expanded, {got.cpu_s:,.0f} s CPU, {got.wall_s:,.0f} s wall, table "
            f"{len(search.used):,} slots, {search.compactions} growths/compactions\n"
            f"- walk of the stored policy: sum of misses {walked:,} over {len(memo):,} policy states "
            f"({'equal to' if walked == got.misses else 'NOT equal to'} the optimum), "
            f"{out['walk_cpu_s']:,.0f} s CPU\n- peak RSS {out['peak_rss_mb']:,.0f} MB\n\n"
            f"```json\n{json.dumps(out, indent=1)}\n```\n")
    return 0 if walked == got.misses else 1


if __name__ == "__main__":
    sys.exit(main())
