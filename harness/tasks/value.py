"""The value task: the exact expected shots of a strategy, or of optimal play, on one board under one announcement rule.

A config names it ``task = "value"``; its pairs name strategies (``strategy = "posterior"``,
or ``backend``) with their options, or ``optimal`` (the optimum over every policy:
:mod:`harness.play.optimal`), under an announcement rule (``rule``, or ``formulation``;
default ``ship``).  Each run is one pair on one board, computed in a worker under the
limits: the optimum by search (it stops itself :data:`OWN_MARGIN_S` before the time limit,
counted from the run's start, with the lower bound it proved; an answer that still comes
after the limit is a ``timeout`` that keeps what it proved: :func:`late_detail`), a
strategy by walking its decision tree over every deployment
(:mod:`harness.play.exact`; sampled, with a 95 % interval, when its randomness or its
tree cannot be walked).  Settings: ``costly`` (default true: a strategy's walk also
finds how often its shot costs against the optimum, which needs the optimum's search),
``budget`` (most nodes of a strategy's walk, default 200,000) and ``rounds`` (games per
deployment when sampled, default 4).

The judge in the caller checks what can be checked apart from the worker: a value between
``K`` and the cells, a walked ``random`` equal to its closed form, and on boards of at
most 12 cells the optimum against :func:`~harness.play.optimal.brute_value`.  The
report's *optimality gap* table and ``check`` compare runs: no strategy below the
optimum, every sampled interval above it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from harness.core.failures import failure_of
from harness.core.limits import NO_LIMITS, Limits
from harness.core.record import dumps
from harness.core.status import Status, Termination, ended_early
from harness.core.tables import get, positive_int
from harness.core.task import (
    Executed,
    PairSpec,
    ReportSection,
    Request,
    RunSpec,
    Subject,
    TaskSpec,
    TaskType,
    WorkerOutcome,
    base_record,
    error_record,
    termination_of,
    worker_key,
)
from harness.errors import InputError

OPTIMAL = "optimal"
OWN_MARGIN_S = 1.5
"""A value run stops itself this long before its time limit (at least half a second in): its answer, with the
bound it proved, should reach the runner in time; one that comes later is kept as a late answer."""
BRUTE_CHECK = 12  # the judge recomputes optima of boards of at most this many cells by brute force


@dataclass(frozen=True)
class ValueRequest(Request):
    """What a worker needs for one value (picklable)."""

    board: Any  # a hint-free Deployment
    strategy: str  # a strategy, or "optimal"
    options: tuple
    rule: str
    costly: bool = True
    budget: int = 200_000
    rounds: int = 4
    limits: Limits = NO_LIMITS

    def key(self) -> str:
        return worker_key(f"value:{self.strategy}", dict(self.options))

    def execute(self) -> ValueOutcome:
        return execute_value(self)

    def warm(self) -> dict[str, str]:
        from harness.counting.format import parse_deployment

        tiny = parse_deployment('[meta]\nname = "warm"\n[grid]\nrows = 2\ncols = 3\n[pieces]\nA = 2\n',
                                file="<warm-up>")
        try:
            execute_value(ValueRequest(tiny, self.strategy, self.options, self.rule, self.costly, 2000, 1))
        except Exception:  # noqa: BLE001 - the run meets and reports the problem
            pass
        return versions_of(self.strategy)

    def kernels(self) -> tuple[str, ...]:
        return ("harness.play._optimal_nb",) if self.strategy == OPTIMAL else ()


def compile_kernels() -> None:
    """Compile optimal play's kernels into numba's cache (``battlebench prepare``): a tiny board's optimum (the
    search; its mutually recursive core is not cacheable and compiles in each worker) and the table's compaction."""
    from harness.play.optimal import compile_table_kernel

    ValueRequest(None, OPTIMAL, (), "ship").warm()
    compile_table_kernel()


@dataclass
class ValueOutcome(WorkerOutcome):
    """What the worker sends back: the value (as a fraction's text when exact) and what computing it took."""

    method: str = ""  # search, walk, closed-form, sample
    expected: str | None = None  # exact value, "p/q"
    mean: float | None = None
    half_width: float | None = None
    lower: str | None = None  # the optimum's proved lower bound ("p/q") when its search stopped
    deployments: int = 0
    ship_cells: int = 0
    cells: int = 0
    misses: int | None = None  # the optimum: the sum of misses over the deployments
    first_shot: list | None = None
    work: int = 0  # belief states searched (optimum) or decision nodes walked / games sampled (strategy)
    costly: str | None = None  # "p/q": probability a game meets a costly shot
    first_costly: float | None = None
    stopped: str = ""
    note: str = ""
    compute_s: float = 0.0
    versions: dict = field(default_factory=dict)


def versions_of(strategy: str) -> dict[str, str]:
    from harness import __version__

    out = {"battlebench": __version__}
    if strategy != OPTIMAL:
        from harness.play.strategies import get_strategy

        out.update(get_strategy(strategy).versions())
    return out


def execute_value(request: ValueRequest) -> ValueOutcome:
    """Compute one value in this process; failures come back as ``failure`` (never raised)."""
    import sys

    from harness.play.optimal import Beliefs, make_search, optimum

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    out = ValueOutcome()
    t0, start = time.perf_counter(), time.monotonic()
    time_s, memory_mb = request.limits.time_s, request.limits.memory_mb
    # the run's own deadline counts from the request's arrival: building the beliefs and the search's tables is
    # inside it, not before it
    own = None if time_s is None else max(0.5, time_s - OWN_MARGIN_S)
    deadline = None if own is None else start + own

    def left() -> float | None:
        return None if deadline is None else max(deadline - time.monotonic(), 0.0)

    try:
        out.versions = versions_of(request.strategy)
        beliefs = Beliefs.of(request.board, request.rule)
        out.deployments, out.ship_cells, out.cells = len(beliefs.deployments), beliefs.ship_cells, len(beliefs.cells)
        if request.strategy == OPTIMAL:
            search = make_search(beliefs, memory_mb)
            got = optimum(request.board, request.rule, time_limit=left(), search=search)
            out.method, out.work, out.stopped = "search", got.states, got.stopped or ""
            out.first_shot = list(got.first) if got.first else None
            if got.expected is not None:
                out.expected, out.mean, out.misses = str(got.expected), float(got.expected), got.misses
            out.lower = str(got.bound)
        else:
            from harness.play.exact import strategy_value
            from harness.play.strategies import get_strategy

            strategy = get_strategy(request.strategy)(**dict(request.options))
            search = make_search(beliefs, memory_mb) if request.costly else None
            if search is not None and deadline is not None:  # half the time left at most for costly shots
                search.deadline = time.monotonic() + left() / 2
            got = strategy_value(request.board, request.rule, strategy, beliefs=beliefs, search=search,
                                 budget=request.budget, rounds=request.rounds, time_limit=left())
            out.method, out.work, out.note = got.method, got.nodes, got.note
            out.expected = None if got.expected is None else str(got.expected)
            out.mean, out.half_width = got.mean, got.half_width
            out.costly = None if got.costly is None else str(got.costly)
            out.first_costly = got.first_costly
    except Exception as exc:  # noqa: BLE001 - a strategy's crash, a stopped search, a board too large: results
        from harness.play.optimal import Stopped

        if isinstance(exc, Stopped):
            out.stopped = str(exc)
        else:
            out.failure, _ = failure_of(exc)
    out.compute_s = time.perf_counter() - t0
    return out


DETAIL_KEYS = ("method", "expected", "mean", "half_width", "lower", "deployments", "ship_cells", "cells", "misses",
               "first_shot", "work", "costly", "first_costly", "stopped", "note", "compute_s")
"""What a value run's ``detail`` keeps of its outcome (with ``upper`` and ``late``, null unless the answer came late:
:func:`late_detail`; ``judge_s``, the judge's seconds in the caller; ``runner``, what the runner saw)."""
LATE_KEYS = ("expected", "mean", "half_width")  # a late answer's value: moved out of the run's own value


def late_detail(detail: dict[str, Any], after_s: float, limit_s: float | None) -> dict[str, Any]:
    """The detail of a run whose answer came after its time limit: a timeout that keeps what it proved.  Its value
    is not the run's (``expected``, ``mean``, ``half_width`` become null, so that no table, gate or ranking takes
    it for one), but what it proved stays: ``lower`` (the bound it proved; an exact value is its own bound) and
    ``upper`` (an exact value: the bound pair ``lower == upper``), and ``late`` says when the answer came and what
    it said (``after_s``, ``limit_s``, ``expected``, ``mean``, ``half_width``)."""
    out = dict(detail)
    exact = detail.get("expected")
    out["late"] = {"after_s": after_s, "limit_s": limit_s, **{k: detail.get(k) for k in LATE_KEYS}}
    out.update({k: None for k in LATE_KEYS})
    out["lower"] = exact if exact is not None else detail.get("lower")
    out["upper"] = exact
    return out


def answered(detail: dict[str, Any]) -> dict[str, Any]:
    """A stored detail with its value as the run answered it: a late answer's value put back (for the judge, which
    judges a late value as it judges one in time)."""
    late = detail.get("late")
    if not isinstance(late, dict):
        return detail
    return {**detail, **{k: late.get(k) for k in LATE_KEYS}}


def judge_value(request: ValueRequest, outcome: ValueOutcome) -> str:
    """``ok``, ``none`` (nothing to check), or what is wrong with a value, checked here apart from the worker."""
    from harness.play.game import labelled

    if outcome.mean is None:
        return "none"
    k, n = outcome.ship_cells, outcome.cells
    if not k - 1e-9 <= outcome.mean <= n + 1e-9:
        return f"{outcome.mean:g} expected shots is outside [{k}, {n}]"
    if outcome.expected is not None and abs(float(Fraction(outcome.expected)) - outcome.mean) > 1e-9:
        return f"the value {outcome.expected} is not its float {outcome.mean}"
    if request.strategy == "random" and outcome.expected is not None:
        from harness.play.strategies.random import RandomStrategy

        form = RandomStrategy.expected_shots(labelled(request.board), request.rule)
        if Fraction(outcome.expected) != form:
            return f"random's value {outcome.expected} is not K (N + 1) / (K + 1) = {form}"
    if outcome.misses is not None and outcome.expected is not None and outcome.deployments and (
            Fraction(outcome.expected) != k + Fraction(outcome.misses, outcome.deployments)):
        return f"{outcome.expected} is not {k} + {outcome.misses} misses / {outcome.deployments} deployments"
    if request.strategy == OPTIMAL and outcome.misses is not None and outcome.cells <= BRUTE_CHECK:
        from harness.play.optimal import Beliefs, brute_value

        again = brute_value(Beliefs.of(request.board, request.rule))
        if again != outcome.misses:
            return f"the brute force over every policy says {again} misses in all, the search {outcome.misses}"
    return "ok"


def recheck_stored(frame: Any, results: Path) -> Any:
    """Every stored value judged again from its board file: the number of deployments counted again by the dp
    (apart from the search's own list), the judge of :func:`judge_value` (bounds, ``random``'s closed form, the
    optimum of a tiny board by brute force), and the verdict and status that follow must be as stored.  Runs whose
    board file is gone or changed are counted, not judged."""
    import json

    from harness.counting.format import read_deployment
    from harness.counting.marginals import marginals
    from harness.play.game import labelled
    from harness.report.data import clean
    from harness.report.locate import locator_of
    from harness.report.reverify import Reverified

    located, counted = locator_of(results), {}
    out = Reverified(what="values judged again", located=located)
    for rec in frame.to_dict("records"):
        rec = {k: clean(v) for k, v in rec.items()}
        where = (str(rec.get("instance")), str(rec.get("pair")))
        board = located.find(str(rec.get("instance_path") or ""), str(rec.get("instance_hash") or ""),
                             read_deployment)
        if board is None:
            out.unverifiable += 1
            continue
        try:
            d = answered(json.loads(rec.get("detail") or "{}"))
        except ValueError:
            d = {}
        if d.get("mean") is None:
            continue
        out.runs += 1
        out.boards += 1
        key = board.content_hash()
        if key not in counted:
            counted[key] = marginals(labelled(board)).total
        outcome = ValueOutcome(**{k: d.get(k) for k in ("method", "expected", "mean", "half_width", "lower",
                                                        "misses")},
                               deployments=int(d.get("deployments") or 0), ship_cells=int(d.get("ship_cells") or 0),
                               cells=int(d.get("cells") or 0))
        verdict = (f"{outcome.deployments} deployments, the dp counts {counted[key]}"
                   if outcome.deployments != counted[key] else
                   judge_value(ValueRequest(board, str(rec.get("backend")), (), str(rec.get("formulation"))),
                               outcome))
        if str(rec.get("verdict")) != verdict:
            out.mismatches.append((*where, f"verdict {rec.get('verdict')}", f"verdict {verdict} (judged again)"))
            continue
        try:
            in_time = not d.get("late")
            status = str(classify_value(Termination(str(rec.get("termination"))),
                                        in_time and outcome.expected is not None, in_time, verdict))
        except ValueError:
            status = "?"
        if status != rec.get("status"):
            out.mismatches.append((*where, f"status {rec.get('status')}", f"status {status} (judged again)"))
    return out


def classify_value(termination: Termination, exact: bool, found: bool, verdict: str) -> Status:
    """The status of a value run.  Pure: a value the judge contradicts is ``wrong``; then crash, memout,
    timeout; a value found (exact or sampled) is ``sat``; a search that stopped itself is a ``timeout``."""
    if verdict not in ("ok", "none"):
        return Status.WRONG
    early = ended_early(termination)
    if early is not None:
        return early
    return Status.SAT if found else Status.TIMEOUT


class ValueTask(TaskType):
    """The value task (see the module docstring)."""

    name = "value"
    kinds = ("value",)
    plugin = "strategy"
    variant = "announcement rule"
    subject = "board"
    columns = {  # what the shared record columns hold for this task (the records page)
        "instance": "the board's name",
        "backend": "the strategy, or optimal (the optimum over every policy)",
        "formulation": "the announcement rule: ship, sunk or none",
        "options": "the strategy's options as configured (JSON)",
        "question": "value",
        "seed": "the configured seed, or null",
        "repetition": "1",
        "answer": ("sat: a value (exact or sampled); unknown: none within the limit (the search stopped: detail.lower; "
                   "or the answer came late: detail.late, detail.lower and detail.upper); none: no answer"),
        "exhausted": "the value is exact",
        "verdict": ("ok, or what the judge found wrong (bounds, random's closed form, K + misses / deployments, a "
                    "brute-forced optimum; a late value is judged too); none: no value"),
        "count": "null (the value is detail.expected)",
        "complete": "the value is exact",
        "shots": "null (the value is detail.expected)",
        "build_s": "null",
        "solve_s": "computing the value, in the worker",
        "placements": "null",
        "solver_version": "the strategy's distribution (battlebench for optimal)",
        "boards": "[]",
        "detail": ("method, expected (exact, p/q), mean, half_width, lower, deployments, misses, first_shot, work, "
                   "costly, ..., judge_s; upper and late (after_s, limit_s, its value): a late answer's (JSON)"),
    }
    family = "harness.play.strategies:FAMILY"
    pair_keys = ("strategy", "backend", "rule", "formulation", "options")
    settings_keys = ("costly", "budget", "rounds")
    repeats = False

    @classmethod
    def settings(cls, data: dict[str, Any], path: Path, spec: TaskSpec) -> tuple[tuple[str, Any], ...]:
        costly = get(data, "costly", bool, path)
        return (("costly", True if costly is None else costly),
                ("budget", positive_int(data, "budget", 200_000, path)),
                ("rounds", positive_int(data, "rounds", 4, path)))

    @classmethod
    def parse_pair(cls, entry: dict[str, Any], where: str, path: Path, spec: TaskSpec) -> PairSpec:
        from harness.tasks.play import strategy_pair

        return PairSpec(*strategy_pair(entry, where, path, "value", special=(OPTIMAL,)))

    @classmethod
    def load(cls, path: Path, shown: str) -> Subject:
        from harness.tasks.play import load_board

        return load_board(path, shown)

    @classmethod
    def expand(cls, config: Any, subjects: list[Subject]) -> list[RunSpec]:
        """One run per board, pair and seed; each pair carries the task's settings (``costly``, ``budget``,
        ``rounds``) to its runs."""
        from dataclasses import replace

        from harness.core.task import make_spec

        seeds = config.seeds if config.seeds is not None else (None,)
        return [make_spec(subject, replace(pair, params=tuple(config.params)), config.task, seed, 1, config.limits,
                          config.name, config.hash)
                for subject in subjects for pair in config.pairs for seed in seeds]

    def request(self, spec: RunSpec, params: dict[str, Any]) -> ValueRequest:
        return ValueRequest(spec.instance, spec.pair.plugin, spec.pair.options, spec.pair.variant,
                            params.get("costly", True), params.get("budget", 200_000), params.get("rounds", 4),
                            spec.limits)

    def execute(self, pool: Any, spec: RunSpec, params: dict[str, Any] | None = None) -> Executed:
        if spec.instance is None:
            return Executed(error_record(spec, spec.load_error))
        request = self.request(spec, params if params is not None else spec.pair.param_dict)
        ex = pool.execute(request)
        late = ex.kind == "timeout" and isinstance(ex.outcome, ValueOutcome)  # it answered after the limit
        outcome = ex.outcome if ex.kind == "ok" or late else None
        verdict = "none"
        error = ex.error or ""
        w0, c0 = time.perf_counter(), time.process_time()
        if outcome is not None:
            if outcome.failure:
                error = outcome.failure
            try:
                verdict = judge_value(request, outcome)
            except Exception as exc:  # noqa: BLE001 - a judge that cannot judge says so
                verdict, error = "none", f"the judge failed: {failure_of(exc)[0]}"
        judged = {"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0}
        termination = termination_of(ex.kind)
        if late:
            pass  # the runner's timeout: the answer is kept as a late one (below), not as the run's
        elif outcome is not None and outcome.failure:
            termination = Termination.MEMOUT if outcome.failure in ("memout", "MemoryError") else Termination.CRASH
        elif outcome is not None and outcome.stopped:
            termination = Termination.SOLVER_LIMIT
        found = not late and outcome is not None and outcome.mean is not None
        status = classify_value(termination, found and outcome.expected is not None, found, verdict)
        rec = base_record(spec, ex)
        board = spec.instance
        square = board.grid.kind == "square"
        detail: dict[str, Any] = {k: getattr(outcome, k) if outcome is not None else None for k in DETAIL_KEYS}
        detail = late_detail(detail, ex.wall_s, spec.limits.time_s) if late else {**detail, "upper": None,
                                                                                   "late": None}
        detail["judge_s"] = judged["wall_s"]
        if ex.detail:
            detail["runner"] = ex.detail
        versions = outcome.versions if outcome is not None else {}
        from harness import __version__

        solver = (f"battlebench {__version__}" if spec.pair.plugin == OPTIMAL
                  else _strategy_label(spec.pair.plugin, versions))
        rec.update(rows=board.rows if square else None, cols=board.cols if square else None, status=str(status),
                   answer="sat" if found else ("none" if outcome is None else "unknown"),
                   exhausted=int(found and outcome.expected is not None),
                   termination=str(termination), verdict=verdict,
                   complete=int(found and outcome.expected is not None),
                   solve_s=outcome.compute_s if outcome is not None else None, solver_version=solver,
                   versions=dumps(versions), boards=dumps([]), verdicts=dumps([]), error=error,
                   detail=dumps(detail))
        warm = None if ex.warmup_s is None else {"wall_s": ex.warmup_s, "cpu_s": ex.warmup_cpu_s}
        phases = {"warmup": warm, "run": {"wall_s": ex.wall_s, "cpu_s": ex.cpu_s}, "judge": judged}
        return Executed(rec, {"status": str(status), "verdict": verdict, **detail, "error": error,
                              "wall_s": ex.wall_s, "cpu_s": ex.cpu_s, "peak_rss_mb": ex.peak_rss_mb,
                              "phases": phases})

    @classmethod
    def section(cls) -> ReportSection:
        return ValueSection()


class ValueSection(ReportSection):
    """What report and check add for value runs: the optimality-gap table; expected shots rank the pairs."""

    title = "Optimality gap"
    ranks_by_time = False

    def problems(self, frame: Any, manifest: dict | None, manifest_path: Any) -> list:
        from harness.report.value import check_value

        return check_value(frame)

    def recheck(self, frame: Any, results: Path) -> Any:
        return recheck_stored(frame, results)

    def agreement(self, frame: Any) -> str:
        from harness.report.value import agreement_line

        return agreement_line(frame)

    def tables(self, frame: Any) -> dict[str, Any]:
        from harness.report.value import gap_table

        return {"gap": gap_table(frame)}

    def headline(self, tables: dict[str, Any]) -> str | None:
        from harness.report.value import value_headline

        return value_headline(tables["gap"])

    def html(self, tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
        from harness.report.value import GAP_NOTE

        t = tables["gap"]
        if t.empty:
            return []
        return [("gap", "Optimality gap", f'<p class="sub">{GAP_NOTE}</p>'
                 + html_table(t.drop(columns=["board"]).round(4)))]

    def markdown(self, tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
        from harness.report.value import GAP_NOTE

        t = tables["gap"]
        if t.empty:
            return []
        return ["## Optimality gap", "", GAP_NOTE, "", markdown_table(t.drop(columns=["board"]).round(4)), ""]


def _strategy_label(name: str, versions: dict) -> str | None:
    from harness.play.strategies import get_strategy

    try:
        return get_strategy(name).solver_label(versions or {})
    except InputError:
        return None


__all__ = ["DETAIL_KEYS", "OPTIMAL", "OWN_MARGIN_S", "ValueOutcome", "ValueRequest", "ValueSection", "ValueTask",
           "answered", "classify_value", "compile_kernels", "execute_value", "judge_value", "late_detail",
           "recheck_stored"]
