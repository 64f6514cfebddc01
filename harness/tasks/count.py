"""The count task: one counter counts a deployment instance's deployments (or distinct boards) exactly.

A config names it ``task = "deployments"`` or ``"boards"`` (what is counted); its pairs
name counters (``counter = "dp"``, or ``backend = "dp"``) and the options they declare
(``options = { split = 2 }``, checked before any run), each counting what the task counts
(a pair may say so: ``counted = "deployments"``, or ``formulation``).
A run: the worker imports the counter, counts, times it and catches failures
(:meth:`CountRequest.execute`); here the count is judged against the instance's known
count (``meta.expected_count``, or the manifest's) and the pure :func:`classify_count`
gives the status.  A counter that declines an instance (:class:`Unsupported`) gives a
``refused`` run naming the counters that take it, not a crash.  Counts stay Python
integers throughout: the record keeps the exact decimal in ``detail.count``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.failures import failure_of
from harness.core.limits import NO_LIMITS, Limits
from harness.core.record import dumps
from harness.core.status import Status, Termination, ended_early
from harness.core.tables import configured_options, get, one_of
from harness.core.task import (Executed, PairSpec, ReportSection, Request, RunSpec, Subject, TaskSpec, TaskType,
                               WorkerOutcome, base_record, error_record, read_subject, termination_of)
from harness.errors import ConfigError, InputError

UNSUPPORTED = "unsupported: "  # how a refusal's failure line starts
INT64_MAX = 2 ** 63 - 1


@dataclass
class CountOutcome(WorkerOutcome):
    """What the worker sends back for one counting run."""

    count: int | None = None
    complete: bool = False
    detail: dict[str, Any] = field(default_factory=dict)
    trace: str = ""
    build_s: float = 0.0
    count_s: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    marginals: Any = None  # harness.counting.marginals.Marginals, when asked for
    marginals_s: float | None = None
    marginals_error: str = ""  # why no marginals came (the count itself stands)


@dataclass(frozen=True)
class CountRequest(Request):
    """What a worker needs for one counting run (picklable)."""

    instance: Any  # a Deployment
    backend: str  # the counter's name
    formulation: str  # what is counted: deployments | boards
    limits: Limits = NO_LIMITS
    marginals: bool = False  # also the exact marginals of every cell (the dp's), within the same limits
    trust_refuses: bool = True  # refuse what the counter's refuses() declines without calling count() (conform
    # sets False, to see whether count() does what refuses() says)
    options: tuple[tuple[str, Any], ...] = ()  # the counter's options as configured

    def key(self) -> str:
        """The counter's worker; for ``dp``, one per set of compiled programmes its runs need
        (:func:`~harness.counting.counters.dp.warm_needs`), so a worker compiles only those."""
        needs = self._needs()
        return f"count:{self.backend}" + (f":{'+'.join(needs)}" if needs else "")

    def _needs(self) -> tuple[str, ...]:
        if self.backend != "dp":
            return ()
        from harness.counting.counters.dp import warm_needs

        return warm_needs(self.instance, self.formulation, self.marginals)

    def execute(self) -> CountOutcome:
        return execute_count(self.instance, self.backend, self.formulation, self.limits.time_s, self.marginals,
                             self.trust_refuses, dict(self.options))

    def warm(self) -> dict[str, str]:
        """Import the counter and count tiny instances with it: compilation (numba) is paid here, outside the
        runs' time limits, not by the first run (its record keeps what this took, ``warmup_s``).  The dp's worker
        compiles only the programmes of its key (a fresh machine's first ``battlebench count`` of a rectangle:
        the cluster alone, not all five)."""
        from harness.counting.counters import get_counter
        from harness.counting.counters.dp import ENGINES

        needs = self._needs()
        warm_engines(get_counter(self.backend), [e for e in ENGINES if not needs or e in needs], self.marginals)
        return versions_of(self.backend)

    def kernels(self) -> tuple[str, ...]:
        """The kernel modules this worker's warm-up and runs compile: the dp's programmes of its key (its cluster
        reads tables from disk), another counter's own (:data:`~harness.counting.counters.dp.KERNELS`), and the
        marginals' passes when asked."""
        from harness.counting.counters.dp import KERNELS

        if self.backend == "dp":
            engines: tuple[str, ...] = tuple(e for e in self._needs() if e != "cluster")
        else:
            engines = (self.backend, *(("rows", "profile", "frontier") if self.marginals else ()))
        return tuple(dict.fromkeys(KERNELS[e] for e in engines if e in KERNELS))


def warm_engines(cls: Any, engines: list[str], marginals: bool) -> None:
    """Count with the counter ``cls`` the tiny instance of each of the dp's programmes in ``engines`` (and draw
    its marginals), so that whatever those programmes compile is compiled (failures are the runs' to report)."""
    from harness.counting.counters.dp import ENGINES

    for engine, dep in zip(ENGINES, _warm_cases()):
        if engine not in engines:
            continue
        for by in cls.by:
            if cls.refuses(dep, by) is None:
                try:
                    cls().count(dep, by, None)
                except Exception:  # noqa: BLE001 - the run meets and reports the problem
                    pass
        if marginals and engine in ("rows", "profile", "frontier"):  # their forward-backward passes
            from harness.counting.marginals import marginals as draw

            try:
                draw(dep, engine)
            except Exception:  # noqa: BLE001 - the run meets and reports the problem
                pass


def compile_engine(engine: str) -> None:
    """Compile the kernels of one of the dp's programmes into numba's cache (``battlebench prepare``): its tiny
    instance counted and its marginals drawn; the cluster's table kernel on a tiny block (its counts read tables)."""
    from harness.counting.counters import get_counter

    if engine == "cluster":
        from harness.counting.counters.cluster import compile_kernel

        compile_kernel()
    else:
        warm_engines(get_counter("dp"), [engine], True)


def _warm_cases() -> list[Any]:
    """Tiny instances that take every compiled programme's path, one for each of the dp's programmes in its order:
    a plain rectangle (cluster), a miss (rows), ships apart with a hit (profile), a clue (enumerate), a bent
    piece and a miss (frontier; every case but the first has a hint or a clue, so whatever tables are on disk the
    cluster takes none of them)."""
    from harness.counting.format import parse_deployment

    head = '[meta]\nname = "warm"\n[grid]\nrows = 3\ncols = 3\n'
    texts = (head + '[pieces]\nA = 2\nB = 1\n',
             head + '[pieces]\nA = 2\nB = 1\n[hints]\nmisses = [[0, 0]]\n',
             head + '[rules]\ntouching = false\n[pieces]\nA = 2\nB = 1\n[hints]\nhits = [[1, 1]]\n',
             head + '[rules]\ntouching = false\n[pieces]\nA = 2\nB = 1\n[clues]\nrows = [2, "?", "?"]\n',
             head + '[pieces]\nB = 1\n[pieces.L]\ncells = [[0, 0], [1, 0], [1, 1]]\n[hints]\nmisses = [[2, 2]]\n')
    return [parse_deployment(text, file="<warm-up>") for text in texts]


def versions_of(counter: str) -> dict[str, str]:
    from harness import __version__
    from harness.counting.counters import get_counter

    return {"battlebench": __version__, **get_counter(counter).versions()}


def execute_count(dep: Any, counter: str, by: str, time_limit_s: float | None = None,
                  with_marginals: bool = False, trust_refuses: bool = True,
                  options: dict[str, Any] | None = None) -> CountOutcome:
    """Count in this process with the counter's ``options``; failures come back as ``failure`` (never raised)."""
    from harness.counting.counters import Unsupported, get_counter
    from harness.counting.reduce import cannot_fit

    t0 = time.perf_counter()
    out = CountOutcome()
    try:
        cls = get_counter(counter)
        missing = cls.available()
        if missing:
            out.failure = missing
            return out
        out.versions = versions_of(counter)
        deadline = None if time_limit_s is None else time.monotonic() + time_limit_s
        t1 = time.perf_counter()
        out.build_s = t1 - t0
        declined = cls.refuses(dep, by) if trust_refuses else None
        if declined:  # what the counter says it does not take is refused before anything is counted
            raise Unsupported(declined)
        empty = cannot_fit(dep) if trust_refuses else None
        if empty:  # 0 at once: a million copies of a ship need no counter to say so
            out.count, out.complete, out.detail = 0, True, {"method": "precheck", "precheck": empty}
            return out
        answer = cls(**(options or {})).count(dep, by, deadline)
        out.count_s = time.perf_counter() - t1
        out.count, out.complete, out.detail = answer.count, answer.complete, dict(answer.detail)
        if with_marginals:
            from harness.counting.marginals import marginals

            t2 = time.perf_counter()
            try:
                out.marginals = marginals(dep)
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001 - the marginals' failure is reported, the count stands
                out.marginals_error = failure_of(exc)[0]
            out.marginals_s = time.perf_counter() - t2
    except Unsupported as exc:
        out.failure = f"{UNSUPPORTED}{exc}"
    except Exception as exc:  # noqa: BLE001 - a counter's crash is a result
        out.failure, out.trace = failure_of(exc)
    return out


def expected_count(dep: Any, by: str) -> int | None:
    """The instance's known count for ``by`` (``meta.expected_count`` / ``expected_boards``), if any."""
    key = "expected_count" if by == "deployments" else "expected_boards"
    value = dep.meta.get(key)
    return int(value) if isinstance(value, (int, str)) and str(value).isdigit() else None


def classify_count(termination: Termination, count: int | None, complete: bool, expected: int | None) -> Status:
    """The status of a counting run.  Pure.

    A count that contradicts the known count is ``wrong`` (a complete count that differs,
    or a partial count already above it); then crash, memout, timeout, refusal; an
    incomplete count is a timeout; else ``sat`` (some deployment) or ``unsat`` (none).
    """
    if count is not None and expected is not None and (count != expected if complete else count > expected):
        return Status.WRONG
    early = ended_early(termination)
    if early is not None:
        return early
    if count is None or not complete:
        return Status.TIMEOUT
    return Status.SAT if count > 0 else Status.UNSAT


def verdict_of(count: int | None, complete: bool, expected: int | None) -> str:
    """``ok``, ``none`` (nothing to judge) or what is wrong with the count."""
    if count is None or expected is None:
        return "none"
    if complete and count != expected:
        return f"count {count} is not the known {expected}"
    if not complete and count > expected:
        return f"partial count {count} exceeds the known {expected}"
    return "ok"


def accepting(dep: Any, by: str) -> list[str]:
    """The registered counters (built-ins and entry points) that take ``dep`` counted ``by``."""
    from harness.counting.counters import FAMILY

    out = []
    for name in FAMILY.names():
        try:
            cls = FAMILY.load(name)
            if cls.available() is None and cls.refuses(dep, by) is None:
                out.append(name)
        except Exception:  # noqa: BLE001 - a broken plugin or predicate takes nothing
            continue
    return out


@dataclass
class CountResult:
    """One judged counting run: what the counter said, why the run ended, whether it is right."""

    instance: str
    backend: str
    by: str
    status: Status
    termination: Termination
    count: int | None
    complete: bool
    expected: int | None
    verdict: str
    error: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    times: dict[str, float | None] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    marginals: Any = None
    marginals_error: str = ""

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON object: the count an exact integer (JSON numbers are arbitrary precision)."""
        return {"instance": self.instance, "backend": self.backend, "by": self.by, "count": self.count,
                "complete": self.complete, "status": str(self.status), "termination": str(self.termination),
                "expected": self.expected, "verdict": self.verdict, "times": self.times,
                "detail": self.detail, "error": self.error or None}


def judge_count(request: CountRequest, kind: str, outcome: CountOutcome | None, error: str = "",
                wall_s: float | None = None, cpu_s: float | None = None) -> CountResult:
    """Judge one execution (``kind``: ok, timeout, memout, crash, as the runner measured it)."""
    termination = termination_of(kind)
    count, complete, detail, times, versions = None, False, {}, {}, {}
    if outcome is not None and kind == "ok":
        if outcome.failure == "MemoryError":
            termination = Termination.MEMOUT
        elif outcome.failure.startswith(UNSUPPORTED):
            termination = Termination.REFUSED
            takers = accepting(request.instance, request.formulation)
            error = error or (f"{request.backend} refuses: {outcome.failure[len(UNSUPPORTED):]} (counters that take "
                              f"it: {', '.join(takers) or 'none here'})")
        elif outcome.failure:
            termination = Termination.CRASH
            error = error or outcome.failure
    if outcome is not None:
        if kind == "ok" or outcome.count is not None:
            count, complete = outcome.count, outcome.complete and kind == "ok"
        detail, versions = outcome.detail, outcome.versions
        times = {"build_s": outcome.build_s, "count_s": outcome.count_s}
        if outcome.trace:
            detail = {**detail, "trace": outcome.trace}
    times.update(wall_s=wall_s, cpu_s=cpu_s)
    expected = expected_count(request.instance, request.formulation)
    return CountResult(request.instance.name, request.backend, request.formulation,
                       classify_count(termination, count, complete, expected), termination, count, complete,
                       expected, verdict_of(count, complete, expected), error, detail, times, versions,
                       outcome.marginals if outcome is not None else None,
                       outcome.marginals_error if outcome is not None else "")


def count_in_process(dep: Any, counter: str, by: str = "deployments", options: dict[str, Any] | None = None,
                     time_limit_s: float | None = None, marginals: bool = False) -> CountResult:
    """One count in this process (it imports the counter), judged as a worker's is; ``time_limit_s`` is the
    counter's own deadline (nothing stops it from outside), ``wall_s`` the seconds it took here."""
    configured = tuple(sorted((options or {}).items()))
    request = CountRequest(dep, counter, by, Limits(time_limit_s, None), marginals, options=configured)
    t0 = time.perf_counter()
    outcome = request.execute()
    result = judge_count(request, "ok", outcome, wall_s=time.perf_counter() - t0, cpu_s=None)
    if outcome.marginals_s is not None:
        result.times["marginals_s"] = outcome.marginals_s
    return result


def recount_stored(frame: Any, results: Path) -> Any:
    """Every stored count judged again: its exact decimal (``detail.count``) against the ``count`` column, its
    verdict and status (``verdict_of``, ``classify_count``) against the instance file's known count (read again
    where the file is found, else the stored ``detail.expected``)."""
    import json

    from harness.counting.format import read_deployment
    from harness.report.data import clean
    from harness.report.locate import locator_of
    from harness.report.reverify import Reverified

    located = locator_of(results)
    out = Reverified(what="counts judged again", located=located)
    for rec in frame.to_dict("records"):
        rec = {k: clean(v) for k, v in rec.items()}
        where = (str(rec.get("instance")), str(rec.get("pair")))
        if rec.get("answer") == "none" and rec.get("status") == "error" and not rec.get("detail"):
            continue  # its file could not be read: nothing was counted
        try:
            detail = json.loads(rec.get("detail") or "{}")
            text = detail.get("count")
            count = None if text is None else int(text)
            termination = Termination(str(rec.get("termination")))
        except (TypeError, ValueError, AttributeError) as exc:
            out.mismatches.append((*where, "a count", f"none readable: {exc}"))
            continue
        column = rec.get("count")
        if count is not None and (column != count if count <= INT64_MAX else column is not None):
            out.mismatches.append((*where, f"count column {column}", f"detail.count {count}"))
            continue
        dep = located.find(str(rec.get("instance_path") or ""), str(rec.get("instance_hash") or ""),
                           read_deployment)
        stored_expected = detail.get("expected")
        expected = expected_count(dep, str(rec.get("question"))) if dep is not None else (
            int(stored_expected) if isinstance(stored_expected, str) and stored_expected.isdigit() else None)
        if dep is None:
            out.unverifiable += 1
        out.runs += 1
        out.boards += 1
        complete = bool(rec.get("complete"))
        again = {"status": str(classify_count(termination, count, complete, expected)),
                 "verdict": verdict_of(count, complete, expected)}
        for key, value in again.items():
            if rec.get(key) != value:
                out.mismatches.append((*where, f"{key} {rec.get(key)}", f"{key} {value} (its count judged again)"))
                break
    return out


class CountTask(TaskType):
    """The count task (see the module docstring)."""

    name = "count"
    kinds = ("deployments", "boards")
    plugin = "counter"
    variant = "what is counted"
    subject = "deployment instance"
    columns = {  # what the shared record columns hold for this task (the records page)
        "instance": "the deployment instance's name",
        "backend": "the counter",
        "formulation": "what is counted: deployments or boards (as question)",
        "options": "every counter option, defaults filled in (JSON)",
        "question": "deployments or boards",
        "seed": "the configured seed, or null",
        "repetition": "which repetition (1, 2, ...)",
        "answer": "sat: a complete count > 0; unsat: 0; unknown: incomplete; none: no answer",
        "exhausted": "the count is complete",
        "verdict": "ok, or why the count contradicts the known count; none: no known count",
        "count": "the exact count while it fits 64 bits (detail.count: any size)",
        "complete": "the count is complete",
        "shots": "null",
        "build_s": "loading the counter",
        "solve_s": "counting, in the worker",
        "placements": "placements of the pieces",
        "solver_version": "the library that counts, else battlebench",
        "boards": "[]",
        "detail": "count, expected, method, ... (JSON)",
    }
    family = "harness.counting.counters:FAMILY"
    pair_keys = ("counter", "backend", "counted", "formulation", "options")

    @classmethod
    def parse_pair(cls, entry: dict[str, Any], where: str, path: Path, spec: TaskSpec) -> PairSpec:
        from harness.counting.counters import get_counter

        key = one_of(entry, ("counter", "backend"), where, path)
        name = get(entry, key, str, path, required=True, where=f"{where}.{key}")
        try:
            counter = get_counter(name)
        except InputError as exc:
            raise ConfigError(path, f"{where}.{key}", str(exc)) from None
        counted = one_of(entry, ("counted", "formulation"), where, path)
        what = get(entry, counted, str, path, where=f"{where}.{counted}") or spec.label
        if what != spec.label:
            raise ConfigError(path, f"{where}.{counted}", f"the task counts {spec.label}: leave {counted} out "
                              f"or set it to {spec.label!r}, not {what!r}")
        if spec.label not in counter.by:
            raise ConfigError(path, f"{where}.{key}", f"the {name} counter counts by {' or '.join(counter.by)}, "
                              f"not by {spec.label}")
        options = get(entry, "options", dict, path, where=f"{where}.options") or {}
        return PairSpec(name, spec.label, configured_options(options, counter.options, counter.resolve_options,
                                                             f"counter {name}", path, where))

    @classmethod
    def load(cls, path: Path, shown: str) -> Subject:
        from harness.counting.format import read_deployment

        return read_subject(path, read_deployment, shown)

    def execute(self, pool: Any, spec: RunSpec, marginals: bool = False, trust_refuses: bool = True) -> Executed:
        if spec.instance is None:
            return Executed(error_record(spec, spec.load_error))
        request = CountRequest(spec.instance, spec.pair.plugin, spec.task.label, spec.limits, marginals,
                               trust_refuses, spec.pair.options)
        ex = pool.execute(request)
        result = judge_count(request, ex.kind, ex.outcome, ex.error, ex.wall_s, ex.cpu_s)
        if ex.detail:  # what the runner saw: killed at the limit, a late answer, the worker's last words
            result.detail = {**result.detail, "runner": ex.detail}
        if ex.warmup_s is not None:
            result.times["warmup_s"] = ex.warmup_s
        if ex.outcome is not None and ex.outcome.marginals_s is not None:
            result.times["marginals_s"] = ex.outcome.marginals_s
        return Executed(self.record(spec, ex, result), result)

    @staticmethod
    def record(spec: RunSpec, execution: Any, result: CountResult) -> dict[str, Any]:
        """The run record of a counting run (``docs/reference/records.md``, the count task).  The exact count is
        ``detail.count`` (decimal text, any size); the ``count`` column holds it too while it fits SQLite's
        64-bit integers (else null), never a float."""
        from harness.counting.counters import get_counter

        rec = base_record(spec, execution)
        dep = spec.instance
        count = result.count
        if count is None:
            answer = "none" if execution.outcome is None else "unknown"
        elif result.complete:
            answer = "sat" if count > 0 else "unsat"
        else:
            answer = "unknown"
        versions = result.versions or {}
        try:
            counter = get_counter(spec.pair.plugin)
            solver = counter.solver_label(versions)
            options = counter.resolve_options(spec.pair.option_dict)  # every option, defaults filled in
        except InputError:
            solver, options = None, spec.pair.option_dict
        detail = {k: v for k, v in result.detail.items() if k != "trace"}
        detail.update(count=None if count is None else str(count),
                      expected=None if result.expected is None else str(result.expected))
        if "trace" in result.detail:
            detail["trace"] = result.detail["trace"][-2000:]
        square = dep.grid.kind == "square"
        rec.update(
            rows=dep.rows if square else None, cols=dep.cols if square else None, options=dumps(options),
            status=str(result.status), answer=answer, exhausted=int(bool(result.complete)),
            termination=str(result.termination), verdict=result.verdict,
            count=count if count is not None and count <= INT64_MAX else None, complete=int(bool(result.complete)),
            build_s=result.times.get("build_s"), solve_s=result.times.get("count_s"),
            placements=result.detail.get("placements"), solver_version=solver, versions=dumps(versions),
            boards=dumps([]), verdicts=dumps([]), error=result.error or "", detail=dumps(detail),
        )
        return rec

    @classmethod
    def section(cls) -> ReportSection:
        return CountSection()


class CountSection(ReportSection):
    """What report and check add for counting runs: exact counts compared across counters and with the
    known counts, and a table of counts."""

    title = "Counts"

    def problems(self, frame: Any, manifest: dict | None, manifest_path: Any) -> list:
        from harness.report.counts import check_counts, counting_manifest

        return check_counts(frame, counting_manifest(manifest, manifest_path))

    def agreement(self, frame: Any) -> str:
        return f"{len(frame)} counting runs: exact counts agree"

    def recheck(self, frame: Any, results: Path) -> Any:
        return recount_stored(frame, results)

    def tables(self, frame: Any) -> dict[str, Any]:
        from harness.report.counts import counts_table

        return {"counts": counts_table(frame)}

    def html(self, tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
        return [("counts", "Counts", f'<p class="sub">{COUNTS_NOTE}</p>' + html_table(tables["counts"]))]

    def markdown(self, tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
        counts = tables.get("counts")
        if counts is None or counts.empty:
            return []
        return ["## Counts", "", COUNTS_NOTE, "", markdown_table(counts), ""]


COUNTS_NOTE = ("The exact count of each instance where its counters agree (`disagree` where they do not), and per "
               "counter the wall time of its exact count, or its status.")


__all__ = ["CountOutcome", "CountRequest", "CountResult", "CountSection", "CountTask", "accepting",
           "classify_count", "compile_engine", "count_in_process", "execute_count", "expected_count", "judge_count",
           "verdict_of", "versions_of", "warm_engines"]
