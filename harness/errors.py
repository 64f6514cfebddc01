"""The harness's own exception tree; third-party errors are mapped at the boundary.

    HarnessError
    +-- InputError                 bad user input; printed as one line, exit 2
    |   +-- InstanceFormatError    an instance file cannot be read (file, place, problem)
    |   +-- UsageError             an unknown backend, formulation, option or format
    |   +-- ConfigError            a campaign config is invalid (file, key, problem)
    |   +-- StoreMismatch          a results directory holds another config's campaign
    |   +-- StoreDamaged           a results store fails SQLite's integrity check
    |   +-- StoreConflict          a results.sqlite and the results.sqlite.gz beside it disagree
    |   +-- LimitError             a limit out of range (the field and the problem; the caller adds where)
    |   +-- UnsafeName             a name that becomes a path is not a safe file name (where, what, problem)
    +-- BackendUnavailable         a solver library cannot be imported
    +-- BackendError               a solver failed while building or solving
    |   +-- OutputLimitError       a run's tool wrote more than its output cap (termination output-limit)
    +-- Unsupported                a counter cannot express an instance (a refused run; also a ValueError)
    +-- ImpossiblePosition         no deployment fits what the shots announced (an error game; also a ValueError)
    +-- NotEnumerable              a strategy's tree cannot be walked exactly (its value is sampled)
    +-- Undecided                  the generator's oracle ran out of budget before answering
    +-- GenerationError            a puzzle could not be generated or certified

    Signal                         control flow inside one module, raised and caught there:
                                   never shown to a user (not a HarnessError: no handler of
                                   errors can swallow one)

Every exception class in ``harness/`` derives from HarnessError or Signal (a test walks them).
The classes that lived elsewhere are still importable from there (``harness.counting.counters
.Unsupported``, ``harness.play.game.ImpossiblePosition``, ``harness.play.exact.NotEnumerable``,
``harness.generate.oracle.Undecided``, ``harness.generate.generator.GenerationError``).
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class InputError(HarnessError):
    """Bad user input: reported as a single line without a traceback."""


class InstanceFormatError(InputError):
    """An instance cannot be read or is invalid.

    ``str(err)`` is ``"FILE:PLACE: PROBLEM"`` where PLACE names a line, key or cell.
    """

    def __init__(self, problem: str, *, file: str | None = None, place: str | None = None):
        self.problem = problem
        self.file = file
        self.place = place
        super().__init__(self._render())

    def _render(self) -> str:
        parts = [p for p in (self.file, self.place) if p]
        prefix = ":".join(parts)
        return f"{prefix}: {self.problem}" if prefix else self.problem

    def located(self, file: str | None = None, place: str | None = None) -> "InstanceFormatError":
        """Return a copy with the file (and place, if not yet known) filled in."""
        return InstanceFormatError(
            self.problem, file=self.file or file, place=self.place or place
        )


class UsageError(InputError):
    """An unknown backend, formulation, option, format or malformed command line."""


class ConfigError(InputError):
    """A campaign config is invalid: ``FILE: KEY: PROBLEM``."""

    def __init__(self, file: object, key: str, problem: str):
        self.file, self.key, self.problem = str(file), key, problem
        super().__init__(f"{file}: {key}: {problem}" if key else f"{file}: {problem}")


class StoreMismatch(InputError):
    """A results store already holds a campaign run from a different config."""


class StoreDamaged(InputError):
    """A results store is damaged (overwritten pages, truncated, empty): one line naming the file."""


class StoreConflict(InputError):
    """A results directory holds a ``results.sqlite`` and a ``results.sqlite.gz`` that disagree: which one
    holds the campaign cannot be told (:mod:`harness.store.twin`); one line naming both and what differs."""


class LimitError(InputError):
    """A limit out of range (:meth:`harness.core.limits.Limits.checked`): ``field`` (``time_s``, ``memory_mb``,
    ``grace_s``) and ``problem``; the command line and the config loader say where (``--time-limit``,
    ``FILE: limits.time_s``)."""

    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem
        super().__init__(f"{field} {problem}")


class UnsafeName(InputError):
    """A name that becomes a file or folder name cannot be one (:func:`harness.core.paths.check_name`):
    ``WHERE: WHAT 'NAME' PROBLEM``, where WHERE names the file and the place (or the option) it came from."""

    def __init__(self, name: object, what: str, where: str, problem: str):
        self.name, self.what, self.where, self.problem = name, what, where, problem
        said = f"{what} {name!r} {problem}"
        super().__init__(f"{where}: {said}" if where else said)


class BackendUnavailable(HarnessError):
    """A backend's solver library cannot be imported in this process."""


class BackendError(HarnessError):
    """A solver failed while building or solving a model."""


class OutputLimitError(BackendError):
    """A run's tool processes wrote more on stdout and stderr than the run's output cap
    (:data:`harness.core.limits.DEFAULT_OUTPUT_MB`): the run is an ``error`` with termination ``output-limit``."""


class Unsupported(HarnessError, ValueError):
    """This counter cannot express this instance (one line says why): the run is ``refused``, not a crash."""


class ImpossiblePosition(HarnessError, ValueError):
    """No deployment fits what the shots announced (raised by strategies that reason about it)."""


class NotEnumerable(HarnessError):
    """The strategy's randomness (or its tree) cannot be walked exactly."""


class Undecided(HarnessError):
    """The uniqueness oracle's budget ran out before the question was answered."""


class GenerationError(HarnessError):
    """A puzzle could not be generated or certified (one line: seed and reason)."""


class Signal(Exception):
    """Base of the control-flow signals one module raises and catches itself (a search stopped, a branch
    asked for); never shown to a user, and deliberately not a :class:`HarnessError`."""
