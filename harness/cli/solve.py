"""``battlebench solve``: puzzles solved (or their boards counted up to K) by one pair or a race, in limited workers.

Each file is one run of the solve task through the campaigns' own path
(:meth:`harness.tasks.solve.SolveTask.execute`): a warm worker of the pair, limits from
outside, every board verified here.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from harness.cli.common import (BAD_INPUT, add_limits, add_options, check_limits, command, error, limits_of,
                                plugin_help)
from harness.errors import InputError, UsageError

NAME = "solve"


def add_parser(sub: Any) -> None:
    s = command(sub, NAME, "solve puzzles with one backend x formulation pair (or a race of pairs)",
                "Solve each puzzle (one board, or a proof that none exists), or count its distinct boards up to "
                "K, with one pair, each in a warm worker under the limits; every board goes through the "
                "independent verifier.",
                ["battlebench solve instances/seeds/seed001_15x15.toml",
                 "battlebench solve instances/solbat/sb_12_12_5_0.toml --count 0 --json",
                 "battlebench solve FILE -b sat -f cell -o solver=glucose4 -t 60",
                 "battlebench solve FILE -k 2 --race 'cpsat/placement,sat[solver=glucose4]/placement'"],
                {0: "every puzzle was decided (sat or unsat)",
                 1: "some run was not (timeout, unknown, memout, error, wrong)", 2: BAD_INPUT + "; the other files go on"})
    s.add_argument("paths", nargs="+", metavar="PATH", help="puzzle files (.toml, .dzn, ascii, jolyonb)")
    from harness.backends.registry import FAMILY

    s.add_argument("--backend", "-b", default=None,
                   help=f"{plugin_help('backend', FAMILY)} (default: {FAMILY.default})")
    s.add_argument("--formulation", "-f", default=None,
                   help="placement | cell | ship-pairs, as the backend has them (default: placement)")
    s.add_argument("--race", default=None, metavar="PAIR,PAIR,...",
                   help="race these pairs (BACKEND[KEY=VALUE,...]/FORMULATION), each in its own worker: the first "
                        "decided answer wins, the others are killed (instead of --backend/--formulation/--option)")
    s.add_argument("--count", "-k", type=int, default=None, metavar="K",
                   help="the count-K question: distinct boards up to K (2 certifies uniqueness, 0 = all) "
                        "(default: solve, one board)")
    add_limits(s, "puzzle")
    s.add_argument("--threads", type=int, default=None, help="solver threads (where the solver has them) "
                   "(default: the backend's, 1)")
    s.add_argument("--seed", type=int, default=None, metavar="S",
                   help="random seed: the same seed, the same run; passed to the solver and named in the pair's "
                        "label when given (default: 0, the backend's own)")
    add_options(s, "backend", "solver=glucose4")
    s.add_argument("--proof", action="store_const", const="check", default=None,
                   help="log a proof of the unsat claim (no board; no further board) and check it in the worker by "
                        "the fastest checker here: the pair's option proof=check (sat, and tool entries that "
                        "declare a proof format); the result says certified, rejected or unchecked")
    s.add_argument("--proof-all", dest="proof", action="store_const", const="check-all",
                   help="as --proof, checked by a checker of every lineage here (proof=check-all)")
    s.add_argument("--input-format", "--format", dest="input_format", default=None, metavar="FORMAT",
                   help="the puzzles' format if it cannot be told from the file name (--format: its old spelling) "
                        "(default: from the name)")
    s.add_argument("--json", action="store_true", help="one JSON object per puzzle per line")
    s.add_argument("--in-process", action="store_true",
                   help="run the pair in this process, without a worker: no warm-up and no process start, but no hard "
                        "limit either (--time-limit is only the backend's own deadline; --memory-mb and --race are "
                        "refused); every board is still verified, and --json says \"isolation\": \"in-process\"")


def run(args: argparse.Namespace) -> int:
    from harness.backends.registry import DEFAULT_BACKEND, DEFAULT_FORMULATION, check_pair
    from harness.core.status import Question
    from harness.core.task import RACE, PairSpec, Subject, make_spec
    from harness.puzzle.formats import FORMATS, read_instance
    from harness.runner.process import WorkerPool
    from harness.tasks.solve.run import solve_in_process
    from harness.tasks.solve import SolveTask, spec_of

    options: dict[str, Any] = dict(args.option)
    if args.threads is not None:
        options["threads"] = args.threads
    if args.seed is not None:
        options["seed"] = args.seed
    if args.proof is not None:
        options["proof"] = args.proof
    if args.in_process and (args.race is not None or args.memory_mb is not None):
        flag, why = (("--race", "a race needs a worker per pair") if args.race is not None
                     else ("--memory-mb", "no memory limit holds there"))
        raise UsageError(f"--in-process runs the pair in this process, without a worker: {why} (leave out "
                         f"--in-process or {flag})")
    legs = _race_legs(args, options) if args.race is not None else None
    if legs is None:
        args.backend = args.backend or DEFAULT_BACKEND
        args.formulation = args.formulation or DEFAULT_FORMULATION
        check_pair(args.backend, args.formulation).resolve_options(options)  # unknown options fail before any work
    if args.count is not None and args.count < 0:
        raise UsageError(f"--count must be >= 0, not {args.count:g}")
    check_limits(args)
    if args.input_format is not None and args.input_format not in FORMATS:
        raise UsageError(f"unknown format {args.input_format!r} (choose from {', '.join(FORMATS)})")
    question = Question() if args.count is None else Question.count(args.count)
    if legs is not None:
        pair = PairSpec(RACE, RACE, legs=tuple(PairSpec(b, f, tuple(sorted(o.items()))) for b, f, o in legs))
    else:
        pair = PairSpec(args.backend, args.formulation, tuple(sorted(options.items())))
    limits = limits_of(args)

    exit_code = 0
    task = SolveTask()
    with WorkerPool() as pool:
        for path in args.paths:
            try:
                inst = read_instance(path, args.input_format)
            except InputError as exc:  # report, keep going: nothing computed is lost
                error(str(exc))
                exit_code = 2
                continue
            race = None
            if args.in_process:
                res = solve_in_process(inst, args.backend, args.formulation, question, options, args.time_limit)
            else:
                subject = Subject(str(path), inst, inst.name, inst.content_hash())
                done = task.execute(pool, make_spec(subject, pair, spec_of(question), None, 1, limits))
                if legs is not None:
                    race = done.result
                    res = race.result
                else:
                    res = done.result
            if args.json:
                out = res.to_json()
                out["path"] = str(path)
                if args.in_process:
                    out["isolation"] = "in-process"
                if race is not None:
                    out.update(race.to_detail())
                print(json.dumps(out), flush=True)
            else:
                print(render(inst, res) + (f"\n  {race.describe()}" if race is not None else ""), flush=True)
            if not res.decided and exit_code == 0:
                exit_code = 1
    return exit_code


def _race_legs(args: argparse.Namespace, shared: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The legs of ``solve --race``, each checked (backend, formulation, options) before any work."""
    from harness.backends.registry import check_pair
    from harness.tasks.solve.race import parse_leg, split_pairs

    if args.backend or args.formulation or args.option:
        raise UsageError("--race names its pairs itself: leave out --backend, --formulation and --option "
                         "(options go in brackets: sat[solver=glucose4]/placement)")
    legs = []
    for text in split_pairs(args.race):
        backend, formulation, options = parse_leg(text)
        options = {**shared, **options}
        check_pair(backend, formulation).resolve_options(options)
        legs.append((backend, formulation, options))
    if len(legs) < 2:
        raise UsageError(f"--race {args.race!r}: name at least two pairs, separated by commas")
    if len({(b, f, json.dumps(o, sort_keys=True)) for b, f, o in legs}) < len(legs):
        raise UsageError(f"--race {args.race!r}: a pair is named twice")
    return legs


def render(inst: Any, res: Any) -> str:
    """One puzzle's result as text: the status line, then each board with its clues."""
    from harness.core.status import Status

    head = f"{inst.name}  {res.backend}/{res.formulation}  {res.task}  status: {res.status}"
    if res.status is Status.SAT:
        if res.task.startswith("count"):
            head += f"  boards: {res.count}" + (" (exact)" if res.complete else " (at least)")
            if res.unique:
                head += "  unique"
            elif res.unique is False:
                head += f"  not unique ({'' if res.complete else 'at least '}{res.count} boards)"
    if res.certificate is not None and res.certificate != "trusted":
        head += f"  {res.claim}: {res.certificate} ({res.certificate_why})"
    t = res.times
    if "build_s" in t:
        head += f"  build {t['build_s']:.3f} s  solve {t['solve_s']:.3f} s"
    lines = [head]
    if res.error:
        lines.append(f"  error: {res.error}")
    if res.detail and res.status is not Status.SAT and not res.error:
        lines.append(f"  {res.detail.splitlines()[0]}")
    if res.status is Status.WRONG:
        lines.extend(f"  verifier: {v}" for v in res.verdicts if not v.startswith("ok"))
    if res.status is Status.SAT:
        for i, board in enumerate(res.boards, 1):
            if len(res.boards) > 1:
                lines.append(f"board {i}:")
            lines.append(board_with_clues(inst, board))
    return "\n".join(lines) + "\n"


def board_with_clues(inst: Any, board: Any) -> str:
    def clue(v: int | None) -> str:
        return "?" if v is None else str(v)

    out = [" ".join(row) + "  " + clue(inst.row_clues[r]) for r, row in enumerate(board.rows)]
    width = max(len(clue(v)) for v in inst.col_clues)
    for k in range(width):
        out.append(" ".join(clue(v).rjust(width)[k] for v in inst.col_clues))
    return "\n".join(out)


__all__ = ["NAME", "add_parser", "board_with_clues", "render", "run"]
