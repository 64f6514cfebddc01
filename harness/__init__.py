"""battlebench: a benchmark harness for Solitaire Battleship solvers and formulations.

Glossary (these words are used with exactly these meanings in code, columns and reports):

instance
    One puzzle: board size, fleet, row/column clues (each an integer or unknown),
    per-cell hints and the rules flag ``touching`` (may ships touch?).
formulation
    A way to model an instance for a solver: ``placement`` (one variable per ship
    placement), ``cell`` (seven piece symbols per cell), ``ship-pairs`` (per-ship
    placement variables with pairwise buffer conflicts).
backend
    A solver technology with its options, one class behind the contract of
    ``harness.backends.base``: built-in ``cpsat`` (OR-Tools CP-SAT), ``mip`` (Pyomo ->
    HiGHS or SCIP), ``sat`` (python-sat), ``minizinc`` (MiniZinc models -> Gecode or any
    FlatZinc solver), ``cpmpy`` (CPMpy -> its solvers); or a *plugin*.
plugin
    A backend from outside this package: declared by an installed distribution as an
    entry point of the group ``battlebench.backends``, or named as ``module:Class``.
conformance
    What every backend x formulation must do, checked by ``battlebench conform`` on
    brute-forced tiny instances: exact counts, uniqueness, unsat proven by the solver,
    every board verified, its own time limit honoured.
pair
    backend x formulation x options, with a deterministic label such as
    ``sat[encoding=totalizer,solver=cadical195]/placement``.
task
    ``solve`` (one board, or proof that none exists) or ``count K`` (distinct boards
    up to K; K=2 certifies uniqueness; K=0 means all); or the counting task,
    ``deployments`` / ``boards``: every deployment (or distinct board) of a deployment
    instance, counted exactly; or ``play``: one game of a strategy.
race
    A racing portfolio: two or more pairs (its *legs*) run at once on one instance, each
    in its own worker; the first decided answer wins and the other legs are killed.  In
    a campaign it takes a pair's place (``race[cpsat/placement,sat/placement]``).
run
    One pair on one instance for one task, once (a noun; "execute" is the verb).
campaign
    A config expanded into runs.
plan
    Every run a campaign's config expands to, recorded in its results store before any
    run executes; a campaign is *complete* when every planned run is stored.
answer
    What the solver said: boards found, whether its search was exhausted.
termination
    Why the run ended: completed, time limit, memory limit, crash.
status
    Classified from answer, termination and verdict by the pure ``classify()``:
    ``sat``, ``unsat``, ``timeout``, ``memout``, ``error``, ``wrong``.
verdict
    What the independent verifier says of every returned board: ``ok`` or the first
    violated rule and its cell.
failure
    A run whose status is ``error``, ``memout`` or ``timeout``; failures are grouped by
    the first line of their message.
wall time, CPU time
    ``wall_s``: seconds from dispatch to answer, measured by the runner; ``cpu_s``: user +
    system CPU seconds of the worker's process tree during the run.
deployment
    A counting instance (a board of square or hex cells, named pieces, the touching
    rule, hints, clues) and, counted, one way to place every piece on it: an assignment
    of placements to pieces.  Counted *by boards*, deployments with the same ship cells
    are one.
piece
    A named shape (straight ship, polyomino, polyhex) with its rotations and, where the
    rules say, reflections; ``count`` identical copies of it.
counter
    A counting algorithm behind one contract (``dp``, ``frontier``, ``cluster``, ``dlx``,
    ``sharpsat``, ``cpsat``, ``sat``, ``brute``); in a campaign of the counting task it
    takes the backend's place in a pair (``dp/deployments``).
marginal
    For one cell (and piece), how many deployments put a ship there; divided by the
    count, the exact probability of a ship in that cell given what is known.
game
    The two-player game's unit of play: one hidden deployment of a board's fleet, drawn
    uniformly from a seed (game ``i`` of seed ``s`` is the same for every strategy), shot at
    until every ship cell is hit; in a campaign of the ``play`` task each game is a run
    (``count``: its shots; ``repetition``: its number).
shot
    One cell fired at, announced as hit or miss under the *announcement rule*: ``ship``
    (and the name of a ship it sinks), ``sunk`` (and "sunk", unnamed) or ``none``; the rule
    takes the formulation's place in a pair (``posterior/ship``).
position
    What the shooter knows after some shots: misses, hits, ships sunk and where; as a
    deployment with hints, its marginals are the exact posterior.
strategy
    A way of choosing the next shot behind one contract (``random``, ``hunt-target``,
    ``parity``, ``density``, ``thompson``, ``posterior``, ``lookahead``); in a campaign of
    the ``play`` task it takes the backend's place in a pair.
tie
    Two pairs that solved as many instances and whose time ratio's bootstrap interval
    contains 1 (tied within noise), or whose times are closer than the timer's
    resolution: a report names no single winner between them.
"""

__version__ = "0.1.0"

GLOSSARY = (
    "instance",
    "formulation",
    "backend",
    "pair",
    "race",
    "task",
    "run",
    "campaign",
    "answer",
    "termination",
    "status",
    "verdict",
    "plan",
    "failure",
    "wall time",
    "CPU time",
    "tie",
    "deployment",
    "piece",
    "counter",
    "marginal",
    "game",
    "shot",
    "position",
    "strategy",
)
