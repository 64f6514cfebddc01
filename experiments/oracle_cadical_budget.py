"""CaDiCaL before CP-SAT in the generator's oracle: how large a conflict budget pays, on journaled questions.

    python experiments/oracle_cadical_budget.py --rows 30 --cols 20 --seed 515 \\
        --journal experiments/oracle-guide/late/journal-s515.jsonl --min-s 15 --cap 30000 \\
        --out experiments/oracle-cadical-budget/late-s515

1. The questions of a stopped search are read from its journal (``oracle_workers.record_journal``:
   no solver runs), with the seconds each took when the generator asked it.
2. Those that took at least ``--min-s`` seconds are asked again, in order, of the oracle's
   incremental CaDiCaL (planted phases, as the generator builds it) under a budget of
   ``--cap`` conflicts; each row records the conflicts it needed (or ``--cap``: undecided)
   and its CPU seconds.
3. For each budget B up to the cap, the cost of "CaDiCaL under B, then CP-SAT if undecided"
   is simulated: a question CaDiCaL settles within B costs its CPU seconds; any other costs
   B conflicts (at the measured conflicts per CPU second) plus the journaled CP-SAT seconds.

Writes ``questions.csv`` and ``summary.md`` (cost per budget and the ratio to CP-SAT alone).
The CaDiCaL here has learnt only from the replayed questions, not from every question
of the search, so its conflict counts are those of a colder solver than the generator's.
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from pathlib import Path

BUDGETS = (500, 1000, 2000, 3000, 5000, 10000, 20000, 30000, 50000, 100000)


def measure(rows: int, cols: int, seed: int, asked: list[dict], cap: int) -> list[dict]:
    from harness.generate import oracle as oracle_mod
    from harness.generate.generator import Settings, planted_puzzle

    planted, base, _ = planted_puzzle(Settings(rows, cols, hints="minimal"), seed)
    oracle = oracle_mod.UniquenessOracle(base, planted, budget=cap, fallback=False)
    oracle.large = False  # never skip CaDiCaL: every question is asked of it
    out = []
    try:
        for i, q in enumerate(asked):
            before = oracle.solver.accum_stats().get("conflicts", 0)
            c0 = time.process_time()
            try:
                got = "board" if oracle.differs(q["hints"], q["flip"]) is not None else "none"
            except oracle_mod.Undecided:
                got = "undecided"
            if got not in ("undecided", q["answer"]):
                raise SystemExit(f"question {i}: CaDiCaL answered {got}, the journal {q['answer']}")
            out.append({"question": q.get("index", i), "hints": len(q["hints"]), "flip": len(q["flip"]),
                        "answer": q["answer"], "cadical": got,
                        "conflicts": oracle.solver.accum_stats().get("conflicts", 0) - before,
                        "cadical_cpu_s": round(time.process_time() - c0, 3), "cpsat_s": round(q["recorded_s"], 3)})
            print(out[-1], flush=True)
    finally:
        oracle.close()
    return out


def simulate(rows: list[dict], budgets: tuple[int, ...]) -> tuple[float, list[tuple[int, int, float]]]:
    """(conflicts per CPU second, [(budget, questions CaDiCaL settles, seconds)])."""
    rate = sum(r["conflicts"] for r in rows) / max(1e-9, sum(r["cadical_cpu_s"] for r in rows))
    out = []
    for b in budgets:
        won = [r for r in rows if r["cadical"] != "undecided" and r["conflicts"] <= b]
        cost = sum(r["cadical_cpu_s"] if r in won else b / rate + r["cpsat_s"] for r in rows)
        out.append((b, len(won), cost))
    return rate, out


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    from oracle_workers import record_journal

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--journal", required=True)
    ap.add_argument("--min-s", type=float, default=0.0)
    ap.add_argument("--cap", type=int, default=30000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    asked = [q | {"index": i} for i, q in enumerate(record_journal(args.rows, args.cols, args.seed, Path(args.journal)))]
    hard = [q for q in asked if q["recorded_s"] >= args.min_s]
    rows = measure(args.rows, args.cols, args.seed, hard, args.cap)
    rate, sims = simulate(rows, tuple(b for b in BUDGETS if b <= args.cap))
    base = sum(r["cpsat_s"] for r in rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "questions.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, list(rows[0]) if rows else ["question"])
        wr.writeheader()
        wr.writerows(rows)
    lines = ["# CaDiCaL before CP-SAT: conflict budgets on journaled questions", "",
             f"Command: `python experiments/oracle_cadical_budget.py --rows {args.rows} --cols {args.cols} "
             f"--seed {args.seed} --journal {args.journal} --min-s {args.min_s:g} --cap {args.cap} --out {args.out}`",
             "", f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}.  "
             f"{len(asked)} questions in the journal; the {len(rows)} that took at least {args.min_s:g} s "
             f"({sum(r['answer'] == 'board' for r in rows)} answered by a board) asked of CaDiCaL under "
             f"{args.cap} conflicts: it settled {sum(r['cadical'] != 'undecided' for r in rows)}, at "
             f"{rate:,.0f} conflicts per CPU second.", "",
             "| budget | settled by CaDiCaL | seconds | ratio to CP-SAT alone |", "|---:|---:|---:|---:|",
             f"| 0 (CP-SAT alone) | 0 | {base:.1f} | 1.00 |"]
    lines += [f"| {b} | {won} | {cost:.1f} | {cost / base:.3f} |" for b, won, cost in sims]
    lines += ["", "CP-SAT seconds are the journal's (wall, as the generator measured them); CaDiCaL's are CPU.  "
              "Per question: [questions.csv](questions.csv)."]
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
