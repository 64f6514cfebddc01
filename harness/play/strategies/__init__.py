"""The strategies: one module per way of choosing the next shot, behind :class:`Strategy`, a plugin family found by name.

The contract (the page ``docs/reference/plugins/strategies.md``; ``battlebench conform --strategy NAME``
qualifies one):

* ``name``; ``options`` (``{name: Option(default, type, ...)}``: a strategy takes only the
  options it declares, converted to their types); ``rules`` (the announcement rules it
  can play under; :meth:`Strategy.start` refuses any other);
* ``start(board, rule, rng)``: a new game on ``board`` (a hint-free deployment) under
  announcement rule ``rule``; ``rng`` is the strategy's own ``numpy`` generator, the only
  randomness it may use (the same seed gives the same shots);
* ``shot(position)``: the next cell to fire at, one of ``position.unknown()``;
* ``heat(position)``: optional, per cell the strategy's belief of a ship there (for
  ``--watch`` and ``--strip``), or None; ``decide(position, heat)`` gives the shot and,
  when asked, the heat map it came from (one belief per turn: a sampling strategy draws
  once);
* ``validate()``: called with the options set; raise UsageError on a bad value;
* ``markov``: True when its shot depends on the position alone, not on what it did
  before (exact walks then memoise on the position: :mod:`harness.play.exact`);
* ``expected_shots(board, rule)``: optional, its exact expected shots in closed form, or
  None.

A strategy that finds no deployment fits the position raises
:class:`~harness.play.game.ImpossiblePosition`; the game ends as an ``error``.  Built-ins
are :data:`STRATEGIES`; an installed distribution adds one as an entry point of the group
``battlebench.strategies``; ``module:Class`` names any class (:data:`FAMILY`).
"""

from __future__ import annotations

from typing import Any

from harness.core.options import Option, resolve
from harness.core.plugins import Family, named_version, overridden, own_versions
from harness.errors import UsageError
from harness.play.game import RULES


class Strategy:
    """Base of every strategy (see the module docstring)."""

    name = "strategy"
    options: dict[str, Option] = {}
    rules: tuple[str, ...] = RULES
    markov = False  # its shot depends on the position alone (not on its own earlier shots)

    def __init__(self, **options: Any):
        self.opts = self.resolve_options(options)

    @classmethod
    def resolve_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in, converted to their declared types; unknown names and bad values rejected."""
        opts = resolve(cls.options, given, f"strategy {cls.name}")
        probe = cls.__new__(cls)
        probe.opts = opts
        probe.validate()
        return opts

    @classmethod
    def kernels(cls, board: Any) -> tuple[str, ...]:
        """The harness's numba kernel modules its games on ``board`` compile (:mod:`harness.core.jitcache`): none."""
        return ()

    @classmethod
    def available(cls) -> str | None:
        """None when the strategy can play here, else one line saying what is missing (override if it needs
        anything beyond battlebench)."""
        return None

    @classmethod
    def versions(cls) -> dict[str, str]:
        """The version of the code that plays: the strategy's own distribution (battlebench for built-ins)."""
        return own_versions(cls)

    @classmethod
    def solver_label(cls, versions: dict[str, str]) -> str | None:
        """``"DISTRIBUTION VERSION"`` of the strategy's code."""
        return named_version(versions, *own_versions(cls))

    def validate(self) -> None:
        """Raise UsageError when an option's value is unusable (names are checked already)."""

    @classmethod
    def expected_shots(cls, board: Any, rule: str) -> Any:
        """The exact expected number of shots on ``board`` (labelled ships, hint-free) under ``rule``, in closed
        form (a Fraction), or None when there is none."""
        return None

    def start(self, board: Any, rule: str, rng: Any) -> None:
        if rule not in self.rules:
            raise ValueError(f"the {self.name} strategy plays under the {' or '.join(self.rules)} rule, not {rule!r}")
        self.board, self.rule, self.rng = board, rule, rng

    def shot(self, position: Any) -> Any:
        raise NotImplementedError

    def heat(self, position: Any) -> dict | None:
        return None

    def decide(self, position: Any, heat: bool = False) -> tuple[Any, dict | None]:
        """(the next shot, the heat map it was chosen from when ``heat``)."""
        return self.shot(position), (self.heat(position) if heat else None)


STRATEGIES: dict[str, str] = {
    "random": "harness.play.strategies.random:RandomStrategy",
    "hunt-target": "harness.play.strategies.hunt_target:HuntTargetStrategy",
    "parity": "harness.play.strategies.parity:ParityStrategy",
    "density": "harness.play.strategies.density:DensityStrategy",
    "thompson": "harness.play.strategies.thompson:ThompsonStrategy",
    "posterior": "harness.play.strategies.posterior:PosteriorStrategy",
    "lookahead": "harness.play.strategies.lookahead:LookaheadStrategy",
}


def _contract(cls: type[Strategy]) -> list[str]:
    """What keeps a subclass of Strategy from being a strategy (empty: nothing)."""
    problems = []
    if not isinstance(cls.name, str) or not cls.name or cls.name == Strategy.name:
        problems.append("its name is not set")
    if not isinstance(cls.rules, tuple) or not cls.rules or any(r not in RULES for r in cls.rules):
        problems.append(f"rules must be a non-empty tuple of {', '.join(RULES)}")
    if not isinstance(cls.options, dict) or not all(isinstance(o, Option) for o in cls.options.values()):
        problems.append("options must map names to harness.core.options.Option")
    if not overridden(cls, Strategy, "shot"):
        problems.append("it does not implement shot()")
    return problems


FAMILY = Family("strategy", "battlebench.strategies", STRATEGIES, base="harness.play.strategies:Strategy",
                check=_contract, default="random")


def get_strategy(name: str) -> type[Strategy]:
    """The strategy class called ``name`` (UsageError if unknown, not importable or not a strategy)."""
    return FAMILY.load(name)


__all__ = ["FAMILY", "RULES", "STRATEGIES", "Option", "Strategy", "UsageError", "get_strategy"]
