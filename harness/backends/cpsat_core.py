"""The slice of OR-Tools' CP-SAT Python API the cpsat backend uses, on the pybind module alone.

``ortools.sat.python.cp_model`` imports numpy and pandas at its top (about 0.4 s of CPU
for pandas alone, in every worker that runs cpsat) for its Series helpers, which this
harness never uses.  Its model, solver and solution callback are thin classes over the
pybind module ``ortools.sat.python.cp_model_helper`` (``cmh``); this module holds the same
thin classes, for the methods the cpsat backend, its split search
(:mod:`harness.backends.cubes`) and the generator's CP-SAT fallback call, with
``cp_model``'s names and meaning, so that a cpsat run does not import pandas or
``cp_model``.  (numpy is still imported: ``cmh.CpBaseModel``'s constructor imports it, in
C++, for pybind11's numpy support; 9.15 has no model without it.)  The model built, the
parameters and the search are those of ``cp_model``: the same C++ calls.

:func:`load` imports ``cmh`` and checks that it has what these classes call: OR-Tools
9.15 and later (9.12-9.14 have no ``CpBaseModel``, hence the pin ``ortools>=9.15`` in
pyproject); a missing or older ortools is a :class:`~harness.errors.BackendUnavailable`
naming what is missing.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from harness.errors import BackendUnavailable

# What these classes call in cmh: the model's base class and its constraint adders, the solve
# wrapper and the response reader (read from cp_model.py of OR-Tools 9.15, whose classes these mirror).
NEEDED = {
    "CpBaseModel": ("_add_bool_argument_constraint", "_add_bounded_linear_expression", "_add_automaton",
                    "rebuild_constant_map", "model_proto"),
    "BoolArgumentConstraint": ("bool_or", "bool_and", "at_most_one", "exactly_one"),
    "IntVar": ("with_name", "with_domain", "is_boolean", "index"),
    "LinearExpr": ("sum", "weighted_sum"),
    "SolveWrapper": ("set_parameters", "add_solution_callback", "clear_solution_callback", "solve", "stop_search"),
    "ResponseHelper": ("boolean_value",),
    "SolutionCallback": ("BooleanValue", "StopSearch", "HasResponse"),
    "SatParameters": (),
    "CpSolverStatus": ("OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "MODEL_INVALID"),
    "DecisionStrategyProto": (),
}

_api: list[SimpleNamespace] = []  # the one namespace, once loaded


def missing(module: Any) -> list[str]:
    """The names of :data:`NEEDED` that ``module`` (a ``cp_model_helper``) lacks, as ``Class.attribute``."""
    gone = []
    for cls, attrs in NEEDED.items():
        holder = getattr(module, cls, None)
        if holder is None:
            gone.append(cls)
        else:
            gone += [f"{cls}.{a}" for a in attrs if not hasattr(holder, a)]
    return gone


def load() -> SimpleNamespace:
    """``CpModel``, ``CpSolver``, ``CpSolverSolutionCallback``, ``LinearExpr``, ``Status`` (the solve statuses),
    the strategy constants the backend names, ``version`` (ortools') and ``cmh``, built on the first call."""
    if _api:
        return _api[0]
    try:
        import ortools
        from ortools.sat.python import cp_model_helper as cmh
        from ortools.util.python.sorted_interval_list import Domain
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailable(f"cannot import ortools' CP-SAT helper module: {exc}") from exc
    gone = missing(cmh)
    if gone:
        raise BackendUnavailable(f"ortools {getattr(ortools, '__version__', '?')}: "
                                 f"ortools.sat.python.cp_model_helper lacks {', '.join(gone)} (needs ortools >= 9.15)")
    _api.append(SimpleNamespace(**_classes(cmh, Domain), cmh=cmh, version=ortools.__version__))
    return _api[0]


def _classes(cmh: Any, Domain: Any) -> dict[str, Any]:  # noqa: N803 - the ortools class
    bool_arg = cmh.BoolArgumentConstraint
    boolean = Domain(0, 1)

    class CpModel(cmh.CpBaseModel):
        """``cp_model.CpModel``'s Boolean and linear constraints, decision strategies and hints."""

        def __init__(self, model_proto: Any = None) -> None:
            cmh.CpBaseModel.__init__(self, model_proto)

        @property
        def proto(self) -> Any:
            return self.model_proto

        def new_bool_var(self, name: str) -> Any:
            return cmh.IntVar(self.model_proto).with_name(name).with_domain(boolean)

        def new_int_var(self, lb: int, ub: int, name: str) -> Any:
            return cmh.IntVar(self.model_proto).with_name(name).with_domain(Domain(lb, ub))

        def new_int_var_from_domain(self, domain: Any, name: str) -> Any:
            return cmh.IntVar(self.model_proto).with_name(name).with_domain(domain)

        def add_automaton(self, expressions: Any, start: int, finals: Any, triples: Any) -> Any:
            if not expressions or not finals or not triples:
                raise ValueError("add_automaton expects expressions, final states and transition triples")
            return self._add_automaton(expressions, start, finals, triples)

        def get_bool_var_from_proto_index(self, index: int) -> Any:
            var = cmh.IntVar(self.model_proto, index)
            if not var.is_boolean:
                raise TypeError(f"variable {index} of the model is not Boolean")
            return var

        def add(self, ct: Any) -> Any:
            """A linear constraint (``expr == n``, ``expr <= n``: a BoundedLinearExpression) or a constant truth."""
            if isinstance(ct, bool):  # as cp_model: true is an empty constraint, false an empty clause
                return self.add_bool_or([True] if ct else [])
            return self._add_bounded_linear_expression(ct)

        def add_bool_or(self, literals: Any) -> Any:
            return self._add_bool_argument_constraint(bool_arg.bool_or, list(literals))

        def add_bool_and(self, literals: Any) -> Any:
            return self._add_bool_argument_constraint(bool_arg.bool_and, list(literals))

        def add_at_most_one(self, literals: Any) -> Any:
            return self._add_bool_argument_constraint(bool_arg.at_most_one, list(literals))

        def add_exactly_one(self, literals: Any) -> Any:
            return self._add_bool_argument_constraint(bool_arg.exactly_one, list(literals))

        def add_implication(self, a: Any, b: Any) -> Any:
            return self.add_bool_and([b]).only_enforce_if(a)

        def add_decision_strategy(self, variables: Any, var_strategy: Any, domain_strategy: Any) -> None:
            strategy = self.model_proto.search_strategy.add()
            for v in variables:
                expr = strategy.exprs.add()
                if v.index >= 0:
                    expr.vars.append(v.index)
                    expr.coeffs.append(1)
                else:  # a negated literal: 1 - x
                    expr.vars.append(-v.index - 1)
                    expr.coeffs.append(-1)
                    expr.offset = 1
            strategy.variable_selection_strategy = var_strategy
            strategy.domain_reduction_strategy = domain_strategy

        def add_hint(self, var: Any, value: Any) -> None:
            hint = self.model_proto.solution_hint
            if var.index >= 0:
                hint.vars.append(var.index)
                hint.values.append(int(value))
            else:
                hint.vars.append(-var.index - 1)
                hint.values.append(int(not value))

        def clone(self) -> CpModel:
            copy = CpModel()
            copy.proto.copy_from(self.proto)
            copy.rebuild_constant_map()
            return copy

    class CpSolver:
        """``cp_model.CpSolver``: ``parameters``, ``solve``, ``stop_search`` (from any thread), the response."""

        def __init__(self) -> None:
            self.parameters = cmh.SatParameters()
            self._response: Any = None
            self._wrapper: Any = None
            self._lock = threading.Lock()

        def solve(self, model: CpModel, solution_callback: Any = None) -> Any:
            with self._lock:
                self._wrapper = wrapper = cmh.SolveWrapper()
            wrapper.set_parameters(self.parameters)
            if solution_callback is not None:
                wrapper.add_solution_callback(solution_callback)
            self._response = wrapper.solve(model.proto)
            if solution_callback is not None:
                wrapper.clear_solution_callback(solution_callback)
            with self._lock:
                self._wrapper = None
            return self._response.status

        def stop_search(self) -> None:
            with self._lock:
                if self._wrapper is not None:
                    self._wrapper.stop_search()

        def _checked(self) -> Any:
            if self._response is None:
                raise RuntimeError("solve() has not been called.")
            return self._response

        def boolean_value(self, literal: Any) -> bool:
            return cmh.ResponseHelper.boolean_value(self._checked(), literal)

        @property
        def wall_time(self) -> float:
            return self._checked().wall_time

        @property
        def num_branches(self) -> int:
            return self._checked().num_branches

        @property
        def num_conflicts(self) -> int:
            return self._checked().num_conflicts

        def status_name(self, status: Any = None) -> str:
            return (self._checked().status if status is None else status).name

    class CpSolverSolutionCallback(cmh.SolutionCallback):
        """``cp_model.CpSolverSolutionCallback``: subclasses define ``on_solution_callback``."""

        def __init__(self) -> None:
            cmh.SolutionCallback.__init__(self)

        def OnSolutionCallback(self) -> None:  # noqa: N802 - the name the C++ side calls
            self.on_solution_callback()

        def boolean_value(self, literal: Any) -> bool:
            return self.BooleanValue(literal)

        def stop_search(self) -> None:
            self.StopSearch()

    strategy = cmh.DecisionStrategyProto
    return {"CpModel": CpModel, "CpSolver": CpSolver, "CpSolverSolutionCallback": CpSolverSolutionCallback,
            "LinearExpr": cmh.LinearExpr, "Status": cmh.CpSolverStatus,
            "CHOOSE_FIRST": strategy.VariableSelectionStrategy.CHOOSE_FIRST,
            "SELECT_MIN_VALUE": strategy.DomainReductionStrategy.SELECT_MIN_VALUE,
            "FIXED_SEARCH": cmh.SatParameters.SearchBranching.FIXED_SEARCH}


__all__ = ["NEEDED", "load", "missing"]
