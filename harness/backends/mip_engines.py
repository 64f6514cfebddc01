"""The MIP engines of the ``mip`` backend: HiGHS or SCIP behind pyomo's persistent interfaces.

One engine object per enumeration owns the persistent pyomo solver: ``start(model,
variables)`` creates it with pyomo's automatic change detection switched off (rows and
cuts are handed over explicitly), ``add(constraints)`` translates rows or cuts, and
``solve(model, remaining_s)`` makes one call.  Nothing is imported at module level.

* ``highs``: ``pyomo.contrib.solver.solvers.highs.Highs``.  All variables go to HiGHS
  in one call before the rows.  HiGHS keeps one thread pool per process, restarted when
  the thread count changes (:func:`use_highs_threads`, shared with the ``cpmpy``
  backend's HiGHS); a "Solve error" from HiGHS's MIP presolve is retried once without
  presolve (see :meth:`HighsEngine.solve`).  Reported time: pyomo's ``optimize`` timer.
* ``scip``: ``pyomo.contrib.solver.solvers.scip.scip_persistent.ScipPersistent``
  (pyscipopt).  It learns variables only from constraints, so a variable that no row
  mentions (its only row became a bound) is registered by one trivially true row
  (``Σ v ≥ 0``, added by the backend).  After each solve the interface frees SCIP's
  transformed problem before a cut is added, so every call presolves again, as HiGHS
  does.  ``threads`` becomes SCIP's ``lp/threads`` (its search is sequential), ``seed``
  its ``randomization/randomseedshift``.  Reported time: SCIP's ``getSolvingTime()``.
"""

from __future__ import annotations

from typing import Any

ENGINES = ("highs", "scip")
_scheduler_threads: list[int] = []  # HiGHS's process-wide thread pool size, once started


def use_highs_threads(threads: int) -> None:
    """HiGHS keeps one thread pool per process: restart it when the size changes
    (otherwise the next run with another ``threads`` value fails)."""
    import highspy

    if _scheduler_threads and _scheduler_threads[0] != threads:
        highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads[:] = [threads]


def _auto_updates_off(opt: Any) -> None:
    auto = opt.config.auto_updates
    for key in list(auto.keys()):
        if isinstance(getattr(auto, key), bool):
            setattr(auto, key, False)


class HighsEngine:
    name = "highs"
    label = "HiGHS"
    registers_unused_variables = True  # add_variables() hands HiGHS every column

    def __init__(self, threads: int, seed: int):
        self.threads, self.seed = threads, seed
        self.opt: Any = None
        self.retries = 0  # calls repeated without presolve after a HiGHS solve error

    def start(self, model: Any, variables: list) -> None:
        from pyomo.contrib.solver.solvers.highs import Highs

        opt = self.opt = Highs()
        _auto_updates_off(opt)
        opt.set_instance(model)  # variables only so far: no rows, no objective
        opt.add_variables(variables)  # one call instead of one per row

    def add(self, constraints: list) -> None:
        self.opt.add_constraints(constraints)

    def prepare(self) -> None:
        use_highs_threads(self.threads)

    def _run(self, model: Any, remaining: float | None, presolve: str) -> Any:
        return self.opt.solve(
            model, load_solutions=False, raise_exception_on_nonoptimal_result=False,
            threads=self.threads, time_limit=remaining,
            solver_options={"random_seed": self.seed, "output_flag": False, "presolve": presolve},
        )

    def solve(self, model: Any, remaining: float | None, again: Any) -> Any:
        """One call; ``again()`` gives the remaining time for a repeated call."""
        from pyomo.contrib.solver.common.results import TerminationCondition as TC

        res = self._run(model, remaining, "choose")
        if res.termination_condition is TC.error:
            # HiGHS 1.15's MIP presolve can reduce an infeasible model to an empty one
            # and then reject its own "optimal" point (ERGO-Code/HiGHS#1710, #2782):
            # "Solve error".  The same call without presolve answers correctly.
            self.retries += 1
            res = self._run(model, again(), "off")
        return res

    @staticmethod
    def solver_time(res: Any) -> float:
        timer = res.timing_info.timer
        try:
            return float(timer.get_total_time("optimize"))
        except Exception:  # noqa: BLE001 - an older timer API
            return float(res.timing_info.wall_time or 0.0)

    def detail(self) -> str:
        if self.retries:
            return f", {self.retries} retried without presolve after a HiGHS solve error"
        return ""


class ScipEngine:
    name = "scip"
    label = "SCIP"
    registers_unused_variables = False  # see the module docstring

    def __init__(self, threads: int, seed: int):
        self.threads, self.seed = threads, seed
        self.opt: Any = None

    def start(self, model: Any, variables: list) -> None:
        from pyomo.contrib.solver.solvers.scip.scip_persistent import ScipPersistent

        opt = self.opt = ScipPersistent()
        _auto_updates_off(opt)
        opt.set_instance(model)  # no rows yet; variables come with the rows that use them

    def add(self, constraints: list) -> None:
        self.opt.add_constraints(constraints)

    def prepare(self) -> None:
        pass

    def solve(self, model: Any, remaining: float | None, again: Any) -> Any:
        return self.opt.solve(
            model, load_solutions=False, raise_exception_on_nonoptimal_result=False,
            threads=self.threads, time_limit=remaining,
            solver_options={"randomization/randomseedshift": self.seed, "display/verblevel": 0},
        )

    @staticmethod
    def solver_time(res: Any) -> float:
        t = getattr(res.timing_info, "scip_time", None)
        return float(t if t is not None else res.timing_info.wall_time or 0.0)

    def detail(self) -> str:
        return ""


def make_engine(name: str, threads: int, seed: int) -> HighsEngine | ScipEngine:
    return {"highs": HighsEngine, "scip": ScipEngine}[name](threads, seed)


def engine_versions() -> dict[str, str]:
    """Versions of both engines (``versions()`` is a classmethod: it cannot know the option)."""
    out: dict[str, str] = {}
    try:
        import highspy

        # the module's constants: constructing Highs() prints its banner on standard output
        out["highs"] = f"{highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}.{highspy.HIGHS_VERSION_PATCH}"
    except ImportError:
        out["highs"] = "not installed"
    try:
        import pyscipopt

        m = pyscipopt.Model()
        out["scip"] = f"{m.getMajorVersion()}.{m.getMinorVersion()}.{m.getTechVersion()}"
        out["pyscipopt"] = pyscipopt.__version__
    except ImportError:
        out["scip"] = "not installed"
    return out
