"""The dp's dispatch against each exact programme forced, first call and warm, on the issue's target instances.

    python benchmarks/counting_dispatch.py --out reports/counting-dispatch [--limit 60]

Each (instance, programme) leg runs in a fresh Python process (so "first call" is what a
new ``battlebench count`` pays once numba's on-disk cache holds the compiled code; the
benchmark does not clear that cache) with a limit of ``--limit`` seconds: it times the
first count and then a second, warm one, CPU and wall, and checks the counts: every leg
of an instance must give the same integer (the instance's known count where it has one).
Marginals of a 10x10 no-touch game position after 12 shots are timed the same way, warm being
the median CPU time of the five calls after the first two (the profile programme keeps its layer
buffer between calls, sized by the call before; a game asks for position after position; the
median, as one call's time moves with the machine's other work), and every method giving marginals must give
the same integers; ``battlebench play -s posterior`` on the
no-touch and the standard 10x10 boards side by side (``--games`` games each: games per CPU second
as the play command reports them, the strategy's memo of positions warming up over the games),
and the cold start: ``battlebench count`` with numba's cache in an empty folder, then again.  Writes ``legs.csv`` and ``summary.md``
(warm CPU side by side, the ratio of each programme to the dp); exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "instances" / "deployments"
STANDARD = [(5, 1), (4, 1), (3, 2), (2, 1)]
GERMAN = [(5, 1), (4, 2), (3, 3), (2, 4)]
RUSSIAN = [(4, 1), (3, 2), (2, 3), (1, 4)]
KNOWN = {"german_10x10_notouch": 26509655816984, "russian_10x10_notouch": 1855545978831780}

# name -> (file, or (rows, cols, fleet, touching))
INSTANCES = {
    "standard_10x10_notouch": (DEPLOY / "standard_10x10_notouch_unlabelled.toml"),
    "standard_12x12_notouch": (12, 12, STANDARD, False),
    "standard_15x15_notouch": (15, 15, STANDARD, False),
    "standard_30x30_notouch": (30, 30, STANDARD, False),
    "standard_10x10": (DEPLOY / "standard_10x10.toml"),
    "standard_50x50": (50, 50, STANDARD, True),
    "standard_100x100": (100, 100, STANDARD, True),
    "german_10x10_notouch": (10, 10, GERMAN, False),
    "russian_10x10_notouch": (10, 10, RUSSIAN, False),
    "hex_blue": (DEPLOY / "hex_blue.toml"),
    "hex_green": (DEPLOY / "hex_green.toml"),
    "sb_12_12_5_0 (clues)": (REPO / "instances" / "solbat" / "sb_12_12_5_0.toml"),
}
PROGRAMMES = ("dp", "cluster", "rows", "profile", "frontier", "sat")
COLD = ("standard_10x10", "standard_10x10_notouch_unlabelled",  # the cold start is timed on these: the cluster,
        "tiny/t6x6_position", "islands/scattered_8x8_notouch", "hex_blue")  # rows, profile, frontier
GAMES = ("standard_10x10_notouch_unlabelled", "standard_10x10")  # posterior's games per second on these
ENUMERATED = {"sb_12_12_5_0 (clues)"}  # the sat counter's enumeration is timed on these only (few boards)

LEG = r'''
import json, sys, time
from harness.counting.format import parse_deployment, read_deployment
spec, prog = json.loads(sys.argv[1]), sys.argv[2]
if isinstance(spec, str):
    dep = read_deployment(spec)
else:
    rows, cols, fleet, touching = spec
    text = "".join(f"[pieces.P{L}]\nlength = {L}\ncount = {n}\n" for L, n in fleet)
    dep = parse_deployment(f'[grid]\nkind = "square"\nrows = {rows}\ncols = {cols}\n[rules]\n'
                           f'touching = {str(touching).lower()}\n{text}', file="bench")
from harness.counting.counters import get_counter
from harness.counting.placements import layout
from harness.counting.reduce import without_sunk
def run():
    if prog in ("dp", "cluster", "frontier", "sat"):
        counter = get_counter(prog)
        why = counter.refuses(dep)
        if why:
            return None, why
        a = counter().count(dep)
        return a.count, a.detail.get("method", prog)
    from harness.counting import profile, rows
    d, _ = without_sunk(dep)
    lay = layout(d)
    mod = {"rows": rows, "profile": profile}[prog]
    why = mod.unsupported(d, lay)
    if why:
        return None, why
    return (rows.count(lay) if prog == "rows" else profile.count(d, lay)[0]), prog
out = {}
for leg in ("first", "warm"):
    c0, w0 = time.process_time(), time.perf_counter()
    count, how = run()
    out[leg] = {"cpu": time.process_time() - c0, "wall": time.perf_counter() - w0}
    if count is None:
        print(json.dumps({"refused": how})); sys.exit(0)
    out["count"], out["how"] = str(count), how
print(json.dumps(out))
'''

MARGINALS = r'''
import json, random, sys, time
from harness.counting.format import read_deployment
from harness.counting.marginals import marginals
from harness.play.game import Game, labelled
from harness.play.sample import game_deployment, sampler_for
board = labelled(read_deployment(sys.argv[1]))
method = None if sys.argv[2] == "dp" else sys.argv[2]
out = {}
sampler = sampler_for(board)
for g in range(3):
    game = Game(board, game_deployment(sampler, 7, g))
    cells = sorted(board.cells)
    random.Random(g).shuffle(cells)
    for c in cells[:12]:
        game.shoot(c)
    dep = game.position.deployment()
    for leg in ("first", "again", "warm"):  # warm: the median of five calls after those two (the layer buffer
        times = []                          # kept at the size it needs; the median: one call is at the machine's mercy)
        for _ in range(5 if leg == "warm" else 1):
            c0, w0 = time.process_time(), time.perf_counter()
            m = marginals(dep, method)
            times.append((time.process_time() - c0, time.perf_counter() - w0))
        times.sort()
        out.setdefault(leg, []).append({"cpu": times[len(times) // 2][0], "wall": times[len(times) // 2][1]})
    out.setdefault("totals", []).append(str(m.total))
    out.setdefault("occupied", []).append(sum(m.occupied.values()))
print(json.dumps(out))
'''


def leg(code: str, args: list[str], limit: float) -> dict:
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=limit,
                              cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"timeout": limit}
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    got = json.loads(done.stdout.strip().splitlines()[-1])
    got["process_s"] = time.perf_counter() - start
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "reports" / "counting-dispatch")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per leg (first and warm call together)")
    ap.add_argument("--only", nargs="*", help="instance names to run (default: all)")
    ap.add_argument("--games", type=int, default=30, help="posterior games per board")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows, bad = [], []
    for name, spec in INSTANCES.items():
        if args.only and name not in args.only:
            continue
        arg = json.dumps(str(spec) if isinstance(spec, Path) else list(spec))
        counts = {}
        for prog in PROGRAMMES:
            if prog == "sat" and name not in ENUMERATED:
                continue
            got = leg(LEG, [arg, prog], args.limit)
            row = {"instance": name, "programme": prog, "how": got.get("how", ""), "count": got.get("count", ""),
                   "first_cpu_s": got.get("first", {}).get("cpu", ""), "first_wall_s": got.get("first", {}).get("wall", ""),
                   "warm_cpu_s": got.get("warm", {}).get("cpu", ""), "warm_wall_s": got.get("warm", {}).get("wall", ""),
                   "note": got.get("refused") or got.get("error") or (f"over {got['timeout']:.0f} s" if "timeout" in got else "")}
            rows.append(row)
            if row["count"]:
                counts[prog] = int(row["count"])
            print(name, prog, row["how"], row["count"], row["warm_cpu_s"], row["note"], flush=True)
        known = KNOWN.get(name)
        values = set(counts.values()) | ({known} if known else set())
        if len(values) > 1:
            bad.append(f"{name}: {counts} (known {known})")
    cold = [cold_start(DEPLOY / f"{name}.toml") for name in COLD]
    games = [play(DEPLOY / f"{name}.toml", args.games) for name in GAMES]
    mrows = []
    board = str(DEPLOY / "standard_10x10_notouch_unlabelled.toml")
    seen = set()
    for method in ("dp", "profile", "frontier"):
        got = leg(MARGINALS, [board, method], args.limit * 5)
        mrows.append({"method": method, **got})
        if "totals" in got:
            seen.add((tuple(got["totals"]), tuple(got["occupied"])))
        print("marginals", method, got.get("warm"), got.get("timeout") or got.get("error") or "", flush=True)
    if len(seen) > 1:
        bad.append(f"marginals disagree: {seen}")
    with open(args.out / "legs.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    (args.out / "marginals.json").write_text(json.dumps(mrows, indent=1))
    (args.out / "games.json").write_text(json.dumps(games, indent=1))
    (args.out / "summary.md").write_text(summary(rows, mrows, cold, bad, args, games))
    print("\n".join(bad) or "every programme agrees on every instance")
    return 1 if bad else 0


def cold_start(path: Path) -> dict:
    """``battlebench count PATH`` twice with numba's cache in an empty folder: the first pays compilation (the
    worker's warm-up), the second does not; CPU of the whole command (children included) and the warm-up."""
    import resource
    import tempfile

    out = {"instance": path.stem}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": tmp}
        for leg_name in ("cold", "cached"):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run([str(Path(sys.executable).parent / "battlebench"), "count", str(path), "--json"], env=env,
                                  capture_output=True, text=True, cwd=REPO)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            got = json.loads(done.stdout) if done.returncode == 0 else {}
            out[leg_name] = {"cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
                             "warmup": got.get("times", {}).get("warmup_s"), "count": got.get("count")}
    return out


def play(path: Path, games: int) -> dict:
    """``battlebench play --board PATH -s posterior -n GAMES --json``: its summary (games per second of the
    workers' measured game times, wall and CPU) and the command's own wall time."""
    start = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "battlebench"), "play", "--board", str(path), "-s",
                           "posterior", "-n", str(games), "--json"], capture_output=True, text=True, cwd=REPO)
    got = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {"error": done.stderr[-300:]}
    return {"board": path.stem, "games": games, "command_wall_s": time.perf_counter() - start, **got}


def _fmt(v) -> str:
    return f"{v:.3f}" if isinstance(v, float) else (v or "–")


def summary(rows: list[dict], mrows: list[dict], cold: list[dict], bad: list[str], args, games=()) -> str:
    out = ["# The dp's dispatch against each exact programme forced", "",
           f"`python benchmarks/counting_dispatch.py --out {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}"
           f" --limit {args.limit:g}`: each leg a fresh process (numba's on-disk cache warm), a first count then a "
           "warm one; CPU seconds of the count call (wall beside it in legs.csv). – : the programme refuses the "
           "instance (legs.csv says why) or passed the limit.", "",
           "| instance | count | dp ran | dp first CPU | dp warm CPU | " + " | ".join(f"{p} warm CPU" for p in PROGRAMMES[1:])
           + " | fastest forced / dp |", "|---|---:|---|---:|---:|" + "---:|" * (len(PROGRAMMES) - 1) + "---:|"]
    by = {}
    for r in rows:
        by.setdefault(r["instance"], {})[r["programme"]] = r
    for name, legs in by.items():
        dp = legs["dp"]
        cells = []
        best = None
        for p in PROGRAMMES[1:]:
            r = legs.get(p, {})
            v = r.get("warm_cpu_s")
            cells.append(_fmt(v) if v != "" else ("> limit" if "over" in r.get("note", "") else "–"))
            if isinstance(v, float):
                best = v if best is None else min(best, v)
        ratio = f"{best / dp['warm_cpu_s']:.2f}" if isinstance(dp.get("warm_cpu_s"), float) and best else "–"
        count = dp["count"] or next((r["count"] for r in legs.values() if r["count"]), "")
        out.append(f"| {name} | {int(count):,} | {dp['how'] or dp['note']} | {_fmt(dp['first_cpu_s'])} | "
                   f"{_fmt(dp['warm_cpu_s'])} | " + " | ".join(cells) + f" | {ratio} |" if count else
                   f"| {name} | – | {dp['note']} | – | – | " + " | ".join(cells) + " | – |")
    out += ["", "## Marginals of a 10x10 no-touch game position after 12 shots (3 positions)", "",
            "| method | first CPU per call (s) | second (s) | warm: median of the next five (s) | warm, each position (s) | totals |",
            "|---|---:|---:|---:|---|---|"]
    for m in mrows:
        if "warm" in m:
            first, again, warm = (sum(x["cpu"] for x in m[k]) / len(m[k]) for k in ("first", "again", "warm"))
            each = ", ".join(f"{x['cpu']:.3f}" for x in m["warm"])
            out.append(f"| {m['method']} | {first:.3f} | {again:.3f} | {warm:.3f} | {each} | {', '.join(m['totals'])} |")
        else:
            out.append(f"| {m['method']} | – | – | – | – | {m.get('timeout') or m.get('error')} |")
    out += ["", f"## `battlebench play --board FILE -s posterior -n {args.games}` (one worker; its memo of positions "
            "fills over the games)", "",
            "| board | games | mean shots | games per s | games per CPU s | command wall (s) |", "|---|---:|---:|---:|---:|---:|"]
    for g in games:
        if "error" in g:
            out.append(f"| {g['board']} | {g['games']} | – | – | – | {g['error']} |")
        else:
            out.append(f"| {g['board']} | {g['completed']} | {g['mean_shots']:.1f} | {g['games_per_s']:.2f} | "
                       f"{g['cpu_games_per_s']:.2f} | {g['command_wall_s']:.1f} |")
    out += ["", "## Cold start: `battlebench count FILE` with numba's cache empty, then again", "",
            "| instance | first: command CPU (s) | its worker's warm-up (s) | again: command CPU (s) | warm-up (s) |",
            "|---|---:|---:|---:|---:|"]
    for c in cold:
        out.append(f"| {c['instance']} | {c['cold']['cpu']:.1f} | {_fmt(c['cold']['warmup'])} | {c['cached']['cpu']:.1f} | "
                   f"{_fmt(c['cached']['warmup'])} |")
    out += ["", "Agreement: " + ("; ".join(bad) if bad else "every programme that counted an instance gave the same "
                                 "integer, equal to its known count where it has one; the marginals' methods agree."), ""]
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
