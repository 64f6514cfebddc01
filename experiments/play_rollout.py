"""Does a rollout (one step of policy improvement) beat ``lookahead``?  Paired games, partial results written as they come.

    python experiments/play_rollout.py --strategy lookahead --games 400 --seed 11 --out experiments/play-rollout
    python experiments/play_rollout.py --strategy rollout --k 6 --m 200 --mode hunt --games 400 --seed 11 \
        --out experiments/play-rollout
    python experiments/play_rollout.py --summarise --out experiments/play-rollout

The experimental strategy (not one of the package's) is ``lookahead`` with its choice
re-examined by simulation.  At a position where it applies (``--mode hunt``: every hit
belongs to a sunk ship; ``--mode all``: every position) it takes the ``k`` cells with the
best lookahead score, draws ``m`` hidden deployments uniformly among those that fit the
position (exact: each ship uniformly among its placements that fit the hints — the same
placement filter as the counting dp — and tuples kept only when the ships do not overlap
and cover every hit; rejection, in numba), and for every candidate and every drawn
deployment plays the game out with a fast base policy that sees only the shots'
announcements (``density``-like: per ship afloat, its placements avoiding misses and
sunk ships' cells; through the open hits weighted ``w ** hits`` in target mode), counting
shots.  The same drawn deployments and tie-breaks serve every candidate (common random
numbers).  The candidate with the fewest mean shots is fired, but it replaces the
lookahead choice only when it is better by ``z`` paired standard errors (``z = 0``:
plain argmin).  Where the draws fail (too few fleets kept in ``--tries``) it plays the
lookahead choice.

Every game appends one line to ``<out>/games_<tag>_s<seed>.csv`` as it ends (a stop
loses nothing); ``--summarise`` reads them all and writes ``summary.json`` / ``summary.md``:
per seed and strategy the mean with its 95 % t-interval, the paired difference to
``lookahead`` on the common games with its interval, and games/s (wall and CPU).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
BOARD = ROOT / "instances" / "deployments" / "standard_10x10.toml"
N_CELLS_MAX = 128


# --------------------------------------------------------------------------------------------------- numba kernels

@njit(cache=False)
def _sample_worlds(pl, plen, allowed, nallowed, hits, m, seed, max_tries):
    """Up to ``m`` uniform fleets (per ship a placement index) among the allowed placements: no overlap, every
    hit covered.  Returns (worlds (m, S), kept, tries)."""
    np.random.seed(seed)
    S = pl.shape[0]
    out = np.empty((m, S), np.int64)
    stamp = np.zeros(N_CELLS_MAX, np.int64)
    kept = 0
    tries = 0
    pick = np.empty(S, np.int64)
    nh = hits.shape[0]
    while kept < m and tries < max_tries:
        tries += 1
        ok = True
        for s in range(S):
            p = allowed[s, np.random.randint(nallowed[s])]
            pick[s] = p
            for j in range(plen[s]):
                c = pl[s, p, j]
                if stamp[c] == tries:
                    ok = False
                    break
                stamp[c] = tries
            if not ok:
                break
        if not ok:
            continue
        for i in range(nh):
            if stamp[hits[i]] != tries:
                ok = False
                break
        if not ok:
            continue
        out[kept, :] = pick
        kept += 1
    return out, kept, tries


@njit(cache=False)
def _base_shot(pl, plen, npl, st, res, sunk, wt, prio, n):
    """The base policy's next cell: per ship afloat, placements avoiding misses and resolved (sunk-ship) cells,
    not wholly hit; target mode (an open hit): only those through open hits, weighted wt[hits covered]."""
    score = np.zeros(N_CELLS_MAX, np.float64)
    target = False
    for c in range(n):
        if st[c] == 2 and not res[c]:
            target = True
            break
    S = pl.shape[0]
    for s in range(S):
        if sunk[s]:
            continue
        L = plen[s]
        for p in range(npl[s]):
            ok = True
            h = 0
            for j in range(L):
                c = pl[s, p, j]
                if st[c] == 1 or res[c]:
                    ok = False
                    break
                if st[c] == 2:
                    h += 1
            if not ok or h == L:
                continue
            if target and h == 0:
                continue
            w = wt[h] if target else 1.0
            for j in range(L):
                c = pl[s, p, j]
                if st[c] == 0:
                    score[c] += w
    best = -1.0
    bp = -1.0
    where = -1
    for c in range(n):
        if st[c] != 0:
            continue
        if score[c] > best or (score[c] == best and prio[c] > bp):
            best = score[c]
            bp = prio[c]
            where = c
    return where


@njit(cache=False)
def _finish(pl, plen, npl, world, st0, sunk0, first, wt, prio, n):
    """Shots to end the game from position (st0, sunk0) in the drawn fleet ``world``: ``first`` (if >= 0), then
    the base policy's shots."""
    S = pl.shape[0]
    owner = np.full(N_CELLS_MAX, -1, np.int64)
    for s in range(S):
        for j in range(plen[s]):
            owner[pl[s, world[s], j]] = s
    st = st0.copy()
    sunk = sunk0.copy()
    res = np.zeros(N_CELLS_MAX, np.bool_)
    left = np.zeros(S, np.int64)
    for s in range(S):
        cnt = 0
        for j in range(plen[s]):
            c = pl[s, world[s], j]
            if st[c] != 2:
                cnt += 1
        left[s] = cnt
        if sunk[s]:
            for j in range(plen[s]):
                res[pl[s, world[s], j]] = True
    afloat = 0
    for s in range(S):
        if left[s] > 0:
            afloat += 1
    shots = 0
    c = first
    while afloat > 0:
        if c < 0:
            c = _base_shot(pl, plen, npl, st, res, sunk, wt, prio, n)
        shots += 1
        o = owner[c]
        if o < 0:
            st[c] = 1
        else:
            st[c] = 2
            left[o] -= 1
            if left[o] == 0:
                sunk[o] = True
                afloat -= 1
                for j in range(plen[o]):
                    res[pl[o, world[o], j]] = True
        c = -1
    return shots


@njit(cache=False)
def _rollouts(pl, plen, npl, worlds, kept, st0, sunk0, cands, wt, prios, n):
    """(K, kept) shots to finish: candidate k fired first in drawn fleet i (common fleets and tie-breaks)."""
    K = cands.shape[0]
    out = np.zeros((K, kept), np.int64)
    for i in range(kept):
        for k in range(K):
            out[k, i] = _finish(pl, plen, npl, worlds[i], st0, sunk0, cands[k], wt, prios[i], n)
    return out


@njit(cache=False)
def _base_games(pl, plen, npl, worlds, wt, prios, n):
    """The base policy alone from the empty board, one game per fleet (its own quality, for the report)."""
    S = pl.shape[0]
    out = np.zeros(worlds.shape[0], np.int64)
    st0 = np.zeros(N_CELLS_MAX, np.int8)
    sunk0 = np.zeros(S, np.bool_)
    for i in range(worlds.shape[0]):
        out[i] = _finish(pl, plen, npl, worlds[i], st0, sunk0, -1, wt, prios[i], n)
    return out


# --------------------------------------------------------------------------------------------------- tables

class Tables:
    """The board's ships (the sampler's labels and order) and their hint-free placements as arrays."""

    def __init__(self, board):
        from harness.play.sample import sampler_for

        smp = sampler_for(board)
        self.labels = list(smp.labels)
        self.cells = sorted(board.cells)
        assert len(self.cells) <= N_CELLS_MAX
        self.index = {c: i for i, c in enumerate(self.cells)}
        S = len(self.labels)
        pmax = max(len(p) for p in smp.placements)
        lmax = max(len(p[0]) for p in smp.placements)
        self.pl = np.zeros((S, pmax, lmax), np.int64)
        self.plen = np.zeros(S, np.int64)
        self.npl = np.zeros(S, np.int64)
        self.masks = []  # per ship (P, n) bool
        for s, places in enumerate(smp.placements):
            self.npl[s] = len(places)
            self.plen[s] = len(places[0])
            mk = np.zeros((len(places), len(self.cells)), np.bool_)
            for p, cells in enumerate(places):
                ids = [self.index[c] for c in cells]
                self.pl[s, p, : len(ids)] = ids
                mk[p, ids] = True
            self.masks.append(mk)
        self.n = len(self.cells)

    def state(self, position):
        st = np.zeros(N_CELLS_MAX, np.int8)
        for c in position.misses:
            st[self.index[c]] = 1
        for c in position.hits:
            st[self.index[c]] = 2
        sunk = np.array([lab in position.sunk_at for lab in self.labels], np.bool_)
        return st, sunk

    def allowed(self, position):
        """Per ship its placements fitting the hints (the counting dp's filter), padded, and how many."""
        n = self.n
        miss = np.zeros(n, np.bool_)
        hit = np.zeros(n, np.bool_)
        for c in position.misses:
            miss[self.index[c]] = True
        for c in position.hits:
            hit[self.index[c]] = True
        rows = []
        for s, lab in enumerate(self.labels):
            mk = self.masks[s]
            ok = ~(mk & miss).any(axis=1)
            within = ~(mk & ~hit).any(axis=1)
            if lab in position.sunk_at:
                ok &= mk[:, self.index[position.sunk_at[lab]]] & within
            else:
                ok &= ~within
            rows.append(np.flatnonzero(ok))
        nal = np.array([len(r) for r in rows], np.int64)
        al = np.zeros((len(rows), max(1, nal.max())), np.int64)
        for s, r in enumerate(rows):
            al[s, : len(r)] = r
        return al, nal, np.array(sorted(self.index[c] for c in position.hits), np.int64)


def _weights(w: float, lmax: int = 6) -> np.ndarray:
    return np.array([w ** h for h in range(lmax + 1)], np.float64)


# --------------------------------------------------------------------------------------------------- strategy

def _rollout_class():
    from harness.play.strategies.lookahead import LookaheadStrategy

    class Rollout(LookaheadStrategy):
        name = "rollout"
        options = {"weight": 0.3, "k": 6, "m": 200, "mode": "hunt", "w": 10.0, "z": 0.0, "tries": 2_000_000,
                   "tables": None}

        def validate(self):
            pass

        def start(self, board, rule, rng):
            super().start(board, rule, rng)
            self.t = self.opts["tables"]
            self.stats = {"decisions": 0, "rollouts": 0, "deviations": 0, "fallbacks": 0, "kept": 0, "tries": 0}

        def shot(self, position):
            sc = self.scores(position)
            order = sorted(position.unknown(), key=lambda c: -sc[c])
            self.stats["decisions"] += 1
            o = self.opts
            hunt = len(position.hits) == sum(self.t.plen[s] for s, lab in enumerate(self.t.labels)
                                             if lab in position.sunk_at)
            if len(order) < 2 or (o["mode"] == "hunt" and not hunt):
                return order[0]
            t = self.t
            al, nal, hits = t.allowed(position)
            seed = int(self.rng.integers(2 ** 31 - 1))
            worlds, kept, tries = _sample_worlds(t.pl, t.plen, al, nal, hits, int(o["m"]), seed, int(o["tries"]))
            self.stats["kept"] += kept
            self.stats["tries"] += tries
            if kept < max(8, int(o["m"]) // 4):
                self.stats["fallbacks"] += 1
                return order[0]
            st, sunk = t.state(position)
            cands = order[: int(o["k"])]
            ci = np.array([t.index[c] for c in cands], np.int64)
            prios = self.rng.random((kept, N_CELLS_MAX))
            shots = _rollouts(t.pl, t.plen, t.npl, worlds[:kept], kept, st, sunk, ci, _weights(float(o["w"])),
                              prios, t.n).astype(np.float64)
            self.stats["rollouts"] += 1
            means = shots.mean(axis=1)
            k = int(np.argmin(means))
            if k == 0:
                return cands[0]
            d = shots[k] - shots[0]
            se = d.std(ddof=1) / math.sqrt(len(d)) if d.std() > 0 else 0.0
            if d.mean() < -float(o["z"]) * se:
                self.stats["deviations"] += 1
                return cands[k]
            return cands[0]

    return Rollout


# --------------------------------------------------------------------------------------------------- running

def _tag(args) -> str:
    if args.strategy != "rollout":
        return args.strategy
    return f"rollout-{args.mode}-k{args.k}-m{args.m}-w{args.w:g}-z{args.z:g}"


def run(args) -> None:
    from harness.counting.format import read_deployment
    from harness.play.game import labelled
    from harness.play.match import play_game
    from harness.play.sample import game_deployment
    from harness.play.strategies import get_strategy
    from harness.play.sample import sampler_for

    board = read_deployment(BOARD)
    sampler = sampler_for(board)
    tables = Tables(labelled(board))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tag = args.tag or _tag(args)
    path = out / f"games_{tag}_s{args.seed}.csv"
    done = set()
    if path.exists():
        with open(path) as fh:
            done = {int(r["game"]) for r in csv.DictReader(fh)}
    new = not path.exists()
    fh = open(path, "a", newline="")
    wr = csv.writer(fh)
    if new:
        wr.writerow(["game", "shots", "wall_s", "cpu_s", "decisions", "rollouts", "deviations", "fallbacks",
                     "kept", "tries"])
        fh.flush()
    Rollout = _rollout_class() if args.strategy == "rollout" else None
    for g in range(args.start, args.start + args.games):
        if g in done:
            continue
        if Rollout is not None:
            strat = Rollout(k=args.k, m=args.m, mode=args.mode, w=args.w, z=args.z, tries=args.tries, tables=tables)
        else:
            strat = get_strategy(args.strategy)()
        w0, c0 = time.perf_counter(), time.process_time()
        rec = play_game(strat, board, game_deployment(sampler, args.seed, g), "ship", (args.seed, g))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        assert rec.error is None, rec.error
        st = getattr(strat, "stats", {})
        wr.writerow([g, rec.shots, f"{wall:.3f}", f"{cpu:.3f}", st.get("decisions", rec.shots),
                     st.get("rollouts", 0), st.get("deviations", 0), st.get("fallbacks", 0), st.get("kept", 0),
                     st.get("tries", 0)])
        fh.flush()
        if args.verbose:
            print(tag, g, rec.shots, f"{wall:.2f}s", st, flush=True)
    fh.close()


def base_check(args) -> None:
    """The base policy on its own: mean shots over fleets drawn by the harness sampler (seed 99)."""
    from harness.counting.format import read_deployment
    from harness.play.game import labelled
    from harness.play.sample import game_deployment
    from harness.play.sample import sampler_for

    board = read_deployment(BOARD)
    sampler = sampler_for(board)
    t = Tables(labelled(board))
    place = [{p: i for i, p in enumerate(pp)} for pp in sampler.placements]
    worlds = np.array([[place[s][tuple(h[lab])] for s, lab in enumerate(t.labels)]
                       for h in (game_deployment(sampler, 99, g) for g in range(args.games))], np.int64)
    prios = np.random.default_rng(5).random((len(worlds), N_CELLS_MAX))
    for w in args.base_w:
        c0 = time.process_time()
        shots = _base_games(t.pl, t.plen, t.npl, worlds, _weights(w), prios, t.n)
        print(f"base policy w={w:g}: {shots.mean():.2f} ± {1.96 * shots.std(ddof=1) / math.sqrt(len(shots)):.2f} "
              f"over {len(shots)} games, {len(shots) / (time.process_time() - c0):.0f} games/s CPU", flush=True)


def noise(args) -> None:
    """How far apart the candidates' rollout values are, and how noisy: lookahead plays game 3 of seed 11; at every
    4th hunt position the top-k candidates get ``--m`` common drawn fleets each."""
    from harness.counting.format import read_deployment
    from harness.play.game import Game, labelled
    from harness.play.sample import game_deployment
    from harness.play.strategies import get_strategy
    from harness.play.sample import sampler_for

    board = read_deployment(BOARD)
    lb = labelled(board)
    t = Tables(lb)
    la = get_strategy("lookahead")()
    la.start(lb, "ship", np.random.default_rng(0))
    g = Game(lb, game_deployment(sampler_for(board), 11, 3), "ship")
    rng = np.random.default_rng(1)
    for step in range(60):
        pos = g.position
        hunt = len(pos.hits) == sum(t.plen[s] for s, lab in enumerate(t.labels) if lab in pos.sunk_at)
        sc = la.scores(pos)
        order = sorted(pos.unknown(), key=lambda c: -sc[c])
        if hunt and step % 4 == 0:
            al, nal, hits = t.allowed(pos)
            w, kept, _ = _sample_worlds(t.pl, t.plen, al, nal, hits, args.m, 7, 10 ** 8)
            st, sunk = t.state(pos)
            ci = np.array([t.index[c] for c in order[: args.k]], np.int64)
            c0 = time.process_time()
            sh = _rollouts(t.pl, t.plen, t.npl, w[:kept], kept, st, sunk, ci, _weights(args.w),
                           rng.random((kept, N_CELLS_MAX)), t.n).astype(np.float64)
            us = (time.process_time() - c0) / kept / len(ci) * 1e6
            d = sh - sh[0]
            print(f"shot {pos.shots}: lookahead scores {[round(sc[c], 3) for c in order[: args.k]]}; "
                  f"mean shots to finish {np.round(sh.mean(1), 2).tolist()}; minus the lookahead choice "
                  f"{np.round(d.mean(1), 2).tolist()}; paired SD {np.round(d.std(1), 2).tolist()} "
                  f"(m = {kept}); {us:.0f} us per rollout", flush=True)
        g.shoot(order[0])
        if g.over:
            break


def _ci(xs):
    from scipy import stats

    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, m, m
    h = stats.t.ppf(0.975, len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - h, m + h


def summarise(args) -> dict:
    out = Path(args.out)
    data: dict = {}
    for p in sorted(out.glob("games_*_s*.csv")):
        tag, seed = p.stem[len("games_"):].rsplit("_s", 1)
        with open(p) as fh:
            rows = list(csv.DictReader(fh))
        if rows:
            data.setdefault(int(seed), {})[tag] = {int(r["game"]): r for r in rows}
    result: dict = {}
    lines = ["# Rollout against lookahead (experiments/play_rollout.py)", ""]
    for seed in sorted(data):
        per = data[seed]
        base = per.get("lookahead", {})
        lines += [f"## seed {seed}", "",
                  "| strategy | games | mean shots [95% t-CI] | paired Δ vs lookahead [95% t-CI] (common games) "
                  "| better/worse | games/s wall | games/s CPU | deviations/rollout decisions |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        result[seed] = {}
        for tag in sorted(per, key=lambda t: (t != "lookahead", t != "posterior", t)):
            rows = per[tag]
            shots = [int(r["shots"]) for r in rows.values()]
            m, lo, hi = _ci(shots)
            wall = sum(float(r["wall_s"]) for r in rows.values())
            cpu = sum(float(r["cpu_s"]) for r in rows.values())
            rec = {"games": len(shots), "mean": m, "ci": [lo, hi], "games_per_s_wall": len(shots) / wall,
                   "games_per_s_cpu": len(shots) / cpu}
            dev = sum(int(r["deviations"]) for r in rows.values())
            rol = sum(int(r["rollouts"]) for r in rows.values())
            rec.update(deviations=dev, rollout_decisions=rol,
                       fallbacks=sum(int(r["fallbacks"]) for r in rows.values()))
            common = sorted(set(rows) & set(base))
            dtext, bw = "—", "—"
            if tag != "lookahead" and len(common) >= 2:
                d = [int(rows[g]["shots"]) - int(base[g]["shots"]) for g in common]
                dm, dlo, dhi = _ci(d)
                rec["paired_vs_lookahead"] = {"games": len(common), "mean": dm, "ci": [dlo, dhi],
                                              "lookahead_mean_on_common": statistics.fmean(
                                                  int(base[g]["shots"]) for g in common),
                                              "better": sum(x < 0 for x in d), "worse": sum(x > 0 for x in d)}
                dtext = f"{dm:+.2f} [{dlo:+.2f}, {dhi:+.2f}] ({len(common)})"
                bw = f"{sum(x < 0 for x in d)}/{sum(x > 0 for x in d)}"
            result[seed][tag] = rec
            lines.append(f"| {tag} | {len(shots)} | {m:.2f} [{lo:.2f}, {hi:.2f}] | {dtext} | {bw} | "
                         f"{rec['games_per_s_wall']:.3f} | {rec['games_per_s_cpu']:.3f} | "
                         f"{dev}/{rol} |")
        lines.append("")
    (out / "summary.json").write_text(json.dumps(result, indent=1))
    (out / "summary.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="rollout", help="rollout, or a package strategy (lookahead, posterior)")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--start", type=int, default=0, help="first game number")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--k", type=int, default=6, help="candidates (best lookahead scores)")
    ap.add_argument("--m", type=int, default=200, help="drawn fleets per decision")
    ap.add_argument("--mode", choices=("hunt", "all"), default="hunt")
    ap.add_argument("--w", type=float, default=10.0, help="base policy: target-mode weight per open hit covered")
    ap.add_argument("--z", type=float, default=0.0, help="deviate from lookahead only when better by z paired SEs")
    ap.add_argument("--tries", type=int, default=2_000_000, help="rejection draws per decision at most")
    ap.add_argument("--tag", default="")
    ap.add_argument("--out", default=str(ROOT / "experiments" / "play-rollout"))
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--summarise", action="store_true")
    ap.add_argument("--base-check", action="store_true", help="measure the base policy alone")
    ap.add_argument("--noise", action="store_true", help="candidate values and their noise on one game")
    ap.add_argument("--base-w", type=float, nargs="*", default=[1.0, 10.0, 100.0])
    args = ap.parse_args(argv)
    if args.summarise:
        summarise(args)
    elif args.noise:
        noise(args)
    elif args.base_check:
        base_check(args)
    else:
        run(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
