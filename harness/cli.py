"""The ``battlebench`` command line: solve, run, export, report, check, generate, convert (and the rest by module)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence

from harness import __version__
from harness.errors import InputError, UsageError

if TYPE_CHECKING:
    from pathlib import Path


def _parse_option(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    return key.strip(), value.strip()


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump), exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"battlebench: error: {message} (see {self.prog} --help)\n")


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="battlebench",
        description="Compare constraint solvers and formulations on Solitaire Battleship puzzles.",
    )
    p.add_argument("--version", action="version", version=f"battlebench {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("solve", help="solve instances with one backend x formulation pair")
    s.add_argument("paths", nargs="+", metavar="PATH", help="instance files (.toml, .dzn, ascii, jolyonb)")
    s.add_argument("--backend", "-b", default=None,
                   help="a backend (battlebench backends lists them) or module:Class (default cpsat)")
    s.add_argument("--formulation", "-f", default=None, help="placement | cell | ship-pairs (default placement)")
    s.add_argument("--race", default=None, metavar="PAIR,PAIR,...",
                   help="race these pairs (BACKEND[KEY=VALUE,...]/FORMULATION), each in its own worker: the first "
                        "decided answer wins, the others are killed (instead of --backend/--formulation/--option)")
    s.add_argument("--count", "-k", type=int, default=None, metavar="K",
                   help="count distinct boards up to K (2 certifies uniqueness, 0 = all)")
    s.add_argument("--time-limit", "-t", type=float, default=None, metavar="S", help="seconds per instance")
    s.add_argument("--grace", type=float, default=None, metavar="S",
                   help="after SIGTERM at the time limit, seconds until SIGKILL (default 5, as in campaigns)")
    s.add_argument("--memory-mb", type=int, default=None, metavar="MB",
                   help="address-space limit of the worker for each instance (default none; campaigns: 4096)")
    s.add_argument("--threads", type=int, default=None, help="solver threads (where the solver has them)")
    s.add_argument("--seed", type=int, default=None, help="random seed passed to the solver")
    s.add_argument("--option", "-o", action="append", type=_parse_option, default=[], metavar="KEY=VALUE",
                   help="backend option, e.g. -o solver=glucose4 -o encoding=totalizer")
    s.add_argument("--format", default=None, help="input format if it cannot be told from the file")
    s.add_argument("--json", action="store_true", help="one JSON object per instance per line")
    s.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)

    ct = sub.add_parser("count", help="count deployments (or boards) of deployment instances exactly")
    ct.add_argument("paths", nargs="+", metavar="PATH", help="deployment files (.toml), or puzzle files")
    ct.add_argument("--by", default="deployments", help="deployments | boards (default deployments)")
    ct.add_argument("--backend", "-b", default="dp", help="dp | frontier | cluster | dlx | sharpsat | cpsat | sat | brute "
                    "(default dp)")
    ct.add_argument("--marginals", action="store_true",
                    help="also the exact probability of a ship in each cell (dp): a text heat map and a PNG")
    ct.add_argument("--png-dir", default=".", metavar="DIR", help="where --marginals writes NAME-marginals.png")
    ct.add_argument("--time-limit", "-t", type=float, default=None, metavar="S", help="seconds per instance")
    ct.add_argument("--memory-mb", type=int, default=None, metavar="MB", help="address-space limit of the worker")
    ct.add_argument("--json", action="store_true", help="one JSON object per instance per line")
    ct.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)

    pl = sub.add_parser("play", help="strategies play the same hidden deployments: shots per game summarised")
    pl.add_argument("--strategy", "-s", action="append", metavar="S",
                    help="random | hunt-target | parity | density | thompson | posterior | lookahead (repeat to "
                    "compare; default random)")
    pl.add_argument("--games", "-n", type=int, default=100, help="games per strategy (default 100)")
    pl.add_argument("--seed", type=int, default=0, help="game i of seed K is one hidden deployment for every strategy")
    pl.add_argument("--board", default="instances/deployments/standard_10x10.toml", metavar="FILE",
                    help="a deployment file without hints (default: the standard 10x10 game)")
    pl.add_argument("--rule", default="ship", help="what a shot announces: ship (hit/miss and the sunk ship's "
                    "name; default) | sunk (unnamed) | none")
    pl.add_argument("--option", "-o", action="append", metavar="S.KEY=VALUE", help="a strategy option, e.g. "
                    "thompson.block=2000")
    pl.add_argument("--json", action="store_true", help="one JSON object per strategy per line")
    pl.add_argument("--watch", action="store_true", help="replay game 0 of the first strategy shot by shot")
    pl.add_argument("--delay", type=float, default=0.0, metavar="S", help="--watch: seconds between shots")
    pl.add_argument("--strip", metavar="PNG", help="draw game 0 of the first strategy: its heat maps every "
                    "--every shots, as a strip of pictures")
    pl.add_argument("--every", type=int, default=8, metavar="K", help="--strip: a picture every K shots")

    r = sub.add_parser("run", help="execute a campaign config (every pair on every instance) into a results store")
    r.add_argument("config", metavar="CONFIG", help="campaign config (TOML), e.g. configs/smoke.toml")
    r.add_argument("--fresh", action="store_true", help="discard the stored results and start over")
    r.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="runs in parallel (overrides the config)")
    r.add_argument("--executor", choices=("local", "dask"), default=None, help="overrides the config")
    r.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:8786), or 'local' for a LocalCluster")
    r.add_argument("--output", "-O", default=None, metavar="DIR", help="results directory (overrides the config)")
    r.add_argument("--progress", choices=("auto", "live", "plain"), default="auto",
                   help="live line on a terminal, plain periodic lines otherwise (default auto)")
    r.add_argument("--interval", type=float, default=10.0, metavar="S", help="seconds between plain progress lines")

    e = sub.add_parser("export", help="write a results store as a table for pandas")
    e.add_argument("results", metavar="DIR", help="results directory (holds results.sqlite)")
    e.add_argument("--format", choices=("csv", "parquet"), default="csv")
    e.add_argument("--out", default=None, metavar="FILE", help="default: DIR/results.csv or DIR/results.parquet")

    rp = sub.add_parser("report", help="tables and plots from a results store (no solver needed)")
    rp.add_argument("results", metavar="RESULTS", help="results directory (holds results.sqlite)")
    rp.add_argument("--out", default=None, metavar="DIR", help="report directory (default RESULTS/report)")
    rp.add_argument("--shift", type=float, default=1.0, metavar="S",
                    help="shift of the shifted geometric mean, seconds (default 1)")
    rp.add_argument("--manifest", default=None, metavar="FILE",
                    help="instance manifest the disagreements are checked against (default: the nearest "
                         "instances/MANIFEST.toml)")

    ck = sub.add_parser("check", help="agreement (and regression) checks over stored results; exit 1 on a problem")
    ck.add_argument("results", metavar="RESULTS", help="results directory (holds results.sqlite)")
    ck.add_argument("--baseline", default=None, metavar="OLD", help="an older results directory to compare with")
    ck.add_argument("--ratio", type=float, default=2.0, help="slowdown ratio counted as a regression (default 2)")
    ck.add_argument("--floor", type=float, default=0.1, metavar="S",
                    help="noise floor: runs under S seconds in both campaigns are never slowdowns (default 0.1)")
    ck.add_argument("--manifest", default=None, metavar="FILE",
                    help="instance manifest with expected statuses/counts (default: the nearest instances/MANIFEST.toml)")
    ck.add_argument("--time", choices=("cpu", "wall"), default="cpu",
                    help="the time slowdowns against --baseline are judged on (default cpu)")
    ck.add_argument("--allow-incomplete", action="store_true",
                    help="do not fail when planned runs are missing (a deliberate partial check)")
    ck.add_argument("--allow-errors", action="store_true", help="do not fail on runs that ended in error")

    g = sub.add_parser("generate", help="generate certified puzzles (planted fleet, hints until unique)")
    g.add_argument("--rows", type=int, required=True, metavar="R")
    g.add_argument("--cols", type=int, required=True, metavar="C")
    g.add_argument("--fleet", default=None, metavar="SPEC",
                   help="LENGTH:COUNT,... e.g. 1:4,2:3,3:2,4:1 (default: about 20%% ship cells, longest ship "
                        "growing with the board)")
    g.add_argument("--density", type=float, default=0.2, help="ship-cell share of the default fleet (default 0.2)")
    g.add_argument("--number", "-n", type=int, default=1, metavar="N", help="puzzles to write (default 1)")
    g.add_argument("--seed", type=int, default=0, metavar="S", help="first seed; puzzle i uses S+i (default 0)")
    g.add_argument("--hints", default="unique", metavar="unique|minimal|N",
                   help="unique: reveal cells until unique; minimal: no hint can be dropped; N: N random hints, "
                        "uniqueness not required (default unique)")
    g.add_argument("--unknown-clues", type=float, default=0.0, metavar="P", help="fraction of clues hidden")
    g.add_argument("--piece-hints", action="store_true", help="reveal ship pieces (ends, middles, submarines)")
    g.add_argument("--touching", action="store_true", help="ships may touch")
    g.add_argument("--unsat", nargs="?", const="any", default=None, metavar="CAUSE",
                   help="make unsat variants: clue-sum, clue-shift, fleet-extra, fleet-swap, wrong-hint "
                        "(no CAUSE: a different cause per puzzle, in turn)")
    g.add_argument("--certify", default="cpsat/placement", metavar="PAIR",
                   help="the pair whose complete count-2 certifies each puzzle (default cpsat/placement); several, "
                        "separated by commas, race: the first decided answer certifies")
    g.add_argument("--certify-limit", type=float, default=600.0, metavar="S", help="seconds (default 600)")
    g.add_argument("--question-limit", type=float, default=120.0, metavar="S",
                   help="seconds for one CP-SAT question of the minimal-hint search; a hint it cannot settle "
                        "ends that seed (default 120; never changes the puzzle)")
    g.add_argument("--prefix", default="gen", help="file-name prefix (default gen)")
    g.add_argument("--keep-existing", action="store_true",
                   help="skip a seed whose file is already in DIR, made by the same command (a long suite "
                        "build run again goes on where it stopped)")
    g.add_argument("--out", required=True, metavar="DIR", help="directory for the native .toml files")
    g.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="seeds made in parallel: N worker processes, or N workers of a local Dask cluster (default 1)")
    g.add_argument("--executor", choices=("local", "dask"), default=None,
                   help="local (default) or dask: one Dask task per seed; OUT must be the same path on every worker")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:8786), or 'local' for a LocalCluster of --jobs workers")

    c = sub.add_parser("convert", help="convert an instance between formats")
    c.add_argument("src", metavar="IN")
    c.add_argument("dst", metavar="OUT", help="output file, or - for standard output")
    c.add_argument("--from", dest="src_format", default=None, help="input format (default: from the name)")
    c.add_argument("--to", dest="dst_format", default=None, help="output format (default: from the name)")

    from harness.backends_cli import add_parsers

    add_parsers(sub, _parse_option)
    return p


def _error(msg: str) -> None:
    print(f"battlebench: error: {msg}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "solve":
            return _cmd_solve(args)
        if args.command == "count":
            from harness.count_cli import cmd_count

            return cmd_count(args)
        if args.command == "play":
            from harness.play_cli import cmd_play

            return cmd_play(args)
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "export":
            return _cmd_export(args)
        if args.command == "report":
            return _cmd_report(args)
        if args.command == "check":
            return _cmd_check(args)
        if args.command == "generate":
            return _cmd_generate(args)
        if args.command == "convert":
            return _cmd_convert(args)
        if args.command == "backends":
            from harness.backends_cli import cmd_backends

            return cmd_backends(args)
        if args.command == "conform":
            from harness.backends_cli import cmd_conform

            return cmd_conform(args)
    except InputError as exc:
        _error(str(exc))
        return 2
    except BrokenPipeError:  # `battlebench check ... | head`: the reader has gone, say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    return 2  # pragma: no cover - argparse guarantees a command


# --------------------------------------------------------------------------- solve
def _cmd_solve(args: argparse.Namespace) -> int:
    from harness.backends.registry import check_pair
    from harness.core.status import Task
    from harness.puzzle.formats import FORMATS, read_instance
    from harness.runner.isolated import IsolatedSolver
    from harness.runner.process import DEFAULT_GRACE_S
    from harness.solve import solve_in_process

    options: dict[str, Any] = dict(args.option)
    if args.threads is not None:
        options["threads"] = args.threads
    if args.seed is not None:
        options["seed"] = args.seed
    legs = _race_legs(args, options) if args.race is not None else None
    if legs is None:
        args.backend, args.formulation = args.backend or "cpsat", args.formulation or "placement"
        check_pair(args.backend, args.formulation).resolve_options(options)  # unknown options fail before any work
    if args.count is not None and args.count < 0:
        raise UsageError("--count must be >= 0")
    if args.time_limit is not None and not (0 < args.time_limit < 1e7):
        raise UsageError("--time-limit must be a number of seconds > 0")
    if args.format is not None and args.format not in FORMATS:
        raise UsageError(f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})")
    if args.grace is not None and not 0 <= args.grace < 1e5:
        raise UsageError("--grace must be a number of seconds >= 0")
    if args.memory_mb is not None and args.memory_mb < 64:
        raise UsageError("--memory-mb must be at least 64 (a Python worker needs that much)")
    task = Task() if args.count is None else Task.count(args.count)

    exit_code = 0
    grace = DEFAULT_GRACE_S if args.grace is None else args.grace
    with IsolatedSolver(grace_s=grace, memory_mb=args.memory_mb) as isolated:
        for path in args.paths:
            try:
                inst = read_instance(path, args.format)
            except InputError as exc:  # report, keep going: nothing computed is lost
                _error(str(exc))
                exit_code = 2
                continue
            race = None
            if legs is not None:
                race = isolated.race(inst, legs, task, args.time_limit)
                res = race.result
            elif args.in_process:
                res = solve_in_process(inst, args.backend, args.formulation, task, options, args.time_limit)
            else:
                res = isolated.solve(inst, args.backend, args.formulation, task, options, args.time_limit)
            if args.json:
                out = res.to_json()
                out["path"] = str(path)
                if race is not None:
                    out.update(race.to_detail())
                print(json.dumps(out), flush=True)
            else:
                print(_render(inst, res) + (f"\n  {race.describe()}" if race is not None else ""), flush=True)
            if not res.decided and exit_code == 0:
                exit_code = 1
    return exit_code


def _race_legs(args: argparse.Namespace, shared: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The legs of ``solve --race``, each checked (backend, formulation, options) before any work."""
    from harness.backends.registry import check_pair
    from harness.runner.race import parse_leg, split_pairs

    if args.backend or args.formulation or args.option or args.in_process:
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


def _render(inst: Any, res: Any) -> str:
    from harness.core.status import Status

    head = f"{inst.name}  {res.backend}/{res.formulation}  {res.task}  status: {res.status}"
    if res.status is Status.SAT:
        if res.task.startswith("count"):
            head += f"  boards: {res.count}" + (" (exact)" if res.complete else " (at least)")
            if res.task == "count-2":
                head += "  unique" if (res.complete and res.count == 1) else "  not unique"
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
            lines.append(_board_with_clues(inst, board))
    return "\n".join(lines) + "\n"


def _board_with_clues(inst: Any, board: Any) -> str:
    def clue(v: int | None) -> str:
        return "?" if v is None else str(v)

    out = [" ".join(row) + "  " + clue(inst.row_clues[r]) for r, row in enumerate(board.rows)]
    width = max(len(clue(v)) for v in inst.col_clues)
    for k in range(width):
        out.append(" ".join(clue(v).rjust(width)[k] for v in inst.col_clues))
    return "\n".join(out)


# --------------------------------------------------------------------------- run, export
def _cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from harness.runner.config import load_config
    from harness.runner.run import run_campaign, with_overrides

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be >= 1")
    if args.interval <= 0:
        raise UsageError("--interval must be > 0")
    config = load_config(args.config)  # every problem is reported before any run starts
    if args.scheduler and not args.executor:
        args.executor = "dask"  # a scheduler address means the Dask executor
    config = with_overrides(config, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                            output=Path(args.output) if args.output else None)
    live = {"auto": None, "live": True, "plain": False}[args.progress]
    outcome = run_campaign(config, fresh=args.fresh, live=live, interval_s=args.interval)
    print(f"results: {outcome.output} ({outcome.stored} of {outcome.total} planned runs stored; "
          f"{outcome.executed} executed now, {outcome.resumed} were already stored)")
    return outcome.exit_code


def _cmd_export(args: argparse.Namespace) -> int:
    from harness.store import export

    path = export(args.results, args.format, args.out)
    print(f"wrote {path}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------- report, check
def _cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from harness.report.render import write_report

    if args.shift < 0:
        raise UsageError("--shift must be >= 0")
    out = Path(args.out) if args.out else Path(args.results) / "report"
    written = write_report(args.results, out, shift_s=args.shift, manifest=args.manifest)
    print(f"wrote {out}/ ({', '.join(sorted(p.name for p in written.values()))})", file=sys.stderr)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from harness.report.gate import CheckOptions, run_check

    if args.ratio <= 1:
        raise UsageError("--ratio must be > 1")
    if args.floor < 0:
        raise UsageError("--floor must be >= 0")
    opts = CheckOptions(baseline=args.baseline, ratio=args.ratio, floor_s=args.floor, time=args.time,
                        manifest=args.manifest, allow_incomplete=args.allow_incomplete,
                        allow_errors=args.allow_errors)
    return run_check(args.results, opts, sys.stdout)


# --------------------------------------------------------------------------- generate
def _parse_fleet(text: str) -> dict[int, int]:
    fleet: dict[int, int] = {}
    for part in text.split(","):
        length, sep, count = part.strip().partition(":")
        if not sep or not length.strip().isdigit() or not count.strip().isdigit():
            raise UsageError(f"--fleet {text!r}: expected LENGTH:COUNT,... (e.g. 1:4,2:3,3:2,4:1), got {part!r}")
        fleet[int(length)] = fleet.get(int(length), 0) + int(count)
    return fleet


def _cmd_generate(args: argparse.Namespace) -> int:
    from harness.generate.certify import parse_certify
    from harness.generate.generator import UNSAT_CAUSES, Settings

    if args.number < 1:
        raise UsageError("--number must be >= 1")
    if args.seed < 0:
        raise UsageError("--seed must be >= 0")
    if not args.question_limit > 0:
        raise UsageError("--question-limit must be a positive number of seconds")
    if args.jobs < 1:
        raise UsageError("--jobs must be >= 1")
    if args.scheduler and not args.executor:
        args.executor = "dask"  # a scheduler address means the Dask executor
    if args.executor == "local" and args.scheduler:
        raise UsageError("--scheduler needs --executor dask")
    hints: str | int = args.hints
    if isinstance(hints, str) and hints.isdigit():
        hints = int(hints)
    parse_certify(args.certify)
    fleet = _parse_fleet(args.fleet) if args.fleet else None

    def settings(i: int) -> Settings:
        cause = UNSAT_CAUSES[i % len(UNSAT_CAUSES)] if args.unsat == "any" else args.unsat
        return Settings(args.rows, args.cols, fleet=fleet, density=args.density, hints=hints,
                        unknown_clues=args.unknown_clues, piece_hints=args.piece_hints, touching=args.touching,
                        unsat=cause, certify=args.certify, certify_limit_s=args.certify_limit, prefix=args.prefix)

    settings(0)  # every setting (the --unsat cause too) is checked by Settings before any work
    previous = _stop_on_sigterm()
    try:
        return _generate_all(args, settings)
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGTERM, previous)


def _generate_all(args: argparse.Namespace, settings: Callable[[int], Any]) -> int:
    """The seeds of ``battlebench generate`` (settings checked already), by :mod:`harness.generate.batch`."""
    from pathlib import Path

    from harness.generate.batch import SeedTask, make_all

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = [SeedTask(settings(i), args.seed + i, str(out), args.question_limit, args.keep_existing)
             for i in range(args.number)]
    return make_all(tasks, executor=args.executor or "local", jobs=args.jobs, scheduler=args.scheduler,
                    emit=lambda line: print(line, flush=True))


def _stop_on_sigterm() -> Any:
    """SIGTERM (a batch system's time limit, ``kill``) stops like Ctrl-C: journal kept, exit 130.

    Returns the handler it replaced (None off the main thread, where handlers cannot be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("SIGTERM")

    return signal.signal(signal.SIGTERM, stop)


# --------------------------------------------------------------------------- convert
def _cmd_convert(args: argparse.Namespace) -> int:
    from harness.puzzle.formats import FORMATS, format_instance, output_format, read_instance, write_instance

    for fmt in (args.src_format, args.dst_format):
        if fmt is not None and fmt not in FORMATS:
            raise UsageError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    inst = read_instance(args.src, args.src_format)
    if args.dst == "-":
        sys.stdout.write(format_instance(inst, args.dst_format or "native"))
        return 0
    fmt = args.dst_format or output_format(args.dst)
    write_instance(inst, args.dst, fmt)
    print(f"wrote {args.dst} ({fmt})", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
