"""The tasks: one module per task behind the contract of :mod:`harness.core.task`.

* :mod:`~harness.tasks.solve` -- the **solve** task: a puzzle solved (one board, or proof
  that none exists) or its distinct boards counted up to K (``count-K``), by backends
  (and races of them); every board through the independent verifier.
* :mod:`~harness.tasks.count` -- the **count** task: a deployment instance's deployments
  (or distinct boards) counted exactly by counters; every count against the known one.
* :mod:`~harness.tasks.play` -- the **play** task: one game of a strategy against a
  hidden deployment; every shot sequence replayed against the deployment drawn again.
* :mod:`~harness.tasks.value` -- the **value** task: a strategy's (or optimal play's)
  exact expected shots on a small board; every value judged again apart from the worker
  and none below the optimum.

The registry is :data:`harness.core.task.TASKS` (built-ins by name, entry points of the
group ``battlebench.tasks``, ``module:Class``); importing this package imports no task.
"""
