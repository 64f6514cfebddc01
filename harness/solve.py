"""Kept for users' scripts: the solve task's run in this process now lives in :mod:`harness.tasks.solve.run`.

``from harness.solve import solve_in_process, SolveResult`` goes on working; new code imports
from :mod:`harness.tasks.solve.run` (or uses :func:`harness.api.solve`).
"""

from harness.tasks.solve.run import (Outcome, ResolvedPair, SolveResult, build_in_process, execute, judge,
                                     solve_in_process, warm_up)

__all__ = ["Outcome", "ResolvedPair", "SolveResult", "build_in_process", "execute", "judge", "solve_in_process",
           "warm_up"]
