"""CP-SAT settings for the generator's oracle: the same recorded questions, replayed per setting.

    python experiments/oracle_workers.py --rows 30 --cols 20 --seed 0 --questions 50 --min-s 4 \\
        --workers 1 --workers 8 --out experiments/oracle-workers
    python experiments/oracle_workers.py --rows 30 --cols 20 --seed 501 --questions 40 --min-s 2 \\
        --setting default=threads=1 --setting long-first=branching=long-first,lazy_lp=false \\
        --out experiments/oracle-branching

    python experiments/oracle_workers.py --rows 30 --cols 20 --seed 508 \\
        --journal instances/large/.partial/large_30x20_minimal_s508.jsonl --last 12 --min-s 20 \\
        --setting lf=threads=1,branching=long-first,lazy_lp=false --setting default=threads=1 --out DIR

A setting is ``LABEL=KEY=VALUE,...``: the cpsat backend's options for the oracle's CP-SAT
fallback (``--workers N`` is short for ``--setting wN=threads=N``), and the oracle's own
``guide=true|false`` (start CP-SAT from the planted board, a solution hint; false unless given).

1. **Record.** Run the minimal-hint search of ``battlebench generate --seed S`` (same
   planted board, same order) until the oracle has asked CP-SAT ``--questions``
   questions; keep each question (the hints, the cells that must differ) and its answer.
2. **Replay** the questions that took at least ``--min-s`` seconds when recorded, once per
   setting, alternating question by question so that the machine's noise hits every
   setting alike.  A replay must give the recorded answer or run past ``--limit`` (counted
   as the limit and reported).

With ``--journal``, step 1 reads the questions of a stopped search from its journal
instead (``battlebench generate``'s ``.partial/NAME.jsonl``; no solver runs), so the late,
sparse questions that a live recording would take hours to reach can be replayed;
``--last N`` keeps the last N.

Writes ``questions.csv`` and ``summary.md`` (seconds per setting and the ratio to the
first one; wall and CPU seconds of this process, which runs CP-SAT in-process).  ``--budget`` lowers CaDiCaL's conflict budget so that small boards ask CP-SAT
too (used by the tests).
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import time
from pathlib import Path

from harness.generate import oracle as oracle_mod
from harness.generate.generator import Settings, minimal_hints, planted_puzzle


class _Enough(Exception):
    """The recording has its questions."""


def parse_setting(text: str) -> tuple[str, dict]:
    """``LABEL=KEY=VALUE,...`` -> (label, cpsat options), parsed as a race leg's and checked by the backend."""
    from harness.backends.registry import get_backend
    from harness.tasks.solve.race import parse_leg

    label, sep, rest = text.partition("=")
    if not sep or not label:
        raise SystemExit(f"--setting {text!r}: expected LABEL=KEY=VALUE,...")
    parts = [p for p in rest.split(",") if p]
    oracle_keys = {p.split("=", 1)[0]: p.split("=", 1)[1] for p in parts if p.startswith(ORACLE_KEYS)}
    rest = ",".join(p for p in parts if not p.startswith(ORACLE_KEYS))
    _, _, options = parse_leg(f"cpsat[{rest}]/placement" if rest else "cpsat/placement")
    resolved = get_backend("cpsat").resolve_options(options)  # typed and checked (UsageError otherwise)
    out = {k: resolved[k] for k in options}
    for key, value in oracle_keys.items():
        if value not in ("true", "false"):
            raise SystemExit(f"--setting {text!r}: {key} is true or false")
        out[key] = value == "true"
    return label, out


ORACLE_KEYS = ("guide=",)  # settings of the oracle itself, not of the cpsat backend


def apply_setting(oracle, options: dict) -> None:
    """The oracle asks CP-SAT with ``options`` (the cpsat backend's, and the oracle's own ``guide``)."""
    oracle.guide = bool(options.get("guide", False))
    oracle.fallback_options = {k: v for k, v in options.items() if k != "guide"}


def record(rows: int, cols: int, seed: int, questions: int, budget: int, options: dict) -> list[dict]:
    """The first ``questions`` CP-SAT questions of a minimal-hint search, with answers and times."""
    planted, base, rng = planted_puzzle(Settings(rows, cols, hints="minimal"), seed)
    oracle = oracle_mod.UniquenessOracle(base, planted, budget=budget)
    apply_setting(oracle, options)
    asked: list[dict] = []
    real = oracle._fallback

    def fallback(cells, flip):
        t0 = time.perf_counter()
        board = real(cells, flip)
        asked.append({"hints": list(cells), "flip": list(flip), "answer": "board" if board is not None else "none",
                      "recorded_s": time.perf_counter() - t0})
        if len(asked) >= questions:
            raise _Enough()
        return board

    oracle._fallback = fallback  # type: ignore[method-assign]
    try:
        minimal_hints(oracle, rng)
    except _Enough:
        pass
    finally:
        oracle.close()
    return asked


def record_journal(rows: int, cols: int, seed: int, path: Path) -> list[dict]:
    """The questions a stopped search's journal answered, with the seconds they took (no solver runs).

    The minimal-hint search of ``seed`` is replayed with the journal's answers (read, never
    written) until they run out; every journaled question is kept -- late ones included,
    which a live recording would take hours to reach."""
    import json

    from harness.generate import generator as gen_mod
    from harness.generate.journal import decode_answer

    lines = Path(path).read_text().splitlines()[1:]
    entries = [json.loads(line) for line in lines if line.strip()]
    planted, base, rng = planted_puzzle(Settings(rows, cols, hints="minimal"), seed)
    oracle = oracle_mod.UniquenessOracle(base, planted)
    asked: list[dict] = []
    last: list = []
    real_qid = gen_mod.question_id

    def qid(rest, chunk):
        last[:] = [list(rest), list(chunk)]
        return real_qid(rest, chunk)

    class Reader:
        def lookup(self, q):
            i = len(asked)
            if i >= len(entries):
                raise _Enough()
            if entries[i]["q"] != q:
                raise SystemExit(f"{path}: answer {i + 1} is for another question (another seed or command?)")
            answer = decode_answer(entries[i]["a"])
            asked.append({"hints": last[0], "flip": last[1], "answer": "none" if answer is None else "board",
                          "recorded_s": float(entries[i].get("s", 0.0)), "index": i})
            return True, answer

        def record(self, *a):
            raise _Enough()

    gen_mod.question_id = qid
    try:
        minimal_hints(oracle, rng, journal=Reader())  # type: ignore[arg-type]
    except _Enough:
        pass
    finally:
        gen_mod.question_id = real_qid
        oracle.close()
    return asked


def replay(rows: int, cols: int, seed: int, asked: list[dict], settings: dict[str, dict], limit: float) -> list[dict]:
    """Each question answered again with each setting (alternating); seconds and agreement."""
    planted, base, _ = planted_puzzle(Settings(rows, cols, hints="minimal"), seed)
    oracle = oracle_mod.UniquenessOracle(base, planted, fallback_limit_s=limit)
    out = []
    try:
        for i, q in enumerate(asked):
            row = {"question": i, "hints": len(q["hints"]), "flip": len(q["flip"]), "answer": q["answer"],
                   "recorded_s": round(q["recorded_s"], 3)}
            for w, options in settings.items():
                apply_setting(oracle, options)
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    got = "board" if oracle._fallback(q["hints"], q["flip"]) is not None else "none"
                except oracle_mod.Undecided:
                    got = "over-limit"
                row[f"{w}_s"] = round(time.perf_counter() - t0, 3) if got != "over-limit" else limit
                row[f"{w}_cpu_s"] = round(time.process_time() - c0, 3)
                if got not in (q["answer"], "over-limit"):
                    raise SystemExit(f"question {i}: setting {w} answered {got}, recorded {q['answer']}")
                row[f"{w}_outcome"] = "ok" if got != "over-limit" else "over-limit"
            out.append(row)
            print(row, flush=True)
    finally:
        oracle.close()
    return out


def summarize(rows: list[dict], settings: dict[str, dict], args: argparse.Namespace, recorded: int) -> str:
    labels = list(settings)
    totals = {w: sum(r[f"{w}_s"] for r in rows) for w in labels}
    first = totals[labels[0]]
    lines = [
        "# CP-SAT settings for the generator's oracle",
        "",
        f"Command: `python experiments/oracle_workers.py --rows {args.rows} --cols {args.cols} --seed {args.seed} "
        f"--questions {args.questions} --min-s {args.min_s:g} " + " ".join(args.shown)
        + f" --limit {args.limit:g} --out {args.out}`",
        "",
        f"Machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}.  "
        + (f"{recorded} questions read from the journal (CaDiCaL's and CP-SAT's answers); "
         if args.journal else f"{recorded} CP-SAT questions recorded (with the first setting); ")
        + f"the {len(rows)} that took at least "
        f"{args.min_s:g} s were replayed with each setting, alternating question by question.",
        "",
        "| setting | options | total_s | cpu_s | ratio_to_first | board_s | none_s | over_limit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w in labels:
        board = sum(r[f"{w}_s"] for r in rows if r["answer"] == "board")
        none = sum(r[f"{w}_s"] for r in rows if r["answer"] == "none")
        cpu = sum(r[f"{w}_cpu_s"] for r in rows)
        over = sum(1 for r in rows if r[f"{w}_outcome"] == "over-limit")
        ratio = totals[w] / first if first else float("nan")
        opts = ", ".join(f"{k}={v}" for k, v in settings[w].items())
        lines.append(f"| {w} | {opts} | {totals[w]:.2f} | {cpu:.2f} | {ratio:.2f} | {board:.2f} | {none:.2f} | {over} |")
    lines += ["", "`total_s`: wall seconds; `cpu_s`: this process's CPU seconds (all CP-SAT workers).  "
              "`board_s` / `none_s`: questions answered by a board / proved to have none.  A question over "
              "the limit counts as the limit.  Per question: [questions.csv](questions.csv)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--cols", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--min-s", type=float, default=0.0, help="replay questions that took at least this long")
    ap.add_argument("--workers", type=int, action="append", default=[], help="short for --setting wN=threads=N")
    ap.add_argument("--setting", action="append", default=[], help="LABEL=KEY=VALUE,... (cpsat options)")
    ap.add_argument("--budget", type=int, default=oracle_mod.CONFLICT_BUDGET)
    ap.add_argument("--journal", help="take the questions from a stopped search's journal (.jsonl) instead")
    ap.add_argument("--last", type=int, default=0, help="with --journal: only its last N questions")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per replayed question")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    settings = {f"w{w}": {"threads": w} for w in args.workers}
    settings.update(parse_setting(t) for t in args.setting)
    if not settings:
        ap.error("give at least one --workers or --setting")
    args.shown = [f"--workers {w}" for w in args.workers] + [f"--setting {t}" for t in args.setting]
    rows_, cols_ = args.rows, args.cols
    if args.journal:
        asked = record_journal(rows_, cols_, args.seed, Path(args.journal))
        if args.last:
            asked = asked[-args.last:]
        args.shown.append(f"--journal {args.journal}" + (f" --last {args.last}" if args.last else ""))
    else:
        asked = record(rows_, cols_, args.seed, args.questions, args.budget, next(iter(settings.values())))
    hard = [q for q in asked if q["recorded_s"] >= args.min_s]
    rows = replay(rows_, cols_, args.seed, hard, settings, args.limit)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fields = ["question", "hints", "flip", "answer", "recorded_s"] + [
        k for w in settings for k in (f"{w}_s", f"{w}_cpu_s", f"{w}_outcome")]
    with open(out / "questions.csv", "w", newline="") as fh:
        wr = csv.DictWriter(fh, fields)
        wr.writeheader()
        wr.writerows(rows)
    text = summarize(rows, settings, args, len(asked))
    (out / "summary.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
