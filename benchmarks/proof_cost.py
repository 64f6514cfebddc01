"""What certified verdicts cost, per suite: proof logging against the same pair without it, checking against solving.

    python benchmarks/proof_cost.py results/proofs --out reports/proofs

Reads the store of ``configs/proofs.toml`` (every pair with ``proof`` beside its twin without, one campaign, runs
interleaved) and writes ``targets.md`` and ``targets.csv``: for each suite (solbat, the generated classic and
unsat puzzles) and each proving pair, the claims and how many are certified, the median over instances of the
solve CPU (and wall) with proof over without -- logging's cost, the check stage kept apart by the record -- and
the median over its proofs whose check finished of check CPU (and wall) over solve CPU, with the proof sizes; where a proof was
checked by several checkers (``proof = "check-all"``), each checker's own median ratio beside the others
(``check_cpu_x[NAME]``, over the checks it finished); issue 51's targets (logging <= 1.5x the solve CPU, checking
<= 10x with the faster checker, median over solbat) beside them.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness.report.claims import plain_label  # noqa: E402

SUITES = {"solbat": "sb_", "classic": "classic_", "unsat": "unsat_", "large": "large_"}
LOGGING_TARGET, CHECK_TARGET = 1.5, 10.0


def _median(values: pd.Series) -> float | None:
    values = values.dropna()
    return float(values.median()) if len(values) else None


def checks_of(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per check of every run that kept its checks (the ``checks`` JSON): the run's index, the checker's
    name (no version), its outcome and CPU seconds."""
    rows = []
    for idx, said in runs.get("checks", pd.Series(dtype=object)).dropna().items():
        for c in json.loads(said):
            rows.append({"run": idx, "checker": str(c["checker"]).split(" ", 1)[0], "outcome": c["outcome"],
                         "cpu_s": float(c.get("cpu_s") or 0.0)})
    return pd.DataFrame(rows, columns=["run", "checker", "outcome", "cpu_s"])


def _per_checker(proved: pd.DataFrame, checks: pd.DataFrame) -> dict[str, float | None]:
    """checker -> the median over the proofs it finished of its check CPU over the solve CPU."""
    mine = checks[checks["run"].isin(proved.index) & (checks["outcome"] != "unfinished")]
    solve = proved["cpu_s"].where(proved["cpu_s"] > 0)
    return {name: _median(g.set_index("run")["cpu_s"] / solve.reindex(g["run"]).values)
            for name, g in mine.groupby("checker")}


def cost_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per suite and proving pair (module doc)."""
    rows = []
    checks = checks_of(runs)
    provers = sorted(p for p in runs["pair"].unique() if plain_label(p) != p)
    for suite, prefix in SUITES.items():
        mine = runs[runs["instance"].str.startswith(prefix)]
        if mine.empty:
            continue
        for pair in provers:
            plain = plain_label(pair)
            both = mine[mine["pair"].isin((pair, plain))].pivot_table(index="instance", columns="pair",
                                                                    values=["cpu_s", "wall_s"], aggfunc="median")
            proved = mine[(mine["pair"] == pair) & mine["proof_bytes"].notna()]
            claims = mine[(mine["pair"] == pair) & mine["claim"].notna()]
            ran = mine[mine["pair"] == pair]
            row = {"suite": suite, "pair": pair, "instances": int(mine["instance"].nunique()),
                   "decided": int(ran["status"].isin(("sat", "unsat")).sum()),
                   "claims": len(claims), "certified": int((claims["certificate"] == "certified").sum()),
                   "proofs": len(proved)}
            for t in ("cpu_s", "wall_s"):
                if (t, pair) in both and (t, plain) in both:
                    row[f"logging_{t[:-2]}_x"] = _median(both[(t, pair)] / both[(t, plain)].where(both[(t, plain)] > 0))
                judged = proved[proved["certificate"].isin(("certified", "rejected"))]  # a check that finished
                checked = judged["check_cpu_s" if t == "cpu_s" else "check_s"]
                row[f"check_over_solve_{t[:-2]}_x"] = _median(checked / judged[t].where(judged[t] > 0))
            per = _per_checker(proved, checks)
            if len(per) > 1:  # several checkers judged these proofs: each one's ratio, side by side
                for name, ratio in sorted(per.items()):
                    row[f"check_cpu_x[{name}]"] = ratio
            row["median_plain_cpu_s"] = _median(both[("cpu_s", plain)]) if ("cpu_s", plain) in both else None
            row["median_proof_mb"] = _median(proved["proof_bytes"] / 1e6)
            row["max_proof_mb"] = float(proved["proof_bytes"].max() / 1e6) if len(proved) else None
            row["max_check_cpu_s"] = float(proved["check_cpu_s"].max()) if len(proved) else None
            rows.append(row)
    return pd.DataFrame(rows)


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return "–"
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def each_proof(runs: pd.DataFrame, prefix: str = "large_") -> pd.DataFrame:
    """Every run of the suite of ``prefix``: its status, solve CPU, claim, proof size and check time."""
    mine = runs[runs["instance"].str.startswith(prefix)].sort_values(["instance", "pair"])
    out = mine[["instance", "pair", "status", "cpu_s", "claim", "certificate", "check_cpu_s"]].copy()
    out.insert(6, "proof_mb", mine["proof_bytes"] / 1e6)
    checks = checks_of(mine)
    if len(checks):  # who checked each proof, how it ended and at what CPU
        said = checks.groupby("run").apply(
            lambda g: "; ".join(f"{c} {o} {t:.3g} s" for c, o, t in zip(g["checker"], g["outcome"], g["cpu_s"])))
        out["checks"] = said.reindex(out.index)
    return out


def write(table: pd.DataFrame, out: Path, store: Path, runs: pd.DataFrame | None = None) -> str:
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "targets.csv", index=False)
    cols = list(table.columns)
    lines = ["# What certified verdicts cost, per suite", "",
             f"`python benchmarks/proof_cost.py {store} --out {out}` (the store of a `configs/proofs*.toml`). "
             "logging: the median over the suite's instances of the pair's solve time with `proof` over its twin's "
             "without (CPU, and wall beside it); check over solve: the median over its proofs of the check's "
             "time over the solve's (the record keeps them apart), over the proofs whose check finished "
             "(certified or rejected). Proofs exist only where a claim was made "
             "(count 2: the unique and the unsat puzzles).", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for r in table.to_dict("records")]
    solbat = table[table["suite"] == "solbat"] if len(table) else table
    lines += ["", "## Targets (median over solbat)", ""] if len(solbat) else []
    for r in solbat.to_dict("records"):
        log, chk, by = r.get("logging_cpu_x"), r.get("check_over_solve_cpu_x"), ""
        each = {k[len("check_cpu_x["):-1]: v for k, v in r.items()
                if k.startswith("check_cpu_x[") and v is not None and not pd.isna(v)}
        if each:  # the target is the faster checker's
            by, chk = min(each.items(), key=lambda kv: kv[1])
            by = f" with {by}, the faster"
        lines.append(f"- {r['pair']}: logging {_fmt(log)}x the solve CPU (target <= {LOGGING_TARGET}): "
                     f"{'met' if log is not None and log <= LOGGING_TARGET else 'not met'}; checking "
                     f"{_fmt(chk)}x{by} (target <= {CHECK_TARGET}, over {r['proofs']} proofs): "
                     f"{'met' if chk is not None and chk <= CHECK_TARGET else 'not met'}; "
                     f"{r['certified']} of {r['claims']} claims certified.")
    large = each_proof(runs) if runs is not None else pd.DataFrame()
    if len(large):
        cols = list(large.columns)
        lines += ["", "## Each run of the large suite", "",
                  "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for r in large.to_dict("records")]
    text = "\n".join(lines) + "\n"
    (out / "targets.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("results", type=Path, help="the results folder of configs/proofs.toml")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    db = args.results / "results.sqlite"
    if not db.is_file():
        raise SystemExit(f"proof_cost: {db}: no results store there")
    with sqlite3.connect(db) as con:
        have = {row[1] for row in con.execute("PRAGMA table_info(runs)")}
        cols = ["instance", "pair", "status", "cpu_s", "wall_s", "claim", "certificate", "proof_bytes",
                "check_cpu_s", "check_s"] + (["checks"] if "checks" in have else [])
        runs = pd.read_sql_query(f"SELECT {', '.join(cols)} FROM runs", con)
    print(write(cost_table(runs), args.out, args.results, runs), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
