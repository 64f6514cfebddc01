"""Certification (count 2) of minimal 30x20 puzzles: what each tried variant of the best pair costs.

    python experiments/certify_variants.py --limit 150 --variants lf,clause,runs \\
        --out experiments/certify-variants instances/large/large_30x20_minimal_s502.toml ... [--resume]

The best pair, ``cpsat[branching=long-first,lazy_lp=false]/placement``, proves a
minimal-hint 30x20 puzzle unique in 17-480 s on this machine; issue 18 asks for 30 s.  Each
variant below is one idea from the issue's list (or that grew from one), applied to that
pair and nothing else, so its ratio to ``lf`` is the idea's effect:

* ``lf``: the pair as it is: one count-2 enumeration (``enumerate(2)``), the baseline;
* ``clause``: find a board B with the same search, then ask CP-SAT with its full presolve
  (no ``enumerate_all_solutions``) for a board with "some ship of B absent" (a clause,
  equivalent to "differs from B" because the fleet is exact);
* ``clause-w2``: the same second question with 2 CP-SAT workers (its portfolio);
* ``runs``: redundant per-line counts of segments: the pieces meeting a line with clue k
  and n cells are at most n + 1 - k (each run needs a water cell after it);
* ``bands``: redundant sums of two adjacent lines' clues over the placements meeting them;
* ``automaton``: a line formulation added: each line with a clue is a word over its cells' roles
  (water, a lone cell of a ship across the line or a submarine, the first/middle/last cell of a
  ship along it), accepted by an automaton counting ship cells to the clue (CP-SAT's automaton
  constraint: domain consistency on each line's count and run structure together);
* ``hint``: CP-SAT's solution hint set to the planted board (solution-guided: the hinted board is
  tried first; the proof that there is no other is the same search);
* ``no-exact-lp-reason``: CP-SAT's ``use_exact_lp_reason=false``;
* ``cells``: a fixed search over cell literals s_c (water first) in place of placements;
* ``ships``: an integer position per ship (equal lengths ordered: the symmetry of equal
  ships broken), fixed search choosing the ship with fewest positions left;
* ``hints-first``: the long-first order with the placements covering a ``*`` hint first;
* ``reverse``, ``interleave``, ``centre-out``: long-first with the placements of one length
  in another order (last first: vertical ones from the bottom; row-major with both
  orientations mixed; nearest the board's centre first), to see how much the proof
  depends on the order (a race of two orders would use it);
* ``backbone``: prove B's ships one at a time ("no board without ship p, given the ships
  already proven"), under growing time slices 0.5, 2, 8, 32 s;
* ``split2``, ``split4``, ``split8``: the pair's own ``split=N`` (N searches at once over
  disjoint cubes); on two cores their CPU time, against ``lf``'s, says how many cores a split
  proof would need to reach a given wall time.

Every variant runs in its own worker process (killed 30 s after ``--limit``), records wall
and CPU seconds from reading the instance to the answer (the worker's, CP-SAT threads
included; imports excluded), and every board it returns goes
through the independent verifier.  Writes ``runs.csv`` and ``summary.md`` (per instance;
ratio to ``lf`` as the geometric mean over instances both decided).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import platform
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from runs_csv import RunsFile, earlier_runs, resumed  # noqa: E402 - benchmarks/runs_csv.py

PAIR = {"branching": "long-first", "lazy_lp": False}
FIELDS = ["instance", "variant", "result", "boards", "wall_s", "cpu_s", "branches", "conflicts", "detail"]


def _runs(be) -> None:
    from ortools.sat.python import cp_model

    m, y = be.model, be.cp_y
    for _, _, cells, clue in m.lines():
        meets = sorted({p for cell in cells for p in m.cover[cell]})
        be.cp_model.add(cp_model.LinearExpr.sum([y[p] for p in meets]) <= len(cells) + 1 - clue)


def _bands(be) -> None:
    from ortools.sat.python import cp_model

    m, y = be.model, be.cp_y
    for clues, get in ((m.instance.row_clues, m.row_cells), (m.instance.col_clues, m.col_cells)):
        for i in range(len(clues) - 1):
            if clues[i] is None or clues[i + 1] is None:
                continue
            w: dict[int, int] = {}
            for cell in get(i) + get(i + 1):
                for p in m.cover[cell]:
                    w[p] = w.get(p, 0) + 1
            ids = list(w)
            be.cp_model.add(cp_model.LinearExpr.weighted_sum([y[p] for p in ids], [w[p] for p in ids])
                            == clues[i] + clues[i + 1])


def _automaton(be) -> None:
    """A line formulation on top: each line with a clue read as a word over the roles its cells play (water,
    a cell of a ship across the line or a submarine, the first, a middle or the last cell of a ship along
    it), accepted by an automaton that counts ship cells up to the clue and keeps runs apart."""
    from ortools.sat.python import cp_model

    m, md, y = be.model, be.cp_model, be.cp_y
    for kind, _, cells, clue in m.lines():
        along = kind == "row"  # ships along a row are horizontal
        word = []
        for cell in cells:
            weights = {}
            for p in m.cover[cell]:
                pl = m.placements[p]
                if pl.length == 1 or pl.ship.horizontal != along:
                    weights[p] = 1  # across the line (or a submarine): alone in it
                else:
                    at = pl.cells.index(cell)
                    weights[p] = 2 if at == 0 else 4 if at == pl.length - 1 else 3
            x = md.new_int_var(0, 4, "")
            ids = list(weights)
            md.add(x == cp_model.LinearExpr.weighted_sum([y[i] for i in ids], [weights[i] for i in ids]))
            word.append(x)
        # state = 3 * ship cells so far + phase (0: may start, 1: after a lone cell or a ship's end, 2: inside)
        moves = []
        for k in range(clue + 1):
            here = 3 * k
            moves += [(here, 0, here), (here + 1, 0, here)]
            if k < clue:
                nxt = 3 * (k + 1)
                moves += [(here, 1, nxt + 1), (here, 2, nxt + 2), (here + 2, 3, nxt + 2), (here + 2, 4, nxt + 1)]
        md.add_automaton(word, 0, [3 * clue, 3 * clue + 1], moves)


def _hint(be) -> None:
    """CP-SAT's solution hint: the instance's planted board (its placements 1, the rest 0)."""
    from harness.puzzle.board import Board
    from harness.puzzle.verify import parse_ships

    m = be.model
    if "planted" not in m.instance.meta:
        return  # nothing to hint: the plain search
    board = Board(tuple(m.instance.meta["planted"]))
    index = {p.ship: p.index for p in m.placements}
    chosen = {index[s] for s in parse_ships(board.rows)[0]}
    for i, lit in enumerate(be.cp_y):
        be.cp_model.add_hint(lit, i in chosen)


def _cells(be) -> None:
    from ortools.sat.python import cp_model

    m, md = be.model, be.cp_model
    s = []
    for cell in m.cells():
        if m.cover.get(cell):
            v = md.new_bool_var("")
            md.add(cp_model.LinearExpr.sum([be.cp_y[p] for p in m.cover[cell]]) == v)
            s.append(v)
    md.add_decision_strategy(s, cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)


def _ships(be) -> None:
    from ortools.sat.python import cp_model

    m, md, y = be.model, be.cp_model, be.cp_y
    xs = []
    for L, n in sorted(m.fleet.items(), reverse=True):
        ids = sorted(m.by_length[L])
        x = [md.new_int_var_from_domain(cp_model.Domain.from_values(ids), "") for _ in range(n)]
        for k in range(n - 1):
            md.add(x[k] < x[k + 1])  # equal ships are interchangeable: keep one order
        lit = {}
        for k in range(n):
            for v in ids:
                lit[k, v] = b = md.new_bool_var("")
                md.add(x[k] == v).only_enforce_if(b)
                md.add(x[k] != v).only_enforce_if(~b)
            md.add_exactly_one([lit[k, v] for v in ids])
        for v in ids:
            md.add(cp_model.LinearExpr.sum([lit[k, v] for k in range(n)]) == y[v])
        xs.extend(x)
    md.add_decision_strategy(xs, cp_model.CHOOSE_MIN_DOMAIN_SIZE, cp_model.SELECT_MIN_VALUE)


def _order(key):
    """A long-first-like fixed search over the placement literals in the order ``key(model, index)``."""
    def change(be) -> None:
        from ortools.sat.python import cp_model

        order = sorted(range(len(be.cp_y)), key=lambda i: key(be.model, i))
        be.cp_model.add_decision_strategy([be.cp_y[i] for i in order], cp_model.CHOOSE_FIRST,
                                          cp_model.SELECT_MIN_VALUE)
    return change


def _hinted(m) -> set[int]:
    if "hinted" not in m.stats:
        m.stats["hinted"] = {p for cell in m.forced_ship for p in m.cover[cell]}
    return m.stats["hinted"]


def _centre(m, i) -> float:
    cells = m.placements[i].cells
    r = sum(c[0] for c in cells) / len(cells) - (m.rows - 1) / 2
    c = sum(c[1] for c in cells) / len(cells) - (m.cols - 1) / 2
    return r * r + c * c


_hints_first = _order(lambda m, i: (i not in _hinted(m), -m.placements[i].length, i))


def _split(n: int):
    def change(be) -> None:
        be.opts["split"] = n  # read by enumerate(): n single-worker searches over disjoint cubes
    return change


# name -> (mode, model change, its own search strategy?, CP-SAT parameters, workers)
VARIANTS = {
    "lf": ("enum", None, False, {}, 1),
    "clause": ("clause", None, False, {}, 1),
    "clause-w2": ("clause", None, False, {}, 2),
    "runs": ("enum", _runs, False, {}, 1),
    "bands": ("enum", _bands, False, {}, 1),
    "automaton": ("enum", _automaton, False, {}, 1),
    "hint": ("enum", _hint, False, {}, 1),
    "no-exact-lp-reason": ("clause", None, False, {"use_exact_lp_reason": False}, 1),
    "cells": ("enum", _cells, True, {}, 1),
    "ships": ("enum", _ships, True, {}, 1),
    "hints-first": ("enum", _hints_first, True, {}, 1),
    "reverse": ("enum", _order(lambda m, i: (-m.placements[i].length, -i)), True, {}, 1),
    "interleave": ("enum", _order(lambda m, i: (-m.placements[i].length, m.placements[i].ship.row,
                                                m.placements[i].ship.col, i)), True, {}, 1),
    "centre-out": ("enum", _order(lambda m, i: (-m.placements[i].length, _centre(m, i), i)), True, {}, 1),
    "backbone": ("backbone", None, False, {}, 1),
    "split2": ("enum", _split(2), False, {}, 1),
    "split4": ("enum", _split(4), False, {}, 1),
    "split8": ("enum", _split(8), False, {}, 1),
}
SLICES = (0.5, 2.0, 8.0, 32.0)


def _backend(path: str, change, own_strategy: bool):
    from harness.backends.cpsat import CpSatBackend
    from harness.model.abstract import build_model
    from harness.puzzle.formats import read_instance

    inst = read_instance(path)
    be = CpSatBackend(build_model(inst), "placement", PAIR | ({"branching": "auto"} if own_strategy else {}))
    be.build()
    if own_strategy:
        be.opts["branching"] = "long-first"  # new_solver() then runs the fixed search added below
    if change is not None:
        change(be)
    return inst, be


def _solve(be, limit: float, extra=(), params=None, workers: int = 1):
    """One CP-SAT call on a clone of the model plus ``extra`` clauses: (status, chosen, solver)."""
    md = be.cp_model.clone()
    lit = [md.get_bool_var_from_proto_index(v.index) for v in be.cp_y]
    for clause in extra:
        md.add_bool_or([lit[i] if positive else ~lit[i] for i, positive in clause])
    s = be.new_solver()
    s.parameters.num_workers = workers
    s.parameters.max_time_in_seconds = max(limit, 0.01)
    for key, value in (params or {}).items():
        setattr(s.parameters, key, value)
    status = s.status_name(s.solve(md))
    chosen = [i for i, v in enumerate(lit) if s.boolean_value(v)] if status in ("OPTIMAL", "FEASIBLE") else None
    return status, chosen, s


def measure(path: str, variant: str, limit: float) -> dict:
    """Run one variant on one instance in this process; the row of runs.csv (without timing)."""
    mode, change, own, params, workers = VARIANTS[variant]
    inst, be = _backend(path, change, own)
    t0 = time.perf_counter()
    row = {"branches": "", "conflicts": "", "detail": ""}
    if mode == "enum":
        ans = be.enumerate(2, limit)
        boards, decided = ans.boards, ans.exhausted or len(ans.boards) >= 2
    else:
        status, first, s = _solve(be, limit)
        boards, decided = ([] if first is None else [be.model.board_from(first)]), status == "INFEASIBLE"
        if first is not None:
            block = [[(i, False) for i in first]]  # some ship of B absent
            if mode == "clause":
                status, second, s = _solve(be, limit - (time.perf_counter() - t0), block, params, workers)
                row.update(branches=s.num_branches, conflicts=s.num_conflicts)
                decided = status in ("INFEASIBLE", "OPTIMAL", "FEASIBLE")
                boards += [be.model.board_from(second)] if second else []
            else:
                decided, second, row["detail"] = _backbone(be, first, t0 + limit)
                boards += [be.model.board_from(second)] if second else []
    from harness.puzzle.verify import verify

    wrong = [b for b in boards if not verify(inst, b).ok]
    result = ("wrong" if wrong else "timeout" if not decided else
              {0: "no-board", 1: "unique"}.get(len(boards), "not-unique"))
    return row | {"result": result, "boards": len(boards)}


def _backbone(be, first: list[int], deadline: float):
    """Prove B's ships present one at a time: (decided, second board or None, detail)."""
    todo = sorted(first, key=lambda i: (-be.model.placements[i].length, i))
    proven: list[int] = []
    asked = 0
    for slice_s in SLICES:
        left = []
        for p in todo:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return False, None, f"{len(proven)}/{len(first)} ships proven, {asked} questions"
            extra = [[(q, True)] for q in proven] + [[(p, False)]]
            status, other, _ = _solve(be, min(slice_s, remaining), extra)
            asked += 1
            if status == "INFEASIBLE":
                proven.append(p)
            elif other is not None:
                return True, other, f"second board at question {asked}"
            else:
                left.append(p)
        todo = left
        if not todo:
            return True, None, f"{len(first)} ships proven, {asked} questions"
    return False, None, f"{len(proven)}/{len(first)} ships proven, {asked} questions"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _worker(path: str, variant: str, limit: float, queue) -> None:
    import ortools.sat.python.cp_model  # noqa: F401 - imports are not the run's time

    import harness.backends.cpsat  # noqa: F401

    t0, c0 = time.perf_counter(), _cpu()
    try:
        row = measure(path, variant, limit)
    except Exception as exc:  # noqa: BLE001 - reported as the run's result
        row = {"result": "error", "boards": 0, "branches": "", "conflicts": "", "detail": f"{type(exc).__name__}: {exc}"}
    queue.put(row | {"wall_s": round(time.perf_counter() - t0, 4), "cpu_s": round(_cpu() - c0, 4)})


def run_one(path: str, variant: str, limit: float) -> dict:
    """``measure`` in a fresh worker process, killed 30 s after the limit."""
    ctx = mp.get_context("fork")  # the parent imports no solver; a script module cannot be pickled for spawn
    queue = ctx.Queue()
    proc = ctx.Process(target=_worker, args=(path, variant, limit, queue))
    t0 = time.perf_counter()
    proc.start()
    try:
        row = queue.get(timeout=limit + 30)
    except Exception:  # noqa: BLE001 - queue.Empty: the worker overran
        row = {"result": "timeout", "boards": 0, "branches": "", "conflicts": "", "detail": "killed",
               "wall_s": round(time.perf_counter() - t0, 4), "cpu_s": ""}
    proc.kill()
    proc.join()
    return {"instance": Path(path).stem, "variant": variant} | row


RESOLUTION = 0.01  # the rows' times are rounded to this; a time shown as 0.0 counts as this much in a ratio


def ratios(rows: list[dict], base: str = "lf") -> dict[str, tuple[int, float | None, float | None]]:
    """variant -> (instances decided by both it and ``base``, geometric mean of wall and of CPU ratios).

    Times are floored at ``RESOLUTION``: a run too quick to measure (0.0 s after rounding) makes no ratio infinite."""
    ok = ("unique", "not-unique", "no-board")
    by = {(r["instance"], r["variant"]): r for r in rows if r["result"] in ok}
    out = {}
    for variant in dict.fromkeys(r["variant"] for r in rows):
        pairs = [(by[i, variant], by[i, base]) for (i, v) in by if v == variant and (i, base) in by]
        walls = [_log_ratio(a["wall_s"], b["wall_s"]) for a, b in pairs]
        cpus = [_log_ratio(a["cpu_s"], b["cpu_s"]) for a, b in pairs]
        out[variant] = (len(pairs), math.exp(sum(walls) / len(walls)) if walls else None,
                        math.exp(sum(cpus) / len(cpus)) if cpus else None)
    return out


def _log_ratio(a: float, b: float) -> float:
    return math.log(max(float(a), RESOLUTION) / max(float(b), RESOLUTION))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("instances", nargs="+")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--limit", type=float, default=150.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--resume", action="store_true",
                    help="keep the runs of OUT/runs.csv of the instances whose variants are all there; run the rest")
    args = ap.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f"certify_variants: unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})")
    missing = [p for p in args.instances if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"certify_variants: {missing[0]}: no such instance file")
    out = Path(args.out)
    rows = earlier_runs(out / "runs.csv", FIELDS, "certify_variants", args.resume, _check)
    # An instance lacking a variant asked for runs all of them again (side by side); other rows stay.
    rows, again = resumed(rows, "instance", {Path(p).stem: set(variants) for p in args.instances}, "variant")
    with RunsFile(out / "runs.csv", FIELDS, rows) as runs:
        for path in args.instances:  # one instance's variants back to back: side by side in time
            if Path(path).stem not in again:
                continue
            for variant in variants:
                rows.append(run_one(path, variant, args.limit))
                runs.add(rows[-1:])
                print({k: rows[-1][k] for k in ("instance", "variant", "result", "wall_s", "cpu_s")}, flush=True)
    (out / "summary.md").write_text(summary(rows, args, variants))
    return 1 if any(r["result"] in ("wrong", "error") for r in rows) else 0


RESULTS = ("unique", "not-unique", "no-board", "timeout", "wrong", "error")


def _check(row: dict) -> str | None:
    if row["variant"] not in VARIANTS:
        return f"unknown variant {row['variant']!r}"
    return None if row["result"] in RESULTS else f"unknown result {row['result']!r}"


def summary(rows: list[dict], args, variants: list[str]) -> str:
    """summary.md of the runs of this command's instances and variants (runs.csv may hold others, kept)."""
    asked = {Path(p).stem for p in args.instances}
    others = len(rows)
    rows = [r for r in rows if r["instance"] in asked and r["variant"] in variants]
    others -= len(rows)
    lines = ["# Certification variants of cpsat[branching=long-first,lazy_lp=false]/placement", "",
             f"Command: `python experiments/certify_variants.py --limit {args.limit:g} --variants {','.join(variants)} "
             f"--out {args.out} {' '.join(args.instances)}`"
             + (f" (runs.csv also holds {others} other run(s), not summed up here)" if others else ""), "",
             f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}; one worker "
             f"process at a time, each instance's variants back to back.  Limit {args.limit:g} s per run.", "",
             "| variant | decided (of " + str(len({r["instance"] for r in rows})) + ") | wall × lf | CPU × lf | on |", "|---|---:|---:|---:|---:|"]
    for v, (n, wall, cpu) in ratios(rows).items():
        decided = sum(r["variant"] == v and r["result"] in ("unique", "not-unique", "no-board") for r in rows)
        fmt = (lambda x: "–" if x is None else f"{x:.2f}")
        lines.append(f"| {v} | {decided} | {fmt(wall)} | {fmt(cpu)} | {n} |")
    lines += ["", "Per instance (wall s / CPU s, or the result when not unique):", "",
              "| instance | " + " | ".join(variants) + " |", "|---|" + "---:|" * len(variants)]
    cell = {(r["instance"], r["variant"]): r for r in rows}
    for inst in dict.fromkeys(r["instance"] for r in rows):
        vals = []
        for v in variants:
            r = cell.get((inst, v))
            vals.append("" if r is None else f"{r['wall_s']} / {r['cpu_s']}" if r["result"] == "unique" else r["result"])
        lines.append(f"| {inst} | " + " | ".join(vals) + " |")
    lines += ["", "Every run: [runs.csv](runs.csv).  Ratios: geometric mean over the instances both the variant "
              "and lf decided; a timeout is not in them but counts against 'decided'."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
