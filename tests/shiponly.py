"""A strategy plugin that declares one announcement rule (``ship``): configs naming another rule must be refused."""

from harness.play.strategies.random import RandomStrategy


class ShipOnly(RandomStrategy):
    name = "ship-only"
    rules = ("ship",)
