"""``battlebench generate``: certified puzzles (a planted fleet, hints until unique), journaled and resumable."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from harness.cli.common import BAD_INPUT, check_jobs, command
from harness.errors import UsageError

NAME = "generate"


def add_parser(sub: Any) -> None:
    g = command(sub, NAME, "generate certified puzzles (planted fleet, hints until unique)",
                "Plant a fleet, derive its clues and reveal hints until the puzzle has one board (certified by a "
                "complete count-2), or make unsat variants; every oracle answer is journaled, so a stopped "
                "generation goes on where it stopped.",
                ["battlebench generate --rows 10 --cols 10 --number 5 --out /tmp/gen",
                 "battlebench generate --rows 30 --cols 20 --hints minimal --seed 501 --out instances/large --jobs 2"],
                {0: "every puzzle was written", 1: "some seed failed (its reason is printed; the others go on)",
                 2: BAD_INPUT, 130: "interrupted or SIGTERM (the journals keep every answer)"})
    g.add_argument("--rows", type=int, required=True, metavar="R", help="board rows (required)")
    g.add_argument("--cols", type=int, required=True, metavar="C", help="board columns (required)")
    g.add_argument("--fleet", default=None, metavar="SPEC",
                   help="LENGTH:COUNT,... e.g. 1:4,2:3,3:2,4:1 (default: about 20%% ship cells, longest ship "
                        "growing with the board)")
    g.add_argument("--density", type=float, default=0.2, help="ship-cell share of the default fleet")
    g.add_argument("--number", "-n", type=int, default=1, metavar="N", help="puzzles to write")
    g.add_argument("--seed", type=int, default=0, metavar="S",
                   help="random seed: the same seed, the same puzzles (the first seed; puzzle i uses S+i)")
    g.add_argument("--hints", default="unique", metavar="unique|minimal|N",
                   help="unique: reveal cells until unique; minimal: no hint can be dropped; N: N random hints, "
                        "uniqueness not required")
    g.add_argument("--unknown-clues", type=float, default=0.0, metavar="P", help="fraction of clues hidden")
    g.add_argument("--piece-hints", action="store_true", help="reveal ship pieces (ends, middles, submarines)")
    g.add_argument("--touching", action="store_true", help="ships may touch")
    g.add_argument("--unsat", nargs="?", const="any", default=None, metavar="CAUSE",
                   help="make unsat variants: clue-sum, clue-shift, fleet-extra, fleet-swap, wrong-hint "
                        "(no CAUSE: a different cause per puzzle, in turn) (default: none, solvable puzzles)")
    g.add_argument("--certify", default=None, metavar="PAIR",
                   help="the pair whose complete count-2 certifies each puzzle; several, separated by commas, "
                        "race: the first decided answer certifies (default: cpsat/placement; with --proof, "
                        "sat/placement)")
    g.add_argument("--proof", action="store_const", const="check", default=None,
                   help="certify by a checked proof: the certifying pair (with --certify left out, "
                        "sat/placement) logs a proof of its claim (unique: no further board; unsat: no board), "
                        "the fastest checker here accepts it in the worker, and the file's certificate names "
                        "both; a seed whose claim is not certified fails")
    g.add_argument("--proof-all", dest="proof", action="store_const", const="check-all",
                   help="as --proof, checked by a checker of every lineage here")
    g.add_argument("--certify-limit", type=float, default=600.0, metavar="S", help="seconds per certification")
    g.add_argument("--question-limit", type=float, default=120.0, metavar="S",
                   help="seconds for one CP-SAT question of the minimal-hint search; a hint it cannot settle "
                        "ends that seed (never changes the puzzle)")
    g.add_argument("--prefix", default="gen",
                   help="file-name prefix: letters, digits and ._-+=,@~, not starting with . (it begins every "
                        "puzzle's name and file name)")
    g.add_argument("--keep-existing", action="store_true",
                   help="skip a seed whose file is already in DIR, made by the same command (a long suite "
                        "build run again goes on where it stopped)")
    g.add_argument("--out", required=True, metavar="DIR", help="directory for the native .toml files (required)")
    g.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="seeds made in parallel: N worker processes, or N workers of a local Dask cluster")
    g.add_argument("--executor", choices=("local", "dask", "slurm"), default=None,
                   help="local; dask: one Dask task per seed; slurm: one SLURM job per seed (submitit, "
                        "SLURM_CONF's cluster); OUT must be the same path on every worker or node (default: local)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:8786), or 'local' for a LocalCluster of --jobs workers "
                        "(default: none)")


PROOF_PAIR = "sat/placement"
"""What certifies with ``--proof`` when ``--certify`` is left out (the default pair, CP-SAT, logs no proof)."""


def _proving(certify: str, mode: str) -> str:
    """``--certify`` with ``--proof``: every leg with the option ``proof`` (check, check-all) unless it sets one."""
    from harness.tasks.solve.race import leg_label, parse_leg, split_pairs

    legs = []
    for text in split_pairs(certify):
        backend, formulation, options = parse_leg(text)
        legs.append(leg_label(backend, formulation, {**options, "proof": options.get("proof", mode)}))
    return ",".join(legs)


def _parse_fleet(text: str) -> dict[int, int]:
    fleet: dict[int, int] = {}
    for part in text.split(","):
        length, sep, count = part.strip().partition(":")
        if not sep or not length.strip().isdigit() or not count.strip().isdigit():
            raise UsageError(f"--fleet {text!r}: expected LENGTH:COUNT,... (e.g. 1:4,2:3,3:2,4:1), got {part!r}")
        fleet[int(length)] = fleet.get(int(length), 0) + int(count)
    return fleet


def run(args: argparse.Namespace) -> int:
    from harness.generate.certify import parse_certify
    from harness.generate.generator import UNSAT_CAUSES, Settings

    if args.number < 1:
        raise UsageError(f"--number must be >= 1, not {args.number:g}")
    if args.seed < 0:
        raise UsageError(f"--seed must be >= 0, not {args.seed:g}")
    if not args.question_limit > 0:
        raise UsageError(f"--question-limit must be a positive number of seconds, not {args.question_limit:g}")
    check_jobs(args.jobs)
    if args.scheduler and not args.executor:
        args.executor = "dask"  # a scheduler address means the Dask executor
    if args.executor in ("local", "slurm") and args.scheduler:
        raise UsageError("--scheduler needs --executor dask")
    hints: str | int = args.hints
    if isinstance(hints, str) and hints.isdigit():
        hints = int(hints)
    from harness.generate.certify import DEFAULT_PAIR

    if args.proof:
        args.certify = _proving(args.certify or PROOF_PAIR, args.proof)
    args.certify = args.certify or DEFAULT_PAIR
    parse_certify(args.certify)
    fleet = _parse_fleet(args.fleet) if args.fleet else None

    def settings(i: int) -> Settings:
        cause = UNSAT_CAUSES[i % len(UNSAT_CAUSES)] if args.unsat == "any" else args.unsat
        return Settings(args.rows, args.cols, fleet=fleet, density=args.density, hints=hints,
                        unknown_clues=args.unknown_clues, piece_hints=args.piece_hints, touching=args.touching,
                        unsat=cause, certify=args.certify, certify_limit_s=args.certify_limit, prefix=args.prefix)

    settings(0)  # every setting (the --unsat cause too) is checked by Settings before any work
    from harness.generate.batch import stop_on_signals
    from harness.generate.oracle import preload

    preload()  # before the handlers: an interrupt must not land inside an extension module's initialisation
    with stop_on_signals():
        return _generate_all(args, settings)


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


__all__ = ["NAME", "add_parser", "run"]
