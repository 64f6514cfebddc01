"""battlebench: a benchmark harness for Battleship solvers, formulations, counters and strategies.

Glossary (these words are used with exactly these meanings in code, columns and reports).
Four *tasks* share one path through the runner; where a word means something for each,
its meaning is given per task: **solve** (puzzles), **count** (deployments), **play** (games),
**value** (expected shots, exact, of a strategy or of optimal play).

task
    What a run is asked to do; one module of ``harness.tasks`` behind the contract of
    ``harness.core.task`` (registered in ``TASKS``: built-ins, entry points of the group
    ``battlebench.tasks``, ``module:Class``):
    *solve* -- a puzzle solved (one board, or proof that none exists) or its distinct
    boards counted up to K; *count* -- a deployment instance's deployments (or distinct
    boards) counted exactly; *play* -- one game of a strategy against a hidden deployment;
    *value* -- a strategy's (or optimal play's) exact expected shots on a board.  A run's
    ``task`` column holds its task's registered name.
question
    What a run's task is asked, as the config's ``task`` value names it; a run's
    ``question`` column (and its id) holds it: solve -- ``solve`` (k=1) or ``count-K``
    (distinct boards up to K; K=2 certifies uniqueness; K=0 means all; a question of
    the solve task, not the count task); count -- what is counted, ``deployments`` or
    ``boards``; play -- ``play``; value -- ``value``; a plugin task -- its own.
count
    Names three things, always qualified: the *count task* (``task = "deployments"`` or
    ``"boards"``, the command ``battlebench count``: a deployment instance counted exactly
    by a counter); the solve task's *count-K question* (``task = "count-K"`` or
    ``{ kind = "count", k = K }``, ``solve --count K``: a puzzle's distinct boards up to
    K); and the record's ``count`` *column* (how many the run found: boards for solve, the
    exact count for the count task).  The count task's variant is *what is counted*
    (a pair's ``counted``, ``count --by``).
instance
    What a run is on, read from one file: solve -- one puzzle (size, fleet, row/column
    clues each an integer or unknown, per-cell hints, the rules flag ``touching``);
    count -- a *deployment* instance; play -- a *board* (a deployment instance without
    hints or clues).
plugin
    A class behind one family's contract, found by name: built-in, an entry point of an
    installed distribution (groups ``battlebench.backends``, ``battlebench.counters``,
    ``battlebench.strategies``, ``battlebench.tasks``) or ``module:Class``; checked on load;
    qualified by ``battlebench conform``.  Each task's pairs name one family's plugin.
backend
    The solve task's plugin: a solver technology with its options, one class behind the
    contract of ``harness.backends.base``: built-in ``cpsat`` (OR-Tools CP-SAT), ``mip``
    (Pyomo -> HiGHS or SCIP), ``sat`` (python-sat), ``minizinc`` (MiniZinc models ->
    Gecode or any FlatZinc solver), ``cpmpy`` (CPMpy -> its solvers), ``asp`` (clingo),
    ``tool`` (a solver binary on a standard file); or a plugin.
counter
    The count task's plugin: a counting algorithm behind one contract (``dp``,
    ``frontier``, ``profile``, ``cluster``, ``dlx``, ``sharpsat``, ``cpsat``, ``sat``,
    ``brute``); it declares what it takes (``refuses``) and declines the rest.
strategy
    The play task's plugin: a way of choosing the next shot behind one contract
    (``random``, ``hunt-target``, ``parity``, ``density``, ``thompson``, ``posterior``,
    ``lookahead``).
formulation
    The solve task's variant of a pair: a way to model a puzzle for a solver
    (``placement``, ``cell``, ``ship-pairs``).  The count task's variant is *what is
    counted* (``deployments`` or ``boards``, as its question); the play task's is the
    *announcement rule* (``ship``, ``sunk``, ``none``).  A config's pairs name the
    plugin and variant in the task's own words (``backend``/``formulation``,
    ``counter``/``counted``, ``strategy``/``rule``; the generic ``backend`` and
    ``formulation`` are accepted by every task); the record keeps them in its
    ``backend`` and ``formulation`` columns.
conformance
    What every plugin of a family must do, checked by ``battlebench conform``: a backend
    (each formulation) on brute-forced tiny puzzles -- exact counts, uniqueness, unsat
    proven by the solver, every board verified, its own time limit honoured; a counter
    on brute-forced tiny deployment instances -- exact counts, refusals as declared, a
    limit check; a strategy on small boards -- legal shots only, every fleet sunk,
    the same shots for the same seed, undeclared rules refused.
pair
    plugin x variant x options, with a deterministic label: solve --
    ``sat[encoding=totalizer,solver=cadical195]/placement``; count -- ``dp/deployments``;
    play -- ``thompson[block=2000]/ship``.
race
    A racing portfolio of the solve task: two or more pairs (its *legs*) run at once on
    one instance, each in its own worker; the first decided answer wins and the other
    legs are killed.  In a campaign it takes a pair's place
    (``race[cpsat/placement,sat/placement]``).
run
    One pair on one instance for one task, once (a noun; "execute" is the verb); in the
    play task, one game.
campaign
    A config expanded into runs.
plan
    Every run a campaign's config expands to, recorded in its results store before any
    run executes; a campaign is *complete* when every planned run is stored.
answer
    What the plugin said: solve -- boards found, whether its search was exhausted;
    count -- the count, whether it is complete; play -- the shot sequence.
termination
    Why the run ended: completed, solver-limit (the plugin stopped itself at its limit),
    timeout, memout, crash, refused (the plugin declined the instance: not a crash).
status
    Classified from answer, termination and verdict by a pure function
    (``classify()``, ``classify_count()``, ``classify_play()``): ``sat``, ``unsat``,
    ``timeout``, ``unknown`` (the solver stopped on its own within its limits without
    deciding: unsolved, not a timeout), ``memout``, ``error``, ``wrong``, ``refused``.  Play: ``sat`` is a game
    that ended.  Not classified but set by the executor: ``lost``, a run whose Dask worker or SLURM task was lost on
    every attempt ``retries`` allows (no measurement: counted as missing, executed again by a resume).
verdict
    What the independent check says of the answer: solve -- the verifier on every
    returned board; count -- the count against the instance's known count; play -- the
    shot sequence replayed against the hidden deployment drawn again.  ``ok``, ``none``
    (nothing to judge) or the first thing wrong.
failure
    A run whose status is ``error``, ``memout`` or ``timeout``; failures are grouped by
    the first line of their message.
claim
    What a solve run says beyond the boards it returns: ``unsat`` (no board) or ``no
    further board`` (after its boards are blocked); its ``certificate`` says how it was
    established: ``certified`` (a proof of the exact CNF solved, accepted by a checker),
    ``trusted`` (the solver's word), ``rejected`` or ``unchecked``
    (``harness.proofs.claims``).
lineage
    The implementation a proof checker belongs to: checkers of one lineage share their
    design and authors (dratify and dratify-native); two checks agree independently only
    across lineages (drat-trim, dratify, verified_rup).
wall time, CPU time
    ``wall_s``: seconds from dispatch to answer, measured by the runner; ``cpu_s``: user +
    system CPU seconds of the worker's process tree during the run.
measure
    What a report ranks a pair's times by: ``cpu`` (CPU time) or ``wall`` (wall time).
    By default (``rank_by = "auto"``) a pair that uses one core is ranked by CPU time and
    a parallel pair (threads, split searches, a race) by wall time; a campaign with both
    is ranked in two groups.
node class
    What makes two machines' times comparable: CPU model, cores, memory (whole GiB) and
    kernel, read where a run executes (a record's ``node_class``).  Runs of two classes
    are never ranked together: a report of several classes ranks one, chosen with
    ``--node-class``.
A/A control
    A pair run a second time in the same campaign, interleaved with it (label
    ``PAIR~aa``): the ratio the machine puts between the two copies is its run-to-run
    noise, the *noise floor* of the tie rule.
feature
    A number known of a puzzle before any pair runs on it, from the puzzle alone (never
    its solution): its size, fleet, clues, hints, placements after pruning, its
    encodings' sizes and GBD's CNF features (``harness.selection.features``); each
    *feature group* is timed, its *cost*.
selector
    What picks one pair per puzzle from its features, learnt from a solve campaign
    (``battlebench select``) and measured out of fold against the *single best*
    pair (SBS: the least mean PAR-10 over the puzzles) and the *virtual best* (VBS:
    each puzzle's fastest pair); the share of the SBS--VBS gap it closes is the
    report's measure of it.
deployment
    A count-task instance (a board of square or hex cells, named pieces, the touching
    rule, hints, clues) and, counted, one way to place every piece on it: an assignment
    of placements to pieces.  Counted *by boards*, deployments with the same ship cells
    are one.
piece
    A named shape (straight ship, polyomino, polyhex) with its rotations and, where the
    rules say, reflections; ``count`` identical copies of it.
marginal
    For one cell (and piece), how many deployments put a ship there; divided by the
    count, the exact probability of a ship in that cell given what is known.
game
    The play task's run: one hidden deployment of a board's fleet, drawn uniformly from
    a seed (game ``i`` of seed ``s`` is the same for every strategy), shot at until
    every ship cell is hit; its record keeps its *shots* in ``shots`` and its number + 1
    in ``repetition``.
shot
    One cell fired at, announced as hit or miss under the *announcement rule*: ``ship``
    (and the name of a ship it sinks), ``sunk`` (and "sunk", unnamed) or ``none``.
position
    What the shooter knows after some shots: misses, hits, ships sunk, where and within
    which hits (those made up to the sink); as a deployment with hints (under the
    ``sunk`` rule, one per way of naming the sunk ships), its marginals are the exact
    posterior.
value
    The value task's answer: the expected number of shots to sink a board's fleet when
    the hidden deployment is uniform over its labelled deployments -- of a strategy
    (exact by walking its decision tree, else sampled with an interval) or of *optimal*
    play (the minimum over every policy, by search over belief states); the *gap* is a
    strategy's value minus the optimum.
tie
    Two pairs that solved as many instances and whose time ratio's bootstrap interval
    contains 1 (tied within noise), reaches below the A/A controls' noise floor (tied
    within the machine's noise), or whose times are closer than the timer's resolution:
    a report names no single winner between them.
"""

__version__ = "0.1.0"

GLOSSARY = (
    "task",
    "question",
    "count",
    "instance",
    "plugin",
    "backend",
    "counter",
    "strategy",
    "formulation",
    "conformance",
    "pair",
    "race",
    "run",
    "campaign",
    "plan",
    "answer",
    "termination",
    "status",
    "verdict",
    "failure",
    "claim",
    "lineage",
    "wall time",
    "CPU time",
    "measure",
    "node class",
    "A/A control",
    "feature",
    "selector",
    "deployment",
    "piece",
    "marginal",
    "game",
    "shot",
    "position",
    "value",
    "tie",
)
